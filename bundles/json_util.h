#ifndef REPRO_BUNDLES_JSON_UTIL_H
#define REPRO_BUNDLES_JSON_UTIL_H

/*
 * Cleanup helper for jansson values (common/cleanup.h keeps library handles
 * out of common/), and small typed getters that treat a missing or mistyped
 * key as absent, for reading untrusted bundle JSON.
 */

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static inline void bndl_cleanup_json_fn(json_t **j)
{
	json_decref(*j);
}
#define cleanup_json __attribute__((cleanup(bndl_cleanup_json_fn)))

/* bndl_json_str - obj[key] when it is a string, else NULL; borrowed from obj. */
static inline const char *bndl_json_str(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* bndl_json_int - obj[key] when it is an integer, else def. */
static inline int64_t bndl_json_int(const json_t *obj, const char *key, int64_t def)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

/*
 * bndl_ns_add - a + b (ns) saturated at INT64_MIN and INT64_MAX: a bundle's
 * times are hostile input, and t_ns + dur_ns of INT64_MAX must not overflow.
 */
static inline int64_t bndl_ns_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/*
 * bndl_json_bytes - a JSON string for len bytes of data.  Valid UTF-8 is
 * kept; NUL and every byte that is not part of valid UTF-8 become the four
 * characters "\xNN" (strace's escaping), since jansson only takes UTF-8 and
 * paths and argv are arbitrary bytes on Linux (docs/bundle-format.md).
 * Returns a new reference; never fails.
 */
json_t *bndl_json_bytes(const void *data, size_t len);

/*
 * bndl_json_text - v encoded with flags (json_dumpb) in a NUL-terminated
 * buffer from malloc (the caller frees it with free(), whatever allocator
 * jansson was given: json_dumps' result would need jansson's free), or
 * NULL when v cannot be encoded.  Linear in the encoding.
 */
char *bndl_json_text(const json_t *v, size_t flags);

/*
 * bndl_json_write - v encoded with flags and JSON_ENSURE_ASCII to out, as
 * json_dumpf() does, but DEL (0x7f, which jansson leaves raw in a string)
 * written as "\u007f": every --json output of a reader is plain printable
 * ASCII but its newlines, whatever a bundle holds.  Returns 0, or -1 when
 * v cannot be encoded or out cannot be written.  Linear in the encoding.
 */
int bndl_json_write(const json_t *v, FILE *out, size_t flags);

/* bndl_json_str_or_null - json_string(s), or json_null() when s is NULL; a new reference. */
json_t *bndl_json_str_or_null(const char *s);

#endif
