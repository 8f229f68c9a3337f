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
#include <stdbool.h>
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
	/*
	 * output_json (may be NULL: the bytes are written as they are): the
	 * bytes data[0..len) a process wrote to stderr (BNDL_REC_OUTPUT) as
	 * the new JSON string of output.jsonl's "text", redacted as it may
	 * leave the machine; ownership moves to the caller.
	 */
	json_t *(*output_json)(void *ctx, const char *data, size_t len);
	/*
	 * str_json (may be NULL: written as it is): a string data[0..len) of
	 * the spool that is no argument (an exec's path) as a new JSON
	 * string, redacted as it may leave the machine; ownership moves to the
	 * caller.
	 */
	json_t *(*str_json)(void *ctx, const char *data, size_t len);
	/*
	 * redact_json (may be NULL): redact every string of v in place
	 * (manifest.json before it is written: cwd, warnings that name paths)
	 */
	void (*redact_json)(void *ctx, json_t *v);
	void *ctx; /* borrowed: passed to the callbacks */
	/*
	 * progress (may be NULL): done of total bytes of the spool read so
	 * far (bndl_spool_reader_position()), every 4,096 records, given
	 * progress_ctx (borrowed): for a progress line
	 */
	void (*progress)(void *progress_ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
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
	 * directory (host.json, files.jsonl) packed where bndl_members
	 * (bundles/members.h) puts them, when they exist as regular files
	 */
	const char *const *extra_members;
	/* borrowed, may be NULL: the directory extra_members are in (NULL: the spool directory) */
	const char *extra_dir;
	/*
	 * borrowed, may be NULL: host.json's text, packed instead of the file
	 * of that name (a recording adds to the facts after the run without
	 * writing them again)
	 */
	const char *host_json_text;
	json_t *redacted; /* borrowed, may be NULL: names of what was redacted, for the manifest */
	/*
	 * borrowed, may be NULL: the fault rules of the run and how often each
	 * fired, [{"rule":N,"text":"openat:error=EACCES","fired":3}], for the
	 * manifest's "injections" (absent when NULL)
	 */
	json_t *injections;
	/*
	 * borrowed, may be NULL: what `record --overlay` overlaid and how much
	 * the program wrote there, {"paths":[...],"changes":N,"truncated":B,
	 * "kept":DIR|null}, for the manifest's "overlay" (absent when NULL)
	 */
	json_t *overlay;
	bool is_packed_later; /* by `repro pack`: the manifest says so in its warnings */
	/*
	 * borrowed, may be NULL: what the recording counted of a full spool
	 * filesystem (bndl_spool_drops() after bndl_spool_end()), used over
	 * the spool's END and DROPPED records, which may have found no room;
	 * NULL: the spool says
	 */
	const struct bndl_spool_drops *drops;
	/*
	 * borrowed, may be NULL: the process records the spool had no room
	 * for (bndl_spool_take_lost()), nlost_procs of them: their starts and
	 * exits go into processes.jsonl (an exec without its path and argv
	 * stays out)
	 */
	const struct bndl_event *lost_procs;
	size_t nlost_procs;
};

/* Where bndl_pack_to() writes. */
struct bndl_pack_dest {
	const char *out_path; /* borrowed: the bundle to write */
	/*
	 * borrowed, may be NULL: NULL-terminated directories for a bundle of
	 * out_path's base name, tried in order (those on out_path's
	 * filesystem skipped) when out_path's filesystem is full (ENOSPC,
	 * EDQUOT)
	 */
	const char *const *fallback_dirs;
	/*
	 * borrowed, may be NULL: NULL-terminated directories for the staged
	 * members (events.jsonl, trace.txt, processes.jsonl), tried in order
	 * while one is full; NULL: $TMPDIR (when absolute) or /tmp
	 */
	const char *const *scratch_dirs;
};

/*
 * bndl_pack - pack the spool in spool_dir into the bundle out_path.
 * run: facts for the manifest (borrowed); when run->duration_ns is 0 the
 * spool's END record or the end of the last record is used, and when
 * run->has_exit is 0 the exit comes from the END record or the first
 * process's exit record.  The manifest's "incomplete" and "dropped" say what
 * the spool lost (a full filesystem: BNDL_REC_DROPPED, BNDL_REC_END).  ops:
 * renders syscall events.  A spool cut short or damaged part way is packed
 * up to that point, with a manifest warning.  Returns 0, or -1 with *err
 * (write errors such as ENOSPC name the file; the spool is left in place so
 * nothing is lost, and no temporary file is left at out_path).  The
 * temporary member files are removed in either case.
 */
int bndl_pack(const char *spool_dir, const struct bndl_run_info *run,
	      const struct bndl_render_ops *ops, const char *out_path, struct repro_err **err);

/*
 * bndl_pack_to - bndl_pack() to dest: the members are staged in the first of
 * dest->scratch_dirs with room, the bundle goes to dest->out_path or, when
 * its filesystem is full, into the first of dest->fallback_dirs that takes
 * it.  *written (may be NULL) gets the path written, a string the caller
 * frees.  Errors as bndl_pack(); when every place was full, the errno is
 * ENOSPC or EDQUOT (bndl_is_disk_full()).
 */
int bndl_pack_to(const char *spool_dir, const struct bndl_run_info *run,
		 const struct bndl_render_ops *ops, const struct bndl_pack_dest *dest,
		 char **written, struct repro_err **err);

/*
 * bndl_drops_note - one sentence on what a full filesystem cost, as the
 * manifest's warning says it ("no space left on the spool's filesystem
 * (ENOSPC): 48213 events after 0.31 s were not recorded …"); is_known false:
 * the recording did not end, so only when it filled is known.  lost: the
 * process records the spool had no room for, when the caller has them
 * (bndl_run_info.lost_procs; NULL: they are lost), nlost of them.  Returns
 * a string the caller frees.
 */
char *bndl_drops_note(const struct bndl_spool_drops *d, bool is_known,
		      const struct bndl_event *lost, size_t nlost);

/*
 * bndl_scratch_dirs - where packing may stage its members and, when the
 * bundle's filesystem is full, put the bundle: $TMPDIR (when absolute, else
 * /tmp), /tmp, /var/tmp, then last (may be NULL), each one that is an
 * existing writable directory on a filesystem not listed before.  Returns a
 * NULL-terminated array (maybe empty) for bndl_dirs_free().
 */
char **bndl_scratch_dirs(const char *last);
void bndl_dirs_free(char **dirs);
static inline void bndl_cleanup_dirs(char ***dirs)
{
	bndl_dirs_free(*dirs);
}
#define cleanup_dirs __attribute__((cleanup(bndl_cleanup_dirs)))

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
