#ifndef REPRO_LAUNCHER_WAITS_H
#define REPRO_LAUNCHER_WAITS_H

/*
 * Long waits in blocking calls (docs/bundle-format.md, "waits.jsonl"),
 * found without any extra stop: from the loop's idle tick, the tasks that
 * have not stopped for LNCH_WAIT_QUIET_NS have /proc/TID/syscall read (proc(5));
 * one in a blocking call (connect, accept, reads and receives, poll,
 * select, epoll_wait, wait4, waitid, flock, fcntl locks, sleeps) opens a
 * wait, described once (the fds' /proc/PID/fd links, a socket's endpoints
 * through a pidfd_getfd(2) copy, the traced processes holding a pipe's
 * other end (launcher/wait_pipes.h), connect's address, the child).  The wait
 * ends at the task's next stop, at the first tick that finds it out of the
 * call, or when it ends; observers' on_wait gets it when it lasted
 * LNCH_WAIT_LONG_NS or more, or when a signal, the task's end or a stop of
 * the recording ended it.  Internal to launcher/; call with the loop's mu
 * held.
 */

#include "launcher/stop.h"

#include <stdint.h>

struct lnch_loop;
struct lnch_task;

/*
 * A wait at least this long is recorded (ns): shorter ones are the normal
 * pace of a program (a round trip, a child that ran for a moment).
 */
#define LNCH_WAIT_LONG_NS 1000000000ull
/* Tasks that have not stopped for this long (ns) are sampled at each tick. */
#define LNCH_WAIT_QUIET_NS 200000000ull

/*
 * lnch_waits_sample - at an idle tick (every 250 ms at most): sample each
 * task that has not stopped for LNCH_WAIT_QUIET_NS, opening or ending its
 * wait.  Cost: one read of /proc/TID/syscall per quiet task (linear in the
 * task table); a new wait costs a few more reads and a pidfd_getfd(2) per
 * socket it waits on (at most LNCH_WAIT_FDS), and per pipe it waits on a
 * readlink of each traced process's fds (at most LNCH_WAIT_SCAN_FDS each).
 */
void lnch_waits_sample(struct lnch_loop *loop);

/*
 * lnch_waits_stop_requested - the recording was asked to stop (Ctrl-C,
 * SIGTERM, SIGHUP): sample every task now, whatever its quiet time, and
 * mark each wait that goes on as seen at that moment (struct lnch_wait
 * at_stop, stop_ns).  Linear in the task table.
 */
void lnch_waits_stop_requested(struct lnch_loop *loop);

/*
 * lnch_waits_on_stop - task stopped (status as from waitpid(2)): its wait,
 * if any, ends now (at a syscall-exit stop with the call's result; at a
 * signal-delivery-stop as LNCH_WAIT_SIGNALED).  At a signal-delivery-stop of
 * SIGINT, SIGTERM, SIGHUP or SIGQUIT without an open wait, the call the
 * signal took the task out of is a wait too, from the task's last stop.
 * Remembers the time of the stop.  O(1) without an open wait.
 */
void lnch_waits_on_stop(struct lnch_loop *loop, struct lnch_task *task, int status);

/*
 * lnch_waits_end - task ends (end LNCH_WAIT_EXITED with its wait status, or
 * LNCH_WAIT_LEFT when the recording stops): its wait, if any, ends now and
 * its memory is freed.
 */
void lnch_waits_end(struct lnch_loop *loop, struct lnch_task *task, enum lnch_wait_end end,
		    int status);

#endif
