#ifndef REPRO_COMMON_MAP_INTERNAL_H
#define REPRO_COMMON_MAP_INTERNAL_H

/* For tests of common/map.c only. */

#include "common/map.h"

/*
 * repro_strmap_new_hashed - repro_strmap_new() with hash in place of
 * repro_map_key_str(): a test passes one that collides on purpose.
 */
struct repro_strmap *repro_strmap_new_hashed(uint64_t (*hash)(const char *s, size_t len));

#endif
