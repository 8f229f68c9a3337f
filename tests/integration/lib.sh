# tests/integration/lib.sh: what the integration scripts share (sourced, bash).
#   check WHAT CMD...    run CMD; print "ok: WHAT" or "FAIL: WHAT" and set fail=1
#   ensure_test_user     the unprivileged user repro-test of the "user"
#                        variants, made once even when tests run side by side
#                        (ctest -j; the int.setup.test_user fixture makes it
#                        first); false when it cannot be had
#   stage_for_test_user, run_staged  run the script again as that user from a
#                        copy of its own (below)

fail=${fail:-0}

check() {
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}

ensure_test_user() {
	id -u repro-test >/dev/null 2>&1 && return 0
	(
		flock 9
		id -u repro-test >/dev/null 2>&1 ||
			useradd --system --no-create-home --shell /usr/sbin/nologin repro-test
	) 9>/tmp/.repro-test-useradd.lock
	id -u repro-test >/dev/null 2>&1
}

# stage_for_test_user [--src DIR] [FILE...]: a new folder $stage, readable by
# all and removed when the script exits, to run this test again as repro-test:
# a copy of $repro ($stage/repro), of the calling script and lib.sh, of each
# FILE, and with --src DIR of DIR's tests/ and examples/ ($stage/src/).  False
# when the user cannot be had (the caller skips: exit 77).
stage_for_test_user() {
	ensure_test_user || return 1
	stage=$(mktemp -d /tmp/repro-stage.XXXXXX) || return 1
	trap 'rm -rf "$stage"' EXIT
	if [ "${1-}" = --src ]; then
		mkdir "$stage/src" && cp -r "$2/tests" "$2/examples" "$stage/src/" || return 1
		shift 2
	fi
	cp "$repro" "$stage/repro" && cp "$0" "$(dirname "$0")/lib.sh" "$@" "$stage/" || return 1
	chmod -R a+rX "$stage" && chmod 755 "$stage"
}

# run_staged [--clean-env] CMD...: CMD as repro-test; with --clean-env in an
# environment of PATH, LANG and the sanitizers' options only.  CMD's status.
run_staged() {
	local clean=()
	if [ "$1" = --clean-env ]; then
		clean=(env -i PATH=/usr/bin:/bin LANG=C.UTF-8
			${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"}
			${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"})
		shift
	fi
	runuser -u repro-test -- "${clean[@]}" "$@"
}
