#ifndef REPRO_BUNDLES_READER_H
#define REPRO_BUNDLES_READER_H

/*
 * The validated, streaming bundle reader.  Every bundle is hostile input: a
 * member is looked up by its exact name (nothing is ever extracted to disk),
 * lines are capped at BNDL_LINE_MAX bytes, manifest.json at BNDL_MANIFEST_MAX,
 * the total uncompressed size read at BNDL_TOTAL_MAX, and every parse error
 * names the member and line.
 */

#include "common/err.h"

#include <jansson.h>
#include <stdio.h>

#define BNDL_FORMAT_NAME "repro-bundle"
#define BNDL_FMT_MAJOR 1
/*
 * Longest .jsonl line and largest manifest.json (bytes): room for an exec's
 * whole argv (BNDL_ARGV_MAX, 6 MiB, bundles/spool.h) even when every byte
 * of it is written as \xNN, and for a process with a few such execs.
 */
#define BNDL_LINE_MAX (64u * 1024u * 1024u)
#define BNDL_MANIFEST_MAX (64u * 1024u * 1024u)
/* Largest single-object member (host.json) read whole, bytes. */
#define BNDL_OBJECT_MAX (16u * 1024u * 1024u)
#define BNDL_TOTAL_MAX (16ull * 1024 * 1024 * 1024)

struct bndl_reader;

/*
 * bndl_reader_open - open the bundle at path and validate manifest.json
 * (format name, major version <= BNDL_FMT_MAJOR).  Returns a reader for
 * bndl_reader_free(), or NULL with *err: ENOENT/EACCES from open, EPROTO for
 * a file that is not a bundle, truncated, or of a newer major version; the
 * message names the file and the member.
 */
struct bndl_reader *bndl_reader_open(const char *path, struct repro_err **err);

/* bndl_reader_manifest - the parsed manifest; borrowed, valid until free. */
json_t *bndl_reader_manifest(const struct bndl_reader *r);

/*
 * Called for each line of a .jsonl member: obj is borrowed for the call;
 * lineno counts from 1.  Return 0 to go on, -1 with *err to stop.
 */
typedef int (*bndl_line_fn)(void *ctx, json_t *obj, size_t lineno, struct repro_err **err);

/*
 * bndl_reader_foreach - stream member (e.g. "events.jsonl") line by line.
 * Returns 0, or -1 with *err (EPROTO: member missing, a line not a JSON
 * object, too long, or the archive truncated; message "MEMBER line N: …").
 */
int bndl_reader_foreach(struct bndl_reader *r, const char *member, bndl_line_fn fn, void *ctx,
			struct repro_err **err);

/*
 * A look at line lineno (from 1; len bytes, no newline, not NUL-terminated)
 * before it is parsed: return 1 to parse it and call the line function, 0
 * to skip it, -1 to stop reading (not an error).
 */
typedef int (*bndl_raw_fn)(void *ctx, const char *line, size_t len, size_t lineno);

/*
 * bndl_reader_foreach_filtered - as bndl_reader_foreach, but only lines
 * that filter accepts are parsed (for finding a few lines of a large
 * member cheaply).  Returns 0 (also when filter stopped), or -1 with *err.
 */
int bndl_reader_foreach_filtered(struct bndl_reader *r, const char *member, bndl_raw_fn filter,
				 bndl_line_fn fn, void *ctx, struct repro_err **err);

/*
 * bndl_reader_has - 1 when the bundle has a regular-file member named
 * member, 0 when not (an older bundle), -1 with *err when it cannot be read.
 */
int bndl_reader_has(struct bndl_reader *r, const char *member, struct repro_err **err);

/*
 * bndl_reader_load - a member holding one JSON object (host.json), parsed;
 * a new reference.  NULL with *err: EPROTO when the member is missing (the
 * message says so), larger than BNDL_OBJECT_MAX, or not a JSON object.
 */
json_t *bndl_reader_load(struct bndl_reader *r, const char *member, struct repro_err **err);

/*
 * bndl_reader_copy - copy member's bytes to out (e.g. trace.txt to stdout)
 * through the terminal sanitiser (common/term.h, newline and tab kept): a
 * hostile member cannot drive the terminal.  Linear in the member.
 * Returns 0, or -1 with *err.
 */
int bndl_reader_copy(struct bndl_reader *r, const char *member, FILE *out, struct repro_err **err);

void bndl_reader_free(struct bndl_reader *r);

static inline void bndl_cleanup_reader_fn(struct bndl_reader **r)
{
	bndl_reader_free(*r);
}
#define cleanup_reader __attribute__((cleanup(bndl_cleanup_reader_fn)))

#endif
