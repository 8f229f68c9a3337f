#ifndef REPRO_REPLAYER_REPORT_H
#define REPRO_REPLAYER_REPORT_H

/*
 * `repro report BUNDLE` and `repro report A B`: one self-contained HTML
 * file to attach to a bug report (docs/report.md).  Inline CSS and SVG, no
 * script, no outside resource (a Content-Security-Policy of default-src
 * 'none' says so to the browser); every byte taken from a bundle is
 * escaped for HTML after the terminal sanitiser's escapes (common/term.h),
 * so a path holding "<script>" stays text.  Reads the bundles only.
 */

#include "bundles/reader.h"
#include "common/err.h"

#include <stdio.h>

/* Processes drawn as lanes of their own in a timeline; the rest share one lane. */
#define RPL_REPORT_LANES 120u
/* Slots a lane's time is cut into for its failed-call marks. */
#define RPL_REPORT_SLOTS 160u
/* Rows of a table (failed calls, failed paths, network, long waits) at most. */
#define RPL_REPORT_ROWS 300u
/* Processes listed in the process tree at most. */
#define RPL_REPORT_TREE 2000u
/* Distinct failed calls (syscall, errno, path or address) counted; past it, only counted. */
#define RPL_REPORT_KEYS 100000u

struct rpl_report_opts {
	const char *a_path; /* borrowed: the bundle, or A of a comparison */
	const char *b_path; /* borrowed, NULL: one bundle; else B, shown beside A */
	const struct bndl_limits *limits; /* borrowed, NULL: the defaults (bundles/reader.h) */
};

/*
 * rpl_report_html - write the report to out: per bundle the run (command,
 * working directory, start, duration, exit, counts, options, warnings,
 * fault rules), explain's findings with their evidence events, a timeline
 * (an SVG lane per process: its span, its execs, its failed calls
 * gathered into RPL_REPORT_SLOTS slots, injected or imposed ones in a
 * colour of their own, its long waits as bars, its exit), the process tree,
 * the failed calls (distinct syscall, errno and path or address, counted),
 * the failed paths with their metadata (files.jsonl), the network attempts
 * and lookups, the long waits, and the host facts.  With b_path: diff's
 * findings first, then the two bundles side by side.
 *
 * Size: bounded by the caps above, whatever the bundle holds (a 100,000-
 * event bundle gives a file of well under 5 MB).  Memory: a small record
 * per process, one entry per distinct failed call (at most
 * RPL_REPORT_KEYS), the lanes' slots and the kept rows; time linear in the
 * bundles (explain, and diff with b_path, read them once more each).
 * Returns 0, or -1 with *err: the reader's errors (naming the bundle,
 * member and line), ENOMEM, or a write error on out.
 */
int rpl_report_html(const struct rpl_report_opts *opts, FILE *out, struct repro_err **err);

#endif
