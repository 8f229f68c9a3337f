#include "common/map.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <xxhash.h>

enum { EMPTY = 0, USED, REMOVED };

struct slot {
	uint64_t key;
	size_t value;
	uint8_t state;
};

struct repro_map {
	struct slot *slots;
	size_t cap; /* a power of two */
	size_t n; /* USED slots */
	size_t removed; /* REMOVED slots */
};

struct repro_map *repro_map_new(void)
{
	struct repro_map *m = repro_xcalloc(1, sizeof(*m));

	m->cap = 64;
	m->slots = repro_xcalloc(m->cap, sizeof(*m->slots));
	return m;
}

void repro_map_free(struct repro_map *m)
{
	if (m == NULL)
		return;
	free(m->slots);
	free(m);
}

/* splitmix64's finaliser: every bit of the key moves the low bits the table uses */
static size_t home_of(const struct repro_map *m, uint64_t key)
{
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return (size_t)key & (m->cap - 1);
}

/* The slot of key, or NULL. */
static struct slot *find(const struct repro_map *m, uint64_t key)
{
	for (size_t i = home_of(m, key), n = 0; n < m->cap; i = (i + 1) & (m->cap - 1), n++) {
		if (m->slots[i].state == EMPTY)
			return NULL;
		if (m->slots[i].state == USED && m->slots[i].key == key)
			return &m->slots[i];
	}
	return NULL;
}

/* Rehash into a table twice as large, or as large when removed slots filled it. */
static void rehash(struct repro_map *m)
{
	struct repro_map bigger = { .cap = (m->n + 1) * 2 > m->cap ? m->cap * 2 : m->cap };

	bigger.slots = repro_xcalloc(bigger.cap, sizeof(*bigger.slots));
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].state == USED)
			repro_map_put(&bigger, m->slots[i].key, m->slots[i].value);
	free(m->slots);
	*m = bigger;
}

bool repro_map_put(struct repro_map *m, uint64_t key, size_t value)
{
	struct slot *s = find(m, key);
	size_t i;

	if (s != NULL) {
		s->value = value;
		return false;
	}
	if ((m->n + m->removed + 1) * 4 > m->cap * 3)
		rehash(m);
	for (i = home_of(m, key); m->slots[i].state == USED; i = (i + 1) & (m->cap - 1))
		;
	if (m->slots[i].state == REMOVED)
		m->removed--;
	m->slots[i] = (struct slot){ .key = key, .value = value, .state = USED };
	m->n++;
	return true;
}

bool repro_map_get(const struct repro_map *m, uint64_t key, size_t *value)
{
	const struct slot *s = find(m, key);

	if (s == NULL)
		return false;
	*value = s->value;
	return true;
}

bool repro_map_del(struct repro_map *m, uint64_t key)
{
	struct slot *s = find(m, key);

	if (s == NULL)
		return false;
	s->state = REMOVED;
	m->n--;
	m->removed++;
	return true;
}

size_t repro_map_count(const struct repro_map *m)
{
	return m->n;
}

uint64_t repro_map_key_str(const char *s, size_t len)
{
	return XXH3_64bits(s, len);
}
