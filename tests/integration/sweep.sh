#!/bin/bash
# sweep.sh REPRO SOURCE_ROOT [root|user]: `repro sweep` (docs/sweep.md) on
# the startup scripts of tests/programs/sweep/ and on the demo, with a
# local HTTP server on 127.0.0.1 as their backend:
#  1. clean.sh (bash, cat, mkdir, curl) names the cause of every fault:
#     each run is clean; the host tree is byte-for-byte unchanged after the
#     sweep (a listing with hashes before and after);
#  2. carried_on.sh starts with defaults when app.conf fails: carried-on;
#  3. vague.sh says only "startup failed": its model.bin faults are vague;
#  4. hangs.py connects without a timeout: the blackhole run is hung after
#     --timeout 3s, the whole tree killed (its helper `sleep 300` too), and
#     the default --fail-on makes the exit status 1;
#  5. the demo in its working setup (weights downloaded from a local CDN,
#     cache_hub/ writable): its points are the scripts, the weights file,
#     the cache folder and the CDN address, and a missing cache folder or a
#     refused CDN leaves only "model load failed" (vague);
#  6. --shard 1/2 and 2/2, merged with --merge, give the runs of the
#     unsharded sweep; --junit is JUnit XML (parsed) with a failure for the
#     hung run; --keep keeps a bundle per run that explain reads;
#  7. bad options: one line, exit 2; a working run that fails: exit 2;
#  8. a script that starts a daemon and exits 0 is swept without waiting for
#     the daemon; a program's invalid UTF-8 on stderr is kept, escaped; a
#     port the program binds is a point (EADDRINUSE: clean when the program
#     says "Address already in use"), and runs then go one at a time on the
#     host's network; SIGTERM to the sweep kills every run and leaves no
#     process and no temporary directory; --merge takes options after its
#     files; an unwritable --junit is refused before any run.
# "user" runs it as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
src=$(readlink -f "$2")
variant=${3:-root}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user --src "$src" || exit 77
	run_staged --clean-env bash "$stage/src/tests/integration/sweep.sh" "$stage/repro" \
		"$stage/src" user
	exit $?
fi
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
py=/usr/bin/python3
[ -x $py ] && command -v curl >/dev/null || { echo "no python3 or curl: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-sweept.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
export PATH=/usr/bin:/bin HOME=$work/home LANG=C.UTF-8 TMPDIR=$work/tmp
mkdir "$work/home" "$work/app" "$work/www" "$work/tmp"
fail=0
# gone PATTERN: no process of ours matches PATTERN within 60 s (a killed tree's
# processes can die seconds after the sweep returned under ASan on a loaded machine)
gone() {
	for _ in $(seq 600); do
		pgrep -u "$(id -u)" -f "$1" >/dev/null || return 0
		sleep 0.1
	done
	return 1
}
# classes FILE: "id<TAB>class" of each run of a --json document, sorted
classes() { $py -c 'import json,sys
for r in json.load(open(sys.argv[1]))["runs"]: print(r["id"] + "\t" + r["class"])' "$1" | sort; }

# a backend on loopback serving a 5 KiB file
head -c 3800 /dev/urandom | base64 >"$work/www/index.html"
$py - "$work/www" "$work/port" 2>/dev/null <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.log_message = lambda *a: None
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2] + ".tmp", "w").write(str(srv.server_address[1]))
__import__("os").rename(sys.argv[2] + ".tmp", sys.argv[2])
srv.serve_forever()
PY
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
cp "$src"/tests/programs/sweep/* "$work/app/"
cd "$work/app" || exit 1
echo "url=http://127.0.0.1:$port/index.html" >app.conf
echo "127.0.0.1:$port" >backend.addr
head -c 100 /dev/zero >model.bin
tree_hash() { (cd "$work" && find app home -print0 | sort -z | xargs -0 stat -c '%n %a %s' &&
	find app home -type f -print0 | sort -z | xargs -0 sha256sum); }

# 1. clean throughout, and the host unchanged
before=$(tree_hash)
"$repro" sweep --json --timeout 20s -- bash clean.sh >"$work/clean.json" 2>"$work/clean.err"
rc=$?
after=$(tree_hash)
classes "$work/clean.json" >"$work/clean.classes"
check "sweep of clean.sh exits 0 (exit $rc)" [ $rc = 0 ]
check "clean.sh: every run is clean" sh -c "! grep -v '	clean\$' '$work/clean.classes'"
for want in "ENOENT read $work/app/app.conf" "EACCES write $work/app/cache" \
	"ENOSPC create $work/app/cache/last_url" "ECONNREFUSED connect 127.0.0.1:$port" \
	"blackhole connect 127.0.0.1:$port" "reset-after-1KiB connect 127.0.0.1:$port"; do
	check "clean.sh: the fault '$want' is planned" grep -qF "$want	" "$work/clean.classes"
done
check "clean.sh: the host tree is unchanged by the sweep" [ "$before" = "$after" ]
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after")
check "clean.sh: nothing on stderr without a terminal" [ ! -s "$work/clean.err" ]

# 2. carried on
"$repro" sweep --json -- bash carried_on.sh >"$work/co.json"
classes "$work/co.json" >"$work/co.classes"
check "carried_on.sh: app.conf's faults are carried-on" \
	sh -c "grep -F 'app.conf	' '$work/co.classes' | grep -qv carried-on && exit 1;
		[ \$(grep -cF 'app.conf	carried-on' '$work/co.classes') = 3 ]"

# 3. vague
"$repro" sweep --json -- bash vague.sh >"$work/vague.json"
classes "$work/vague.json" >"$work/vague.classes"
check "vague.sh: model.bin's faults are vague" \
	sh -c "[ \$(grep -cF 'model.bin	vague' '$work/vague.classes') = 3 ]"
check "vague.sh: its stderr line is the table's" \
	grep -q '"stderr": "startup failed"' "$work/vague.json"

# 4. hung, the tree killed
start=$(date +%s)
"$repro" sweep --only network --timeout 3s --keep "$work/kept" -- $py hangs.py >"$work/hung.txt"
rc=$?
took=$(($(date +%s) - start))
check "hangs.py: the blackhole run is hung" \
	grep -q "^blackhole connect 127.0.0.1:$port  *hung " "$work/hung.txt"
check "hangs.py: refused and timed-out connects are clean (Python names the error)" \
	sh -c "grep -q '^ECONNREFUSED .* clean .*ConnectionRefusedError' '$work/hung.txt' &&
		grep -q '^ETIMEDOUT .* clean .*TimeoutError' '$work/hung.txt'"
check "hangs.py: exit 1 (hung is in the default --fail-on), in ${took}s" [ $rc = 1 ]
check "hangs.py: its helper 'sleep 300' was killed with the tree" gone '^sleep 300$'
check "hangs.py: explain names the wait of the hung run" \
	grep -q "explain: interrupted after .*waiting .* in connect to 127.0.0.1:$port" "$work/hung.txt"
kept=$(ls "$work/kept" | grep -c '\.repro$')
check "--keep: a bundle per run and the working one ($kept)" [ "$kept" = 4 ]
check "--keep: the hung run's bundle explains" \
	sh -c "'$repro' explain '$work'/kept/*blackhole*.repro | grep -q 'connect to 127.0.0.1:$port'"

# 5. the demo in its working setup
mkdir "$work/demo" "$work/cdn"
cp "$src"/examples/startup-failure/*.sh "$src"/examples/startup-failure/webui.py "$work/demo/"
mkdir "$work/demo/cache_hub" "$work/cdn/models"
head -c 4096 /dev/urandom >"$work/cdn/models/model.pth"
$py - "$work/cdn" "$work/cdnport" 2>/dev/null <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.log_message = lambda *a: None
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2] + ".tmp", "w").write(str(srv.server_address[1]))
__import__("os").rename(sys.argv[2] + ".tmp", sys.argv[2])
srv.serve_forever()
PY
for _ in $(seq 100); do [ -s "$work/cdnport" ] && break; sleep 0.05; done
cdn=127.0.0.1:$(cat "$work/cdnport")
before=$(cd "$work" && find demo -print0 | sort -z | xargs -0 stat -c '%n %a %s')
(cd "$work/demo" && WEBUI_CDN=$cdn "$repro" sweep --json --timeout 20s -- bash start_app.sh \
	>"$work/demo.json" 2>"$work/demo.err")
rc=$?
check "demo: no word of writes outside the overlay" [ ! -s "$work/demo.err" ]
WEBUI_CDN=$cdn "$repro" sweep --only network --faults ECONNREFUSED -- bash "$work/demo/start_app.sh" \
	>/dev/null 2>"$work/outside.err"
check "demo from another directory: its writes outside the overlay are named" \
	grep -q "^repro: sweep: the working run wrote outside the overlay ($work/demo/cache_hub/model.pth" \
	"$work/outside.err"
rm -f "$work/demo/cache_hub/model.pth"
after=$(cd "$work" && find demo -print0 | sort -z | xargs -0 stat -c '%n %a %s')
classes "$work/demo.json" >"$work/demo.classes"
check "demo: the sweep runs (exit $rc)" [ $rc = 0 ]
for want in "ENOENT read $work/demo/start_app.sh" "ENOENT read $work/demo/webui.py" \
	"ENOSPC create $work/demo/cache_hub/model.pth" "EACCES write $work/demo/cache_hub/model.pth" \
	"ECONNREFUSED connect $cdn" "ETIMEDOUT connect $cdn" "EACCES create-in $work/demo/cache_hub"; do
	check "demo: the point '$want' is swept" grep -qF "$want	" "$work/demo.classes"
done
check "demo: a refused CDN or a full disk leaves only 'model load failed' (vague)" \
	sh -c "grep -qF 'ECONNREFUSED connect $cdn	vague' '$work/demo.classes' &&
		grep -qF 'ENOSPC create $work/demo/cache_hub/model.pth	vague' '$work/demo.classes'" ||
	cat "$work/demo.classes"
check "demo: the demo's folder is unchanged" [ "$before" = "$after" ]
$py -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("demo: %d points, %d faults, %d distinct behaviours" % (d["points"], len(d["runs"]),
      len({r["group"] for r in d["runs"]})))' "$work/demo.json"

# 6. shards, merge, JUnit
"$repro" sweep --json --only network --timeout 3s --junit "$work/j.xml" -- $py hangs.py \
	>"$work/all.json"
for k in 1 2; do
	"$repro" sweep --json --only network --timeout 3s --shard $k/2 -- $py hangs.py \
		>"$work/s$k.json"
	classes "$work/s$k.json" >"$work/s$k.classes"
done
"$repro" sweep --merge --json "$work/s1.json" "$work/s2.json" >"$work/merged.json"
rc=$?
check "--merge of the shards: exit 1 as the whole sweep's" [ $rc = 1 ]
check "--shard 1/2 + 2/2 + --merge: the runs of the unsharded sweep" \
	cmp -s <(classes "$work/all.json") <(classes "$work/merged.json")
check "--shard: the slices do not overlap" \
	bash -c "[ -z \"\$(comm -12 <(cut -f1 '$work/s1.classes') <(cut -f1 '$work/s2.classes'))\" ]"
check "--junit: JUnit XML with one test case per fault, the hung one failed" $py -c '
import json, sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1]).getroot()
runs = json.load(open(sys.argv[2]))["runs"]
cases = list(t.iter("testcase"))
failed = [c.get("name") for c in cases if c.find("failure") is not None]
assert t.tag == "testsuites" and len(cases) == len(runs), (len(cases), len(runs))
assert failed == [r["id"] for r in runs if r["class"] == "hung"], failed
assert int(t.get("failures")) == len(failed)' "$work/j.xml" "$work/all.json"

# 7. bad options and a failing working run
for args in "--jobs 0 -- true" "--shard 3/2 -- true" "--only disk -- true" \
	"--faults EFOO -- true" "--timeout soon -- true" "--fail-on bad -- true" "--bogus" \
	"--merge /nonexistent.json" "" "--from /nonexistent.repro -- true"; do
	# shellcheck disable=SC2086
	"$repro" sweep $args >"$work/bad.out" 2>"$work/bad.err"
	rc=$?
	check "sweep $args: exit 2 with one line ($(head -c 100 "$work/bad.err"))" \
		sh -c "[ $rc = 2 ] && [ \$(wc -l <'$work/bad.err') = 1 ] && [ ! -s '$work/bad.out' ]"
done
"$repro" sweep -- sh -c 'echo broken >&2; exit 3' >"$work/bad.out" 2>"$work/bad.err"
rc=$?
check "a working run that fails: exit 2, said in one line" \
	sh -c "[ $rc = 2 ] && grep -q 'the working run failed (exit 3: broken)' '$work/bad.err'"

# 8. daemons, bytes, ports, signals
start=$(date +%s)
"$repro" sweep --json --faults ENOENT -- bash -c \
	'cat app.conf >/dev/null || exit 1; (setsid sleep 100 >/dev/null 2>&1 &); exit 0' >"$work/daemon.json"
rc=$?
took=$(($(date +%s) - start))
check "a script that leaves a daemon: swept in ${took}s, not after the daemon (exit $rc)" \
	sh -c "[ $rc = 0 ] && [ $took -lt 60 ] && grep -q '\"class\": \"clean\"' '$work/daemon.json'"
check "the daemons the runs left were killed" gone '^sleep 100$'
"$repro" sweep --json --faults ENOENT -- bash -c \
	'cat app.conf >/dev/null 2>&1 || { printf "bad \377 byte\n" >&2; exit 1; }' >"$work/utf8.json"
check "invalid UTF-8 on stderr: the run is kept, the byte escaped" \
	$py -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"]; assert r and all(x and x["stderr"] == "bad \\xff byte" for x in r), r' "$work/utf8.json"
bport=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/app/listen.py" <<PY
import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", $bport))
except OSError as e:
    sys.exit("listen.py: cannot listen on port $bport: %s" % e.strerror)
s.listen()
PY
"$repro" sweep --only network -- $py listen.py >"$work/bind.txt" 2>"$work/bind.err"
check "a bound port is a point: EADDRINUSE, clean" \
	grep -q "^EADDRINUSE bind tcp port $bport  *clean .*Address already in use" "$work/bind.txt"
check "runs that bind a port go one at a time, and it is said" \
	grep -q "^repro: sweep: the working run binds 127.0.0.1 port $bport on the host's network: one run at a time" \
	"$work/bind.err"
cat >"$work/app/slow.sh" <<'SH'
cat app.conf >/dev/null 2>&1 || { sleep 300 & wait; }
SH
before_tmp=$(ls -d "$TMPDIR"/repro-sweep.* 2>/dev/null | sort)
"$repro" sweep --faults ENOENT,EACCES,EIO --timeout 60s -- bash slow.sh >/dev/null 2>"$work/term.err" &
sweep_pid=$!
sleep 3
kill -TERM $sweep_pid
wait $sweep_pid
rc=$?
sleep 0.5
after_tmp=$(ls -d "$TMPDIR"/repro-sweep.* 2>/dev/null | sort)
check "SIGTERM to the sweep: exit 130, said in one line" \
	sh -c "[ $rc = 130 ] && grep -q '^repro: sweep: interrupted' '$work/term.err'"
check "SIGTERM to the sweep: no run left running" gone '^sleep 300$'
check "SIGTERM to the sweep: no temporary directory left" [ "$before_tmp" = "$after_tmp" ]
"$repro" sweep --merge "$work/s1.json" "$work/s2.json" --json --fail-on vague >"$work/m2.json"
check "--merge takes options after its files" grep -q '"format": "repro-sweep"' "$work/m2.json"
"$repro" sweep --junit /nonexistent/dir/j.xml -- bash clean.sh >"$work/ju.out" 2>"$work/ju.err"
rc=$?
check "an unwritable --junit is refused before any run" \
	sh -c "[ $rc = 2 ] && [ ! -s '$work/ju.out' ] && [ \$(wc -l <'$work/ju.err') = 1 ]"
exit $fail
