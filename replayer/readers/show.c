#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "replayer/readers/show.h"
#include "bundles/members.h"
#include "replayer/readers/show_internal.h"
#include "bundles/json_util.h"
#include "common/map.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INDENT 40 /* levels; deeper processes are drawn at this depth */
#define NONE SIZE_MAX

/* The last failures of one process: a ring of cap entries, or a growing list when cap is 0. */
struct fail_ring {
	json_t **evs; /* owned references */
	size_t cap;
	size_t n;
	size_t head; /* oldest entry, when full */
	size_t alloc;
	uint64_t total;
};

struct show_proc {
	json_t *obj; /* borrowed from show_state.procs; NULL for a pid seen only in events */
	int32_t pid;
	size_t parent;
	size_t first_child;
	size_t last_child;
	size_t next_sibling;
	size_t depth;
	struct fail_ring fails;
};

struct show_state {
	const struct rpl_show_opts *opts; /* borrowed */
	FILE *out; /* borrowed */
	json_t *procs; /* processes.jsonl lines */
	struct show_proc *p;
	size_t n;
	size_t alloc;
	size_t nfile; /* entries that come from processes.jsonl */
	struct repro_map *live; /* pid -> process, as of the event being read */
	size_t cursor; /* processes started so far, in file order */
};

static void ring_push(struct fail_ring *r, json_t *ev)
{
	r->total++;
	json_incref(ev);
	if (r->cap == 0 || r->n < r->cap) {
		if (r->n == r->alloc) {
			r->alloc = r->alloc ? r->alloc * 2 : (r->cap ? r->cap : 16);
			r->evs = repro_xreallocarray(r->evs, r->alloc, sizeof(*r->evs));
		}
		r->evs[r->n++] = ev;
		return;
	}
	json_decref(r->evs[r->head]);
	r->evs[r->head] = ev;
	r->head = (r->head + 1) % r->cap;
}

/* The i-th newest failure kept (i < r->n). */
static json_t *ring_newest(const struct fail_ring *r, size_t i)
{
	if (r->cap == 0 || r->n < r->cap)
		return r->evs[r->n - 1 - i];
	return r->evs[(r->head + r->n - 1 - i) % r->cap];
}

static void show_state_release(struct show_state *st)
{
	for (size_t i = 0; i < st->n; i++) {
		for (size_t j = 0; j < st->p[i].fails.n; j++)
			json_decref(st->p[i].fails.evs[j]);
		free(st->p[i].fails.evs);
	}
	free(st->p);
	json_decref(st->procs);
	repro_map_free(st->live);
}
#define cleanup_show_state __attribute__((cleanup(show_state_release)))

static size_t proc_add(struct show_state *st, json_t *obj, int32_t pid)
{
	if (st->n == st->alloc) {
		st->alloc = st->alloc ? st->alloc * 2 : 16;
		st->p = repro_xreallocarray(st->p, st->alloc, sizeof(*st->p));
	}
	st->p[st->n] = (struct show_proc){
		.obj = obj,
		.pid = pid,
		.parent = NONE,
		.first_child = NONE,
		.last_child = NONE,
		.next_sibling = NONE,
		.fails = { .cap = st->opts->all ? 0 : RPL_SHOW_FAILURES },
	};
	return st->n++;
}

/* ---- reading ---- */

static int on_process(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct show_state *st = ctx;

	/* a hostile bundle may list millions of tiny processes: bound the memory */
	if (json_array_size(st->procs) >= RPL_SHOW_MAX_PROCS)
		return repro_err_set(err, EPROTO,
				     "processes.jsonl line %zu: more than %u processes", lineno,
				     RPL_SHOW_MAX_PROCS);
	json_array_append(st->procs, obj);
	return 0;
}

static void link_child(struct show_state *st, size_t parent, size_t child)
{
	st->p[child].parent = parent;
	st->p[child].depth = st->p[parent].depth + 1;
	if (st->p[parent].last_child == NONE)
		st->p[parent].first_child = child;
	else
		st->p[st->p[parent].last_child].next_sibling = child;
	st->p[parent].last_child = child;
}

/*
 * Index the processes and link each to its parent: the latest process with
 * that pid started before it (processes.jsonl is in start order, so a reused
 * pid resolves to the right one).
 */
static void build_tree(struct show_state *st)
{
	cleanup_map struct repro_map *seen = repro_map_new();
	size_t i, parent;
	json_t *obj;

	json_array_foreach (st->procs, i, obj) {
		size_t k = proc_add(st, obj, (int32_t)bndl_json_int(obj, "pid", -1));
		int64_t ppid = bndl_json_int(obj, "ppid", 0);

		if (ppid != 0 && repro_map_get(seen, (uint32_t)(int32_t)ppid, &parent))
			link_child(st, parent, k);
		repro_map_put(seen, (uint32_t)st->p[k].pid, k);
	}
	st->nfile = st->n;
}

/* The process an event at t_ns with pid belongs to; events of unknown pids get their own entry. */
static size_t proc_for_event(struct show_state *st, int32_t pid, int64_t t_ns)
{
	size_t k;

	while (st->cursor < st->nfile &&
	       bndl_json_int(st->p[st->cursor].obj, "start_ns", 0) <= t_ns) {
		repro_map_put(st->live, (uint32_t)st->p[st->cursor].pid, st->cursor);
		st->cursor++;
	}
	if (repro_map_get(st->live, (uint32_t)pid, &k))
		return k;
	/* an event stamped before its process's start: take the next process with that pid */
	for (k = st->cursor; k < st->nfile; k++)
		if (st->p[k].pid == pid)
			break;
	if (k == st->nfile) {
		if (st->n >= 2 * RPL_SHOW_MAX_PROCS)
			return NONE;
		k = proc_add(st, NULL, pid);
	}
	repro_map_put(st->live, (uint32_t)pid, k); /* found once, not searched again */
	return k;
}

static bool is_failure(json_t *ev)
{
	json_t *ret = json_object_get(ev, "ret");

	return json_is_integer(ret) && json_integer_value(ret) < 0;
}

static int on_event(void *ctx, json_t *ev, size_t lineno, struct repro_err **err)
{
	struct show_state *st = ctx;
	size_t k;

	if (!is_failure(ev))
		return 0;
	k = proc_for_event(st, (int32_t)bndl_json_int(ev, "pid", -1), bndl_json_int(ev, "t_ns", 0));
	if (k == NONE)
		return repro_err_set(err, EPROTO,
				     "events.jsonl line %zu: events of more than %u unknown "
				     "processes",
				     lineno, RPL_SHOW_MAX_PROCS);
	ring_push(&st->p[k].fails, ev);
	return 0;
}

static int load(struct show_state *st, struct bndl_reader *r, struct repro_err **err)
{
	if (bndl_reader_foreach(r, BNDL_PROCESSES_JSONL, on_process, st, err) < 0)
		return -1;
	build_tree(st);
	return bndl_reader_foreach(r, BNDL_EVENTS_JSONL, on_event, st, err);
}

/* ---- ordering of the failure groups ---- */

struct group_key {
	size_t idx;
	int rank; /* 0: failed (non-zero exit or signal); 1: the rest */
	uint64_t end; /* end_ns, UINT64_MAX when still running or unknown */
};

static bool proc_failed(const json_t *obj)
{
	json_t *ex = json_object_get(obj, "exit");

	if (!json_is_object(ex))
		return false;
	return json_object_get(ex, "signal") != NULL || bndl_json_int(ex, "code", 0) != 0;
}

static int group_cmp(const void *a, const void *b)
{
	const struct group_key *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/*
	 * Failed processes: the first to fail first, since a failure usually
	 * travels up from a child to the script that started it.  The rest:
	 * the last to end first.
	 */
	if (x->end != y->end)
		return (x->end < y->end) == (x->rank == 0) ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Processes with failures, in display order; *count gets their number. */
static struct group_key *failure_groups(const struct show_state *st, size_t *count)
{
	struct group_key *keys = repro_xcalloc(st->n ? st->n : 1, sizeof(*keys));
	size_t m = 0;

	for (size_t i = 0; i < st->n; i++) {
		const struct show_proc *p = &st->p[i];
		json_t *end = json_object_get(p->obj, "end_ns");

		if (p->fails.total == 0)
			continue;
		keys[m] = (struct group_key){
			.idx = i,
			.rank = proc_failed(p->obj) ? 0 : 1,
			.end = json_is_integer(end) ? (uint64_t)json_integer_value(end)
						    : UINT64_MAX,
		};
		m++;
	}
	qsort(keys, m, sizeof(*keys), group_cmp);
	*count = m;
	return keys;
}

/* ---- JSON view ---- */

static json_t *failures_json(const struct show_state *st)
{
	size_t ngroups = 0;
	cleanup_free struct group_key *keys = failure_groups(st, &ngroups);
	json_t *arr = json_array();

	for (size_t g = 0; g < ngroups; g++) {
		const struct show_proc *p = &st->p[keys[g].idx];
		json_t *evs = json_array();

		for (size_t i = 0; i < p->fails.n; i++)
			json_array_append(evs, ring_newest(&p->fails, i));
		json_array_append_new(arr, json_pack("{s:i,s:I,s:o}", "pid", p->pid, "total",
						     (json_int_t)p->fails.total, "events", evs));
	}
	return arr;
}

static int show_json(struct show_state *st, struct bndl_reader *r, struct repro_err **err)
{
	cleanup_json json_t *doc = json_object();

	json_object_set(doc, "manifest", bndl_reader_manifest(r));
	json_object_set(doc, "processes", st->procs);
	json_object_set_new(doc, "failures", failures_json(st));
	if (bndl_json_write(doc, st->out, JSON_INDENT(2) | JSON_ENSURE_ASCII) < 0 ||
	    fputc('\n', st->out) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	return 0;
}

/* ---- text view ---- */

/* Write s with control characters escaped: a bundle must not drive the terminal. */
size_t rpl_utf8_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--; /* s[n] continues a character: cut before that character */
	return n;
}

static bool needs_quotes(const char *s)
{
	if (*s == '\0')
		return true;
	for (; *s != '\0'; s++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./"
			   ":=@%+,-",
			   *s) == NULL)
			return true;
	return false;
}

/*
 * One word, single-quoted for sh(1) when it needs to be ('it'\''s'),
 * through the terminal sanitiser and cut as repro_term_puts() cuts.
 */
static void put_word(FILE *out, const char *s)
{
	size_t len = strlen(s), end = rpl_utf8_cut(s, REPRO_TERM_CUT);

	if (!needs_quotes(s)) {
		repro_term_puts(out, s);
		return;
	}
	fputc('\'', out);
	for (size_t at = 0; at < end;) {
		const char *q = memchr(s + at, '\'', end - at);
		size_t n = q != NULL ? (size_t)(q - (s + at)) : end - at;

		(void)repro_term_write(out, s + at, n, false, false);
		at += n;
		if (q != NULL) {
			fputs("'\\''", out);
			at++;
		}
	}
	fputc('\'', out);
	if (end < len)
		fprintf(out, "...[%zu bytes]", len);
}

/*
 * The argv as shell words; past REPRO_TERM_CUT bytes of them (each word is
 * cut there too) the rest is counted: "...[N more words]", so a 10 MB
 * command line is one readable line.
 */
static void put_argv(FILE *out, json_t *argv)
{
	size_t i, shown = 0;
	json_t *a;

	json_array_foreach (argv, i, a) {
		const char *w = json_is_string(a) ? json_string_value(a) : "?";
		size_t n = strlen(w);

		if (shown > REPRO_TERM_CUT) {
			fprintf(out, " ...[%zu more words]", json_array_size(argv) - i);
			return;
		}
		if (i > 0)
			fputc(' ', out);
		put_word(out, w);
		shown += (n < REPRO_TERM_CUT ? n : REPRO_TERM_CUT) + 1;
	}
}

static void heading(const struct show_state *st, const char *title)
{
	if (st->opts->color)
		fprintf(st->out, BOLD "%s" RESET "\n", title);
	else
		fprintf(st->out, "%s\n", title);
}

/*
 * "exit 1" (word "exit"), "killed by SIGSEGV (core dumped)", "left running,
 * killed when the recording stopped" (proc given and left running) or
 * "unknown".
 */
static void put_exit(FILE *out, json_t *ex, json_t *proc, const char *word)
{
	if (json_is_object(ex) && json_is_string(json_object_get(ex, "signal"))) {
		fputs("killed by ", out);
		repro_term_puts(out, bndl_json_str(ex, "signal"));
		if (json_is_true(json_object_get(ex, "core_dumped")))
			fputs(" (core dumped)", out);
	} else if (json_is_object(ex) && json_is_integer(json_object_get(ex, "code"))) {
		fprintf(out, "%s %" PRId64, word, bndl_json_int(ex, "code", 0));
	} else if (proc != NULL && json_is_true(json_object_get(proc, "left_running"))) {
		fputs("left running, killed when the recording stopped", out);
	} else {
		fputs("unknown", out);
	}
}

void rpl_put_incomplete(FILE *out, json_t *manifest)
{
	json_t *d = json_object_get(manifest, "dropped");
	json_t *events = json_object_get(d, "events");
	int64_t procs = bndl_json_int(d, "process_records", 0);
	const char *errname = bndl_json_str(d, "errno") != NULL ? bndl_json_str(d, "errno") : "";

	if (!json_is_true(json_object_get(manifest, "incomplete")))
		return;
	fputs("Incomplete bundle: ", out);
	if (!json_is_object(d)) {
		fputs("the spool was cut short or damaged, so the recording lacks its end (see the "
		      "warnings)\n",
		      out);
		return;
	}
	if (json_is_integer(events))
		fprintf(out, "%lld event%s", (long long)json_integer_value(events),
			json_integer_value(events) == 1 ? "" : "s");
	else
		fputs("events", out);
	fprintf(out, " after %.2f s were not recorded (",
		(double)bndl_json_int(d, "since_ns", 0) / 1e9);
	if (strcmp(errname, "EDQUOT") == 0)
		fputs("EDQUOT: the disk quota on the spool's filesystem was exceeded); ", out);
	else
		fputs("ENOSPC: the spool's filesystem was full); ", out);
	if (procs > 0)
		fprintf(out, "%" PRId64 " process records were lost too\n", procs);
	else if (json_is_integer(events))
		fputs("processes and exit statuses are complete\n", out);
	else
		fputs("the recording did not end normally\n", out);
}

static void show_run(const struct show_state *st, json_t *m)
{
	json_t *counts = json_object_get(m, "counts");
	json_t *w = json_object_get(m, "warnings");
	FILE *out = st->out;
	size_t i;
	json_t *v;

	heading(st, "Run");
	fputs("  command   ", out);
	put_argv(out, json_object_get(m, "argv"));
	fputs("\n  cwd       ", out);
	repro_term_puts(out, bndl_json_str(m, "cwd"));
	fputs("\n  started   ", out);
	repro_term_puts(out, bndl_json_str(m, "started_at"));
	/* no exit: the recorder was cut short, and the run lasted at least until its last record */
	fprintf(out, "\n  duration  %s%.2f s%s\n  exit      ",
		json_is_object(json_object_get(m, "exit")) ? "" : "at least ",
		(double)bndl_json_int(m, "duration_ns", 0) / 1e9,
		json_is_object(json_object_get(m, "exit")) ? "" : " (its end was not recorded)");
	put_exit(out, json_object_get(m, "exit"), NULL, "code");
	fprintf(out,
		"\n  counts    %" PRId64 " event%s, %" PRId64 " failed, %" PRId64 " process%s\n",
		bndl_json_int(counts, "events", 0),
		bndl_json_int(counts, "events", 0) == 1 ? "" : "s",
		bndl_json_int(counts, "failed", 0), bndl_json_int(counts, "processes", 0),
		bndl_json_int(counts, "processes", 0) == 1 ? "" : "es");
	json_array_foreach (w, i, v) {
		fputs("  warning   ", out);
		repro_term_puts(out, json_string_value(v));
		fputc('\n', out);
	}
}

/* "fork of 3204": a process that never exec'd (or whose exec failed) runs its parent's program. */
static void put_fork(FILE *out, json_t *proc)
{
	fprintf(out, "fork of %lld", (long long)bndl_json_int(proc, "ppid", 0));
}

/* "bash start_app.sh -> python3 webui.py": the argv of every exec; "(fork of 3204)". */
static void put_execs(FILE *out, json_t *proc)
{
	json_t *execs = json_object_get(proc, "execs");
	size_t i;
	json_t *e;

	if (json_array_size(execs) == 0) {
		fputc('(', out);
		put_fork(out, proc);
		fputc(')', out);
		return;
	}
	json_array_foreach (execs, i, e) {
		if (i > 0)
			fputs(" -> ", out);
		put_argv(out, json_object_get(e, "argv"));
	}
}

static void show_proc_line(const struct show_state *st, size_t k)
{
	const struct show_proc *p = &st->p[k];
	size_t depth = p->depth < MAX_INDENT ? p->depth : MAX_INDENT;

	fprintf(st->out, "  %*s%d ", (int)(2 * depth), "", p->pid);
	put_execs(st->out, p->obj);
	fputs("  [", st->out);
	put_exit(st->out, json_object_get(p->obj, "exit"), p->obj, "exit");
	fputs("]\n", st->out);
}

/* Walk the tree in order without recursion (a hostile bundle may nest deeply). */
static void show_tree(const struct show_state *st)
{
	heading(st, "Processes");
	for (size_t root = 0; root < st->nfile; root++) {
		size_t k = root;

		if (st->p[root].parent != NONE)
			continue;
		for (;;) {
			show_proc_line(st, k);
			if (st->p[k].first_child != NONE) {
				k = st->p[k].first_child;
				continue;
			}
			while (k != root && st->p[k].next_sibling == NONE)
				k = st->p[k].parent;
			if (k == root)
				break;
			k = st->p[k].next_sibling;
		}
	}
}

static void put_addr(FILE *out, json_t *addr)
{
	const char *family = bndl_json_str(addr, "family");

	if (family != NULL && strcmp(family, "AF_INET6") == 0) {
		fputc('[', out);
		repro_term_puts(out, bndl_json_str(addr, "ip"));
		fprintf(out, "]:%" PRId64, bndl_json_int(addr, "port", 0));
	} else if (family != NULL && strcmp(family, "AF_INET") == 0) {
		repro_term_puts(out, bndl_json_str(addr, "ip"));
		fprintf(out, ":%" PRId64, bndl_json_int(addr, "port", 0));
	} else if (bndl_json_str(addr, "path") != NULL) {
		repro_term_puts(out, bndl_json_str(addr, "path"));
	} else if (bndl_json_str(addr, "abstract") != NULL) {
		fputc('@', out);
		repro_term_puts(out, bndl_json_str(addr, "abstract"));
	} else {
		repro_term_puts(out, family != NULL ? family : "?");
	}
}

/* "  openat /srv/app/x O_RDONLY -> ENOENT": the call, what it named, and its errno. */
static void show_failure(const struct show_state *st, json_t *ev)
{
	FILE *out = st->out;
	const char *en = bndl_json_str(ev, "errno");

	fputs("  ", out);
	repro_term_puts(out, bndl_json_str(ev, "syscall") ? bndl_json_str(ev, "syscall") : "?");
	if (bndl_json_str(ev, "path") != NULL) {
		fputc(' ', out);
		repro_term_puts(out, bndl_json_str(ev, "path"));
	}
	if (bndl_json_str(ev, "newpath") != NULL) {
		fputc(' ', out);
		repro_term_puts(out, bndl_json_str(ev, "newpath"));
	}
	if (json_is_object(json_object_get(ev, "addr"))) {
		fputc(' ', out);
		put_addr(out, json_object_get(ev, "addr"));
	} else if (bndl_json_str(ev, "path") == NULL &&
		   json_is_integer(json_object_get(ev, "fd"))) {
		fprintf(out, " fd %" PRId64, bndl_json_int(ev, "fd", 0));
	}
	/* "0" says nothing on a line that is about the outcome */
	if (bndl_json_str(ev, "flags") != NULL && strcmp(bndl_json_str(ev, "flags"), "0") != 0) {
		fputc(' ', out);
		repro_term_puts(out, bndl_json_str(ev, "flags"));
	}
	fputs(" -> ", out);
	if (st->opts->color)
		fputs(RED, out);
	repro_term_puts(out, en != NULL ? en : "error");
	if (st->opts->color)
		fputs(RESET, out);
	if (json_is_true(json_object_get(ev, "imposed")) &&
	    json_is_integer(json_object_get(ev, "origin")))
		fprintf(out, " (imposed again: recorded event %" JSON_INTEGER_FORMAT ")\n",
			json_integer_value(json_object_get(ev, "origin")));
	else if (json_is_true(json_object_get(ev, "injected")) &&
		 json_is_integer(json_object_get(ev, "rule")))
		fprintf(out, " (injected by rule %" JSON_INTEGER_FORMAT ")\n",
			json_integer_value(json_object_get(ev, "rule")));
	else
		fputs(json_is_true(json_object_get(ev, "injected")) ? " (injected)\n" : "\n", out);
}

static void show_group(const struct show_state *st, const struct show_proc *p)
{
	json_t *execs = json_object_get(p->obj, "execs");
	json_t *last = json_array_get(execs, json_array_size(execs) - 1);

	fprintf(st->out, "pid %d (", p->pid);
	if (last != NULL)
		put_argv(st->out, json_object_get(last, "argv"));
	else
		put_fork(st->out, p->obj);
	fputc(')', st->out);
	fputs(", ", st->out);
	put_exit(st->out, json_object_get(p->obj, "exit"), p->obj, "exit");
	fprintf(st->out, ", %" PRIu64 " failed\n", p->fails.total);
	for (size_t i = 0; i < p->fails.n; i++)
		show_failure(st, ring_newest(&p->fails, i));
	if (p->fails.total > p->fails.n)
		fprintf(st->out, "  ... %" PRIu64 " more\n", p->fails.total - p->fails.n);
}

static void show_failures(const struct show_state *st)
{
	size_t ngroups = 0;
	cleanup_free struct group_key *keys = failure_groups(st, &ngroups);

	heading(st, "Failed calls");
	if (ngroups == 0)
		fputs("  none\n", st->out);
	for (size_t g = 0; g < ngroups; g++)
		show_group(st, &st->p[keys[g].idx]);
}

static int show_text(struct show_state *st, struct bndl_reader *r, struct repro_err **err)
{
	struct rpl_time time = { .present = false };
	int rc;

	rpl_put_incomplete(st->out, bndl_reader_manifest(r));
	show_run(st, bndl_reader_manifest(r));
	fputc('\n', st->out);
	show_tree(st);
	fputc('\n', st->out);
	show_failures(st);
	rc = rpl_views_failed(r, st->out, st->opts->color, st->opts->all ? 0 : RPL_SHOW_FAILURES,
			      &time, err);
	if (rc == 0 && time.present)
		rpl_time_put(st->out, st->opts->color, &time, st->procs,
			     bndl_json_int(bndl_reader_manifest(r), "duration_ns", 0));
	rpl_time_release(&time);
	if (rc == 0)
		rc = rpl_overlay_put(r, st->out, st->opts->color, err);
	if (rc < 0)
		return -1;
	if (fflush(st->out) == EOF || ferror(st->out))
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	return 0;
}

int rpl_show_run(const struct rpl_show_opts *opts, FILE *out, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = NULL;
	cleanup_show_state struct show_state st = {
		.opts = opts, .out = out, .procs = json_array(), .live = repro_map_new()
	};

	r = bndl_reader_open_limited(opts->bundle_path, opts->limits, err);
	if (r == NULL)
		return -1;
	if (opts->trace) {
		if (bndl_reader_copy(r, BNDL_TRACE_TXT, out, err) < 0)
			return -1;
	} else if (opts->view != RPL_VIEW_SUMMARY) {
		if (rpl_views_show(r, opts->view, opts->json, out, err) < 0)
			return -1;
	} else if (load(&st, r, err) < 0 ||
		   (opts->json ? show_json(&st, r, err) : show_text(&st, r, err)) < 0) {
		return -1;
	}
	if (fflush(out) == EOF || ferror(out))
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	/* the rest of the archive: a member name seen twice is an error still */
	return bndl_reader_finish(r, err);
}
