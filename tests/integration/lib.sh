# tests/integration/lib.sh: what the integration scripts share (sourced, bash).
#   check WHAT CMD...    run CMD; print "ok: WHAT" or "FAIL: WHAT" and set fail=1
#   ensure_test_user     the unprivileged user repro-test of the "user"
#                        variants, made once even when tests run side by side
#                        (ctest -j; the int.setup.test_user fixture makes it
#                        first); false when it cannot be had
# A script that runs itself again from a stage copies this file next to it.

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
