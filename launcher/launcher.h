#ifndef REPRO_LAUNCHER_LAUNCHER_H
#define REPRO_LAUNCHER_LAUNCHER_H

/*
 * Starting a program under ptrace + seccomp, optionally inside user, mount
 * and network namespaces, and driving the ptrace loop until every traced
 * process has ended (docs/architecture.md, "Launcher").
 */

#include "common/err.h"
#include "launcher/filter_rule.h"
#include "launcher/policy.h"
#include "launcher/stop.h"

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* Steps of the child before exec, for error reports across fork (STYLE.md). */
enum lnch_step {
	LNCH_STEP_NONE = 0,
	LNCH_STEP_UNSHARE,
	LNCH_STEP_SYNC,
	LNCH_STEP_MOUNT_PRIVATE,
	LNCH_STEP_LOOPBACK,
	LNCH_STEP_CAPS,
	LNCH_STEP_NO_NEW_PRIVS,
	LNCH_STEP_SECCOMP,
	LNCH_STEP_EXEC,
	LNCH_STEP_ID_MAP, /* the tracer's: writing uid_map/gid_map failed */
	LNCH_STEP_OVERLAY, /* mounting an overlay (struct lnch_overlay) failed */
	LNCH_STEP_CHDIR, /* entering the working directory again through the overlays failed */
	LNCH_STEP_READ_ONLY, /* making every mount but the overlays read-only failed */
};

/*
 * What the program runs in (docs/architecture.md, "Sandbox").  A caller
 * holding CAP_SYS_ADMIN (root, or root of a user namespace such as
 * `unshare -Ur`) gets a private mount namespace without a user namespace,
 * so the program keeps every privilege it has without repro (ports below
 * 1024, raw sockets, set-user-ID programs); others get a user namespace
 * that maps their own ids.
 */
enum lnch_sandbox_mode {
	LNCH_SANDBOX_NONE = 0, /* no namespaces */
	LNCH_SANDBOX_AUTO, /* namespaces where the kernel allows them, else none (said in fallback) */
	LNCH_SANDBOX_REQUIRE, /* namespaces, or fail */
};

/*
 * One overlay of `record --overlay` (docs/architecture.md, "Sandbox"): an
 * overlayfs with lowerdir=path and the given upper and work directories,
 * mounted over path in the program's mount namespace before exec, so that
 * what the program writes under path lands in upper and the host's path
 * stays as it was.
 */
struct lnch_overlay {
	const char *
		path; /* borrowed: absolute, canonical directory; the lower layer and mount point */
	const char *upper; /* borrowed: an empty directory, not under path */
	const char *work; /* borrowed: an empty directory on upper's filesystem */
};

struct lnch_spawn_opts {
	char *const *argv; /* borrowed: NULL-terminated; argv[0] searched in PATH */
	enum lnch_sandbox_mode sandbox;
	bool net_none; /* a network namespace with only loopback up (never dropped by AUTO) */
	bool notify; /* path-only calls through seccomp user notification (launcher/behalf.h) */
	const struct lnch_filter_rule *rules; /* borrowed */
	size_t nrules;
	/*
	 * borrowed, noverlays of them, may be NULL: overlays to mount (they
	 * need namespaces: AUTO never falls back to none with them); the
	 * child then enters cwd (borrowed, required with overlays) again, so
	 * that its working directory is the overlay's and not the directory
	 * underneath it
	 */
	const struct lnch_overlay *overlays;
	size_t noverlays;
	const char *cwd;
	/*
	 * with overlays: every mount of the program's mount namespace made
	 * read-only (mount_setattr(2), Linux >= 5.12) but the overlays, so
	 * that a write anywhere else fails with EROFS instead of reaching the
	 * host (`repro replay` of a received bundle)
	 */
	bool read_only;
	bool no_new_privs; /* PR_SET_NO_NEW_PRIVS before exec, whatever the sandbox */
	/*
	 * borrowed, each may be NULL (then the child keeps what the tracer has
	 * at fork): the signals the program starts with ignored (every other
	 * one at SIG_DFL) and its signal mask, set in the child just before
	 * the filter and exec (signal(7): exec keeps both), so that the
	 * tracer's own handlers and mask do not reach the program
	 */
	const sigset_t *sig_ignored;
	const sigset_t *sig_blocked;
};

/* A started tracee, stopped nowhere, seized and running towards its exec. */
struct lnch_child {
	pid_t pid;
	int err_fd; /* read end of the child's error pipe (owned) */
	int notify_sock; /* where the child sends its seccomp listener (owned), or -1 */
	char *exec_path; /* owned: the resolved program path, or the name when PATH has none */
	bool not_in_path; /* argv[0] had no '/' and no PATH entry holds it: exit 127 */
	uint64_t t0_ns; /* CLOCK_MONOTONIC at spawn */
	/* static string: "none", "mntns", "mntns+netns", "userns+mntns", "userns+mntns+netns" */
	const char *sandbox;
	char fallback[256]; /* why AUTO ran without namespaces (one line), or "" */
	const struct lnch_filter_rule *rules; /* borrowed from the spawn options */
	size_t nrules;
};

/*
 * lnch_child_spawn - fork the program described by opts, enter namespaces
 * (enum lnch_sandbox_mode), write uid/gid maps when a user namespace is made
 * (identity maps of what the caller's own namespace maps when it may map
 * more than its own ids, else its own uid and gid), PTRACE_SEIZE it
 * (TRACESECCOMP, TRACEFORK/VFORK/CLONE, TRACEEXEC, EXITKILL, TRACESYSGOOD),
 * install the seccomp filter and let it exec.  With LNCH_SANDBOX_AUTO and
 * no --net=none, a kernel that refuses the namespaces or the maps (EPERM,
 * EINVAL, ENOSPC, ENOSYS: disabled user namespaces, a container profile, a
 * chroot) gives a second try without them, and child->fallback says why.
 * A program that cannot be executed is not an error here: its execve fails
 * in the traced child (recorded), which exits 127 (missing) or 126 (found
 * but not executable) as a shell would; lnch_child_setup_error() tells.
 * A file the kernel refuses with ENOEXEC (no #! line) is run by /bin/sh,
 * as execvp(3) does.  With opts->notify the child waits before its filter
 * until lnch_loop_run() says whether a thread answers a listener.  When
 * fork(2) fails with EAGAIN under a finite RLIMIT_NPROC the message names
 * the limit.  On success fills *child (release with
 * lnch_child_release()).  Errors: the errno and step of the first failing
 * set-up step, with a hint (e.g. --sandbox=none) in the message; with
 * overlays, a mount the kernel refuses is such an error before exec (the
 * message names the path; EINVAL when opts has overlays but no sandbox).
 */
int lnch_child_spawn(const struct lnch_spawn_opts *opts, struct lnch_child *child,
		     struct repro_err **err);

/*
 * lnch_child_setup_error - after the loop: when the child failed before or at
 * its exec, fill *step and *errnum from its error pipe and return 1; return 0
 * when the exec happened.
 */
int lnch_child_setup_error(struct lnch_child *child, enum lnch_step *step, int *errnum);

/* lnch_step_name - a short text for a step ("exec", "unshare"). Static string. */
const char *lnch_step_name(enum lnch_step step);

void lnch_child_release(struct lnch_child *child);

struct lnch_loop;

/* The outcome of a run. */
struct lnch_result {
	int main_status; /* wait status of the first process (waitpid(2)) */
	bool main_seen; /* main_status is valid */
	uint64_t end_ns; /* time since t0 when the last traced task ended */
	unsigned left_running; /* processes still running when the recording stopped */
	bool timed_out; /* the time limit (lnch_loop_set_time_limit()) ended the run */
	bool ended_by_policy; /* a policy's on_exit ended the run (launcher/policy.h) */
};

/*
 * lnch_loop_new - a loop for the child (borrowed; must outlive the loop).
 * wait_all: keep tracing after the first process exits until every traced
 * process has ended; otherwise stop then and kill what is left.
 * should_stop: polled when waitpid is interrupted by a signal (may be NULL);
 * it says whether a stop was requested since the last poll; a request made
 * after the first process has ended stops the recording (what is left is
 * killed), one made before is dropped unless the first process ends
 * within LNCH_STOP_GRACE_NS (2 s) of it (the same Ctrl-C reached both, and
 * repro saw its own first).  The caller arranges for a periodic signal (the cli
 * uses a 250 ms interval timer) so that observers' on_idle runs while the
 * program is quiet.
 */
struct lnch_loop *lnch_loop_new(const struct lnch_child *child, bool wait_all,
				bool (*should_stop)(void *ctx), void *stop_ctx);

/*
 * lnch_loop_set_waiting_notice - with wait_all, once the first process has
 * ended and others still run after_ns (ns), call fn once with the process
 * ids still traced (at most 16 of them, n the whole count) so that the
 * caller can say what it is waiting for.  fn runs in the loop's thread; ctx
 * is borrowed.
 */
void lnch_loop_set_waiting_notice(struct lnch_loop *loop, uint64_t after_ns,
				  void (*fn)(void *ctx, const pid_t *pids, size_t shown, size_t n),
				  void *ctx);

/*
 * lnch_loop_set_time_limit - once limit_ns (ns since the program started,
 * 0: none) has passed, kill every traced process, as a stop after the
 * first process ended does, and set lnch_result.timed_out.  Checked when
 * waitpid is interrupted by a signal: the caller's periodic signal (see
 * lnch_loop_new()) bounds how late, 250 ms for the cli's.
 */
void lnch_loop_set_time_limit(struct lnch_loop *loop, uint64_t limit_ns);

/* Register an observer or a policy (both borrowed for the loop's life). */
void lnch_loop_add_observer(struct lnch_loop *loop, const struct lnch_observer_ops *ops, void *ctx);
void lnch_loop_add_policy(struct lnch_loop *loop, const struct lnch_policy_ops *ops, void *ctx);

/*
 * lnch_loop_run - drive the tracees until none is left.  Fills *res.
 * First, when a registered policy may ask for a connect fault the kernel
 * plays out (lnch_policy_ops.may_net_fault), makes its endpoints in the
 * child's network namespace (launcher/netfault.h: one short-lived fork,
 * before any stop is handled); otherwise nothing is forked.  Then starts
 * the notification thread when the child has a listener socket, or, when
 * RLIMIT_NPROC leaves no room for a thread (EAGAIN), has the child
 * install the ptrace-only filter instead.  Returns 0, or
 * -1 with *err when ptrace itself fails in a way the loop cannot handle
 * (the tracees are killed then).
 */
int lnch_loop_run(struct lnch_loop *loop, struct lnch_result *res, struct repro_err **err);

void lnch_loop_free(struct lnch_loop *loop);

/* lnch_now_ns - CLOCK_MONOTONIC in ns. */
uint64_t lnch_now_ns(void);

#endif
