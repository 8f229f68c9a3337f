/*
 * `repro diff A B` (docs/diff.md): load both bundles, compare host facts,
 * align the process trees by exec lineage, align each aligned pair's calls
 * (replayer/readers/align.c), compare touched files and network outcomes, rank the
 * differences by how likely each is the cause, and report.
 */
#include "replayer/readers/diff.h"
#include "common/sysent.h"
#include "replayer/readers/align.h"
#include "replayer/readers/diff_internal.h"
#include "replayer/readers/show_internal.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Half edit distance searched per stretch of calls before it is taken as all different. */
#define ALIGN_MAX_D 2000
/* Steps of the alignment for a whole run; past them every stretch is taken as all different. */
#define ALIGN_BUDGET 200000000ull
/* Paths named of the files whose content was not compared (the rest are counted). */
#define DF_NOT_COMPARED_NAMED 20

struct children {
	size_t *start, *list; /* children of proc p: list[start[p] .. start[p+1]) */
};

struct pair_stats {
	struct diff *d;
	size_t pa, pb;
	size_t div_a, div_b, ndiv; /* first call with another outcome (event indices) */
	size_t only_a, only_b, first_a, first_b; /* calls on one side only */
};

struct pending_file {
	double score;
	char *text; /* owned */
	json_t *json; /* owned */
};

struct diff {
	const struct rpl_diff_opts *opts;
	struct df_side a, b;
	struct children ca, cb;
	struct df_items items;
	json_t *want_a, *want_b; /* seq -> true: events whose text the report needs */
	struct pair_stats *pairs;
	size_t npairs;
	uint64_t budget; /* alignment steps left (ALIGN_BUDGET) */
	size_t gave_up; /* stretches taken as all different */
	json_t *text_a, *text_b; /* seq -> event */
	/* file differences found while B's files.jsonl streamed by, for after the calls */
	struct pending_file *pending;
	size_t npending;
	/* files with a withheld hash, the same size and modification time on both sides */
	size_t not_compared;
	json_t *not_compared_paths; /* owned: the first DF_NOT_COMPARED_NAMED of them */
};

/* ---- processes ---- */

static void children_build(const struct df_side *s, struct children *c)
{
	size_t *fill;

	c->start = repro_xcalloc(s->nprocs + 2, sizeof(size_t));
	c->list = repro_xcalloc(s->nprocs + 1, sizeof(size_t));
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].parent != DF_NONE)
			c->start[s->procs[i].parent + 1]++;
	for (size_t p = 0; p < s->nprocs; p++)
		c->start[p + 1] += c->start[p];
	fill = repro_xcalloc(s->nprocs + 1, sizeof(size_t));
	for (size_t i = 0; i < s->nprocs; i++) {
		size_t p = s->procs[i].parent;

		if (p != DF_NONE)
			c->list[c->start[p] + fill[p]++] = i;
	}
	free(fill);
}

/*
 * Pair the processes of la with those of lb that have the same exec lineage,
 * in order (the k-th "sh -c x" of A with the k-th of B): B's by key, each
 * key's unmatched processes in a queue.  Linear in the list lengths.
 */
static void match_pairs(struct diff *d, const size_t *la, size_t na, const size_t *lb, size_t nb)
{
	json_t *queues = json_object(); /* key -> array of B indices */
	json_t *next = json_object(); /* key -> position of the next unmatched one */

	for (size_t j = 0; j < nb; j++) {
		const char *key = d->b.procs[lb[j]].key;
		json_t *q = json_object_get(queues, key);

		if (q == NULL) {
			q = json_array();
			json_object_set_new(queues, key, q);
		}
		json_array_append_new(q, json_integer((json_int_t)lb[j]));
	}
	for (size_t i = 0; i < na; i++) {
		struct df_proc *pa = &d->a.procs[la[i]];
		json_t *q = json_object_get(queues, pa->key);
		size_t at = (size_t)json_integer_value(json_object_get(next, pa->key));
		size_t j;

		if (q == NULL || at >= json_array_size(q))
			continue;
		j = (size_t)json_integer_value(json_array_get(q, at));
		json_object_set_new(next, pa->key, json_integer((json_int_t)(at + 1)));
		pa->partner = j;
		d->b.procs[j].partner = la[i];
	}
	json_decref(queues);
	json_decref(next);
}

/* How many whole execs two exec chains (df_proc.key, execs split by 0x1e) share from the start. */
static size_t common_execs(const char *a, const char *b)
{
	size_t n = 0;

	for (;;) {
		size_t la = strcspn(a, "\x1e"), lb = strcspn(b, "\x1e");

		if (la != lb || memcmp(a, b, la) != 0)
			return n;
		n++;
		if (a[la] == '\0' || b[lb] == '\0')
			return n;
		a += la + 1;
		b += lb + 1;
	}
}

/* Candidates looked at per process in the second pass: bounds it to O(n · LCP_SCAN). */
#define LCP_SCAN 64

/*
 * The processes match_pairs left unmatched, paired by the longest common
 * prefix of their exec lineage (at least the first exec): an entrypoint
 * that exec'd the server in A and died before that exec in B is the same
 * process.  B's by first exec, at most LCP_SCAN looked at per A process.
 */
static void match_prefixes(struct diff *d, const size_t *la, size_t na, const size_t *lb, size_t nb)
{
	json_t *by_first = json_object(); /* first exec -> array of unmatched B indices */
	char first[512];

	for (size_t j = 0; j < nb; j++) {
		const char *key = d->b.procs[lb[j]].key;
		json_t *q;

		if (d->b.procs[lb[j]].partner != DF_NONE || strcmp(key, "(fork)") == 0)
			continue;
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(key, "\x1e"), key);
		if ((q = json_object_get(by_first, first)) == NULL)
			json_object_set_new(by_first, first, q = json_array());
		json_array_append_new(q, json_integer((json_int_t)lb[j]));
	}
	for (size_t i = 0; i < na; i++) {
		struct df_proc *pa = &d->a.procs[la[i]];
		size_t best = DF_NONE, best_n = 0, k;
		json_t *q, *v;

		if (pa->partner != DF_NONE || strcmp(pa->key, "(fork)") == 0)
			continue;
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(pa->key, "\x1e"), pa->key);
		q = json_object_get(by_first, first);
		json_array_foreach (q, k, v) {
			size_t j = (size_t)json_integer_value(v), n;

			if (k >= LCP_SCAN)
				break;
			if (d->b.procs[j].partner != DF_NONE)
				continue;
			n = common_execs(pa->key, d->b.procs[j].key);
			if (n > best_n) {
				best = j;
				best_n = n;
			}
		}
		if (best != DF_NONE) {
			pa->partner = best;
			d->b.procs[best].partner = la[i];
		}
	}
	json_decref(by_first);
}

/* Align the trees from the roots down, without recursion (a hostile tree may be deep). */
static void match_trees(struct diff *d, const size_t *ra, size_t na, const size_t *rb, size_t nb)
{
	size_t *todo = repro_xcalloc(d->a.nprocs + 1, sizeof(size_t)), n = 0;

	match_pairs(d, ra, na, rb, nb);
	match_prefixes(d, ra, na, rb, nb);
	for (size_t i = 0; i < na; i++)
		if (d->a.procs[ra[i]].partner != DF_NONE)
			todo[n++] = ra[i];
	while (n > 0) {
		size_t p = todo[--n], q = d->a.procs[p].partner;
		size_t from = d->ca.start[p], to = d->ca.start[p + 1];

		match_pairs(d, d->ca.list + from, to - from, d->cb.list + d->cb.start[q],
			    d->cb.start[q + 1] - d->cb.start[q]);
		match_prefixes(d, d->ca.list + from, to - from, d->cb.list + d->cb.start[q],
			       d->cb.start[q + 1] - d->cb.start[q]);
		for (size_t k = from; k < to; k++)
			if (d->a.procs[d->ca.list[k]].partner != DF_NONE)
				todo[n++] = d->ca.list[k];
	}
	free(todo);
}

static size_t *roots(const struct df_side *s, size_t *n)
{
	size_t *r = repro_xcalloc(s->nprocs + 1, sizeof(size_t));

	*n = 0;
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].parent == DF_NONE)
			r[(*n)++] = i;
	return r;
}

/* The exec after the first n of chain key, as words ("server --port 80"), or "nothing". */
static char *exec_after(const char *key, size_t n)
{
	char *t;

	for (; n > 0 && key != NULL; n--)
		key = strchr(key, '\x1e') != NULL ? strchr(key, '\x1e') + 1 : NULL;
	if (key == NULL)
		return repro_xstrdup("nothing");
	t = repro_xasprintf("%.*s", (int)strcspn(key, "\x1e"), key);
	for (char *c = t; *c != '\0'; c++)
		if (*c == '\x1f')
			*c = ' ';
	return t;
}

/* Aligned by a common prefix of their execs: what each went on to exec. */
static void lineage_item(struct diff *d, const struct df_proc *pa, const struct df_proc *pb)
{
	size_t n = common_execs(pa->key, pb->key);
	char *ea, *eb, *first;

	if (strcmp(pa->key, pb->key) == 0)
		return;
	ea = exec_after(pa->key, n);
	eb = exec_after(pb->key, n);
	first = exec_after(pa->key, 0);
	df_items_add(&d->items, "process", 52,
		     repro_xasprintf("%.200s: after %zu exec%s in common, exec'd %.200s in A and "
				     "%.200s in B",
				     first, n, n == 1 ? "" : "s", ea, eb),
		     json_pack("{s:s,s:s,s:I,s:s,s:s}", "what", "exec_lineage", "process", first,
			       "common", (json_int_t)n, "a", ea, "b", eb));
	free(first);
	free(ea);
	free(eb);
}

/* Processes on one side only (the top of each such subtree), and exits that differ. */
static void process_items(struct diff *d)
{
	for (int side = 0; side < 2; side++) {
		const struct df_side *s = side ? &d->b : &d->a;
		const struct children *c = side ? &d->cb : &d->ca;

		for (size_t i = 0; i < s->nprocs; i++) {
			const struct df_proc *p = &s->procs[i];
			size_t kids = c->start[i + 1] - c->start[i];

			if (p->partner != DF_NONE ||
			    (p->parent != DF_NONE && s->procs[p->parent].partner == DF_NONE))
				continue;
			df_items_add(&d->items, "process", 55,
				     repro_xasprintf("%s ran in %s only%s", p->label,
						     side ? "B" : "A",
						     kids > 0 ? " (with its children)" : ""),
				     json_pack("{s:s,s:s,s:i,s:I}", "what", "only", "side",
					       side ? "b" : "a", "pid", (int)p->pid, "children",
					       (json_int_t)kids));
		}
	}
	for (size_t i = 0; i < d->a.nprocs; i++)
		if (d->a.procs[i].partner != DF_NONE)
			lineage_item(d, &d->a.procs[i], &d->b.procs[d->a.procs[i].partner]);
	for (size_t i = 0; i < d->a.nprocs; i++) {
		const struct df_proc *pa = &d->a.procs[i], *pb;
		char *ta, *tb;

		if (pa->partner == DF_NONE || pa->parent == DF_NONE)
			continue; /* the first processes' exits are the manifests' (exit_item) */
		pb = &d->b.procs[pa->partner];
		if (json_equal(pa->exit, pb->exit) || (pa->exit == NULL && pb->exit == NULL))
			continue;
		ta = rpl_exit_words(pa->exit);
		tb = rpl_exit_words(pb->exit);
		df_items_add(&d->items, "process", 50,
			     repro_xasprintf("%s %s in A, %s in B", pa->label, ta, tb),
			     json_pack("{s:s,s:s,s:O?,s:O?}", "what", "exit", "process", pa->label,
				       "a", pa->exit, "b", pb->exit));
		free(ta);
		free(tb);
	}
}

/* How the runs ended (manifest "exit"): an effect, listed, never the cause unless alone. */
static void exit_item(struct diff *d)
{
	json_t *ea = json_object_get(d->a.manifest, "exit"),
	       *eb = json_object_get(d->b.manifest, "exit");
	char *ta, *tb;

	if (json_equal(ea, eb) || (ea == NULL && eb == NULL))
		return;
	ta = rpl_exit_words(ea);
	tb = rpl_exit_words(eb);
	df_items_add(&d->items, "process", 10, repro_xasprintf("the run %s in A, %s in B", ta, tb),
		     json_pack("{s:s,s:O?,s:O?}", "what", "exit", "a", ea, "b", eb));
	free(ta);
	free(tb);
}

/* ---- calls ---- */

static void on_align(void *ctx, enum rpl_align_op op, size_t ia, size_t ib)
{
	struct pair_stats *ps = ctx;
	const struct df_side *a = &ps->d->a, *b = &ps->d->b;
	size_t ea = a->procs[ps->pa].first_ev + ia, eb = b->procs[ps->pb].first_ev + ib;
	const char *oa, *ob;

	switch (op) {
	case RPL_ALIGN_SAME:
		oa = df_side_errname(a, a->outcome[ea]);
		ob = df_side_errname(b, b->outcome[eb]);
		if ((oa == NULL) != (ob == NULL) || (oa != NULL && strcmp(oa, ob) != 0)) {
			if (ps->ndiv++ == 0) {
				ps->div_a = ea;
				ps->div_b = eb;
			}
		}
		break;
	case RPL_ALIGN_DEL:
		if (ps->only_a++ == 0)
			ps->first_a = ea;
		break;
	case RPL_ALIGN_INS:
		if (ps->only_b++ == 0)
			ps->first_b = eb;
		break;
	}
}

static void want(json_t *w, uint64_t seq)
{
	char key[32];

	snprintf(key, sizeof(key), "%" PRIu64, seq);
	json_object_set_new(w, key, json_true());
}

static void align_calls(struct diff *d)
{
	d->pairs = repro_xcalloc(d->a.nprocs + 1, sizeof(*d->pairs));
	for (size_t i = 0; i < d->a.nprocs; i++) {
		const struct df_proc *pa = &d->a.procs[i];
		struct pair_stats *ps;

		if (pa->partner == DF_NONE)
			continue;
		ps = &d->pairs[d->npairs++];
		*ps = (struct pair_stats){ .d = d, .pa = i, .pb = pa->partner };
		d->gave_up += rpl_align(d->a.keys + pa->first_ev, pa->nev,
					d->b.keys + d->b.procs[pa->partner].first_ev,
					d->b.procs[pa->partner].nev, ALIGN_MAX_D, &d->budget,
					on_align, ps);
		if (ps->ndiv > 0) {
			want(d->want_a, d->a.lines[ps->div_a]);
			want(d->want_b, d->b.lines[ps->div_b]);
		}
		if (ps->only_a > 0)
			want(d->want_a, d->a.lines[ps->first_a]);
		if (ps->only_b > 0)
			want(d->want_b, d->b.lines[ps->first_b]);
	}
}

static json_t *event_of(json_t *text, uint64_t seq)
{
	char key[32];

	snprintf(key, sizeof(key), "%" PRIu64, seq);
	return json_object_get(text, key);
}

/* "openat <cwd>/app/config.yaml" for a report line (a new string). */
static char *call_text(const struct df_side *s, json_t *ev)
{
	const char *sc = bndl_json_str(ev, "syscall"), *path = bndl_json_str(ev, "path");
	char *n, *t;

	if (path == NULL)
		return repro_xstrdup(sc != NULL ? sc : "?");
	n = rpl_norm_path(&s->norm, path);
	t = repro_xasprintf("%s %s", sc != NULL ? sc : "?", n);
	free(n);
	return t;
}

/* The file facts of ev's path differ between the sides (fills *what). */
static bool file_differs(struct diff *d, json_t *ev, char *buf, size_t cap);

/* Why the failing side failed, in explain's words (a new string), or NULL. */
static char *why_failed(const struct df_side *s, json_t *ev, int32_t pid, const struct df_proc *p)
{
	const char *sc = bndl_json_str(ev, "syscall"), *path = bndl_json_str(ev, "path");
	struct xp_proc xp = { .pid = pid, .label = p->label, .end_ns = p->end_ns };
	struct xp_finding f = { .pid = pid, .count = 1 };
	char *sentence;

	if (sc == NULL || path == NULL || bndl_json_str(ev, "errno") == NULL)
		return NULL;
	f.kind = repro_sysent_find(sc) != NULL && repro_sysent_find(sc)->op == REPRO_OP_EXEC
			 ? XP_EXEC
			 : XP_FILE;
	f.op = xp_op_of(ev);
	f.syscall = (char *)sc;
	f.path = (char *)path;
	f.errname = (char *)bndl_json_str(ev, "errno");
	f.t_ns = bndl_json_int(ev, "t_ns", 0);
	f.injected = json_object_get(ev, "rule") != NULL; /* kept only for injected events */
	f.inject_rule = (int)bndl_json_int(ev, "rule", 0);
	/* parsing a kept record back is a cache fill: the side's facts stay the same */
	xp_facts_ready((struct xp_facts *)&s->facts, &f);
	xp_reason_build(&f, &xp, &s->facts);
	json_decref(f.reason);
	sentence = f.sentence;
	return sentence;
}

static void divergence_item(struct diff *d, const struct pair_stats *ps)
{
	json_t *ea = event_of(d->text_a, d->a.lines[ps->div_a]);
	json_t *eb = event_of(d->text_b, d->b.lines[ps->div_b]);
	const struct df_proc *pa = &d->a.procs[ps->pa], *pb = &d->b.procs[ps->pb];
	const char *oa = bndl_json_str(ea, "errno"), *ob = bndl_json_str(eb, "errno");
	char fwhat[256];
	bool linked = file_differs(d, eb, fwhat, sizeof(fwhat));
	double score = (oa == NULL && ob != NULL) ? 85 : 70;
	char *call, *why;

	if (ea == NULL || eb == NULL || xp_is_net_call(bndl_json_str(eb, "syscall")))
		return;
	call = call_text(&d->b, eb);
	why = ob != NULL ? why_failed(&d->b, eb, pb->pid, pb) : why_failed(&d->a, ea, pa->pid, pa);
	df_items_add(&d->items, "call", score + (linked ? 5 : 0),
		     repro_xasprintf("%s: %s: %s in A (event %" PRId64 "), %s in B (event %" PRId64
				     ")%s%s%s%s%s",
				     pb->label, call, oa ? oa : "ok", bndl_json_int(ea, "seq", 0),
				     ob ? ob : "ok", bndl_json_int(eb, "seq", 0),
				     linked ? "; the file differs: " : "", linked ? fwhat : "",
				     why ? " — " : "", why ? (ob ? "in B, " : "in A, ") : "",
				     why ? why : ""),
		     json_pack("{s:s,s:s,s:s,s:{s:I,s:s?},s:{s:I,s:s?},s:i,s:s?}", "what",
			       "outcome", "process", pb->label, "call", call, "a", "seq",
			       (json_int_t)bndl_json_int(ea, "seq", 0), "errno", oa, "b", "seq",
			       (json_int_t)bndl_json_int(eb, "seq", 0), "errno", ob, "count",
			       (int)ps->ndiv, "why", why));
	free(call);
	free(why);
}

static void only_item(struct diff *d, const struct pair_stats *ps)
{
	json_t *ea = ps->only_a ? event_of(d->text_a, d->a.lines[ps->first_a]) : NULL;
	json_t *eb = ps->only_b ? event_of(d->text_b, d->b.lines[ps->first_b]) : NULL;
	char *ta = ea ? call_text(&d->a, ea) : NULL, *tb = eb ? call_text(&d->b, eb) : NULL;

	df_items_add(&d->items, "call", 15,
		     repro_xasprintf("%s: %zu calls only in A%s%s%s, %zu only in B%s%s%s",
				     d->b.procs[ps->pb].label, ps->only_a, ta ? " (first: " : "",
				     ta ? ta : "", ta ? ")" : "", ps->only_b, tb ? " (first: " : "",
				     tb ? tb : "", tb ? ")" : ""),
		     json_pack("{s:s,s:s,s:I,s:I,s:s?,s:s?}", "what", "only", "process",
			       d->b.procs[ps->pb].label, "only_a", (json_int_t)ps->only_a, "only_b",
			       (json_int_t)ps->only_b, "first_a", ta, "first_b", tb));
	free(ta);
	free(tb);
}

static void call_items(struct diff *d)
{
	for (size_t i = 0; i < d->npairs; i++) {
		if (d->pairs[i].ndiv > 0)
			divergence_item(d, &d->pairs[i]);
		if (d->pairs[i].only_a + d->pairs[i].only_b > 0)
			only_item(d, &d->pairs[i]);
	}
}

/* ---- files ---- */

/* How much a file difference says: none, maybe (content not compared), or a difference. */
enum file_diff { FD_SAME, FD_MAYBE, FD_DIFFERS };

/*
 * A regular file whose hash either side withheld (files.jsonl
 * "hash_withheld"): its size still tells, and a modification time says it
 * may have changed; the text into buf.
 */
static enum file_diff withheld_change(const struct df_file *fa, const struct df_file *fb, char *buf,
				      size_t cap)
{
	const char *why = df_withheld_name(fa->withheld != 0 ? fa->withheld : fb->withheld);

	if (fa->size != fb->size) {
		snprintf(buf, cap,
			 "another size (%" PRId64 " bytes in A, %" PRId64 " in B); content not "
			 "compared: hash withheld (%s)",
			 fa->size, fb->size, why);
		return FD_DIFFERS;
	}
	if (fa->mtime_ns == fb->mtime_ns)
		return FD_SAME;
	snprintf(buf, cap,
		 "content not compared: hash withheld (%s); the same size, another "
		 "modification time",
		 why);
	return FD_MAYBE;
}

/* What differs between the two states of one path, as text into buf (cap bytes). */
static enum file_diff file_change(const struct df_file *fa, const struct df_file *fb, char *buf,
				  size_t cap)
{
	const char *what = NULL;

	if ((fa->type == 0) != (fb->type == 0))
		what = fa->type == 0 ? "missing in A, present in B" : "present in A, missing in B";
	else if (fa->type == 0)
		return FD_SAME;
	else if (fa->type != fb->type)
		what = "another type";
	else if (fa->type == 'l' && fa->target != fb->target)
		what = "another symlink target";
	else if ((fa->mode & 07777) != (fb->mode & 07777) &&
		 (fa->uid != fb->uid || fa->gid != fb->gid))
		what = "mode and owner changed";
	else if ((fa->mode & 07777) != (fb->mode & 07777))
		what = "another mode";
	else if (fa->uid != fb->uid || fa->gid != fb->gid)
		what = "owner changed";
	/* the run itself wrote it (content may differ), or no content is known */
	else if (fa->written || fb->written || fa->is_ancestor || fb->is_ancestor)
		return FD_SAME;
	else if (fa->type == 'f' && (fa->withheld != 0 || fb->withheld != 0))
		return withheld_change(fa, fb, buf, cap);
	else if (fa->hash != 0 && fb->hash != 0 && fa->hash != fb->hash)
		what = "other content";
	else if (fa->hash == 0 && fa->type == 'f' && fa->size != fb->size)
		what = "another size";
	if (what == NULL)
		return FD_SAME;
	snprintf(buf, cap, "%s", what);
	return FD_DIFFERS;
}

/* Both sides' facts of the path of event ev (normalised as B's), or false. */
static bool file_pair(struct diff *d, const char *path, struct df_file **fa, struct df_file **fb)
{
	char *n;
	uint64_t key;

	if (path == NULL)
		return false;
	n = rpl_norm_path(&d->b.norm, path);
	key = XXH3_64bits(n, strlen(n)) | 1;
	free(n);
	*fa = df_file_find(&d->a, key);
	*fb = df_file_find(&d->b, key);
	return *fa != NULL && *fb != NULL;
}

/* Whether the file at ev's path differs (not only maybe); the text into buf. */
static bool file_differs(struct diff *d, json_t *ev, char *buf, size_t cap)
{
	struct df_file *fa, *fb;

	return file_pair(d, bndl_json_str(ev, "path"), &fa, &fb) &&
	       file_change(fa, fb, buf, cap) == FD_DIFFERS;
}

static void mode_text(char *buf, size_t cap, const struct df_file *f)
{
	if (f->type == 0)
		snprintf(buf, cap, "missing");
	else
		snprintf(buf, cap, "%c %04o %" PRId64 ":%" PRId64, f->type, f->mode & 07777, f->uid,
			 f->gid);
}

/* A file whose content was not compared and that may well be the same: counted, a few named. */
static void note_not_compared(struct diff *d, const struct df_file *fa, const struct df_file *fb,
			      const char *path)
{
	if (fa->type != 'f' || (fa->withheld == 0 && fb->withheld == 0) || fa->written ||
	    fb->written)
		return;
	if (d->not_compared++ < DF_NOT_COMPARED_NAMED)
		json_array_append_new(d->not_compared_paths, json_string(path));
}

/* Compare the path of one files.jsonl record of B (or of one of its ancestors) with A's. */
static void file_b(struct diff *d, const char *path)
{
	char *n, ta[64], tb[64], what[256];
	struct df_file *fa, *fb;
	enum file_diff fd;

	if (!file_pair(d, path, &fa, &fb) || fb->seen)
		return;
	fb->seen = true;
	n = rpl_norm_path(&d->b.norm, path);
	fd = file_change(fa, fb, what, sizeof(what));
	if (fd == FD_SAME) {
		note_not_compared(d, fa, fb, n);
		free(n);
		return;
	}
	mode_text(ta, sizeof(ta), fa);
	mode_text(tb, sizeof(tb), fb);
	d->pending = repro_xgrow(d->pending, d->npending, sizeof(*d->pending));
	d->pending[d->npending++] = (struct pending_file){
		fd == FD_DIFFERS ? 45 : 40,
		repro_xasprintf("%s: %s (A: %s, B: %s)", n, what, ta, tb),
		json_pack("{s:s,s:s,s:s,s:s,s:s?}", "path", n, "what", what, "a", ta, "b", tb,
			  "hash_withheld",
			  df_withheld_name(fa->withheld != 0 ? fa->withheld : fb->withheld))
	};
	free(n);
}

/*
 * B's files.jsonl, one record at a time: the path, then the directories
 * above it that B's record lists (a parent whose owner changed explains
 * a failure below it).  Each path once: O(records + ancestors).
 */
static int on_file_b(void *ctx, json_t *o, size_t lineno, struct repro_err **err)
{
	struct diff *d = ctx;
	size_t i;
	json_t *a;

	file_b(d, bndl_json_str(o, "path"));
	json_array_foreach (json_object_get(o, "ancestors"), i, a)
		file_b(d, bndl_json_str(a, "path"));
	return 0;
}

/* The file differences, found while side B was read (on_file_b), after the calls. */
static void file_items(struct diff *d)
{
	for (size_t i = 0; i < d->npending; i++)
		df_items_add(&d->items, "file", d->pending[i].score, d->pending[i].text,
			     d->pending[i].json);
	free(d->pending);
	d->pending = NULL;
	d->npending = 0;
}

/* ---- network ---- */

static bool net_failed(json_t *n)
{
	const char *o = bndl_json_str(n, "outcome");

	return o != NULL &&
	       (bndl_json_str(n, "errno") != NULL ||
		(strcmp(bndl_json_str(n, "kind") ? bndl_json_str(n, "kind") : "", "dns") == 0 &&
		 strcmp(o, "answered") != 0));
}

/*
 * Where a network record went: "10.0.0.5:5432", "[::1]:80", a socket path,
 * or a lookup's server "via 127.0.0.53:53" (into buf, cap bytes).
 */
static const char *endpoint(json_t *n, char *buf, size_t cap)
{
	const char *ip = bndl_json_str(n, "ip"), *path = bndl_json_str(n, "path");
	bool v6 = bndl_json_str(n, "family") != NULL &&
		  strcmp(bndl_json_str(n, "family"), "AF_INET6") == 0;
	bool dns = bndl_json_str(n, "kind") != NULL && strcmp(bndl_json_str(n, "kind"), "dns") == 0;

	if (ip != NULL)
		snprintf(buf, cap, "%s%s%s%s:%" PRId64, dns ? "via " : "", v6 ? "[" : "", ip,
			 v6 ? "]" : "", bndl_json_int(n, "port", 0));
	else if (path != NULL)
		snprintf(buf, cap, "%.200s", path);
	else
		snprintf(buf, cap, "?");
	return buf;
}

static void network_items(struct diff *d)
{
	const char *key;
	json_t *na;
	char ea[300], eb[300];

	json_object_foreach (d->a.net, key, na) {
		json_t *nb = json_object_get(d->b.net, key);
		const char *oa = bndl_json_str(na, "outcome"), *ob = bndl_json_str(nb, "outcome");

		if (nb == NULL) {
			df_items_add(&d->items, "network", 30,
				     repro_xasprintf("%s: in A only (%s, %s)", key, oa ? oa : "?",
						     endpoint(na, ea, sizeof(ea))),
				     json_pack("{s:s,s:s,s:s?,s:n}", "what", key, "side", "a", "a",
					       oa, "b"));
			continue;
		}
		if (oa == NULL || ob == NULL || strcmp(oa, ob) == 0)
			continue;
		df_items_add(&d->items, "network", net_failed(nb) && !net_failed(na) ? 88 : 60,
			     repro_xasprintf("%s: %s in A (%s), %s in B (%s)", key, oa,
					     endpoint(na, ea, sizeof(ea)), ob,
					     endpoint(nb, eb, sizeof(eb))),
			     json_pack("{s:s,s:s,s:s}", "what", key, "a", oa, "b", ob));
	}
	json_object_foreach (d->b.net, key, na) {
		if (json_object_get(d->a.net, key) == NULL)
			df_items_add(&d->items, "network", net_failed(na) ? 70 : 30,
				     repro_xasprintf("%s: in B only (%s, %s)", key,
						     bndl_json_str(na, "outcome")
							     ? bndl_json_str(na, "outcome")
							     : "?",
						     endpoint(na, eb, sizeof(eb))),
				     json_pack("{s:s,s:s,s:n,s:s?}", "what", key, "side", "b", "a",
					       "b", bndl_json_str(na, "outcome")));
	}
}

/* ---- report ---- */

static int by_score(const void *x, const void *y)
{
	const struct df_item *a = x, *b = y;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static const struct df_proc *root_of(const struct df_side *s)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].parent == DF_NONE)
			return &s->procs[i];
	return NULL;
}

static void put_side(FILE *out, const char *name, const struct df_side *s)
{
	const struct df_proc *r = root_of(s);
	char *ex = rpl_exit_words(json_object_get(s->manifest, "exit"));

	fprintf(out, "%s: ", name);
	repro_term_puts(out, r != NULL ? r->label : "?");
	fputc(' ', out);
	repro_term_puts(out, ex);
	fputs(" (", out);
	repro_term_puts(out, s->path);
	fputs(")\n", out);
	free(ex);
}

/*
 * One line for the files whose content could not be compared and whose
 * size and modification time agree: not a difference, and not known to be
 * the same either.
 */
static void put_not_compared(const struct diff *d, FILE *out)
{
	size_t i;
	json_t *p;

	if (d->not_compared == 0)
		return;
	fprintf(out,
		"\nContent not compared (hash withheld: small, owner-only or secret-named; the same "
		"size and modification time on both sides): %zu file%s: ",
		d->not_compared, d->not_compared == 1 ? "" : "s");
	json_array_foreach (d->not_compared_paths, i, p) {
		if (i >= 3)
			break;
		fputs(i > 0 ? ", " : "", out);
		repro_term_puts(out, json_string_value(p));
	}
	fputs(d->not_compared > 3 ? " …\n" : "\n", out);
}

static void put_text(struct diff *d, FILE *out)
{
	static const char *const sections[] = { "host", "process", "call", "file", "network" };
	static const char *const titles[] = { "Host", "Processes", "Calls", "Files", "Network" };
	bool color = d->opts->color;

	put_side(out, "A", &d->a);
	put_side(out, "B", &d->b);
	if (d->items.n == 0) {
		fputs("\nNo differences (after normalising pids, times, temp names, the home and "
		      "working directories).\n",
		      out);
		put_not_compared(d, out);
		return;
	}
	fprintf(out, "\n%sMost likely cause:%s ", color ? BOLD : "", color ? RESET : "");
	repro_term_puts(out, d->items.v[0].text);
	fputc('\n', out);
	for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		size_t shown = 0, total = 0;

		for (size_t i = 0; i < d->items.n; i++) {
			if (strcmp(d->items.v[i].section, sections[s]) != 0)
				continue;
			if (total++ == 0)
				fprintf(out, "\n%s%s%s\n", color ? BOLD : "", titles[s],
					color ? RESET : "");
			if (shown >= 20)
				continue;
			shown++;
			fputs("  ", out);
			repro_term_puts(out, d->items.v[i].text);
			fputc('\n', out);
		}
		if (total > shown)
			fprintf(out, "  ... %zu more (--json lists them all)\n", total - shown);
	}
	if (d->items.dropped > 0)
		fprintf(out, "\n%zu more differences were only counted\n", d->items.dropped);
	put_not_compared(d, out);
}

/* The --json document (docs/diff.md "JSON"): a new object. */
static json_t *doc_json(struct diff *d)
{
	json_t *doc = json_object();
	json_t *arr = json_array();

	for (size_t i = 0; i < d->items.n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "section", json_string(d->items.v[i].section));
		json_object_set_new(o, "score", json_real(d->items.v[i].score));
		json_object_set_new(o, "text", bndl_json_str_or_null(d->items.v[i].text));
		json_object_set(o, "detail", d->items.v[i].json);
		json_array_append_new(arr, o);
	}
	json_object_set_new(doc, "same", json_boolean(d->items.n == 0));
	json_object_set_new(doc, "a",
			    json_pack("{s:s,s:O?}", "bundle", d->a.path, "exit",
				      json_object_get(d->a.manifest, "exit")));
	json_object_set_new(doc, "b",
			    json_pack("{s:s,s:O?}", "bundle", d->b.path, "exit",
				      json_object_get(d->b.manifest, "exit")));
	json_object_set(doc, "cause", d->items.n > 0 ? json_array_get(arr, 0) : json_null());
	json_object_set_new(doc, "differences", arr);
	json_object_set_new(doc, "not_listed", json_integer((json_int_t)d->items.dropped));
	json_object_set_new(doc, "content_not_compared",
			    json_pack("{s:I,s:O}", "count", (json_int_t)d->not_compared, "paths",
				      d->not_compared_paths));
	return doc;
}

static int put_json(struct diff *d, FILE *out, struct repro_err **err)
{
	cleanup_json json_t *doc = doc_json(d);

	if (bndl_json_write(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) <
		    0 ||
	    fputc('\n', out) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	return 0;
}

static void diff_release(struct diff *d)
{
	df_side_release(&d->a);
	df_side_release(&d->b);
	free(d->ca.start);
	free(d->ca.list);
	free(d->cb.start);
	free(d->cb.list);
	df_items_release(&d->items);
	for (size_t i = 0; i < d->npending; i++) {
		free(d->pending[i].text);
		json_decref(d->pending[i].json);
	}
	free(d->pending);
	json_decref(d->want_a);
	json_decref(d->want_b);
	json_decref(d->text_a);
	json_decref(d->text_b);
	json_decref(d->not_compared_paths);
	free(d->pairs);
}

static int compare(struct diff *d, struct repro_err **err)
{
	size_t na, nb;
	size_t *ra = roots(&d->a, &na), *rb = roots(&d->b, &nb);

	children_build(&d->a, &d->ca);
	children_build(&d->b, &d->cb);
	match_trees(d, ra, na, rb, nb);
	free(ra);
	free(rb);
	df_host_compare(&d->a, &d->b, &d->items);
	exit_item(d);
	process_items(d);
	align_calls(d);
	if ((d->text_a = df_events_text(&d->a, d->want_a, err)) == NULL ||
	    (d->text_b = df_events_text(&d->b, d->want_b, err)) == NULL)
		return -1;
	call_items(d);
	file_items(d);
	network_items(d);
	if (d->items.n > 1)
		qsort(d->items.v, d->items.n, sizeof(*d->items.v), by_score);
	return 0;
}

/* The comparison of opts' bundles, to out or as the document in *doc (not NULL). */
static int diff(const struct rpl_diff_opts *opts, FILE *out, json_t **doc, bool *differ,
		struct repro_err **err)
{
	struct diff d = { .opts = opts,
			  .a = { .path = opts->a_path },
			  .b = { .path = opts->b_path },
			  .want_a = json_object(),
			  .want_b = json_object(),
			  .not_compared_paths = json_array(),
			  .budget = ALIGN_BUDGET };
	int rc = -1;

	for (size_t i = 0; i < opts->nmaps && i < RPL_NORM_MAX_MAPS; i++) {
		d.a.norm.map_from[i] = opts->map_from[i];
		d.a.norm.map_to[i] = opts->map_to[i];
	}
	d.a.norm.nmaps = opts->nmaps < RPL_NORM_MAX_MAPS ? opts->nmaps : RPL_NORM_MAX_MAPS;
	d.a.limits = d.b.limits = opts->limits;
	d.a.opts = d.b.opts = opts;
	d.a.label = "A";
	d.b.label = "B";
	d.b.files_also = on_file_b; /* B's files are compared as they stream by */
	d.b.files_ctx = &d;
	if (df_side_load(&d.a, err) == 0 && df_side_load(&d.b, err) == 0 && compare(&d, err) == 0) {
		*differ = d.items.n > 0;
		if (doc != NULL) {
			*doc = doc_json(&d);
			rc = 0;
		} else if (opts->json) {
			rc = put_json(&d, out, err);
		} else {
			put_text(&d, out);
			rc = fflush(out) != 0 || ferror(out)
				     ? repro_err_set(err, errno ? errno : EIO,
						     "cannot write output")
				     : 0;
		}
	}
	diff_release(&d);
	return rc;
}

int rpl_diff_run(const struct rpl_diff_opts *opts, FILE *out, bool *differ, struct repro_err **err)
{
	return diff(opts, out, NULL, differ, err);
}

int rpl_diff_doc(const struct rpl_diff_opts *opts, json_t **doc, bool *differ,
		 struct repro_err **err)
{
	*doc = NULL;
	return diff(opts, NULL, doc, differ, err);
}
