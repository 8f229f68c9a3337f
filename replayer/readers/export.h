#ifndef REPRO_REPLAYER_EXPORT_H
#define REPRO_REPLAYER_EXPORT_H

/*
 * `repro export --format=chrome-trace BUNDLE`: a bundle as a timeline in
 * the Trace Event Format (the JSON that Perfetto UI and chrome://tracing
 * load; "Trace Event Format", Google, docs.google.com/document/d/
 * 1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).  Reads the bundle only.
 */

#include "bundles/reader.h"
#include "common/err.h"

#include <stdio.h>

struct rpl_export_opts {
	const char *bundle_path; /* borrowed */
	const struct bndl_limits *limits; /* borrowed, NULL: the defaults (bundles/reader.h) */
};

/*
 * rpl_export_chrome_trace - write the bundle to out as one JSON object
 * {"traceEvents":[…],"displayTimeUnit":"ms","otherData":{…}}: per
 * process a "process_name" and "process_sort_index" metadata event, a
 * complete event ("X", cat "process") from its start to its end, an
 * instant event ("i") per exec and at its exit; per thread other than the
 * first a "thread_name"; per recorded call a complete event named after
 * the syscall (cat "ok", "failed", "injected" or "imposed"; args: seq,
 * path, newpath, addr, ret, errno, rule, origin); per long wait
 * (waits.jsonl) a complete event (cat "wait", name "wait: WHAT SYSCALL").
 * ts and dur in microseconds from the program's start (t_ns / 1000), pid
 * and tid as recorded.  Streams: memory is one entry per thread seen, the
 * time linear in the bundle.  Returns 0, or -1 with *err (the reader's
 * errors, naming the bundle, member and line; a write error on out).
 */
int rpl_export_chrome_trace(const struct rpl_export_opts *opts, FILE *out, struct repro_err **err);

#endif
