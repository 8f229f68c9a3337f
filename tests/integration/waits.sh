#!/bin/bash
# waits.sh REPRO [user]: where the time went (docs/bundle-format.md
# "waits.jsonl", docs/explain.md "Stalls and interruptions").
#  1. a client whose server accepts, waits 3 s and closes without sending:
#     waits.jsonl has the receive with its peer, explain's #1 names the 3 s
#     wait on that endpoint and the close;
#  2. a connect that never gets an answer (a network namespace whose route
#     to 10.98.0.0/24 loops back into nothing, so the SYN is dropped),
#     interrupted by SIGINT sent to repro: explain's #1 says "interrupted
#     after N s: … had been waiting … in connect to 10.98.0.2:443";
#  3. a shell waiting 2 s for `sleep`: show's Time section has the wait4;
#  4. a reader waiting on a pipe whose only writer is a `sleep 2`
#     (`sleep 2 | python3 …`, then the reader fails): waits.jsonl's fd entry
#     names the sleep's pid in other_end, explain's stall and show's Time
#     section say "for data on a pipe from pid N (sleep 2)".
# With "user" as root: the same as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
variant=${2:-root}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user || exit 77
	run_staged bash "$stage/$(basename "$0")" "$stage/repro" user
	exit $?
fi
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
py=/usr/bin/python3
[ -x $py ] || { echo "no python3: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-waitst.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
has() { grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; return 1; }; }

# 1. a stall, then a closed connection
cat >server.py <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(1)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
c, _ = s.accept()
time.sleep(3)
c.close()
PY
cat >client.py <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
if not s.recv(4096):
    print("model download failed: the server closed the connection", file=sys.stderr)
    sys.exit(1)
PY
timeout 30 $py server.py port &
spid=$!
for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
port=$(cat port)
"$repro" record -o stall.repro -- $py client.py "$port" 2>stall.err
rc=$?
wait $spid
check "the client failed (status 1, got $rc)" test "$rc" = 1
tar --zstd -xOf stall.repro waits.jsonl >stall.waits
$py - "$port" stall.waits >stall.check <<'PY' || fail=1
import json, sys
port = int(sys.argv[1])
ws = [json.loads(l) for l in open(sys.argv[2])]
hit = [w for w in ws if w["what"] == "read" and w["dur_ns"] >= 2_500_000_000
       and any(f.get("peer", {}).get("port") == port for f in w["fds"])]
print("ok: waits.jsonl has the 3 s receive from the server" if hit else "FAIL: no such wait: %s" % ws)
if hit:
    w = hit[0]
    print("ok: it ended with 0 bytes" if w.get("ret") == 0 and w["end"] == "returned" else "FAIL: end %s" % w)
PY
cat stall.check; grep -q FAIL stall.check && fail=1
"$repro" explain stall.repro >stall.explain
grep -q "^1\. .*waited" stall.explain || cat stall.explain
check "explain's #1 is the 3 s wait on 127.0.0.1:$port" \
	grep -qE "^1\. .*waited 3\.0 s for a reply from 127\.0\.0\.1:$port .*then the peer closed the connection" stall.explain
tar --zstd -tf stall.repro >stall.members
check "waits.jsonl comes after network.jsonl and before files.jsonl" \
	test "$(grep -nE '^(network|waits|files)\.jsonl$' stall.members | cut -d: -f2 | tr '\n' ' ')" = "network.jsonl waits.jsonl files.jsonl "

# 2. interrupted in a connect that never gets an answer
if [ "$(id -u)" = 0 ]; then netns="unshare -n"; else netns="unshare -rn"; fi
cat >conn.py <<'PY'
import socket
s = socket.socket()
print("connecting", flush=True)
s.connect(("10.98.0.2", 443))
PY
cat >inns.sh <<SH
ip link set lo up && ip route add 10.98.0.0/24 dev lo || exit 77
# SIGINT at SIG_DFL, as for a terminal's foreground job (a script's background job ignores it)
env --default-signal=INT "$repro" record -o int.repro -- $py conn.py >int.out 2>int.err &
rpid=\$!
for _ in \$(seq 100); do grep -q connecting int.out 2>/dev/null && break; sleep 0.1; done
sleep 2
kill -INT \$rpid
wait \$rpid
echo "rc=\$?" >int.rc
SH
if $netns true 2>/dev/null && command -v ip >/dev/null; then
	$netns bash inns.sh
	if [ $? = 77 ]; then
		echo "skip: no route could be made in the network namespace"
	else
		check "SIGINT ended the run (130)" has int.rc "rc=130"
		"$repro" explain int.repro >int.explain
		check "explain's #1: interrupted, waiting in connect to 10.98.0.2:443" \
			grep -qE "^1\. interrupted after [0-9.]+ s \(SIGINT\): .*had been waiting [0-9.]+ s in connect to 10\.98\.0\.2:443" int.explain
		"$repro" explain --json int.repro >int.json
		check "the JSON finding is of kind wait, outcome interrupted" \
			$py -c 'import json,sys; f=json.load(open("int.json"))["findings"][0]; sys.exit(not (f["kind"]=="wait" and f["outcome"]=="interrupted" and f["reason"]["waits"][0]["at_stop"]))'
	fi
else
	echo "skip: no network namespace here"
fi

# 3. a shell waiting for sleep: show's Time section
"$repro" record -o sleep.repro -- sh -c 'sleep 2; echo done' >sleep.out
"$repro" show sleep.repro >sleep.show
check "show has a Time section" has sleep.show "Time (wall 2."
check "the shell's wait4 for sleep is among the longest waits" \
	grep -qE "^    [12]\.[0-9] s  pid [0-9]+ at [0-9.]+ s in wait4 for a child to end, then pid [0-9]+ ended" sleep.show
check "the shell is listed as waiting" grep -qE "^  pid [0-9]+ sh -c sleep 2; echo done: [23]\.[0-9] s, waiting [12]\.[0-9] s" sleep.show
"$repro" explain sleep.repro >sleep.explain
check "a run that succeeded has no wait findings" sh -c "grep -q \"nothing that matters failed\" sleep.explain && ! grep -q waited sleep.explain"

# 4. a reader waiting on a pipe: who was supposed to write
"$repro" record -o pipe.repro -- sh -c "sleep 2 | $py -c 'import sys; sys.exit(3 if not sys.stdin.read() else 0)'"
rc=$?
check "the reader failed (status 3, got $rc)" test "$rc" = 3
tar --zstd -xOf pipe.repro waits.jsonl >pipe.waits
tar --zstd -xOf pipe.repro processes.jsonl >pipe.procs
$py - pipe.waits pipe.procs >pipe.check <<'PY' || fail=1
import json, sys
ws = [json.loads(l) for l in open(sys.argv[1])]
ps = [json.loads(l) for l in open(sys.argv[2])]
sleeps = [p["pid"] for p in ps if p["execs"] and p["execs"][-1]["argv"] == ["sleep", "2"]]
reads = [w for w in ws if w["what"] == "read" and w["dur_ns"] >= 1_000_000_000
         and w["fds"] and w["fds"][0].get("kind") == "pipe"]
print("ok: one sleep 2" if len(sleeps) == 1 else "FAIL: sleeps %s" % sleeps)
print("ok: waits.jsonl has the reader's wait on the pipe" if reads else "FAIL: no such wait: %s" % ws)
if reads and sleeps:
    f = reads[0]["fds"][0]
    ok = f.get("pipe_end") == "read" and [h["pid"] for h in f.get("other_end", [])] == sleeps \
        and "other_end_cut" not in f
    print("ok: its other_end is the sleep, pid %d" % sleeps[0] if ok else "FAIL: fd %s" % f)
    print("SLEEP=%d" % sleeps[0])
PY
cat pipe.check; grep -q FAIL pipe.check && fail=1
spid=$(sed -n 's/^SLEEP=//p' pipe.check)
"$repro" explain pipe.repro >pipe.explain
check "explain's stall names the writer, pid $spid (sleep 2)" \
	grep -qE "^[0-9]+\. .*waited [0-9.]+ s for data on a pipe from pid $spid \(sleep 2\) \(read\)" pipe.explain
"$repro" show pipe.repro >pipe.show
check "show's longest waits name the writer" \
	grep -qE "^    [12]\.[0-9] s  pid [0-9]+ at [0-9.]+ s for data on a pipe from pid $spid \(sleep 2\) \(read\)" pipe.show
exit $fail
