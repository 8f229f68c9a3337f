#ifndef REPRO_LAUNCHER_LOOP_INTERNAL_H
#define REPRO_LAUNCHER_LOOP_INTERNAL_H

/*
 * The loop's state, shared by the ptrace loop (loop.c) and the thread that
 * answers seccomp user notifications (notify.c).  Everything here is used
 * with mu held: observers and policies never run concurrently.  Internal to
 * launcher/.
 */

#include "launcher/launcher.h"
#include "launcher/behalf.h"
#include "launcher/filter.h"
#include "launcher/taint.h"
#include "launcher/hold.h"
#include "launcher/netfault.h"
#include "launcher/tasks.h"

#include <pthread.h>
#include <stdatomic.h>

#define MAX_HOOKS 8

/* What a blocking call's arguments say it waits on (launcher/waits.c). */
enum lnch_wait_kind {
	LNCH_WAITK_FD, /* the fd in args[0] */
	LNCH_WAITK_CONNECT, /* the fd in args[0] and the address in args[1] */
	LNCH_WAITK_FCNTL, /* a lock wait (F_SETLKW, F_OFD_SETLKW) on the fd in args[0] */
	LNCH_WAITK_POLL,
	LNCH_WAITK_SELECT,
	LNCH_WAITK_EPOLL,
	LNCH_WAITK_WAIT4,
	LNCH_WAITK_WAITID,
	LNCH_WAITK_SLEEP,
};

#define LNCH_WAIT_CALLS_MAX 24

/* The blocking calls by native number, resolved once (libseccomp). */
struct lnch_wait_calls {
	int nr[LNCH_WAIT_CALLS_MAX];
	enum lnch_wait_kind kind[LNCH_WAIT_CALLS_MAX];
	const char *name[LNCH_WAIT_CALLS_MAX]; /* static */
	size_t n;
};

/* lnch_wait_calls_init - fill c with the native numbers of the blocking calls (launcher/waits.c). */
void lnch_wait_calls_init(struct lnch_wait_calls *c);

/*
 * A stop request seen at most this long (ns) before the first process
 * ended stops the recording when it ends: the same Ctrl-C ended both, and
 * repro saw its own before it reaped the program.
 */
#define LNCH_STOP_GRACE_NS 2000000000ull

struct lnch_loop {
	const struct lnch_child *child; /* borrowed */
	bool wait_all;
	bool (*should_stop)(void *ctx);
	void *stop_ctx;
	struct {
		const struct lnch_observer_ops *ops;
		void *ctx;
	} obs[MAX_HOOKS];
	size_t nobs;
	struct {
		const struct lnch_policy_ops *ops;
		void *ctx;
	} pol[MAX_HOOKS];
	size_t npol;
	struct lnch_tasks tasks;
	struct lnch_taint_table taint;
	struct lnch_filter_view view; /* what repro's filter stops */
	bool mounts_changed; /* a tracee changed the mount tree: act for nobody */
	bool any_creds_changed; /* some task has creds_changed */
	bool any_own_filter; /* some task has own_filter */
	bool check_exec_creds; /* an exec may change them: compare after each (launcher/taint.h) */
	char creds[512]; /* the tracer's, as lnch_taint_creds_text() gives them */
	int notified_nrs
		[16]; /* native numbers of the calls the filter notifies (none: 0 of them) */
	size_t n_notified;
	bool stopping;
	uint64_t main_end_ns; /* when the first process ended (since t0) */
	bool stop_asked; /* a stop was requested while the first process ran */
	uint64_t stop_asked_ns; /* when the last such request was seen (since t0) */
	uint64_t notice_after_ns;
	uint64_t time_limit_ns; /* 0, or when every traced process is killed (since t0) */
	void (*notice)(void *ctx, const pid_t *pids, size_t shown, size_t n);
	void *notice_ctx;
	bool noticed;
	struct lnch_result res;
	struct lnch_holds holds; /* tasks a policy's delay holds (launcher/hold.h) */
	/*
	 * endpoints of refused and blackholed connects: made in
	 * lnch_loop_run() before the notification thread starts, then only
	 * read, by the loop's thread (the notification path never connects)
	 */
	struct lnch_netfault netfault;
	unsigned asked_observers; /* lnch_loop_ask_policies(): bit i: policy i wants the exit */
	bool end_asked; /* a policy's on_exit asked to end the run */
	int asked_policy; /* lnch_loop_ask_policies(): index + 1 of the policy that decided */
	struct lnch_wait_calls wait_calls;
	/*
	 * Tasks announced at their own first stop (struct lnch_task.seen_spawn
	 * false) that ended before their parent's fork or clone event came:
	 * that event must not announce them again.  Owned; entries leave when
	 * the event comes, so the array holds only such races in flight.
	 */
	pid_t *gone_early;
	size_t ngone_early, gone_early_cap;
	pthread_mutex_t mu;
};

/* The notification thread (launcher/notify.c). */
/* How long the notification thread polls at most while it holds an answer back. */
#define LNCH_NOTIFY_FLUSH_MS 100

struct lnch_notifier {
	struct lnch_loop *loop; /* borrowed */
	int sock; /* where the child sends its listener (borrowed), -1: none */
	atomic_bool stop; /* the loop is over */
	atomic_bool flush; /* send the held-back answers now (lnch_notifier_flush) */
	pthread_t thread;
	bool running;
	struct lnch_behalf_ctx behalf;
	struct lnch_behalf_path
		path; /* the current call's path (PATH_MAX bytes: not on the stack) */
	/* answers a policy's delay holds back, sent at their deadline (notify.c) */
	struct lnch_delayed *delayed; /* owned */
	size_t ndelayed, delayed_cap;
	size_t resp_size; /* of a struct seccomp_notif_resp, as the kernel has it */
	uint64_t
		sig_checked_ns; /* when held-back answers were last looked at for a signal (CLOCK_MONOTONIC) */
};

/*
 * lnch_notifier_start - start the thread that receives the listener from
 * sock (SCM_RIGHTS, unix(7); borrowed, -1: no thread) and answers
 * notifications until lnch_notifier_stop().  All signals are blocked in
 * the thread but SIGRTMIN, for which a handler that does nothing is
 * installed (process-wide): lnch_notifier_stop() sends it to end a blocking
 * recvmsg(2) or SECCOMP_IOCTL_NOTIF_RECV with EINTR.  Returns 0, or -1 with
 * errno when sigaction(2) or pthread_create(3) fails: nobody would answer
 * the tracees then, and the caller kills them.
 */
int lnch_notifier_start(struct lnch_notifier *nt, struct lnch_loop *loop, int sock);

/*
 * lnch_child_answer_listener - tell the child (launcher/spawn.c), which
 * waits for it before it installs its filter, whether a notification
 * thread is there to answer a listener (has_thread) or it is to install
 * the ptrace-only filter.  Nothing to do without a notification socket.
 * Returns 0, or -1 with errno when the child cannot hear it (it died:
 * the loop sees its end).
 */
int lnch_child_answer_listener(const struct lnch_child *child, bool has_thread);

/* lnch_notifier_stop - end the thread and close its fds. */
void lnch_notifier_stop(struct lnch_notifier *nt);

/*
 * lnch_notifier_flush - have the thread send every answer a delay holds
 * back now (the recording was asked to stop): a tracee waiting for its
 * answer takes no signal but SIGKILL (WAIT_KILLABLE_RECV).  Async: the
 * thread is woken and sends them within LNCH_NOTIFY_FLUSH_MS at the latest.
 */
void lnch_notifier_flush(struct lnch_notifier *nt);

/* Shared helpers of loop.c (call with mu held). */
uint64_t lnch_loop_since_start(const struct lnch_loop *loop);
/*
 * lnch_loop_ask_policies - observers' describe() into *call (zeroed first),
 * then each policy in turn until one imposes: returns true with *v filled,
 * or when a policy asked for the call's result (loop->asked_observers: bit i
 * for policy i, 0: none); false (v zeroed) when the call runs as it is.
 */
bool lnch_loop_ask_policies(struct lnch_loop *loop, const struct lnch_stop *st,
			    struct lnch_call *call, struct lnch_verdict *v);
/*
 * lnch_loop_release - a held task's delay is over (launcher/hold.h): at its
 * seccomp stop it is resumed; at its exit stop the imposed result is set
 * and reported, then it is resumed.
 */
void lnch_loop_release(struct lnch_loop *loop, struct lnch_task *task);
/*
 * lnch_loop_task_full - whether task is traced by stops at every call
 * (struct lnch_task.full): it changed credentials, root or namespaces, it
 * runs under a seccomp filter of its own, or a tracee changed the mount tree.
 */
bool lnch_loop_task_full(const struct lnch_loop *loop, const struct lnch_task *task);
/* lnch_read_tgid - thread group id from /proc/TID/status ("Tgid:"), or tid when unreadable. */
pid_t lnch_read_tgid(pid_t tid);

/* lnch_read_ppid - the real parent's pid from /proc/TID/status ("PPid:"), or 0 when unreadable. */
pid_t lnch_read_ppid(pid_t tid);

#endif
