#!/bin/bash
# inject.sh REPRO [user [NB_CONNECT]]: fault rules (`repro record --inject`, docs/faults.md)
# on real programs:
#  1. EACCES on */cache_hub/*, matched through the resolved path: a relative
#     open (cat), a dirfd-relative openat and a path through a symlink and
#     `..` (python3); events say injected and rule 1, trace.txt (INJECTED),
#     the manifest lists the rule and how often it fired, explain names it;
#  2. when=2+: the first matching open works, the later ones fail; exec
#     faults (ENOEXEC, EACCES) as bash handles real ones; signal=;
#  3. prob=0.5 with --seed: the same calls fail in two runs;
#  4. a rule that never fires is named on stderr;
#  5. connect ECONNREFUSED on one loopback port while another connects
#     (curl), and the network record says injected;
#  5b. connect faults the kernel plays out, so each program reports them as
#     it reports a real network's: ETIMEDOUT after delay=1s for curl, a C
#     program's non-blocking connect and poll (nb_connect), python3's
#     blocking connect, socket.create_connection(timeout=…) and asyncio,
#     while another port connects; a blackhole that the program's own 1 s
#     timeout ends (curl --connect-timeout 1, nb_connect's poll); both also
#     with --net=none, in the program's own network namespace;
#  5c. a download cut half-way: recv ECONNRESET after 1 KiB (curl from a
#     local HTTP server): curl says "Connection reset", the file is short;
#  5d. a disk that fills after 4 KiB: a config rewrite (python3) gets a
#     short write, then ENOSPC; the file holds exactly 4096 bytes;
#  5e. after= counts vectored reads (preadv) as it counts read(2);
#  6. delays hold only their thread: a `cat` delayed 3 s while python3
#     does stats until it is back (at most 10,000): at least 200 are done
#     meanwhile, however loaded the machine (with and without
#     --ptrace-only);
#  6b. SIGTERM or SIGINT sent to repro during a 10-minute delay ends the
#     program as the signal does and the bundle is written; a signal the
#     program sends to a held thread ends its delay; waits.jsonl of a
#     blackholed connect names the program's address;
#  6d. path= matches a rename's target (mv into a name a rule names);
#  7. a bad rule: one line naming the bad part, exit 2, nothing run.
# With "user" as root: the same as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
variant=${2:-root}
nb=${3:+$(readlink -f "$3")}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user ${nb:+"$nb"} || exit 77
	run_staged bash "$stage/$(basename "$0")" "$stage/repro" user \
		${nb:+"$stage/$(basename "$nb")"}
	exit $?
fi
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
py=/usr/bin/python3
[ -x $py ] || { echo "no python3: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-injectt.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
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

"$repro" show r1.repro >s1 2>&1
check "show marks the open (injected by rule 1)" grep -q 'model.pth O_RDONLY -> EACCES (injected by rule 1)' s1
"$repro" record -o r1ok.repro -- /bin/cat app/cache_hub/model.pth >/dev/null 2>&1
"$repro" diff r1ok.repro r1.repro >d1 2>&1
check "diff's most likely cause names the rule" grep -q '^Most likely cause: .*EACCES in B.*injected by rule 1' d1

# 2. when=2+
printf 'a\n' >f
"$repro" record -o r2.repro --inject 'openat:error=ENOENT:path=*/f:when=2+' -- /bin/cat f f f >out2 2>err2
check "when=2+: the first open works, the other two fail" \
	test "$(cat out2)" = a -a "$(grep -c 'No such file' err2)" = 2

# 2a. exec faults: bash says of an injected ENOEXEC and EACCES what it says of real ones
printf '#!/bin/sh\necho helper ran\n' >helper.sh && chmod 755 helper.sh
"$repro" record -o r2a.repro --inject 'execve:error=ENOEXEC:path=*/helper.sh' -- /bin/bash -c ./helper.sh >out2a 2>&1
rc=$?
# a real ENOEXEC makes bash read the file as a script of its own, as it does here
check "execve ENOEXEC: bash runs the file itself, as it does on a real ENOEXEC (exit $rc)" \
	sh -c "[ $rc = 0 ] && grep -qx 'helper ran' out2a && tar --zstd -xOf r2a.repro trace.txt | grep -q 'ENOEXEC (Exec format error) (INJECTED)'"
"$repro" record -o r2a2.repro --inject 'execve:error=EACCES:path=*/helper.sh' -- /bin/bash -c ./helper.sh >out2a2 2>&1
rc=$?
check "execve EACCES: bash says Permission denied (exit $rc)" \
	sh -c "[ $rc = 126 ] && grep -q 'Permission denied' out2a2"

# 2b. signal=: the program dies of it as the call returns
"$repro" record -o r2b.repro --inject 'openat:signal=SIGUSR1:path=*/f' -- /bin/cat f >/dev/null 2>&1
rc=$?
check "signal=SIGUSR1 on cat's open: cat is killed by SIGUSR1 (status $rc)" test $rc = $((128 + 10))

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
	$py -u -m http.server 0 --bind 127.0.0.1 >http.log 2>&1 &
	for _ in $(seq 50); do port=$(grep -o 'port [0-9]*' http.log | grep -o '[0-9]*'); [ -n "$port" ] && break; sleep 0.1; done
	$py -u -m http.server 0 --bind 127.0.0.1 >http2.log 2>&1 &
	for _ in $(seq 50); do port2=$(grep -o 'port [0-9]*' http2.log | grep -o '[0-9]*'); [ -n "$port2" ] && break; sleep 0.1; done
	"$repro" record -o r5.repro --inject "connect:error=ECONNREFUSED:port=$port" -- \
		sh -c "curl -sS -o /dev/null http://127.0.0.1:$port/; echo a=\$?; curl -sS -o /dev/null http://127.0.0.1:$port2/; echo b=\$?" >out5 2>err5
	check "curl: refused on port $port (7), served on $port2 (0)" test "$(tr '\n' ' ' <out5)" = "a=7 b=0 "
	check "curl says it as it says a real refusal" grep -q "Couldn't connect to server" err5
	member r5.repro network.jsonl | grep "\"port\":$port," | grep -q '"outcome":"refused","errno":"ECONNREFUSED"' &&
		member r5.repro network.jsonl | grep "\"port\":$port," | grep -q '"injected":true,"rule":1'
	check "network.jsonl: the refused connect says injected by rule 1" test $? = 0

	# host= from /etc/hosts: 127.0.0.1 is localhost there on every Debian
	if grep -Eq '^127\.0\.0\.1[[:space:]]+localhost' /etc/hosts; then
		"$repro" record -o r5j.repro --inject 'connect:error=ECONNREFUSED:host=localhost' -- \
			curl -sS -o /dev/null http://127.0.0.1:$port/ 2>/dev/null
		check "host=localhost (/etc/hosts) refuses curl's connect to 127.0.0.1 (exit $?)" test $? = 7
	fi

	# 5b. played out by the kernel
	"$repro" record -o r5b.repro --inject "connect:error=ETIMEDOUT:port=$port:delay=1s" -- \
		curl -sS -o /dev/null -w '%{time_total}' http://127.0.0.1:$port/ >out5b 2>err5b
	check "curl: a timeout after 1 s, as curl says it (exit 28, $(cat out5b) s)" \
		$py -c "import sys; sys.exit(0 if 0.9 <= float(open('out5b').read() or 0) < 20 else 1)"
	member r5b.repro trace.txt >tr5b
	check "curl's non-blocking connect: EINPROGRESS, then SO_ERROR ETIMEDOUT" \
		sh -c "grep -q 'EINPROGRESS (Operation now in progress) (INJECTED)' tr5b && grep -q 'SO_ERROR, \[ETIMEDOUT\]' tr5b"
	cat >conn.py <<'PY'
import asyncio, socket, sys, time
port, other = int(sys.argv[1]), int(sys.argv[2])
def timed(what, f):
    t = time.monotonic()
    try:
        f()
        print(what, "connected")
    except OSError as e:
        print(what, type(e).__name__, "%.1f" % (time.monotonic() - t))
timed("blocking", lambda: socket.socket().connect(("127.0.0.1", port)))
timed("create_connection", lambda: socket.create_connection(("127.0.0.1", port), timeout=30))
async def aio():
    await asyncio.open_connection("127.0.0.1", port)
timed("asyncio", lambda: asyncio.run(aio()))
timed("other port", lambda: socket.create_connection(("127.0.0.1", other), timeout=5))
PY
	"$repro" record -o r5c.repro --inject "connect:error=ETIMEDOUT:port=$port:delay=1s" -- \
		$py conn.py "$port" "$port2" >out5c 2>&1
	check "python3: blocking, create_connection and asyncio time out after 1 s; the other port connects" \
		$py -c "
lines = open('out5c').read().split(chr(10))
ok = [l for l in lines if l.split()[1:2] == ['TimeoutError'] and 0.9 <= float(l.split()[2]) < 20]
import sys; sys.exit(0 if len(ok) == 3 and 'other port connected' in lines else 1)" || cat out5c
	if [ -n "$nb" ]; then
		"$repro" record -o r5d.repro --inject "connect:error=ETIMEDOUT:port=$port:delay=1s" -- \
			"$nb" "$port" 10000 >out5d
		check "C, non-blocking connect and poll: $(cat out5d)" \
			grep -Eq '^connect EINPROGRESS; poll ready; SO_ERROR ETIMEDOUT; (9[0-9][0-9]|[1-9][0-9]{3,4}) ms$' out5d
		"$repro" record -o r5e.repro --inject "connect:blackhole:port=$port" -- "$nb" "$port" 1000 >out5e
		check "C, blackhole: its own 1 s poll timeout decides: $(cat out5e)" \
			grep -Eq '^connect EINPROGRESS; poll timed out; ' out5e
		"$repro" record -o r5f.repro --inject "connect:error=ECONNREFUSED:port=$port" -- "$nb" "$port" >out5f
		check "C, refused as a closed loopback port refuses: $(cat out5f)" \
			grep -Eq '^connect (ECONNREFUSED|EINPROGRESS; poll ready; SO_ERROR ECONNREFUSED);' out5f
		# endpoints made in the program's own network namespace before its first call
		"$repro" record --net=none -o r5n.repro --inject "connect:error=ETIMEDOUT:port=$port:delay=1s" -- \
			"$nb" "$port" 10000 >out5n
		check "C, --net=none: the timeout is played out on the program's own loopback: $(cat out5n)" \
			grep -Eq '^connect EINPROGRESS; poll ready; SO_ERROR ETIMEDOUT; (9[0-9][0-9]|[1-9][0-9]{3,4}) ms$' out5n
		"$repro" record --net=none -o r5o.repro --inject "connect:blackhole:port=$port" -- "$nb" "$port" 1000 >out5o
		check "C, --net=none, blackhole: its own 1 s poll timeout decides: $(cat out5o)" \
			grep -Eq '^connect EINPROGRESS; poll timed out; ' out5o
	fi
	"$repro" record -o r5g.repro --inject "connect:blackhole:port=$port" -- \
		curl -sS --connect-timeout 1 -o /dev/null http://127.0.0.1:$port/ 2>err5g
	check "curl, blackhole: its own --connect-timeout 1 ends it" grep -q 'Timeout was reached' err5g

	# 5c. a download cut half-way
	head -c 65536 /dev/zero >model.bin
	"$repro" record -o r5h.repro --inject "recv:error=ECONNRESET:port=$port:after=1k" -- \
		curl -sS -o got.bin http://127.0.0.1:$port/model.bin 2>err5h
	rc=$?
	check "curl: reset after 1 KiB, as curl says it (exit $rc, $(stat -c %s got.bin 2>/dev/null) bytes)" \
		sh -c "[ $rc = 56 ] && grep -q 'Connection reset by peer' err5h && [ \$(stat -c %s got.bin) -lt 1024 ]"
else
	echo "no curl: part 5 skipped"
fi

# 5d. a disk that fills after 4 KiB
cat >rewrite.py <<'PY'
import os
data = b"k = v\n" * 2000
try:
    with open("settings.conf", "wb") as f:
        f.write(data)
    print("saved")
except OSError as e:
    print("save failed:", e.strerror)
PY
"$repro" record -o r5i.repro --inject 'write:error=ENOSPC:path=*/settings.conf:after=4k' -- $py rewrite.py >out5i
check "python3: the rewrite fails with ENOSPC after a short write ($(cat out5i))" \
	test "$(cat out5i)" = "save failed: No space left on device" -a "$(stat -c %s settings.conf)" = 4096
member r5i.repro trace.txt | grep -q 'write(.*= -1 ENOSPC (No space left on device) (INJECTED)'
check "trace.txt: the write after the short one is the injected ENOSPC" test $? = 0

# 5e. vectored reads count toward after= as plain reads do: python3's
# os.preadv (glibc's preadv2) reads 10 bytes, then the disk fails
head -c 100 /dev/zero >data.bin
cat >pv.py <<'PY'
import os
fd = os.open("data.bin", os.O_RDONLY)
got = []
for i in range(3):
    try:
        got.append(str(os.preadv(fd, [bytearray(10)], i * 10)))
    except OSError as e:
        got.append(os.strerror(e.errno))
print(" ".join(got))
PY
"$repro" record -o r5j.repro --inject 'preadv,preadv2:error=EIO:path=*/data.bin:after=1' -- $py pv.py >out5j
check "python3: preadv reads 10 bytes, then EIO ($(cat out5j))" \
	test "$(cat out5j)" = "10 Input/output error Input/output error"

# 6. delays hold only their thread
mkdir -p slow && echo x >slow/x
cat >par.sh <<'SH'
#!/bin/sh
python3 -c 'import time; print(time.monotonic())' >t0
( cat slow/x 2>/dev/null; python3 -c 'import time; print(time.monotonic())' >t_cat ) &
python3 -c 'import os
n = 0
while n < 10000 and not os.path.exists("t_cat"):
    os.stat("/")
    n += 1
print(n)' >n_stats
wait
SH
chmod +x par.sh
for mode in notify --ptrace-only; do
	opt= delay=3
	# every stat of --ptrace-only takes two stops: more time for a loaded machine
	[ "$mode" = notify ] || opt=$mode delay=6
	rm -f t_cat
	"$repro" record $opt -o r6.repro --inject "openat:error=EACCES:path=*/slow/*:delay_enter=${delay}s" -- ./par.sh
	read -r stats cat_t < <($py -c "
t0, c = (float(open(f).read()) for f in ('t0', 't_cat'))
print(int(open('n_stats').read()), round(c - t0, 2))")
	# a delay that held the loop would freeze the stats too: none would be done meanwhile
	check "$mode: $stats stats done while the cat was delayed ${delay} s (${cat_t} s)" \
		$py -c "import sys; sys.exit(0 if $stats >= 200 and $cat_t >= $delay - 0.1 else 1)"
done

# 6b. a stop request ends a delay: SIGTERM or SIGINT sent to repro while a
# call is held 10 minutes (at its entry, at its exit, on the notification
# path) reaches the program, which ends as it would; the bundle is written
held() { # mode signal want-status rule cmd...
	local mode=$1 sig=$2 want=$3 rule=$4 opt= rp dog rc t0 took
	shift 4
	[ "$mode" = notify ] || opt=$mode
	rm -f r6b.repro
	# SIGINT at SIG_DFL, as for a terminal's foreground job: a script's
	# background job starts with it ignored, and so does the program then
	env --default-signal=INT "$repro" record $opt -o r6b.repro --inject "$rule" -- "$@" >/dev/null 2>r6b.err &
	rp=$!
	sleep 1
	t0=$(date +%s)
	kill -"$sig" $rp
	(sleep 20 && kill -KILL $rp 2>/dev/null) &
	dog=$!
	wait $rp
	rc=$? took=$(($(date +%s) - t0))
	kill $dog 2>/dev/null
	check "$mode: SIG$sig during $rule ends the run (exit $rc in ${took} s, want $want)" \
		test $rc = "$want" -a $took -lt 10 -a -e r6b.repro
}
for mode in notify --ptrace-only; do
	held $mode TERM 143 'write:delay=10m:path=/*' /bin/sh -c 'echo held'
	held $mode INT 130 'write:delay_enter=10m:path=/*' /bin/sh -c 'echo held'
	held $mode TERM 143 'newfstatat:delay=10m:path=/' $py -c 'import os; os.stat("/")'
done
# a signal the program sends to a held thread ends its delay, as it would end
# a slow call: a child killed by SIGTERM, a handler's SIGUSR1 (both paths)
for mode in notify --ptrace-only; do
	opt=
	[ "$mode" = notify ] || opt=$mode
	for call in 'open("/etc/hostname")' 'os.stat("/etc/hostname")'; do
		t0=$(date +%s)
		timeout -s KILL 30 "$repro" record $opt -o r6c.repro \
			--inject 'openat,newfstatat:delay=10m:path=/etc/hostname' -- $py -c "
import os, signal, sys, threading, time
p = os.fork()
if p == 0:
    $call
    os._exit(0)
time.sleep(0.5)
os.kill(p, signal.SIGTERM)
print(os.waitpid(p, 0)[1])
signal.signal(signal.SIGUSR1, lambda *a: None)
m = threading.main_thread().ident
threading.Timer(0.5, lambda: signal.pthread_kill(m, signal.SIGUSR1)).start()
$call
print('after')" >r6c.out 2>r6c.err
		rc=$? took=$(($(date +%s) - t0))
		check "$mode: SIGTERM and SIGUSR1 end the delays of $call (exit $rc in ${took} s)" \
			test $rc = 0 -a $took -lt 10 -a "$(tr '\n' ' ' <r6c.out)" = "15 after "
	done
done

# a blackholed connect without a timeout, ended by SIGINT: waits.jsonl names the
# address the program asked for, not the fault endpoint it was sent to
held notify INT 130 'connect:blackhole:port=9' $py -c \
	'import socket; socket.socket().connect(("127.0.0.1", 9))'
check "waits.jsonl: the blackholed connect waited on 127.0.0.1:9" \
	$py -c 'import json, sys
w = [json.loads(l) for l in sys.stdin if l.strip()]
c = [x for x in w if x.get("syscall") == "connect"]
sys.exit(0 if c and all(x["addr"]["ip"] == "127.0.0.1" and x["addr"]["port"] == 9 for x in c) else 1)' \
	< <(member r6b.repro waits.jsonl)

# 6d. path= matches a rename's target: a file renamed into place (mv uses renameat2)
echo x >renamed.tmp
"$repro" record -o rename.repro --inject "rename,renameat,renameat2:error=EACCES:path=$work/renamed.final" -- \
	mv renamed.tmp renamed.final >/dev/null 2>rename.err
rc=$?
check "path= matches a rename's target: mv fails with EACCES, the file stays (exit $rc)" \
	sh -c "[ $rc = 1 ] && grep -q 'Permission denied' rename.err && [ -e renamed.tmp ] && [ ! -e renamed.final ]"

# 7. a bad rule: exit 2, one line, nothing run and no bundle (the parser's
# messages for each kind of mistake are tests/unit/replayer/test_rules.c's)
bad() { # expected-line rule...
	local want=$1
	shift
	"$repro" record -o bad.repro "$@" -- /bin/true >bad.out 2>bad.err
	local rc=$?
	check "bad rule $* -> exit 2, one line" test $rc = 2 -a "$(wc -l <bad.err)" = 1 -a ! -e bad.repro
	check "  ... saying: $want" grep -qF -- "$want" bad.err || cat bad.err
}
bad "unknown syscall 'opnat' in rule 1 (did you mean 'openat'?)" --inject 'opnat:error=EACCES'
bad "record -e: only inject=RULE and fault=RULE are understood" -e 'trace=openat'
exit $fail
