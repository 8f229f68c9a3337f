#ifndef REPRO_REPLAYER_EXPLAIN_H
#define REPRO_REPLAYER_EXPLAIN_H

/*
 * `repro explain`: the failures of a recorded run that matter, ranked, each
 * in one sentence with the facts of the bundle that explain it (docs/explain.md).
 * Reads the bundle only, never the live machine.
 */

#include "bundles/reader.h"
#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <stdio.h>

/* Findings shown unless all: the first RPL_EXPLAIN_TOP by rank. */
#define RPL_EXPLAIN_TOP 10
/* Failures kept for ranking; past this a bundle's further failures are only counted. */
#define RPL_EXPLAIN_MAX_FINDINGS 200000u

struct rpl_explain_opts {
	const char *bundle_path; /* borrowed */
	const struct bndl_limits *limits; /* borrowed, NULL: the defaults (bundles/reader.h) */
	bool json; /* one JSON document instead of text */
	bool all; /* every finding, probe noise included (marked) */
	bool color; /* ANSI bold and red; the caller decides (a terminal, no NO_COLOR) */
};

/*
 * rpl_explain_run - read the bundle and write its findings to out: text
 * (a line about the run, then one numbered sentence per finding with its
 * evidence) or JSON ({"run":…,"findings":[…],"noise":N,"total":N}, keys in
 * docs/explain.md).  Memory: the processes, the failed paths of files.jsonl,
 * one small entry per distinct failure (at most RPL_EXPLAIN_MAX_FINDINGS)
 * and a 16-byte entry per distinct (process, file name) that succeeded.
 * Returns 0, or -1 with *err: the reader's errors (ENOENT, EPROTO naming the
 * member and line) or a write error on out.
 */
int rpl_explain_run(const struct rpl_explain_opts *opts, FILE *out, struct repro_err **err);

/*
 * rpl_explain_findings - the findings as data: the document
 * rpl_explain_run() writes with opts->json (opts->json itself not looked
 * at), as a new object in *doc (the caller owns it; NULL on error).  Same
 * costs and errors, but no write error.
 */
int rpl_explain_findings(const struct rpl_explain_opts *opts, json_t **doc, struct repro_err **err);

/*
 * rpl_explain_system_path - whether absolute path (borrowed) is the
 * system's rather than the program's: "system_directory" under /proc,
 * /sys, /dev, /etc, /bin, /sbin, /lib* or /usr (not /usr/local, /usr/src),
 * else the id of the probe-noise rule that would set a failed open of it
 * aside (shared libraries, locale data, Python's bytecode, optional
 * start-up files of shells and tools: docs/explain.md), else NULL.
 * Static strings.  O(rules x path length).
 */
const char *rpl_explain_system_path(const char *path);

/*
 * rpl_explain_may - whether the user of host (host.json, borrowed: uid,
 * gid, groups and effective capabilities, as explain judges a failed call)
 * may have access need (4 read, 2 write, 1 search or execute; or'ed) to
 * a file of meta (borrowed, files.jsonl's {"type","mode","uid","gid"}),
 * its class bits as the kernel checks them (ACLs aside).
 */
bool rpl_explain_may(json_t *host, json_t *meta, unsigned need);

#endif
