/*
 * `repro report`: what the page shows of a bundle, gathered in one pass of
 * its members (replayer/readers/report.h); report_html.c draws it.
 */
#include "replayer/readers/report_internal.h"
#include "bundles/members.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "replayer/readers/diff.h"
#include "replayer/readers/explain.h"
#include "replayer/readers/normalize.h"
#include "replayer/readers/wait_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct gather {
	struct rpt_side *s;
	struct bndl_reader *r;
};

size_t rpt_cut_len(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

char *rpt_addr_words(json_t *a)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return repro_xstrdup("");
	(void)rpl_put_addr(f, a);
	if (fclose(f) != 0 || text == NULL) {
		free(text);
		return repro_xstrdup("");
	}
	return text;
}

char *rpt_call_words(json_t *ev, bool target_only)
{
	const char *sc = bndl_json_str(ev, "syscall"), *er = bndl_json_str(ev, "errno");
	json_t *addr = json_object_get(ev, "addr");
	cleanup_free char *target = NULL;

	if (bndl_json_str(ev, "path") != NULL)
		target = repro_xstrdup(bndl_json_str(ev, "path"));
	else if (json_is_object(addr))
		target = rpt_addr_words(addr);
	else if (json_is_integer(json_object_get(ev, "fd")))
		target = repro_xasprintf("fd %" PRId64, bndl_json_int(ev, "fd", -1));
	else
		target = repro_xstrdup("");
	if (target_only)
		return repro_xstrdup(target);
	return repro_xasprintf("%s %s%s%s", sc != NULL ? sc : "?", er != NULL ? er : "ok",
			       target[0] != '\0' ? " " : "", target);
}

/* The run's explain findings as JSON into s->explain; -1 with *err when explain failed. */
static int read_explain(struct rpt_side *s, const struct bndl_limits *limits,
			struct repro_err **err)
{
	struct rpl_explain_opts eo = { .bundle_path = s->path, .limits = limits };

	return rpl_explain_findings(&eo, &s->explain, err);
}

/* The events each finding names as evidence (RPT_EVIDENCE each), to keep when they pass. */
static void want_evidence(struct rpt_side *s)
{
	json_t *f, *seq;
	size_t i, j;

	s->evidence = json_object();
	json_array_foreach (json_object_get(s->explain, "findings"), i, f) {
		json_t *seqs = json_object_get(json_object_get(f, "evidence"), "events");

		json_array_foreach (seqs, j, seq) {
			char key[24];

			if (j >= RPT_EVIDENCE)
				break;
			if (!json_is_integer(seq))
				continue;
			snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(seq));
			json_object_set_new(s->evidence, key, json_null());
		}
	}
}

/* procs[] index of pid, or RPT_SHARED. */
static size_t proc_of(const struct rpt_side *s, int64_t pid)
{
	char key[24];
	json_t *v;

	snprintf(key, sizeof(key), "%" PRId64, pid);
	v = json_object_get(s->by_pid, key);
	return json_is_integer(v) ? (size_t)json_integer_value(v) : RPT_SHARED;
}

static int on_process(void *ctx, json_t *p, size_t lineno, struct repro_err **err)
{
	struct gather *g = ctx;
	struct rpt_side *s = g->s;
	struct rpt_proc *pr;
	json_t *exit = json_object_get(p, "exit");
	char key[24];

	(void)lineno;
	(void)err;
	if (s->nprocs == s->procs_cap) {
		s->procs_cap = s->procs_cap > 0 ? s->procs_cap * 2 : 64;
		s->procs = repro_xreallocarray(s->procs, s->procs_cap, sizeof(*s->procs));
	}
	pr = &s->procs[s->nprocs];
	*pr = (struct rpt_proc){
		.pid = bndl_json_int(p, "pid", 0),
		.ppid = bndl_json_int(p, "ppid", 0),
		.start_ns = bndl_json_int(p, "start_ns", 0),
		.label = rpl_exec_label(json_object_get(p, "execs"), NULL),
		.exit = rpl_exit_words(exit),
		.bad_exit = bndl_json_str(exit, "signal") != NULL ||
			    bndl_json_int(exit, "code", 0) != 0,
		.execs = json_incref(json_object_get(p, "execs")),
		.lane = RPT_SHARED,
	};
	pr->ended = json_is_integer(json_object_get(p, "end_ns"));
	pr->end_ns = bndl_json_int(p, "end_ns", pr->start_ns);
	pr->parent = proc_of(s, pr->ppid);
	pr->before = proc_of(s, pr->pid);
	bndl_reader_charge(g->r, sizeof(*pr) + strlen(pr->label) + strlen(pr->exit) + 48);
	snprintf(key, sizeof(key), "%" PRId64, pr->pid);
	json_object_set_new(s->by_pid, key, json_integer((json_int_t)s->nprocs));
	if (pr->end_ns > s->span_ns)
		s->span_ns = pr->end_ns;
	s->nprocs++;
	return 0;
}

/*
 * The lanes: the processes that ended badly first (half the lanes at
 * most), then the others in their order, RPL_REPORT_LANES - 1 in all when
 * there are more, the rest in one shared lane.  Lanes keep the processes'
 * order.  Linear in the processes.
 */
static void pick_lanes(struct rpt_side *s)
{
	size_t room = s->nprocs <= RPL_REPORT_LANES ? s->nprocs : RPL_REPORT_LANES - 1;
	size_t bad = 0, taken = 0, n = 0;

	for (size_t i = 0; i < s->nprocs && bad < room / 2; i++)
		if (s->procs[i].bad_exit) {
			s->procs[i].lane = 0; /* chosen; numbered below */
			bad++;
		}
	taken = bad;
	for (size_t i = 0; i < s->nprocs && taken < room; i++)
		if (s->procs[i].lane == RPT_SHARED) {
			s->procs[i].lane = 0;
			taken++;
		}
	s->nlanes = taken + (s->nprocs > taken ? 1 : 0);
	s->lanes = repro_xcalloc(s->nlanes > 0 ? s->nlanes : 1, sizeof(*s->lanes));
	for (size_t i = 0; i < s->nprocs; i++) {
		if (s->procs[i].lane == RPT_SHARED) {
			s->shared_procs++;
			continue;
		}
		s->procs[i].lane = n;
		s->lanes[n++].proc = i;
	}
	if (n < s->nlanes)
		s->lanes[n].proc = RPT_SHARED;
	for (size_t i = 0; i < s->nlanes; i++)
		s->lanes[i].waits = json_array();
	if (s->span_ns < 1)
		s->span_ns = 1;
	for (size_t i = 0; i < s->nprocs; i++)
		if (!s->procs[i].ended) /* left running: until the recording's end */
			s->procs[i].end_ns = s->span_ns;
}

/*
 * procs[] index of the process pid was at t_ns: the last with that pid
 * that had started by then (a pid used again later), else the first.
 * O(processes that had that pid).
 */
static size_t proc_at(const struct rpt_side *s, int64_t pid, int64_t t_ns)
{
	size_t p = proc_of(s, pid);

	while (p != RPT_SHARED && s->procs[p].start_ns > t_ns && s->procs[p].before != RPT_SHARED)
		p = s->procs[p].before;
	return p;
}

/* The lane of process p (procs[] index or RPT_SHARED), NULL when it has none. */
static struct rpt_lane *lane_of(struct rpt_side *s, size_t p)
{
	if (s->nlanes == 0)
		return NULL;
	if (p == RPT_SHARED || s->procs[p].lane == RPT_SHARED)
		return s->lanes[s->nlanes - 1].proc == RPT_SHARED ? &s->lanes[s->nlanes - 1] : NULL;
	return &s->lanes[s->procs[p].lane];
}

/* The slot of t_ns in a lane: 0..RPL_REPORT_SLOTS-1, times outside the run clamped. */
static size_t slot_of(const struct rpt_side *s, int64_t t_ns)
{
	if (t_ns <= 0)
		return 0;
	if (t_ns >= s->span_ns)
		return RPL_REPORT_SLOTS - 1;
	return (size_t)((__int128)t_ns * RPL_REPORT_SLOTS / s->span_ns);
}

/* One more failed call of key "SYSCALL\tERRNO\tTARGET" in the count of distinct ones. */
static void count_failed(struct gather *g, json_t *ev, bool marked)
{
	struct rpt_side *s = g->s;
	cleanup_free char *target = rpt_call_words(ev, true);
	cleanup_free char *key = NULL;
	const char *sc = bndl_json_str(ev, "syscall"), *er = bndl_json_str(ev, "errno");
	json_t *row;

	key = repro_xasprintf("%s\t%s\t%s", sc != NULL ? sc : "?", er != NULL ? er : "?", target);
	row = json_object_get(s->failed, key);
	if (row != NULL) {
		json_array_set_new(row, 0,
				   json_integer(json_integer_value(json_array_get(row, 0)) + 1));
		return;
	}
	if (json_object_size(s->failed) >= RPL_REPORT_KEYS) {
		s->failed_uncounted++;
		return;
	}
	bndl_reader_charge(g->r, strlen(key) + 160);
	json_object_set_new(s->failed, key,
			    json_pack("[I,I,I,b]", (json_int_t)1,
				      (json_int_t)bndl_json_int(ev, "seq", 0),
				      (json_int_t)bndl_json_int(ev, "pid", 0), marked));
}

static int on_event(void *ctx, json_t *ev, size_t lineno, struct repro_err **err)
{
	struct gather *g = ctx;
	struct rpt_side *s = g->s;
	bool failed = bndl_json_str(ev, "errno") != NULL;
	bool marked = json_is_true(json_object_get(ev, "injected")) ||
		      json_is_true(json_object_get(ev, "imposed"));
	int64_t t = bndl_json_int(ev, "t_ns", 0);
	size_t p = proc_at(s, bndl_json_int(ev, "pid", 0), t), slot;
	struct rpt_lane *lane;
	char key[24];

	(void)lineno;
	(void)err;
	s->events++;
	snprintf(key, sizeof(key), "%" PRId64, bndl_json_int(ev, "seq", -1));
	if (json_object_get(s->evidence, key) != NULL)
		json_object_set(s->evidence, key, ev);
	if (!failed && !marked)
		return 0;
	if (failed) {
		s->failed_events++;
		s->marked_events += marked;
		if (p != RPT_SHARED)
			s->procs[p].failed++;
		count_failed(g, ev, marked);
	} else {
		s->marked_ok++; /* a result a rule imposed that is not an error (retval=) */
	}
	if ((lane = lane_of(s, p)) == NULL)
		return 0;
	slot = slot_of(s, t);
	if (failed && lane->fail[slot] < UINT32_MAX)
		lane->fail[slot]++;
	if (marked && lane->marked[slot] < UINT32_MAX)
		lane->marked[slot]++;
	if (lane->first[slot] == NULL) {
		lane->first[slot] = rpt_call_words(ev, false);
		if (strlen(lane->first[slot]) >
		    256) /* a tooltip shows less; keep a character boundary */
			lane->first[slot][rpt_cut_len(lane->first[slot], 256)] = '\0';
		bndl_reader_charge(g->r, strlen(lane->first[slot]) + 16);
	}
	return 0;
}

/* Keep line in list (capped at cap): true when kept, else *more counts it. */
static bool keep_row(json_t *list, json_t *line, size_t cap, uint64_t *more, struct bndl_reader *r)
{
	if (json_array_size(list) >= cap) {
		(*more)++;
		return false;
	}
	bndl_reader_charge(r, 512);
	json_array_append(list, line);
	return true;
}

static int on_network(void *ctx, json_t *l, size_t lineno, struct repro_err **err)
{
	struct gather *g = ctx;
	const char *outcome = bndl_json_str(l, "outcome");
	bool ok = outcome != NULL &&
		  (strcmp(outcome, "connected") == 0 || strcmp(outcome, "bound") == 0 ||
		   strcmp(outcome, "listening") == 0 || strcmp(outcome, "sent") == 0 ||
		   strcmp(outcome, "answered") == 0);

	(void)lineno;
	(void)err;
	/* the failures first: the ones that worked get a third of the rows */
	if (ok)
		keep_row(g->s->net_ok, l, RPL_REPORT_ROWS / 3, &g->s->net_more, g->r);
	else
		keep_row(g->s->net_failed, l, RPL_REPORT_ROWS, &g->s->net_more, g->r);
	return 0;
}

static int64_t dur_at(json_t *heap, size_t i)
{
	return bndl_json_int(json_array_get(heap, i), "dur_ns", 0);
}

/* Restore the min-heap of heap (by dur_ns, the shortest at 0) below i.  O(log n). */
static void sift_down(json_t *heap, size_t i)
{
	size_t n = json_array_size(heap);

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && dur_at(heap, l) < dur_at(heap, m))
			m = l;
		if (r < n && dur_at(heap, r) < dur_at(heap, m))
			m = r;
		if (m == i)
			return;
		json_t *t = json_incref(json_array_get(heap, i));

		json_array_set(heap, i, json_array_get(heap, m));
		json_array_set_new(heap, m, t);
		i = m;
	}
}

/* Restore the min-heap above i, after an append.  O(log n). */
static void sift_up(json_t *heap, size_t i)
{
	while (i > 0 && dur_at(heap, (i - 1) / 2) > dur_at(heap, i)) {
		json_t *t = json_incref(json_array_get(heap, i));

		json_array_set(heap, i, json_array_get(heap, (i - 1) / 2));
		json_array_set_new(heap, (i - 1) / 2, t);
		i = (i - 1) / 2;
	}
}

/*
 * Keep w among the cap longest of heap (a min-heap by dur_ns): the
 * shortest kept gives way.  O(log cap), so a bundle's waits cost linear
 * time.
 */
static void keep_longest(json_t *heap, json_t *w, size_t cap, struct bndl_reader *r)
{
	if (json_array_size(heap) < cap) {
		bndl_reader_charge(r, 512);
		json_array_append(heap, w);
		sift_up(heap, json_array_size(heap) - 1);
		return;
	}
	if (cap == 0 || bndl_json_int(w, "dur_ns", 0) <= dur_at(heap, 0))
		return;
	json_array_set(heap, 0, w);
	sift_down(heap, 0);
}

static int on_wait(void *ctx, json_t *w, size_t lineno, struct repro_err **err)
{
	struct gather *g = ctx;
	struct rpt_lane *lane = lane_of(
		g->s, proc_at(g->s, bndl_json_int(w, "pid", 0), bndl_json_int(w, "t_ns", 0)));

	(void)lineno;
	(void)err;
	g->s->waits_total++;
	keep_longest(g->s->waits, w, RPL_REPORT_ROWS, g->r);
	if (lane != NULL)
		keep_longest(lane->waits, w, RPT_LANE_WAITS, g->r);
	return 0;
}

static int on_file(void *ctx, json_t *f, size_t lineno, struct repro_err **err)
{
	struct gather *g = ctx;
	const char *path = bndl_json_str(f, "path");

	(void)lineno;
	(void)err;
	if (bndl_json_str(f, "errno") == NULL || path == NULL)
		return 0;
	/* the program's own paths first: the system's take a third at most */
	if (rpl_explain_system_path(path) != NULL &&
	    json_array_size(g->s->paths) >= RPL_REPORT_ROWS / 3) {
		g->s->paths_more++;
		return 0;
	}
	keep_row(g->s->paths, f, RPL_REPORT_ROWS, &g->s->paths_more, g->r);
	return 0;
}

/* Stream member through fn when the bundle has it; *has says whether it did. */
static int each(struct gather *g, const char *member, bndl_line_fn fn, bool *has,
		struct repro_err **err)
{
	int rc = bndl_reader_foreach_opt(g->r, member, fn, g, err);

	*has = rc > 0;
	return rc;
}

int rpt_side_read(struct rpt_side *s, const char *path, const struct bndl_limits *limits,
		  struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = NULL;
	struct gather g = { .s = s };

	s->path = path;
	s->by_pid = json_object();
	s->failed = json_object();
	s->paths = json_array();
	s->net_failed = json_array();
	s->net_ok = json_array();
	s->waits = json_array();
	if (read_explain(s, limits, err) < 0)
		return -1;
	want_evidence(s);
	r = bndl_reader_open_limited(path, limits, err);
	if (r == NULL)
		return -1;
	g.r = r;
	s->manifest = json_incref(bndl_reader_manifest(r));
	s->span_ns = bndl_json_int(s->manifest, "duration_ns", 0);
	{
		const char *trace = bndl_json_str(json_object_get(s->manifest, "options"), "trace");

		/* bundles that do not say were recorded with every class */
		s->traced_file = trace == NULL || strstr(trace, "file") != NULL;
		s->traced_network = trace == NULL || strstr(trace, "network") != NULL;
	}
	if (bndl_reader_load_opt(r, BNDL_HOST_JSON, &s->host, err) < 0)
		return -1;
	if (bndl_reader_foreach(r, BNDL_PROCESSES_JSONL, on_process, &g, err) < 0)
		return -1;
	pick_lanes(s);
	if (bndl_reader_foreach(r, BNDL_EVENTS_JSONL, on_event, &g, err) < 0 ||
	    each(&g, BNDL_NETWORK_JSONL, on_network, &s->has_network, err) < 0 ||
	    each(&g, BNDL_WAITS_JSONL, on_wait, &s->has_waits, err) < 0 ||
	    each(&g, BNDL_FILES_JSONL, on_file, &s->has_files, err) < 0)
		return -1;
	return bndl_reader_finish(r, err);
}

void rpt_side_free(struct rpt_side *s)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		free(s->procs[i].label);
		free(s->procs[i].exit);
		json_decref(s->procs[i].execs);
	}
	free(s->procs);
	for (size_t i = 0; i < s->nlanes; i++) {
		for (size_t k = 0; k < RPL_REPORT_SLOTS; k++)
			free(s->lanes[i].first[k]);
		json_decref(s->lanes[i].waits);
	}
	free(s->lanes);
	json_decref(s->manifest);
	json_decref(s->host);
	json_decref(s->explain);
	json_decref(s->evidence);
	json_decref(s->by_pid);
	json_decref(s->failed);
	json_decref(s->paths);
	json_decref(s->net_failed);
	json_decref(s->net_ok);
	json_decref(s->waits);
	*s = (struct rpt_side){ 0 };
}

/* diff's JSON for a against b, or NULL with *why. */
static json_t *read_diff(const struct rpl_report_opts *opts, char **why)
{
	struct rpl_diff_opts d = { .a_path = opts->a_path,
				   .b_path = opts->b_path,
				   .limits = opts->limits };
	struct repro_err *e = NULL;
	bool differ = false;
	json_t *doc = NULL;

	if (rpl_diff_doc(&d, &doc, &differ, &e) < 0) {
		*why = repro_xstrdup(e != NULL ? e->msg : "diff failed");
		repro_err_free(&e);
		return NULL;
	}
	return doc;
}

/* Read the sides and write the page: what rpl_report_html() returns; the sides are the caller's. */
static int report_sides(const struct rpl_report_opts *opts, struct rpt_side *sides, size_t n,
			FILE *out, struct repro_err **err)
{
	cleanup_free char *why = NULL;
	cleanup_json json_t *diff = NULL;

	if (rpt_side_read(&sides[0], opts->a_path, opts->limits, err) < 0 ||
	    (n == 2 && rpt_side_read(&sides[1], opts->b_path, opts->limits, err) < 0))
		return -1;
	if (n == 2)
		diff = read_diff(opts, &why);
	rpt_html_page(out, sides, n, diff, why);
	if (fflush(out) != 0 || ferror(out))
		return repro_err_set(err, errno != 0 ? errno : EIO, "cannot write the report");
	return 0;
}

int rpl_report_html(const struct rpl_report_opts *opts, FILE *out, struct repro_err **err)
{
	struct rpt_side sides[2] = { { 0 }, { 0 } };
	int rc = report_sides(opts, sides, opts->b_path != NULL ? 2 : 1, out, err);

	rpt_side_free(&sides[0]);
	rpt_side_free(&sides[1]);
	return rc;
}
