/* Unit tests of common/mountinfo.h: the one parser of /proc/PID/mountinfo lines. */
#include "common/mountinfo.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* A line with optional fields and escaped spaces, tabs and backslashes (proc(5)). */
static void test_mountinfo_fields_and_escapes(void **state)
{
	char line[] = "36 35 98:0 /mnt\\040dir /srv/my\\040data rw,noatime master:1 shared:7 - "
		      "ext3 /dev/my\\011disk rw,errors=continue\n";
	struct repro_mountinfo m;

	assert_true(repro_mountinfo_parse(line, &m));
	assert_int_equal(m.major, 98);
	assert_int_equal(m.minor, 0);
	assert_string_equal(m.root, "/mnt dir");
	assert_string_equal(m.mount_point, "/srv/my data");
	assert_string_equal(m.options, "rw,noatime");
	assert_string_equal(m.fstype, "ext3");
	assert_string_equal(m.source, "/dev/my\tdisk");
	assert_string_equal(m.super_options, "rw,errors=continue");
}

/* The lines of the real mount table of this process all parse. */
static void test_mountinfo_this_process(void **state)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192];
	size_t n = 0;

	if (f == NULL)
		skip();
	while (fgets(line, sizeof(line), f) != NULL) {
		struct repro_mountinfo m;

		assert_true(repro_mountinfo_parse(line, &m));
		assert_true(m.mount_point[0] == '/');
		n++;
	}
	fclose(f);
	assert_true(n > 0);
}

/* What is not a mountinfo entry is refused. */
static void test_mountinfo_malformed(void **state)
{
	char no_sep[] = "36 35 98:0 / /srv rw ext3 /dev/x rw\n";
	char short_line[] = "36 35 98:0 /\n";
	char bad_dev[] = "36 35 x:y / /srv rw - ext3 /dev/x rw\n";
	char no_source[] = "36 35 98:0 / /srv rw - ext3\n";
	char empty[] = "";
	struct repro_mountinfo m;

	assert_false(repro_mountinfo_parse(no_sep, &m));
	assert_false(repro_mountinfo_parse(short_line, &m));
	assert_false(repro_mountinfo_parse(bad_dev, &m));
	assert_false(repro_mountinfo_parse(no_source, &m));
	assert_false(repro_mountinfo_parse(empty, &m));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo_fields_and_escapes),
		cmocka_unit_test(test_mountinfo_this_process),
		cmocka_unit_test(test_mountinfo_malformed),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
