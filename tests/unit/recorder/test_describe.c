/*
 * Unit tests of recorder/describe.h: the exec lineage a policy is told of
 * (inherited at spawn, extended at exec, forgotten at exit).
 */
#include "recorder/describe.h"

#include <jansson.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static const char *lineage_of(struct rec_describe *d, pid_t pid)
{
	char key[16];

	snprintf(key, sizeof(key), "%d", (int)pid);
	return json_string_value(json_object_get(d->lineage, key));
}

static void test_lineage(void **state)
{
	struct rec_describe d = { 0 };
	char exe[PATH_MAX], want[2 * PATH_MAX + 4];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t self = getpid(), child = 4194000; /* above any pid this test could meet */

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	rec_describe_exec(&d, self);
	assert_string_equal(lineage_of(&d, self), exe);
	rec_describe_exec(&d, self); /* a second exec appends */
	snprintf(want, sizeof(want), "%s > %s", exe, exe);
	assert_string_equal(lineage_of(&d, self), want);
	rec_describe_spawn(&d, self, child); /* a child starts with its parent's */
	assert_string_equal(lineage_of(&d, child), want);
	rec_describe_exec(&d, child); /* no such process: unchanged */
	assert_string_equal(lineage_of(&d, child), want);
	rec_describe_exit(&d, child);
	assert_null(lineage_of(&d, child));
	assert_non_null(lineage_of(&d, self));
	rec_describe_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lineage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
