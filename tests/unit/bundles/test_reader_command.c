/*
 * One command per bundle (docs/bundle-format.md "manifest.json"): the
 * reader refuses a bundle whose manifest.json "argv" is not the first
 * process's first exec, in every walk of the archive, in one pass.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "bundles/json_util.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "fixture.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static int setup(void **state)
{
	*state = fx_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	fx_rmtree(*state);
	free(*state);
	return 0;
}

#define MEMBERS "\"members\":[\"manifest.json\",\"host.json\",\"processes.jsonl\",\"events.jsonl\"]"

/*
 * A bundle in dir whose manifest has argv (JSON text; NULL: no "argv") and
 * whose processes.jsonl is procs.  Returns its path (caller frees).
 */
static char *bundle(const char *dir, const char *argv, const char *procs)
{
	char *path = repro_xasprintf("%s/b.repro", dir);
	cleanup_free char *manifest =
		argv != NULL
			? repro_xasprintf("{\"format\":\"repro-bundle\",\"version\":1,"
					  "\"argv\":%s," MEMBERS "}",
					  argv)
			: repro_xstrdup("{\"format\":\"repro-bundle\",\"version\":1," MEMBERS "}");
	const char *members[] = { "manifest.json",
				  manifest,
				  "host.json",
				  "{\"hostname\":\"h\"}",
				  "processes.jsonl",
				  procs,
				  "events.jsonl",
				  "{\"seq\":1,\"pid\":1,\"syscall\":\"openat\"}\n",
				  NULL };

	fx_write_bundle(path, members);
	return path;
}

/* A first process whose first exec has argv (JSON text), then a second process. */
static char *procs_with(const char *exec_argv)
{
	return repro_xasprintf("{\"pid\":1,\"ppid\":0,\"execs\":[{\"t_ns\":1,\"path\":\"/bin/x\","
			       "\"argv\":%s},{\"t_ns\":2,\"path\":\"/bin/y\",\"argv\":[\"y\"]}]}\n"
			       "{\"pid\":2,\"ppid\":1}\n",
			       exec_argv);
}

static int count_line(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	(void)obj;
	(void)lineno;
	(void)err;
	++*(size_t *)ctx;
	return 0;
}

/* Walk processes.jsonl and finish: 0, or -1 with *err. */
static int walk(const char *path, size_t *lines, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = bndl_reader_open(path, err);

	if (r == NULL)
		fail_msg("open '%s': %s", path, (*err)->msg);
	if (bndl_reader_foreach(r, "processes.jsonl", count_line, lines, err) < 0)
		return -1;
	return bndl_reader_finish(r, err);
}

static void assert_refused(const struct repro_err *err, const char *path, size_t lineno)
{
	cleanup_free char *want = repro_xasprintf(
		"'%s' is not a consistent repro bundle: manifest.json \"argv\" is not the first "
		"process's first exec (processes.jsonl line %zu)",
		path, lineno);

	assert_non_null(err);
	assert_int_equal(err->errnum, EPROTO);
	assert_string_equal(err->msg, want);
}

static void expect_ok(const char *dir, const char *argv, const char *procs)
{
	cleanup_free char *path = bundle(dir, argv, procs);
	cleanup_err struct repro_err *err = NULL;
	size_t lines = 0;

	if (walk(path, &lines, &err) < 0)
		fail_msg("argv %s, processes %s: %s", argv, procs, err->msg);
	assert_int_equal(lines, 2);
}

static void expect_refused(const char *dir, const char *argv, const char *procs)
{
	cleanup_free char *path = bundle(dir, argv, procs);
	cleanup_err struct repro_err *err = NULL;
	size_t lines = 0;

	assert_int_equal(walk(path, &lines, &err), -1);
	assert_refused(err, path, 1);
	assert_int_equal(lines, 0); /* refused before the first line reaches the command */
}

static void test_reader_command_consistent(void **state)
{
	cleanup_free char *procs = procs_with("[\"ls\",\"--password=<redacted>\",\"/\"]");

	expect_ok(*state, "[\"ls\",\"--password=<redacted>\",\"/\"]", procs);
}

static void test_reader_command_inconsistent(void **state)
{
	cleanup_free char *procs = procs_with("[\"true\"]");
	cleanup_free char *longer = procs_with("[\"ls\",\"/\",\"x\"]");
	cleanup_free char *not_array = procs_with("\"ls /\"");

	expect_refused(*state, "[\"rm\",\"-rf\",\"/tmp/x\"]", procs);
	expect_refused(*state, "[\"ls\",\"/\"]", longer);
	expect_refused(*state, "[\"ls\",\"/\"]", not_array);
	expect_refused(*state, "\"ls /\"", longer);
}

/* Nothing to compare: a command that could not be executed, an older bundle. */
static void test_reader_command_no_exec(void **state)
{
	cleanup_free char *procs = procs_with("[\"ls\"]");

	expect_ok(*state, "[\"nosuchcmd\"]", "{\"pid\":1,\"ppid\":0,\"execs\":[]}\n{\"pid\":2}\n");
	expect_ok(*state, "[\"nosuchcmd\"]", "{\"pid\":1,\"ppid\":0}\n{\"pid\":2}\n");
	expect_ok(*state, "[\"x\"]",
		  "{\"pid\":1,\"execs\":[{\"path\":\"/bin/x\"}]}\n{\"pid\":2}\n");
	expect_ok(*state, NULL, procs);
	expect_ok(*state, "null", procs);
}

/* A "#!" script as /proc/PID/cmdline shows it, a file /bin/sh ran after ENOEXEC. */
static void test_reader_command_interpreter(void **state)
{
	static const char *const ok[][2] = {
		{ "[\"./s.sh\",\"a\"]", "[\"/bin/sh\",\"./s.sh\",\"a\"]" },
		{ "[\"prog\",\"a\"]", "[\"/bin/sh\",\"/usr/local/bin/prog\",\"a\"]" },
		{ "[\"./env.sh\"]", "[\"/usr/bin/env\",\"-S sh -e\",\"./env.sh\"]" },
	};
	static const char *const refused[][2] = {
		{ "[\"prog\",\"a\"]", "[\"/bin/sh\",\"/x/evil\",\"a\"]" },
		{ "[\"prog\",\"a\"]", "[\"/bin/sh\",\"/x/notprog\",\"a\"]" },
		{ "[\"./s.sh\",\"a\"]", "[\"/bin/sh\",\"/x/s.sh\",\"a\"]" },
		{ "[\"./s.sh\",\"a\"]", "[\"/bin/sh\",\"./s.sh\",\"b\"]" },
		{ "[\"./s.sh\",\"a\"]", "[\"a\",\"b\",\"c\",\"./s.sh\",\"a\"]" },
		{ "[\"./s.sh\",\"a\"]", "[1,\"./s.sh\",\"a\"]" },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cleanup_free char *procs = procs_with(ok[i][1]);

		expect_ok(*state, ok[i][0], procs);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cleanup_free char *procs = procs_with(refused[i][1]);

		expect_refused(*state, refused[i][0], procs);
	}
}

/* A walk that never reads processes.jsonl still checks it on its way past. */
static void test_reader_command_passed(void **state)
{
	cleanup_free char *procs = procs_with("[\"true\"]");
	cleanup_free char *path = bundle(*state, "[\"rm\",\"x\"]", procs);
	cleanup_err struct repro_err *err = NULL, *err2 = NULL;
	cleanup_reader struct bndl_reader *r = bndl_reader_open(path, &err);
	cleanup_reader struct bndl_reader *r2 = bndl_reader_open(path, &err2);
	size_t lines = 0;

	assert_non_null(r);
	assert_int_equal(bndl_reader_foreach(r, "events.jsonl", count_line, &lines, &err), -1);
	assert_refused(err, path, 1);
	assert_int_equal(lines, 0);
	assert_non_null(r2);
	assert_int_equal(bndl_reader_finish(r2, &err2), -1);
	assert_refused(err2, path, 1);
}

/* After host.json, before anything is acted on: forward, in the one pass. */
static void test_reader_command_check(void **state)
{
	cleanup_free char *good = procs_with("[\"ls\"]");
	cleanup_free char *path = bundle(*state, "[\"ls\"]", good);
	cleanup_err struct repro_err *err = NULL;
	cleanup_reader struct bndl_reader *r = bndl_reader_open(path, &err);
	cleanup_json json_t *host = NULL;
	size_t lines = 0;

	assert_non_null(r);
	host = bndl_reader_load(r, "host.json", &err);
	assert_non_null(host);
	assert_int_equal(bndl_reader_check_command(r, &err), 0);
	assert_int_equal(bndl_reader_check_command(r, &err), 0);
	assert_int_equal(bndl_reader_foreach(r, "events.jsonl", count_line, &lines, &err), 0);
	assert_int_equal(bndl_reader_finish(r, &err), 0);
	assert_int_equal(lines, 1);
	assert_int_equal(bndl_reader_passes(r), 1);
}

static void test_reader_command_check_refuses(void **state)
{
	cleanup_free char *bad = procs_with("[\"true\"]");
	cleanup_free char *path = bundle(*state, "[\"ls\"]", bad);
	cleanup_err struct repro_err *err = NULL;
	cleanup_reader struct bndl_reader *r = bndl_reader_open(path, &err);
	cleanup_json json_t *host = NULL;

	assert_non_null(r);
	host = bndl_reader_load(r, "host.json", &err);
	assert_non_null(host);
	assert_int_equal(bndl_reader_check_command(r, &err), -1);
	assert_refused(err, path, 1);
	assert_int_equal(bndl_reader_passes(r), 1);
}

static int skip_all(void *ctx, const char *line, size_t len, size_t lineno)
{
	(void)ctx;
	(void)line;
	(void)len;
	(void)lineno;
	return 0;
}

/* A filter that skips the first record does not skip its check; nor does an empty line. */
static void test_reader_command_filtered(void **state)
{
	cleanup_free char *path = bundle(
		*state, "[\"ls\"]", "\n{\"pid\":1,\"ppid\":0,\"execs\":[{\"argv\":[\"sh\"]}]}\n");
	cleanup_err struct repro_err *err = NULL;
	cleanup_reader struct bndl_reader *r = bndl_reader_open(path, &err);
	size_t lines = 0;

	assert_non_null(r);
	assert_int_equal(bndl_reader_foreach_filtered(r, "processes.jsonl", skip_all, count_line,
						      &lines, &err),
			 -1);
	assert_refused(err, path, 2);
	assert_int_equal(lines, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reader_command_consistent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_command_inconsistent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_command_no_exec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_command_interpreter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_command_passed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_command_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_command_check_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_command_filtered, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
