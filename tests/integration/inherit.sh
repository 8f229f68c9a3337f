#!/bin/bash
# inherit.sh REPRO [root|user]: the program keeps what it inherited
# (docs/architecture.md, record step 4).
#   - signals: the dispositions of SIGHUP, SIGINT, SIGQUIT, SIGPIPE and
#     SIGTERM and the blocked mask a program starts with are the same bare
#     and under repro, plainly, under nohup(1), after `trap '' INT QUIT` in
#     a parent shell, as a script's background job (SIGINT and SIGQUIT
#     ignored) and with signals blocked by its parent; `nohup repro record`
#     survives a SIGHUP as `nohup` alone does, one sent to the program and
#     one sent to repro;
#   - RLIMIT_NPROC (root variant only: it steps down to a user id of its
#     own, since the limit counts every process of the user and the user
#     variants of other tests run as repro-test side by side): where the
#     program alone runs, `record` runs too without its threads and the
#     program sees the same limit; with no room for repro's own process,
#     one line names RLIMIT_NPROC and the status is 2.
# With "user" as root: the same (signals) as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(realpath "$1")
variant=${2:-root}
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user || exit 77
	run_staged bash "$stage/$(basename "$0")" "$stage/repro" user
	exit $?
fi
work=$(mktemp -d /tmp/repro-inherit-w.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
n=0

# The program: grep itself, not through sh (dash clears the signal mask at start).
prog=(grep -E '^Sig(Ign|Blk):' /proc/self/status)

# "HUP=ign INT=dfl ... TERM=dfl,blk" from a program's SigIgn/SigBlk lines (FILE)
states() {
	local ign blk out="" s nr
	ign=$(awk '$1 == "SigIgn:" { print $2 }' "$1")
	blk=$(awk '$1 == "SigBlk:" { print $2 }' "$1")
	if [ -z "$ign" ] || [ -z "$blk" ]; then
		echo "no status in $1"
		return
	fi
	for s in HUP:1 INT:2 QUIT:3 PIPE:13 TERM:15 USR1:10; do
		nr=${s#*:}
		out+=" ${s%:*}="
		(((0x$ign >> (nr - 1)) & 1)) && out+=ign || out+=dfl
		(((0x$blk >> (nr - 1)) & 1)) && out+=,blk
	done
	echo "${out# }"
}

# same NAME EXPECT WRAPPER...: the program's states bare and under repro, both
# started through WRAPPER (a command that ends by running "$@"), are equal and
# hold EXPECT (a word of states(), e.g. HUP=ign)
same() {
	local name=$1 expect=$2 bare rec
	shift 2
	n=$((n + 1))
	"$@" "${prog[@]}" >bare$n.out 2>/dev/null </dev/null
	"$@" "$repro" record -o "$work/r$n.repro" -- "${prog[@]}" >rec$n.out 2>rec$n.err </dev/null
	bare=$(states bare$n.out)
	rec=$(states rec$n.out)
	check "$name: the same bare and under repro (bare: $bare; repro: $rec)" test "$bare" = "$rec"
	check "$name: $expect" sh -c 'case " $1 " in *" $2 "* | *" $2,"*) exit 0 ;; esac; exit 1' sh "$bare" "$expect"
}

# wrappers: each runs "$@" the way its name says
plain() { "$@"; }
trap_int() { bash -c "trap '' INT QUIT; \"\$@\"" bash "$@"; }
background() { bash -c '"$@" & wait $!' bash "$@"; }
blocked() {
	/usr/bin/python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGTERM})
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

same "plain" "HUP=dfl" plain
same "nohup" "HUP=ign" nohup
same "trap '' INT QUIT in the parent shell" "INT=ign" trap_int
same "a script's background job" "QUIT=ign" background
if [ -x /usr/bin/python3 ]; then
	same "signals blocked by the parent (python3, which ignores SIGPIPE)" "TERM=dfl,blk" blocked
	check "the blocked parent: SIGPIPE ignored and SIGUSR1 blocked" \
		sh -c 'case "$1" in *PIPE=ign*USR1=dfl,blk*) exit 0 ;; esac; exit 1' sh "$(states rec$n.out)"
fi

# nohup: a SIGHUP the program sends itself, and one sent to repro (its parent), end nothing
hup='kill -HUP $PPID; kill -HUP $$; echo alive'
nohup sh -c 'kill -HUP $$; echo alive' >hup-bare.out 2>/dev/null </dev/null
bare_rc=$?
nohup "$repro" record -o "$work/hup.repro" -- sh -c "$hup" >hup-rec.out 2>hup-rec.err </dev/null
rec_rc=$?
check "nohup alone survives its SIGHUP (status $bare_rc)" test "$bare_rc" = 0
check "nohup repro record: the program survives SIGHUPs as without repro (status $rec_rc)" \
	test "$rec_rc" = 0
check "nohup repro record: the program went on after them" grep -qx alive hup-rec.out

# RLIMIT_NPROC, as a user id no other process has (its count is then exact)
if [ "$variant" = root ] && [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	uid=$((200000 + $$))
	mkdir -p "$work/nproc" && cp "$repro" "$work/nproc/repro" &&
		chown "$uid:$uid" "$work/nproc" && chmod 755 "$work" "$work/nproc"
	# an ASan build's leak check stops the world from a task of its own at exit,
	# which this limit forbids: without it there (sanitizer builds only)
	# shellcheck disable=SC2016
	setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		env -i PATH=/usr/bin:/bin HOME="$work/nproc" TMPDIR="$work/nproc" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" bash -c '
		cd "$1" || exit 1
		limits=(grep -E "^Max processes" /proc/self/limits)
		ulimit -u 3
		"${limits[@]}" >bare3.out; echo "bare3 $?" >status
		./repro record -o u3.repro -- "${limits[@]}" >rec3.out 2>rec3.err; echo "rec3 $?" >>status
		ulimit -u 2
		"${limits[@]}" >bare2.out; echo "bare2 $?" >>status
		./repro record -o u2.repro -- "${limits[@]}" >rec2.out 2>rec2.err; echo "rec2 $?" >>status
	' bash "$work/nproc"
	cd "$work/nproc" || exit 1
	check "ulimit -u 3: the program runs alone" grep -qx "bare3 0" status
	check "ulimit -u 3: repro records it too, without its threads ($(cat rec3.err))" \
		grep -qx "rec3 0" status
	check "ulimit -u 3: the program's limit is the one it had" cmp -s bare3.out rec3.out
	check "ulimit -u 3: the bundle reads" sh -c '"$1" show u3.repro >/dev/null' sh "$repro"
	check "ulimit -u 2: the program runs alone" grep -qx "bare2 0" status
	check "ulimit -u 2: no room for repro's own process is status 2" grep -qx "rec2 2" status
	check "ulimit -u 2: one line that names RLIMIT_NPROC ($(cat rec2.err))" \
		sh -c 'test "$(wc -l <rec2.err)" = 1 && grep -q "^repro: .*RLIMIT_NPROC (ulimit -u 2)" rec2.err'
fi
exit $fail
