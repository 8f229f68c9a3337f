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

struct rpl_replay_opts {
	unsigned kinds; /* RPL_REPLAY_* to impose (0: all) */
	bool fast; /* delays capped at 100 ms */
	const char
		*cwd_here; /* borrowed: the working directory of the replay, NULL: the recorded */
	const char *home_here; /* borrowed: HOME here, or NULL */
	const char *const *map_from, *const *map_to; /* borrowed: --map OLD=NEW pairs */
	size_t nmaps;
	bool include_system; /* --simulate: the system's paths too (rpl_explain_system_path()) */
};

/*
 * rpl_replay_plan_read - the impositions of bundle (borrowed path) under
 * o, in *out (release with rpl_replay_plan_release()).  Recorded paths are
 * mapped here: --map prefixes first, then the recorded cwd to o->cwd_here
 * and the recorded HOME to o->home_here; glob characters are escaped.
 * A file or exec failure is imposed at the occurrences it failed at (the
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
 * first (existence, type, mode and owner, content, names, destinations).
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

#endif
