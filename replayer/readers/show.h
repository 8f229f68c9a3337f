#ifndef REPRO_REPLAYER_SHOW_H
#define REPRO_REPLAYER_SHOW_H

/*
 * `repro show`: a bundle as text for people (the run, the process tree, the
 * failed calls per process), as one JSON document, or its strace-like trace.
 */

#include "bundles/reader.h"
#include "common/err.h"

#include <stdbool.h>
#include <stdio.h>

/* Failed calls kept per process in the text and JSON views, unless all. */
#define RPL_SHOW_FAILURES 10
/* At most this many processes in a bundle (a hostile one could list millions). */
#define RPL_SHOW_MAX_PROCS 1000000u

/* Which view: the summary, or one member of the bundle as a table. */
enum rpl_show_view {
	RPL_VIEW_SUMMARY = 0,
	RPL_VIEW_FILES, /* files.jsonl */
	RPL_VIEW_NET, /* network.jsonl */
	RPL_VIEW_HOST, /* host.json */
};

struct rpl_show_opts {
	enum rpl_show_view view;
	const char *bundle_path; /* borrowed */
	const struct bndl_limits *limits; /* borrowed, NULL: the defaults (bundles/reader.h) */
	bool json; /* one JSON object instead of text */
	bool trace; /* copy trace.txt instead (wins over json) */
	bool all; /* every failed call, not the last RPL_SHOW_FAILURES each */
	bool color; /* ANSI bold headings and red errno names; the caller decides */
};

/*
 * rpl_show_run - read the bundle opts->bundle_path and write the chosen view
 * to out.  Memory stays bounded by the number of processes (plus every
 * failure with opts->all): events are streamed.
 *
 * Text: the run (command, cwd, start, duration, exit, counts, warnings); the
 * process tree (pid, each exec's argv joined by " -> ", exit); then "Failed
 * calls" grouped by process: processes that failed (non-zero exit or killed)
 * first, the first to fail ahead (a failure travels up from a child to the
 * script that started it), then the others, the last to end first; within a
 * process the newest failures first (nearest its exit), RPL_SHOW_FAILURES at
 * most and a "... N more" line.
 * JSON: {"manifest":{…},"processes":[…],"failures":[{"pid":N,"total":N,
 * "events":[…]}]}, groups and events in the same order as the text.
 *
 * Returns 0, or -1 with *err: the reader's errors (ENOENT, EPROTO with a
 * message naming the bundle, member and line) or a write error on out.
 */
int rpl_show_run(const struct rpl_show_opts *opts, FILE *out, struct repro_err **err);

#endif
