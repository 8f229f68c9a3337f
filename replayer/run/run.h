#ifndef REPRO_REPLAYER_RUN_RUN_H
#define REPRO_REPLAYER_RUN_RUN_H

/*
 * One run of a command with policies: the one way `repro record`, each
 * run of `repro replay` (and its --minimize trials) and each run of
 * `repro sweep` make a session (session/session.h) - the fault rules of
 * --inject (replayer/policies/inject.h), --io-uring=deny
 * (replayer/policies/deny.h) and a caller's own policy (replay's watch)
 * composed in one order, the first that decides wins.
 */

#include "common/err.h"
#include "replayer/policies/rules.h"
#include "session/session.h"

#include <stdbool.h>

/* What to run: the session's options and the policies on top of the recorder. */
struct rpl_run_opts {
	const struct sess_options *sess; /* borrowed */
	const struct sess_policy *first; /* borrowed, or NULL: asked before the others */
	struct rpl_rules *rules; /* borrowed, or NULL: no fault rules (counts fired kept in it) */
	bool deny_io_uring; /* io_uring_setup fails with ENOSYS (REPRO_SYSF_BYPASS) */
};

/*
 * rpl_run - record o->sess with o->first, then o->rules' injection
 * policy, then the io_uring denial.  Returns sess_run()'s result: 0 with
 * *res filled (the caller releases it with sess_result_release()), or -1
 * with *err (sess_run()'s errors; the deny policy's seccomp errors).  Not
 * reentrant, as sess_run().
 */
int rpl_run(const struct rpl_run_opts *o, struct sess_result *res, struct repro_err **err);

/*
 * A way to run: rpl_run() itself, or a stand-in that makes no process (a
 * unit test's, which writes a synthesised bundle to o->sess->output).
 * Callers that take one use rpl_run() when run is NULL.
 */
struct rpl_runner {
	int (*run)(void *ctx, const struct rpl_run_opts *o, struct sess_result *res,
		   struct repro_err **err);
	void *ctx; /* borrowed */
};

/* rpl_runner_run - r->run(r->ctx, …), or rpl_run() when r or r->run is NULL. */
int rpl_runner_run(const struct rpl_runner *r, const struct rpl_run_opts *o,
		   struct sess_result *res, struct repro_err **err);

#endif
