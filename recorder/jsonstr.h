#ifndef REPRO_RECORDER_JSONSTR_H
#define REPRO_RECORDER_JSONSTR_H

#include <jansson.h>
#include <stddef.h>

/*
 * rec_json_str - a JSON string for len bytes that need not be UTF-8 (paths
 * are bytes, path_resolution(7)): bndl_json_bytes(), so that every member
 * of a bundle escapes bytes the same way: valid UTF-8 is kept, NUL and
 * invalid bytes become "\xNN" (docs/bundle-format.md).
 * A new reference.
 */
json_t *rec_json_str(const char *s, size_t len);

/*
 * rec_quote - strace's quoting of a string argument into buf: "text" with
 * \" \\ \n \t and \ooo escapes.  Returns buf.
 */
char *rec_quote(const char *s, size_t len, char *buf, size_t cap);

#endif
