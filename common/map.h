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
 * collision costs only a repeated piece of work (a set of paths seen).
 */
uint64_t repro_map_key_str(const char *s, size_t len);

static inline void repro_cleanup_map_fn(struct repro_map **m)
{
	repro_map_free(*m);
}
#define cleanup_map __attribute__((cleanup(repro_cleanup_map_fn)))

#endif
