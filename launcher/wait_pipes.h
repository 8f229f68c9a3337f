#ifndef REPRO_LAUNCHER_WAIT_PIPES_H
#define REPRO_LAUNCHER_WAIT_PIPES_H

/*
 * The other end of a pipe a wait is on (docs/bundle-format.md,
 * "waits.jsonl", `other_end`): which traced processes hold it open.
 * Internal to launcher/; call with the loop's mu held.
 */

#include "launcher/stop.h"

#include <sys/types.h>

struct lnch_tasks;

/*
 * lnch_wait_pipe_ends - when f (an fd of process pid, its link read) is a
 * pipe: tell its end from /proc/PID/fdinfo/FD (O_WRONLY: the write end),
 * then find the processes of tasks (thread group leaders only, pid itself
 * too, less f's own fd) that hold the other end open, by the
 * /proc/PID/fd links equal to f's and their fdinfo flags; sets
 * f->end_flags, nholders, holders (at most LNCH_WAIT_HOLDERS, then
 * LNCH_WAIT_END_MORE).  Nothing for another kind of fd.  Cost: a readlink
 * per fd of each traced process, at most LNCH_WAIT_SCAN_FDS each (then
 * LNCH_WAIT_END_FDS_CUT), and an fdinfo read per fd on the same pipe.
 */
void lnch_wait_pipe_ends(const struct lnch_tasks *tasks, pid_t pid, struct lnch_wait_fd *f);

#endif
