#ifndef REPRO_RECORDER_SEEN_H
#define REPRO_RECORDER_SEEN_H

/*
 * A set of paths seen before, by their XXH3-64 hash (a collision only
 * means a path's earlier metadata is not taken again).  Used on the hot
 * path: one hash and a probe per call that may change a path.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_seen {
	uint64_t *slots; /* 0 = empty; a hash of 0 is stored as 1 */
	size_t cap; /* a power of two */
	size_t n;
};

/* rec_seen_add - add path[0..len); true when it was not in the set before. */
bool rec_seen_add(struct rec_seen *s, const char *path, size_t len);

void rec_seen_release(struct rec_seen *s);

#endif
