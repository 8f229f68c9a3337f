#ifndef REPRO_REPLAYER_SWEEP_SWEEP_H
#define REPRO_REPLAYER_SWEEP_SWEEP_H

/*
 * `repro sweep` (docs/sweep.md): the fault points of a working run, one
 * run per fault with a fault rule (docs/faults.md), each run classified
 * against the working one, and the table, JSON and JUnit that report
 * them.  A run is a struct swp_runner: swp_command_runner() records the
 * command through replayer/run/ (a caller may give a stand-in), and this
 * module plans, schedules the runs in child processes, reads what they
 * left and reports.
 */

#include "common/err.h"
#include "replayer/run/run.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* What a fault is on: --only's classes. */
enum swp_area {
	SWP_FILE = 1u << 0, /* a path read, stat'ed, written or created */
	SWP_EXEC = 1u << 1, /* a program or script executed */
	SWP_NETWORK = 1u << 2, /* a TCP destination connected to */
	SWP_DNS = 1u << 3, /* a name looked up */
	SWP_ALL = 15u,
};

/* One fault of the plan: a rule on one point.  Every string owned. */
struct swp_fault {
	char *id; /* unique, stable: "EACCES write /srv/app/cache" (the table's first column) */
	char *rule; /* the rules, docs/faults.md syntax, '\n'-separated (create-in: one per file) */
	char *target; /* the path, "IP:PORT" or the name */
	char *host; /* a destination's DNS name, else NULL */
	char *fault; /* "EACCES", "ENOSPC-after-4KiB", "blackhole", "reset-after-1KiB", "NXDOMAIN" */
	enum swp_area area;
	int errnum; /* the errno whose message names the cause, 0 for none */
};

struct swp_plan {
	struct swp_fault *v; /* owned, n of them, sorted by id */
	size_t n;
	size_t npoints; /* distinct points (paths, destinations, names) */
	size_t nskipped; /* points a rule cannot name (a ':', '\\' or newline in a path) */
	size_t nunstable; /* paths named anew each run (temp names, pids): left out */
	char *listens; /* owned: the first port the run bound ("127.0.0.1 port 6379"), or NULL */
};

struct swp_plan_opts {
	unsigned areas; /* SWP_* to keep (0: all) */
	bool include_system; /* keep the system's paths (rpl_explain_system_path()) */
	const char *const *faults; /* borrowed, NULL-terminated names to keep, or NULL: all */
	uint64_t connect_delay_ns; /* ETIMEDOUT's delay before the connect fails */
};

/*
 * swp_plan_read - the fault points of bundle (borrowed path), from its
 * files.jsonl (paths a call used successfully) and network.jsonl (TCP
 * destinations connected to, names resolved), with their faults
 * (docs/sweep.md, "Faults"), into *out (release with swp_plan_release()).
 * The bundle is read whole, as every reader reads it (a member name twice
 * is refused).  Returns 0, or -1 with *err (the bundle reader's errors, or
 * EINVAL for a fault name --faults does not know).  Linear in the
 * bundle's members.
 */
int swp_plan_read(const char *bundle, const struct swp_plan_opts *o, struct swp_plan *out,
		  struct repro_err **err);
void swp_plan_release(struct swp_plan *p);

/*
 * swp_outside_writes - how many paths of bundle's write set (files.jsonl
 * "before") lie outside the directories its overlay covered (manifest
 * "overlay"; /dev, /proc and /sys aside): writes a run made to the host.
 * *first is the first of them (a new string) or NULL.  Returns the count,
 * or (size_t)-1 with *err (the bundle reader's errors).  Linear in
 * files.jsonl.
 */
size_t swp_outside_writes(const char *bundle, char **first, struct repro_err **err);

/*
 * swp_plan_shard - keep the k-th (1..n) of n slices of p: fault i (in id
 * order) goes to slice i % n + 1, so each slice is the same on every
 * machine for the same plan.
 */
void swp_plan_shard(struct swp_plan *p, unsigned k, unsigned n);

/* How a run behaved under its fault, against the working run. */
enum swp_class {
	SWP_CLEAN, /* failed, and stderr names the cause */
	SWP_VAGUE, /* failed, said something, named nothing of the cause */
	SWP_SILENT, /* failed without a word on stderr */
	SWP_CRASHED, /* killed by a signal */
	SWP_HUNG, /* still running at the timeout: killed */
	SWP_CARRIED_ON, /* exit 0 despite the fault */
	SWP_NOT_REACHED, /* the rule never fired */
	SWP_ERROR, /* the run itself could not be made (repro's trouble, not the program's) */
	SWP_NCLASSES
};

/* swp_class_name - "clean", "carried-on" …; static.  swp_class_parse: the reverse, or -1. */
const char *swp_class_name(enum swp_class c);
int swp_class_parse(const char *name);

/* What one run left (filled by the scheduler from the run's directory).  Strings owned. */
struct swp_outcome {
	bool ran; /* the runner wrote its result */
	bool has_exit;
	int wait_status; /* waitpid(2) status of the program's first process */
	bool timed_out;
	uint64_t duration_ns;
	long long fired; /* how often the rule fired (-1: not known) */
	char *stderr_text; /* the program's stderr, its first 64 KiB, or NULL */
	char *error; /* the runner's error line, or NULL */
	char *bundle; /* the run's bundle path, or NULL */
};

void swp_outcome_release(struct swp_outcome *o);

/*
 * swp_classify - the class of outcome o of fault f (both borrowed):
 * not-reached, hung, crashed, carried-on, silent, then clean when stderr
 * names the path or its file name, the address, host or name, or the
 * errno's message (strerror(3), or the resolver's for DNS), without regard
 * to case; else vague.  Linear in the stderr text.
 */
enum swp_class swp_classify(const struct swp_fault *f, const struct swp_outcome *o);

/*
 * swp_first_line - the first non-blank line of text (borrowed; of a
 * Python traceback, its last line, the exception), without its newline,
 * its first 200 bytes made valid UTF-8 and safe to print (controls and
 * invalid bytes as \xNN, common/term.h), in a new string ("" for none).
 * Linear in text.
 */
char *swp_first_line(const char *text);

/* What the caller runs: in a child process of the scheduler, one recording. */
struct swp_run_req {
	const char *rule; /* the fault rule, or NULL for the working run */
	const char *dir; /* the run's directory: result.json, stdout, stderr go here */
	const char *bundle; /* where its bundle goes */
	uint64_t time_limit_ns; /* 0: none */
};

struct swp_runner {
	/*
	 * run - in a fresh child process: record req's run and write
	 * swp_write_result()'s file into req->dir; the return value is the
	 * child's exit status.  ctx borrowed.
	 */
	int (*run)(void *ctx, const struct swp_run_req *req);
	void *ctx;
};

/*
 * swp_write_result - write dir/result.json for the scheduler: has_exit,
 * wait_status, timed_out, duration_ns, bundle (borrowed, may be NULL),
 * error (borrowed, NULL for none).  Returns 0 or -1 (errno).
 */
int swp_write_result(const char *dir, bool has_exit, int wait_status, bool timed_out,
		     uint64_t duration_ns, const char *bundle, const char *error);

/*
 * swp_run_one - run req through runner in a child process (its stdin
 * /dev/null, stdout and stderr into req->dir) and wait for it; *out
 * filled from what it left.  should_stop (may be NULL) is polled while it
 * runs: true kills it (EINTR).  Returns 0, or -1 with *err (fork failed,
 * EINTR).
 */
int swp_run_one(const struct swp_runner *runner, const struct swp_run_req *req,
		struct swp_outcome *out, bool (*should_stop)(void *ctx), void *stop_ctx,
		struct repro_err **err);

/* One fault's run, as the sweep reports it.  Strings owned. */
struct swp_result {
	const struct swp_fault *fault; /* borrowed from the plan, or NULL after a merge */
	json_t *json; /* owned: the run's record in --json (docs/sweep.md) */
};

struct swp_sweep_opts {
	unsigned jobs; /* runs at a time, at least 1 */
	uint64_t time_limit_ns; /* per run */
	const char *work_dir; /* borrowed: one sub-directory per run */
	const char *keep_dir; /* borrowed, or NULL: where each run's bundle is kept */
	FILE *progress; /* borrowed, or NULL: a terminal for a progress line */
	/* may be NULL: polled while runs go; true kills them all and ends the sweep (EINTR) */
	bool (*should_stop)(void *ctx);
	void *stop_ctx;
};

/*
 * swp_sweep_run - every fault of plan through runner, opts->jobs at a
 * time, each classified; a new array of run records (docs/sweep.md, in
 * plan order) in *out.  The bundles go to keep_dir (named after the
 * fault) or are removed.  Returns 0, or -1 with *err: fork failed, or
 * EINTR when should_stop said so (every run is then killed, whole tree,
 * and its files removed).  Time: the runs; memory: linear in the faults.
 */
int swp_sweep_run(const struct swp_plan *plan, const struct swp_runner *runner,
		  const struct swp_sweep_opts *opts, json_t **out, struct repro_err **err);

/*
 * swp_report_text - the table (fault, class, exit, first stderr line,
 * explain's first finding for the runs not clean), then a line per class
 * and the count of distinct behaviours, to out.  runs borrowed.  Terminal
 * escapes in the program's words are made visible (common/term.h).
 */
void swp_report_text(json_t *runs, FILE *out);

/*
 * swp_report_junit - runs as JUnit XML (one testcase per fault, a failure
 * for each whose class is in fail_on, a SWP_* class bit set) to out.
 * Returns 0 or -1 (a write error: errno).
 */
int swp_report_junit(json_t *runs, unsigned fail_on, FILE *out);

/*
 * swp_report_json - the sweep document {"format":"repro-sweep",
 * "version":1,"command":[…],"shard":"K/N" or null,"points":N,"runs":[…],
 * "summary":{class: count}} as a new object (runs and command borrowed,
 * referenced).
 */
json_t *swp_report_json(json_t *command, const char *shard, size_t npoints, json_t *runs);

/*
 * swp_merge - the runs of several sweep documents (paths borrowed, n of
 * them) in one array, in id order, a fault met twice kept once.  Returns
 * the new array, or NULL with *err: a file that is not a sweep document
 * (EINVAL, naming it), unreadable (errno).
 */
json_t *swp_merge(const char *const *paths, size_t n, json_t **command, size_t *npoints,
		  struct repro_err **err);

/* swp_fails - whether some run's class is in fail_on (bits 1 << enum swp_class). */
bool swp_fails(json_t *runs, unsigned fail_on);

/*
 * swp_record_run - in a runner's child process: run o through runner
 * (NULL: rpl_run()) and write req->dir's result (swp_write_result(); an
 * error as its line).  A command that cannot be executed is said on the
 * run's stderr as a shell says it ("repro: CMD: No such file or
 * directory").  Returns 0 (the child's exit status).
 */
int swp_record_run(const struct rpl_runner *runner, const struct rpl_run_opts *o,
		   const struct swp_run_req *req);

/* What each run of a sweep records.  Everything borrowed for the sweep's life. */
struct swp_command {
	char *const *argv; /* the command, NULL-terminated */
	bool net_none; /* each run in a network namespace of its own (--net none) */
	const char *const *overlay; /* NULL-terminated, or NULL: the overlay's defaults */
	const struct rpl_runner *runner; /* NULL: rpl_run() */
	const struct sess_signals *inherited; /* NULL: as sess_options.inherited */
};

/*
 * swp_command_runner - the runner of c (borrowed: it must outlive the
 * runner): each run one recording of c->argv in an overlay, with the
 * request's '\n'-separated rules checked by rpl_inject_check() (a bad one
 * is the run's error), its exit ending the run (daemons it left are
 * killed), repro's own notices silent.
 */
struct swp_runner swp_command_runner(const struct swp_command *c);

struct swp_baseline_opts {
	const char *work_dir; /* borrowed: its sub-directory "baseline" is the run's */
	const char *keep_dir; /* borrowed, or NULL: the bundle goes into work_dir */
	uint64_t timeout_ns; /* 0: none */
	bool (*should_stop)(void *ctx); /* may be NULL: as swp_run_one() */
	void *stop_ctx;
};

/*
 * swp_baseline - the working run through runner: recorded into
 * o->keep_dir/000-baseline.repro or o->work_dir/baseline.repro (*bundle, a
 * new string, set in every case), its duration in *duration_ns.  Returns
 * 0 when it exited 0, or -1 with *err: it could not be recorded, it was
 * still running after o->timeout_ns, it failed (the message gives its exit,
 * its first stderr line and the `repro explain` that says why), EINTR;
 * *kept says whether *bundle stays for the user.
 */
int swp_baseline(const struct swp_runner *runner, const struct swp_baseline_opts *o, char **bundle,
		 uint64_t *duration_ns, bool *kept, struct repro_err **err);

/*
 * swp_recorded_run - --from's run: its duration (manifest "duration_ns",
 * 0 when absent), *net_none set when it ran with --net=none (manifest
 * options.net); UINT64_MAX with *err (the reader's errors, "sweep --from").
 */
uint64_t swp_recorded_run(const char *bundle, bool *net_none, struct repro_err **err);

/*
 * swp_limits - each run's time limit: timeout_ns when given, else three
 * times the working run's (working_ns), at least 10 s; and the delay of an
 * ETIMEDOUT connect, a third of the limit (as a slow firewall's), at most
 * 10 s.  All in ns.
 */
void swp_limits(uint64_t timeout_ns, uint64_t working_ns, uint64_t *time_limit_ns,
		uint64_t *connect_delay_ns);

/*
 * swp_areas_parse, swp_classes_parse, swp_shard_parse - a sweep's words:
 * a comma list of areas (file, exec, network, dns) as SWP_* bits, of
 * classes (swp_class_name()) as 1 << class bits, "K/N" (1 <= K <= N <=
 * 9999).  Return 0, or -1 with *err (EINVAL, one line naming the word).
 */
int swp_areas_parse(const char *text, unsigned *out, struct repro_err **err);
int swp_classes_parse(const char *text, unsigned *out, struct repro_err **err);
int swp_shard_parse(const char *text, unsigned *k, unsigned *n, struct repro_err **err);

/* What a sweep says before its first run (swp_sweep_request.before).  All borrowed for the call. */
struct swp_sweep_notices {
	size_t outside; /* the working run's writes outside the overlay: every run's will reach the host */
	char *first_outside; /* the first of them, or NULL */
	size_t skipped; /* paths left out: a rule cannot name them (':', '\\', a newline) */
	size_t unstable; /* paths left out: named anew each run (a temporary name, a pid) */
	const char *
		one_at_a_time; /* non-NULL: the working run binds this on the host's network, so runs go one at a time */
};

/* A whole sweep (docs/sweep.md).  Everything borrowed for the call. */
struct swp_sweep_request {
	char *const *argv; /* the command, NULL-terminated */
	const char *from; /* NULL, or --from's bundle: its points instead of a working run's */
	bool net_none, net_given; /* --net none; whether --net was given (else --from's) */
	const char *const *overlay; /* NULL-terminated, or NULL: the overlay's defaults */
	const char *tmp_dir; /* where the runs' directory is made (removed at the end) */
	const char *keep_dir; /* NULL, or --keep: made when missing, each run's bundle kept there */
	uint64_t timeout_ns; /* --timeout, 0: swp_limits() of the working run */
	unsigned areas; /* SWP_* bits */
	bool include_system;
	const char *const *faults; /* NULL-terminated, or NULL: every fault */
	unsigned jobs; /* at least 1 */
	unsigned shard_k, shard_n; /* the K-th of N slices; n <= 1: all */
	FILE *progress; /* NULL, or a terminal for a progress line */
	bool (*should_stop)(void *ctx); /* may be NULL: as swp_run_one() */
	void *stop_ctx;
	/* may be NULL: called once with the plan's notices, before the first run */
	void (*before)(void *ctx, const struct swp_sweep_notices *notices);
	void *ctx;
	const struct rpl_runner *runner; /* NULL: rpl_run(); a stand-in for tests */
	/* NULL, or the signal state each run's program starts with (sess_options.inherited) */
	const struct sess_signals *inherited;
};

/* A sweep's outcome; swp_sweep_result_release() frees it. */
struct swp_sweep_result {
	json_t *runs; /* owned: swp_sweep_run()'s records, in plan order */
	json_t *command; /* owned: argv as an array of strings */
	size_t npoints; /* the plan's points (before --shard) */
	bool kept_work; /* the working run failed: its recording stays, named in the error */
};

/*
 * swp_sweep - rq's whole sweep: --keep's directory, a directory for the
 * runs under rq->tmp_dir, the working run (swp_baseline()) or --from's
 * recording, the plan (swp_plan_read()), rq->before, the shard, the runs
 * (swp_sweep_run()).  Fills *out and returns 0, or -1 with *err (*out
 * empty but kept_work): a directory, the working run (it failed: its
 * bundle is kept and named), the plan, EINTR when should_stop said so.
 * Time: the runs; memory: linear in the plan.
 */
int swp_sweep(const struct swp_sweep_request *rq, struct swp_sweep_result *out,
	      struct repro_err **err);

/* swp_sweep_result_release - free r's documents (NULL-safe fields). */
void swp_sweep_result_release(struct swp_sweep_result *r);

#endif
