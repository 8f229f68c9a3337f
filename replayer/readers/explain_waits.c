/*
 * Where the time went, for `repro explain` (docs/explain.md, "Stalls and
 * interruptions"): findings from waits.jsonl (docs/bundle-format.md).
 */
#include "replayer/readers/explain_internal.h"
#include "replayer/readers/wait_text.h"
#include "bundles/json_util.h"
#include "common/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Ended by a signal that asks a program to stop (Ctrl-C, kill, timeout(1)). */
static bool ended_by_stop_signal(json_t *w)
{
	const char *sig = bndl_json_str(w, "signal");

	return is(bndl_json_str(w, "end"), "signal") &&
	       (is(sig, "SIGINT") || is(sig, "SIGTERM") || is(sig, "SIGHUP") || is(sig, "SIGQUIT"));
}

bool xp_wait_is_interruption(json_t *w)
{
	return json_is_true(json_object_get(w, "at_stop")) || ended_by_stop_signal(w) ||
	       is(bndl_json_str(w, "end"), "left_running");
}

void xp_waits_add(struct xp_waits *ws, json_t *w)
{
	bool cut = xp_wait_is_interruption(w);
	json_t *into = cut ? ws->interrupted : ws->long_waits;

	/* a sleep is chosen, and a wait for a child is explained by the child */
	if (!cut &&
	    (bndl_json_int(w, "dur_ns", 0) < XP_WAIT_LONG_NS ||
	     is(bndl_json_str(w, "what"), "sleep") || is(bndl_json_str(w, "what"), "child")))
		return;
	if (json_array_size(into) < XP_WAITS_MAX)
		json_array_append(into, w);
}

/* How long the wait had lasted when it was cut: at the stop request, else at its end. */
static int64_t waited_ns(json_t *w)
{
	int64_t t = bndl_json_int(w, "t_ns", 0), stop = bndl_json_int(w, "stop_ns", -1);

	return stop >= t ? stop - t : bndl_json_int(w, "dur_ns", 0);
}

static int by_importance(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	bool cx = is(bndl_json_str(x, "what"), "child"), cy = is(bndl_json_str(y, "what"), "child");
	int64_t dx = waited_ns(x), dy = waited_ns(y);

	if (cx != cy)
		return cx ? 1
			  : -1; /* a parent waiting for its child comes after what the child waits on */
	return dx > dy ? -1 : dx < dy;
}

/* The interrupted waits, most telling first (each process once). */
static json_t *sorted_interrupted(json_t *arr)
{
	size_t n = json_array_size(arr);
	json_t **v = repro_xcalloc(n + 1, sizeof(*v)), *out = json_array(), *seen = json_object();

	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(arr, i);
	qsort(v, n, sizeof(*v), by_importance);
	for (size_t i = 0; i < n; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%" PRId64, bndl_json_int(v[i], "pid", 0));
		if (json_object_get(seen, key) != NULL)
			continue;
		json_object_set_new(seen, key, json_true());
		json_array_append(out, v[i]);
	}
	json_decref(seen);
	free(v);
	return out;
}

static struct xp_finding *wait_finding(struct xp_waits *ws, const char *key, json_t *w,
				       const char *outcome)
{
	struct xp_finding *x = ws->add(ws->add_ctx, key);

	if (x == NULL || x->count > 0)
		return NULL;
	x->kind = XP_WAIT;
	x->op = XP_OP_OTHER;
	x->pid = (int32_t)bndl_json_int(w, "pid", 0);
	x->syscall = repro_xstrdup(bndl_json_str(w, "syscall") ? bndl_json_str(w, "syscall") : "?");
	x->errname = repro_xstrdup(outcome);
	x->t_ns = bndl_ns_add(bndl_json_int(w, "t_ns", 0), bndl_json_int(w, "dur_ns", 0));
	x->count = 1;
	return x;
}

void xp_waits_findings(struct xp_waits *ws, int64_t run_ns, bool run_ok)
{
	json_t *w;
	size_t i;

	if (json_array_size(ws->interrupted) > 0) {
		json_t *sorted = sorted_interrupted(ws->interrupted);
		struct xp_finding *x = wait_finding(ws, "wait\x1finterrupted",
						    json_array_get(sorted, 0), "interrupted");

		if (x != NULL) {
			x->wait = json_incref(sorted);
			x->wait_interrupted = true;
		}
		json_decref(sorted);
	}
	json_array_foreach (ws->long_waits, i, w) {
		char key[96];
		struct xp_finding *x;

		if (run_ok)
			break;
		snprintf(key, sizeof(key), "wait\x1f%" PRId64 "\x1f%" PRId64 "\x1f%" PRId64,
			 bndl_json_int(w, "pid", 0), bndl_json_int(w, "tid", 0),
			 bndl_json_int(w, "t_ns", 0));
		x = wait_finding(ws, key, w,
				 bndl_json_str(w, "end") ? bndl_json_str(w, "end") : "?");
		if (x == NULL)
			continue;
		x->wait = json_incref(w);
		x->wait_dominant = run_ns > 0 &&
				   bndl_json_int(w, "dur_ns", 0) >= run_ns - run_ns / 2;
	}
}

double xp_wait_score(const struct xp_finding *x, const struct xp_proc *p, bool run_failed)
{
	bool child = is(bndl_json_str(x->wait, "what"), "child");
	/* its process failed right after the wait: what it waited for is why */
	bool led_to_end = p != NULL && p->failed && p->end_ns >= x->t_ns &&
			  (uint64_t)p->end_ns - (uint64_t)x->t_ns <= XP_WAIT_THEN_END_NS;

	if (x->wait_interrupted)
		return 200; /* the run was cut short: what it was waiting for comes first */
	if ((x->wait_dominant || led_to_end) && run_failed)
		return child ? 95 : 130;
	return child ? 5 : 15;
}

/* explain's names of processes, for wait_text.h: proc_of(ctx, pid)'s label. */
struct xp_wait_names {
	const struct xp_proc *(*proc_of)(const void *ctx, int32_t pid);
	const void *ctx;
};

static const char *label_of(void *ctx, int64_t pid)
{
	const struct xp_wait_names *n = ctx;
	const struct xp_proc *p = n->proc_of != NULL && pid > 0 && pid <= INT32_MAX
					  ? n->proc_of(n->ctx, (int32_t)pid)
					  : NULL;

	return p != NULL ? p->label : NULL;
}

/* "python3 x.py (pid 5) had been waiting 2.2 s in connect to 10.0.0.1:443" */
static void put_one_interrupted(FILE *f, json_t *w, const struct xp_proc *p,
				const struct rpl_wait_names *names)
{
	if (p != NULL)
		fprintf(f, "%s (pid %" PRId64 ")", p->label, bndl_json_int(w, "pid", 0));
	else
		fprintf(f, "pid %" PRId64, bndl_json_int(w, "pid", 0));
	fputs(" had been waiting ", f);
	rpl_wait_put_secs(f, waited_ns(w));
	fputc(' ', f);
	rpl_wait_put_on(f, w, names);
}

void xp_wait_explain(FILE *f, json_t *r, const struct xp_finding *x, const struct xp_proc *p,
		     const struct xp_proc *(*proc_of)(const void *ctx, int32_t pid),
		     const void *ctx)
{
	json_t *w = x->wait_interrupted ? json_array_get(x->wait, 0) : x->wait;
	struct xp_wait_names by_pid = { .proc_of = proc_of, .ctx = ctx };
	const struct rpl_wait_names names = { .label = label_of, .ctx = &by_pid };
	size_t i;
	json_t *e;

	json_object_set_new(r, "what", json_string(x->wait_interrupted ? "interrupted" : "stall"));
	json_object_set(r, x->wait_interrupted ? "waits" : "wait", x->wait);
	if (!x->wait_interrupted) {
		if (p != NULL)
			fprintf(f, "%s (pid %d)", p->label, (int)x->pid);
		else
			fprintf(f, "pid %d", (int)x->pid);
		fputs(" waited ", f);
		rpl_wait_put_secs(f, bndl_json_int(w, "dur_ns", 0));
		fputc(' ', f);
		rpl_wait_put_on(f, w, &names);
		rpl_wait_put_end(f, w);
		return;
	}
	fputs("interrupted after ", f);
	rpl_wait_put_secs(f, bndl_json_int(w, "stop_ns", x->t_ns));
	if (ended_by_stop_signal(w))
		fprintf(f, " (%s)", bndl_json_str(w, "signal"));
	fputs(": ", f);
	json_array_foreach (x->wait, i, e) {
		if (i > 0)
			fputs("; ", f);
		if (i == 3) {
			fprintf(f, "and %zu more (waits.jsonl)", json_array_size(x->wait) - 3);
			break;
		}
		put_one_interrupted(
			f, e,
			proc_of != NULL ? proc_of(ctx, (int32_t)bndl_json_int(e, "pid", 0)) : NULL,
			&names);
	}
}
