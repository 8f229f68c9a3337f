#ifndef REPRO_BUNDLES_READER_H
#define REPRO_BUNDLES_READER_H

/*
 * The validated, streaming bundle reader.  Every bundle is hostile input: a
 * member is looked up by its exact name (nothing is ever extracted to disk),
 * lines are capped at BNDL_LINE_MAX bytes, manifest.json at BNDL_MANIFEST_MAX,
 * and every parse error names the member and line.
 *
 * One pass: the archive is opened once and read forward.  A command that
 * asks for members in the order the bundle holds them (bndl_members,
 * listed in manifest.json's "members") decompresses each byte once, and can
 * read a bundle from a pipe.  Asking for a member already passed opens the
 * file again (not a pipe); every pass counts towards the byte limit.
 * Limits (docs/bundle-format.md "Reading a hostile bundle"): the
 * uncompressed bytes read, the JSON memory held, BNDL_MEMBERS_MAX members;
 * a member name seen twice is refused (tar -x would keep the last copy).
 */

#include "common/err.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
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
/* Default limits of struct bndl_limits (bytes). */
#define BNDL_READ_DEFAULT (4ull * 1024 * 1024 * 1024)
#define BNDL_MEMORY_DEFAULT (1ull * 1024 * 1024 * 1024)
/* Most members an archive may have (a bundle has 9, 10 with overlay.jsonl). */
#define BNDL_MEMBERS_MAX 64u

/* The members of a bundle in the order they are written: bundles/members.h. */
#include "bundles/members.h"

/*
 * How the memory held by parsed JSON is counted (cli/ installs jansson's
 * allocator): held() is the bytes held now.
 */
struct bndl_memory_ops {
	size_t (*held)(void);
};

/* What a reader may use; 0 and NULL fields take the defaults. */
struct bndl_limits {
	uint64_t max_read; /* uncompressed bytes over all passes, BNDL_READ_DEFAULT */
	uint64_t max_memory; /* parsed JSON held at once, BNDL_MEMORY_DEFAULT */
	const struct bndl_memory_ops *mem; /* NULL: memory is not counted */
};

struct bndl_reader;

/*
 * bndl_reader_open - open the bundle at path and validate manifest.json
 * (format name, major version <= BNDL_FMT_MAJOR).  Returns a reader for
 * bndl_reader_free(), or NULL with *err: ENOENT/EACCES from open, EPROTO for
 * a file that is not a bundle, truncated, or of a newer major version; the
 * message names the file and the member.
 */
struct bndl_reader *bndl_reader_open(const char *path, struct repro_err **err);

/*
 * bndl_reader_open_limited - bndl_reader_open() under lim (NULL: the
 * defaults; borrowed, lim->mem must outlive the reader).  A regular file,
 * or a pipe read once; a directory is EISDIR, a device EINVAL.
 */
struct bndl_reader *bndl_reader_open_limited(const char *path, const struct bndl_limits *lim,
					     struct repro_err **err);

/* bndl_reader_manifest - the parsed manifest; borrowed, valid until free. */
json_t *bndl_reader_manifest(const struct bndl_reader *r);

/*
 * The command (docs/bundle-format.md "manifest.json"): manifest.json
 * "argv" must be the first exec of the first process (processes.jsonl's
 * first record), or that exec its interpreter's form of it (a "#!" script
 * or a file run by /bin/sh after ENOEXEC: an interpreter, at most one
 * argument of it, the program's path, argv[1..]).  Every walk of the
 * archive checks it on its way: reading processes.jsonl (any foreach), or
 * passing it to reach a later member or the end (bndl_reader_finish());
 * a failed check is EPROTO, "'PATH' is not a consistent repro bundle:
 * manifest.json "argv" is not the first process's first exec
 * (processes.jsonl line N)".  Either side absent (no exec: a command that
 * could not be executed; no argv) passes.
 *
 * bndl_reader_check_command - make that check now, for a command that acts
 * on the manifest (replay) or prints before reading past processes.jsonl
 * (show --host): reads processes.jsonl up to its first record, forward
 * from where the reader is (call it before reading members that follow
 * processes.jsonl, so that a pipe still works; a member already passed was
 * checked then).  Returns 0 (also when the bundle has no processes.jsonl),
 * or -1 with *err.
 */
int bndl_reader_check_command(struct bndl_reader *r, struct repro_err **err);

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
 * bndl_reader_foreach_opt - bndl_reader_foreach() of member when the
 * bundle has it (an older bundle may not: bndl_reader_has()).  Returns 1
 * when it was walked, 0 when the bundle has no such member, -1 with *err.
 */
int bndl_reader_foreach_opt(struct bndl_reader *r, const char *member, bndl_line_fn fn, void *ctx,
			    struct repro_err **err);

/*
 * bndl_reader_load_opt - bndl_reader_load() of member when the bundle has
 * it: *out is then a new reference, else NULL.  Returns 0, or -1 with
 * *err (*out untouched).
 */
int bndl_reader_load_opt(struct bndl_reader *r, const char *member, json_t **out,
			 struct repro_err **err);

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

/*
 * bndl_reader_charge - count bytes (of what the command keeps from what it
 * read, outside JSON values: copied strings, records) against the memory
 * limit; past it, the next line read fails as a parse past it would.
 * r may be NULL (nothing is counted).
 */
void bndl_reader_charge(struct bndl_reader *r, size_t bytes);

/*
 * bndl_reader_finish - read the rest of the archive's headers (skipping
 * their data): a member name seen twice, more than BNDL_MEMBERS_MAX
 * members, a member manifest.json lists but the archive lacks, or a
 * truncated archive is an error (EPROTO) even after what was read so far
 * looked fine.  Linear in the bytes left.  Returns 0 or -1 with *err.
 */
int bndl_reader_finish(struct bndl_reader *r, struct repro_err **err);

/* bndl_reader_passes - how many times the archive was opened (1: one pass). */
unsigned bndl_reader_passes(const struct bndl_reader *r);

void bndl_reader_free(struct bndl_reader *r);

static inline void bndl_cleanup_reader_fn(struct bndl_reader **r)
{
	bndl_reader_free(*r);
}
#define cleanup_reader __attribute__((cleanup(bndl_cleanup_reader_fn)))

#endif
