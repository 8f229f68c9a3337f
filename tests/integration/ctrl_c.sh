#!/bin/bash
# ctrl_c.sh REPRO [user]: Ctrl-C typed at an interactive shell (bash -i on a
# pseudo-terminal, job control on) while a recorded script runs a background
# job, which a non-interactive shell starts with SIGINT ignored (README
# "Use": the one documented difference).
#   - without repro the background job outlives the Ctrl-C;
#   - under repro the script gets the SIGINT as without (status 130, the
#     prompt is back at once), and the job, which cannot run on without its
#     tracer, is killed when the recording stops: repro says so on stderr,
#     the manifest warns, processes.jsonl marks it left_running and
#     `repro show` names it.
# With "user" as root: the same as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
variant=${2:-root}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user || exit 77
	run_staged bash "$stage/$(basename "$0")" "$stage/repro" user
	exit $?
fi
work=$(mktemp -d /tmp/repro-ctrlc-w.XXXXXX)
trap 'pkill -u "$(id -u)" -fx "sleep 3[0-9][78]" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0

# type LINE at bash -i, Ctrl-C after 1.5 s; print "SECONDS_TO_PROMPT STATUS SURVIVOR(yes/no)"
ctrl_c() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import os, pty, select, subprocess, sys, time
line, marker = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.environ["PS1"] = "$ "
    os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
def read_for(t, until=None):
    out, end = b"", time.time() + t
    while time.time() < end and (until is None or until not in out):
        if select.select([fd], [], [], 0.05)[0]:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    return out
read_for(1.0)
os.write(fd, line.encode() + b"\n")
read_for(1.5)
t0 = time.time()
os.write(fd, b"\x03")
os.write(fd, b"echo STATUS=$?\n")
out = read_for(10, b"STATUS=1")
took = time.time() - t0
status = out.split(b"STATUS=")[-1][:3].decode(errors="replace") if b"STATUS=1" in out else "none"
# a job killed as the recording stopped may take a moment to go (under load): look for 5 s
for _ in range(25):
    time.sleep(0.2)
    alive = subprocess.run(["pgrep", "-u", str(os.getuid()), "-fx", "sleep " + marker], capture_output=True).returncode == 0
    if not alive:
        break
os.write(fd, b"exit\n")
read_for(1.0)
print("%.1f %s %s" % (took, status, "yes" if alive else "no"))
PY
}

# markers of this variant: the root and user variants may run at once
[ "$variant" = user ] && m1=318 m2=328 || m1=317 m2=327
read -r took status alive < <(ctrl_c "bash -c 'sleep $m1 & sleep 20'" $m1)
check "without repro: the shell gets 130 and the background job lives on (status $status, alive $alive)" \
	test "$status" = 130 -a "$alive" = yes
pkill -u "$(id -u)" -fx "sleep $m1"

read -r took status alive < <(ctrl_c "$repro record -o $work/c.repro -- bash -c 'sleep $m2 & sleep 20' 2>$work/err.txt" $m2)
check "under repro: the prompt is back at once with 130 (${took} s, status $status)" \
	awk -v s="$status" -v t="$took" 'BEGIN { exit !(s == 130 && t < 5) }'
check "under repro: the background job was killed when the recording stopped" test "$alive" = no
check "repro says on stderr that it killed what the program left running" \
	grep -q "^repro: 1 process(es) the program left running were killed when the recording stopped" err.txt
check "the manifest warns" sh -c "tar --zstd -xOf c.repro manifest.json | grep -q 'still running when the recording stopped and were killed'"
check "processes.jsonl marks the job left_running" \
	sh -c "tar --zstd -xOf c.repro processes.jsonl | grep '\"sleep\",\"$m2\"' | grep -q '\"left_running\":true'"
check "repro show names it" sh -c "'$repro' show c.repro | grep 'sleep $m2' | grep -q 'left running, killed when the recording stopped'"
exit $fail
