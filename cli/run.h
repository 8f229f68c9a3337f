#ifndef REPRO_CLI_RUN_H
#define REPRO_CLI_RUN_H

/*
 * One recording as the cli makes it, for `repro record` and each run of
 * `repro sweep`: the policies the options ask for and sess_run()
 * (session/session.h) with the cli's callbacks (cli/signals.h).
 */

#include "common/err.h"
#include "replayer/policies/rules.h"
#include "session/session.h"

#include <stdbool.h>

/*
 * cli_run - record sess (borrowed; its should_stop and on_program set here
 * to pass signals on to the program, its notice kept when set, else lines
 * go to stderr as "repro: …") with the policy first (borrowed, may be
 * NULL: asked before the others, replay's watch), the fault rules
 * (borrowed, may be NULL) and, with deny_io_uring, io_uring_setup failed
 * with ENOSYS.  Installs the cli's signal handlers.  Returns sess_run()'s
 * result with *res filled, or -1 with *err.
 */
int cli_run(struct sess_options *sess, const struct sess_policy *first, struct rpl_rules *rules,
	    bool deny_io_uring, struct sess_result *res, struct repro_err **err);

/*
 * cli_session_hooks - the cli's callbacks of a run (its should_stop and
 * on_program pass signals on to the program, notices go to stderr as
 * "repro: …", packing's progress line), in an otherwise empty struct for
 * a library call that takes them (struct rpl_replay_run_opts.hooks).
 * Installs the cli's signal handlers.
 */
struct sess_options cli_session_hooks(void);

/*
 * cli_pack_progress - where packing says how far it is: a progress line
 * "repro: packing the bundle: 45% (120 MiB of 270 MiB)" on stderr when it
 * is a terminal (common/progress.h), once packing takes half a second.
 * cli_pack_progress_end: the line off the terminal.  cli_run() uses them
 * for a run whose notices go to stderr (not a sweep's runs).
 */
struct sess_progress cli_pack_progress(void);
void cli_pack_progress_end(void);

#endif
