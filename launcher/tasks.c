#include "launcher/tasks.h"
#include "common/map.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

void lnch_tasks_init(struct lnch_tasks *t)
{
	*t = (struct lnch_tasks){ .by_tid = repro_map_new() };
}

void lnch_tasks_release(struct lnch_tasks *t)
{
	free(t->v);
	repro_map_free(t->by_tid);
	memset(t, 0, sizeof(*t));
}

struct lnch_task *lnch_tasks_get(struct lnch_tasks *t, pid_t tid)
{
	size_t i;

	return repro_map_get(t->by_tid, (uint32_t)tid, &i) ? &t->v[i] : NULL;
}

struct lnch_task *lnch_tasks_put(struct lnch_tasks *t, pid_t tid)
{
	struct lnch_task *task = lnch_tasks_get(t, tid);

	if (task != NULL)
		return task;
	t->v = repro_xgrow(t->v, t->n, sizeof(*t->v));
	task = &t->v[t->n];
	*task = (struct lnch_task){ .tid = tid, .last_entry_nr = -1 };
	repro_map_put(t->by_tid, (uint32_t)tid, t->n++);
	t->count++;
	return task;
}

/* Close the holes, keeping the order of arrival.  Linear in n. */
static void compact(struct lnch_tasks *t)
{
	size_t to = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].tid == 0)
			continue;
		if (to != i) {
			t->v[to] = t->v[i];
			repro_map_put(t->by_tid, (uint32_t)t->v[to].tid, to);
		}
		to++;
	}
	t->n = to;
}

void lnch_tasks_del(struct lnch_tasks *t, pid_t tid)
{
	size_t i;

	if (!repro_map_get(t->by_tid, (uint32_t)tid, &i))
		return;
	repro_map_del(t->by_tid, (uint32_t)tid);
	memset(&t->v[i], 0, sizeof(t->v[i]));
	t->count--;
	while (t->n > 0 && t->v[t->n - 1].tid == 0)
		t->n--; /* holes at the end go at once */
	/* at least count + 1 removals between two compactions: amortised O(1) */
	if (t->n - t->count > t->count)
		compact(t);
}
