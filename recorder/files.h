#ifndef REPRO_RECORDER_FILES_H
#define REPRO_RECORDER_FILES_H

/*
 * files.jsonl: every path a recording touched, how, with what result, and its
 * metadata as seen from the host after the run (docs/bundle-format.md,
 * DESIGN.md "The bundle").  Runs after the program ended, outside its user
 * namespace, so owners are the host's uids/gids, never the overflow uid.
 *
 * Metadata is gathered with liburing (batched IORING_OP_STATX) and falls back
 * to statx(2) when io_uring_queue_init(3) fails (kernel.io_uring_disabled,
 * a seccomp profile that blocks io_uring_setup) or when asked to.  Content
 * hashes (XXH3-64, libxxhash) are computed with plain read(2) in both modes.
 */

#include "common/err.h"

#include <stdbool.h>
#include <stdint.h>

/* Default cap on the size of a regular file whose content is hashed (bytes). */
#define REC_FILES_HASH_MAX_DEFAULT (64ull * 1024 * 1024)
/* Default cap on the number of distinct paths recorded. */
#define REC_FILES_MAX_PATHS_DEFAULT 1000000u
/* Fewer paths than this are stat'ed with plain statx(2) (docs/performance.md). */
#define REC_FILES_URING_MIN 128u

struct rec_files_opts {
	/* bytes; regular files larger than this get no "hash"; 0 = hash nothing */
	uint64_t hash_max_bytes;
	/* use statx(2) even when io_uring works (tests, debugging) */
	bool no_uring;
	/*
	 * io_uring only from this many paths on (0 = REC_FILES_URING_MIN):
	 * setting a ring up and tearing it down (its worker threads) costs
	 * more than the statx(2) calls of a short run; 1 = always (tests)
	 */
	uint32_t uring_min_paths;
	/* distinct touched paths kept; 0 = REC_FILES_MAX_PATHS_DEFAULT */
	uint32_t max_paths;
	/*
	 * also hash the files whose hash could give their content away (record
	 * --hash-secrets): those repro_hash_withheld() names (common/
	 * content_hash.h: named like a key, token or credential file,
	 * owner-only, smaller than REPRO_HASH_MIN_SIZE); by default they get
	 * "hash_withheld" instead
	 */
	bool hash_secrets;
};

/* What rec_files_write_stats() did, for the manifest and for tests. */
struct rec_files_stats {
	uint64_t events; /* BNDL_REC_SYSCALL records read */
	uint64_t paths; /* lines written to files.jsonl */
	uint64_t dropped; /* path references not recorded: beyond max_paths */
	bool used_uring; /* metadata came from io_uring (false: statx(2)) */
	bool spool_truncated; /* the spool ended mid-record (killed recorder) */
	/* programs run (exec) that are set-user-ID or set-group-ID, and the first of them */
	uint64_t setid_execs;
	char setid_example[256];
};

/*
 * rec_files_opts_init - the defaults: 64 MiB hash cap, io_uring, 1,000,000
 * paths, hashes withheld where they could give the content away.
 */
void rec_files_opts_init(struct rec_files_opts *opts);

/*
 * rec_files_write - read every BNDL_REC_SYSCALL record of SPOOL_DIR/events.spool
 * (bndl_spool_reader_open()), collect each BNDL_BLOB_PATH path with the ops
 * derived from the syscall (stat, read, write, create, delete, link for the
 * existing path of link(2), exec, chdir, readlink, other), its first and last
 * result and its call count; gather metadata with lstat semantics (statx(2)
 * AT_SYMLINK_NOFOLLOW, readlink(2), XXH3-64 of regular files up to
 * opts->hash_max_bytes that the run read, wrote, created, linked or ran,
 * except, unless opts->hash_secrets, those whose hash could give their
 * content away, which get "hash_withheld": "secret-name", "owner-only" or
 * "small" instead; "mode" is the permission bits in octal with a leading
 * 0); and for paths whose last call failed with ENOENT, EACCES, EPERM, EROFS,
 * ENOTDIR, ELOOP or ENAMETOOLONG add the metadata of every ancestor directory
 * up to "/" and the mount (/proc/self/mountinfo, proc(5)) that the path, or
 * else its deepest existing ancestor, lies on.  Writes one JSON object per
 * path, sorted by path bytes, to out_path (created or truncated, 0666 & ~umask).
 *
 * opts: borrowed, NULL for the defaults.  Failures to stat, read or hash one
 * path are data (meta null, "meta_errno", no "hash"), not errors.  Returns 0,
 * or -1 with *err: spool errors (ENOENT, EPROTO), or errno of writing out_path
 * (ENOSPC …).  Beyond max_paths distinct paths, further paths are counted in
 * stats->dropped and not written (see rec_files_write_stats()).
 */
int rec_files_write(const char *spool_dir, const struct rec_files_opts *opts, const char *out_path,
		    struct repro_err **err);

/*
 * rec_files_write_stats - rec_files_write(), also filling *stats (may be NULL)
 * on success: the caller notes stats->dropped in the manifest when it is not 0.
 */
int rec_files_write_stats(const char *spool_dir, const struct rec_files_opts *opts,
			  const char *out_path, struct rec_files_stats *stats,
			  struct repro_err **err);

#endif
