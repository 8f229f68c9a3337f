#!/bin/bash
# diff.sh REPRO: `repro diff` on real recordings (docs/diff.md).
#  1. the same program recorded twice: no difference, exit 0 (pids, times
#     and a mktemp directory differ underneath);
#  2. one thing changed between two recordings, and diff names exactly that
#     thing as the most likely cause, exit 1: a config file removed, a
#     directory made read-only, a port closed, an environment variable unset,
#     another uid (as root: the second run as the unprivileged repro-test),
#     a data directory whose owner changed (as root);
#  3. the demo in a working (cache writable) and a broken setup;
#  4. an entrypoint that execs the server in A and dies before the exec in
#     B (its config is missing): the processes align by the common prefix
#     of their exec lineage and the cause is the config;
#  5. bad input: exit 2 and one line.
# With "user" as root: the same as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
variant=${2:-root}
src=${3:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user || exit 77
	mkdir -p "$stage/examples" && cp -r "$src/examples/startup-failure" "$stage/examples/" &&
		chmod -R a+rX "$stage/examples"
	run_staged bash "$stage/$(basename "$0")" "$stage/repro" user "$stage"
	exit $?
fi
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-diff.XXXXXX)
chmod 755 "$work"
cp "$repro" "$work/repro" && repro=$work/repro
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
# cause A B: the most likely cause as JSON, into $work/cause.json (and printed)
cause() {
	"$repro" diff --json "$1" "$2" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps(d["cause"]))' >"$work/cause.json"
	cat "$work/cause.json"
}
# names WORD...: every word is in the cause
names() { local w; for w in "$@"; do grep -qF -- "$w" "$work/cause.json" || return 1; done; }
status() { "$repro" diff "$@" >/dev/null 2>&1; echo $?; }

mkdir app && cd app || exit 1
echo "port: 1" >config.yaml
cat >run.sh <<'SH'
#!/bin/sh
# a startup script: reads its config, needs $APP_MODE, writes into data/, talks to a local service
cat config.yaml >/dev/null || exit 3
[ -n "${APP_MODE:-}" ] || { echo "APP_MODE is not set" >&2; exit 5; }
d=$(mktemp -d /tmp/run.XXXXXX) && rmdir "$d"
echo ok >data/out.txt || exit 4
if [ -n "${APP_PORT:-}" ]; then
	curl -sS -o /dev/null "http://127.0.0.1:$APP_PORT/" || exit 7
fi
exit 0
SH
chmod +x run.sh
mkdir data
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
/usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
rec() { local out=$1; shift; rm -f data/out.txt; env APP_MODE=prod APP_PORT="$port" "$@" "$repro" record -o "$work/$out" -- ./run.sh >/dev/null 2>&1; }

rec same1.repro
rec same2.repro
check "same program twice: exit 0" test "$(status "$work/same1.repro" "$work/same2.repro")" = 0
"$repro" diff "$work/same1.repro" "$work/same2.repro" | grep -q "No differences" ||
	{ echo "FAIL: same program twice: says no differences"; fail=1; }

mv config.yaml config.off
rec noconfig.repro
mv config.off config.yaml
cause "$work/same1.repro" "$work/noconfig.repro" >/dev/null
check "config removed: exit 1" test "$(status "$work/same1.repro" "$work/noconfig.repro")" = 1
check "config removed: the cause is the config file (ENOENT in B)" \
	names "<cwd>/config.yaml" "ENOENT"

if [ "$(id -u)" != 0 ]; then
	chmod 555 data
	rec rodir.repro
	chmod 755 data
	cause "$work/same1.repro" "$work/rodir.repro" >/dev/null
	check "data/ made read-only: the cause is data/out.txt, EACCES, naming data and its mode" \
		names "out.txt" "EACCES" "0555"
fi

kill $server
wait $server 2>/dev/null
rec noport.repro
cause "$work/same1.repro" "$work/noport.repro" >/dev/null
check "port closed: the cause is the connect to 127.0.0.1:$port, refused in B" \
	names "127.0.0.1:$port" "refused"

rec noenv.repro env -u APP_MODE
cause "$work/noport.repro" "$work/noenv.repro" >/dev/null
check "APP_MODE unset: the cause is the environment variable APP_MODE" \
	names "APP_MODE"

if [ "$(id -u)" = 0 ]; then
	ensure_test_user || exit 1
	chmod 777 data
	mkdir -m 777 "$work/u"
	runuser -u repro-test -- env APP_MODE=prod APP_PORT="$port" "$repro" record \
		-o "$work/u/user.repro" -- ./run.sh >/dev/null 2>&1
	chmod 755 data
	cause "$work/noport.repro" "$work/u/user.repro" >/dev/null
	check "another uid: the cause is the uid" names "\"what\": \"uid\""
	# the same user twice; in B its data directory belongs to root: an owner-only change
	mkdir -m 777 "$work/own" && mkdir "$work/own/data" && chown repro-test "$work/own/data"
	printf 'mkdir -p data/sub && echo ok >data/sub/out.txt\n' >"$work/own/run.sh"
	(cd "$work/own" && runuser -u repro-test -- "$repro" record -o "$work/own/a.repro" -- sh run.sh) >/dev/null 2>&1
	rm -rf "$work/own/data/sub" && chown root "$work/own/data"
	(cd "$work/own" && runuser -u repro-test -- "$repro" record -o "$work/own/b.repro" -- sh run.sh) >/dev/null 2>&1
	"$repro" diff "$work/own/a.repro" "$work/own/b.repro" >"$work/own.txt"
	check "parent directory given to root: 'owner changed', not 'another mode'" \
		sh -c "grep -q '<cwd>/data: owner changed' '$work/own.txt' && ! grep -q '<cwd>/data: another mode' '$work/own.txt'"
fi

# the demo: working (the weights are in cache_hub) and broken (a fresh machine: no
# weights, and cache_hub not writable, so the download cannot be saved either)
cd "$work" || exit 1
cp -r "$src/examples/startup-failure" demo
cd demo || exit 1
mkdir -p cache_hub
head -c 64 /dev/zero >cache_hub/model.pth
"$repro" record --net=none -o "$work/demo-ok.repro" -- bash start_app.sh >/dev/null 2>&1
check "demo: the working setup starts (exit 0)" test $? = 0
rm cache_hub/model.pth
chmod 555 cache_hub
"$repro" record --net=none -o "$work/demo-broken.repro" -- bash start_app.sh >/dev/null 2>&1
chmod 755 cache_hub
cause "$work/demo-ok.repro" "$work/demo-broken.repro" >/dev/null
if [ "$(id -u)" = 0 ]; then # root may write cache_hub: it saves an empty download there
	check "demo: the cause is the weights, found in A, not in B" names "cache_hub/model.pth" "ENOENT"
else
	check "demo: the cause is the weights, present in A and missing in B" \
		names "cache_hub/model.pth" "ENOENT" "missing in B"
fi

# an entrypoint: checks its config, then execs the server (sleep) in A; dies before the exec in B
mkdir -p "$work/ep" && cd "$work/ep" || exit 1
cat >entrypoint.sh <<'SH'
#!/bin/sh
set -e
test -r ./app.conf || { echo "app.conf missing" >&2; exit 1; }
exec sleep 0.1
SH
chmod +x entrypoint.sh
echo x >app.conf
"$repro" record -o "$work/ep-ok.repro" -- ./entrypoint.sh >/dev/null 2>&1
rm app.conf
"$repro" record -o "$work/ep-broken.repro" -- ./entrypoint.sh >/dev/null 2>&1
cause "$work/ep-ok.repro" "$work/ep-broken.repro" >/dev/null
check "entrypoint: the cause is the config, present in A and missing in B" \
	names "app.conf" "ENOENT" "missing in B"
"$repro" diff "$work/ep-ok.repro" "$work/ep-broken.repro" >"$work/ep.txt"
check "entrypoint: aligned by the common prefix of its execs, not 'ran in A only'" \
	sh -c "grep -q \"after 1 exec in common, exec'd sleep 0.1 in A and nothing in B\" '$work/ep.txt' && ! grep -q 'ran in A only' '$work/ep.txt'"

cd "$work" || exit 1
echo "not a bundle" >bad.repro
out=$("$repro" diff "$work/same1.repro" bad.repro 2>&1)
check "a bad bundle: exit 2" test "$(status "$work/same1.repro" bad.repro)" = 2
check "a bad bundle: one repro: line naming it" sh -c "test \$(echo '$out' | wc -l) = 1 && echo '$out' | grep -q '^repro: .*bad.repro'"
check "one bundle only: exit 2" test "$(status "$work/same1.repro")" = 2
check "--map without '=': exit 2" test "$(status --map nonsense "$work/same1.repro" "$work/same2.repro")" = 2
exit $fail
