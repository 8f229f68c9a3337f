#include "common/map.h"
#include "common/map_internal.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
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

/* ---- exact string keys ---- */

struct strent {
	char *s; /* owned, NUL-terminated */
	size_t len;
	size_t next; /* the next index of the same hash, or SIZE_MAX */
};

struct repro_strmap {
	struct repro_map *heads; /* hash -> the first index of that hash */
	struct strent *v; /* by index; grown by repro_xgrow() */
	size_t n;
	uint64_t (*hash)(const char *s, size_t len);
};

struct repro_strmap *repro_strmap_new_hashed(uint64_t (*hash)(const char *s, size_t len))
{
	struct repro_strmap *m = repro_xcalloc(1, sizeof(*m));

	m->heads = repro_map_new();
	m->hash = hash;
	return m;
}

struct repro_strmap *repro_strmap_new(void)
{
	return repro_strmap_new_hashed(repro_map_key_str);
}

void repro_strmap_clear(struct repro_strmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].s);
	m->n = 0;
	repro_map_free(m->heads);
	m->heads = repro_map_new();
}

void repro_strmap_free(struct repro_strmap *m)
{
	if (m == NULL)
		return;
	repro_strmap_clear(m);
	repro_map_free(m->heads);
	free(m->v);
	free(m);
}

/*
 * The index of s in the chain of hash h, or SIZE_MAX; *last (may be NULL)
 * is the chain's last index (SIZE_MAX when h has none).  Linear in the
 * chain: one string but for a collision.
 */
static size_t chain_find(const struct repro_strmap *m, uint64_t h, const char *s, size_t len,
			 size_t *last)
{
	size_t i, end = SIZE_MAX;

	if (!repro_map_get(m->heads, h, &i))
		i = SIZE_MAX;
	for (; i != SIZE_MAX; end = i, i = m->v[i].next)
		if (m->v[i].len == len && memcmp(m->v[i].s, s, len) == 0)
			break;
	if (last != NULL)
		*last = end;
	return i;
}

size_t repro_strmap_put(struct repro_strmap *m, const char *s, size_t len, bool *is_new)
{
	uint64_t h = m->hash(s, len);
	size_t last, i = chain_find(m, h, s, len, &last);
	char *copy;

	if (is_new != NULL)
		*is_new = i == SIZE_MAX;
	if (i != SIZE_MAX)
		return i;
	copy = repro_xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	m->v = repro_xgrow(m->v, m->n, sizeof(*m->v));
	m->v[m->n] = (struct strent){ .s = copy, .len = len, .next = SIZE_MAX };
	if (last == SIZE_MAX)
		repro_map_put(m->heads, h, m->n);
	else
		m->v[last].next = m->n;
	return m->n++;
}

bool repro_strmap_get(const struct repro_strmap *m, const char *s, size_t len, size_t *index)
{
	size_t i = chain_find(m, m->hash(s, len), s, len, NULL);

	if (i == SIZE_MAX)
		return false;
	*index = i;
	return true;
}

const char *repro_strmap_key(const struct repro_strmap *m, size_t index, size_t *len)
{
	if (len != NULL)
		*len = m->v[index].len;
	return m->v[index].s;
}

size_t repro_strmap_count(const struct repro_strmap *m)
{
	return m->n;
}
