#ifndef REPRO_REPLAYER_REPLAY_REPLAY_H
#define REPRO_REPLAYER_REPLAY_REPLAY_H

/*
 * `repro replay` (docs/replay.md): the failures of a recorded run that
 * matter (repro explain's findings, probe noise aside), each turned into
 * fault rules (docs/faults.md) that impose it again on this machine: the
 * same syscall on the same path (mapped here), at the same occurrences;
 * the same refused or timed-out connect; the same failed lookup.  The run
 * itself is the caller's (a session with these rules as a policy).
 */

#include "common/err.h"
#include "launcher/policy.h"
#include "replayer/policies/rules.h"
#include "replayer/run/run.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What kind of recorded failure an imposition is: --only's words. */
enum rpl_replay_kind {
	RPL_REPLAY_FILE = 1u << 0,
	RPL_REPLAY_EXEC = 1u << 1,
	RPL_REPLAY_NETWORK = 1u << 2,
	RPL_REPLAY_DNS = 1u << 3,
	RPL_REPLAY_ALL = 15u,
};

/* One recorded failure to impose: its rules and what it was.  Strings owned. */
struct rpl_imposition {
	enum rpl_replay_kind kind;
	char *what; /* "openat /srv/app/conf.json ENOENT", as the summary says it */
	char **rules; /* nrules rule texts (several when its occurrences are not one range) */
	size_t nrules;
	uint64_t seq; /* the recorded event (or network.jsonl record) of its last occurrence */
	/* per rule: the recorded events of the occurrences it imposes, in order (norigins[k]) */
	uint64_t **origins;
	size_t *norigins;
	/*
	 * owned: why no rule imposes it (nrules is then 0: its words are not
	 * ones a rule takes, or its rule does not parse), or NULL; said before
	 * and after the run, and counted among the failures not imposed
	 */
	char *cannot;
};

struct rpl_replay_plan {
	struct rpl_imposition *v; /* owned, n of them, in explain's rank order */
	size_t n;
	json_t *argv; /* owned: the recorded command (manifest argv) */
	char *cwd; /* owned: the recorded working directory ("/" when !has_cwd) */
	bool has_cwd; /* the manifest has one (an absolute path) */
	char *home; /* owned: the recorded HOME (host.json), or NULL */
	json_t *exit; /* owned: the recorded exit (manifest), or null */
	json_t *host; /* owned: host.json, or NULL */
	bool net_none; /* recorded with --net=none (manifest options.net) */
	uint64_t duration_ns; /* the recorded run's (manifest) */
};

/*
 * rpl_replay_kinds_parse - --only's comma list (file, exec, network, dns)
 * as RPL_REPLAY_* bits in *out.  Returns 0, or -1 with *err (EINVAL, one
 * line naming the word).
 */
int rpl_replay_kinds_parse(const char *text, unsigned *out, struct repro_err **err);

struct bndl_limits;

struct rpl_replay_opts {
	unsigned kinds; /* RPL_REPLAY_* to impose (0: all) */
	bool fast; /* delays capped at 100 ms */
	const char
		*cwd_here; /* borrowed: the working directory of the replay, NULL: the recorded */
	const char *home_here; /* borrowed: HOME here, or NULL */
	const char *const *map_from, *const *map_to; /* borrowed: --map OLD=NEW pairs */
	size_t nmaps;
	bool include_system; /* --simulate: the system's paths too (rpl_explain_system_path()) */
	/* borrowed: --simulate's reader limits (bundles/reader.h), NULL: the defaults */
	const struct bndl_limits *limits;
};

/*
 * rpl_replay_plan_read - the impositions of bundle (borrowed path) under
 * o, in *out (release with rpl_replay_plan_release()).  Recorded paths are
 * mapped here: --map prefixes first, then the recorded cwd to o->cwd_here
 * and the recorded HOME to o->home_here; glob characters and ':' are
 * escaped (a path with ':' is imposed: docs/faults.md).  A failure whose
 * words no rule takes (a syscall, errno, address or name outside their
 * characters: a crafted bundle) or whose rule does not parse is kept,
 * without rules, its `cannot` saying why.  A file or exec failure is imposed at the occurrences it failed at (the
 * n-th call of that syscall on that path, counted over the whole run, in
 * events.jsonl order: `when=`); a refused or unreachable connect with its
 * errno, one that timed out after its recorded duration (`--fast`: at most
 * 100 ms), one the program abandoned as a blackhole; a failed lookup
 * (NXDOMAIN, SERVFAIL, timed out) for every query of that name.  Returns 0,
 * or -1 with *err (the bundle reader's and explain's errors).  Linear in
 * the bundle's events.
 */
int rpl_replay_plan_read(const char *bundle, const struct rpl_replay_opts *o,
			 struct rpl_replay_plan *out, struct repro_err **err);
void rpl_replay_plan_release(struct rpl_replay_plan *p);

/* Most divergences rpl_replay_divergences() lists. */
#define RPL_REPLAY_DIVERGENCES_MAX 20

/*
 * rpl_replay_divergences - the failures of the replay (bundle replayed)
 * that the recording (bundle recorded) did not have: explain's findings of
 * the replay, probe noise and imposed ones aside, whose call, normalised
 * target (repro diff's normalisation, o's --map on the recorded side) and
 * errno no finding of the recording shares.  A new array of
 * {"what":"openat /srv/app/x ENOENT","process":"python3 app.py","syscall",
 * "path","errno"} (the last four when the finding has them) in *out,
 * at most RPL_REPLAY_DIVERGENCES_MAX, in explain's rank order.  Returns 0,
 * or -1 with *err (the readers' errors).  Linear in both bundles.
 */
int rpl_replay_divergences(const char *recorded, const char *replayed,
			   const struct rpl_replay_opts *o, json_t **out, struct repro_err **err);

/*
 * rpl_replay_simulate - bundle's facts (borrowed path) checked against
 * this host without running anything (`repro replay --simulate`,
 * docs/replay.md): each recorded path of the program's (the system's too
 * with o->include_system), mapped here as a replay maps it, against
 * lstat(2) and its content (XXH3, files up to 64 MiB), as it was before the
 * run touched it (files.jsonl "before", else "meta"); each name looked up,
 * resolved here; with probe_network each TCP destination, connected to
 * here for at most 1 s.  A new array of {"rank","kind" (path, dns,
 * network),"target","what","recorded","here"} in *out, the most important
 * first (existence, type, mode and owner, content, names, destinations);
 * a file whose hash the recorder's rule withholds (repro_hash_withheld(),
 * common/content_hash.h) is never read here: "content not compared", with
 * "hash_withheld" its reason.  The bundle is read under o->limits and
 * whole, as every reader reads it (a member name twice is refused).
 * Returns 0, or -1 with *err (the reader's errors).  Linear in the bundle,
 * plus the bytes hashed and the probes.
 */
int rpl_replay_simulate(const char *bundle, const struct rpl_replay_opts *o, bool probe_network,
			json_t **out, struct repro_err **err);

/* Most divergences the watch says as they happen; the rest are counted. */
#define RPL_REPLAY_LIVE_MAX 20

/*
 * The watch of a replay (replayer/replay/watch.c): a policy (launcher/
 * policy.h) that imposes nothing and asks for the result of every call
 * with a path or an endpoint whose syscall the recording has, to compare
 * it with the recording as it happens.  A divergence is a call that
 * worked in the recording (the same syscall on the same target,
 * normalised as repro diff does: o's --map, cwd and HOME on each side)
 * and fails here with an errno the recording never had for it, or a
 * call on a path of the program's (not rpl_explain_system_path()) or an
 * endpoint that the recording never made, the first of each program.
 * Each call and errno is one divergence, however many threads meet it.
 * A non-blocking connect's outcome is not a call's result (it is polled
 * for): such a refusal is a divergence only after the run (network.jsonl).
 * Imposed results, EAGAIN, EINTR and ERESTART* are none.  say (may be
 * NULL) gets each divergence as a line without prefix or newline
 * (borrowed for the call, bundle text not yet made safe for a terminal),
 * at most RPL_REPLAY_LIVE_MAX; with strict the first one ends the run.
 * The watch sees the ptrace path only: run it with sess_options
 * .ptrace_only.
 */
struct rpl_watch;

/*
 * rpl_watch_new - a watch of the replay of bundle recorded (borrowed
 * path), its index read from events.jsonl: one entry per distinct call
 * key (linear in the events).  o borrowed for the watch's life.  Returns
 * the watch (free with rpl_watch_free()), or NULL with *err (the reader's
 * errors).
 */
struct rpl_watch *rpl_watch_new(const char *recorded, const struct rpl_replay_opts *o, bool strict,
				void (*say)(void *ctx, const char *line), void *say_ctx,
				struct repro_err **err);
void rpl_watch_free(struct rpl_watch *w);
const struct lnch_policy_ops *rpl_watch_ops(void);
/* rpl_watch_divergences - how many were seen (said or not); rpl_watch_said: said. */
size_t rpl_watch_divergences(const struct rpl_watch *w);
size_t rpl_watch_said(const struct rpl_watch *w);
/* rpl_watch_stopped - whether strict ended the run; rpl_watch_stop_what: the line it said. */
bool rpl_watch_stopped(const struct rpl_watch *w);
const char *rpl_watch_stop_what(const struct rpl_watch *w);
/*
 * rpl_watch_context - after a run strict ended: the last calls (at most 5)
 * of the thread that diverged (of its process, when it has one thread),
 * and those of the recording's thread up to the same call (the divergent one, or for a call the recording never
 * made the one before it here), to out, made safe for a terminal.
 * Returns 0 (nothing when the run was not stopped), or -1 with *err (the
 * reader's errors).  Linear in the recording's events.
 */
int rpl_watch_context(struct rpl_watch *w, const char *recorded, FILE *out, struct repro_err **err);
/*
 * rpl_watch_reported - whether the watch said that syscall on path (or
 * "IP:PORT") here failed with errname where the recording's worked.
 */
bool rpl_watch_reported(const struct rpl_watch *w, const char *syscall, const char *path,
			const char *errname);

struct rpl_replay_result;

/* What `repro replay` runs and how (docs/replay.md).  Everything borrowed. */
struct rpl_replay_run_opts {
	const char *bundle; /* the recording */
	const char
		*output; /* the replay's bundle, or NULL: BUNDLE without .repro + .replay.repro */
	const char *cwd; /* --cwd, or NULL: the recorded working directory, --map applied */
	const char *const *map_from, *const *map_to; /* --map OLD=NEW pairs */
	size_t nmaps;
	unsigned kinds; /* RPL_REPLAY_* to impose (0: all) */
	bool fast, no_impose, strict;
	/*
	 * writes reach this machine; else (the default) only the directories
	 * of rpl_replay_overlays() take writes, into overlays, and every
	 * other mount is read-only
	 */
	bool no_overlay;
	bool net_host; /* this machine's network; else (the default) loopback only */
	const char *keep_overlay; /* or NULL */
	const struct rpl_rules *extra; /* --inject's rules, or NULL */
	char *const *cmd; /* run this instead of the recorded command, or NULL */
	const char *home_here; /* HOME here, or NULL */
	const struct rpl_runner *runner; /* NULL: rpl_run() */
	/* may be NULL: its should_stop, on_program, progress, notice and cb_ctx go to the run */
	const struct sess_options *hooks;
	/* may be NULL: each divergence as it happens (rpl_watch_new()'s say), with ctx */
	void (*say)(void *ctx, const char *line);
	/*
	 * may be NULL: called once the replay is ready to run (r's plan, cwd
	 * and argv set, the working directory entered) and before anything
	 * runs: to show what will run; non-zero refuses the run (that value,
	 * -1 with *err set, is rpl_replay_run()'s)
	 */
	int (*before)(void *ctx, const struct rpl_replay_result *r, struct repro_err **err);
	void *ctx;
};

/* How a replay went, judged by rpl_replay_run(). */
enum rpl_replay_verdict {
	RPL_REPLAY_REPRODUCED, /* the recorded exit, every failure imposed, no divergence */
	RPL_REPLAY_OTHER_WAY, /* the recorded exit, but a failure not imposed or a divergence */
	RPL_REPLAY_NOT_REPRODUCED, /* another exit */
	RPL_REPLAY_STOPPED, /* --strict ended the run at the first divergence */
};

/* What a replay came to.  Release with rpl_replay_result_release(). */
struct rpl_replay_result {
	char *bundle; /* owned: the recording's absolute path */
	char *output; /* owned: where the replay's bundle goes */
	struct rpl_replay_plan plan; /* owned */
	char *cwd; /* owned: where it ran */
	/* owned, NULL-terminated (NULL when none): the overlaid directories (rpl_replay_overlays()) */
	char **overlay;
	size_t noverlay;
	size_t overlay_left_out; /* places the recording wrote past RPL_REPLAY_OVERLAYS_MAX: read-only */
	char **argv; /* owned array (strings borrowed): what ran, NULL-terminated */
	struct rpl_rules *rules; /* owned: the impositions' rules, then --inject's */
	size_t *first_rule; /* owned: imposition i's rules are [first_rule[i], first_rule[i+1]) */
	uint64_t *fired; /* owned: per imposition, how often its rules fired */
	size_t imposed; /* impositions whose rules fired */
	struct sess_result res; /* owned: the run's */
	bool ran; /* res is filled */
	/* the failures here the recording did not have: {"what","process"} (watch's aside) */
	json_t *failed_here; /* owned array */
	char *failed_here_error; /* owned: why they are not known, or NULL */
	json_t *process_diffs; /* owned array of strings: processes that differ (repro diff) */
	char *process_diffs_error; /* owned: why they are not known, or NULL */
	size_t live; /* divergences the watch saw as they happened */
	size_t live_said; /* of them, those given to say */
	char *strict_what; /* owned: the divergence --strict stopped at, or NULL */
	char *strict_context; /* owned: the last calls on both sides, made safe, or NULL */
	char *strict_context_error; /* owned: why the recording's side is not known, or NULL */
	size_t ndivergences; /* live + failed_here + process_diffs */
	enum rpl_replay_verdict verdict;
	char exit_recorded[64], exit_here[64]; /* "exit 1", "killed by SIGSEGV", "no exit seen" */
	int status; /* repro's exit status: the program's, 128+N for signal N, 1 without exit */
};
void rpl_replay_result_release(struct rpl_replay_result *r);

/* The most directories a replay overlays; the places a recording wrote past them stay read-only. */
#define RPL_REPLAY_OVERLAYS_MAX 32

/*
 * rpl_replay_overlays - the directories a replay of r->bundle may write,
 * into r->overlay (canonical, existing here, none inside another): the
 * working directory r->cwd, o->home_here, /tmp, /var/tmp and /dev/shm, and
 * the directory here of each place the recording wrote, created, removed
 * or linked (files.jsonl ops; the recorded working directory and HOME
 * taken as the replay's, --map applied; the nearest that exists; never
 * under /proc, /sys or /dev but /dev/shm), at most RPL_REPLAY_OVERLAYS_MAX
 * (the rest counted in r->overlay_left_out).  Returns 0, or -1 with *err
 * (the reader's errors).  Linear in files.jsonl, times the overlays.
 */
int rpl_replay_overlays(const struct rpl_replay_run_opts *o, struct rpl_replay_result *r,
			struct repro_err **err);

/*
 * rpl_replay_run - the replay of o->bundle: its plan read (o's kinds,
 * fast, --map, the cwd and HOME here), the working directory entered
 * (chdir(2): the process's own), the command checked to be here, o->before
 * asked, then one run through o->runner with the impositions' rules and
 * --inject's, a watch (rpl_watch_new()) and the overlay; then the
 * divergences (rpl_replay_divergences(), the processes as repro diff aligns
 * them, score 50 and up) and the verdict, into *out.  Returns 0 (whatever
 * the program did), o->before's refusal, or -1 with *err: the bundle
 * cannot be read (the reader's errors), it records no working directory
 * and no --cwd is given (EPROTO), the directory or the command is not here
 * (errno, ENOENT), the run could not be made (rpl_run()'s errors).
 * *out is filled as far as it got in every case.  Linear in the bundle's
 * events, plus the run.
 */
int rpl_replay_run(const struct rpl_replay_run_opts *o, struct rpl_replay_result *out,
		   struct repro_err **err);

/* What --minimize found. */
struct rpl_replay_minimized {
	bool full_set_differs; /* every failure imposed did not give the recorded exit */
	bool *needed; /* owned: per imposition of the plan, whether leaving it out changed the exit */
	size_t kept; /* how many are needed */
};

/*
 * rpl_replay_minimize - the fewest recorded failures that still give the
 * recorded exit: the full set of impositions, then each one left out in
 * turn and dropped when the recorded exit stays (a 1-minimal set in n + 1
 * trials, each a replay through o->runner in an overlay, in a child
 * process of its own under $TMPDIR, stopped by o->hooks' should_stop).
 * step (may be NULL) is told after each trial of imposition i whether it
 * is needed.  r is prepared as rpl_replay_run() prepares it (not run);
 * *m filled (release with rpl_replay_minimized_release()).  Returns 0, or
 * -1 with *err: as rpl_replay_run() before its run, a directory that
 * cannot be made, EINTR.  Time: n + 1 runs.
 */
int rpl_replay_minimize(const struct rpl_replay_run_opts *o,
			void (*step)(void *ctx, const struct rpl_replay_result *r, size_t i,
				     bool needed),
			struct rpl_replay_result *r, struct rpl_replay_minimized *m,
			struct repro_err **err);
void rpl_replay_minimized_release(struct rpl_replay_minimized *m);

/*
 * What `repro replay` says, to out (its stderr; --simulate's report is
 * stdout's), each string of the bundle or the run made safe for a
 * terminal (common/term.h).  All borrowed; linear in what they print.
 *  rpl_replay_say_before - before the run: how this machine differs from
 *    the recording's (uid, working directory, kernel release), and each
 *    failure imposed, or that cannot be and why (none with no_impose).
 *  rpl_replay_say_live - one divergence as it happens (a watch's line).
 *  rpl_replay_say_result - after the run: a command that could not be
 *    executed, --strict's stop and its context, the divergences (not with
 *    quiet; at most 5 process differences, then how to list the rest), the
 *    failures never imposed (the call never came, or no rule can impose
 *    it, and why), the verdict line ("reproduced: exit 1 as
 *    recorded, 2 of 2 failures imposed"), where the replay was recorded.
 *  rpl_replay_say_step - --minimize's trial of imposition i done.
 *  rpl_replay_say_minimized - --minimize's set; returns the exit status:
 *    0 when the full set gave the recorded exit, 1 when not or when
 *    nothing was imposed.
 *  rpl_replay_say_simulated - --simulate's differences (an array of
 *    {"what","target","recorded","here"}), as a list or as_json
 *    ({"differences": …}); returns 1 when there is one, 0 when none.
 */
void rpl_replay_say_before(FILE *out, const struct rpl_replay_result *r, bool no_impose);

/*
 * rpl_replay_say_run - what a replay of r will run, to out, before it
 * runs (docs/replay.md, "Replaying a bundle you received"): the command
 * (each word whole, never cut, quoted as a shell reads it back with every
 * byte outside printable ASCII as \xNN: repro_term_quote()), the
 * directory, the user and group it runs as here, the environment, where
 * writes go (the overlays, the rest read-only; or this machine with
 * o->no_overlay), the network, and the bundle's SHA-256 (sha256: 64
 * hexadecimal digits, or NULL) for --trust.  Linear in what it prints.
 */
void rpl_replay_say_run(FILE *out, const struct rpl_replay_run_opts *o,
			const struct rpl_replay_result *r, const char *sha256);
void rpl_replay_say_live(FILE *out, const char *line);
void rpl_replay_say_result(FILE *out, const struct rpl_replay_result *r, bool quiet,
			   bool no_impose);
void rpl_replay_say_step(FILE *out, const struct rpl_replay_result *r, size_t i, bool needed);
int rpl_replay_say_minimized(FILE *out, const struct rpl_replay_result *r,
			     const struct rpl_replay_minimized *m, bool no_impose);
int rpl_replay_say_simulated(FILE *out, json_t *differences, bool as_json);

#endif
