#include "recorder/socks.h"
#include "common/xalloc.h"

#include <stdint.h>
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
	bigger.stats = repro_xcalloc(bigger.cap, sizeof(*bigger.stats));
	for (size_t i = 0; i < s->cap; i++) {
		if (s->keys[i] != 0) {
			size_t j = probe(&bigger, s->keys[i]);

			bigger.keys[j] = s->keys[i];
			bigger.flags[j] = s->flags[i];
			bigger.stats[j] = s->stats[i];
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
			s->stats[hole] = s->stats[i];
			s->keys[i] = 0;
			hole = i;
		}
	}
}

/* The slot of (pid, fd), or SIZE_MAX when absent.  O(1) expected. */
static size_t find(const struct rec_socks *s, int32_t pid, int32_t fd)
{
	size_t i;

	if (s->n == 0)
		return SIZE_MAX;
	i = probe(s, key_of(pid, fd));
	return s->keys[i] != 0 ? i : SIZE_MAX;
}

/* The slot of (pid, fd), added with no flags when absent; SIZE_MAX when the table is full. */
static size_t insert(struct rec_socks *s, int32_t pid, int32_t fd)
{
	uint64_t key = key_of(pid, fd);
	size_t i = find(s, pid, fd);

	if (i != SIZE_MAX)
		return i;
	if (s->n >= REC_SOCKS_MAX)
		return SIZE_MAX;
	if ((s->n + 1) * 2 > s->cap)
		grow(s);
	i = probe(s, key);
	s->keys[i] = key;
	s->flags[i] = 0;
	s->stats[i] = (struct rec_sockstat){ .prev_fd = -1, .next_fd = -1 };
	s->n++;
	return i;
}

/* Set the flags of slot i; an entry left with none is removed (other slots may move). */
static void set_flags(struct rec_socks *s, size_t i, unsigned flags)
{
	if (flags == 0)
		remove_at(s, i);
	else
		s->flags[i] = (uint8_t)flags;
}

void rec_socks_set(struct rec_socks *s, int32_t pid, int32_t fd, unsigned flags)
{
	const unsigned watch = REC_SOCK_DNS | REC_SOCK_PENDING;
	size_t i = find(s, pid, fd);

	if (i == SIZE_MAX && (flags & watch) == 0)
		return;
	if (i == SIZE_MAX && (i = insert(s, pid, fd)) == SIZE_MAX)
		return;
	set_flags(s, i, (s->flags[i] & ~watch) | (flags & watch));
}

void rec_socks_data_begin(struct rec_socks *s, int32_t pid, int32_t fd)
{
	size_t head = insert(s, pid, -1), i;
	int32_t first;

	if (head == SIZE_MAX)
		return;
	s->flags[head] |= REC_SOCK_HEAD;
	if ((i = insert(s, pid, fd)) == SIZE_MAX || (s->flags[i] & REC_SOCK_DATA))
		return;
	head = find(s, pid, -1); /* the insert may have grown the table */
	first = s->stats[head].next_fd;
	s->flags[i] |= REC_SOCK_DATA;
	s->stats[i] = (struct rec_sockstat){ .prev_fd = -1, .next_fd = first };
	if (first >= 0)
		s->stats[find(s, pid, first)].prev_fd = fd;
	s->stats[head].next_fd = fd;
}

struct rec_sockstat *rec_socks_data(struct rec_socks *s, int32_t pid, int32_t fd)
{
	size_t i = find(s, pid, fd);

	return i != SIZE_MAX && (s->flags[i] & REC_SOCK_DATA) ? &s->stats[i] : NULL;
}

bool rec_socks_data_end(struct rec_socks *s, int32_t pid, int32_t fd, struct rec_sockstat *out)
{
	size_t i = find(s, pid, fd), head;
	struct rec_sockstat st;

	if (i == SIZE_MAX || !(s->flags[i] & REC_SOCK_DATA))
		return false;
	st = *out = s->stats[i];
	set_flags(s, i, s->flags[i] & ~(unsigned)REC_SOCK_DATA);
	if (st.next_fd >= 0)
		s->stats[find(s, pid, st.next_fd)].prev_fd = st.prev_fd;
	if (st.prev_fd >= 0) {
		s->stats[find(s, pid, st.prev_fd)].next_fd = st.next_fd;
		return true;
	}
	head = find(s, pid, -1);
	s->stats[head].next_fd = st.next_fd;
	if (st.next_fd < 0)
		remove_at(s, head);
	return true;
}

int32_t rec_socks_data_first(const struct rec_socks *s, int32_t pid)
{
	size_t head = find(s, pid, -1);

	return head != SIZE_MAX ? s->stats[head].next_fd : -1;
}

uint64_t *rec_socks_data_list(const struct rec_socks *s, size_t *n)
{
	uint64_t *v = repro_xcalloc(s->n + 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < s->cap; i++)
		if (s->keys[i] != 0 && (s->flags[i] & REC_SOCK_DATA))
			v[(*n)++] = s->keys[i];
	return v;
}

void rec_socks_release(struct rec_socks *s)
{
	free(s->keys);
	free(s->flags);
	free(s->stats);
	*s = (struct rec_socks){ 0 };
}
