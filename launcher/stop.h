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
	int inject_origin; /* with injected or inject_failed: the policy's number (a rule), 0: none */
	/* exit only: a policy's result could not be imposed (its registers or answer were refused): ret is the kernel's */
	bool inject_failed;
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

/* How a long wait ended (struct lnch_wait.end). */
enum lnch_wait_end {
	LNCH_WAIT_RETURNED =
		0, /* the call returned: the task stopped again, or was seen out of it */
	LNCH_WAIT_SIGNALED =
		1, /* a signal took the task out of it (signal-delivery-stop): status = signal */
	LNCH_WAIT_EXITED = 2, /* the task ended in it: status as from waitpid(2) */
	LNCH_WAIT_LEFT = 3, /* still in it when the recording stopped (the task was then killed) */
};

/* Most fds of one wait described (poll, select, epoll_wait wait on several). */
#define LNCH_WAIT_FDS 2

/* Most holders of a pipe's other end kept for one fd of a wait. */
#define LNCH_WAIT_HOLDERS 4
/* Most fds of one traced process looked at for a pipe's other end. */
#define LNCH_WAIT_SCAN_FDS 1024

/* What was found of a pipe's other end (struct lnch_wait_fd.end_flags). */
enum lnch_wait_end_flags {
	LNCH_WAIT_END_LOOKED = 1u << 0, /* the fd is a pipe and its other end was looked for */
	LNCH_WAIT_END_WRITE = 1u << 1, /* the fd is the pipe's write end (else its read end) */
	LNCH_WAIT_END_MORE = 1u << 2, /* more processes hold it than LNCH_WAIT_HOLDERS */
	LNCH_WAIT_END_FDS_CUT = 1u << 3, /* a process had more fds than LNCH_WAIT_SCAN_FDS */
};

/* A traced process holding a pipe's other end open, and one fd it holds it by. */
struct lnch_wait_holder {
	pid_t pid;
	int fd;
};

/* One fd a wait was on, as seen when the wait was found. */
struct lnch_wait_fd {
	int fd;
	char link
		[104]; /* readlink of /proc/PID/fd/FD: "socket:[123]", "pipe:[45]", a path; "" unknown */
	uint32_t local_len, peer_len; /* bytes of local and peer (0: none) */
	uint8_t local[128]; /* a socket's own address (getsockname(2)) */
	uint8_t peer[128]; /* a socket's peer (getpeername(2)) */
	/* a pipe: the traced processes holding its other end (the waiting one too) */
	uint32_t end_flags; /* enum lnch_wait_end_flags */
	uint32_t nholders; /* entries of holders */
	struct lnch_wait_holder holders[LNCH_WAIT_HOLDERS];
};

/*
 * A blocking call a task stayed in for a while (docs/bundle-format.md,
 * "waits.jsonl"), found by sampling /proc/TID/syscall of tasks that did
 * not stop (launcher/waits.h).  Times in ns since the start of the run.
 */
struct lnch_wait {
	pid_t tid, pid;
	int nr; /* native syscall number */
	const char *name; /* static: the call's libseccomp name */
	uint64_t args[6];
	uint64_t
		start_ns; /* the task's last stop, or the last sample that saw it out of the call */
	uint64_t dur_ns;
	bool start_exact; /* start_ns is the call's own entry (its seccomp stop) */
	enum lnch_wait_end end;
	int status; /* SIGNALED: the signal; EXITED: the wait status */
	bool has_ret; /* the task stopped at the call's exit: ret is its raw result (-errno) */
	int64_t ret;
	uint32_t addr_len; /* connect: bytes of addr, 0 when unread */
	uint8_t addr[128]; /* connect: the address argument */
	pid_t child; /* wait4, waitid: the pid waited for, -1 any child, 0 not such a call */
	uint32_t
		nfds; /* fds the call waits on (all of them; fds[] holds the first LNCH_WAIT_FDS) */
	struct lnch_wait_fd fds[LNCH_WAIT_FDS];
	char wchan[48]; /* /proc/TID/wchan when found ("" unknown) */
	bool at_stop; /* the recording was asked to stop (Ctrl-C, SIGTERM) while it went on */
	uint64_t stop_ns; /* with at_stop: when */
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
struct lnch_call;

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
	/* a long wait ended (struct lnch_wait, borrowed for the call); may be NULL */
	void (*on_wait)(void *ctx, const struct lnch_wait *w);
	/*
	 * after on_entry, when a policy is registered: fill in what the
	 * observer decoded of the call (struct lnch_call, launcher/policy.h;
	 * pointers valid until the task's next stop); may be NULL
	 */
	void (*describe)(void *ctx, const struct lnch_stop *st, struct lnch_call *call);
};

#endif
