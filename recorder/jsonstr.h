#ifndef REPRO_RECORDER_JSONSTR_H
#define REPRO_RECORDER_JSONSTR_H

#include <jansson.h>
#include <stddef.h>

/*
 * rec_json_str - a JSON string for len bytes that need not be UTF-8 (paths
 * are bytes, path_resolution(7)): valid UTF-8 without NUL is kept as is; in
 * any other string every NUL and every byte above 0x7f becomes the four
 * characters "\xNN" (docs/bundle-format.md).
 * A new reference.
 */
json_t *rec_json_str(const char *s, size_t len);

/*
 * rec_quote - strace's quoting of a string argument into buf: "text" with
 * \" \\ \n \t and \ooo escapes.  Returns buf.
 */
char *rec_quote(const char *s, size_t len, char *buf, size_t cap);

#endif
