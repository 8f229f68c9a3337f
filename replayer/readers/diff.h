#ifndef REPRO_REPLAYER_DIFF_H
#define REPRO_REPLAYER_DIFF_H

/*
 * `repro diff A B`: what differs between two recordings of the same startup
 * (A usually from a working machine, B from a broken one), the most likely
 * cause first (docs/diff.md).  Reads both bundles only.
 */

#include "bundles/reader.h"
#include "common/err.h"
#include "replayer/readers/normalize.h"

#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>

struct rpl_diff_opts {
	const char *a_path, *b_path; /* borrowed */
	const struct bndl_limits *limits; /* borrowed, NULL: the defaults (bundles/reader.h) */
	bool json; /* one JSON document instead of text */
	bool color; /* ANSI colour; the caller decides (a terminal, no NO_COLOR) */
	const char *map_from[RPL_NORM_MAX_MAPS]; /* --map OLD=NEW: A's OLD is B's NEW */
	const char *map_to[RPL_NORM_MAX_MAPS];
	size_t nmaps;
	/*
	 * may be NULL: how far reading a bundle is ("A" or "B", done of total
	 * events: the manifest's count), every 4,096 events, given
	 * progress_ctx (borrowed) - for a progress line
	 */
	void (*progress)(void *progress_ctx, const char *side, uint64_t done, uint64_t total);
	void *progress_ctx;
};

/*
 * rpl_diff_run - compare the bundles and write the report to out.  *differ
 * is set to true when anything differs after normalisation.  Memory: per
 * bundle about 24 bytes per event, 48 per touched path, and the processes;
 * events are streamed.  Returns 0, or -1 with *err (either bundle unreadable
 * or malformed: the reader's message names which; a write error on out).
 */
int rpl_diff_run(const struct rpl_diff_opts *opts, FILE *out, bool *differ, struct repro_err **err);

/*
 * rpl_diff_doc - the comparison as data: the document rpl_diff_run()
 * writes with opts->json (docs/diff.md "JSON"; opts->json itself not
 * looked at), as a new object in *doc (the caller owns it; NULL on
 * error).  Same costs and errors, but no write error.
 */
int rpl_diff_doc(const struct rpl_diff_opts *opts, json_t **doc, bool *differ,
		 struct repro_err **err);

#endif
