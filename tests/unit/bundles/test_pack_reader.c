#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "bundles/pack.h"
#include "bundles/json_util.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "fixture.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static struct bndl_reader *open_ok(const char *path)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_reader *r = bndl_reader_open(path, &err);

	if (r == NULL)
		fail_msg("open '%s': %s", path, err->msg);
	return r;
}

/* Open path expecting failure; returns the error (caller frees). */
static struct repro_err *open_fails(const char *path)
{
	struct repro_err *err = NULL;

	assert_null(bndl_reader_open(path, &err));
	assert_non_null(err);
	return err;
}

static bool warnings_have(json_t *m, const char *text)
{
	json_t *w = json_object_get(m, "warnings");
	size_t i;
	json_t *v;

	json_array_foreach (w, i, v)
		if (strcmp(json_string_value(v), text) == 0)
			return true;
	return false;
}

static void test_pack_manifest(void **state)
{
	cleanup_free char *out = fx_pack_scenario(*state);
	struct bndl_reader *r = open_ok(out);
	json_t *m = bndl_reader_manifest(r);
	json_t *counts = json_object_get(m, "counts");
	json_t *opts = json_object_get(m, "options");

	assert_string_equal(json_string_value(json_object_get(m, "format")), "repro-bundle");
	assert_int_equal(json_integer_value(json_object_get(m, "version")), 1);
	assert_string_equal(json_string_value(json_object_get(m, "tool")), "repro 0.1.0");
	assert_int_equal(json_array_size(json_object_get(m, "argv")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "argv"), 1)),
			    "start_app.sh");
	assert_string_equal(json_string_value(json_object_get(m, "cwd")), "/srv/app");
	assert_string_equal(json_string_value(json_object_get(m, "started_at")),
			    "2026-11-29T14:41:44Z");
	assert_int_equal(json_integer_value(json_object_get(m, "duration_ns")), 9000000000);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "exit"), "code")),
			 1);
	assert_string_equal(json_string_value(json_object_get(opts, "trace")),
			    "file,network,process");
	assert_string_equal(json_string_value(json_object_get(opts, "net")), "host");
	assert_string_equal(json_string_value(json_object_get(opts, "sandbox")), "none");
	assert_int_equal(json_integer_value(json_object_get(counts, "events")), 20);
	assert_int_equal(json_integer_value(json_object_get(counts, "failed")), 17);
	assert_int_equal(json_integer_value(json_object_get(counts, "processes")), 4);
	assert_int_equal(json_array_size(json_object_get(m, "warnings")), 2);
	assert_true(warnings_have(m, "first note"));
	assert_true(warnings_have(m, "second note"));
	bndl_reader_free(r);
}

struct collect {
	json_t *lines; /* array of the objects seen */
	size_t last_lineno;
};

static int collect_line(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct collect *c = ctx;

	assert_int_equal(lineno, c->last_lineno + 1);
	c->last_lineno = lineno;
	json_array_append(c->lines, obj);
	return 0;
}

/* Like collect_line, for filtered reads where line numbers skip. */
static int collect_any(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct collect *c = ctx;

	assert_true(lineno > c->last_lineno);
	c->last_lineno = lineno;
	json_array_append(c->lines, obj);
	return 0;
}

static json_t *collect_member(struct bndl_reader *r, const char *member)
{
	cleanup_err struct repro_err *err = NULL;
	struct collect c = { .lines = json_array() };

	if (bndl_reader_foreach(r, member, collect_line, &c, &err) < 0)
		fail_msg("foreach %s: %s", member, err->msg);
	return c.lines;
}

static void test_pack_events(void **state)
{
	cleanup_free char *out = fx_pack_scenario(*state);
	struct bndl_reader *r = open_ok(out);
	cleanup_json json_t *evs = collect_member(r, "events.jsonl");
	json_t *e;
	size_t i, failed = 0;

	assert_int_equal(json_array_size(evs), 20);
	json_array_foreach (evs, i, e) {
		assert_int_equal(bndl_json_int(e, "seq", 0), (json_int_t)i + 1);
		if (json_is_integer(json_object_get(e, "ret")) && bndl_json_int(e, "ret", 0) < 0)
			failed++;
	}
	assert_int_equal(failed, 17);
	e = json_array_get(evs, 0);
	assert_string_equal(bndl_json_str(e, "syscall"), "openat");
	assert_string_equal(bndl_json_str(e, "path"), "/srv/app/.env");
	assert_string_equal(bndl_json_str(e, "errno"), "ENOENT");
	assert_int_equal(bndl_json_int(e, "pid", 0), 100);
	e = json_array_get(evs, 15);
	assert_string_equal(bndl_json_str(e, "syscall"), "connect");
	assert_string_equal(bndl_json_str(json_object_get(e, "addr"), "ip"), "198.51.100.7");
	assert_int_equal(bndl_json_int(json_object_get(e, "addr"), "port", 0), 443);
	e = json_array_get(evs, 18);
	assert_true(json_is_null(json_object_get(e, "ret")));
	assert_true(json_is_true(json_object_get(e, "unfinished")));
	bndl_reader_free(r);
}

static json_t *find_proc(json_t *procs, json_int_t pid)
{
	size_t i;
	json_t *p;

	json_array_foreach (procs, i, p)
		if (bndl_json_int(p, "pid", -1) == pid)
			return p;
	fail_msg("no process %lld", (long long)pid);
	return NULL;
}

static void test_pack_processes(void **state)
{
	cleanup_free char *out = fx_pack_scenario(*state);
	struct bndl_reader *r = open_ok(out);
	cleanup_json json_t *procs = collect_member(r, "processes.jsonl");
	json_t *p, *exec, *argv;

	assert_int_equal(json_array_size(procs), 4);
	assert_int_equal(bndl_json_int(json_array_get(procs, 0), "pid", 0), 100);
	assert_int_equal(bndl_json_int(json_array_get(procs, 3), "pid", 0), 103);
	p = find_proc(procs, 101);
	assert_int_equal(bndl_json_int(p, "ppid", 0), 100);
	assert_int_equal(bndl_json_int(p, "threads", 0), 1);
	assert_int_equal(bndl_json_int(p, "start_ns", 0), 1000000000);
	assert_int_equal(bndl_json_int(p, "end_ns", 0), 8000000000);
	assert_int_equal(bndl_json_int(json_object_get(p, "exit"), "code", -1), 1);
	assert_null(json_object_get(p, "left_running"));
	exec = json_array_get(json_object_get(p, "execs"), 0);
	assert_string_equal(bndl_json_str(exec, "path"), "/usr/bin/python3");
	assert_int_equal(bndl_json_int(exec, "t_ns", 0), 1000000100);
	argv = json_object_get(exec, "argv");
	assert_int_equal(json_array_size(argv), 2); /* a trailing NUL adds no argument */
	assert_string_equal(json_string_value(json_array_get(argv, 1)), "webui.py");
	p = find_proc(procs, 102);
	assert_int_equal(json_array_size(json_object_get(
				 json_array_get(json_object_get(p, "execs"), 0), "argv")),
			 3);
	assert_int_equal(bndl_json_int(json_object_get(p, "exit"), "code", -1), 0);
	p = find_proc(procs, 103);
	assert_string_equal(bndl_json_str(json_object_get(p, "exit"), "signal"), "SIGKILL");
	assert_null(json_object_get(json_object_get(p, "exit"), "core_dumped"));
	assert_int_equal(bndl_json_int(find_proc(procs, 100), "ppid", -1), 0);
	bndl_reader_free(r);
}

static void test_pack_trace(void **state)
{
	cleanup_free char *out = fx_pack_scenario(*state);
	struct bndl_reader *r = open_ok(out);
	cleanup_free char *text = NULL;
	cleanup_err struct repro_err *err = NULL;
	size_t len = 0, lines = 0;
	FILE *f = open_memstream(&text, &len);

	assert_int_equal(bndl_reader_copy(r, "trace.txt", f, &err), 0);
	fclose(f);
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	assert_int_equal(lines, 20);
	assert_true(strncmp(text, "100  openat(\"/srv/app/.env\") = -1 ENOENT\n", 41) == 0);
	bndl_reader_free(r);
}

/* Members, their order, mode and mtime, as tar(1) would list them. */
static void test_pack_archive_layout(void **state)
{
	static const char *const want[] = { "manifest.json", "processes.jsonl", "events.jsonl",
					    "output.jsonl", "trace.txt" };
	cleanup_free char *out = fx_pack_scenario(*state);
	cleanup_free char *spool_tmp =
		repro_xasprintf("%s/.run.spool/events.jsonl", (char *)*state);
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct stat st;
	size_t n = 0;

	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_filename(a, out, 10240), ARCHIVE_OK);
	assert_int_equal(archive_filter_code(a, 0), ARCHIVE_FILTER_ZSTD);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		assert_true(n < 5);
		assert_string_equal(archive_entry_pathname(e), want[n++]);
		assert_int_equal(archive_entry_perm(e), 0644);
		assert_int_equal(archive_entry_mtime(e), 1795963304);
	}
	assert_int_equal(n, 5);
	archive_read_free(a);
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666 & ~umask(022));
	assert_int_equal(stat(spool_tmp, &st), -1); /* temporary members are gone */
}

static size_t count_tmp_files(const char *dir)
{
	cleanup_closedir DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	while ((de = readdir(d)) != NULL)
		n += strstr(de->d_name, ".tmp-") != NULL;
	return n;
}

static void test_pack_truncated_spool_warns(void **state)
{
	cleanup_free char *spool = repro_xasprintf("%s/spool", (char *)*state);
	cleanup_free char *file = repro_xasprintf("%s/events.spool", spool);
	cleanup_free char *out = repro_xasprintf("%s/cut.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = fx_run_info();
	struct bndl_reader *r;
	struct stat st;
	uint64_t nfailed;
	json_t *m;

	assert_int_equal(mkdir(spool, 0700), 0);
	fx_write_scenario_killed(spool, &nfailed);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(truncate(file, st.st_size - 3), 0);
	run.has_exit = 0;
	run.duration_ns = 0;
	run.warnings = NULL;
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	r = open_ok(out);
	m = bndl_reader_manifest(r);
	assert_true(warnings_have(
		m,
		"spool was truncated: its last record is cut short, so what came after it is lost"));
	assert_true(json_is_true(json_object_get(m, "incomplete")));
	assert_true(json_is_null(json_object_get(m, "exit")));
	/* the last whole record is the exit of 101 at 8 s */
	assert_int_equal(json_integer_value(json_object_get(m, "duration_ns")), 8000000000);
	bndl_reader_free(r);
}

static void test_pack_signal_exit(void **state)
{
	cleanup_free char *spool = repro_xasprintf("%s/spool", (char *)*state);
	cleanup_free char *out = repro_xasprintf("%s/sig.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = fx_run_info();
	struct bndl_spool *sp;
	struct bndl_reader *r;
	json_t *ex;

	assert_int_equal(mkdir(spool, 0700), 0);
	sp = bndl_spool_open(spool, &err);
	fx_proc_start(sp, 5, 0, 0, false);
	fx_proc_exit(sp, 5, 10, SIGSEGV | 0x80);
	fx_proc_start(sp, 6, 5, 5, false);
	assert_int_equal(bndl_spool_close(sp, &err), 0);
	run.exit_signal = SIGSEGV;
	run.core_dumped = 1;
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	r = open_ok(out);
	ex = json_object_get(bndl_reader_manifest(r), "exit");
	assert_string_equal(bndl_json_str(ex, "signal"), "SIGSEGV");
	assert_true(json_is_true(json_object_get(ex, "core_dumped")));
	{
		cleanup_json json_t *procs = collect_member(r, "processes.jsonl");

		ex = json_object_get(json_array_get(procs, 0), "exit");
		assert_string_equal(bndl_json_str(ex, "signal"), "SIGSEGV");
		assert_true(json_is_true(json_object_get(ex, "core_dumped")));
		assert_true(
			json_is_true(json_object_get(json_array_get(procs, 1), "left_running")));
		assert_true(json_is_null(json_object_get(json_array_get(procs, 1), "end_ns")));
	}
	bndl_reader_free(r);
}

/* A failed pack names the output, leaves the spool and no temporary file. */
static void test_pack_failure_keeps_spool(void **state)
{
	cleanup_free char *spool = repro_xasprintf("%s/spool", (char *)*state);
	cleanup_free char *file = repro_xasprintf("%s/events.spool", spool);
	cleanup_free char *out = repro_xasprintf("%s/no/such/dir/x.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = fx_run_info();
	struct stat st;
	uint64_t nfailed;

	assert_int_equal(mkdir(spool, 0700), 0);
	fx_write_scenario(spool, &nfailed);
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), -1);
	assert_int_equal(err->errnum, ENOENT);
	assert_non_null(strstr(err->msg, out));
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(count_tmp_files(spool), 0);
	assert_int_equal(count_tmp_files(*state), 0);
}

static int render_fails(void *ctx, const struct bndl_event *ev, json_t **json, char **line,
			struct repro_err **err)
{
	return repro_err_set(err, EINVAL, "cannot render event %llu", (unsigned long long)ev->seq);
}

static void test_pack_render_error_aborts(void **state)
{
	cleanup_free char *spool = repro_xasprintf("%s/spool", (char *)*state);
	cleanup_free char *out = repro_xasprintf("%s/x.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_render_ops ops = { .render_event = render_fails };
	struct bndl_run_info run = fx_run_info();
	struct stat st;
	uint64_t nfailed;

	assert_int_equal(mkdir(spool, 0700), 0);
	fx_write_scenario(spool, &nfailed);
	assert_int_equal(bndl_pack(spool, &run, &ops, out, &err), -1);
	assert_string_equal(err->msg, "cannot render event 1");
	assert_int_equal(stat(out, &st), -1);
	assert_int_equal(count_tmp_files(*state), 0);
}

static void test_runinfo_round_trip(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = fx_run_info(), back;
	cleanup_json json_t *holder = NULL;
	cleanup_free char **argv = NULL;

	run.started_at_ns = 123456789;
	assert_int_equal(bndl_runinfo_save(*state, &run, &err), 0);
	assert_int_equal(bndl_runinfo_load(*state, &back, &holder, &argv, &err), 0);
	assert_ptr_equal(back.argv, argv);
	assert_string_equal(back.argv[0], "bash");
	assert_string_equal(back.argv[1], "start_app.sh");
	assert_null(back.argv[2]);
	assert_string_equal(back.cwd, "/srv/app");
	assert_int_equal(back.started_at_s, 1795963304);
	assert_int_equal(back.started_at_ns, 123456789);
	assert_string_equal(back.trace_classes, "file,network,process");
	assert_string_equal(back.net_mode, "host");
	assert_string_equal(back.sandbox, "none");
	assert_string_equal(back.tool_version, "repro 0.1.0");
	assert_string_equal(back.warnings, "first note; second note");
	assert_int_equal(back.has_exit, 0);
}

/* ---- hostile bundles ---- */

static void add_member(struct archive *a, const char *name, const char *data, size_t len)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, data, len), (la_ssize_t)len);
	archive_entry_free(e);
}

/* A zstd pax bundle with the given manifest and events.jsonl (events may be NULL). */
static char *craft_bundle(const char *dir, const char *manifest, const char *events, size_t elen)
{
	char *path = repro_xasprintf("%s/crafted.repro", dir);
	struct archive *a = archive_write_new();

	archive_write_set_format_pax_restricted(a);
	archive_write_add_filter_zstd(a);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	add_member(a, "manifest.json", manifest, strlen(manifest));
	if (events != NULL)
		add_member(a, "events.jsonl", events, elen);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	return path;
}

static const char good_manifest[] = "{\"format\":\"repro-bundle\",\"version\":1}";

static void test_reader_newer_version(void **state)
{
	cleanup_free char *path = craft_bundle(
		*state, "{\"format\":\"repro-bundle\",\"version\":2,\"new\":[]}", NULL, 0);
	cleanup_err struct repro_err *err = open_fails(path);
	cleanup_free char *want = repro_xasprintf(
		"'%s' was written by a newer repro (bundle format 2; this reader knows 1)", path);

	assert_int_equal(err->errnum, EPROTO);
	assert_string_equal(err->msg, want);
}

static void test_reader_wrong_format(void **state)
{
	cleanup_free char *path =
		craft_bundle(*state, "{\"format\":\"other\",\"version\":1}", NULL, 0);
	cleanup_err struct repro_err *err = open_fails(path);
	cleanup_free char *path2 = NULL;
	cleanup_err struct repro_err *err2 = NULL;

	assert_int_equal(err->errnum, EPROTO);
	assert_non_null(strstr(err->msg, "is not a repro bundle"));
	unlink(path);
	path2 = craft_bundle(*state, "[1,2]", NULL, 0);
	err2 = open_fails(path2);
	assert_non_null(strstr(err2->msg, "not a JSON object"));
}

static void test_reader_not_a_tar(void **state)
{
	cleanup_free char *path = repro_xasprintf("%s/notes.txt", (char *)*state);
	cleanup_free char *want = repro_xasprintf("'%s' is not a repro bundle: ", path);
	cleanup_err struct repro_err *err = NULL;
	FILE *f = fopen(path, "we");

	for (int i = 0; i < 200; i++)
		fprintf(f, "this is a plain text file, line %d\n", i);
	fclose(f);
	err = open_fails(path);
	assert_int_equal(err->errnum, EPROTO);
	assert_true(strncmp(err->msg, want, strlen(want)) == 0);
}

static void test_reader_missing_file(void **state)
{
	cleanup_free char *path = repro_xasprintf("%s/absent.repro", (char *)*state);
	cleanup_err struct repro_err *err = open_fails(path);

	assert_int_equal(err->errnum, ENOENT);
	assert_non_null(strstr(err->msg, path));
}

/* A bundle cut in half fails to open or fails while streaming; it never crashes. */
static void test_reader_truncated_bundle(void **state)
{
	cleanup_free char *spool = repro_xasprintf("%s/spool", (char *)*state);
	cleanup_free char *out = repro_xasprintf("%s/big.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = fx_run_info();
	struct bndl_spool *sp;
	struct bndl_reader *r;
	struct stat st;
	char path[80];

	assert_int_equal(mkdir(spool, 0700), 0);
	sp = bndl_spool_open(spool, &err);
	for (unsigned i = 0; i < 30000; i++) {
		struct bndl_event ev;

		snprintf(path, sizeof(path), "/srv/%08x/%u.py", i * 2654435761u, i);
		ev = fx_syscall(i + 1, i, 9, FX_OPENAT, path, "O_RDONLY", -ENOENT);
		fx_append(sp, &ev);
	}
	assert_int_equal(bndl_spool_close(sp, &err), 0);
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	assert_int_equal(stat(out, &st), 0);
	assert_true(st.st_size > 100000);
	assert_int_equal(truncate(out, st.st_size / 2), 0);
	r = bndl_reader_open(out, &err);
	if (r == NULL) {
		assert_int_equal(err->errnum, EPROTO);
		return;
	}
	{
		cleanup_json json_t *lines = json_array();
		struct collect c = { .lines = lines };

		assert_int_equal(bndl_reader_foreach(r, "events.jsonl", collect_line, &c, &err),
				 -1);
		assert_int_equal(err->errnum, EPROTO);
		assert_non_null(strstr(err->msg, "is truncated"));
		assert_true(json_array_size(lines) < 30000);
	}
	bndl_reader_free(r);
}

static void expect_line_error(const char *dir, const char *events, size_t len, const char *want)
{
	cleanup_free char *path = craft_bundle(dir, good_manifest, events, len);
	struct bndl_reader *r = open_ok(path);
	cleanup_json json_t *lines = json_array();
	struct collect c = { .lines = lines };
	cleanup_err struct repro_err *err = NULL;

	assert_int_equal(bndl_reader_foreach(r, "events.jsonl", collect_line, &c, &err), -1);
	assert_int_equal(err->errnum, EPROTO);
	if (strstr(err->msg, want) == NULL)
		fail_msg("'%s' not in '%s'", want, err->msg);
	bndl_reader_free(r);
	unlink(path);
}

static void test_reader_long_line(void **state)
{
	size_t len = BNDL_LINE_MAX + 100;
	cleanup_free char *events = repro_xmalloc(len + 64);
	int head = sprintf(events, "{\"seq\":1}\n{\"pad\":\"");

	memset(events + head, 'a', len);
	strcpy(events + head + len - 3, "\"}\n");
	expect_line_error(*state, events, strlen(events),
			  "events.jsonl line 2: line longer than 64 MiB");
}

static void test_reader_bad_lines(void **state)
{
	static const char not_obj[] = "{\"seq\":1}\n\n[1,2]\n";
	static const char bad_json[] = "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":\n";
	static const char no_nl[] = "{\"seq\":1}\n{\"seq\":";

	expect_line_error(*state, not_obj, strlen(not_obj),
			  "events.jsonl line 3: not a JSON object");
	expect_line_error(*state, bad_json, strlen(bad_json), "events.jsonl line 3: ");
	expect_line_error(*state, no_nl, strlen(no_nl), "events.jsonl line 2: ");
}

static void test_reader_missing_member(void **state)
{
	cleanup_free char *path = craft_bundle(*state, good_manifest, NULL, 0);
	struct bndl_reader *r = open_ok(path);
	cleanup_err struct repro_err *err = NULL;
	struct collect c = { .lines = NULL };

	assert_int_equal(bndl_reader_foreach(r, "events.jsonl", collect_line, &c, &err), -1);
	assert_int_equal(err->errnum, EPROTO);
	assert_non_null(strstr(err->msg, "no member 'events.jsonl'"));
	bndl_reader_free(r);
}

static int stop_at_two(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	if (lineno == 2)
		return repro_err_set(err, 0, "stopped at %zu", lineno);
	return 0;
}

static void test_reader_callback_stops(void **state)
{
	static const char events[] = "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n";
	cleanup_free char *path = craft_bundle(*state, good_manifest, events, strlen(events));
	struct bndl_reader *r = open_ok(path);
	cleanup_err struct repro_err *err = NULL;

	assert_int_equal(bndl_reader_foreach(r, "events.jsonl", stop_at_two, NULL, &err), -1);
	assert_string_equal(err->msg, "stopped at 2");
	bndl_reader_free(r);
}

/* Parse lines holding "keep"; stop at a line holding "stop"; a broken line is never parsed. */
static int keep_filter(void *ctx, const char *line, size_t len, size_t lineno)
{
	assert_true(lineno >= 1 && lineno <= 6);
	if (memmem(line, len, "stop", 4) != NULL)
		return -1;
	return memmem(line, len, "keep", 4) != NULL;
}

static void test_reader_filtered(void **state)
{
	static const char events[] = "{\"a\":1}\n{\"keep\":2}\nnot json at all\n{\"keep\":3}\n"
				     "{\"stop\":4}\n{\"keep\":5}\n";
	cleanup_free char *path = craft_bundle(*state, good_manifest, events, strlen(events));
	struct bndl_reader *r = open_ok(path);
	cleanup_err struct repro_err *err = NULL;
	cleanup_json json_t *lines = json_array();
	struct collect c = { .lines = lines, .last_lineno = 0 };

	assert_int_equal(
		bndl_reader_foreach_filtered(r, "events.jsonl", keep_filter, collect_any, &c, &err),
		0);
	assert_int_equal(json_array_size(lines), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(lines, 1), "keep")), 3);
	bndl_reader_free(r);
}

static int teardown_fs(void **state)
{
	cleanup_free char *full = repro_xasprintf("%s/full", (char *)*state);

	fx_small_fs_release(full);
	return teardown(state);
}

/* The run facts `repro pack` has: no exit, no duration. */
static struct bndl_run_info packed_later(void)
{
	struct bndl_run_info run = fx_run_info();

	run.has_exit = 0;
	run.exit_code = 0;
	run.duration_ns = 0;
	run.warnings = NULL;
	run.is_packed_later = true;
	return run;
}

static bool warnings_start_with(json_t *m, const char *prefix)
{
	json_t *w = json_object_get(m, "warnings");
	size_t i;
	json_t *v;

	json_array_foreach (w, i, v)
		if (strncmp(json_string_value(v), prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

/* A spool that ended on a full disk packs later with its exit, its drops and "incomplete". */
static void test_pack_full_spool_later(void **state)
{
	cleanup_free char *spool = fx_full_spool(*state, true, ENOSPC);
	cleanup_free char *out = repro_xasprintf("%s/full.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = packed_later();
	struct bndl_reader *r;
	json_t *m, *d;

	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	r = open_ok(out);
	m = bndl_reader_manifest(r);
	assert_int_equal(bndl_json_int(json_object_get(m, "exit"), "code", -1), 3);
	assert_int_equal(bndl_json_int(m, "duration_ns", 0), 9000);
	assert_true(json_is_true(json_object_get(m, "incomplete")));
	d = json_object_get(m, "dropped");
	assert_string_equal(bndl_json_str(d, "errno"), "ENOSPC");
	assert_int_equal(bndl_json_int(d, "events", -1), 40);
	assert_int_equal(bndl_json_int(d, "bytes", -1), 4000);
	assert_int_equal(bndl_json_int(d, "since_ns", -1), 5000);
	assert_int_equal(bndl_json_int(json_object_get(m, "counts"), "events", -1), 1);
	assert_true(warnings_have(
		m, "no space left on the spool's filesystem (ENOSPC): 40 events after 0.00 s were "
		   "not recorded (nor their trace.txt lines; 4 KiB of records); the process tree "
		   "and exit statuses are complete"));
	assert_true(warnings_have(
		m, "the recording ended without its bundle, which 'repro pack' made later"));
	bndl_reader_free(r);
}

/*
 * A recorder killed after its disk filled: no END record, so how many were
 * dropped is unknown; the exit comes from the first process's exit record.
 */
static void test_pack_full_spool_killed(void **state)
{
	cleanup_free char *spool = fx_full_spool(*state, false, ENOSPC);
	cleanup_free char *out = repro_xasprintf("%s/killed.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = packed_later();
	struct bndl_reader *r;
	json_t *m, *d;

	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	r = open_ok(out);
	m = bndl_reader_manifest(r);
	assert_int_equal(bndl_json_int(json_object_get(m, "exit"), "code", -1), 3);
	assert_true(json_is_true(json_object_get(m, "incomplete")));
	d = json_object_get(m, "dropped");
	assert_true(json_is_null(json_object_get(d, "events")));
	assert_true(warnings_start_with(
		m, "no space left on the spool's filesystem (ENOSPC) 0.00 s into the run: later "
		   "events were not recorded (how many is not known"));
	assert_true(warnings_have(m, "recording was interrupted and packed later by 'repro pack'"));
	bndl_reader_free(r);
}

/*
 * A spool whose filesystem had no room for its DROPPED, PROC_EXIT and END
 * records (smaller than the reserve): the recording passes what it saw,
 * so the manifest has the drops and processes.jsonl every exit.
 */
static void test_pack_run_facts_over_spool(void **state)
{
	cleanup_free char *spool = repro_xasprintf("%s/spool", (char *)*state);
	cleanup_free char *out = repro_xasprintf("%s/facts.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_event ev = fx_syscall(1, 100, 1, FX_OPENAT, "/etc/x", "O_RDONLY", -ENOENT);
	const struct bndl_spool_drops d = {
		.events = 40, .bytes = 4200, .procs = 3, .since_ns = 5000, .errnum = ENOSPC
	};
	const struct bndl_event lost[] = {
		{ .type = BNDL_REC_PROC_START, .t_ns = 6000, .pid = 2, .tid = 2, .ppid = 1 },
		{ .type = BNDL_REC_PROC_EXIT, .t_ns = 7000, .pid = 2, .tid = 2, .status = 0 },
		{ .type = BNDL_REC_PROC_EXIT, .t_ns = 8000, .pid = 1, .tid = 1, .status = 6 << 8 },
	};
	struct bndl_run_info run = fx_run_info();
	struct bndl_spool *sp;
	struct bndl_reader *r;
	cleanup_json json_t *procs = NULL;
	json_t *m, *dj;

	assert_int_equal(mkdir(spool, 0700), 0);
	sp = bndl_spool_open(spool, &err);
	assert_non_null(sp);
	fx_proc_start(sp, 1, 0, 0, false);
	fx_append(sp, &ev);
	assert_int_equal(bndl_spool_close(sp, &err), 0);
	run.exit_code = 6;
	run.drops = &d;
	run.lost_procs = lost;
	run.nlost_procs = 3;
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	r = open_ok(out);
	m = bndl_reader_manifest(r);
	assert_true(json_is_true(json_object_get(m, "incomplete")));
	dj = json_object_get(m, "dropped");
	assert_string_equal(bndl_json_str(dj, "errno"), "ENOSPC");
	assert_int_equal(bndl_json_int(dj, "events", -1), 40);
	assert_int_equal(bndl_json_int(dj, "process_records", -1), 3);
	assert_int_equal(bndl_json_int(json_object_get(m, "counts"), "processes", -1), 2);
	assert_true(warnings_have(
		m, "no space left on the spool's filesystem (ENOSPC): 40 events after 0.00 s were "
		   "not recorded (nor their trace.txt lines; 4 KiB of records); 3 process records "
		   "found no room either: the process tree and exit statuses are complete from "
		   "what repro saw"));
	procs = collect_member(r, "processes.jsonl");
	assert_int_equal(json_array_size(procs), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *p = json_array_get(procs, i);

		assert_int_equal(bndl_json_int(p, "pid", -1), (json_int_t)i + 1);
		assert_int_equal(bndl_json_int(json_object_get(p, "exit"), "code", -1),
				 i == 0 ? 6 : 0);
		assert_null(json_object_get(p, "left_running"));
	}
	bndl_reader_free(r);
}

/* Over a disk quota: EDQUOT, said as such. */
static void test_pack_quota_spool(void **state)
{
	cleanup_free char *spool = fx_full_spool(*state, true, EDQUOT);
	cleanup_free char *out = repro_xasprintf("%s/quota.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = packed_later();
	struct bndl_reader *r;
	json_t *m;

	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	r = open_ok(out);
	m = bndl_reader_manifest(r);
	assert_string_equal(bndl_json_str(json_object_get(m, "dropped"), "errno"), "EDQUOT");
	assert_true(warnings_start_with(
		m, "the disk quota was exceeded on the spool's filesystem (EDQUOT): 40 events"));
	bndl_reader_free(r);
}

/* A whole spool is complete: "incomplete" false, "dropped" null. */
static void test_pack_complete_spool(void **state)
{
	cleanup_free char *out = fx_pack_scenario(*state);
	struct bndl_reader *r = open_ok(out);
	json_t *m = bndl_reader_manifest(r);

	assert_true(json_is_false(json_object_get(m, "incomplete")));
	assert_true(json_is_null(json_object_get(m, "dropped")));
	bndl_reader_free(r);
}

/* A whole spool without its END record (a recorder killed by SIGKILL) packs as incomplete. */
static void test_pack_killed_spool(void **state)
{
	cleanup_free char *spool = repro_xasprintf("%s/spool", (char *)*state);
	cleanup_free char *out = repro_xasprintf("%s/killed.repro", (char *)*state);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_run_info run = packed_later();
	struct bndl_reader *r;
	uint64_t nfailed;
	json_t *m;

	assert_int_equal(mkdir(spool, 0700), 0);
	fx_write_scenario_killed(spool, &nfailed);
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	r = open_ok(out);
	m = bndl_reader_manifest(r);
	assert_true(json_is_true(json_object_get(m, "incomplete")));
	assert_true(warnings_have(m, "recording was interrupted and packed later by 'repro pack'"));
	bndl_reader_free(r);
}

/* A spool to pack later holds regular files only, in a directory no one else may write in. */
static void test_spool_check(void **state)
{
	cleanup_free char *spool = repro_xasprintf("%s/spool", (char *)*state);
	cleanup_free char *files = repro_xasprintf("%s/files.jsonl", spool);
	cleanup_free char *host = repro_xasprintf("%s/host.json", spool);
	cleanup_err struct repro_err *err = NULL;
	uint64_t nfailed;

	assert_int_equal(mkdir(spool, 0700), 0);
	fx_write_scenario_killed(spool, &nfailed);
	assert_int_equal(bndl_spool_check(spool, &err), 0);
	assert_int_equal(symlink("/etc/passwd", files), 0);
	assert_int_equal(bndl_spool_check(spool, &err), -1);
	assert_string_equal(err->msg,
			    "the spool's 'files.jsonl' is a symbolic link, not a regular file");
	repro_err_free(&err);
	assert_int_equal(unlink(files), 0);
	assert_int_equal(mkfifo(host, 0600), 0);
	assert_int_equal(bndl_spool_check(spool, &err), -1);
	assert_string_equal(err->msg, "the spool's 'host.json' is a FIFO, not a regular file");
	repro_err_free(&err);
	assert_int_equal(unlink(host), 0);
	assert_int_equal(chmod(spool, 0777), 0);
	assert_int_equal(bndl_spool_check(spool, &err), -1);
	assert_string_equal(err->msg, "other users may write in the spool (mode 0777): its files "
				      "cannot be trusted");
}

/*
 * -o on a full filesystem: the members are staged past a full scratch
 * directory, the bundle goes to the fallback directory on another
 * filesystem, and no temporary file stays at -o.  When every place is full
 * the error is ENOSPC and nothing is left behind.
 */
static void test_pack_output_fallback(void **state)
{
	cleanup_free char *full = repro_xasprintf("%s/full", (char *)*state);
	cleanup_free char *alt = repro_xasprintf("%s/alt", (char *)*state);
	cleanup_free char *out = repro_xasprintf("%s/full/x.repro", (char *)*state);
	cleanup_free char *alt_out = repro_xasprintf("%s/alt/x.repro", (char *)*state);
	cleanup_free char *spool = NULL;
	cleanup_free char *written = NULL;
	cleanup_err struct repro_err *err = NULL;
	const char *const scratch[] = { full, alt, NULL };
	const char *const only_full[] = { full, NULL };
	struct bndl_pack_dest dest = { .out_path = out,
				       .fallback_dirs = only_full,
				       .scratch_dirs = scratch };
	struct bndl_run_info run = fx_run_info();
	uint64_t nfailed;
	struct stat st;

	assert_int_equal(mkdir(full, 0700), 0);
	assert_int_equal(mkdir(alt, 0700), 0);
	if (!fx_small_fs(full, "16k"))
		skip();
	fx_fill(full, "filler");
	spool = repro_xasprintf("%s/spool", (char *)*state);
	assert_int_equal(mkdir(spool, 0700), 0);
	fx_write_scenario(spool, &nfailed);

	assert_int_equal(bndl_pack_to(spool, &run, fx_render_ops(), &dest, &written, &err), -1);
	assert_true(bndl_is_disk_full(err->errnum));
	assert_null(written);
	assert_int_equal(count_tmp_files(full), 0);
	repro_err_free(&err);

	dest.fallback_dirs = scratch;
	assert_int_equal(bndl_pack_to(spool, &run, fx_render_ops(), &dest, &written, &err), 0);
	assert_non_null(written);
	assert_string_equal(written, alt_out);
	assert_int_equal(stat(written, &st), 0);
	assert_int_equal(stat(out, &st), -1);
	assert_int_equal(count_tmp_files(full), 0);
	bndl_reader_free(open_ok(written));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reader_filtered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_manifest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_archive_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_truncated_spool_warns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_killed_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_signal_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_failure_keeps_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_render_error_aborts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runinfo_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_newer_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_wrong_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_not_a_tar, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_truncated_bundle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_long_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_bad_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_missing_member, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_callback_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_full_spool_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_full_spool_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_run_facts_over_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_quota_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_complete_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pack_output_fallback, setup, teardown_fs),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
