#!/bin/bash
# inject.sh REPRO [user]: fault rules (`repro record --inject`, docs/faults.md)
# on real programs:
#  1. EACCES on */cache_hub/*, matched through the resolved path: a relative
#     open (cat), a dirfd-relative openat and a path through a symlink and
#     `..` (python3); events say injected and rule 1, trace.txt (INJECTED),
#     the manifest lists the rule and how often it fired, explain names it;
#  2. when=2+: the first matching open works, the later ones fail;
#  3. prob=0.5 with --seed: the same calls fail in two runs;
#  4. a rule that never fires is named on stderr;
#  5. connect ECONNREFUSED on one loopback port while another connects
#     (curl), and the network record says injected;
#  6. delays hold only their thread: a `cat` delayed 3 s while python3
#     does 10,000 stats, which finish long before the delay ends (with and
#     without --ptrace-only);
#  7. bad rules: one line naming the bad part, exit 2, nothing run.
# With "user" as root: the same as the unprivileged user repro-test.
set -u
repro=$(readlink -f "$1")
variant=${2:-root}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	id repro-test >/dev/null 2>&1 || useradd --system --no-create-home repro-test || exit 77
	stage=$(mktemp -d /tmp/repro-inject.XXXXXX)
	cp "$repro" "$0" "$stage/" && chmod 755 "$stage" "$stage"/*
	runuser -u repro-test -- bash "$stage/$(basename "$0")" "$stage/repro" user
	rc=$?
	rm -rf "$stage"
	exit $rc
fi
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
py=/usr/bin/python3
[ -x $py ] || { echo "no python3: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-injectt.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
check() { # condition-text command...
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
member() { tar -xOf "$1" "$2"; }

mkdir -p app/cache_hub app/sub && echo weights >app/cache_hub/model.pth && ln -s cache_hub app/link
rule='openat:error=EACCES:path=*/cache_hub/*'

# 1. one rule, four ways to name the file
"$repro" record -o r1.repro --inject "$rule" -- /bin/cat app/cache_hub/model.pth >out1 2>err1
rc=$?
check "cat exits 1 and says what it says of a real EACCES ($rc)" \
	test $rc = 1 -a "$(grep -c 'cat: app/cache_hub/model.pth: Permission denied' err1)" = 1
cat >forms.py <<'PY'
import os, sys
d = os.open("app", os.O_RDONLY)
for how, f in (("dirfd", lambda: os.open("cache_hub/model.pth", os.O_RDONLY, dir_fd=d)),
               ("symlink", lambda: os.open("app/link/model.pth", os.O_RDONLY)),
               ("dotdot", lambda: os.open("app/sub/../cache_hub/model.pth", os.O_RDONLY))):
    try:
        f()
        print(how, "opened")
    except PermissionError:
        print(how, "EACCES")
PY
"$repro" record -o r1p.repro --inject "$rule" -- $py forms.py >out1p 2>err1p
check "python3: the dirfd, symlink and .. opens all fail with EACCES" \
	test "$(cat out1p)" = "$(printf 'dirfd EACCES\nsymlink EACCES\ndotdot EACCES')"
member r1p.repro events.jsonl >ev1p
check "events.jsonl: three injected openat EACCES of rule 1" \
	test "$(grep -c '"injected":true,"rule":1' ev1p)" = 3
member r1p.repro trace.txt | grep -q 'EACCES (Permission denied) (INJECTED)'
check "trace.txt marks them (INJECTED)" test $? = 0
member r1p.repro manifest.json | $py -c '
import json, sys
m = json.load(sys.stdin)
sys.exit(0 if m.get("injections") == [{"rule": 1, "text": "openat:error=EACCES:path=*/cache_hub/*", "fired": 3}] else 1)'
check "the manifest lists the rule and its 3 firings" test $? = 0
"$repro" explain r1.repro >x1 2>&1
check "explain's #1 says injected by rule 1" grep -q '^1\. .*model.pth: EACCES — injected by rule 1 (openat:error=EACCES:path=\*/cache_hub/\*)' x1

# 2. when=2+
printf 'a\n' >f
"$repro" record -o r2.repro --inject 'openat:error=ENOENT:path=*/f:when=2+' -- /bin/cat f f f >out2 2>err2
check "when=2+: the first open works, the other two fail" \
	test "$(cat out2)" = a -a "$(grep -c 'No such file' err2)" = 2

# 3. prob= with a seed: the same fired set twice
for i in 1 2; do
	"$repro" record -o r3.$i.repro --seed 42 --inject 'openat:error=EIO:path=*/f:prob=0.5' -- \
		/bin/cat f f f f f f f f f f >/dev/null 2>err3.$i
done
check "prob=0.5 --seed 42: the same opens fail in both runs ($(grep -c 'Input/output' err3.1))" \
	cmp -s err3.1 err3.2
check "prob=0.5: some fail and some work" \
	test "$(grep -c 'Input/output' err3.1)" -gt 0 -a "$(grep -c 'Input/output' err3.1)" -lt 10

# 4. a rule that never fires
"$repro" record -o r4.repro --inject 'openat:error=EACCES:path=/nowhere/*' -- /bin/true 2>err4
check "a rule that never fired is named on stderr" \
	grep -qx 'repro: rule 1 (openat:error=EACCES:path=/nowhere/\*) never fired' err4

# 5. connect: one port refused, another served
if command -v curl >/dev/null; then
	$py -m http.server 0 --bind 127.0.0.1 >http.log 2>&1 &
	for _ in $(seq 50); do port=$(grep -o 'port [0-9]*' http.log | grep -o '[0-9]*'); [ -n "$port" ] && break; sleep 0.1; done
	$py -m http.server 0 --bind 127.0.0.1 >http2.log 2>&1 &
	for _ in $(seq 50); do port2=$(grep -o 'port [0-9]*' http2.log | grep -o '[0-9]*'); [ -n "$port2" ] && break; sleep 0.1; done
	"$repro" record -o r5.repro --inject "connect:error=ECONNREFUSED:port=$port" -- \
		sh -c "curl -sS -o /dev/null http://127.0.0.1:$port/; echo a=\$?; curl -sS -o /dev/null http://127.0.0.1:$port2/; echo b=\$?" >out5 2>err5
	check "curl: refused on port $port (7), served on $port2 (0)" test "$(tr '\n' ' ' <out5)" = "a=7 b=0 "
	check "curl says it as it says a real refusal" grep -q "Couldn't connect to server" err5
	member r5.repro network.jsonl | grep "\"port\":$port," | grep -q '"outcome":"refused","errno":"ECONNREFUSED"' &&
		member r5.repro network.jsonl | grep "\"port\":$port," | grep -q '"injected":true,"rule":1'
	check "network.jsonl: the refused connect says injected by rule 1" test $? = 0
else
	echo "no curl: part 5 skipped"
fi

# 6. delays hold only their thread
mkdir -p slow && echo x >slow/x
cat >par.sh <<'SH'
#!/bin/sh
python3 -c 'import time; print(time.monotonic())' >t0
( cat slow/x 2>/dev/null; python3 -c 'import time; print(time.monotonic())' >t_cat ) &
python3 -c 'import os
for _ in range(10000): os.stat("/")'
python3 -c 'import time; print(time.monotonic())' >t_stats
wait
SH
chmod +x par.sh
for mode in notify --ptrace-only; do
	opt= delay=3
	# every stat of --ptrace-only takes two stops: more time for a loaded machine
	[ "$mode" = notify ] || opt=$mode delay=6
	"$repro" record $opt -o r6.repro --inject "openat:error=EACCES:path=*/slow/*:delay_enter=${delay}s" -- ./par.sh
	read -r stats cat_t < <($py -c "
t0, s, c = (float(open(f).read()) for f in ('t0', 't_stats', 't_cat'))
print(round(s - t0, 2), round(c - t0, 2))")
	check "$mode: 10,000 stats done in ${stats} s, before the cat delayed ${delay} s (${cat_t} s)" \
		$py -c "import sys; sys.exit(0 if $stats < $cat_t and $cat_t >= $delay - 0.1 else 1)"
done

# 7. bad rules
bad() { # expected-line rule...
	local want=$1
	shift
	"$repro" record -o bad.repro "$@" -- /bin/true >bad.out 2>bad.err
	local rc=$?
	check "bad rule $* -> exit 2, one line" test $rc = 2 -a "$(wc -l <bad.err)" = 1 -a ! -e bad.repro
	check "  ... saying: $want" grep -qF -- "$want" bad.err || cat bad.err
}
bad "unknown syscall 'opnat' in rule 1 (did you mean 'openat'?)" --inject 'opnat:error=EACCES'
bad "unknown errno 'EACCESS'" --inject 'openat:error=EACCESS'
bad "port=" --inject 'openat:error=EACCES:port=80'
bad "prob" --inject 'openat:error=EACCES:prob=1.5'
bad "malformed duration 'fast' in rule 1" --inject 'openat:error=EACCES:delay=fast'
bad "record -e: only inject=RULE and fault=RULE are understood" -e 'trace=openat'
bad "not supported by repro record yet" --inject 'connect:blackhole'
exit $fail
