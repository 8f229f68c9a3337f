/* Unit tests of common/names.h: errno and signal names, both ways. */
#include "common/names.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* Every errno value, named and unnamed, comes back from its name. */
static void test_names_errno_round_trip(void **state)
{
	char buf[32];

	for (int e = 1; e <= 4095; e++) {
		const char *name = repro_errno_name(e, buf, sizeof(buf));

		if (repro_errno_parse(name) != e)
			fail_msg("errno %d is named '%s', which parses as %d", e, name,
				 repro_errno_parse(name));
	}
	assert_string_equal(repro_errno_name(ENOENT, buf, sizeof(buf)), "ENOENT");
	assert_string_equal(repro_errno_name(512, buf, sizeof(buf)), "ERESTARTSYS");
	assert_string_equal(repro_errno_name(516, buf, sizeof(buf)), "ERESTART_RESTARTBLOCK");
	assert_string_equal(repro_errno_name(4000, buf, sizeof(buf)), "E4000");
	assert_int_equal(repro_errno_parse("ENOENTT"), -1);
	assert_int_equal(repro_errno_parse("E0"), -1);
	assert_int_equal(repro_errno_parse("E4096"), -1);
	assert_int_equal(repro_errno_parse("2"), -1);
	assert_int_equal(repro_errno_parse(NULL), -1);
}

/* Every signal comes back from its name, in every spelling accepted. */
static void test_names_signal_round_trip(void **state)
{
	char buf[32];

	for (int sig = 1; sig <= SIGRTMAX; sig++) {
		const char *name = repro_signal_name(sig, buf, sizeof(buf));

		if (repro_signal_parse(name) != sig)
			fail_msg("signal %d is named '%s', which parses as %d", sig, name,
				 repro_signal_parse(name));
		/* without "SIG", but for "SIG<n>": a bare number is no name */
		if (!(name[3] >= '0' && name[3] <= '9') && repro_signal_parse(name + 3) != sig)
			fail_msg("signal %d: '%s' parses as %d", sig, name + 3,
				 repro_signal_parse(name + 3));
	}
	assert_string_equal(repro_signal_name(SIGTERM, buf, sizeof(buf)), "SIGTERM");
	assert_string_equal(repro_signal_name(SIGRTMIN + 3, buf, sizeof(buf)), "SIGRTMIN+3");
	assert_int_equal(repro_signal_parse("term"), SIGTERM);
	assert_int_equal(repro_signal_parse("RTMIN+3"), SIGRTMIN + 3);
	assert_int_equal(repro_signal_parse("SIGRTMAX-1"), SIGRTMAX - 1);
	assert_int_equal(repro_signal_parse("SIGRTMIN"), SIGRTMIN);
	assert_int_equal(repro_signal_parse("SIG37"), 37);
	assert_int_equal(repro_signal_parse("SIGRTMIN+99"), -1);
	assert_int_equal(repro_signal_parse("SIGRTMIN+"), -1);
	assert_int_equal(repro_signal_parse("SIGBOGUS"), -1);
	assert_int_equal(repro_signal_parse("37"), -1);
	assert_int_equal(repro_signal_parse("SIG0"), -1);
	assert_int_equal(repro_signal_parse(NULL), -1);
}

/* The kernel's restart codes, and none of the errnos around them. */
static void test_names_restart_codes(void **state)
{
	(void)state;
	assert_true(repro_errno_is_restart(repro_errno_parse("ERESTARTSYS")));
	assert_true(repro_errno_is_restart(repro_errno_parse("ERESTART_RESTARTBLOCK")));
	assert_false(repro_errno_is_restart(EINTR));
	assert_false(repro_errno_is_restart(EAGAIN));
	assert_false(repro_errno_is_restart(511));
	assert_false(repro_errno_is_restart(517));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_errno_round_trip),
		cmocka_unit_test(test_names_signal_round_trip),
		cmocka_unit_test(test_names_restart_codes),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
