#!/bin/bash
# signals_tty.sh REPRO [user] [COUNT_SIGINT]: the terminal, signals sent to
# repro, and a killed recorder (README "Use"; DESIGN "record" promises).
# COUNT_SIGINT: tests/programs/count_sigint (section 5 is skipped without).
#  1. under a pseudo-terminal (script(1)) the program still has its tty;
#  2. SIGTERM sent to repro reaches the program, which exits as it chooses,
#     repro exits with that status and the bundle is written;
#  3. SIGINT sent to repro kills a program that does not catch it: 130;
#  4. repro killed with SIGKILL: the program dies with it (PTRACE_O_EXITKILL),
#     the spool stays and `repro pack` makes a bundle of it;
#  5. a kill(2) of the whole process group (kill -INT 0, as timeout(1) does)
#     reaches the program once, as without repro, not a second time through
#     repro.
# With "user" as root: the same as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$1
variant=${2:-root}
counter=${3:-}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user ${counter:+"$counter"} || exit 77
	run_staged bash "$stage/$(basename "$0")" "$stage/repro" user \
		${counter:+"$stage/$(basename "$counter")"}
	exit $?
fi
unshare -U true 2>/dev/null || { echo "no user namespaces: skip"; exit 77; }
work=$(mktemp -d /tmp/repro-sigt.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
# wait_child PID: until repro (PID) has started the program (at most 5 s)
wait_child() {
	for _ in $(seq 50); do
		pgrep -P "$1" >/dev/null && { sleep 0.3; return 0; }
		sleep 0.1
	done
}
json() { tar --zstd -xOf "$1" manifest.json | /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)$2)"; }

# 1. the terminal
if command -v script >/dev/null; then
	script -qec "$repro record -o $work/tty.repro -- sh -c 'test -t 0 && test -t 1 && echo has-tty; stty size >/dev/null && echo stty-ok'" /dev/null >tty.out 2>&1 </dev/null
	check "the program has its terminal under repro" grep -q has-tty tty.out
	check "the program can use its terminal (stty)" grep -q stty-ok tty.out
fi

# 2. SIGTERM to repro reaches the program
"$repro" record -o "$work/term.repro" -- sh -c 'trap "echo got-term; kill \$!; exit 42" TERM; echo ready; sleep 30 & wait' >term.out 2>&1 &
rpid=$!
for _ in $(seq 100); do grep -q ready term.out 2>/dev/null && break; sleep 0.1; done
kill -TERM $rpid
wait $rpid
rc=$?
check "repro exits with the program's status after SIGTERM (42, got $rc)" test "$rc" = 42
check "the program saw SIGTERM" grep -q got-term term.out
check "the bundle was written with exit code 42" test "$(json term.repro "['exit']['code']")" = 42

# 3. SIGINT to repro kills a program that does not catch it
# (python3 resets SIGINT: a background job of a script starts with it ignored)
"$repro" record -o "$work/int.repro" -- /usr/bin/python3 -c 'import signal, time; signal.signal(signal.SIGINT, signal.SIG_DFL); print("ready", flush=True); time.sleep(30)' >int.out &
rpid=$!
for _ in $(seq 100); do grep -q ready int.out 2>/dev/null && break; sleep 0.1; done
kill -INT $rpid
wait $rpid
rc=$?
check "SIGINT: repro exits 130 like the killed program (got $rc)" test "$rc" = 130
check "the bundle says SIGINT" test "$(json int.repro "['exit']['signal']")" = SIGINT

# 4. repro killed: the program goes too, the spool can be packed
nap=31.$$ # a duration no other run uses, to find this sleep again
TMPDIR=$work "$repro" record -o "$work/killed.repro" -- sh -c "ls /no-such-file-here; sleep $nap" >/dev/null 2>&1 &
rpid=$!
wait_child $rpid
sleep 1
child=$(pgrep -P $rpid | head -1)
kill -KILL $rpid
wait $rpid 2>/dev/null
sleep 0.5
state=$(ps -o stat= -p "${child:-999999}" 2>/dev/null)
check "the program died with repro (state '${state}')" test -z "$state" -o "${state#Z}" != "$state"
check "its child died too" sh -c "! pgrep -f '^sleep $nap' >/dev/null"
spool=$(ls -d "$work"/repro-killed.repro.* 2>/dev/null | head -1)
check "the spool is left behind in \$TMPDIR" test -s "$spool/events.spool"
"$repro" pack "$spool" -o "$work/killed.repro"
check "repro pack makes a bundle of it" test -s "$work/killed.repro"
check "the packed bundle has the failed lookup" sh -c "tar --zstd -xOf '$work/killed.repro' events.jsonl | grep -q no-such-file-here"
check "the packed bundle's exit is unknown" test "$(json killed.repro "['exit']")" = None
check "show says its duration is a lower bound, not 0.00 s" \
	sh -c "'$repro' show '$work/killed.repro' | grep -q '^  duration  at least [0-9.]* s (its end was not recorded)$'"
# 5. a signal to the whole process group reaches the program once
group_kill() { # group_kill CMD...: the program's exit status (its SIGINT count)
	# a trapped signal can end bash's `wait` early (status 130, POSIX): wait again while the
	# job runs, and once more after (the job may have ended meanwhile: bash keeps its status)
	# group.out is emptied before the start: the child's own ">" comes later, and the
	# previous run's "ready" would have the group signalled before repro handles SIGINT
	setsid bash -c 'trap true INT; : >group.out; "$@" >>group.out & for _ in $(seq 600); do grep -q ready group.out 2>/dev/null && break; sleep 0.05; done; kill -INT 0; wait $!; rc=$?; while kill -0 $! 2>/dev/null; do wait $!; rc=$?; done; wait $! 2>/dev/null; r=$?; [ $r -ne 127 ] && rc=$r; echo $rc' group "$@"
}
if [ -n "$counter" ]; then
	for run in 1 2 3; do
		bare=$(group_kill "$counter")
		rec=$(group_kill "$repro" record -o "$work/group.repro" -- "$counter")
		check "a group SIGINT reaches the program once, bare ($bare) and recorded ($rec), run $run" \
			test "$bare" = 1 -a "$rec" = 1
	done
fi
exit $fail
