/*
 * Starting the tracee: PATH lookup, fork, namespaces, uid/gid maps, seize,
 * seccomp filter, exec.  The child never allocates after fork; it reports a
 * failing step through a fixed record on an O_CLOEXEC pipe (STYLE.md).
 */
#include "launcher/launcher.h"
#include "launcher/filter.h"
#include "launcher/syscalls.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct lnch_child_err {
	uint32_t step;
	int32_t errnum;
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
	case LNCH_STEP_NONE: break;
	}
	return "set-up";
}

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* PATH lookup as execvp(3) does it, done in the tracer so the tracee does no probing of ours. */
static char *resolve_program(const char *name, struct repro_err **err)
{
	const char *path = getenv("PATH");
	char *found_noexec = NULL;

	if (strchr(name, '/') != NULL) {
		/* a missing program is bad input; one that exists but fails to exec is recorded */
		if (access(name, F_OK) < 0)
			return repro_err_set(err, errno, "cannot execute '%s'", name), NULL;
		return repro_xstrdup(name);
	}
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
	if (found_noexec != NULL)
		return found_noexec; /* let execve report EACCES, and record it */
	return repro_err_set(err, ENOENT, "cannot execute '%s'", name), NULL;
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
	const char *exec_path;
	struct sock_fprog *prog; /* the filter; with SECCOMP_RET_USER_NOTIF when notify */
	bool notify;
	int notify_fd; /* socket to send the listener on, or -1 */
	int ready_fd; /* child writes one byte when its namespaces exist */
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

/*
 * The filter with a notification listener when asked and possible; made
 * ptrace-only when the kernel refuses a listener (EBUSY: an outer filter
 * already has one, as under another supervisor; EINVAL: older than Linux
 * 5.0).  WAIT_KILLABLE_RECV (Linux >= 5.19) keeps signals from interrupting
 * a call the tracer is answering.
 */
static void install_filter(const struct child_args *a)
{
	int listener = -1;

	if (a->notify) {
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

static void child_main(const struct child_args *a)
{
	char byte = 0;
	int flags = CLONE_NEWUSER | CLONE_NEWNS | (a->opts->net_none ? CLONE_NEWNET : 0);

	if (a->opts->sandbox && unshare(flags) < 0)
		child_fail(a->err_fd, LNCH_STEP_UNSHARE, errno);
	if (write(a->ready_fd, &byte, 1) != 1 || read(a->go_fd, &byte, 1) != 1)
		child_fail(a->err_fd, LNCH_STEP_SYNC, errno ? errno : EPIPE);
	close(a->ready_fd);
	close(a->go_fd);
	if (a->opts->sandbox && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(a->err_fd, LNCH_STEP_MOUNT_PRIVATE, errno);
	if (a->opts->sandbox && drop_to_bounding(a) < 0)
		child_fail(a->err_fd, LNCH_STEP_CAPS, errno);
	if (a->opts->sandbox && a->opts->net_none && loopback_up() < 0)
		child_fail(a->err_fd, LNCH_STEP_LOOPBACK, errno);
	/* Inside a user namespace we hold CAP_SYS_ADMIN there, which lets us skip no_new_privs. */
	if (!a->opts->sandbox && geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(a->err_fd, LNCH_STEP_NO_NEW_PRIVS, errno);
	install_filter(a);
	execve(a->exec_path, a->opts->argv, environ);
	child_fail(a->err_fd, LNCH_STEP_EXEC, errno);
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

/* Identity maps: root keeps every id (so it can still act on files of any owner), others their own. */
static int write_id_maps(pid_t pid, struct repro_err **err)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (uid == 0) {
		if (write_proc_file(pid, "uid_map", "0 0 4294967295\n", err) < 0 ||
		    write_proc_file(pid, "gid_map", "0 0 4294967295\n", err) < 0)
			return -1;
		return 0;
	}
	if (write_proc_file(pid, "setgroups", "deny\n", err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (write_proc_file(pid, "uid_map", map, err) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
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

/* Reads the child's error record when it died before signalling readiness. */
static int child_setup_failed(int err_fd, struct repro_err **err)
{
	struct lnch_child_err ce = { 0 };

	if (read(err_fd, &ce, sizeof(ce)) != (ssize_t)sizeof(ce))
		return repro_err_set(err, EPIPE, "the program's set-up process died");
	if (ce.step == LNCH_STEP_UNSHARE)
		return repro_err_set(err, ce.errnum,
				     "cannot create user and mount namespaces (user "
				     "namespaces are disabled here, or repro runs in a chroot; use "
				     "--no-sandbox to record without them)");
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

static int parent_setup(const struct lnch_spawn_opts *opts, pid_t pid, struct pipes *p,
			struct repro_err **err)
{
	char byte;

	if (read(p->ready[0], &byte, 1) != 1)
		return child_setup_failed(p->err[0], err);
	if (opts->sandbox && write_id_maps(pid, err) < 0)
		return repro_err_wrap(err, "cannot map user and group ids into the user namespace");
	if (seize(pid, err) < 0)
		return -1;
	if (write(p->go[1], &byte, 1) != 1)
		return repro_err_set(err, errno, "cannot start the program");
	return 0;
}

int lnch_child_spawn(const struct lnch_spawn_opts *opts, struct lnch_child *child,
		     struct repro_err **err)
{
	cleanup_free char *exec_path = resolve_program(opts->argv[0], err);
	cleanup_prog struct sock_fprog prog = { 0 };
	cleanup_pipes struct pipes p = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
	uint64_t t0, bounding;
	int cap_last;
	pid_t pid;

	if (exec_path == NULL)
		return -1;
	if (lnch_filter_build(opts->rules, opts->nrules, opts->notify, &prog, err) < 0)
		return repro_err_wrap(err, "cannot build the seccomp filter");
	if (pipe2(p.ready, O_CLOEXEC) < 0 || pipe2(p.go, O_CLOEXEC) < 0 ||
	    pipe2(p.err, O_CLOEXEC) < 0)
		return repro_err_set(err, errno, "pipe2");
	if (opts->notify && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p.notify) < 0)
		return repro_err_set(err, errno, "socketpair");
	bounding = read_bounding(&cap_last);
	t0 = lnch_now_ns();
	pid = fork();
	if (pid < 0)
		return repro_err_set(err, errno, "fork");
	if (pid == 0) {
		struct child_args a = {
			.opts = opts,
			.exec_path = exec_path,
			.prog = &prog,
			.notify = opts->notify,
			.notify_fd = p.notify[1],
			.ready_fd = p.ready[1],
			.go_fd = p.go[0],
			.err_fd = p.err[1],
			.bounding = bounding,
			.cap_last = cap_last,
		};

		child_main(&a);
	}
	close(steal_fd(&p.ready[1]));
	close(steal_fd(&p.go[0]));
	close(steal_fd(&p.err[1]));
	if (p.notify[1] >= 0)
		close(steal_fd(&p.notify[1]));
	if (parent_setup(opts, pid, &p, err) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		return -1;
	}
	child->pid = pid;
	child->err_fd = steal_fd(&p.err[0]);
	child->notify_sock = p.notify[0] >= 0 ? steal_fd(&p.notify[0]) : -1;
	child->exec_path = steal_ptr(&exec_path);
	child->t0_ns = t0;
	return 0;
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
