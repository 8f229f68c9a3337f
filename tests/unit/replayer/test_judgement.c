/*
 * Unit tests of the readers' judgement: explain's ranking (docs/explain.md
 * "Ranking": which failure comes first), diff's most likely cause
 * (docs/diff.md), what replay imposes and its verdict (docs/replay.md,
 * with a stand-in for the run), on bundles
 * synthesised here (fx_write_bundle), each case
 * one general behaviour, so that a wrong weight fails here and not only on
 * the corpus.
 */
#include "fixture.h"
#include "replayer/readers/diff.h"
#include "replayer/readers/explain.h"
#include "replayer/replay/replay.h"
#include "replayer/policies/rules.h"

#include <errno.h>

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define APP "/srv/app"

/* A manifest for argv "bash start.sh" that ended with code; with_output: output.jsonl is a member. */
static char *manifest(int code, bool with_output)
{
	char *m = NULL;

	if (asprintf(&m,
		     "{\"format\":\"repro-bundle\",\"version\":1,\"tool\":\"repro 0.1.0\","
		     "\"argv\":[\"bash\",\"start.sh\"],\"cwd\":\"" APP "\","
		     "\"started_at\":\"2026-12-04T10:00:00Z\",\"duration_ns\":900000000,"
		     "\"exit\":{\"code\":%d},\"options\":{\"trace\":\"file,network,process\","
		     "\"net\":\"host\",\"sandbox\":\"none\"},\"counts\":{\"events\":0,\"failed\":0,"
		     "\"processes\":2},\"incomplete\":false,\"dropped\":null,\"warnings\":[],"
		     "\"redacted\":[],\"members\":[\"manifest.json\",\"host.json\","
		     "\"processes.jsonl\",\"events.jsonl\",\"files.jsonl\",%s\"trace.txt\"]}",
		     code, with_output ? "\"output.jsonl\"," : "") < 0)
		abort();
	return m;
}

/* bash (pid 100) starts python3 app.py (pid 101), which ends with child_code. */
static char *processes(int child_code)
{
	char *p = NULL;

	if (asprintf(
		    &p,
		    "{\"pid\":100,\"ppid\":0,\"execs\":[{\"t_ns\":1000,\"path\":\"/usr/bin/bash\","
		    "\"argv\":[\"bash\",\"start.sh\"]}],\"threads\":0,\"start_ns\":0,"
		    "\"end_ns\":900000000,\"exit\":{\"code\":1}}\n"
		    "{\"pid\":101,\"ppid\":100,\"execs\":[{\"t_ns\":2000,\"path\":\"/usr/bin/python3\","
		    "\"argv\":[\"python3\",\"app.py\"]}],\"threads\":0,\"start_ns\":1500,"
		    "\"end_ns\":800000000,\"exit\":{\"code\":%d}}\n",
		    child_code) < 0)
		abort();
	return p;
}

static const char host[] = "{\"uid\":995,\"gid\":994,\"groups\":[994],"
			   "\"capabilities\":{\"effective\":\"\"}}";

/*
 * write_at: a bundle at path; write_run: dir/name (returned, the caller
 * frees).  Of events (JSON lines) and files (files.jsonl
 * lines) whose run and python3 ended with code and child_code.  Returns
 * its path (the caller frees).
 */
static void write_at_said(const char *path, const char *events, const char *files,
			  const char *output, int code, int child_code)
{
	char *m = manifest(code, output != NULL), *p = processes(child_code);
	/* name, text pairs in the registry's order (bundles/members.h) */
	const char *members[] = {
		"manifest.json",
		m,
		"host.json",
		host,
		"processes.jsonl",
		p,
		"events.jsonl",
		events,
		"files.jsonl",
		files,
		output != NULL ? "output.jsonl" : "trace.txt",
		output != NULL ? output : "",
		output != NULL ? "trace.txt" : NULL,
		"",
		NULL,
	};

	fx_write_bundle(path, members);
	free(m);
	free(p);
}

/* write_at_said without output.jsonl. */
static void write_at(const char *path, const char *events, const char *files, int code,
		     int child_code)
{
	write_at_said(path, events, files, NULL, code, child_code);
}

static char *write_run(const char *dir, const char *name, const char *events, const char *files,
		       int code, int child_code)
{
	char *path = NULL;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	write_at(path, events, files, code, child_code);
	return path;
}

/*
 * A bundle of events and files whose run and python3 ended with code and
 * child_code, explained as JSON: its findings (a new reference).
 */
static json_t *explain_said(const char *events, const char *files, const char *output, int code,
			    int child_code)
{
	char *dir = fx_tmpdir(), *text = NULL, *path = NULL;
	struct rpl_explain_opts o = { .json = true };
	struct repro_err *err = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	json_t *doc, *findings;

	if (asprintf(&path, "%s/b.repro", dir) < 0)
		abort();
	write_at_said(path, events, files, output, code, child_code);
	o.bundle_path = path;
	if (rpl_explain_run(&o, out, &err) < 0)
		fail_msg("explain: %s", err->msg);
	fclose(out);
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	findings = json_incref(json_object_get(doc, "findings"));
	json_decref(doc);
	fx_rmtree(dir);
	free(dir);
	free(path);
	free(text);
	return findings;
}
/* explain_said without output.jsonl. */
static json_t *explain(const char *events, const char *files, int code, int child_code)
{
	return explain_said(events, files, NULL, code, child_code);
}

/* diff --json of two runs (working a, broken b): its "cause" (a new reference, or NULL). */
static json_t *diff_cause(const char *a_events, const char *b_events, const char *b_files)
{
	char *dir = fx_tmpdir(), *text = NULL;
	char *a = write_run(dir, "a.repro", a_events, "", 0, 0);
	char *b = write_run(dir, "b.repro", b_events, b_files, 1, 1);
	struct rpl_diff_opts o = { .a_path = a, .b_path = b, .json = true };
	struct repro_err *err = NULL;
	bool differ = false;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	json_t *doc, *cause;

	if (rpl_diff_run(&o, out, &differ, &err) < 0)
		fail_msg("diff: %s", err->msg);
	fclose(out);
	assert_true(differ);
	doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	cause = json_incref(json_object_get(doc, "cause"));
	json_decref(doc);
	fx_rmtree(dir);
	free(dir);
	free(a);
	free(b);
	free(text);
	return cause;
}

/* Finding i's path (NULL when it has none or there is no finding i). */
static const char *path_of(json_t *findings, size_t i)
{
	return json_string_value(json_object_get(json_array_get(findings, i), "path"));
}

/* An openat event of pid 101 at t_ns on path with flags and errno; op given or left out. */
static char *open_event(int seq, long long t_ns, const char *path, const char *flags,
			const char *errname, const char *op)
{
	char *e = NULL, opkey[32] = "";

	if (op != NULL)
		snprintf(opkey, sizeof(opkey), "\"op\":\"%s\",", op);
	if (asprintf(&e,
		     "{\"seq\":%d,\"t_ns\":%lld,\"dur_ns\":1000,\"pid\":101,\"tid\":101,"
		     "\"syscall\":\"openat\",%s\"dirfd\":\"AT_FDCWD\",\"path\":\"%s\","
		     "\"flags\":\"%s\",\"ret\":-1,\"errno\":\"%s\"}\n",
		     seq, t_ns, opkey, path, flags, errname) < 0)
		abort();
	return e;
}

/* files.jsonl record of a path whose folder is root's, mode 0755. */
static char *root_dir_record(const char *path, const char *errname)
{
	char *r = NULL;

	if (asprintf(
		    &r,
		    "{\"path\":\"%s\",\"ops\":[\"create\"],\"first\":\"%s\",\"last\":\"%s\","
		    "\"errno\":\"%s\",\"calls\":1,\"meta\":null,\"ancestors\":[{\"path\":\"" APP
		    "/cache\",\"meta\":{\"type\":\"dir\",\"mode\":\"0755\",\"uid\":0,\"gid\":0}}]}\n",
		    path, errname, errname, errname) < 0)
		abort();
	return r;
}

static char *concat(const char *a, const char *b)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s", a, b) < 0)
		abort();
	return s;
}

/*
 * A write the system refused (EACCES on create in a folder owned by root)
 * comes before a missing file the program looked for after it, although
 * that one was its last failure: being refused outweighs not finding.
 */
static void test_ranking_denied_create_before_missing_file(void **state)
{
	char *a = open_event(1, 100000, APP "/cache/model.pth",
			     "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC", "EACCES", "create");
	char *b = open_event(2, 200000, APP "/fallback/model.pth", "O_RDONLY|O_CLOEXEC", "ENOENT",
			     "read");
	char *ev = concat(a, b);
	char *files = root_dir_record(APP "/cache/model.pth", "EACCES");
	json_t *f = explain(ev, files, 1, 1);

	assert_true(json_array_size(f) >= 2);
	assert_string_equal(path_of(f, 0), APP "/cache/model.pth");
	assert_string_equal(path_of(f, 1), APP "/fallback/model.pth");
	json_decref(f);
	free(a), free(b), free(ev), free(files);
}

/*
 * The same from a bundle written before events carried "op": the op is
 * taken from the syscall and its flags, and the ranking does not change.
 */
static void test_ranking_without_op_key(void **state)
{
	char *a = open_event(1, 100000, APP "/cache/model.pth",
			     "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC", "EACCES", NULL);
	char *b = open_event(2, 200000, APP "/fallback/model.pth", "O_RDONLY|O_CLOEXEC", "ENOENT",
			     NULL);
	char *ev = concat(a, b);
	char *files = root_dir_record(APP "/cache/model.pth", "EACCES");
	json_t *f = explain(ev, files, 1, 1);

	assert_string_equal(path_of(f, 0), APP "/cache/model.pth");
	/* an open with O_CREAT meant to create, an O_RDONLY one to read */
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "op")),
			    "create");
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 1), "op")), "read");
	json_decref(f);
	free(a), free(b), free(ev), free(files);
}

/*
 * Of two failures of the same kind in a process that failed, the last one
 * before it ended comes first: what it gave up on, not what it looked for
 * and did without.
 */
static void test_ranking_last_failure_first(void **state)
{
	char *a =
		open_event(1, 100000, APP "/optional.conf", "O_RDONLY|O_CLOEXEC", "ENOENT", "read");
	char *b = open_event(2, 700000000, APP "/config.yaml", "O_RDONLY|O_CLOEXEC", "ENOENT",
			     "read");
	char *ev = concat(a, b);
	json_t *f = explain(ev, "", 1, 1);

	/* the later failure, right before the process exited 1 */
	assert_string_equal(path_of(f, 0), APP "/config.yaml");
	json_decref(f);
	free(a), free(b), free(ev);
}

/* Probe noise (a locale catalogue not found) is never a finding, even as the last failure. */
static void test_ranking_probe_noise_set_aside(void **state)
{
	char *a = open_event(1, 100000, APP "/config.yaml", "O_RDONLY|O_CLOEXEC", "ENOENT", "read");
	char *b = open_event(2, 700000000, "/usr/share/locale/C.UTF-8/LC_MESSAGES/python.mo",
			     "O_RDONLY", "ENOENT", "read");
	char *ev = concat(a, b);
	json_t *f = explain(ev, "", 1, 1);

	assert_int_equal(json_array_size(f), 1);
	assert_string_equal(path_of(f, 0), APP "/config.yaml");
	json_decref(f);
	free(a), free(b), free(ev);
}

/*
 * A write the filesystem refused for want of space (events.jsonl "fs": the
 * space when it failed) comes first, before a file the program looked for
 * earlier and did without, and its sentence gives the space at the failure.
 */
static void test_ranking_failed_write_full_disk(void **state)
{
	char *a =
		open_event(1, 100000, APP "/optional.conf", "O_RDONLY|O_CLOEXEC", "ENOENT", "read");
	const char *b = "{\"seq\":2,\"t_ns\":600000000,\"dur_ns\":1000,\"pid\":101,\"tid\":101,"
			"\"syscall\":\"write\",\"fd\":3,\"path\":\"" APP "/cache/w.bin\","
			"\"fs\":{\"free_bytes\":0,\"total_bytes\":65536,\"free_inodes\":10,"
			"\"total_inodes\":12},\"size\":65536,\"count\":134464,\"op\":\"write\","
			"\"ret\":-1,\"errno\":\"ENOSPC\"}\n";
	char *ev = concat(a, b);
	json_t *f = explain(ev, "", 1, 1);
	json_t *first = json_array_get(f, 0), *reason = json_object_get(first, "reason");

	assert_string_equal(path_of(f, 0), APP "/cache/w.bin");
	assert_string_equal(json_string_value(json_object_get(reason, "what")), "disk_full");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(reason, "filesystem"),
							    "total_bytes")),
			 65536);
	assert_non_null(
		strstr(json_string_value(json_object_get(first, "sentence")),
		       "64.0 KiB in all) had 0 bytes and 10 inodes free when the write failed"));
	json_decref(f);
	free(a), free(ev);
}

/* output.jsonl: python3 (pid 101) said text (JSON-escaped), to stderr. */
static char *said_line(const char *text)
{
	char *o = NULL;

	if (asprintf(&o,
		     "{\"pid\":101,\"fds\":[2],\"t_ns\":700000000,\"bytes_written\":%zu,"
		     "\"truncated\":false,\"text\":\"%s\"}\n",
		     strlen(text), text) < 0)
		abort();
	return o;
}

/* files.jsonl record of a regular file that was read: mode, size. */
static char *read_file_record(const char *path, const char *mode, int size)
{
	char *r = NULL;

	if (asprintf(&r,
		     "{\"path\":\"%s\",\"ops\":[\"read\"],\"first\":\"ok\",\"last\":\"ok\","
		     "\"calls\":1,\"meta\":{\"type\":\"file\",\"mode\":\"%s\",\"uid\":0,"
		     "\"gid\":0,\"size\":%d}}\n",
		     path, mode, size) < 0)
		abort();
	return r;
}

/*
 * Nothing failed, the program said why: its words are the finding, with
 * the file they name and that file's mode (sshd's "too open" host key);
 * a file named as a traceback's frame is left out.
 */
static void test_ranking_said_when_nothing_failed(void **state)
{
	char *key = read_file_record(APP "/key.pem", "0644", 411);
	char *code = read_file_record(APP "/main.py", "0644", 900);
	char *files = concat(key, code);
	/* a traceback's frame names the program's own code, not what it was about */
	char *out = said_line("  File \\\"" APP "/main.py\\\", line 3, in <module>\\n"
			      "Permissions 0644 for '" APP "/key.pem' are too open.\\n");
	json_t *f = explain_said("", files, out, 1, 1);
	json_t *first = json_array_get(f, 0);

	assert_int_equal(json_array_size(f), 1);
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(first, "reason"), "files")), 1);
	assert_string_equal(json_string_value(json_object_get(first, "kind")), "said");
	assert_string_equal(path_of(f, 0), APP "/key.pem");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(first, "reason"), "what")),
		"program_said");
	assert_non_null(strstr(json_string_value(json_object_get(first, "sentence")),
			       "(a file of 411 bytes, mode 0644, owner uid 0 gid 0)"));
	json_decref(f);
	free(key), free(code), free(files), free(out);
}

/*
 * A failure the program's words do not name comes after the file they do
 * name (an empty weights file read without error), and a bare word of
 * the message ("model") names no file.
 */
static void test_ranking_said_names_file_over_unnamed_failure(void **state)
{
	char *ev =
		open_event(1, 100000, APP "/optional.conf", "O_RDONLY|O_CLOEXEC", "ENOENT", "read");
	char *rec = read_file_record(APP "/weights.bin", "0644", 0);
	char *model = read_file_record(APP "/model", "0755", 10);
	char *files = concat(model, rec);
	char *out = said_line("model load failed: weights.bin: unexpected end of file\\n");
	json_t *f = explain_said(ev, files, out, 1, 1);
	json_t *first = json_array_get(f, 0);

	assert_string_equal(json_string_value(json_object_get(first, "kind")), "said");
	assert_string_equal(path_of(f, 0), APP "/weights.bin");
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(first, "reason"), "files")), 1);
	assert_non_null(strstr(json_string_value(json_object_get(first, "sentence")),
			       "(an empty file, mode 0644"));
	assert_string_equal(path_of(f, 1), APP "/optional.conf");
	json_decref(f);
	free(ev), free(rec), free(model), free(files), free(out);
}

/*
 * A failure a fault rule imposed comes first, before what it led to: the
 * cause by construction.
 */
static void test_ranking_injected_first(void **state)
{
	char *a = open_event(1, 100000, APP "/data.db", "O_RDONLY|O_CLOEXEC", "EIO", "read");
	char *b = open_event(2, 200000, APP "/cache/model.pth",
			     "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC", "EACCES", "create");
	char *inj = NULL, *ev;
	json_t *f;

	/* the EIO was imposed by rule 1 */
	if (asprintf(&inj, "%.*s,\"injected\":true,\"rule\":1}\n", (int)strlen(a) - 2, a) < 0)
		abort();
	ev = concat(inj, b);
	f = explain(ev, "", 1, 1);
	assert_string_equal(path_of(f, 0), APP "/data.db");
	json_decref(f);
	free(a), free(b), free(inj), free(ev);
}

/* An openat of pid 101 that worked. */
static char *open_ok(int seq, long long t_ns, const char *path)
{
	char *e = NULL;

	if (asprintf(&e,
		     "{\"seq\":%d,\"t_ns\":%lld,\"dur_ns\":1000,\"pid\":101,\"tid\":101,"
		     "\"syscall\":\"openat\",\"op\":\"read\",\"dirfd\":\"AT_FDCWD\","
		     "\"path\":\"%s\",\"flags\":\"O_RDONLY|O_CLOEXEC\",\"ret\":3}\n",
		     seq, t_ns, path) < 0)
		abort();
	return e;
}

/*
 * diff: the call that worked in the working run and failed in the broken
 * one is the cause; a failure both runs share (a probe for an optional
 * file) is not.
 */
static void test_diff_cause_outcome_differs(void **state)
{
	char *probe = open_event(1, 100000, APP "/optional.conf", "O_RDONLY", "ENOENT", "read");
	char *ok = open_ok(2, 200000, APP "/cache/model.pth");
	char *missing = open_event(2, 200000, APP "/cache/model.pth", "O_RDONLY|O_CLOEXEC",
				   "ENOENT", "read");
	char *a = concat(probe, ok), *b = concat(probe, missing);
	json_t *cause = diff_cause(a, b, "");
	const char *text = json_string_value(json_object_get(cause, "text"));

	assert_non_null(text);
	assert_non_null(strstr(text, "model.pth"));
	assert_null(strstr(text, "optional.conf"));
	json_decref(cause);
	free(probe), free(ok), free(missing), free(a), free(b);
}

/*
 * replay: the failures that matter are imposed, probe noise is not; a
 * failure is imposed on the call of the same syscall and path, at the
 * occurrence it failed at.
 */
static void test_replay_plan_imposes_what_matters(void **state)
{
	char *a = open_event(1, 100000, "/usr/share/locale/C.UTF-8/LC_MESSAGES/python.mo",
			     "O_RDONLY", "ENOENT", "read");
	char *ok = open_ok(2, 150000, APP "/config.yaml");
	char *b = open_event(3, 700000000, APP "/config.yaml", "O_RDONLY|O_CLOEXEC", "ENOENT",
			     "read");
	char *ev1 = concat(a, ok), *ev = concat(ev1, b);
	char *dir = fx_tmpdir(), *path = write_run(dir, "b.repro", ev, "", 1, 1);
	struct rpl_replay_opts o = { 0 };
	struct rpl_replay_plan plan;
	struct repro_err *err = NULL;

	if (rpl_replay_plan_read(path, &o, &plan, &err) < 0)
		fail_msg("plan: %s", err->msg);
	assert_int_equal(plan.n, 1);
	assert_non_null(strstr(plan.v[0].what, "config.yaml"));
	assert_int_equal(plan.v[0].nrules, 1);
	/* the second openat of the path, the one that failed */
	assert_non_null(strstr(plan.v[0].rules[0], "openat"));
	assert_non_null(strstr(plan.v[0].rules[0], "error=ENOENT"));
	assert_non_null(strstr(plan.v[0].rules[0], "when=2"));
	assert_int_equal(plan.v[0].norigins[0], 1);
	assert_int_equal(plan.v[0].origins[0][0], 3);
	rpl_replay_plan_release(&plan);
	fx_rmtree(dir);
	free(dir), free(path), free(a), free(ok), free(b), free(ev1), free(ev);
}

/* ---- replay's run and verdict, with a stand-in for the run ---- */

/*
 * The stand-in of a replay's run: no process; its "program" opens the
 * files calls names under dir, in order, each call put to the replay's
 * fault rules as the injection policy puts it, and exits 1 when a rule
 * fired on the file needs names, else with otherwise; the replay's bundle
 * holds events (the calls as a recording would show them).
 */
struct stand_in {
	const char *dir;
	const char *calls[4];
	const char *needs;
	int otherwise;
	const char *events;
	int runs; /* how many runs were made */
};

static int stand_in_run(void *ctx, const struct rpl_run_opts *o, struct sess_result *res,
			struct repro_err **err)
{
	struct stand_in *s = ctx;
	int code = s->otherwise;

	(void)err;
	s->runs++;
	for (size_t i = 0; i < 4 && s->calls[i] != NULL; i++) {
		char *path = NULL;
		struct lnch_call c = { .syscall = "openat", .nr = FX_OPENAT };
		struct rpl_rule_verdict v;

		if (asprintf(&path, "%s/%s", s->dir, s->calls[i]) < 0)
			abort();
		c.path = path;
		if (o->rules != NULL && rpl_rules_match(o->rules, &c, &v) == 1 &&
		    strcmp(s->calls[i], s->needs) == 0)
			code = 1;
		free(path);
	}
	write_at(o->sess->output, s->events, "", code, code);
	res->has_exit = true;
	res->wait_status = code << 8;
	res->bundle_path = strdup(o->sess->output);
	return 0;
}

/* The recording of the replay tests: config.yaml read once, then missing (exit 1). */
static char *recorded_events(void)
{
	char *ok = open_ok(1, 150000, APP "/config.yaml");
	char *bad = open_event(2, 700000000, APP "/config.yaml", "O_RDONLY|O_CLOEXEC", "ENOENT",
			       "read");
	char *ev = concat(ok, bad);

	free(ok), free(bad);
	return ev;
}

/* Replay the recording of events in a new directory (its --cwd) with stand-in s. */
static int replay_with(struct stand_in *s, const char *events, struct rpl_replay_result *r,
		       char **dir)
{
	struct rpl_runner runner = { .run = stand_in_run, .ctx = s };
	struct repro_err *err = NULL;
	char *rec;
	int rc;

	*dir = fx_tmpdir();
	s->dir = *dir;
	rec = write_run(*dir, "rec.repro", events, "", 1, 1);
	rc = rpl_replay_run(
		&(struct rpl_replay_run_opts){ .bundle = rec, .cwd = *dir, .runner = &runner }, r,
		&err);
	if (rc < 0)
		fail_msg("replay: %s", err->msg);
	free(rec);
	return rc;
}

/* The recorded failure imposed on the same call, the recorded exit: reproduced. */
/* What `repro replay` says after r (rpl_replay_say_result(), not quiet): a new string. */
static char *said_after(const struct rpl_replay_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	rpl_replay_say_result(out, r, false, false);
	fclose(out);
	return text;
}

static void test_replay_reproduced(void **state)
{
	char *ev = recorded_events(), *dir;
	struct stand_in s = { .calls = { "config.yaml", "config.yaml" },
			      .needs = "config.yaml",
			      .events = ev };
	struct rpl_replay_result r;
	char *said;

	(void)state;
	replay_with(&s, ev, &r, &dir);
	assert_int_equal(s.runs, 1);
	assert_int_equal(r.plan.n, 1);
	assert_int_equal(r.fired[0], 1); /* the second open, as recorded (when=2) */
	assert_int_equal(r.imposed, 1);
	assert_int_equal(r.ndivergences, 0);
	assert_int_equal(r.verdict, RPL_REPLAY_REPRODUCED);
	assert_string_equal(r.exit_here, "exit 1");
	assert_int_equal(r.status, 1);
	said = said_after(&r);
	assert_non_null(strstr(said, "repro: replay: reproduced: exit 1 as recorded, 1 of 1 "
				     "failure imposed\n"));
	free(said);
	rpl_replay_result_release(&r);
	fx_rmtree(dir);
	free(dir), free(ev);
}

/* The call never came, the program worked: not reproduced, the failure not imposed. */
static void test_replay_not_reproduced(void **state)
{
	char *ev = recorded_events(), *ok = open_ok(1, 150000, APP "/config.yaml"), *dir;
	struct stand_in s = { .calls = { "config.yaml" }, .needs = "config.yaml", .events = ok };
	struct rpl_replay_result r;
	char *said;

	(void)state;
	replay_with(&s, ev, &r, &dir);
	assert_int_equal(r.fired[0], 0);
	assert_int_equal(r.imposed, 0);
	assert_int_equal(r.verdict, RPL_REPLAY_NOT_REPRODUCED);
	assert_string_equal(r.exit_here, "exit 0");
	assert_string_equal(r.exit_recorded, "exit 1");
	assert_int_equal(r.status, 0);
	said = said_after(&r);
	assert_non_null(strstr(said, "repro: replay: not imposed, the call never came here: "));
	assert_non_null(strstr(said, "repro: replay: not reproduced: exit 0 (recorded: exit 1), "
				     "0 of 1 failure imposed, 1 divergence\n"));
	assert_non_null(strstr(said, "diverged: python3 app.py exited 1 in A, exited 0 in B"));
	free(said);
	rpl_replay_result_release(&r);
	fx_rmtree(dir);
	free(dir), free(ev), free(ok);
}

/*
 * The recorded exit, but through a failure the recording did not have and
 * without the recorded one: "another way", the new failure named.
 */
static void test_replay_other_way(void **state)
{
	char *ev = recorded_events(), *dir;
	char *other = open_event(1, 150000, APP "/other.yaml", "O_RDONLY", "ENOENT", "read");
	struct stand_in s = { .needs = "config.yaml", .otherwise = 1, .events = other };
	struct rpl_replay_result r;
	char *said;

	(void)state;
	replay_with(&s, ev, &r, &dir);
	assert_int_equal(r.imposed, 0);
	assert_int_equal(r.verdict, RPL_REPLAY_OTHER_WAY);
	assert_int_equal(json_array_size(r.failed_here), 1);
	assert_non_null(
		strstr(json_string_value(json_object_get(json_array_get(r.failed_here, 0), "what")),
		       "other.yaml"));
	said = said_after(&r);
	assert_non_null(
		strstr(said, "repro: replay: diverged: failed here, not in the recording: "));
	assert_non_null(strstr(said, "as recorded, but another way, 0 of 1 failure imposed, 1 "
				     "divergence\n"));
	free(said);
	rpl_replay_result_release(&r);
	fx_rmtree(dir);
	free(dir), free(ev), free(other);
}

static int refuse(void *ctx, const struct rpl_replay_result *r, struct repro_err **err)
{
	(void)ctx;
	assert_non_null(r->argv[0]);
	return repro_err_set(err, EPERM, "refused");
}

/* A refusal before the run: nothing runs. */
static void test_replay_refused_runs_nothing(void **state)
{
	char *ev = recorded_events(), *dir = fx_tmpdir();
	char *rec = write_run(dir, "rec.repro", ev, "", 1, 1);
	struct stand_in s = { .dir = dir, .needs = "config.yaml", .events = ev };
	struct rpl_runner runner = { .run = stand_in_run, .ctx = &s };
	struct repro_err *err = NULL;
	struct rpl_replay_result r;

	(void)state;
	assert_int_equal(rpl_replay_run(&(struct rpl_replay_run_opts){ .bundle = rec,
								       .cwd = dir,
								       .runner = &runner,
								       .before = refuse },
					&r, &err),
			 -1);
	assert_int_equal(s.runs, 0);
	assert_false(r.ran);
	repro_err_free(&err);
	rpl_replay_result_release(&r);
	fx_rmtree(dir);
	free(dir), free(ev), free(rec);
}

/* --minimize keeps the failure the exit needs and drops the one it does not. */
static void test_replay_minimize(void **state)
{
	char *rec_ev = recorded_events();
	char *db = open_event(3, 800000000, APP "/data.db", "O_RDWR|O_CREAT", "EACCES", "create");
	char *ev = concat(rec_ev, db), *dir = fx_tmpdir();
	char *rec = write_run(dir, "rec.repro", ev, "", 1, 1);
	struct stand_in s = { .dir = dir,
			      .calls = { "config.yaml", "config.yaml", "data.db" },
			      .needs = "config.yaml",
			      .events = ev };
	struct rpl_runner runner = { .run = stand_in_run, .ctx = &s };
	struct repro_err *err = NULL;
	struct rpl_replay_minimized m;
	struct rpl_replay_result r;

	(void)state;
	if (rpl_replay_minimize(
		    &(struct rpl_replay_run_opts){ .bundle = rec, .cwd = dir, .runner = &runner },
		    NULL, &r, &m, &err) < 0)
		fail_msg("minimize: %s", err->msg);
	assert_int_equal(r.plan.n, 2);
	assert_false(m.full_set_differs);
	assert_int_equal(m.kept, 1);
	for (size_t i = 0; i < r.plan.n; i++)
		assert_int_equal(m.needed[i], strstr(r.plan.v[i].what, "config.yaml") != NULL);
	rpl_replay_minimized_release(&m);
	rpl_replay_result_release(&r);
	fx_rmtree(dir);
	free(dir), free(ev), free(rec), free(rec_ev), free(db);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranking_denied_create_before_missing_file),
		cmocka_unit_test(test_ranking_without_op_key),
		cmocka_unit_test(test_ranking_last_failure_first),
		cmocka_unit_test(test_ranking_probe_noise_set_aside),
		cmocka_unit_test(test_ranking_injected_first),
		cmocka_unit_test(test_ranking_failed_write_full_disk),
		cmocka_unit_test(test_ranking_said_when_nothing_failed),
		cmocka_unit_test(test_ranking_said_names_file_over_unnamed_failure),
		cmocka_unit_test(test_diff_cause_outcome_differs),
		cmocka_unit_test(test_replay_plan_imposes_what_matters),
		cmocka_unit_test(test_replay_reproduced),
		cmocka_unit_test(test_replay_not_reproduced),
		cmocka_unit_test(test_replay_other_way),
		cmocka_unit_test(test_replay_refused_runs_nothing),
		cmocka_unit_test(test_replay_minimize),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
