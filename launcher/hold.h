#ifndef REPRO_LAUNCHER_HOLD_H
#define REPRO_LAUNCHER_HOLD_H

/*
 * Delayed calls on the ptrace path (a policy's delay_enter_ns and
 * delay_exit_ns, launcher/policy.h): the task stays in its ptrace stop
 * until its deadline while the loop serves every other tracee.  A POSIX
 * timer of the loop's own (CLOCK_MONOTONIC, SIGEV_THREAD_ID to the loop's
 * thread, LNCH_HOLD_SIG with a handler that does nothing, so waitpid(2)
 * returns EINTR) is armed for the earliest deadline.  Internal to
 * launcher/; call with the loop's mu held.
 */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct lnch_loop;
struct lnch_task;

/* After its deadline the timer fires again every so often (ns) until re-armed. */
#define LNCH_HOLD_REPEAT_NS 5000000

/* How often (ns) held tasks are looked at for a signal that should end their hold. */
#define LNCH_HOLD_SIG_CHECK_NS 100000000ull

/* The signal the hold timer sends to the loop's thread. */
#define LNCH_HOLD_SIG (SIGRTMIN + 1)

/* Where a held task stopped, and so what its release does. */
enum lnch_hold_kind {
	LNCH_HOLD_NONE = 0,
	LNCH_HOLD_ENTRY, /* at its seccomp stop: resumed, the call then runs (or is skipped) */
	LNCH_HOLD_EXIT, /* at its syscall-exit stop: the result is imposed and reported, then resumed */
};

struct lnch_holds {
	pid_t *tids; /* owned: the held tasks, in no order */
	size_t n, cap;
	timer_t timer;
	bool has_timer;
	uint64_t armed_ns; /* the deadline the timer is armed for (since t0), 0: none */
	uint64_t sig_checked_ns; /* when held tasks were last looked at for a signal (since t0) */
};

/* lnch_holds_init - none held; the timer is made at the first hold. */
void lnch_holds_init(struct lnch_holds *h);
void lnch_holds_release(struct lnch_holds *h);

/*
 * lnch_hold - keep task stopped (kind) until until_ns (since t0), arming the
 * timer when it is the earliest deadline.  When the timer cannot be made
 * (timer_create(2) fails), the hold is still kept and released at the
 * loop's next wake-up, late.  O(1) amortised.
 */
void lnch_hold(struct lnch_loop *loop, struct lnch_task *task, enum lnch_hold_kind kind,
	       uint64_t until_ns);

/*
 * lnch_holds_release_due - release every held task whose deadline has come
 * (lnch_loop_release() of loop.c), or that a signal waits for (checked
 * every LNCH_HOLD_SIG_CHECK_NS: a slow call is interrupted, a held one
 * would keep SIGTERM or a handler's signal back until its deadline), forget
 * those that are gone, and arm the timer for the next deadline.  Linear in
 * the held tasks; O(1) when none.
 */
void lnch_holds_release_due(struct lnch_loop *loop);

/*
 * lnch_holds_release_all - release every held task now, whatever its
 * deadline: the recording was asked to stop (Ctrl-C, SIGTERM, SIGHUP sent
 * to repro), and a signal passed on to a task held in its ptrace stop
 * would otherwise wait for the end of the delay.  Linear in the held tasks.
 */
void lnch_holds_release_all(struct lnch_loop *loop);

/*
 * lnch_signal_pending - whether thread tid has a signal pending that does
 * something once it is out of its stop: not blocked, not ignored, and not
 * one whose default is to be ignored (SIGCHLD …) unless it is caught
 * (SigPnd, ShdPnd, SigBlk, SigIgn, SigCgt of /proc/TID/status).  No
 * allocation.
 */
bool lnch_signal_pending(pid_t tid);

#endif
