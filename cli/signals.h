#ifndef REPRO_CLI_SIGNALS_H
#define REPRO_CLI_SIGNALS_H

/*
 * Signals sent to repro while it records (the only process-wide state of
 * repro, hence in cli/).  SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1 and
 * SIGUSR2 sent to repro by kill(2) are passed on to the program; the same
 * signals from the terminal, or from a kill(2) of the whole process group,
 * already reach the program, so they are not sent twice.  One that arrives after the program has
 * ended (while processes it left running are still recorded) stops the
 * recording: those processes are killed and the bundle written.  The
 * dispositions and mask repro was started with are kept here too, for the
 * program to start with them (struct sess_signals).
 */

#include "session/session.h"

#include <stdbool.h>
#include <sys/types.h>

/*
 * cli_signals_save_inherited - remember the dispositions (which signals
 * are at SIG_IGN) and the signal mask repro was started with; main()
 * calls it before anything installs a handler.  Later calls do nothing.
 */
void cli_signals_save_inherited(void);

/*
 * cli_signals_inherited - what cli_signals_save_inherited() read (saved
 * now when it was not called), for the program's start
 * (sess_options.inherited).  Static storage, valid for the process's life.
 */
const struct sess_signals *cli_signals_inherited(void);

/*
 * cli_signals_install - catch those signals from now on (before the program
 * starts: one that arrives before it exists is passed on once it does).
 * One of them that repro was started with ignored (nohup(1), a shell's
 * background job) is passed on all the same, the program deciding as it
 * would without repro, but is no stop request: the program and what it
 * leaves running ignore it too.
 */
void cli_signals_install(void);

/*
 * cli_signals_forward_to - pass signals to pid; pid 0 stops passing
 * them.
 */
void cli_signals_forward_to(pid_t pid);

/*
 * cli_signals_stop_requested - true when one of those signals arrived since
 * the last call (the flag is cleared); ctx unused.
 */
bool cli_signals_stop_requested(void *ctx);

#endif
