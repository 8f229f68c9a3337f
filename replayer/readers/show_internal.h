#ifndef REPRO_REPLAYER_SHOW_INTERNAL_H
#define REPRO_REPLAYER_SHOW_INTERNAL_H

/* Shared between the views of `repro show` (replayer/readers/show.c, replayer/readers/views.c). */

#include "bundles/reader.h"
#include "common/err.h"
#include "common/term.h"
#include "replayer/readers/show.h"
#include "replayer/readers/sockidx.h"

#include <jansson.h>
#include <stdio.h>

/* ANSI attributes, only when the caller asked for colour (a terminal, no NO_COLOR). */
#define BOLD "\033[1m"
#define RED "\033[31m"
#define RESET "\033[0m"

/* rpl_utf8_cut - how many bytes of s to keep for at most max bytes without splitting a character. */
size_t rpl_utf8_cut(const char *s, size_t max);

/*
 * rpl_put_incomplete - when the manifest says "incomplete": true, one line
 * for the top of a text view: "Incomplete bundle: …", from its "dropped"
 * object (docs/bundle-format.md), else a pointer to the warnings.  Prints
 * nothing for a complete bundle.  manifest is borrowed.
 */
void rpl_put_incomplete(FILE *out, json_t *manifest);

/* The "Time" section (replayer/readers/show_time.c). */
#define RPL_TIME_LONGEST 5 /* longest waits listed */
#define RPL_TIME_PROCS 10 /* processes listed, the most waiting first */

struct rpl_time {
	bool present; /* the bundle has waits.jsonl */
	json_t *by_pid; /* owned: "PID" -> ns its main thread spent in long waits */
	json_t *longest[RPL_TIME_LONGEST]; /* owned: the longest waits, longest first */
	size_t nlongest;
	size_t total; /* waits read */
	struct rpl_sockidx socks; /* network.jsonl connects, read first (rpl_views_failed) */
};

/*
 * rpl_time_load - read waits.jsonl of r (nothing when the bundle has none:
 * present stays false) into *t (zeroed, or loaded before); release with
 * rpl_time_release().  Memory: one number per process and
 * RPL_TIME_LONGEST records.  Returns 0, or -1 with *err (reader errors).
 */
int rpl_time_load(struct bndl_reader *r, struct rpl_time *t, struct repro_err **err);
void rpl_time_release(struct rpl_time *t);

/*
 * rpl_time_put - the Time section: per process (procs: processes.jsonl
 * objects, borrowed) its wall time, how much of it its main thread spent in
 * long waits and the rest, the most waiting first (at most RPL_TIME_PROCS),
 * then the longest waits; run_ns the run's duration (ns).
 */
void rpl_time_put(FILE *out, bool color, const struct rpl_time *t, json_t *procs, int64_t run_ns);

/*
 * rpl_views_failed - the "Files" and "Network" sections of the summary: one
 * line per failed path (with the directory that explains it) and per failed
 * network attempt, at most limit lines each (0: all).  Bundles without
 * files.jsonl / network.jsonl show nothing.  waits.jsonl, which lies
 * between them, is read into *time (may be NULL: skipped) on the way.
 * Returns 0, or -1 with *err.
 */
int rpl_views_failed(struct bndl_reader *r, FILE *out, bool color, size_t limit,
		     struct rpl_time *time, struct repro_err **err);

/* The "Overlay" section (replayer/show_overlay.c). */
#define RPL_OVERLAY_SHOWN 10 /* changes listed */

/*
 * rpl_overlay_put - for a bundle recorded with --overlay (the manifest's
 * "overlay"), the "Overlay" section: the overlaid directories, how many
 * changes, where the layers were kept, then the first RPL_OVERLAY_SHOWN
 * lines of overlay.jsonl and "... N more".  Prints nothing for other
 * bundles.  Reads overlay.jsonl once (the last member); memory: one line.
 * Returns 0, or -1 with *err (reader errors).
 */
int rpl_overlay_put(struct bndl_reader *r, FILE *out, bool color, struct repro_err **err);

/*
 * rpl_views_show - the --files, --net or --host view (text or JSON) of the
 * bundle.  Returns 0, or -1 with *err (EPROTO when the bundle has no such
 * member, naming it).
 */
int rpl_views_show(struct bndl_reader *r, enum rpl_show_view view, bool json, FILE *out,
		   struct repro_err **err);

#endif
