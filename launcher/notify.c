/*
 * The seccomp user-notification thread (seccomp_unotify(2)).  Path-only calls
 * of the native ABI reach the tracer here instead of as two ptrace stops:
 * the thread tells policies and observers of the entry, performs the call on
 * the tracee's behalf (launcher/behalf.h) and sends the result back, one
 * round trip.  Calls it cannot answer exactly are let through to the kernel
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE) and recorded without their result,
 * except those of a task traced by stops (struct lnch_task.full): the loop
 * takes their result at the syscall-exit stop.
 */
#include "launcher/loop_internal.h"
#include "launcher/syscalls.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The signal that takes the thread out of a blocking recvmsg or RECV at the end. */
#define WAKE_SIG SIGRTMIN

static void on_wake(int sig)
{
	(void)sig; /* only interrupts: the thread then sees nt->stop */
}

/* The listener the child sent over the socket (SCM_RIGHTS), or -1 when it sent none. */
static int recv_listener(const struct lnch_notifier *nt)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { .iov_base = &data, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	do
		n = recvmsg(nt->sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR && !atomic_load(&nt->stop));
	if (n <= 0)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

struct pending {
	int listener;
	uint64_t id;
};

static bool id_valid(void *cookie)
{
	struct pending *p = cookie;

	return ioctl(p->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &p->id) == 0;
}

/*
 * Entry: look the task up, ask policies and observers.  Returns what
 * observers want.  *changed: the task changed credentials, root or mounts
 * (repro may not act for it); *by_stops: it is traced by stops, and the
 * loop reports the exit of this call (unless a policy imposed its result).
 */
static unsigned tell_entry(struct lnch_loop *loop, const struct seccomp_notif *req,
			   const struct lnch_behalf_path *path, struct lnch_stop *st,
			   struct lnch_verdict *v, bool *imposed, bool *changed, bool *by_stops)
{
	struct lnch_task *task;
	struct lnch_call call;
	unsigned want = 0;

	pthread_mutex_lock(&loop->mu);
	task = lnch_tasks_get(&loop->tasks, (pid_t)req->pid);
	memset(st, 0, sizeof(*st));
	st->tid = (pid_t)req->pid;
	st->pid = task != NULL ? task->pid : lnch_read_tgid(st->tid);
	st->is_entry = true;
	st->arch = req->data.arch;
	st->nr = req->data.nr;
	memcpy(st->args, req->data.args, sizeof(st->args));
	st->t_ns = lnch_loop_since_start(loop);
	if (path->argi >= 0 && path->rc == 0) {
		st->path = path->text;
		st->path_argi = path->argi;
	}
	*changed = loop->mounts_changed ||
		   (task != NULL ? task->creds_changed : loop->any_creds_changed);
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_entry != NULL)
			want |= loop->obs[i].ops->on_entry(loop->obs[i].ctx, st);
	memset(v, 0, sizeof(*v));
	/* path lookups answered here: no policy needs their result (on_exit is the ptrace path's) */
	*imposed = loop->npol > 0 && lnch_loop_ask_policies(loop, st, &call, v) &&
		   lnch_verdict_skips(v);
	/* resumed with PTRACE_SYSCALL: its exit stop comes once the kernel has run the call */
	*by_stops = task != NULL && task->full && !*imposed;
	if (task != NULL && task->full) {
		task->stop_seen = true;
		task->notified = true;
		task->in_syscall = *by_stops && (want & LNCH_WANT_EXIT);
	}
	pthread_mutex_unlock(&loop->mu);
	return want;
}

static void tell_exit(struct lnch_loop *loop, struct lnch_stop *st)
{
	pthread_mutex_lock(&loop->mu);
	st->is_entry = false;
	st->path = NULL;
	st->t_ns = lnch_loop_since_start(loop);
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_exit != NULL)
			loop->obs[i].ops->on_exit(loop->obs[i].ctx, st);
	pthread_mutex_unlock(&loop->mu);
}

/* An answer a policy's delay holds back (struct lnch_notifier.delayed). */
struct lnch_delayed {
	uint64_t due_ns; /* CLOCK_MONOTONIC */
	struct seccomp_notif_resp *resp; /* owned, nt->resp_size bytes */
	struct lnch_stop st; /* the exit to tell observers, when tell_exit */
	bool tell_exit;
};

/* Tell observers of the exit (when they asked) and send the answer. */
static void send_answer(struct lnch_notifier *nt, int listener, struct lnch_stop *st, bool tell,
			struct seccomp_notif_resp *resp)
{
	/* before the answer: once answered, the tracee's next call may be recorded */
	if (tell)
		tell_exit(nt->loop, st);
	/* ENOENT: the tracee was killed, or a signal took it out of the call (seccomp_unotify(2)) */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

/* Hold an answer back until delay_ns from now; only this tracee waits. O(1) amortised. */
static void delay_answer(struct lnch_notifier *nt, const struct lnch_stop *st, bool tell,
			 const struct seccomp_notif_resp *resp, uint64_t delay_ns)
{
	struct lnch_delayed *d;

	if (nt->ndelayed == nt->delayed_cap) {
		nt->delayed_cap = nt->delayed_cap ? nt->delayed_cap * 2 : 8;
		nt->delayed =
			repro_xreallocarray(nt->delayed, nt->delayed_cap, sizeof(*nt->delayed));
	}
	d = &nt->delayed[nt->ndelayed++];
	d->due_ns = lnch_now_ns() + delay_ns;
	d->resp = repro_xmalloc(nt->resp_size);
	memcpy(d->resp, resp, nt->resp_size);
	d->st = *st;
	d->st.path = NULL;
	d->tell_exit = tell;
}

/*
 * Send the held-back answers that are due; returns the ms until the next
 * one (for poll(2)), -1 when none is left.  Linear in the held answers.
 */
static int send_due(struct lnch_notifier *nt, int listener)
{
	uint64_t now = atomic_exchange(&nt->flush, false) ? UINT64_MAX : lnch_now_ns(), next = 0;
	/* a signal for a held tracee ends its delay, as it would interrupt a slow call (hold.h) */
	bool look = nt->ndelayed > 0 &&
		    lnch_now_ns() - nt->sig_checked_ns >= LNCH_HOLD_SIG_CHECK_NS;

	if (look)
		nt->sig_checked_ns = lnch_now_ns();
	for (size_t i = 0; i < nt->ndelayed;) {
		struct lnch_delayed *d = &nt->delayed[i];

		if (d->due_ns > now && !(look && lnch_signal_pending(d->st.tid))) {
			next = next == 0 || d->due_ns < next ? d->due_ns : next;
			i++;
			continue;
		}
		send_answer(nt, listener, &d->st, d->tell_exit, d->resp);
		free(d->resp);
		*d = nt->delayed[--nt->ndelayed];
	}
	if (next == 0)
		return -1;
	/* a flush whose wake-up came just before poll(2) waits no longer than this */
	return next - now >= LNCH_NOTIFY_FLUSH_MS * 1000000ull
		       ? LNCH_NOTIFY_FLUSH_MS
		       : (int)((next - now + 999999) / 1000000);
}

static void answer(struct lnch_notifier *nt, int listener, const struct seccomp_notif *req,
		   struct seccomp_notif_resp *resp)
{
	struct pending p = { listener, req->id };
	struct lnch_verdict v = { 0 };
	struct lnch_stop st;
	bool imposed, changed, by_stops;
	unsigned want;
	int64_t ret = 0;
	enum lnch_behalf_outcome done = LNCH_BEHALF_KERNEL;

	lnch_behalf_read_path((pid_t)req->pid, req->data.nr, (const uint64_t *)req->data.args,
			      &nt->path);
	want = tell_entry(nt->loop, req, &nt->path, &st, &v, &imposed, &changed, &by_stops);

	if (imposed) {
		ret = v.errnum != 0 ? -(int64_t)v.errnum : v.retval;
		st.injected = true;
		st.inject_origin = v.origin;
		done = LNCH_BEHALF_DONE;
	} else if (!changed && !by_stops) {
		done = lnch_behalf_perform(&nt->behalf, st.tid, st.pid, st.nr, st.args, &nt->path,
					   id_valid, &p, &ret);
	}
	resp->id = req->id;
	if (done == LNCH_BEHALF_DONE) {
		resp->error = ret < 0 ? (int32_t)ret : 0;
		resp->val = ret < 0 ? 0 : ret;
	} else {
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		st.result_unseen = !by_stops;
		st.unseen_reason = changed	       ? LNCH_UNSEEN_CREDENTIALS
				   : nt->path.argi < 0 ? LNCH_UNSEEN_ENTRY_ONLY
						       : LNCH_UNSEEN_KERNEL_WALK;
	}
	st.ret = ret;
	/* both delays come before the answer: a call answered on its behalf has run already */
	if (v.delay_enter_ns + v.delay_exit_ns > 0)
		delay_answer(nt, &st, (want & LNCH_WANT_EXIT) && !by_stops, resp,
			     v.delay_enter_ns + v.delay_exit_ns);
	else
		send_answer(nt, listener, &st, (want & LNCH_WANT_EXIT) && !by_stops, resp);
}

/*
 * No task uses the filter any more (every tracee is gone): the listener
 * polls POLLHUP (seccomp_unotify(2)), and RECV fails with ENOENT without
 * waiting.  A call withdrawn by a dying tracee also gives ENOENT; then the
 * listener does not hang up.
 */
static bool orphaned(int listener)
{
	struct pollfd p = { .fd = listener, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP) && !(p.revents & POLLIN);
}

static void serve(struct lnch_notifier *nt, int listener)
{
	struct seccomp_notif_sizes sizes = { 0 };
	cleanup_free struct seccomp_notif *req = NULL;
	cleanup_free struct seccomp_notif_resp *resp = NULL;
	size_t req_size, resp_size;
	uint64_t sync = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

	if (lnch_sys_seccomp(SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return;
	req_size = sizes.seccomp_notif > sizeof(*req) ? sizes.seccomp_notif : sizeof(*req);
	resp_size = sizes.seccomp_notif_resp > sizeof(*resp) ? sizes.seccomp_notif_resp
							     : sizeof(*resp);
	req = repro_xcalloc(1, req_size);
	resp = repro_xcalloc(1, resp_size);
	/* Linux >= 6.6: wake this thread on the tracee's CPU, as a ptrace stop would not */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, sync);
	nt->resp_size = resp_size;
	while (!atomic_load(&nt->stop)) {
		struct pollfd pfd = { .fd = listener, .events = POLLIN };
		int wait_ms = send_due(nt, listener);

		/* a held-back answer is due before the next notification comes */
		if (wait_ms >= 0 && poll(&pfd, 1, wait_ms) <= 0)
			continue;
		memset(req, 0, req_size);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == ENOENT && orphaned(listener))
				break; /* RECV would fail at once from now on: do not spin */
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		memset(resp, 0, resp_size);
		answer(nt, listener, req, resp);
	}
}

static void *notifier_main(void *arg)
{
	struct lnch_notifier *nt = arg;
	sigset_t wake;
	int listener;

	sigemptyset(&wake);
	sigaddset(&wake, WAKE_SIG);
	pthread_sigmask(SIG_UNBLOCK, &wake, NULL);
	listener = recv_listener(nt);

	if (listener >= 0) {
		serve(nt, listener);
		close(listener);
	}
	return NULL;
}

int lnch_notifier_start(struct lnch_notifier *nt, struct lnch_loop *loop, int sock)
{
	struct sigaction sa = { .sa_handler = on_wake }; /* no SA_RESTART: calls end in EINTR */
	sigset_t all, old;
	int rc;

	memset(nt, 0, sizeof(*nt));
	nt->loop = loop;
	nt->sock = sock;
	atomic_init(&nt->stop, false);
	atomic_init(&nt->flush, false);
	if (sock < 0)
		return 0;
	lnch_behalf_init(&nt->behalf);
	sigemptyset(&sa.sa_mask);
	if (sigaction(WAKE_SIG, &sa, NULL) < 0)
		return -1;
	/* the thread takes no signal but WAKE_SIG: the loop's waitpid must see every EINTR */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&nt->thread, NULL, notifier_main, nt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return errno = rc, -1;
	nt->running = true;
	return 0;
}

void lnch_notifier_flush(struct lnch_notifier *nt)
{
	if (!nt->running)
		return;
	atomic_store(&nt->flush, true);
	pthread_kill(nt->thread, WAKE_SIG);
}

void lnch_notifier_stop(struct lnch_notifier *nt)
{
	struct timespec deadline;

	if (!nt->running)
		return;
	atomic_store(&nt->stop, true);
	/* a signal sent just before the thread blocks is lost: send again until it is out */
	do {
		pthread_kill(nt->thread, WAKE_SIG);
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += 1000 * 1000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
	} while (pthread_timedjoin_np(nt->thread, NULL, &deadline) == ETIMEDOUT);
	nt->running = false;
	for (size_t i = 0; i < nt->ndelayed; i++)
		free(nt->delayed[i].resp); /* their tracees are gone */
	free(nt->delayed);
	nt->delayed = NULL;
	nt->ndelayed = nt->delayed_cap = 0;
}
