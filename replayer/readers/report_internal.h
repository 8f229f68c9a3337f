#ifndef REPRO_REPLAYER_REPORT_INTERNAL_H
#define REPRO_REPLAYER_REPORT_INTERNAL_H

/*
 * What `repro report` keeps of one bundle (report.c gathers it, report_html.c
 * draws it).  Every list is capped (replayer/readers/report.h), so the page
 * stays small whatever the bundle holds.
 */

#include "replayer/readers/report.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* No lane: a process drawn in the shared lane of the others. */
#define RPT_SHARED ((size_t)-1)
/* Long waits drawn per lane at most (the longest are kept). */
#define RPT_LANE_WAITS 40u
/* Evidence events shown under a finding at most. */
#define RPT_EVIDENCE 8u

struct rpt_proc {
	int64_t pid, ppid, start_ns, end_ns;
	char *label; /* owned: "python3 webui.py", "" without an exec */
	char *exit; /* owned: "exited 1", "killed by SIGKILL" … */
	bool bad_exit; /* a non-zero status or a signal */
	json_t *execs; /* owned reference: processes.jsonl execs */
	size_t lane; /* index into lanes, or RPT_SHARED */
	size_t parent; /* index of the parent in procs, or RPT_SHARED */
	size_t before; /* the process that had its pid before it, or RPT_SHARED */
	bool ended; /* its end was recorded (else end_ns is the run's end) */
	uint64_t failed; /* its failed calls */
};

struct rpt_lane {
	size_t proc; /* index into procs, RPT_SHARED: the others */
	uint32_t fail[RPL_REPORT_SLOTS]; /* failed calls per slot */
	uint32_t marked[RPL_REPORT_SLOTS]; /* of which injected or imposed */
	char *first[RPL_REPORT_SLOTS]; /* owned: the slot's first failure, as words */
	json_t *waits; /* owned: its longest waits (waits.jsonl), at most RPT_LANE_WAITS */
};

struct rpt_side {
	const char *path; /* borrowed: the bundle */
	json_t *manifest, *host; /* owned references; host NULL when absent */
	json_t *explain; /* owned: explain's JSON ({"run","findings",…}), NULL when it failed */
	json_t *evidence; /* owned: "SEQ" -> the event (or null until it is read) */
	struct rpt_proc *procs;
	size_t nprocs, procs_cap;
	json_t *by_pid; /* owned: "PID" -> index into procs (the last with that pid) */
	struct rpt_lane *lanes;
	size_t nlanes; /* the last, when there are more processes than lanes, is RPT_SHARED */
	size_t shared_procs; /* processes in the shared lane */
	int64_t span_ns; /* the timeline's width: the run's duration, at least 1 */
	json_t *failed; /* owned: "SYSCALL\tERRNO\tTARGET" -> [count, seq, pid, marked] */
	uint64_t failed_uncounted; /* failed calls past RPL_REPORT_KEYS distinct ones */
	uint64_t events, failed_events, marked_events,
		marked_ok; /* marked_ok: injected, no errno */
	json_t *paths; /* owned: files.jsonl entries that failed, the program's first */
	uint64_t paths_more;
	json_t *net_failed, *net_ok; /* owned: network.jsonl lines kept, failures and the others */
	uint64_t net_more;
	json_t *waits; /* owned: waits.jsonl lines, the longest RPL_REPORT_ROWS */
	uint64_t waits_total;
	bool has_waits, has_network, has_files;
	bool traced_file, traced_network; /* the manifest's options.trace names the class */
};

/*
 * rpt_side_read - gather bundle path into *s (zeroed by the caller): one
 * pass of its members, plus explain's own (rpl_explain_run).  Returns 0,
 * or -1 with *err (the reader's errors, explain's included).  s is freed
 * with rpt_side_free either way.
 */
int rpt_side_read(struct rpt_side *s, const char *path, const struct bndl_limits *limits,
		  struct repro_err **err);

/* rpt_side_free - what rpt_side_read kept; s may be partly filled. */
void rpt_side_free(struct rpt_side *s);

/*
 * rpt_call_words - a failed or injected call as words: "openat ENOENT
 * /etc/app.conf", "connect ECONNREFUSED 127.0.0.1:8080"; a new string the
 * caller frees.  The target alone (path, address, or "" for none) with
 * target_only.
 */
char *rpt_call_words(json_t *ev, bool target_only);

/* rpt_cut_len - bytes of s to keep to cut it at most max long, at a UTF-8 character boundary. */
size_t rpt_cut_len(const char *s, size_t max);

/*
 * rpt_addr_words - an addr object (events.jsonl, network.jsonl) as words:
 * "127.0.0.1:80", "[::1]:9", "@abstract-name", "/run/x.sock"; "" for
 * none.  A new string the caller frees.
 */
char *rpt_addr_words(json_t *addr);

/*
 * rpt_html_page - the page for sides[0..n) (n is 1 or 2; with 2, diff is
 * diff's JSON, or NULL with diff_error saying why there is none) to out.
 * Write errors show in ferror(out).  Linear in what the sides keep.
 */
void rpt_html_page(FILE *out, struct rpt_side *sides, size_t n, json_t *diff,
		   const char *diff_error);

#endif
