#include "recorder/socks.h"
#include "common/xalloc.h"

#include <stdlib.h>

static uint64_t key_of(int32_t pid, int32_t fd)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)fd;
}

/* Fibonacci hashing: the key's bits spread over the table index. */
static size_t home(const struct rec_socks *s, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (s->cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t probe(const struct rec_socks *s, uint64_t key)
{
	size_t i = home(s, key);

	while (s->keys[i] != 0 && s->keys[i] != key)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static void grow(struct rec_socks *s)
{
	struct rec_socks bigger = { .cap = s->cap ? s->cap * 2 : 64 };

	bigger.keys = repro_xcalloc(bigger.cap, sizeof(*bigger.keys));
	bigger.flags = repro_xcalloc(bigger.cap, sizeof(*bigger.flags));
	for (size_t i = 0; i < s->cap; i++) {
		if (s->keys[i] != 0) {
			size_t j = probe(&bigger, s->keys[i]);

			bigger.keys[j] = s->keys[i];
			bigger.flags[j] = s->flags[i];
			bigger.n++;
		}
	}
	rec_socks_release(s);
	*s = bigger;
}

unsigned rec_socks_get(const struct rec_socks *s, int32_t pid, int32_t fd)
{
	size_t i;

	if (s->n == 0)
		return 0;
	i = probe(s, key_of(pid, fd));
	return s->keys[i] != 0 ? s->flags[i] : 0;
}

/* Backward-shift deletion (no tombstones): refill the hole from its probe run. */
static void remove_at(struct rec_socks *s, size_t hole)
{
	size_t i = hole;

	s->keys[hole] = 0;
	s->n--;
	for (;;) {
		size_t h;

		i = (i + 1) & (s->cap - 1);
		if (s->keys[i] == 0)
			return;
		h = home(s, s->keys[i]);
		/* the entry at i may move to the hole when its home is not in (hole, i] */
		if ((i > hole && (h <= hole || h > i)) || (i < hole && h <= hole && h > i)) {
			s->keys[hole] = s->keys[i];
			s->flags[hole] = s->flags[i];
			s->keys[i] = 0;
			hole = i;
		}
	}
}

void rec_socks_set(struct rec_socks *s, int32_t pid, int32_t fd, unsigned flags)
{
	uint64_t key = key_of(pid, fd);
	size_t i;

	if (s->cap > 0) {
		i = probe(s, key);
		if (s->keys[i] != 0) {
			if (flags == 0)
				remove_at(s, i);
			else
				s->flags[i] = (uint8_t)flags;
			return;
		}
	}
	if (flags == 0 || s->n >= REC_SOCKS_MAX)
		return;
	if ((s->n + 1) * 2 > s->cap)
		grow(s);
	i = probe(s, key);
	s->keys[i] = key;
	s->flags[i] = (uint8_t)flags;
	s->n++;
}

void rec_socks_release(struct rec_socks *s)
{
	free(s->keys);
	free(s->flags);
	*s = (struct rec_socks){ 0 };
}
