/*
 * The "Time" section of `repro show`: the wall time of each process split
 * into time in long waits and the rest, and the longest waits
 * (waits.jsonl, docs/bundle-format.md).
 */
#include "replayer/readers/show_internal.h"
#include "bundles/members.h"
#include "replayer/readers/wait_text.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Keep w among the RPL_TIME_LONGEST longest (insertion into a sorted array of at most that many). */
static void keep_longest(struct rpl_time *t, json_t *w)
{
	int64_t d = bndl_json_int(w, "dur_ns", 0);
	size_t i = t->nlongest;

	if (i == RPL_TIME_LONGEST && bndl_json_int(t->longest[i - 1], "dur_ns", 0) >= d)
		return;
	if (i == RPL_TIME_LONGEST)
		json_decref(t->longest[--i]);
	else
		t->nlongest++;
	for (; i > 0 && bndl_json_int(t->longest[i - 1], "dur_ns", 0) < d; i--)
		t->longest[i] = t->longest[i - 1];
	t->longest[i] = json_incref(w);
}

static int on_wait(void *ctx, json_t *w, size_t lineno, struct repro_err **err)
{
	struct rpl_time *t = ctx;
	char key[32];
	int64_t pid = bndl_json_int(w, "pid", 0);

	(void)lineno;
	(void)err;
	t->total++;
	rpl_sockidx_join(&t->socks, w);
	keep_longest(t, w);
	/* the time of the process's main thread, so that threads waiting together count once */
	if (bndl_json_int(w, "tid", 0) != pid)
		return 0;
	snprintf(key, sizeof(key), "%" PRId64, pid);
	json_object_set_new(
		t->by_pid, key,
		json_integer(bndl_json_int(t->by_pid, key, 0) + bndl_json_int(w, "dur_ns", 0)));
	return 0;
}

int rpl_time_load(struct bndl_reader *r, struct rpl_time *t, struct repro_err **err)
{
	int has = bndl_reader_has(r, BNDL_WAITS_JSONL, err);

	if (has < 0)
		return -1;
	t->present = has > 0;
	if (t->by_pid == NULL)
		t->by_pid = json_object();
	if (t->socks.by_fd == NULL)
		rpl_sockidx_init(&t->socks);
	return has ? bndl_reader_foreach(r, BNDL_WAITS_JSONL, on_wait, t, err) : 0;
}

void rpl_time_release(struct rpl_time *t)
{
	for (size_t i = 0; i < t->nlongest; i++)
		json_decref(t->longest[i]);
	json_decref(t->by_pid);
	rpl_sockidx_release(&t->socks);
	*t = (struct rpl_time){ .nlongest = 0 };
}

struct proc_time {
	json_t *proc; /* borrowed */
	int64_t wall, waiting;
};

static int by_waiting(const void *a, const void *b)
{
	const struct proc_time *x = a, *y = b;

	if (x->waiting != y->waiting)
		return x->waiting > y->waiting ? -1 : 1;
	return x->wall > y->wall ? -1 : x->wall < y->wall;
}

/* The argv of proc's last exec (borrowed; NULL without one). */
static json_t *last_argv(json_t *proc)
{
	json_t *execs = json_object_get(proc, "execs");

	return json_object_get(json_array_get(execs, json_array_size(execs) - 1), "argv");
}

/* "python3 webui.py" from the last exec's argv (at most 3 words), or "(fork)". */
static void put_label(FILE *f, json_t *proc)
{
	json_t *argv = last_argv(proc);
	size_t i;
	json_t *a;

	if (json_array_size(argv) == 0)
		fputs("(fork)", f);
	json_array_foreach (argv, i, a) {
		if (i == 3) {
			fputs(" …", f);
			break;
		}
		fprintf(f, "%s%s", i ? " " : "", json_is_string(a) ? json_string_value(a) : "?");
	}
}

/* Print what f wrote to the memstream, through the terminal sanitiser. */
static void flush_line(FILE *out, FILE *f, char **buf)
{
	if (fclose(f) == 0 && *buf != NULL)
		repro_term_puts(out, *buf);
	free(*buf);
	*buf = NULL;
	fputc('\n', out);
}

static void put_proc(FILE *out, const struct proc_time *pt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int64_t rest = pt->wall - pt->waiting;

	if (f == NULL)
		return;
	fprintf(f, "  pid %" PRId64 " ", bndl_json_int(pt->proc, "pid", 0));
	put_label(f, pt->proc);
	fputs(": ", f);
	rpl_wait_put_secs(f, pt->wall);
	if (pt->waiting > 0) {
		fputs(", waiting ", f);
		rpl_wait_put_secs(f, pt->waiting);
		fprintf(f, " (%.0f%%)",
			pt->wall > 0 ? 100.0 * (double)pt->waiting / (double)pt->wall : 100.0);
	}
	fputs(", running or in short calls ", f);
	rpl_wait_put_secs(f, rest > 0 ? rest : 0);
	flush_line(out, f, &buf);
}

/* Names of processes for wait_text.h: the label of a pid of procs. */
struct show_names {
	json_t *procs; /* borrowed: processes.jsonl's records */
	char buf[160]; /* the last label */
};

/* The label of pid, as the process list shows it; NULL without an exec.  Linear in procs. */
static const char *label_of(void *ctx, int64_t pid)
{
	struct show_names *n = ctx;
	FILE *f;
	size_t i;
	json_t *p;

	json_array_foreach (n->procs, i, p) {
		if (bndl_json_int(p, "pid", 0) != pid || json_array_size(last_argv(p)) == 0)
			continue;
		memset(n->buf, 0, sizeof(n->buf));
		if ((f = fmemopen(n->buf, sizeof(n->buf) - 1, "w")) == NULL)
			return NULL;
		put_label(f, p);
		fclose(f);
		return n->buf;
	}
	return NULL;
}

static void put_longest(FILE *out, json_t *w, const struct rpl_wait_names *names)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return;
	fputs("    ", f);
	rpl_wait_put_secs(f, bndl_json_int(w, "dur_ns", 0));
	fprintf(f, "  pid %" PRId64 " at %.2f s ", bndl_json_int(w, "pid", 0),
		(double)bndl_json_int(w, "t_ns", 0) / 1e9);
	rpl_wait_put_on(f, w, names);
	rpl_wait_put_end(f, w);
	flush_line(out, f, &buf);
}

void rpl_time_put(FILE *out, bool color, const struct rpl_time *t, json_t *procs, int64_t run_ns)
{
	size_t n = json_array_size(procs), shown = 0;
	cleanup_free struct proc_time *pt = repro_xcalloc(n + 1, sizeof(*pt));
	struct show_names by_pid = { .procs = procs };
	const struct rpl_wait_names names = { .label = label_of, .ctx = &by_pid };
	size_t i;
	json_t *p;

	fprintf(out, "\n%sTime%s (wall ", color ? BOLD : "", color ? RESET : "");
	rpl_wait_put_secs(out, run_ns);
	fputs("; waits of 1 s or more, sampled every 250 ms)\n", out);
	json_array_foreach (procs, i, p) {
		char key[32];
		int64_t start = bndl_json_int(p, "start_ns", 0);
		int64_t end = bndl_json_int(p, "end_ns", run_ns);

		snprintf(key, sizeof(key), "%" PRId64, bndl_json_int(p, "pid", 0));
		pt[i].proc = p;
		pt[i].wall = end > start ? end - start : 0;
		pt[i].waiting = bndl_json_int(t->by_pid, key, 0);
		if (pt[i].waiting > pt[i].wall)
			pt[i].waiting = pt[i].wall;
	}
	qsort(pt, n, sizeof(*pt), by_waiting);
	for (i = 0; i < n && shown < RPL_TIME_PROCS && (pt[i].waiting > 0 || i == 0); i++, shown++)
		put_proc(out, &pt[i]);
	if (n > shown)
		fprintf(out, "  %zu other process%s%s\n", n - shown, n - shown == 1 ? "" : "es",
			shown == RPL_TIME_PROCS ? ", waiting less" : ": no long wait");
	if (t->nlongest == 0) {
		fputs("  no wait of 1 s or more\n", out);
		return;
	}
	fputs("  Longest waits\n", out);
	for (i = 0; i < t->nlongest; i++)
		put_longest(out, t->longest[i], &names);
	if (t->total > t->nlongest)
		fprintf(out, "    ... %zu more (waits.jsonl)\n", t->total - t->nlongest);
}
