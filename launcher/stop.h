#ifndef REPRO_LAUNCHER_STOP_H
#define REPRO_LAUNCHER_STOP_H

/*
 * The read-only view of a tracee stop that observers (the recorder) and
 * policies (fault rules, replay) see.  Nothing here names a register: the
 * number, arguments and result come from PTRACE_GET_SYSCALL_INFO
 * (ptrace(2), linux/ptrace.h).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Why a call's result was not seen (struct lnch_stop.result_unseen). */
enum lnch_unseen_reason {
	LNCH_UNSEEN_NONE = 0,
	/* the path leads through a magic link or /proc/self: only the kernel walks it as the program would */
	LNCH_UNSEEN_KERNEL_WALK,
	/* the program had changed credentials, root or mounts, and was not yet traced by stops */
	LNCH_UNSEEN_CREDENTIALS,
	LNCH_UNSEEN_ENTRY_ONLY, /* a call seen at entry only (close): the kernel runs it after */
};

struct lnch_stop {
	pid_t tid;
	pid_t pid; /* thread group id */
	bool is_entry; /* seccomp stop (entry) or syscall-exit stop */
	uint32_t arch; /* AUDIT_ARCH_* (linux/audit.h) */
	int nr; /* syscall number for arch */
	uint64_t args[6];
	int64_t ret; /* exit only: raw return, -errno on failure */
	bool injected; /* exit only: a policy imposed ret; the call did not run */
	bool result_unseen; /* exit only: the kernel ran the call out of the tracer's sight; ret is 0 */
	enum lnch_unseen_reason unseen_reason; /* exit only, with result_unseen: why */
	/*
	 * exit only: another seccomp filter (the program's own, or an outer
	 * supervisor's) decided the call before repro's could stop it: ret is
	 * that filter's errno, and the call did not run (seccomp(2): the
	 * action of highest precedence wins)
	 */
	bool denied_by_filter;
	/*
	 * exit only, with denied_by_filter: that filter answered with
	 * SECCOMP_RET_TRAP or a kill (the task gets SIGSYS or dies), so the
	 * call has no result; ret is 0
	 */
	bool filter_sigsys;
	uint64_t t_ns; /* time of the stop since the start of the run (CLOCK_MONOTONIC) */
	/*
	 * Entry only, may be NULL: argument path_argi as the launcher already
	 * read it from the tracee (a complete NUL-terminated string, borrowed
	 * for the callback), so that observers need not read it again.
	 */
	const char *path;
	int path_argi;
};

/* What an observer's entry callback asks of the loop. */
enum lnch_entry_want {
	LNCH_WANT_NOTHING = 0,
	LNCH_WANT_EXIT = 1u << 0, /* stop again at syscall exit to see the result */
};

/*
 * Observers are called at every traced stop and process-lifecycle change.
 * They cannot fail the loop: an observer that meets an error (a full disk)
 * keeps it and reports it when the run is over.  ctx is the observer's own.
 */
struct lnch_observer_ops {
	/* seccomp stop; returns enum lnch_entry_want flags */
	unsigned (*on_entry)(void *ctx, const struct lnch_stop *st);
	/* syscall-exit stop of a call whose entry asked for it */
	void (*on_exit)(void *ctx, const struct lnch_stop *st);
	/* a new task: child_pid is its thread group id (== parent_pid for a thread) */
	void (*on_spawn)(void *ctx, pid_t parent_pid, pid_t child_tid, pid_t child_pid,
			 bool is_thread, uint64_t t_ns);
	/* a successful exec in pid; former_tid is the thread that called it (ptrace(2) "execve under ptrace") */
	void (*on_exec)(void *ctx, pid_t pid, pid_t former_tid, uint64_t t_ns);
	/* a task is gone (status as from waitpid(2), or -1 when it vanished in an exec) */
	void (*on_task_exit)(void *ctx, pid_t tid, pid_t pid, int status, uint64_t t_ns);
	/* the loop is waiting and nothing has stopped for a while (at most every 250 ms) */
	void (*on_idle)(void *ctx);
	/* the recording stops while this task still runs (it is then killed) */
	void (*on_left_running)(void *ctx, pid_t tid, pid_t pid, uint64_t t_ns);
};

#endif
