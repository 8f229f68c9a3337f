/*
 * Long waits in blocking calls, found by sampling /proc/TID/syscall of quiet
 * tasks (launcher/waits.h; proc(5) "/proc/[pid]/syscall": the number and
 * six arguments of the call a blocked task is in, "-1 …" when it is not in
 * one, "running" when it runs).
 */
#include "launcher/waits.h"
#include "common/sysent.h"
#include "launcher/arch/arch.h"
#include "launcher/loop_internal.h"
#include "launcher/mem.h"
#include "launcher/syscalls.h"
#include "launcher/taint.h"
#include "launcher/tasks.h"
#include "launcher/wait_pipes.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a blocking row's arguments say it waits on. */
static enum lnch_wait_kind kind_of(enum repro_sys_wait w)
{
	switch (w) {
	case REPRO_WAIT_CONNECT: return LNCH_WAITK_CONNECT;
	case REPRO_WAIT_FCNTL: return LNCH_WAITK_FCNTL;
	case REPRO_WAIT_POLL: return LNCH_WAITK_POLL;
	case REPRO_WAIT_SELECT: return LNCH_WAITK_SELECT;
	case REPRO_WAIT_EPOLL: return LNCH_WAITK_EPOLL;
	case REPRO_WAIT_WAIT4: return LNCH_WAITK_WAIT4;
	case REPRO_WAIT_WAITID: return LNCH_WAITK_WAITID;
	case REPRO_WAIT_SLEEP: return LNCH_WAITK_SLEEP;
	case REPRO_WAIT_NONE:
	case REPRO_WAIT_ACCEPT:
	case REPRO_WAIT_READ:
	case REPRO_WAIT_LOCK: return LNCH_WAITK_FD;
	}
	return LNCH_WAITK_FD;
}

void lnch_wait_calls_init(struct lnch_wait_calls *c)
{
	size_t n;
	const struct repro_sysent *t = repro_sysent_all(&n);

	c->n = 0;
	for (size_t i = 0; i < n && c->n < LNCH_WAIT_CALLS_MAX; i++) {
		int nr;

		if (t[i].wait == REPRO_WAIT_NONE ||
		    (nr = seccomp_syscall_resolve_name(t[i].name)) < 0)
			continue;
		c->nr[c->n] = nr;
		c->kind[c->n] = kind_of(t[i].wait);
		c->name[c->n++] = t[i].name;
	}
}

/* The table index of native call nr, or -1 when it is not a blocking call. */
static int call_index(const struct lnch_wait_calls *c, int nr)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->nr[i] == nr)
			return (int)i;
	return -1;
}

/* fcntl(2) lock waits: F_SETLKW, F_OFD_SETLKW. */
static bool is_lock_wait(uint64_t cmd)
{
	return cmd == F_SETLKW || cmd == F_OFD_SETLKW;
}

/*
 * Parse /proc/TID/syscall: 1 and *nr, args when the task is blocked in a
 * call, 0 when it runs or is not in a call, -1 when unreadable (gone).
 */
static int read_proc_syscall(pid_t tid, int *nr, uint64_t args[6])
{
	char buf[256], *p, *end;
	long n;

	if (lnch_proc_read(tid, "syscall", buf, sizeof(buf)) <= 0)
		return -1;
	n = strtol(buf, &end, 10);
	if (end == buf || n < 0)
		return 0;
	p = end;
	for (int i = 0; i < 6; i++) {
		args[i] = strtoull(p, &end, 16);
		if (end == p)
			return 0;
		p = end;
	}
	*nr = (int)n;
	return 1;
}

/* A socket's endpoints through a copy of the program's fd (pidfd_getfd(2)). */
static void describe_socket(int pidfd, struct lnch_wait_fd *f)
{
	cleanup_close int fd = pidfd >= 0 ? lnch_sys_pidfd_getfd(pidfd, f->fd) : -1;
	socklen_t len = sizeof(f->local);

	if (fd < 0)
		return;
	if (getsockname(fd, (struct sockaddr *)f->local, &len) == 0 && len <= sizeof(f->local))
		f->local_len = len;
	len = sizeof(f->peer);
	if (getpeername(fd, (struct sockaddr *)f->peer, &len) == 0 && len <= sizeof(f->peer))
		f->peer_len = len;
}

static void describe_fd(pid_t pid, int *pidfd, struct lnch_wait_fd *f, int fd)
{
	char path[64];
	ssize_t n;

	f->fd = fd;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	n = readlink(path, f->link, sizeof(f->link) - 1);
	f->link[n > 0 ? n : 0] = '\0';
	if (strncmp(f->link, "socket:", 7) != 0)
		return;
	if (*pidfd == -2)
		*pidfd = lnch_sys_pidfd_open(pid);
	describe_socket(*pidfd, f);
}

/* The fds a poll(2)/ppoll(2) waits on: the first LNCH_WAIT_FDS of its array. */
static void fds_of_poll(struct lnch_wait *w, int *out, size_t *n)
{
	struct pollfd p[LNCH_WAIT_FDS];
	size_t want = w->args[1] < LNCH_WAIT_FDS ? (size_t)w->args[1] : LNCH_WAIT_FDS;

	w->nfds = (uint32_t)(w->args[1] > UINT32_MAX ? UINT32_MAX : w->args[1]);
	if (want == 0 || lnch_mem_read(w->tid, w->args[0], p, want * sizeof(p[0])) < 0)
		return;
	for (size_t i = 0; i < want; i++)
		out[(*n)++] = p[i].fd;
}

/* select(2)/pselect6: the set bits of readfds, then writefds (nfds capped at FD_SETSIZE). */
static void fds_of_select(struct lnch_wait *w, int *out, size_t *n)
{
	size_t nfds = w->args[0] < FD_SETSIZE ? (size_t)w->args[0] : FD_SETSIZE;

	for (int set = 1; set <= 2; set++) {
		fd_set fs;

		if (w->args[set] == 0 || nfds == 0 ||
		    lnch_mem_read(w->tid, w->args[set], &fs, (nfds + 7) / 8) < 0)
			continue;
		for (size_t fd = 0; fd < nfds; fd++) {
			if (!FD_ISSET((int)fd, &fs))
				continue;
			w->nfds++;
			if (*n < LNCH_WAIT_FDS)
				out[(*n)++] = (int)fd;
		}
	}
}

/* epoll_wait(2): the fds registered in the epoll instance ("tfd:" lines of its fdinfo, proc(5)). */
static void fds_of_epoll(struct lnch_wait *w, int *out, size_t *n)
{
	char name[64], buf[4096];
	const char *p = buf;

	snprintf(name, sizeof(name), "fdinfo/%d", (int)w->args[0]);
	if (lnch_proc_read(w->pid, name, buf, sizeof(buf)) <= 0)
		return;
	while ((p = strstr(p, "tfd:")) != NULL) {
		p += 4;
		w->nfds++;
		if (*n < LNCH_WAIT_FDS)
			out[(*n)++] = atoi(p);
	}
}

/* What the call of w waits on: its fds (a pipe's other end among tasks), connect's address, the child. */
static void describe(struct lnch_wait *w, enum lnch_wait_kind kind, const struct lnch_tasks *tasks)
{
	int fds[LNCH_WAIT_FDS], pidfd = -2;
	size_t n = 0;

	switch (kind) {
	case LNCH_WAITK_CONNECT:
		w->addr_len = w->args[2] < sizeof(w->addr) ? (uint32_t)w->args[2] : sizeof(w->addr);
		if (lnch_mem_read(w->tid, w->args[1], w->addr, w->addr_len) < 0)
			w->addr_len = 0;
		/* fall through */
	case LNCH_WAITK_FD:
	case LNCH_WAITK_FCNTL:
		fds[n++] = (int)w->args[0];
		w->nfds = 1;
		break;
	case LNCH_WAITK_POLL: fds_of_poll(w, fds, &n); break;
	case LNCH_WAITK_SELECT: fds_of_select(w, fds, &n); break;
	case LNCH_WAITK_EPOLL: fds_of_epoll(w, fds, &n); break;
	case LNCH_WAITK_WAIT4: w->child = (pid_t)w->args[0] > 0 ? (pid_t)w->args[0] : -1; break;
	case LNCH_WAITK_WAITID: w->child = w->args[0] == P_PID ? (pid_t)w->args[1] : -1; break;
	case LNCH_WAITK_SLEEP: break;
	}
	for (size_t i = 0; i < n; i++) {
		describe_fd(w->pid, &pidfd, &w->fds[i], fds[i]);
		lnch_wait_pipe_ends(tasks, w->pid, &w->fds[i]);
	}
	if (pidfd >= 0)
		close(pidfd);
	if (lnch_proc_read(w->tid, "wchan", w->wchan, sizeof(w->wchan)) <= 0 ||
	    strcmp(w->wchan, "0") == 0)
		w->wchan[0] = '\0';
}

/* Open a wait of task in call (table index ci) with args, started at start_ns. */
static void open_wait(struct lnch_loop *loop, struct lnch_task *task, int ci, int nr,
		      const uint64_t args[6], uint64_t start_ns)
{
	struct lnch_wait *w = repro_xcalloc(1, sizeof(*w));

	w->tid = task->tid;
	w->pid = task->pid;
	w->nr = nr;
	w->name = loop->wait_calls.name[ci];
	memcpy(w->args, args, sizeof(w->args));
	w->start_ns = start_ns;
	w->start_exact = task->last_entry_nr == nr && task->seen_out_ns <= task->last_stop_ns;
	describe(w, loop->wait_calls.kind[ci], &loop->tasks);
	/* a connect sent to a fault endpoint waits on the address the program asked for, not on it */
	if (loop->wait_calls.kind[ci] == LNCH_WAITK_CONNECT && task->redirect_len != 0) {
		w->addr_len = task->redirect_len < sizeof(w->addr) ? (uint32_t)task->redirect_len
								   : sizeof(w->addr);
		if (lnch_mem_read(w->tid, task->redirect_addr, w->addr, w->addr_len) < 0)
			w->addr_len = 0;
	}
	task->wait = w;
}

/* End task's wait at now_ns; observers get it when it matters (waits.h). */
static void close_wait(struct lnch_loop *loop, struct lnch_task *task, uint64_t now_ns,
		       enum lnch_wait_end end, int status)
{
	struct lnch_wait *w = task->wait;

	if (w == NULL)
		return;
	task->wait = NULL;
	if (task->wait_gone_ns != 0 && task->wait_gone_ns < now_ns)
		now_ns = task->wait_gone_ns;
	task->wait_gone_ns = 0;
	w->dur_ns = now_ns > w->start_ns ? now_ns - w->start_ns : 0;
	w->end = end;
	w->status = status;
	if (w->dur_ns >= LNCH_WAIT_LONG_NS || w->at_stop || end != LNCH_WAIT_RETURNED)
		for (size_t i = 0; i < loop->nobs; i++)
			if (loop->obs[i].ops->on_wait != NULL)
				loop->obs[i].ops->on_wait(loop->obs[i].ctx, w);
	free(w);
}

/*
 * Whether tid is in a ptrace stop the loop has not reaped yet (state "t" of
 * /proc/TID/stat, proc(5)): what /proc/TID/syscall says then is not the wait.
 */
static bool in_ptrace_stop(pid_t tid)
{
	char buf[512];
	const char *p;

	if (lnch_proc_read(tid, "stat", buf, sizeof(buf)) <= 0 || (p = strrchr(buf, ')')) == NULL)
		return false;
	return p[1] == ' ' && (p[2] == 't' || p[2] == 'T');
}

/* Sample one task at now_ns: open its wait, end it, or note it was out of any. */
static void sample_task(struct lnch_loop *loop, struct lnch_task *task, uint64_t now_ns)
{
	uint64_t args[6];
	int nr = -1, rc = read_proc_syscall(task->tid, &nr, args);
	int ci = rc == 1 ? call_index(&loop->wait_calls, nr) : -1;

	if (ci >= 0 && loop->wait_calls.kind[ci] == LNCH_WAITK_FCNTL && !is_lock_wait(args[1]))
		ci = -1;
	if (task->wait != NULL) {
		if ((rc == 1 && nr == task->wait->nr &&
		     memcmp(args, task->wait->args, sizeof(args)) == 0) ||
		    in_ptrace_stop(task->tid))
			return; /* still in it, or stopped: the stop will end it */
		/*
		 * Out of it, or on its way to a stop (a signal, the call's exit):
		 * ended when first seen out, by the next stop or the next tick
		 */
		if (task->wait_gone_ns == 0) {
			task->wait_gone_ns = now_ns;
			return;
		}
		close_wait(loop, task, task->wait_gone_ns, LNCH_WAIT_RETURNED, 0);
	}
	if (ci < 0) {
		task->seen_out_ns = now_ns;
		return;
	}
	open_wait(loop, task, ci, nr, args,
		  task->seen_out_ns > task->last_stop_ns ? task->seen_out_ns : task->last_stop_ns);
}

void lnch_waits_sample(struct lnch_loop *loop)
{
	uint64_t now = lnch_loop_since_start(loop);

	for (size_t i = 0; i < loop->tasks.n; i++) {
		struct lnch_task *t = &loop->tasks.v[i];

		if (t->tid > 0 && now - t->last_stop_ns >= LNCH_WAIT_QUIET_NS)
			sample_task(loop, t, now);
	}
}

void lnch_waits_stop_requested(struct lnch_loop *loop)
{
	uint64_t now = lnch_loop_since_start(loop);

	for (size_t i = 0; i < loop->tasks.n; i++) {
		struct lnch_task *t = &loop->tasks.v[i];

		if (t->tid <= 0)
			continue;
		if (t->wait == NULL)
			sample_task(loop, t, now);
		if (t->wait != NULL && !t->wait->at_stop) {
			t->wait->at_stop = true;
			t->wait->stop_ns = now;
		}
	}
}

static bool is_stop_request_signal(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

/* At a signal-delivery-stop of a stop-request signal: the call it took the task out of. */
static void wait_from_signal(struct lnch_loop *loop, struct lnch_task *task)
{
	uint64_t args[6];
	int nr = -1, ci;

	if (lnch_arch_interrupted_call(task->tid, &nr, args) != 1)
		return;
	ci = call_index(&loop->wait_calls, nr);
	if (ci < 0 || (loop->wait_calls.kind[ci] == LNCH_WAITK_FCNTL && !is_lock_wait(args[1])))
		return;
	open_wait(loop, task, ci, nr, args,
		  task->seen_out_ns > task->last_stop_ns ? task->seen_out_ns : task->last_stop_ns);
}

void lnch_waits_on_stop(struct lnch_loop *loop, struct lnch_task *task, int status)
{
	uint64_t now = lnch_loop_since_start(loop);
	int sig = WSTOPSIG(status), event = (unsigned)status >> 16;
	bool is_signal = event == 0 && sig != (SIGTRAP | 0x80) && sig != SIGTRAP;

	if (is_signal && task->wait == NULL && is_stop_request_signal(sig))
		wait_from_signal(loop, task);
	if (task->wait != NULL && sig == (SIGTRAP | 0x80)) {
		struct __ptrace_syscall_info si;

		if (ptrace(PTRACE_GET_SYSCALL_INFO, task->tid, (void *)sizeof(si), &si) > 0 &&
		    si.op == PTRACE_SYSCALL_INFO_EXIT) {
			/*
			 * -ERESTARTSYS … (include/linux/errno.h): a signal took it out of
			 * the call; the signal-delivery-stop that follows ends the wait
			 */
			if (si.exit.rval <= -512 && si.exit.rval >= -516) {
				task->last_stop_ns = now;
				return;
			}
			task->wait->has_ret = true;
			task->wait->ret = si.exit.rval;
		}
	}
	if (task->wait != NULL)
		close_wait(loop, task, now, is_signal ? LNCH_WAIT_SIGNALED : LNCH_WAIT_RETURNED,
			   is_signal ? sig : 0);
	task->last_stop_ns = now;
	task->last_entry_nr = -1;
}

void lnch_waits_end(struct lnch_loop *loop, struct lnch_task *task, enum lnch_wait_end end,
		    int status)
{
	close_wait(loop, task, lnch_loop_since_start(loop), end, status);
}
