#!/bin/bash
# corpus.sh REPRO VARIANT SRC NAME: one scenario of the explain corpus
# (corpus.tsv): build a broken setup from real Debian programs, start the
# program the way a deployment starts it under `repro record`, then let
# checks/corpus.py say whether explain's finding #1 (text and --json) is the
# true cause, whether a probe is in its top 3, and for diff_* scenarios
# whether `repro diff`'s "Most likely cause" names it.
#
# VARIANT root: as root; a service steps down to its user (postgres,
# repro-test) as it would under systemd or an entrypoint.  VARIANT user: as
# root, state that needs root is made first (sc_NAME_root), then this script
# runs again as repro-test, which runs the program itself.
#
# A scenario whose waits-on column is not "-" is expected to fail today:
# its checks run and print what failed, and it passes as "expected-fail"
# unless REPRO_CORPUS_STRICT=1.  Servers, listeners and mounts are the
# test's own (127.0.0.1, a mount or network namespace it creates); all are
# stopped at exit.  Exit status: 0 pass, 1 fail, 77 skip, 2 harness error.
set -u
repro=$(realpath "$1")
variant=$2
src=$(realpath "$3")
name=$4
TEST_USER="repro-test"
SAFE_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PG_BIN=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
inner=${CORPUS_INNER:-0}

skip() {
	echo "SKIP: corpus.$name ($variant): $*"
	exit 77
}

die() {
	echo "corpus: $*" >&2
	exit 2
}

row=$(grep -v '^#' "$src/tests/integration/corpus.tsv" | awk -F'\t' -v n="$name" '$1 == n')
[ -n "$row" ] || die "no scenario '$name' in corpus.tsv"
waits_on=$(printf '%s\n' "$row" | cut -f3)

# ---- helpers for the scenarios ------------------------------------------------

cleanups=()

at_exit() {
	cleanups+=("$*")
}

cleanup() {
	local i
	for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do
		eval "${cleanups[i]}" >/dev/null 2>&1 || true
	done
	if [ "$inner" = 0 ] && [ -n "${work:-}" ]; then
		if [ -n "${REPRO_TEST_KEEP:-}" ]; then
			echo "corpus: files kept in $work"
		else
			chmod -R u+rwX "$work" 2>/dev/null
			rm -rf "$work"
		fi
	fi
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "this scenario is about what root does (stepping down, mounts)"
}

need() {
	local p
	for p in "$@"; do
		command -v "$p" >/dev/null || [ -x "$p" ] || skip "$p is not installed (./dev.sh deps)"
	done
}

# as_app CMD...: the program as the application's user: through runuser as
# root, as it is for the unprivileged variant.
as_app() {
	if [ "$(id -u)" -eq 0 ]; then
		echo runuser -u "$TEST_USER" --
	fi
}

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# rec NAME [REPRO-ARGS] -- CMD...: record CMD into $work/NAME.repro, with a
# clean environment, a timeout and stdin from /dev/null.  WRAP (an array)
# goes before repro: a namespace the scenario needs around the recording.
WRAP=()
rec() {
	local out=$1 status=0
	shift
	local args=()
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	echo "record $out: ${args[*]} -- $*"
	(cd "$work/run" && exec env -i "PATH=$SAFE_PATH" "HOME=$work/home" LANG=C.UTF-8 TERM=dumb \
		${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} ${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
		${RUN_EXTRA_ENV[@]+"${RUN_EXTRA_ENV[@]}"} \
		timeout -k 5 200 ${WRAP[@]+"${WRAP[@]}"} "$repro" record -o "$work/$out.repro" \
		${args[@]+"${args[@]}"} -- "$@" >"$work/$out.out" 2>"$work/$out.err" </dev/null) || status=$?
	echo "$status" >"$work/$out.status"
	echo "        exit status $status; last stderr line: $(grep -v '^repro:' "$work/$out.err" | tail -1)"
}
RUN_EXTRA_ENV=()

# hold_port PORT: a loopback listener on PORT until the end of the scenario
hold_port() {
	/usr/bin/python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
open(sys.argv[2], "w").close()
time.sleep(300)
' "$1" "$work/listener.ready" </dev/null >/dev/null 2>&1 &
	at_exit "kill $!"
	wait_for "$work/listener.ready" || die "the listener on port $1 did not start"
}

wait_for() {
	local _
	for _ in $(seq 200); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

. "$src/tests/integration/corpus_scenarios.sh"

# ---- the run -------------------------------------------------------------------

ensure_test_user() {
	id -u "$TEST_USER" >/dev/null 2>&1 && return 0
	[ "$(id -u)" -eq 0 ] || skip "no user $TEST_USER"
	# run_case.sh may race here when ctest runs in parallel
	(
		flock 9
		id -u "$TEST_USER" >/dev/null 2>&1 ||
			useradd --system --no-create-home --shell /usr/sbin/nologin "$TEST_USER"
	) 9>/tmp/.repro-test-useradd.lock
	id -u "$TEST_USER" >/dev/null 2>&1 || die "cannot create user $TEST_USER"
}

run_user_variant() {
	local stage status=0
	stage=$work/stage
	mkdir -p "$stage/tests"
	cp "$repro" "$stage/repro"
	cp -r "$src/tests/integration" "$stage/tests/"
	chmod -R a+rX "$stage"
	if declare -F "sc_${name}_root" >/dev/null; then
		"sc_${name}_root" || die "root setup of $name failed"
	fi
	chown "$TEST_USER:" "$work" "$work/run" "$work/home"
	runuser -u "$TEST_USER" -- env -i "PATH=$SAFE_PATH" LANG=C.UTF-8 CORPUS_INNER=1 \
		"CORPUS_WORK=$work" ${REPRO_CORPUS_STRICT+"REPRO_CORPUS_STRICT=$REPRO_CORPUS_STRICT"} \
		${REPRO_ACCURACY_OUT+"REPRO_ACCURACY_OUT=$REPRO_ACCURACY_OUT"} \
		${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} ${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
		/bin/bash "$stage/tests/integration/corpus.sh" "$stage/repro" user "$stage" "$name" ||
		status=$?
	[ "$status" -eq 0 ] || [ "$status" -eq 77 ] || REPRO_TEST_KEEP=${REPRO_TEST_KEEP:-1}
	exit "$status"
}

main() {
	case $variant in root | user) ;; *) die "variant must be root or user" ;; esac
	printf '%s\n' "$row" | cut -f2 | tr , '\n' | grep -qx "$variant" ||
		skip "scenario $name has no $variant variant"
	[ "$variant" = root ] && [ "$(id -u)" -ne 0 ] && skip "the root variant needs root"
	unshare --user --mount true 2>/dev/null || skip "user namespaces are not available here"
	trap cleanup EXIT
	ensure_test_user
	if [ "$inner" = 1 ]; then
		work=$CORPUS_WORK
	else
		work=$(mktemp -d /tmp/repro-corpus.XXXXXX)
		chmod 0755 "$work"
		mkdir -p "$work/run" "$work/home"
		# the application's user may write where it runs
		[ "$(id -u)" -eq 0 ] && chown "$TEST_USER:" "$work/run" "$work/home"
		if [ "$variant" = user ] && [ "$(id -u)" -eq 0 ]; then
			run_user_variant
		fi
	fi
	echo "corpus.$name ($variant variant, uid $(id -u)), files in $work"
	declare -F "sc_$name" >/dev/null || die "no function sc_$name"
	PORT=$(free_port)
	"sc_$name"
	local status=0 f bundles=("$work/b.repro")
	[[ $name == diff_* ]] && bundles+=("$work/a.repro")
	for f in "${bundles[@]}"; do
		[ -f "$f" ] || { echo "FAIL: corpus.$name ($variant): repro wrote no bundle at $f"; exit 1; }
	done
	env REPRO_BIN="$repro" CASE_BUNDLE="$work/b.repro" CASE_TMP="$work" CASE_PORT="$PORT" \
		CORPUS_WORK="$work" CORPUS_NAME="$name" CASE_VARIANT="$variant" CASE_UID="$(id -u)" \
		CASE_STATUS="$(cat "$work/b.status")" CASE_STDERR="$work/b.err" CASE_STDOUT="$work/b.out" \
		PYTHONPATH="$src/tests/integration/checks" PYTHONDONTWRITEBYTECODE=1 \
		/usr/bin/python3 "$src/tests/integration/checks/corpus.py" "$name" || status=$?
	if [ "$status" -eq 0 ]; then
		if [ "$waits_on" != - ]; then
			echo "unexpected pass: corpus.$name is listed as waiting on '$waits_on' (corpus.tsv)"
		fi
		echo "PASS: corpus.$name ($variant)"
		return 0
	fi
	if [ "$status" -eq 1 ] && [ "$waits_on" != - ] && [ "${REPRO_CORPUS_STRICT:-0}" != 1 ]; then
		echo "expected-fail: corpus.$name ($variant) waits on '$waits_on' (REPRO_CORPUS_STRICT=1 makes it fail)"
		return 0
	fi
	echo "FAIL: corpus.$name ($variant)"
	REPRO_TEST_KEEP=${REPRO_TEST_KEEP:-1}
	return "$status"
}

main
