#ifndef REPRO_LAUNCHER_TASKS_H
#define REPRO_LAUNCHER_TASKS_H

/* The loop's table of traced tasks (threads), keyed by tid.  Internal to launcher/. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lnch_wait;
struct repro_map;

struct lnch_task {
	pid_t tid; /* 0: free slot */
	pid_t pid; /* thread group id */
	bool in_syscall; /* between a seccomp stop that asked for the exit and that exit */
	bool injected; /* the current call was skipped by a policy */
	int64_t inject_ret; /* what it returns then (-errno, or a retval) */
	int inject_origin; /* the policy's number for what decided (struct lnch_verdict.origin) */
	bool redirected; /* the current connect was sent to a fault endpoint (launcher/netfault.h) */
	/* the program's own sockaddr (args 1, 2) of the last connect redirected, until its next seccomp stop */
	uint64_t redirect_addr, redirect_len;
	uint8_t observer_pols; /* bit i: policy i asked for the current call's result */
	int8_t rewrite_pol; /* index + 1 of the policy that may rewrite what the call receives */
	uint64_t rewrite_fd, rewrite_buf,
		rewrite_cap; /* the call's fd, where it receives, how much */
	uint64_t delay_exit_ns; /* a policy's delay before the current call's result returns */
	/* held by repro at a stop until hold_until_ns (since t0): enum lnch_hold_kind, launcher/hold.h */
	uint8_t held;
	uint64_t hold_until_ns;
	int64_t held_rval; /* LNCH_HOLD_EXIT: the call's result as the exit stop had it */
	uint32_t held_arch;
	bool seen_spawn; /* the parent's fork/clone event has been handled (the first task: true) */
	bool creds_changed; /* it changed credentials, root or namespaces (launcher/taint.h) */
	bool own_filter; /* it (or its parent) installed a seccomp filter of its own */
	bool creds_check; /* in a set*id call: compare its credentials at the exit */
	/*
	 * Resumed with PTRACE_SYSCALL at every stop, so that every call stops
	 * at entry and exit: its path-only calls go to the kernel and their
	 * results are taken at the exit stop, and a call another filter decides
	 * is seen (docs/architecture.md, "Tasks traced by stops").
	 */
	bool full;
	/* full only: a syscall-entry stop was seen and its exit is still to come */
	bool pending;
	bool stop_seen; /* since that entry, repro's filter stopped it (seccomp stop or notification) */
	bool notified; /* by a notification: the notification thread reported its entry */
	/* the program's own filter returned SECCOMP_RET_TRACE: failed with ENOSYS, as with no tracer */
	bool own_trace;
	uint32_t entry_arch;
	int entry_nr;
	uint64_t entry_args[6];
	uint64_t entry_t_ns;
	/* long waits (launcher/waits.h) */
	uint64_t last_stop_ns; /* the task's last stop (since t0) */
	uint64_t seen_out_ns; /* the last sample that found it out of any blocking call */
	int last_entry_nr; /* the call of its last stop when that was a seccomp stop, else -1 */
	struct lnch_wait *wait; /* owned: the wait it is in, or NULL */
	uint64_t wait_gone_ns; /* a sample found it out of that call then (0: not yet) */
};

/*
 * The tasks in a dense array in order of arrival, and the one hash map
 * (common/map.h) from tid to index: a lookup is a hash and an index, O(1)
 * on average.  A removed task leaves a hole (tid 0) that iteration skips;
 * the array is compacted, in order, when holes outnumber tasks, so
 * iterating it is linear in the live tasks and removing is amortised O(1).
 * Iterate as: for (i = 0; i < t->n; i++) if (t->v[i].tid > 0) ...
 */
struct lnch_tasks {
	struct lnch_task *v; /* owned: n entries, holes included */
	size_t n;
	size_t count; /* live tasks */
	struct repro_map *by_tid; /* owned: tid -> index in v */
};

/* lnch_tasks_init - an empty table for lnch_tasks_release() (which frees no task's wait). */
void lnch_tasks_init(struct lnch_tasks *t);
void lnch_tasks_release(struct lnch_tasks *t);
/*
 * lnch_tasks_get - the task for tid, or NULL.  Borrowed until the next
 * put or del (either may move the tasks).  O(1) on average.
 */
struct lnch_task *lnch_tasks_get(struct lnch_tasks *t, pid_t tid);
/*
 * lnch_tasks_put - the task for tid (> 0), created zeroed (tid set,
 * last_entry_nr -1) after the others when missing.  Borrowed as with
 * lnch_tasks_get().  Amortised O(1).
 */
struct lnch_task *lnch_tasks_put(struct lnch_tasks *t, pid_t tid);
/* lnch_tasks_del - forget tid's task (no-op when missing).  Amortised O(1). */
void lnch_tasks_del(struct lnch_tasks *t, pid_t tid);

#endif
