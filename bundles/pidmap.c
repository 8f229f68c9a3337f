#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sigabbrev_np, strcasestr, mkostemp, asprintf */
#endif

#include "bundles/pidmap.h"
#include "common/xalloc.h"

#include <stdlib.h>

/* Open addressing with linear probing; capacity is a power of two, at most half full. */
struct pidmap_slot {
	int32_t pid;
	bool is_used;
	size_t value;
};

struct bndl_pidmap {
	struct pidmap_slot *slots;
	size_t cap;
	size_t used;
};

struct bndl_pidmap *bndl_pidmap_new(void)
{
	struct bndl_pidmap *m = repro_xcalloc(1, sizeof(*m));

	m->cap = 64;
	m->slots = repro_xcalloc(m->cap, sizeof(*m->slots));
	return m;
}

void bndl_pidmap_free(struct bndl_pidmap *m)
{
	if (m == NULL)
		return;
	free(m->slots);
	free(m);
}

static size_t slot_of(const struct bndl_pidmap *m, int32_t pid)
{
	/* Fibonacci hashing: the high bits of the product depend on every bit of the pid */
	uint64_t h = (uint64_t)(uint32_t)pid * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 32) & (m->cap - 1);

	while (m->slots[i].is_used && m->slots[i].pid != pid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void grow(struct bndl_pidmap *m)
{
	struct pidmap_slot *old = m->slots;
	size_t old_cap = m->cap;

	m->cap *= 2;
	m->slots = repro_xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].is_used)
			m->slots[slot_of(m, old[i].pid)] = old[i];
	free(old);
}

void bndl_pidmap_put(struct bndl_pidmap *m, int32_t pid, size_t value)
{
	size_t i;

	if ((m->used + 1) * 2 > m->cap)
		grow(m);
	i = slot_of(m, pid);
	if (!m->slots[i].is_used)
		m->used++;
	m->slots[i] = (struct pidmap_slot){ .pid = pid, .is_used = true, .value = value };
}

bool bndl_pidmap_get(const struct bndl_pidmap *m, int32_t pid, size_t *value)
{
	size_t i = slot_of(m, pid);

	if (!m->slots[i].is_used)
		return false;
	*value = m->slots[i].value;
	return true;
}
