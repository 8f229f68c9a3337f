/*
 * Unit tests of sweep/sweep.h: the classes of outcomes made by hand, the
 * first stderr line, shards, --merge and JUnit of documents made by hand,
 * the words of its options, the whole pipeline on a real program without
 * the cli (a working run of `sh -c 'cat app.conf'` through the command
 * runner, its plan, a sweep of it), and the runner, scheduler and classes
 * with a stand-in for the recording.
 */
#include "common/fdutil.h"
#include "tests/unit/bundles/fixture.h"
#include "recorder/systab.h"
#include "replayer/policies/inject.h"
#include "replayer/policies/rules.h"
#include "session/session.h"
#include "replayer/sweep/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
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

static struct swp_fault file_fault(char *target, int errnum)
{
	return (struct swp_fault){ .id = "x",
				   .rule = "x",
				   .target = target,
				   .fault = "ENOENT",
				   .area = SWP_FILE,
				   .errnum = errnum };
}

static enum swp_class class_of(const struct swp_fault *f, int status, const char *err,
			       long long fired, bool timed_out)
{
	struct swp_outcome o = { .ran = true,
				 .has_exit = true,
				 .wait_status = status,
				 .timed_out = timed_out,
				 .fired = fired,
				 .stderr_text = (char *)err };

	return swp_classify(f, &o);
}

static void test_classes(void **state)
{
	struct swp_fault f = file_fault("/srv/app/app.conf", ENOENT);
	struct swp_fault net = { .id = "x",
				 .rule = "x",
				 .target = "[::1]:8080",
				 .fault = "x",
				 .area = SWP_NETWORK,
				 .errnum = ECONNREFUSED };
	struct swp_fault dns = { .id = "x",
				 .rule = "x",
				 .target = "cdn.example.com",
				 .fault = "NXDOMAIN",
				 .area = SWP_DNS };

	(void)state;
	assert_int_equal(class_of(&f, 1 << 8, "x", 0, false), SWP_NOT_REACHED);
	assert_int_equal(class_of(&f, 0, "", 1, true), SWP_HUNG);
	assert_int_equal(class_of(&f, SIGSEGV, "", 1, false), SWP_CRASHED);
	assert_int_equal(class_of(&f, 0, "started", 1, false), SWP_CARRIED_ON);
	assert_int_equal(class_of(&f, 1 << 8, " \n\t\n", 1, false), SWP_SILENT);
	/* the path, its file name or the errno's message, in any case */
	assert_int_equal(class_of(&f, 1 << 8, "cannot open /srv/app/app.conf", 1, false),
			 SWP_CLEAN);
	assert_int_equal(class_of(&f, 1 << 8, "config APP.CONF missing", 1, false), SWP_CLEAN);
	assert_int_equal(class_of(&f, 1 << 8, "error: No such file or directory", 1, false),
			 SWP_CLEAN);
	assert_int_equal(class_of(&f, 1 << 8, "startup failed", 1, false), SWP_VAGUE);
	/* an address without its port and brackets; a resolver's words for a name */
	assert_int_equal(class_of(&net, 1 << 8, "cannot reach ::1", 1, false), SWP_CLEAN);
	assert_int_equal(class_of(&net, 1 << 8, "backend down", 1, false), SWP_VAGUE);
	assert_int_equal(class_of(&dns, 1 << 8, "Name or service not known", 1, false), SWP_CLEAN);
	assert_int_equal(class_of(&dns, 1 << 8, "model load failed", 1, false), SWP_VAGUE);
	assert_string_equal(swp_class_name(SWP_CARRIED_ON), "carried-on");
	assert_int_equal(swp_class_parse("not-reached"), SWP_NOT_REACHED);
	assert_int_equal(swp_class_parse("fine"), -1);
}

static void test_first_line(void **state)
{
	char *s;
	char long_line[400];

	(void)state;
	s = swp_first_line("\n  \nfirst\nsecond\n");
	assert_string_equal(s, "first");
	free(s);
	s = swp_first_line("Traceback (most recent call last):\n  File \"x\", line 1\n"
			   "ConnectionRefusedError: [Errno 111] Connection refused\n\n");
	assert_string_equal(s, "ConnectionRefusedError: [Errno 111] Connection refused");
	free(s);
	s = swp_first_line(NULL);
	assert_string_equal(s, "");
	free(s);
	memset(long_line, 'a', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	s = swp_first_line(long_line);
	assert_int_equal(strlen(s), 200);
	free(s);
}

static void test_shard(void **state)
{
	struct swp_plan p = { 0 };
	const char *ids[] = { "a", "b", "c", "d", "e" };

	(void)state;
	p.n = 5;
	p.v = calloc(5, sizeof(*p.v));
	for (size_t i = 0; i < 5; i++)
		p.v[i] = (struct swp_fault){ .id = strdup(ids[i]),
					     .rule = strdup("r"),
					     .target = strdup("t"),
					     .fault = strdup("f") };
	swp_plan_shard(&p, 2, 2);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.v[0].id, "b");
	assert_string_equal(p.v[1].id, "d");
	swp_plan_release(&p);
}

static json_t *run(const char *id, const char *class, const char *err)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:{s:i},s:s,s:I}", "id", id, "rule", "r", "area",
			 "file", "target", "t", "class", class, "exit", "code", 1, "stderr", err,
			 "duration_ns", (json_int_t)1500000000);
}

static char *write_doc(json_t *runs, const char *name)
{
	static char path[64];
	json_t *cmd = json_pack("[s]", "true");
	json_t *doc = swp_report_json(cmd, "1/2", 3, runs);

	snprintf(path, sizeof(path), "/tmp/repro-test-sweep-%d-%s.json", (int)getpid(), name);
	assert_int_equal(json_dump_file(doc, path, 0), 0);
	json_decref(doc);
	json_decref(cmd);
	return strdup(path);
}

/* A program's stderr in the JUnit report is text: no control or bidi character gets through. */
static void test_junit_hostile_stderr(void **state)
{
	json_t *runs = json_array();
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	json_array_append_new(
		runs, run("x fault", "vague", "a\x1b[31mred\x7f \xc2\x9b \xe2\x80\xae<b>\nline 2"));
	assert_int_equal(json_array_size(runs), 1);
	assert_int_equal(swp_report_junit(runs, 1u << SWP_VAGUE, f), 0);
	fclose(f);
	assert_null(strchr(text, '\x1b'));
	assert_null(strchr(text, '\x7f'));
	assert_null(strstr(text, "\xc2\x9b"));
	assert_null(strstr(text, "\xe2\x80\xae"));
	assert_non_null(strstr(text, "&lt;b&gt;\nline 2")); /* markup escaped, lines kept */
	free(text);
	json_decref(runs);
}

static void test_merge_and_junit(void **state)
{
	json_t *a = json_array(), *b = json_array(), *merged, *cmd;
	char *pa, *pb, *text = NULL;
	const char *paths[2];
	size_t npoints, len = 0;
	struct repro_err *err = NULL;
	FILE *f;

	(void)state;
	json_array_append_new(a, run("c fault", "hung", "waiting <forever> & \"ever\""));
	json_array_append_new(a, run("a fault", "clean", "cannot open x"));
	json_array_append_new(b, run("b fault", "vague", "startup failed"));
	json_array_append_new(b, run("a fault", "clean", "cannot open x")); /* met twice */
	pa = write_doc(a, "a");
	pb = write_doc(b, "b");
	paths[0] = pa;
	paths[1] = pb;
	merged = swp_merge(paths, 2, &cmd, &npoints, &err);
	assert_non_null(merged);
	assert_int_equal(json_array_size(merged), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(merged, 0), "id")),
			    "a fault");
	assert_string_equal(json_string_value(json_object_get(json_array_get(merged, 2), "id")),
			    "c fault");
	assert_int_equal(npoints, 3);
	assert_true(swp_fails(merged, 1u << SWP_HUNG));
	assert_false(swp_fails(merged, 1u << SWP_CRASHED));
	f = open_memstream(&text, &len);
	assert_int_equal(swp_report_junit(merged, 1u << SWP_HUNG | 1u << SWP_VAGUE, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "tests=\"3\" failures=\"2\""));
	assert_non_null(strstr(text, "waiting &lt;forever&gt; &amp; &quot;ever&quot;"));
	assert_non_null(
		strstr(text, "classname=\"repro.sweep.file\" name=\"a fault\" time=\"1.500\""));
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	swp_report_text(merged, f);
	fclose(f);
	assert_non_null(strstr(text, "clean 1, vague 1, hung 1; 3 faults, 3 distinct behaviours"));
	free(text);
	json_decref(merged);
	json_decref(cmd);
	/* not a sweep document: one error naming it */
	paths[1] = "/nonexistent/x.json";
	assert_null(swp_merge(paths, 2, &cmd, &npoints, &err));
	assert_non_null(err);
	repro_err_free(&err);
	unlink(pa);
	unlink(pb);
	free(pa);
	free(pb);
	json_decref(a);
	json_decref(b);
}

/* ---- the pipeline on a real program ---- */

static char dir[] = "/tmp/repro-test-sweep.XXXXXX"; /* the program's, its cwd */
/* the runs' own directories: outside the overlaid cwd, as a sweep's are in $TMPDIR */
static char runs_dir[] = "/tmp/repro-test-sweep-runs.XXXXXX";

/* The command of the pipeline: `sh -c 'cat app.conf'` in dir. */
static char *const cat_argv[] = { "/bin/sh", "-c", "cat app.conf", NULL };

static const char *class_in(json_t *runs, const char *id)
{
	size_t i;
	json_t *r;

	json_array_foreach (runs, i, r)
		if (strcmp(json_string_value(json_object_get(r, "id")), id) == 0)
			return json_string_value(json_object_get(r, "class"));
	return NULL;
}

static void test_pipeline(void **state)
{
	struct swp_command c = { .argv = cat_argv };
	struct swp_runner runner = swp_command_runner(&c);
	char base_dir[96], bundle[96], conf[96], id[160];
	struct swp_run_req req = { .dir = base_dir, .bundle = bundle };
	struct swp_outcome out;
	struct swp_plan plan;
	struct swp_plan_opts po = { .areas = SWP_FILE };
	struct swp_sweep_opts so = { .jobs = 2,
				     .time_limit_ns = 20000000000ull,
				     .work_dir = runs_dir };
	struct repro_err *err = NULL;
	json_t *runs = NULL;
	FILE *f;

	(void)state;
	snprintf(base_dir, sizeof(base_dir), "%s/base", runs_dir);
	snprintf(bundle, sizeof(bundle), "%s/base.repro", runs_dir);
	snprintf(conf, sizeof(conf), "%s/app.conf", dir);
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs("port=80\n", f);
	fclose(f);
	assert_int_equal(swp_run_one(&runner, &req, &out, NULL, NULL, &err), 0);
	if (out.error != NULL || !out.has_exit) {
		swp_outcome_release(&out);
		skip(); /* the tracer cannot run here */
	}
	assert_int_equal(WEXITSTATUS(out.wait_status), 0);
	assert_string_equal(out.stderr_text, "");
	swp_outcome_release(&out);
	assert_int_equal(swp_plan_read(bundle, &po, &plan, &err), 0);
	snprintf(id, sizeof(id), "ENOENT read %s", conf);
	assert_true(plan.n >= 3); /* ENOENT, EACCES, EIO on app.conf at least */
	assert_int_equal(swp_sweep_run(&plan, &runner, &so, &runs, &err), 0);
	assert_int_equal(json_array_size(runs), plan.n);
	assert_string_equal(class_in(runs, id), "clean"); /* "cat: app.conf: No such file …" */
	snprintf(id, sizeof(id), "EIO read %s", conf);
	assert_string_equal(class_in(runs, id), "clean");
	json_decref(runs);
	swp_plan_release(&plan);
	unlink(bundle);
	unlink(conf);
	rmdir(base_dir);
}

/* ---- the runner with a stand-in for the recording ---- */

/*
 * The stand-in: no process is made; the "program" fails with exit 1 and
 * says which rule it met, as a program that names its file would, when
 * a rule is given, and exits 0 without one (the working run).
 */
static int fake_run(void *ctx, const struct rpl_run_opts *o, struct sess_result *res,
		    struct repro_err **err)
{
	(void)ctx;
	(void)err;
	res->has_exit = true;
	res->duration_ns = 1000000;
	if (o->rules != NULL && rpl_rules_count(o->rules) > 0) {
		fprintf(stderr, "app: cannot read %s: No such file or directory\n",
			strstr(o->sess->argv[2], "app.conf") != NULL ? "app.conf" : "?");
		res->wait_status = 1 << 8;
	}
	return 0;
}

static void test_fake_runner(void **state)
{
	struct rpl_runner fake = { .run = fake_run };
	struct swp_command c = { .argv = cat_argv, .runner = &fake };
	struct swp_runner runner = swp_command_runner(&c);
	struct swp_baseline_opts bo = { .work_dir = runs_dir };
	struct swp_fault faults[2] = {
		{ .id = "ENOENT read app.conf",
		  .rule = "openat:error=ENOENT:path=*/app.conf",
		  .target = "/srv/app.conf",
		  .fault = "ENOENT",
		  .area = SWP_FILE,
		  .errnum = ENOENT },
		{ .id = "bad rule",
		  .rule = "openat:error=NOSUCHERRNO",
		  .target = "/srv/x",
		  .fault = "EIO",
		  .area = SWP_FILE,
		  .errnum = EIO },
	};
	struct swp_plan plan = { .v = faults, .n = 2, .npoints = 2 };
	struct swp_sweep_opts so = { .jobs = 2,
				     .time_limit_ns = 20000000000ull,
				     .work_dir = runs_dir };
	struct repro_err *err = NULL;
	char *bundle = NULL;
	uint64_t dur = 0;
	bool kept = true;
	json_t *runs = NULL;

	(void)state;
	assert_int_equal(swp_baseline(&runner, &bo, &bundle, &dur, &kept, &err), 0);
	assert_int_equal(dur, 1000000);
	assert_false(kept);
	free(bundle);
	assert_int_equal(swp_sweep_run(&plan, &runner, &so, &runs, &err), 0);
	assert_int_equal(json_array_size(runs), 2);
	assert_string_equal(class_in(runs, "ENOENT read app.conf"), "clean");
	/* a rule the runner refuses is the run's error, repro's trouble: not the program's */
	assert_string_equal(class_in(runs, "bad rule"), "error");
	json_decref(runs);
}

/*
 * The stand-in of a whole sweep: the working run (no rule) writes a
 * bundle in which the program read /srv/app/app.conf, and exits
 * fake_status; a run with a rule fails naming app.conf (fake_run()).
 */
static int fake_status;

static int fake_recording(void *ctx, const struct rpl_run_opts *o, struct sess_result *res,
			  struct repro_err **err)
{
	static const char *const members[] = {
		"manifest.json",
		"{\"format\":\"repro-bundle\",\"version\":1,\"argv\":[\"/bin/sh\",\"-c\","
		"\"cat app.conf\"],\"cwd\":\"/srv/app\",\"duration_ns\":1000000,\"exit\":{\"code\":0},"
		"\"options\":{\"net\":\"host\"},\"members\":[\"manifest.json\",\"processes.jsonl\","
		"\"files.jsonl\"]}",
		"processes.jsonl",
		"{\"pid\":101,\"ppid\":0,\"execs\":[{\"t_ns\":1000,\"path\":\"/bin/sh\",\"argv\":"
		"[\"/bin/sh\",\"-c\",\"cat app.conf\"]}],\"threads\":0,\"start_ns\":0,"
		"\"end_ns\":1000000,\"exit\":{\"code\":0}}\n",
		"files.jsonl",
		"{\"path\":\"/srv/app/app.conf\",\"ops\":[\"read\"],\"first\":\"ok\",\"last\":\"ok\","
		"\"calls\":1,\"meta\":{\"type\":\"file\",\"size\":8}}\n",
		NULL
	};

	if (o->rules != NULL && rpl_rules_count(o->rules) > 0)
		return fake_run(ctx, o, res, err);
	fx_write_bundle(o->sess->output, members);
	res->has_exit = true;
	res->duration_ns = 1000000;
	res->wait_status = fake_status << 8;
	res->bundle_path = strdup(o->sess->output);
	return 0;
}

struct notices_seen {
	size_t calls, skipped;
};

static void count_notices(void *ctx, const struct swp_sweep_notices *n)
{
	struct notices_seen *seen = ctx;

	seen->calls++;
	seen->skipped += n->skipped;
}

/* Whether folder holds an entry whose name starts with prefix. */
static bool holds(const char *folder, const char *prefix)
{
	DIR *d = opendir(folder);
	struct dirent *e;
	bool found = false;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		found = found || strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return found;
}

/* A whole sweep (swp_sweep()): the working run's plan, its runs, the notices, nothing left. */
static void test_whole_sweep(void **state)
{
	static const char *const enoent[] = { "ENOENT", NULL };
	struct rpl_runner fake = { .run = fake_recording };
	struct notices_seen seen = { 0 };
	struct swp_sweep_request rq = { .argv = cat_argv,
					.tmp_dir = runs_dir,
					.areas = SWP_FILE,
					.faults = enoent,
					.jobs = 2,
					.before = count_notices,
					.ctx = &seen,
					.runner = &fake };
	struct swp_sweep_result r;
	struct repro_err *err = NULL;

	(void)state;
	fake_status = 0;
	if (swp_sweep(&rq, &r, &err) < 0)
		fail_msg("swp_sweep: %s", err->msg);
	assert_int_equal(seen.calls, 1);
	assert_int_equal(seen.skipped, 0);
	assert_int_equal(r.npoints, 1);
	assert_int_equal(json_array_size(r.runs), 1);
	assert_string_equal(class_in(r.runs, "ENOENT read /srv/app/app.conf"), "clean");
	assert_int_equal(json_array_size(r.command), 3);
	assert_false(r.kept_work);
	assert_false(holds(runs_dir, "repro-sweep."));
	swp_sweep_result_release(&r);
}

/* A working run that fails ends the sweep before any fault: its bundle kept and named. */
static void test_whole_sweep_failing_start(void **state)
{
	struct rpl_runner fake = { .run = fake_recording };
	struct swp_sweep_request rq = {
		.argv = cat_argv, .tmp_dir = runs_dir, .jobs = 1, .runner = &fake
	};
	struct swp_sweep_result r;
	struct repro_err *err = NULL;

	(void)state;
	fake_status = 1;
	assert_int_equal(swp_sweep(&rq, &r, &err), -1);
	assert_non_null(strstr(err->msg, "the working run failed (exit 1"));
	assert_non_null(strstr(err->msg, "repro explain"));
	assert_true(r.kept_work);
	assert_null(r.runs);
	assert_true(holds(runs_dir, "repro-sweep."));
	repro_err_free(&err);
}

/* The words of a sweep's options: areas, classes, shards. */
static void test_words(void **state)
{
	struct repro_err *err = NULL;
	unsigned bits = 0, k = 0, n = 0;

	(void)state;
	assert_int_equal(swp_areas_parse("file,dns", &bits, &err), 0);
	assert_int_equal(bits, SWP_FILE | SWP_DNS);
	assert_int_equal(swp_areas_parse("file,disk", &bits, &err), -1);
	assert_non_null(strstr(err->msg, "unknown area 'disk'"));
	repro_err_free(&err);
	assert_int_equal(swp_classes_parse("crashed,hung", &bits, &err), 0);
	assert_int_equal(bits, 1u << SWP_CRASHED | 1u << SWP_HUNG);
	assert_int_equal(swp_classes_parse("crashed,slow", &bits, &err), -1);
	repro_err_free(&err);
	assert_int_equal(swp_shard_parse("2/3", &k, &n, &err), 0);
	assert_int_equal(k * 10 + n, 23);
	assert_int_equal(swp_shard_parse("4/3", &k, &n, &err), -1);
	repro_err_free(&err);
	assert_int_equal(swp_shard_parse("1/3x", &k, &n, &err), -1);
	repro_err_free(&err);
}

static int setup(void **state)
{
	(void)state;
	if (mkdtemp(dir) == NULL || mkdtemp(runs_dir) == NULL || chdir(dir) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	repro_remove_tree(runs_dir);
	repro_remove_tree(dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_first_line),
		cmocka_unit_test(test_shard),
		cmocka_unit_test(test_merge_and_junit),
		cmocka_unit_test(test_junit_hostile_stderr),
		cmocka_unit_test(test_pipeline),
		cmocka_unit_test(test_fake_runner),
		cmocka_unit_test(test_whole_sweep),
		cmocka_unit_test(test_whole_sweep_failing_start),
		cmocka_unit_test(test_words),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, setup, teardown);
}
