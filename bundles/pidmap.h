#ifndef REPRO_BUNDLES_PIDMAP_H
#define REPRO_BUNDLES_PIDMAP_H

/*
 * A small hash map from a pid to an index (into the caller's table of
 * processes), used when building or reading processes.jsonl.  A later put for
 * the same pid replaces the earlier value (pid reuse).  Never fails: out of
 * memory aborts (common/xalloc.h).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bndl_pidmap;

/* bndl_pidmap_new - an empty map for bndl_pidmap_free(). */
struct bndl_pidmap *bndl_pidmap_new(void);

/* bndl_pidmap_free - free m (NULL-safe). */
void bndl_pidmap_free(struct bndl_pidmap *m);

/* bndl_pidmap_put - map pid to value, replacing any earlier value. */
void bndl_pidmap_put(struct bndl_pidmap *m, int32_t pid, size_t value);

/* bndl_pidmap_get - true and *value set when pid is mapped; *value untouched otherwise. */
bool bndl_pidmap_get(const struct bndl_pidmap *m, int32_t pid, size_t *value);

static inline void bndl_cleanup_pidmap_fn(struct bndl_pidmap **m)
{
	bndl_pidmap_free(*m);
}
#define cleanup_pidmap __attribute__((cleanup(bndl_cleanup_pidmap_fn)))

#endif
