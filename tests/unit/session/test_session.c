/*
 * Unit tests of session/session.h: real runs of small programs through
 * sess_run(), without the cli, each into a bundle in a temporary directory
 * that is then read back with bundles/reader.h.  Where the tracer cannot
 * run here at all (ptrace or seccomp refused), the whole file skips (exit 77).
 */
#include "bundles/reader.h"
#include "launcher/policy.h"
#include "recorder/systab.h"
#include "session/session.h"

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define SKIP_RETURN 77

static char dir[] = "/tmp/repro-test-session.XXXXXX";
static char output[sizeof(dir) + 32];
static char notices[4096];

static void collect_notice(void *ctx, const char *line)
{
	size_t len = strlen(notices);

	(void)ctx;
	snprintf(notices + len, sizeof(notices) - len, "%s\n", line);
}

/* Options for a run of argv into dir/run.repro, the spool in dir too. */
static struct sess_options options_for(char *const *argv)
{
	snprintf(output, sizeof(output), "%s/run.repro", dir);
	notices[0] = '\0';
	return (struct sess_options){
		.argv = argv,
		.output = output,
		.spool_parent = dir,
		.classes = SESS_CLASS_ALL,
		.sandbox = SESS_SANDBOX_AUTO,
		.wait_all = true,
		.hash_max = 1u << 20,
		.notice = collect_notice,
	};
}

/* Counts the lines of events.jsonl with errno errname whose JSON text holds needle. */
struct match {
	const char *errname, *needle;
	int n;
};

static int count_match(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct match *m = ctx;
	const char *e = json_string_value(json_object_get(obj, "errno"));
	char *text;

	(void)lineno;
	(void)err;
	if (e == NULL || strcmp(e, m->errname) != 0)
		return 0;
	text = json_dumps(obj, 0);
	if (text != NULL && strstr(text, m->needle) != NULL)
		m->n++;
	free(text);
	return 0;
}

static int events_matching(const char *bundle, const char *errname, const char *needle)
{
	struct repro_err *err = NULL;
	struct bndl_reader *r = bndl_reader_open(bundle, &err);
	struct match m = { .errname = errname, .needle = needle };

	assert_non_null(r);
	assert_int_equal(bndl_reader_foreach(r, "events.jsonl", count_match, &m, &err), 0);
	bndl_reader_free(r);
	return m.n;
}

static void test_session_exit_status(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "exit 3", NULL };
	struct sess_options o = options_for(argv);
	struct sess_result res = { 0 };
	struct repro_err *err = NULL;
	struct stat st;

	(void)state;
	assert_int_equal(sess_run(&o, NULL, 0, &res, &err), 0);
	assert_true(res.has_exit);
	assert_true(WIFEXITED(res.wait_status));
	assert_int_equal(WEXITSTATUS(res.wait_status), 3);
	assert_int_equal(res.exec_errnum, 0);
	assert_string_equal(res.bundle_path, output);
	assert_null(res.spool_dir);
	assert_int_equal(stat(res.bundle_path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(res.nevents > 0);
	assert_true(res.nprocesses >= 1);
	assert_int_equal(res.left_running, 0);
	assert_false(res.was_stop_requested);
	sess_result_release(&res);
	assert_null(res.bundle_path);
}

static unsigned entries;

static unsigned count_entry(void *ctx, const struct lnch_stop *st)
{
	(void)ctx;
	(void)st;
	entries++;
	return LNCH_WANT_NOTHING;
}

static const struct lnch_observer_ops counting_ops = { .on_entry = count_entry };

static void test_session_failed_open(void **state)
{
	char script[256];
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct sess_options o = options_for(argv);
	const struct sess_observer counter = { .ops = &counting_ops };
	struct sess_result res = { 0 };
	struct repro_err *err = NULL;

	(void)state;
	snprintf(script, sizeof(script), "exec cat %s/missing-file 2>/dev/null", dir);
	o.observers = &counter;
	o.nobservers = 1;
	entries = 0;
	assert_int_equal(sess_run(&o, NULL, 0, &res, &err), 0);
	assert_true(WIFEXITED(res.wait_status));
	assert_int_equal(WEXITSTATUS(res.wait_status), 1);
	assert_true(res.nfailed >= 1);
	assert_true(entries > 0);
	assert_true(events_matching(res.bundle_path, "ENOENT", "missing-file") >= 1);
	sess_result_release(&res);
}

/* A policy that fails mkdir and mkdirat with EROFS (launcher/policy.h). */
struct deny_mkdir {
	int nr_mkdir, nr_mkdirat;
};

static int decide_mkdir(void *ctx, const struct lnch_stop *st, const struct lnch_call *call,
			struct lnch_verdict *v)
{
	const struct deny_mkdir *d = ctx;

	(void)call;
	if (st->nr != d->nr_mkdir && st->nr != d->nr_mkdirat)
		return 0;
	*v = (struct lnch_verdict){ .errnum = EROFS };
	return 1;
}

static const struct lnch_policy_ops deny_mkdir_ops = { .decide = decide_mkdir };

static void test_session_policy_imposes(void **state)
{
	char script[256], made[sizeof(dir) + 16];
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct sess_options o = options_for(argv);
	struct deny_mkdir d = { .nr_mkdir = seccomp_syscall_resolve_name("mkdir"),
				.nr_mkdirat = seccomp_syscall_resolve_name("mkdirat") };
	const struct sess_policy policy = { .ops = &deny_mkdir_ops, .ctx = &d };
	struct sess_result res = { 0 };
	struct repro_err *err = NULL;
	struct stat st;

	(void)state;
	snprintf(made, sizeof(made), "%s/made", dir);
	snprintf(script, sizeof(script), "exec mkdir %s 2>/dev/null", made);
	assert_int_equal(sess_run(&o, &policy, 1, &res, &err), 0);
	assert_int_not_equal(WEXITSTATUS(res.wait_status), 0);
	assert_int_equal(stat(made, &st), -1);
	assert_true(events_matching(res.bundle_path, "EROFS", "\"injected\": true") >= 1);
	sess_result_release(&res);
}

static void test_session_not_in_path(void **state)
{
	char *argv[] = { "repro-test-no-such-command", NULL };
	struct sess_options o = options_for(argv);
	struct sess_result res = { 0 };
	struct repro_err *err = NULL;

	(void)state;
	assert_int_equal(sess_run(&o, NULL, 0, &res, &err), 0);
	assert_int_equal(res.exec_errnum, ENOENT);
	assert_true(res.is_not_in_path);
	assert_true(WIFEXITED(res.wait_status));
	assert_int_equal(WEXITSTATUS(res.wait_status), 127);
	assert_non_null(res.bundle_path);
	sess_result_release(&res);
}

static void test_session_bad_output_is_error(void **state)
{
	char *argv[] = { "/bin/true", NULL };
	struct sess_options o = options_for(argv);
	struct sess_result res = { 0 };
	struct repro_err *err = NULL;

	(void)state;
	o.output = dir; /* a directory */
	assert_int_equal(sess_run(&o, NULL, 0, &res, &err), -1);
	assert_non_null(err);
	assert_non_null(strstr(err->msg, "is not a regular file"));
	assert_null(res.bundle_path);
	repro_err_free(&err);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A run of /bin/true: whether the tracer can run here at all. */
static bool can_record(void)
{
	char *argv[] = { "/bin/true", NULL };
	struct sess_options o = options_for(argv);
	struct sess_result res = { 0 };
	struct repro_err *err = NULL;

	if (sess_run(&o, NULL, 0, &res, &err) == 0) {
		sess_result_release(&res);
		return unlink(output) == 0;
	}
	fprintf(stderr, "skip: cannot record here: %s (%s)\n", err->msg, strerror(err->errnum));
	repro_err_free(&err);
	return false;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_exit_status),
		cmocka_unit_test(test_session_failed_open),
		cmocka_unit_test(test_session_policy_imposes),
		cmocka_unit_test(test_session_not_in_path),
		cmocka_unit_test(test_session_bad_output_is_error),
	};
	int rc;

	if (mkdtemp(dir) == NULL)
		return 1;
	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	rc = can_record() ? cmocka_run_group_tests(tests, NULL, NULL) : SKIP_RETURN;
	(void)nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}
