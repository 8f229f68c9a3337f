/* Unit tests of common/err.h: the error value and its helpers (docs/errors.md). */
#include "common/cleanup.h"
#include "common/err.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static int fail_with(int errnum, const char *what, struct repro_err **err)
{
	return repro_err_set(err, errnum, "cannot open '%s'", what);
}

static void test_err_set_fills_errnum_and_message(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	assert_int_equal(fail_with(ENOENT, "missing.txt", &err), -1);
	assert_non_null(err);
	assert_int_equal(err->errnum, ENOENT);
	assert_string_equal(err->msg, "cannot open 'missing.txt'");
}

static void test_err_set_replaces_previous(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	repro_err_set(&err, EACCES, "first %d", 1);
	assert_int_equal(repro_err_set(&err, 0, "second %s", "try"), -1);
	/* the first error is freed (ASan builds check for the leak) */
	assert_int_equal(err->errnum, 0);
	assert_string_equal(err->msg, "second try");
}

static void test_err_set_null_err_drops(void **state)
{
	assert_int_equal(repro_err_set(NULL, EIO, "dropped %s", "error"), -1);
	assert_int_equal(repro_err_wrap(NULL, "context"), -1);
}

static void test_err_wrap_prepends_context(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	fail_with(ENOENT, "manifest.json", &err);
	assert_int_equal(repro_err_wrap(&err, "cannot read bundle '%s'", "b.repro"), -1);
	assert_int_equal(err->errnum, ENOENT);
	assert_string_equal(err->msg, "cannot read bundle 'b.repro': cannot open 'manifest.json'");
	repro_err_wrap(&err, "outer");
	assert_string_equal(err->msg,
			    "outer: cannot read bundle 'b.repro': cannot open 'manifest.json'");
}

static void test_err_wrap_unset_err_stays_null(void **state)
{
	struct repro_err *err = NULL;

	assert_int_equal(repro_err_wrap(&err, "context %d", 3), -1);
	assert_null(err);
}

static void test_err_is_matches_errnum(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	assert_false(repro_err_is(&err, 0));
	assert_false(repro_err_is(NULL, ENOENT));
	fail_with(ENOENT, "x", &err);
	assert_true(repro_err_is(&err, ENOENT));
	assert_false(repro_err_is(&err, EACCES));
	assert_false(repro_err_is(&err, 0));
}

static void test_err_format_with_and_without_errno(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *with = NULL;
	cleanup_free char *without = NULL;

	fail_with(ENOENT, "missing", &err);
	with = repro_err_format(err);
	assert_string_equal(with, "cannot open 'missing': No such file or directory");
	repro_err_set(&err, 0, "unknown syscall '%s'", "opnat");
	without = repro_err_format(err);
	assert_string_equal(without, "unknown syscall 'opnat'");
}

static void test_err_free_is_null_safe(void **state)
{
	struct repro_err *err = NULL;

	repro_err_free(NULL);
	repro_err_free(&err);
	fail_with(EPERM, "y", &err);
	repro_err_free(&err);
	assert_null(err);
	repro_err_free(&err);
}

static void test_err_swallow_with_tmp_err(void **state)
{
	cleanup_err struct repro_err *tmp_err = NULL;
	int rc = fail_with(ENOENT, "optional.conf", &tmp_err);

	/* crun's tmp_err idiom: an expected failure is set, tested and freed visibly */
	assert_int_equal(rc, -1);
	if (repro_err_is(&tmp_err, ENOENT))
		repro_err_free(&tmp_err);
	assert_null(tmp_err);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err_set_fills_errnum_and_message),
		cmocka_unit_test(test_err_set_replaces_previous),
		cmocka_unit_test(test_err_set_null_err_drops),
		cmocka_unit_test(test_err_wrap_prepends_context),
		cmocka_unit_test(test_err_wrap_unset_err_stays_null),
		cmocka_unit_test(test_err_is_matches_errnum),
		cmocka_unit_test(test_err_format_with_and_without_errno),
		cmocka_unit_test(test_err_free_is_null_safe),
		cmocka_unit_test(test_err_swallow_with_tmp_err),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
