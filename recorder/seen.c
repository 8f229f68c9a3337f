#include "recorder/seen.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <xxhash.h>

static void insert(struct rec_seen *s, uint64_t h)
{
	size_t i = (size_t)h & (s->cap - 1);

	while (s->slots[i] != 0)
		i = (i + 1) & (s->cap - 1);
	s->slots[i] = h;
	s->n++;
}

static void grow(struct rec_seen *s)
{
	struct rec_seen bigger = { .cap = s->cap ? s->cap * 2 : 1024 };

	bigger.slots = repro_xcalloc(bigger.cap, sizeof(uint64_t));
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i] != 0)
			insert(&bigger, s->slots[i]);
	free(s->slots);
	*s = bigger;
}

bool rec_seen_add(struct rec_seen *s, const char *path, size_t len)
{
	uint64_t h = XXH3_64bits(path, len);
	size_t i;

	h = h ? h : 1;
	if ((s->n + 1) * 2 > s->cap)
		grow(s);
	for (i = (size_t)h & (s->cap - 1); s->slots[i] != 0; i = (i + 1) & (s->cap - 1))
		if (s->slots[i] == h)
			return false;
	s->slots[i] = h;
	s->n++;
	return true;
}

void rec_seen_release(struct rec_seen *s)
{
	free(s->slots);
	*s = (struct rec_seen){ 0 };
}
