#include "launcher/tasks.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define TOMB ((pid_t)-1)

void lnch_tasks_init(struct lnch_tasks *t)
{
	t->cap = 64;
	t->count = 0;
	t->tombs = 0;
	t->slots = repro_xcalloc(t->cap, sizeof(*t->slots));
}

void lnch_tasks_release(struct lnch_tasks *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static size_t slot_of(const struct lnch_tasks *t, pid_t tid)
{
	return ((size_t)(uint32_t)tid * 2654435761u) & (t->cap - 1);
}

struct lnch_task *lnch_tasks_get(struct lnch_tasks *t, pid_t tid)
{
	for (size_t i = slot_of(t, tid), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
		if (t->slots[i].tid == tid)
			return &t->slots[i];
		if (t->slots[i].tid == 0)
			return NULL;
	}
	return NULL;
}

/* Rehash into a table twice as large, or as large when tombstones filled it. */
static void rehash(struct lnch_tasks *t)
{
	struct lnch_tasks n = { .cap = (t->count + 1) * 2 > t->cap ? t->cap * 2 : t->cap };

	n.slots = repro_xcalloc(n.cap, sizeof(*n.slots));
	for (size_t i = 0; i < t->cap; i++) {
		struct lnch_task *src = &t->slots[i];

		if (src->tid != 0 && src->tid != TOMB)
			*lnch_tasks_put(&n, src->tid) = *src;
	}
	free(t->slots);
	*t = n;
}

struct lnch_task *lnch_tasks_put(struct lnch_tasks *t, pid_t tid)
{
	struct lnch_task *task = lnch_tasks_get(t, tid);
	size_t i;

	if (task != NULL)
		return task;
	if ((t->count + t->tombs + 1) * 4 >= t->cap * 3)
		rehash(t);
	for (i = slot_of(t, tid); t->slots[i].tid != 0 && t->slots[i].tid != TOMB;
	     i = (i + 1) & (t->cap - 1))
		;
	if (t->slots[i].tid == TOMB)
		t->tombs--;
	memset(&t->slots[i], 0, sizeof(t->slots[i]));
	t->slots[i].tid = tid;
	t->slots[i].last_entry_nr = -1;
	t->count++;
	return &t->slots[i];
}

void lnch_tasks_del(struct lnch_tasks *t, pid_t tid)
{
	struct lnch_task *task = lnch_tasks_get(t, tid);

	if (task == NULL)
		return;
	memset(task, 0, sizeof(*task));
	task->tid = TOMB;
	t->count--;
	t->tombs++;
}
