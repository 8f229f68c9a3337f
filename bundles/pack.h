#ifndef REPRO_BUNDLES_PACK_H
#define REPRO_BUNDLES_PACK_H

/*
 * Packing a spool into a bundle: a pax tar, zstd-compressed (libarchive),
 * holding manifest.json, processes.jsonl, events.jsonl and trace.txt
 * (docs/bundle-format.md).  Written to OUT.tmp-XXXXXX in OUT's directory,
 * renamed into place, so that OUT is either absent or complete (not fsync'ed:
 * durability across a power cut is not promised).
 */

#include "bundles/spool.h"
#include "common/err.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How syscall events become JSON and strace-style text.  The bundle module
 * knows the format, not what a syscall means; the recorder supplies this.
 *
 * render_event: ev is a BNDL_REC_SYSCALL record.  On success sets *json (a
 * new object with at least the keys of docs/bundle-format.md; ownership moves
 * to the caller) and *trace_line (a malloc'ed line without "\n"), returns 0.
 * Returns -1 with *err on failure (aborts the pack).
 * is_failure: set to true when the call failed (ret < 0), used for counts.
 */
struct bndl_render_ops {
	int (*render_event)(void *ctx, const struct bndl_event *ev, json_t **json,
			    char **trace_line, struct repro_err **err);
	/*
	 * argv_json (may be NULL: the arguments are written as they are): the
	 * NUL-separated arguments of data[0..len) (an exec's argv; a final NUL
	 * starts no other one) as the new JSON array of processes.jsonl's
	 * "argv", redacted as it may leave the machine (a whole argv at once:
	 * what an argument hides may depend on the program, argv[0]);
	 * ownership moves to the caller.
	 */
	json_t *(*argv_json)(void *ctx, const char *data, size_t len);
	/*
	 * env_json (may be NULL: execs are written without "env"): the
	 * NUL-separated "NAME=value" strings of data[0..len) (an exec's envp)
	 * as the new JSON array of processes.jsonl's "env", redacted as it may
	 * leave the machine; ownership moves to the caller.
	 */
	json_t *(*env_json)(void *ctx, const char *data, size_t len);
	void *ctx; /* borrowed: passed to the callbacks */
};

/* Facts of the run that go into manifest.json. */
struct bndl_run_info {
	char *const *argv; /* borrowed: NULL-terminated command line */
	const char *cwd; /* borrowed */
	int64_t started_at_s; /* wall clock, seconds since the epoch */
	int64_t started_at_ns; /* nanoseconds part */
	uint64_t duration_ns;
	int has_exit; /* 0 when the program's end was not seen */
	int exit_code; /* when has_exit and exit_signal == 0 */
	int exit_signal; /* the signal that killed it, or 0 */
	int core_dumped;
	const char *trace_classes; /* borrowed: "file,network,process" */
	const char *net_mode; /* borrowed: "host" or "none" */
	const char *sandbox; /* borrowed: "[userns+]mntns[+netns]" or "none" */
	const char *tool_version; /* borrowed: "repro 0.1.0" */
	const char *warnings; /* borrowed, may be NULL: "; "-separated notes */
	/*
	 * borrowed, may be NULL: NULL-terminated names of files in the spool
	 * directory (host.json, files.jsonl) packed after trace.txt, in this
	 * order, when they exist (never followed when symlinks)
	 */
	const char *const *extra_members;
	json_t *redacted; /* borrowed, may be NULL: names of what was redacted, for the manifest */
};

/*
 * bndl_pack - pack the spool in spool_dir into the bundle out_path.
 * run: facts for the manifest (borrowed); when run->duration_ns is 0 the end
 * of the last record is used.  ops: renders syscall events.  A spool cut short
 * or damaged part way is packed up to that point, with a manifest warning.
 * Returns 0, or -1 with *err (write errors such as ENOSPC name the file; the
 * spool is left in place so nothing is lost).  The temporary member files it
 * writes into spool_dir are removed in either case.
 */
int bndl_pack(const char *spool_dir, const struct bndl_run_info *run,
	      const struct bndl_render_ops *ops, const char *out_path, struct repro_err **err);

/*
 * bndl_runinfo_save / bndl_runinfo_load - keep the run facts known at the
 * start (argv, cwd, start time, options, warnings) as SPOOL_DIR/run.json so
 * that a spool left by a killed recorder can be packed later.  load fills
 * *run with strings owned by *holder (a json_t the caller json_decref()s) and
 * run->argv with the array *argv_holder, which the caller free()s (its strings
 * belong to *holder).  The exit fields and duration_ns are left 0.  Errors:
 * errno of open/read/write; EPROTO when run.json is malformed.
 */
int bndl_runinfo_save(const char *spool_dir, const struct bndl_run_info *run,
		      struct repro_err **err);
int bndl_runinfo_load(const char *spool_dir, struct bndl_run_info *run, json_t **holder,
		      char ***argv_holder, struct repro_err **err);

#endif
