#!/bin/bash
# run_case.sh - run one row of cases.tsv (STYLE.md "Integration tests").
#
#   run_case.sh --case NAME --variant root|user --repro BIN --programs DIR
#               --source SRCDIR [--work DIR] [--inner]
#
# Steps for an ordinary row:
#   1. run the program bare, capturing stdout, stderr and exit status;
#   2. run it under `repro record -o WORK/b.repro REPRO-ARGS -- PROGRAM` and
#      require the same stdout, stderr (after masking pids and mkdtemp names)
#      and exit status: the transparency promise;
#   3. extract the bundle with `tar --zstd -xf` and run the row's checks
#      (checks/*.py on events.jsonl, processes.jsonl, manifest.json; "strace"
#      runs strace_compare.py).
# A row whose program is "-" is a repro error case: REPRO-ARGS is the whole
# repro command line and the check "repro_error" wants exit status 2 and
# exactly one stderr line starting "repro:".
#
# Variants: "root" runs as root (skip when not root); "user" runs as an
# unprivileged user: as root, the repro binary, the test programs and the
# scripts are staged into a world-readable temp dir and this script runs
# again as user repro-test through runuser.
# Placeholders in PROGRAM and REPRO-ARGS: @PROG@ test programs dir, @TMP@ a
# per-case temp dir (the cwd of every run), @PORT@ a free loopback TCP port,
# @SRC@ the source tree (examples/, tests/integration/).
# Optional hooks in hooks/NAME.sh (see hooks/README).
# Exit status: 0 pass, 1 fail, 77 skip (no user namespaces, no ptrace, or a
# variant that cannot apply), 2 harness error.
set -euo pipefail

TEST_USER="repro-test"
SAFE_PATH="/usr/local/bin:/usr/bin:/bin"

case_name='' variant='' repro='' programs='' source='' work='' inner=0
prog=() rargs=() tokens=() RUN_ENV=() NETWRAP=()
row_program='' row_args='' row_expect='' TMP='' PORT=''

die() {
	echo "run_case: $*" >&2
	exit 2
}

skip() {
	echo "SKIP: $case_name ($variant): $*"
	exit 77
}

fail() {
	echo "FAIL: $case_name ($variant): $*"
	exit 1
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--case) case_name=$2 ;;
		--variant) variant=$2 ;;
		--repro) repro=$2 ;;
		--programs) programs=$2 ;;
		--source) source=$2 ;;
		--work) work=$2 ;;
		--inner)
			inner=1
			shift
			continue
			;;
		*) die "unknown argument '$1'" ;;
		esac
		shift 2
	done
	if [ -z "$case_name" ] || [ -z "$repro" ] || [ -z "$programs" ] || [ -z "$source" ]; then
		die "usage: run_case.sh --case NAME --variant root|user --repro BIN --programs DIR --source DIR"
	fi
	case $variant in root | user) ;; *) die "variant must be root or user" ;; esac
}

# load_row: set row_program, row_args, row_expect from cases.tsv.
load_row() {
	local tsv="$source/tests/integration/cases.tsv" name program args expect
	[ -f "$tsv" ] || die "no $tsv"
	while IFS=$'\t' read -r name program args expect; do
		[ "$name" = "$case_name" ] || continue
		[ "$args" = - ] && args=
		row_program=$program
		row_args=$args
		row_expect=$expect
		return 0
	done < <(grep -v '^#' "$tsv")
	die "no case '$case_name' in $tsv"
}

# ---- running as the test user ------------------------------------------------

ensure_test_user() {
	id -u "$TEST_USER" >/dev/null 2>&1 && return 0
	# Two tests may race here when ctest runs in parallel.
	(
		flock 9
		id -u "$TEST_USER" >/dev/null 2>&1 ||
			useradd --system --no-create-home --shell /usr/sbin/nologin "$TEST_USER"
	) 9>/tmp/.repro-test-useradd.lock
	id -u "$TEST_USER" >/dev/null 2>&1 || die "cannot create user $TEST_USER"
}

# stage_for_user: copy what the unprivileged run needs into a world-readable
# dir, then run this script again as the test user.  Never returns.
stage_and_reexec() {
	local stage status=0
	ensure_test_user
	stage=$(mktemp -d /tmp/repro-int.XXXXXX)
	chmod 0755 "$stage"
	mkdir -p "$stage/bin" "$stage/programs" "$stage/src/tests" "$stage/work/tmp"
	cp "$repro" "$stage/bin/repro"
	find "$programs" -maxdepth 1 -type f -perm -u+x -exec cp {} "$stage/programs/" \;
	cp -r "$source/tests/integration" "$stage/src/tests/"
	[ -d "$source/examples" ] && cp -r "$source/examples" "$stage/src/"
	chmod -R a+rX "$stage"
	chown -R "$TEST_USER:" "$stage/work"
	work=$stage/work
	load_hooks
	if declare -F case_root_setup >/dev/null; then
		(cd "$work/tmp" && TMP=$work/tmp case_root_setup) || die "root setup failed"
	fi
	runuser -u "$TEST_USER" -- env -i "PATH=$SAFE_PATH" LANG=C.UTF-8 \
		${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
		${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
		${REPRO_TEST_KEEP+"REPRO_TEST_KEEP=$REPRO_TEST_KEEP"} \
		/bin/bash "$stage/src/tests/integration/run_case.sh" --inner \
		--case "$case_name" --variant "$variant" --repro "$stage/bin/repro" \
		--programs "$stage/programs" --source "$stage/src" --work "$work" || status=$?
	if { [ "$status" -eq 0 ] || [ "$status" -eq 77 ]; } && [ -z "${REPRO_TEST_KEEP:-}" ]; then
		chmod -R u+rwX "$stage" 2>/dev/null || true
		rm -rf "$stage"
	else
		echo "run_case: files kept in $stage"
	fi
	exit "$status"
}

# ---- environment probes -------------------------------------------------------

probe_environment() {
	command -v unshare >/dev/null || skip "unshare(1) is not installed"
	unshare --user --mount true 2>/dev/null ||
		skip "user namespaces are not available here (unshare --user --mount failed)"
	if command -v strace >/dev/null; then
		strace -qq -o /dev/null /bin/true 2>/dev/null ||
			skip "ptrace is not available here (strace /bin/true failed)"
	fi
	if uses_net_none; then
		"${NETWRAP[@]}" true 2>/dev/null || skip "network namespaces are not available here"
	fi
}

uses_net_none() {
	[[ " $row_args " == *" --net=none "* ]]
}

# set_netwrap: NETWRAP=(a command prefix) that runs the rest in a new network
# namespace with only loopback up, as repro --net=none does, keeping the
# caller's uid.  Used for the bare and strace runs of --net=none rows, so
# that no packet leaves there either; empty for other rows.
set_netwrap() {
	NETWRAP=()
	uses_net_none || return 0
	# shellcheck disable=SC2016 # expanded by the inner shell
	if [ "$(id -u)" -eq 0 ]; then
		NETWRAP=(unshare --net -- /bin/sh -c 'ip link set lo up && exec "$@"' sh)
	else
		# Bringing lo up needs CAP_NET_ADMIN: take it as root of an outer
		# user namespace, then map our own ids back in an inner one.
		NETWRAP=(unshare --map-root-user --net -- /bin/bash -c
			'ip link set lo up && exec unshare --user --map-user="$1" --map-group="$2" -- "${@:3}"'
			netwrap "$(id -u)" "$(id -g)")
	fi
}

# ---- hooks and placeholders ---------------------------------------------------

load_hooks() {
	local hooks="$source/tests/integration/hooks/$case_name.sh"
	# shellcheck source=/dev/null
	[ -f "$hooks" ] && . "$hooks"
	return 0
}

call_hook() {
	local hook=$1
	if declare -F "$hook" >/dev/null; then
		(cd "$TMP" && "$hook") || fail "hook $hook failed"
	fi
}

free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

expand() {
	local s=$1
	s=${s//@PROG@/$programs}
	s=${s//@TMP@/$TMP}
	s=${s//@PORT@/$PORT}
	s=${s//@SRC@/$source}
	printf '%s' "$s"
}

# ---- the steps ----------------------------------------------------------------

# set_run_env: RUN_ENV=(env -i ...), the environment of every run.
set_run_env() {
	RUN_ENV=(env -i "PATH=$SAFE_PATH" "HOME=$TMP/home" LANG=C.UTF-8 "TMPDIR=$TMP" TERM=dumb)
	[ -z "${ASAN_OPTIONS+x}" ] || RUN_ENV+=("ASAN_OPTIONS=$ASAN_OPTIONS")
	[ -z "${UBSAN_OPTIONS+x}" ] || RUN_ENV+=("UBSAN_OPTIONS=$UBSAN_OPTIONS")
	[ -z "${CASE_ENV+x}" ] || RUN_ENV+=("${CASE_ENV[@]}")
}

# close_inherited_fds: close every fd above 2 that this shell inherited (ctest
# leaks some), so that both runs start with fds 0-2 only and an fd leaked by
# repro into the program shows up as a difference.
close_inherited_fds() {
	local fd
	for fd in "/proc/$BASHPID/fd/"*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
	done
	return 0
}

# run_to PREFIX CMD...: run CMD in $TMP, output to WORK/PREFIX.{out,err,status}.
# exec, so that no shell of ours reports a death by signal into the files.
run_to() {
	local prefix=$1 status=0
	shift
	(cd "$TMP" && ulimit -c 0 && close_inherited_fds &&
		exec "${RUN_ENV[@]}" "$@" >"$work/$prefix.out" 2>"$work/$prefix.err" </dev/null) ||
		status=$?
	echo "$status" >"$work/$prefix.status"
}

mask() {
	sed -E -e 's/\b(pid|tid|ppid)=[0-9]+/\1=N/g' \
		-e 's#/proc/[0-9]+(/task/[0-9]+)?/#/proc/N/#g' \
		-e 's/(repro-[A-Za-z0-9_-]+)\.[A-Za-z0-9]{6}/\1.XXXXXX/g' \
		-e 's/after [0-9]+ ms/after N ms/g' \
		${CASE_MASK_SED:+-e "$CASE_MASK_SED"} "$1"
}

run_bare() {
	echo "step 1: bare: ${prog[*]}"
	call_hook case_reset
	run_to bare "${NETWRAP[@]}" "${prog[@]}"
	echo "        exit status $(cat "$work/bare.status")"
	call_hook case_after_bare
}

run_recorded() {
	echo "step 2: recorded: repro record -o $work/b.repro ${rargs[*]} -- ${prog[*]}"
	call_hook case_reset
	rm -f "$work/b.repro"
	printf '%s\0' "${prog[@]}" >"$work/argv"
	printf '%s\n' "${rargs[@]}" >"$work/rargs"
	run_to rec "$repro" record -o "$work/b.repro" "${rargs[@]}" -- "${prog[@]}"
	echo "        exit status $(cat "$work/rec.status")"
}

compare_runs() {
	local what bad=0
	for what in out err; do
		if ! diff -u --label "bare.$what" --label "recorded.$what" \
			<(mask "$work/bare.$what") <(mask "$work/rec.$what") >"$work/diff.$what"; then
			echo "        std$what differs with and without repro:"
			sed 's/^/        /' "$work/diff.$what" | head -40
			bad=1
		fi
	done
	if [ "$(cat "$work/bare.status")" != "$(cat "$work/rec.status")" ]; then
		echo "        exit status differs: bare $(cat "$work/bare.status")," \
			"recorded $(cat "$work/rec.status")"
		sed 's/^/        recorded stderr: /' "$work/rec.err" | grep -m5 'repro:' || true
		bad=1
	fi
	[ "$bad" -eq 0 ] || fail "the program behaved differently under repro"
	echo "        same stdout, stderr and exit status with and without repro"
}

extract_bundle() {
	[ -f "$work/b.repro" ] || fail "repro wrote no bundle at $work/b.repro"
	mkdir -p "$work/bundle"
	tar --zstd -xf "$work/b.repro" -C "$work/bundle" || fail "cannot extract the bundle"
	local m
	for m in manifest.json processes.jsonl events.jsonl trace.txt; do
		[ -f "$work/bundle/$m" ] || fail "bundle has no $m"
	done
}

# run_check TOKEN: one entry of the expect column.  Returns the check's status.
run_check() {
	local token=$1 checks="$source/tests/integration/checks"
	case $token in
	strace)
		call_hook case_reset
		local cmd=(/usr/bin/python3 "$source/tests/integration/strace_compare.py"
			--events "$work/bundle/events.jsonl" --cwd "$TMP" --log "$work/strace.log"
			-- "${prog[@]}")
		(cd "$TMP" && close_inherited_fds && exec "${RUN_ENV[@]}" "${NETWRAP[@]}" "${cmd[@]}")
		;;
	*.py) check_env /usr/bin/python3 "$checks/$token" ;;
	*.sh) check_env /bin/bash "$checks/$token" ;;
	*) die "unknown check '$token'" ;;
	esac
}

check_env() {
	env BUNDLE_DIR="$work/bundle" CASE_TMP="$TMP" CASE_PORT="$PORT" \
		CASE_STDOUT="$work/rec.out" CASE_STDERR="$work/rec.err" \
		CASE_STATUS="$(cat "$work/rec.status")" CASE_BARE_STATUS="$(cat "$work/bare.status")" \
		CASE_VARIANT="$variant" CASE_UID="$(id -u)" PROG_DIR="$programs" SRC_DIR="$source" \
		CASE_ARGV_FILE="$work/argv" CASE_ARGS_FILE="$work/rargs" \
		REPRO_BIN="$repro" CASE_BUNDLE="$work/b.repro" CASE_NAME="$case_name" \
		PYTHONPATH="$source/tests/integration/checks:$source/tests/integration" \
		PYTHONDONTWRITEBYTECODE=1 "$@"
}

run_checks() {
	local token status skipped=0
	IFS=, read -r -a tokens <<<"common.py,$row_expect"
	for token in "${tokens[@]}"; do
		echo "step 3: check $token"
		status=0
		run_check "$token" || status=$?
		case $status in
		0) ;;
		77) skipped=1 ;;
		*) fail "check $token failed (status $status)" ;;
		esac
	done
	[ "$skipped" -eq 0 ] || skip "a check does not apply here (see above)"
}

# A repro error case: no bare run, just repro's exit status and stderr.
run_error_case() {
	echo "step: repro ${rargs[*]}"
	run_to rec "$repro" "${rargs[@]}"
	local status lines
	status=$(cat "$work/rec.status")
	lines=$(wc -l <"$work/rec.err")
	sed 's/^/        stderr: /' "$work/rec.err"
	[ "$status" -eq 2 ] || fail "repro exited $status, want 2"
	[ "$lines" -eq 1 ] || fail "repro wrote $lines lines to stderr, want exactly 1"
	grep -q '^repro: ' "$work/rec.err" || fail "the stderr line does not start with 'repro: '"
	[ ! -s "$work/rec.out" ] || fail "repro wrote to stdout on error"
	echo "        exit status 2 and one 'repro:' line"
}

cleanup() {
	local status=$?
	if declare -F case_end >/dev/null && [ -n "${TMP:-}" ]; then
		(cd "$TMP" && case_end) || true
	fi
	if [ "$inner" -eq 0 ] && [ -n "${work:-}" ] && [ -z "${REPRO_TEST_KEEP:-}" ] &&
		{ [ "$status" -eq 0 ] || [ "$status" -eq 77 ]; }; then
		chmod -R u+rwX "$work" 2>/dev/null || true
		rm -rf "$work"
	elif [ -n "${work:-}" ] && [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
		echo "run_case: files kept in $work"
	fi
}

main() {
	parse_args "$@"
	repro=$(realpath -e "$repro") || die "no repro binary at '$repro'"
	programs=$(realpath -e "$programs") || die "no test programs dir"
	source=$(realpath -e "$source") || die "no source dir"
	load_row
	if [ "$variant" = root ] && [ "$(id -u)" -ne 0 ]; then
		skip "the root variant needs root"
	fi
	if [ "$variant" = user ] && [ "$(id -u)" -eq 0 ] && [ "$inner" -eq 0 ]; then
		stage_and_reexec
	fi
	[ -n "$work" ] || work=$(mktemp -d "${TMPDIR:-/tmp}/repro-case.XXXXXX")
	TMP=$work/tmp
	mkdir -p "$TMP/home"
	trap cleanup EXIT
	echo "case $case_name ($variant variant, uid $(id -u)), files in $work"
	load_hooks
	if [ "${CASE_NEEDS_NONROOT:-0}" = 1 ] && [ "$(id -u)" -eq 0 ]; then
		skip "root bypasses the permission this case is about"
	fi
	if [ "${CASE_NEEDS_ROOT:-0}" = 1 ] && [ "$(id -u)" -ne 0 ]; then
		skip "this case is about what root does (stepping down, privileged ports)"
	fi
	PORT=$(free_port)
	eval "rargs=($(expand "$row_args"))"
	set_run_env
	set_netwrap
	probe_environment
	call_hook case_begin
	if [ "$row_program" = - ]; then
		run_error_case
		echo "PASS: $case_name ($variant)"
		return 0
	fi
	eval "prog=($(expand "$row_program"))"
	run_bare
	run_recorded
	compare_runs
	extract_bundle
	run_checks
	echo "PASS: $case_name ($variant)"
}

main "$@"
