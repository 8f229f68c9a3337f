#ifndef REPRO_COMMON_MAP_H
#define REPRO_COMMON_MAP_H

/*
 * The one hash map: 64-bit keys (a pid, a tid, the XXH3-64 of a string:
 * repro_map_key_str()) to size_t values (an index into the caller's
 * table), open addressing with linear probing, at most three quarters
 * full counting removed slots.  A later put of a key replaces its value.
 * Never fails: out of memory aborts (common/xalloc.h).  Each operation is
 * O(1) on average; growing is linear in the entries.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct repro_map;

/* repro_map_new - an empty map for repro_map_free(). */
struct repro_map *repro_map_new(void);

/* repro_map_free - free m (NULL-safe). */
void repro_map_free(struct repro_map *m);

/* repro_map_put - map key to value, replacing an earlier value; true when key is new. */
bool repro_map_put(struct repro_map *m, uint64_t key, size_t value);

/* repro_map_get - true and *value set when key is mapped; *value untouched otherwise. */
bool repro_map_get(const struct repro_map *m, uint64_t key, size_t *value);

/* repro_map_del - remove key; true when it was there. */
bool repro_map_del(struct repro_map *m, uint64_t key);

/* repro_map_count - how many keys are mapped. */
size_t repro_map_count(const struct repro_map *m);

/*
 * repro_map_key_str - the key of s[0..len) (bytes): its XXH3-64.  Two
 * strings may share a key; a map of such keys is for uses where a
 * collision costs only a repeated piece of work (a set of paths seen);
 * where it would change a result, struct repro_strmap below.
 */
uint64_t repro_map_key_str(const char *s, size_t len);

static inline void repro_cleanup_map_fn(struct repro_map **m)
{
	repro_map_free(*m);
}
#define cleanup_map __attribute__((cleanup(repro_cleanup_map_fn)))

/*
 * The one exact string-keyed facility, on the map above: each distinct
 * string (bytes, any length, NUL bytes allowed) gets an index, 0, 1, 2 …
 * in the order the strings were first put, and keeps it until
 * repro_strmap_clear().  The caller keeps what belongs to a string in its
 * own arrays at that index.  Strings are compared byte for byte: two
 * strings whose XXH3-64 collide are still two keys (a chain of indices
 * per hash), for uses where a collision would change a result.  The map
 * owns a copy of each string.  Never fails: out of memory aborts.
 */
struct repro_strmap;

/* repro_strmap_new - an empty string map for repro_strmap_free(). */
struct repro_strmap *repro_strmap_new(void);

/* repro_strmap_free - free m and its copies of the strings (NULL-safe).  O(count). */
void repro_strmap_free(struct repro_strmap *m);

/*
 * repro_strmap_put - the index of s[0..len), added (a copy) when new; *is_new
 * (may be NULL) says which.  A new string's index is the count before the
 * put.  O(len) on average.
 */
size_t repro_strmap_put(struct repro_strmap *m, const char *s, size_t len, bool *is_new);

/* repro_strmap_get - true and *index set when s[0..len) is there; *index untouched otherwise.  O(len). */
bool repro_strmap_get(const struct repro_strmap *m, const char *s, size_t len, size_t *index);

/*
 * repro_strmap_key - the string of index (< count), NUL-terminated, its
 * length into *len (may be NULL).  Borrowed: valid until clear or free
 * (later puts do not move it).  O(1).
 */
const char *repro_strmap_key(const struct repro_strmap *m, size_t index, size_t *len);

/* repro_strmap_count - how many strings are there (the next new index). */
size_t repro_strmap_count(const struct repro_strmap *m);

/* repro_strmap_clear - forget every string; indices start again at 0.  O(count). */
void repro_strmap_clear(struct repro_strmap *m);

static inline void repro_cleanup_strmap_fn(struct repro_strmap **m)
{
	repro_strmap_free(*m);
}
#define cleanup_strmap __attribute__((cleanup(repro_cleanup_strmap_fn)))

#endif
