/* A bundle as a Trace Event Format timeline (replayer/readers/export.h). */
#include "replayer/readers/export.h"
#include "bundles/members.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "replayer/readers/normalize.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

struct exporter {
	FILE *out;
	size_t n; /* trace events written */
	/*
	 * borrowed: the document's start, written before the first event (so
	 * that a bundle refused in processes.jsonl's first line gets no output);
	 * NULL once written
	 */
	const json_t *head;
	json_t *threads; /* "TID" -> true: threads named so far */
	int write_errno; /* the first write error, 0: none */
};

/* ns since the program's start as the format's microseconds. */
static json_t *us(int64_t ns)
{
	return json_real((double)ns / 1000.0);
}

/* The document's start, once (x->head), as printable ASCII (bndl_json_write()). */
static void put_head(struct exporter *x)
{
	if (x->head != NULL &&
	    (fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":", x->out) == EOF ||
	     bndl_json_write(x->head, x->out, JSON_COMPACT) < 0 ||
	     fputs(",\"traceEvents\":[", x->out) == EOF) &&
	    x->write_errno == 0)
		x->write_errno = errno != 0 ? errno : EIO;
	x->head = NULL;
}

/*
 * Write one trace event (taken), comma-separated from the one before, as
 * printable ASCII (bndl_json_write(): controls, C1, bidirectional
 * characters and DEL escaped), whatever the bundle's strings hold.
 */
static void emit(struct exporter *x, json_t *ev)
{
	put_head(x);
	if ((x->n > 0 && fputc(',', x->out) == EOF) || fputc('\n', x->out) == EOF ||
	    bndl_json_write(ev, x->out, JSON_COMPACT | JSON_REAL_PRECISION(15)) < 0) {
		if (x->write_errno == 0)
			x->write_errno = errno != 0 ? errno : EIO;
	}
	json_decref(ev);
	x->n++;
}

static int on_process(void *ctx, json_t *p, size_t lineno, struct repro_err **err)
{
	struct exporter *x = ctx;
	int64_t pid = bndl_json_int(p, "pid", 0), start = bndl_json_int(p, "start_ns", 0);
	int64_t end = bndl_json_int(p, "end_ns", start);
	json_t *execs = json_object_get(p, "execs"), *e;
	cleanup_free char *label = rpl_exec_label(execs, NULL);
	cleanup_free char *name = NULL, *ended = rpl_exit_words(json_object_get(p, "exit"));
	size_t i;

	(void)err;
	name = label[0] != '\0' ? repro_xasprintf("%s (pid %" PRId64 ")", label, pid)
				: repro_xasprintf("fork of %" PRId64 " (pid %" PRId64 ")",
						  bndl_json_int(p, "ppid", 0), pid);
	emit(x, json_pack("{s:s,s:s,s:I,s:I,s:{s:s}}", "name", "process_name", "ph", "M", "pid",
			  (json_int_t)pid, "tid", (json_int_t)pid, "args", "name", name));
	emit(x, json_pack("{s:s,s:s,s:I,s:I,s:{s:I}}", "name", "process_sort_index", "ph", "M",
			  "pid", (json_int_t)pid, "tid", (json_int_t)pid, "args", "sort_index",
			  (json_int_t)lineno));
	emit(x, json_pack("{s:s,s:s,s:s,s:o,s:o,s:I,s:I,s:{s:I,s:s}}", "name",
			  label[0] != '\0' ? label : "fork", "cat", "process", "ph", "X", "ts",
			  us(start), "dur", us(end > start ? end - start : 0), "pid",
			  (json_int_t)pid, "tid", (json_int_t)pid, "args", "ppid",
			  (json_int_t)bndl_json_int(p, "ppid", 0), "exit", ended));
	json_array_foreach (execs, i, e) {
		json_t *argv = json_object_get(e, "argv");

		emit(x,
		     json_pack("{s:s,s:s,s:s,s:s,s:o,s:I,s:I,s:{s:O?,s:O?}}", "name", "exec", "cat",
			       "process", "ph", "i", "s", "t", "ts",
			       us(bndl_json_int(e, "t_ns", start)), "pid", (json_int_t)pid, "tid",
			       (json_int_t)pid, "args", "path", json_object_get(e, "path"), "argv",
			       json_is_array(argv) ? argv : NULL));
	}
	if (json_is_object(json_object_get(p, "exit")))
		emit(x, json_pack("{s:s,s:s,s:s,s:s,s:o,s:I,s:I}", "name", ended, "cat", "process",
				  "ph", "i", "s", "t", "ts", us(end), "pid", (json_int_t)pid, "tid",
				  (json_int_t)pid));
	return x->write_errno != 0 ? repro_err_set(err, x->write_errno, "cannot write the trace")
				   : 0;
}

/* A thread other than the leader gets its name the first time one of its calls comes. */
static void name_thread(struct exporter *x, int64_t pid, int64_t tid)
{
	char key[24], name[48];

	if (tid == pid)
		return;
	snprintf(key, sizeof(key), "%" PRId64, tid);
	if (json_object_get(x->threads, key) != NULL)
		return;
	json_object_set_new(x->threads, key, json_true());
	snprintf(name, sizeof(name), "thread %" PRId64, tid);
	emit(x, json_pack("{s:s,s:s,s:I,s:I,s:{s:s}}", "name", "thread_name", "ph", "M", "pid",
			  (json_int_t)pid, "tid", (json_int_t)tid, "args", "name", name));
}

/* "ok", "failed", "injected" (a fault rule's), "imposed" (a replay's). */
static const char *category(json_t *ev)
{
	if (json_is_true(json_object_get(ev, "imposed")))
		return "imposed";
	if (json_is_true(json_object_get(ev, "injected")))
		return "injected";
	return bndl_json_str(ev, "errno") != NULL ? "failed" : "ok";
}

/* The event's facts a timeline shows when a call is picked: what it was given, what it got. */
static json_t *call_args(json_t *ev)
{
	static const char *const keys[] = { "seq", "path",  "newpath", "addr",	 "fd",	"flags",
					    "ret", "errno", "rule",    "origin", "argv" };
	json_t *args = json_object();

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_object_get(ev, keys[i]) != NULL)
			json_object_set(args, keys[i], json_object_get(ev, keys[i]));
	return args;
}

static int on_event(void *ctx, json_t *ev, size_t lineno, struct repro_err **err)
{
	struct exporter *x = ctx;
	int64_t pid = bndl_json_int(ev, "pid", 0), tid = bndl_json_int(ev, "tid", pid);
	int64_t dur = bndl_json_int(ev, "dur_ns", 0);
	const char *sc = bndl_json_str(ev, "syscall");

	(void)lineno;
	name_thread(x, pid, tid);
	emit(x, json_pack("{s:s,s:s,s:s,s:o,s:o,s:I,s:I,s:o}", "name", sc != NULL ? sc : "?", "cat",
			  category(ev), "ph", "X", "ts", us(bndl_json_int(ev, "t_ns", 0)), "dur",
			  us(dur > 0 ? dur : 0), "pid", (json_int_t)pid, "tid", (json_int_t)tid,
			  "args", call_args(ev)));
	return x->write_errno != 0 ? repro_err_set(err, x->write_errno, "cannot write the trace")
				   : 0;
}

static int on_wait(void *ctx, json_t *w, size_t lineno, struct repro_err **err)
{
	struct exporter *x = ctx;
	int64_t pid = bndl_json_int(w, "pid", 0), tid = bndl_json_int(w, "tid", pid);
	int64_t dur = bndl_json_int(w, "dur_ns", 0);
	cleanup_free char *name = repro_xasprintf(
		"wait: %s %s", bndl_json_str(w, "what") ? bndl_json_str(w, "what") : "?",
		bndl_json_str(w, "syscall") ? bndl_json_str(w, "syscall") : "?");
	json_t *args = json_deep_copy(w);

	(void)lineno;
	json_object_del(args, "pid");
	json_object_del(args, "tid");
	json_object_del(args, "t_ns");
	json_object_del(args, "dur_ns");
	name_thread(x, pid, tid);
	emit(x, json_pack("{s:s,s:s,s:s,s:o,s:o,s:I,s:I,s:o}", "name", name, "cat", "wait", "ph",
			  "X", "ts", us(bndl_json_int(w, "t_ns", 0)), "dur", us(dur > 0 ? dur : 0),
			  "pid", (json_int_t)pid, "tid", (json_int_t)tid, "args", args));
	return x->write_errno != 0 ? repro_err_set(err, x->write_errno, "cannot write the trace")
				   : 0;
}

int rpl_export_chrome_trace(const struct rpl_export_opts *opts, FILE *out, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r =
		bndl_reader_open_limited(opts->bundle_path, opts->limits, err);
	cleanup_json json_t *threads = json_object();
	struct exporter x = { .out = out, .threads = threads };
	cleanup_json json_t *other = NULL;
	json_t *m;

	if (r == NULL)
		return -1;
	m = bndl_reader_manifest(r);
	other = json_pack("{s:s,s:O?,s:O?,s:O?,s:s}", "source", "repro", "argv",
			  json_object_get(m, "argv"), "cwd", json_object_get(m, "cwd"), "exit",
			  json_object_get(m, "exit"), "units",
			  "ts and dur in microseconds since the program's start");
	x.head = other;
	/* older bundles lack waits.jsonl */
	if (bndl_reader_foreach_opt(r, BNDL_PROCESSES_JSONL, on_process, &x, err) < 0 ||
	    bndl_reader_foreach_opt(r, BNDL_EVENTS_JSONL, on_event, &x, err) < 0 ||
	    bndl_reader_foreach_opt(r, BNDL_WAITS_JSONL, on_wait, &x, err) < 0 ||
	    bndl_reader_finish(r, err) < 0)
		return -1;
	put_head(&x);
	fputs("\n]}\n", out);
	if (fflush(out) != 0 || ferror(out))
		return repro_err_set(err, errno != 0 ? errno : EIO, "cannot write the trace");
	return 0;
}
