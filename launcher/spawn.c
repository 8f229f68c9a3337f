/*
 * Starting the tracee: PATH lookup, fork, namespaces, uid/gid maps, seize,
 * seccomp filter, exec.  The child never allocates after fork; it reports a
 * failing step through a fixed record on an O_CLOEXEC pipe (STYLE.md).
 */
#include "launcher/launcher.h"
#include "launcher/filter.h"
#include "launcher/loop_internal.h"
#include "launcher/overlay.h"
#include "launcher/syscalls.h"
#include "launcher/taint.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct lnch_child_err {
	uint32_t step;
	int32_t errnum;
	uint32_t index; /* LNCH_STEP_OVERLAY: which overlay */
};

uint64_t lnch_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *lnch_step_name(enum lnch_step step)
{
	switch (step) {
	case LNCH_STEP_UNSHARE: return "cannot create user and mount namespaces";
	case LNCH_STEP_SYNC: return "lost contact with the tracer";
	case LNCH_STEP_MOUNT_PRIVATE: return "cannot make mounts private";
	case LNCH_STEP_LOOPBACK: return "cannot bring up loopback in the new network namespace";
	case LNCH_STEP_NO_NEW_PRIVS: return "cannot set no_new_privs";
	case LNCH_STEP_CAPS: return "cannot limit capabilities to the caller's bounding set";
	case LNCH_STEP_SECCOMP: return "cannot install the seccomp filter";
	case LNCH_STEP_EXEC: return "cannot execute";
	case LNCH_STEP_ID_MAP: return "cannot map user and group ids into the user namespace";
	case LNCH_STEP_OVERLAY: return "cannot mount an overlay";
	case LNCH_STEP_CHDIR: return "cannot enter the working directory through the overlay";
	case LNCH_STEP_READ_ONLY: return "cannot make the filesystem read-only but the overlays";
	case LNCH_STEP_NONE: break;
	}
	return "set-up";
}

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/*
 * PATH lookup as execvp(3) does it, done in the tracer so the tracee does no
 * probing of ours.  Returns the path to execute (owned): argv[0] itself when
 * it has a '/' (the kernel says whether it exists), the first executable
 * PATH entry, else the first one that exists (execve then reports EACCES);
 * NULL with *not_found when no PATH entry holds it (the child then walks
 * PATH itself, so that each failed execve is recorded).
 */
static char *resolve_program(const char *name, bool *not_found)
{
	const char *path = getenv("PATH");
	char *found_noexec = NULL;

	*not_found = false;
	/* a name with a '/' is the kernel's to judge; so is "", which no PATH entry can hold */
	if (strchr(name, '/') != NULL || name[0] == '\0')
		return repro_xstrdup(name);
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path != '\0') {
		const char *end = strchrnul(path, ':');
		cleanup_free char *dir = repro_xstrndup(path, (size_t)(end - path));
		char *cand = repro_path_join(dir[0] ? dir : ".", name);

		if (is_executable_file(cand)) {
			free(found_noexec);
			return cand;
		}
		if (found_noexec == NULL && access(cand, F_OK) == 0)
			found_noexec = cand;
		else
			free(cand);
		path = *end ? end + 1 : end;
	}
	*not_found = found_noexec == NULL;
	return found_noexec;
}

static void child_fail_at(int err_fd, enum lnch_step step, size_t index, int errnum)
{
	struct lnch_child_err ce = { .step = step, .errnum = errnum, .index = (uint32_t)index };

	(void)!write(err_fd, &ce, sizeof(ce));
	_exit(127);
}

static void child_fail(int err_fd, enum lnch_step step, int errnum)
{
	struct lnch_child_err ce = { .step = step, .errnum = errnum };

	(void)!write(err_fd, &ce, sizeof(ce));
	_exit(127);
}

static int loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return rc;
}

struct child_args {
	const struct lnch_spawn_opts *opts;
	const char *exec_path; /* NULL: walk PATH for argv[0] (nothing there holds it) */
	char *const *sh_argv; /* "/bin/sh", exec_path, argv[1..]: for ENOEXEC, as execvp(3) */
	int ns_flags; /* for unshare(2); 0: no namespaces */
	bool userns; /* ns_flags has CLONE_NEWUSER */
	bool nnp; /* the filter needs no_new_privs (no CAP_SYS_ADMIN where it is installed) */
	char *const *ovl_data; /* mount options of opts->overlays (lnch_overlay_data()) */
	int ovl_fd_top; /* the highest fd the overlays' layers are opened at (lnch_overlay_mount_all()) */
	struct sock_fprog *prog; /* the filter; with SECCOMP_RET_USER_NOTIF when notify */
	bool notify;
	int notify_fd; /* socket to send the listener on, or -1 */
	int ready_fd; /* child writes one byte when its namespaces exist (lo up with CLONE_NEWNET) */
	int go_fd; /* parent writes one byte when maps are written and the child is seized */
	int err_fd;
	uint64_t bounding; /* the caller's capability bounding set, bit N = capability N */
	int cap_last; /* highest capability number the kernel knows */
};

/*
 * A new user namespace starts with every capability in the bounding set
 * (user_namespaces(7)); root's exec would then gain capabilities it did not
 * have outside.  Drop those the caller's bounding set lacks, before exec.
 */
static int drop_to_bounding(const struct child_args *a)
{
	for (int cap = 0; cap <= a->cap_last && cap < 64; cap++)
		if (!(a->bounding & (1ull << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return -1;
	return 0;
}

/* The caller's bounding set (prctl(2) PR_CAPBSET_READ), read before fork. */
static uint64_t read_bounding(int *cap_last)
{
	cleanup_free char *text = repro_read_file("/proc/sys/kernel/cap_last_cap", 64, NULL, NULL);
	uint64_t set = 0;

	*cap_last = text != NULL ? atoi(text) : 40;
	for (int cap = 0; cap <= *cap_last && cap < 64; cap++)
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
			set |= 1ull << cap;
	return set;
}

/* Hand the listener to the tracer (SCM_RIGHTS, unix(7)); no allocation after fork. */
static int send_listener(int sock, int listener)
{
	char byte = 'L', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(cbuf, 0, sizeof(cbuf));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &listener, sizeof(int));
	return sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* Every SECCOMP_RET_USER_NOTIF of the program becomes SECCOMP_RET_TRACE (in place: no allocation). */
static void notify_to_trace(struct sock_fprog *prog)
{
	for (unsigned short i = 0; i < prog->len; i++)
		if (prog->filter[i].code == (BPF_RET | BPF_K) &&
		    prog->filter[i].k == SECCOMP_RET_USER_NOTIF)
			prog->filter[i].k = SECCOMP_RET_TRACE;
}

/* The tracer's answer on the notification socket before the filter goes in. */
#define LISTENER_YES 'L'
#define LISTENER_NO 'T'

/*
 * The filter with a notification listener when asked and possible; made
 * ptrace-only when the tracer has no thread to answer it (no room under
 * RLIMIT_NPROC) or the kernel refuses a listener (EBUSY: an outer filter
 * already has one, as under another supervisor; EINVAL: older than Linux
 * 5.0).  WAIT_KILLABLE_RECV (Linux >= 5.19) keeps signals from interrupting
 * a call the tracer is answering.
 */
static void install_filter(const struct child_args *a)
{
	int listener = -1;
	char answer = 0;

	/* whether the tracer has a thread to answer a listener (lnch_child_answer_listener()) */
	if (a->notify && recv(a->notify_fd, &answer, 1, 0) != 1)
		child_fail(a->err_fd, LNCH_STEP_SYNC, errno ? errno : EPIPE);
	if (a->notify && answer == LISTENER_YES) {
		listener = lnch_sys_seccomp(SECCOMP_SET_MODE_FILTER,
					    SECCOMP_FILTER_FLAG_NEW_LISTENER |
						    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
					    a->prog);
		if (listener < 0 && errno == EINVAL)
			listener = lnch_sys_seccomp(SECCOMP_SET_MODE_FILTER,
						    SECCOMP_FILTER_FLAG_NEW_LISTENER, a->prog);
	}
	if (listener >= 0) {
		if (send_listener(a->notify_fd, listener) < 0)
			child_fail(a->err_fd, LNCH_STEP_SECCOMP, errno);
		close(listener);
		return;
	}
	if (a->notify)
		notify_to_trace(a->prog);
	if (lnch_sys_seccomp(SECCOMP_SET_MODE_FILTER, 0, a->prog) < 0)
		child_fail(a->err_fd, LNCH_STEP_SECCOMP, errno);
}

/*
 * A failed exec ends the child as a shell would end (bash(1), "COMMAND
 * EXECUTION"): 127 when the kernel says ENOENT (no such program, or a
 * missing #! interpreter), 126 otherwise (no run bit, a directory, a
 * symlink loop).  No allocation: this is after fork.
 */
static void exec_fail(const struct child_args *a, int errnum)
{
	struct lnch_child_err ce = { .step = LNCH_STEP_EXEC, .errnum = errnum };

	(void)!write(a->err_fd, &ce, sizeof(ce));
	/* bash, dash and env(1) agree: ENOENT (also a missing #! interpreter) 127, else 126 */
	_exit(errnum == ENOENT ? 127 : 126);
}

/*
 * argv[0] is in no PATH directory: try each as execvp(3) does, so that each
 * attempt is a recorded execve (they fail with ENOENT, or EACCES for a
 * directory without search permission).  Returns the errno to report.
 */
static int exec_in_path(const struct child_args *a)
{
	const char *path = getenv("PATH");
	const char *name = a->opts->argv[0];
	size_t nlen = strlen(name);
	bool denied = false;
	char buf[4096];

	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		const char *end = strchrnul(path, ':');
		size_t dlen = end > path ? (size_t)(end - path) : 1;

		if (dlen + 1 + nlen < sizeof(buf)) {
			memcpy(buf, end > path ? path : ".", dlen);
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, name, nlen + 1);
			execve(buf, a->opts->argv, environ);
			denied |= errno == EACCES;
		}
		if (*end == '\0')
			break;
		path = end + 1;
	}
	return denied ? EACCES : ENOENT;
}

static void child_exec(const struct child_args *a)
{
	int errnum;

	if (a->exec_path == NULL)
		exec_fail(a, exec_in_path(a));
	execve(a->exec_path, a->opts->argv, environ);
	errnum = errno;
	if (errnum == ENOEXEC && a->sh_argv != NULL)
		execve(a->sh_argv[0], a->sh_argv, environ);
	exec_fail(a, errnum);
}

/*
 * The overlays, mounted once the mounts are private (so that none reaches
 * the host), then the working directory entered again: a process keeps the
 * directory it had, the one now hidden underneath the overlay (chdir(2)),
 * and writes through it would reach the host.  Then the tracer hears that
 * the mounts are in place (a second byte on the ready pipe).
 */
static void child_overlays(const struct child_args *a)
{
	const struct lnch_spawn_opts *o = a->opts;
	size_t failed = 0;
	char byte = 0;

	if (lnch_overlay_mount_all(o->overlays, a->ovl_data, o->noverlays, a->ovl_fd_top, &failed) <
	    0)
		child_fail_at(a->err_fd, LNCH_STEP_OVERLAY, failed, errno);
	if (o->read_only && lnch_overlay_rest_read_only(o->overlays, o->noverlays) < 0)
		child_fail(a->err_fd, LNCH_STEP_READ_ONLY, errno);
	if (chdir(o->cwd) < 0)
		child_fail(a->err_fd, LNCH_STEP_CHDIR, errno);
	if (write(a->ready_fd, &byte, 1) != 1)
		child_fail(a->err_fd, LNCH_STEP_SYNC, errno ? errno : EPIPE);
}

/*
 * The program's signal state as the caller asked (struct
 * lnch_spawn_opts): exec(2) would keep an ignored signal ignored and the
 * mask, and reset only handled signals (signal(7)), so the tracer's own
 * handlers and mask must not be what it passes on.  Errors are ignored:
 * sigaction(2) refuses SIGKILL, SIGSTOP and the C library's own
 * real-time signals, which stay as they are.  No allocation: after fork.
 */
static void child_signals(const struct lnch_spawn_opts *o)
{
	struct sigaction sa;

	if (o->sig_ignored != NULL) {
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		for (int sig = 1; sig < NSIG; sig++) {
			sa.sa_handler = sigismember(o->sig_ignored, sig) == 1 ? SIG_IGN : SIG_DFL;
			(void)sigaction(sig, &sa, NULL);
		}
	}
	if (o->sig_blocked != NULL)
		(void)sigprocmask(SIG_SETMASK, o->sig_blocked, NULL);
}

static void child_main(const struct child_args *a)
{
	char byte = 0;

	if (a->ns_flags != 0 && unshare(a->ns_flags) < 0)
		child_fail(a->err_fd, LNCH_STEP_UNSHARE, errno);
	/*
	 * lo up before the tracer hears of the namespaces: it may make fault
	 * endpoints there as soon as the spawn returns (launcher/netfault.h).
	 * unshare(2) gave every capability in a new user namespace, maps or not.
	 */
	if ((a->ns_flags & CLONE_NEWNET) && loopback_up() < 0)
		child_fail(a->err_fd, LNCH_STEP_LOOPBACK, errno);
	if (write(a->ready_fd, &byte, 1) != 1 || read(a->go_fd, &byte, 1) != 1)
		child_fail(a->err_fd, LNCH_STEP_SYNC, errno ? errno : EPIPE);
	close(a->go_fd);
	if (a->ns_flags != 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(a->err_fd, LNCH_STEP_MOUNT_PRIVATE, errno);
	if (a->userns && drop_to_bounding(a) < 0)
		child_fail(a->err_fd, LNCH_STEP_CAPS, errno);
	if (a->opts->noverlays > 0)
		child_overlays(a);
	close(a->ready_fd);
	/* Without CAP_SYS_ADMIN where the filter is installed, seccomp(2) needs no_new_privs. */
	if ((a->nnp || a->opts->no_new_privs) && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(a->err_fd, LNCH_STEP_NO_NEW_PRIVS, errno);
	/* before the filter: no call of the child's own is a stop for the tracer */
	child_signals(a->opts);
	install_filter(a);
	child_exec(a);
}

static int write_proc_file(pid_t pid, const char *name, const char *text, struct repro_err **err)
{
	char path[64];
	cleanup_close int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return repro_err_set(err, errno, "cannot open '%s'", path);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return repro_err_set(err, errno, "cannot write '%s'", path);
	return 0;
}

/* Whether the caller holds capability cap in its effective set (CapEff of proc(5) status). */
static bool has_cap(int cap)
{
	char buf[2048];
	const char *p;

	if (lnch_proc_read(0, "status", buf, sizeof(buf)) <= 0 ||
	    (p = strstr(buf, "\nCapEff:")) == NULL)
		return false;
	return (strtoull(p + 8, NULL, 16) >> cap) & 1;
}

/*
 * The map for a new user namespace that gives every id the caller's own
 * namespace has as itself: "A A N" for each line "A B N" of its
 * /proc/self/uid_map or gid_map (user_namespaces(7)).  Only a writer with
 * CAP_SETUID (CAP_SETGID) in that namespace may write more than its own id.
 * Returns the text length, or -1 when the file is unreadable or too long.
 * Cost: linear in the file (at most 340 lines).
 */
static ssize_t mirror_map(const char *name, char *out, size_t cap)
{
	char buf[16384];
	size_t used = 0;
	char *line, *save = NULL;

	if (lnch_proc_read(0, name, buf, sizeof(buf)) <= 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long in, outside, count;
		int n;

		if (sscanf(line, "%llu %llu %llu", &in, &outside, &count) != 3)
			return -1;
		n = snprintf(out + used, cap - used, "%llu %llu %llu\n", in, in, count);
		if (n < 0 || (size_t)n >= cap - used)
			return -1;
		used += (size_t)n;
	}
	return used > 0 ? (ssize_t)used : -1;
}

/*
 * Identity maps: a caller that may map ids (root of its namespace) maps
 * every id its namespace has, so that it still acts on files of every
 * owner; others map their own uid and gid (with setgroups denied, as the
 * kernel requires of them).
 */
static int write_id_maps(pid_t pid, struct repro_err **err)
{
	char map[16384];
	bool map_uids = has_cap(CAP_SETUID) && mirror_map("uid_map", map, sizeof(map)) > 0;

	if (!map_uids)
		snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	if (write_proc_file(pid, "uid_map", map, err) < 0)
		return -1;
	if (has_cap(CAP_SETGID) && mirror_map("gid_map", map, sizeof(map)) > 0)
		return write_proc_file(pid, "gid_map", map, err);
	if (write_proc_file(pid, "setgroups", "deny\n", err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
	return write_proc_file(pid, "gid_map", map, err);
}

static int read_ptrace_scope(void)
{
	cleanup_free char *text =
		repro_read_file("/proc/sys/kernel/yama/ptrace_scope", 64, NULL, NULL);

	return text ? atoi(text) : -1;
}

static int seize(pid_t pid, struct repro_err **err)
{
	unsigned long o = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			  PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL |
			  PTRACE_O_TRACESYSGOOD;
	int scope, errnum;

	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)o) == 0)
		return 0;
	errnum = errno; /* reading the scope may change errno */
	scope = read_ptrace_scope();
	errno = errnum;
	if (errno == EPERM && scope > 0)
		return repro_err_set(err, EPERM,
				     "cannot trace the program: ptrace is restricted "
				     "(kernel.yama.ptrace_scope=%d)",
				     scope);
	return repro_err_set(err, errno,
			     "cannot trace the program: ptrace(PTRACE_SEIZE) failed "
			     "(a container's seccomp profile may block ptrace)");
}

/*
 * An overlay the kernel refused, named with its errno in the message
 * itself (the cli leaves EINVAL unsaid for its own bad-input errors, but
 * here it is the kernel's answer; the kernel log says more).  In a user
 * namespace overlayfs needs Linux >= 5.11.
 */
static int overlay_failed(const struct child_args *a, const struct lnch_child_err *ce,
			  struct repro_err **err)
{
	const struct lnch_spawn_opts *o = a->opts;
	const char *path = ce->index < o->noverlays ? o->overlays[ce->index].path : "?";
	const char *name = strerrorname_np(ce->errnum);
	bool old_kernel = a->userns &&
			  (ce->errnum == EINVAL || ce->errnum == EPERM || ce->errnum == ENODEV);

	return repro_err_set(err, 0, "cannot mount an overlay on '%s': %s (%s)%s", path,
			     strerror(ce->errnum), name != NULL ? name : "?",
			     old_kernel ? "; in a user namespace overlayfs needs Linux 5.11 or "
					  "later (see dmesg)"
					: "");
}

/* Reads the child's error record when it died before signalling readiness; *step names it. */
static int child_setup_failed(const struct child_args *a, int err_fd, enum lnch_step *step,
			      struct repro_err **err)
{
	struct lnch_child_err ce = { 0 };

	if (read(err_fd, &ce, sizeof(ce)) != (ssize_t)sizeof(ce))
		return repro_err_set(err, EPIPE, "the program's set-up process died");
	*step = (enum lnch_step)ce.step;
	if (ce.step == LNCH_STEP_OVERLAY)
		return overlay_failed(a, &ce, err);
	if (ce.step == LNCH_STEP_CHDIR)
		return repro_err_set(err, ce.errnum, "%s '%s'", lnch_step_name(ce.step),
				     a->opts->cwd);
	if (ce.step == LNCH_STEP_UNSHARE)
		return repro_err_set(err, ce.errnum,
				     "cannot create the sandbox's namespaces (user namespaces are "
				     "disabled here, or repro runs in a chroot or a container that "
				     "forbids them; --sandbox=none records without them)");
	return repro_err_set(err, ce.errnum, "%s", lnch_step_name(ce.step));
}

struct pipes {
	int ready[2], go[2], err[2], notify[2];
};

static void close_pipes(struct pipes *p)
{
	int *fds[] = { p->ready, p->go, p->err, p->notify };

	for (size_t i = 0; i < 4; i++)
		for (int j = 0; j < 2; j++)
			if (fds[i][j] >= 0)
				close(fds[i][j]);
}
#define cleanup_pipes __attribute__((cleanup(close_pipes)))
#define cleanup_prog __attribute__((cleanup(lnch_filter_release)))

static int parent_setup(const struct child_args *a, pid_t pid, struct pipes *p,
			enum lnch_step *step, struct repro_err **err)
{
	char byte;

	if (read(p->ready[0], &byte, 1) != 1)
		return child_setup_failed(a, p->err[0], step, err);
	if (a->userns && write_id_maps(pid, err) < 0) {
		*step = LNCH_STEP_ID_MAP;
		return repro_err_wrap(err, "cannot map user and group ids into the user namespace");
	}
	if (seize(pid, err) < 0)
		return -1;
	if (write(p->go[1], &byte, 1) != 1)
		return repro_err_set(err, errno, "cannot start the program");
	/* with overlays, a refused mount is a set-up error before exec, not a recorded run */
	if (a->opts->noverlays > 0 && read(p->ready[0], &byte, 1) != 1)
		return child_setup_failed(a, p->err[0], step, err);
	return 0;
}

/*
 * Which namespaces to make (enum lnch_sandbox_mode): with CAP_SYS_ADMIN
 * (root, or root of its own user namespace) a mount namespace needs no
 * user namespace, and without one the program keeps every privilege it has
 * outside (CAP_NET_BIND_SERVICE, CAP_NET_RAW in the host's network
 * namespace; set-user-ID programs).  Fills the flags of a and returns the
 * name of the sandbox (static).
 */
static const char *plan_namespaces(bool sandbox, bool net_none, struct child_args *a)
{
	bool admin = has_cap(CAP_SYS_ADMIN);

	a->ns_flags = 0;
	a->userns = false;
	a->nnp = !admin;
	if (!sandbox)
		return "none";
	a->nnp = false;
	a->userns = !admin;
	a->ns_flags = CLONE_NEWNS | (net_none ? CLONE_NEWNET : 0) | (a->userns ? CLONE_NEWUSER : 0);
	if (a->userns)
		return net_none ? "userns+mntns+netns" : "userns+mntns";
	return net_none ? "mntns+netns" : "mntns";
}

/*
 * fork(2) fails with EAGAIN when the user is at RLIMIT_NPROC, which
 * counts every process and thread of the real user id, repro's own with
 * the program's (setrlimit(2)): name the limit, since the program alone
 * would have had room.  (A cgroup's pids.max gives EAGAIN too.)
 */
static int fork_failed(int errnum, struct repro_err **err)
{
	struct rlimit rl;

	if (errnum == EAGAIN && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		return repro_err_set(err, errnum,
				     "cannot start the program: the process limit RLIMIT_NPROC "
				     "(ulimit -u %llu) is reached; repro's own process counts "
				     "against it",
				     (unsigned long long)rl.rlim_cur);
	return repro_err_set(err, errnum, "fork");
}

/* Fork the child of a and set it up; on failure the child is reaped and *step says where. */
static int spawn_once(struct child_args *a, struct lnch_child *child, enum lnch_step *step,
		      struct repro_err **err)
{
	cleanup_pipes struct pipes p = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
	uint64_t t0;
	pid_t pid;

	*step = LNCH_STEP_NONE;
	if (pipe2(p.ready, O_CLOEXEC) < 0 || pipe2(p.go, O_CLOEXEC) < 0 ||
	    pipe2(p.err, O_CLOEXEC) < 0)
		return repro_err_set(err, errno, "pipe2");
	if (a->notify && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p.notify) < 0)
		return repro_err_set(err, errno, "socketpair");
	a->notify_fd = p.notify[1];
	a->ready_fd = p.ready[1];
	a->go_fd = p.go[0];
	a->err_fd = p.err[1];
	t0 = lnch_now_ns();
	pid = fork();
	if (pid < 0)
		return fork_failed(errno, err);
	if (pid == 0)
		child_main(a);
	close(steal_fd(&p.ready[1]));
	close(steal_fd(&p.go[0]));
	close(steal_fd(&p.err[1]));
	if (p.notify[1] >= 0)
		close(steal_fd(&p.notify[1]));
	if (parent_setup(a, pid, &p, step, err) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		return -1;
	}
	child->pid = pid;
	child->err_fd = steal_fd(&p.err[0]);
	child->notify_sock = p.notify[0] >= 0 ? steal_fd(&p.notify[0]) : -1;
	child->t0_ns = t0;
	return 0;
}

/* Whether AUTO may retry without namespaces after this failure: the kernel refused them. */
static bool may_fall_back(const struct lnch_spawn_opts *opts, enum lnch_step step,
			  const struct repro_err *e)
{
	int n = e != NULL ? e->errnum : 0;

	/* never without the overlays: the program's writes would reach the host */
	if (opts->sandbox != LNCH_SANDBOX_AUTO || opts->net_none || opts->noverlays > 0)
		return false;
	if (step != LNCH_STEP_UNSHARE && step != LNCH_STEP_MOUNT_PRIVATE &&
	    step != LNCH_STEP_ID_MAP)
		return false;
	return n == EPERM || n == EINVAL || n == ENOSPC || n == ENOSYS || n == EACCES ||
	       n == EUSERS;
}

/* "/bin/sh", path, argv[1..], NULL (owned, and its strings borrowed): execvp(3)'s ENOEXEC rule. */
static char **shell_argv(const char *path, char *const *argv)
{
	size_t n = 0;
	char **v;

	while (argv[n] != NULL)
		n++;
	v = repro_xcalloc(n + 2, sizeof(char *));
	v[0] = (char *)"/bin/sh";
	v[1] = (char *)path;
	for (size_t i = 1; i < n; i++)
		v[i + 1] = argv[i];
	return v;
}

static void free_strv(char ***v)
{
	for (size_t i = 0; *v != NULL && (*v)[i] != NULL; i++)
		free((*v)[i]);
	free(*v);
}
#define cleanup_strv __attribute__((cleanup(free_strv)))

/*
 * The mount options of each overlay (owned, NULL-terminated), made before
 * fork, with its layers at fds counted down from *fd_top: the highest the
 * file limit allows (at most 65535), far above what the child holds.
 */
static char **overlay_data(const struct lnch_spawn_opts *opts, bool userns, int *fd_top)
{
	char **v = repro_xcalloc(opts->noverlays + 1, sizeof(char *));
	struct rlimit rl;

	*fd_top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur - 1
									    : 65535;
	for (size_t i = 0; i < opts->noverlays; i++)
		v[i] = lnch_overlay_data(&opts->overlays[i], userns,
					 LNCH_OVERLAY_UPPER_FD(*fd_top, i),
					 LNCH_OVERLAY_WORK_FD(*fd_top, i));
	return v;
}

int lnch_child_spawn(const struct lnch_spawn_opts *opts, struct lnch_child *child,
		     struct repro_err **err)
{
	bool not_found;
	cleanup_free char *exec_path = resolve_program(opts->argv[0], &not_found);
	cleanup_free char **sh_argv = exec_path ? shell_argv(exec_path, opts->argv) : NULL;
	cleanup_prog struct sock_fprog prog = { 0 };
	cleanup_strv char **ovl_data = NULL;
	struct repro_err *first = NULL;
	enum lnch_step step;
	struct child_args a = {
		.opts = opts,
		.exec_path = exec_path,
		.sh_argv = sh_argv,
		.prog = &prog,
		.notify = opts->notify,
	};

	if (opts->noverlays > 0 && (opts->sandbox == LNCH_SANDBOX_NONE || opts->cwd == NULL))
		return repro_err_set(err, EINVAL, "overlays need a mount namespace and a cwd");
	if (lnch_filter_build(opts->rules, opts->nrules, opts->notify, &prog, err) < 0)
		return repro_err_wrap(err, "cannot build the seccomp filter");
	a.bounding = read_bounding(&a.cap_last);
	child->sandbox = plan_namespaces(opts->sandbox != LNCH_SANDBOX_NONE, opts->net_none, &a);
	ovl_data = overlay_data(opts, a.userns, &a.ovl_fd_top);
	if (a.ovl_fd_top < 64 + 2 * (int)opts->noverlays)
		return repro_err_set(err, EMFILE,
				     "%zu overlays need more file descriptors than the limit gives "
				     "(ulimit -n %d)",
				     opts->noverlays, a.ovl_fd_top + 1);
	a.ovl_data = ovl_data;
	child->fallback[0] = '\0';
	if (spawn_once(&a, child, &step, &first) < 0) {
		if (!may_fall_back(opts, step, first)) {
			*err = first;
			return -1;
		}
		snprintf(child->fallback, sizeof(child->fallback),
			 "%s (%s): recording without the sandbox (--sandbox=require refuses "
			 "instead)",
			 step == LNCH_STEP_ID_MAP ? "cannot map ids into a user namespace"
						  : "namespaces are not available here",
			 strerror(first->errnum));
		repro_err_free(&first);
		child->sandbox = plan_namespaces(false, false, &a);
		if (spawn_once(&a, child, &step, err) < 0)
			return -1;
	}
	child->not_in_path = not_found;
	child->exec_path = exec_path ? steal_ptr(&exec_path) : repro_xstrdup(opts->argv[0]);
	child->rules = opts->rules;
	child->nrules = opts->nrules;
	return 0;
}

int lnch_child_answer_listener(const struct lnch_child *child, bool has_thread)
{
	char answer = has_thread ? LISTENER_YES : LISTENER_NO;

	if (child->notify_sock < 0)
		return 0;
	return send(child->notify_sock, &answer, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int lnch_child_setup_error(struct lnch_child *child, enum lnch_step *step, int *errnum)
{
	struct lnch_child_err ce;

	if (child->err_fd < 0)
		return 0;
	fcntl(child->err_fd, F_SETFL, O_NONBLOCK);
	if (read(child->err_fd, &ce, sizeof(ce)) != (ssize_t)sizeof(ce))
		return 0;
	*step = (enum lnch_step)ce.step;
	*errnum = ce.errnum;
	return 1;
}

void lnch_child_release(struct lnch_child *child)
{
	if (child->err_fd >= 0)
		close(child->err_fd);
	if (child->notify_sock >= 0)
		close(child->notify_sock);
	child->err_fd = child->notify_sock = -1;
	free(child->exec_path);
	child->exec_path = NULL;
}
