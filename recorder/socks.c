#include "recorder/socks.h"
#include "common/map.h"
#include "common/xalloc.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t key_of(int32_t pid, int32_t fd)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)fd;
}

/* The index of (pid, fd), or SIZE_MAX when absent.  O(1) on average. */
static size_t find(const struct rec_socks *s, int32_t pid, int32_t fd)
{
	size_t i;

	if (s->n == 0 || !repro_map_get(s->by_key, key_of(pid, fd), &i))
		return SIZE_MAX;
	return i;
}

unsigned rec_socks_get(const struct rec_socks *s, int32_t pid, int32_t fd)
{
	size_t i = find(s, pid, fd);

	return i != SIZE_MAX ? s->flags[i] : 0;
}

/* Close the holes, keeping the order.  Linear in len. */
static void compact(struct rec_socks *s)
{
	size_t to = 0;

	for (size_t i = 0; i < s->len; i++) {
		if (s->flags[i] == 0)
			continue;
		if (to != i) {
			s->keys[to] = s->keys[i];
			s->flags[to] = s->flags[i];
			s->stats[to] = s->stats[i];
			repro_map_put(s->by_key, s->keys[to], to);
		}
		to++;
	}
	s->len = to;
}

/* Remove the entry at i: a hole; other entries may move (compaction, amortised O(1)). */
static void remove_at(struct rec_socks *s, size_t i)
{
	repro_map_del(s->by_key, s->keys[i]);
	s->flags[i] = 0;
	s->n--;
	while (s->len > 0 && s->flags[s->len - 1] == 0)
		s->len--; /* holes at the end go at once */
	/* at least n + 1 removals between two compactions */
	if (s->len - s->n > s->n)
		compact(s);
}

/*
 * The index of (pid, fd), added with no flags when absent (the caller sets
 * some before anything is removed); SIZE_MAX when the table is full.
 */
static size_t insert(struct rec_socks *s, int32_t pid, int32_t fd)
{
	size_t i = find(s, pid, fd);

	if (i != SIZE_MAX)
		return i;
	if (s->n >= REC_SOCKS_MAX)
		return SIZE_MAX;
	if (s->by_key == NULL)
		s->by_key = repro_map_new();
	s->keys = repro_xgrow(s->keys, s->len, sizeof(*s->keys));
	s->flags = repro_xgrow(s->flags, s->len, sizeof(*s->flags));
	s->stats = repro_xgrow(s->stats, s->len, sizeof(*s->stats));
	i = s->len++;
	s->keys[i] = key_of(pid, fd);
	s->flags[i] = 0;
	s->stats[i] = (struct rec_sockstat){ .prev_fd = -1, .next_fd = -1 };
	repro_map_put(s->by_key, s->keys[i], i);
	s->n++;
	return i;
}

/* Set the flags of entry i; an entry left with none is removed (other entries may move). */
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
	for (size_t i = 0; i < s->len; i++)
		if (s->flags[i] & REC_SOCK_DATA)
			v[(*n)++] = s->keys[i];
	return v;
}

void rec_socks_release(struct rec_socks *s)
{
	free(s->keys);
	free(s->flags);
	free(s->stats);
	repro_map_free(s->by_key);
	*s = (struct rec_socks){ 0 };
}
