/*
 * The ptrace loop (ptrace(2): "Stopped states", "execve(2) under ptrace",
 * "Group-stop"; seccomp(2): SECCOMP_RET_TRACE).  Every traced syscall stops
 * once at entry (seccomp stop); the loop asks policies and observers, and
 * stops again at exit only when one of them wants the result.
 */
#include "launcher/loop_internal.h"
#include "launcher/arch/arch.h"
#include "launcher/mem.h"
#include "launcher/syscalls.h"
#include "launcher/tasks.h"
#include "launcher/waits.h"
#include "common/xalloc.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct lnch_loop *lnch_loop_new(const struct lnch_child *child, bool wait_all,
				bool (*should_stop)(void *ctx), void *stop_ctx)
{
	struct lnch_loop *loop = repro_xcalloc(1, sizeof(*loop));

	loop->child = child;
	loop->wait_all = wait_all;
	loop->should_stop = should_stop;
	loop->stop_ctx = stop_ctx;
	lnch_tasks_init(&loop->tasks);
	lnch_holds_init(&loop->holds);
	lnch_netfault_init(&loop->netfault);
	lnch_taint_table_init(&loop->taint);
	lnch_filter_view_init(&loop->view, child->rules, child->nrules, child->notify_sock >= 0);
	loop->check_exec_creds = lnch_taint_exec_may_change();
	lnch_taint_creds_text(0, loop->creds, sizeof(loop->creds));
	lnch_wait_calls_init(&loop->wait_calls);
	pthread_mutex_init(&loop->mu, NULL);
	return loop;
}

void lnch_loop_set_waiting_notice(struct lnch_loop *loop, uint64_t after_ns,
				  void (*fn)(void *ctx, const pid_t *pids, size_t shown, size_t n),
				  void *ctx)
{
	loop->notice_after_ns = after_ns;
	loop->notice = fn;
	loop->notice_ctx = ctx;
}

void lnch_loop_set_time_limit(struct lnch_loop *loop, uint64_t limit_ns)
{
	loop->time_limit_ns = limit_ns;
}

/* The first process has ended a while ago and others run on: say so once (--wait=all). */
static void maybe_notice(struct lnch_loop *loop)
{
	pid_t pids[16];
	size_t shown = 0, n = 0;

	if (loop->notice == NULL || loop->noticed || !loop->res.main_seen || loop->stopping ||
	    loop->tasks.count == 0 ||
	    lnch_loop_since_start(loop) < loop->main_end_ns + loop->notice_after_ns)
		return;
	loop->noticed = true;
	for (size_t i = 0; i < loop->tasks.n; i++) {
		const struct lnch_task *t = &loop->tasks.v[i];

		if (t->tid <= 0 || t->tid != t->pid)
			continue;
		if (shown < sizeof(pids) / sizeof(pids[0]))
			pids[shown++] = t->pid;
		n++;
	}
	if (n > 0)
		loop->notice(loop->notice_ctx, pids, shown, n);
}

void lnch_loop_add_observer(struct lnch_loop *loop, const struct lnch_observer_ops *ops, void *ctx)
{
	if (loop->nobs < MAX_HOOKS) {
		loop->obs[loop->nobs].ops = ops;
		loop->obs[loop->nobs++].ctx = ctx;
	}
}

void lnch_loop_add_policy(struct lnch_loop *loop, const struct lnch_policy_ops *ops, void *ctx)
{
	if (loop->npol < MAX_HOOKS) {
		loop->pol[loop->npol].ops = ops;
		loop->pol[loop->npol++].ctx = ctx;
	}
}

void lnch_loop_free(struct lnch_loop *loop)
{
	if (loop == NULL)
		return;
	for (size_t i = 0; i < loop->tasks.n; i++)
		if (loop->tasks.v[i].tid > 0)
			free(loop->tasks.v[i].wait);
	lnch_tasks_release(&loop->tasks);
	free(loop->gone_early);
	lnch_holds_release(&loop->holds);
	lnch_netfault_release(&loop->netfault);
	lnch_filter_view_release(&loop->view);
	pthread_mutex_destroy(&loop->mu);
	free(loop);
}

uint64_t lnch_loop_since_start(const struct lnch_loop *loop)
{
	return lnch_now_ns() - loop->child->t0_ns;
}

/* The number after KEY ("\nTgid:") in /proc/TID/status, or fallback. */
static pid_t status_pid(pid_t tid, const char *key, pid_t fallback)
{
	char buf[1024];
	char *p;

	if (lnch_proc_read(tid, "status", buf, sizeof(buf)) <= 0)
		return fallback;
	p = strstr(buf, key);
	return p ? (pid_t)atoi(p + strlen(key)) : fallback;
}

pid_t lnch_read_tgid(pid_t tid)
{
	return status_pid(tid, "\nTgid:", tid);
}

pid_t lnch_read_ppid(pid_t tid)
{
	return status_pid(tid, "\nPPid:", 0);
}

bool lnch_loop_task_full(const struct lnch_loop *loop, const struct lnch_task *task)
{
	return task->creds_changed || task->own_filter || loop->mounts_changed;
}

/*
 * Resume a task; ESRCH means it died meanwhile and waitpid will tell.  A
 * task traced by stops (struct lnch_task.full) goes on with PTRACE_SYSCALL,
 * so its next call stops at entry and exit (ptrace(2), "Syscall-stops").
 */
static void resume(struct lnch_loop *loop, struct lnch_task *task, int sig)
{
	int req;

	task->full = lnch_loop_task_full(loop, task);
	req = task->in_syscall || task->full ? PTRACE_SYSCALL : PTRACE_CONT;
	(void)ptrace(req, task->tid, NULL, (void *)(long)sig);
}

static void announce_spawn(struct lnch_loop *loop, pid_t ppid, pid_t ctid, pid_t cpid)
{
	bool is_thread = cpid == ppid && ctid != ppid;

	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_spawn != NULL)
			loop->obs[i].ops->on_spawn(loop->obs[i].ctx, ppid, ctid, cpid, is_thread,
						   lnch_loop_since_start(loop));
}

/*
 * An auto-attached child whose first stop came before its parent's fork or
 * clone event: observers hear of it now, with the parent /proc/TID/status names
 * (a thread's is its own thread group), so that nothing it does, not even
 * its exit, comes before its start.  The parent's event then adds nothing.
 */
static struct lnch_task *task_for(struct lnch_loop *loop, pid_t tid)
{
	struct lnch_task *task = lnch_tasks_get(&loop->tasks, tid);
	pid_t pid, ppid;

	if (task != NULL)
		return task;
	pid = lnch_read_tgid(tid);
	ppid = pid != tid ? pid : lnch_read_ppid(tid);
	task = lnch_tasks_put(&loop->tasks, tid);
	task->pid = pid;
	/* its parent is not known yet: assume the worst once anyone has changed credentials */
	task->creds_changed = loop->any_creds_changed;
	task->own_filter = loop->any_own_filter;
	announce_spawn(loop, ppid, tid, pid);
	return task;
}

/* Whether tid ended before its parent's event came (and forget it: the event is here). */
static bool take_gone_early(struct lnch_loop *loop, pid_t tid)
{
	for (size_t i = 0; i < loop->ngone_early; i++) {
		if (loop->gone_early[i] == tid) {
			loop->gone_early[i] = loop->gone_early[--loop->ngone_early];
			return true;
		}
	}
	return false;
}

static void note_gone_early(struct lnch_loop *loop, pid_t tid)
{
	if (loop->ngone_early == loop->gone_early_cap) {
		loop->gone_early_cap = loop->gone_early_cap ? loop->gone_early_cap * 2 : 8;
		loop->gone_early = repro_xreallocarray(loop->gone_early, loop->gone_early_cap,
						       sizeof(*loop->gone_early));
	}
	loop->gone_early[loop->ngone_early++] = tid;
}

static void fill_stop(struct lnch_loop *loop, struct lnch_task *task,
		      const struct __ptrace_syscall_info *si, struct lnch_stop *st)
{
	memset(st, 0, sizeof(*st));
	st->tid = task->tid;
	st->pid = task->pid;
	st->arch = si->arch;
	st->t_ns = lnch_loop_since_start(loop);
}

bool lnch_loop_ask_policies(struct lnch_loop *loop, const struct lnch_stop *st,
			    struct lnch_call *call, struct lnch_verdict *v)
{
	unsigned observers = 0;

	memset(call, 0, sizeof(*call));
	call->nr = st->arch == lnch_arch_audit_token() ? st->nr : -1;
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->describe != NULL)
			loop->obs[i].ops->describe(loop->obs[i].ctx, st, call);
	for (size_t i = 0; i < loop->npol; i++) {
		memset(v, 0, sizeof(*v));
		int rc = loop->pol[i].ops->decide(loop->pol[i].ctx, st, call, v);

		if (v->observe_exit)
			observers |= 1u << i;
		if (rc == 1 && lnch_verdict_is_active(v)) {
			v->observe_exit = observers != 0;
			loop->asked_observers = observers;
			loop->asked_policy = (int)i + 1;
			return true;
		}
	}
	memset(v, 0, sizeof(*v));
	loop->asked_observers = observers;
	return observers != 0;
}

/*
 * A verdict at the seccomp stop (SECCOMP_RET_TRACE lets the tracer set the
 * number to -1: the call is skipped, seccomp(2)); its result is imposed at
 * the exit stop.  Returns false when the registers could not be written
 * (the tracee is gone): the call then runs.
 */
static bool impose(struct lnch_task *task, const struct lnch_verdict *v)
{
	if (v->has_arg && lnch_arch_set_arg(task->tid, v->arg_i, v->arg_val, NULL) < 0)
		return false;
	/* queued while the task is stopped: delivered as the call returns, as strace does */
	if (v->signo > 0)
		(void)syscall(SYS_tgkill, task->pid, task->tid, v->signo);
	if (task->redirected) {
		task->inject_origin = v->origin;
	} else if (lnch_verdict_skips(v)) {
		if (lnch_arch_set_syscall_nr(task->tid, -1, NULL) < 0)
			return false;
		task->injected = true;
		task->inject_ret = v->errnum != 0 ? -(int64_t)v->errnum : v->retval;
		task->inject_origin = v->origin;
	}
	task->delay_exit_ns = v->delay_exit_ns;
	return true;
}

/* A call that changes credentials, root or mounts ends acting on the caller's behalf (launcher/taint.h). */
/* Whether a clone (flags in args[0]) or clone3 (flags first in struct clone_args) makes new namespaces. */
static bool clone_new_ns(const struct lnch_stop *st, bool is_clone3)
{
	uint64_t flags = st->args[0];

	if (is_clone3 && lnch_mem_read(st->tid, st->args[0], &flags, sizeof(flags)) < 0)
		return true; /* unreadable: assume the worst */
	return (flags & (CLONE_NEWUSER | CLONE_NEWNS)) != 0;
}

/*
 * Make the running tasks that match (pid: that process's threads; 0: all
 * but self) stop once (PTRACE_INTERRUPT, a PTRACE_EVENT_STOP the loop
 * resumes): resumed, they are traced by stops.  A thread that runs under
 * PTRACE_CONT would otherwise only stop at its next traced call, and one
 * whose calls a new filter fails never does.  Linear in the task table.
 */
static void interrupt_tasks(struct lnch_loop *loop, const struct lnch_task *self, pid_t pid)
{
	for (size_t i = 0; i < loop->tasks.n; i++) {
		struct lnch_task *t = &loop->tasks.v[i];

		if (t->tid > 0 && t != self && !t->full && (pid == 0 || t->pid == pid))
			(void)ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL);
	}
}

/*
 * The task installs a seccomp filter of its own (seccomp(2)
 * SECCOMP_SET_MODE_FILTER, prctl(2) PR_SET_SECCOMP + SECCOMP_MODE_FILTER).
 * Noted at entry, whether or not the install then succeeds: tracing a task
 * by stops is never wrong, only slower.  SECCOMP_FILTER_FLAG_TSYNC puts the
 * filter on every thread of the process.
 */
static void note_own_filter(struct lnch_loop *loop, struct lnch_task *task,
			    const struct lnch_stop *st, bool is_prctl)
{
	bool tsync = !is_prctl && (st->args[1] & SECCOMP_FILTER_FLAG_TSYNC);

	if (is_prctl ? st->args[0] != PR_SET_SECCOMP || st->args[1] != SECCOMP_MODE_FILTER
		     : st->args[0] != SECCOMP_SET_MODE_FILTER)
		return;
	task->own_filter = true;
	loop->any_own_filter = true;
	if (!tsync)
		return;
	for (size_t i = 0; i < loop->tasks.n; i++)
		if (loop->tasks.v[i].tid > 0 && loop->tasks.v[i].pid == task->pid)
			loop->tasks.v[i].own_filter = true;
	interrupt_tasks(loop, task, task->pid);
}

static void note_taint(struct lnch_loop *loop, struct lnch_task *task, const struct lnch_stop *st)
{
	enum repro_sys_taint scope = lnch_taint_scope_of(&loop->taint, st->arch, st->nr);

	switch (scope) {
	case REPRO_TAINT_NONE: return;
	case REPRO_TAINT_SECCOMP:
	case REPRO_TAINT_PRCTL: note_own_filter(loop, task, st, scope == REPRO_TAINT_PRCTL); return;
	case REPRO_TAINT_ALL:
		if (!loop->mounts_changed)
			interrupt_tasks(loop, task, 0);
		loop->mounts_changed = true;
		break;
	case REPRO_TAINT_CLONE:
	case REPRO_TAINT_CLONE3:
		if (!clone_new_ns(st, scope == REPRO_TAINT_CLONE3))
			return;
		break;
	case REPRO_TAINT_CREDS:
		/* compared at its exit (creds_check_at_exit) */
		task->creds_check = !task->creds_changed;
		return;
	case REPRO_TAINT_TASK: break;
	}
	task->creds_changed = true;
	loop->any_creds_changed = true;
}

/*
 * A task under a filter of its own: did that filter, not repro's, return
 * SECCOMP_RET_TRACE for this call?  Without a tracer such a call fails with
 * ENOSYS (seccomp(2)), so it must under repro too.
 */
static bool own_filter_traced(const struct lnch_task *task)
{
	unsigned long data = LNCH_TRACE_DATA;

	return task->own_filter && ptrace(PTRACE_GETEVENTMSG, task->tid, NULL, &data) == 0 &&
	       data != LNCH_TRACE_DATA;
}

/*
 * A TCP connect a policy refuses, blackholes or times out goes to a fault
 * endpoint (launcher/netfault.h) instead of being skipped: the kernel then
 * gives the program the outcome as a network would.  The delay of a
 * timeout is the socket's TCP_USER_TIMEOUT, not a hold.
 */
static void play_net_fault(struct lnch_loop *loop, struct lnch_task *task,
			   const struct lnch_stop *st, const struct lnch_call *call,
			   struct lnch_verdict *v)
{
	if (v->net_fault == LNCH_NET_NONE || call->sock_type != SOCK_STREAM ||
	    (call->family != AF_INET && call->family != AF_INET6) ||
	    !lnch_netfault_redirect(&loop->netfault, task->tid, task->pid, call->family,
				    v->net_fault, (uint32_t)(v->delay_exit_ns / 1000000u),
				    st->args))
		return;
	task->redirected = true;
	task->redirect_addr = st->args[1];
	task->redirect_len = st->args[2];
	v->errnum = 0;
	v->has_retval = false;
	v->delay_exit_ns = 0;
}

static void on_seccomp(struct lnch_loop *loop, struct lnch_task *task)
{
	struct __ptrace_syscall_info si;
	struct lnch_verdict v = { 0 };
	struct lnch_call call;
	struct lnch_stop st;
	unsigned want = 0;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, task->tid, (void *)sizeof(si), &si) <= 0 ||
	    si.op != PTRACE_SYSCALL_INFO_SECCOMP) {
		resume(loop, task, 0);
		return;
	}
	task->stop_seen = true;
	task->redirect_addr = task->redirect_len = 0;
	fill_stop(loop, task, &si, &st);
	st.is_entry = true;
	st.nr = (int)si.seccomp.nr;
	memcpy(st.args, si.seccomp.args, sizeof(st.args));
	if (si.arch == lnch_arch_audit_token())
		task->last_entry_nr = st.nr;
	note_taint(loop, task, &st);
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_entry != NULL)
			want |= loop->obs[i].ops->on_entry(loop->obs[i].ctx, &st);
	if (own_filter_traced(task)) {
		struct lnch_verdict enosys = { .errnum = ENOSYS };

		if (impose(task, &enosys))
			task->own_trace = true;
	} else if (loop->npol > 0 && lnch_loop_ask_policies(loop, &st, &call, &v)) {
		task->observer_pols = (uint8_t)loop->asked_observers;
		if (v.rewrite_result) {
			task->rewrite_pol = (int8_t)loop->asked_policy;
			task->rewrite_fd = st.args[0];
			task->rewrite_buf = st.args[1];
			task->rewrite_cap = st.args[2];
			task->inject_origin = v.origin;
		}
		play_net_fault(loop, task, &st, &call, &v);
		if (!impose(task, &v))
			v = (struct lnch_verdict){ 0 };
	}
	task->in_syscall = task->injected || task->redirected || task->creds_check ||
			   task->delay_exit_ns > 0 || task->observer_pols != 0 ||
			   (want & LNCH_WANT_EXIT);
	if (v.delay_enter_ns > 0)
		lnch_hold(loop, task, LNCH_HOLD_ENTRY, st.t_ns + v.delay_enter_ns);
	else
		resume(loop, task, 0);
}

/*
 * What a path walk of task is checked against differs from the tracer's
 * (lnch_taint_creds_text(), read from /proc): repro stops acting for it.
 */
static void taint_if_creds_differ(struct lnch_loop *loop, struct lnch_task *task)
{
	char now[sizeof(loop->creds)];

	lnch_taint_creds_text(task->tid, now, sizeof(now));
	if (strcmp(now, loop->creds) != 0) {
		task->creds_changed = true;
		loop->any_creds_changed = true;
	}
}

/*
 * The exit of a set*id, setgroups or capset call: the task now acts with
 * other credentials than the tracer's when its Uid, Gid, Groups or CapEff
 * lines (and LSM label) differ from the tracer's; only then does repro stop
 * acting for it (launcher/taint.h).
 */
static void creds_check_at_exit(struct lnch_loop *loop, struct lnch_task *task)
{
	task->creds_check = false;
	taint_if_creds_differ(loop, task);
}

/* Most bytes of a received message a policy may rewrite (a DNS answer over UDP: 512 to 4096). */
#define REWRITE_MAX 4096

/*
 * A receive whose verdict asked for it: the policy sees what the call got
 * (its first REWRITE_MAX bytes) and may replace it (a DNS answer turned
 * into NXDOMAIN); the event is then injected.  Linear in the bytes (at
 * most REWRITE_MAX).
 */
static void rewrite_received(struct lnch_loop *loop, struct lnch_task *task, struct lnch_stop *st)
{
	int p = task->rewrite_pol - 1;
	const struct lnch_policy_ops *ops = loop->pol[p].ops;
	uint8_t in[REWRITE_MAX], out[REWRITE_MAX];
	size_t got = st->ret > 0 ? (size_t)st->ret : 0, len = got < sizeof(in) ? got : sizeof(in),
	       n;
	bool in_place = false;

	task->rewrite_pol = 0;
	if (len == 0 || ops->rewrite == NULL ||
	    lnch_mem_read(task->tid, task->rewrite_buf, in, len) < 0)
		return;
	st->args[0] = task->rewrite_fd; /* what the policy keys on; an exit stop has no args */
	st->args[1] = task->rewrite_buf;
	st->args[2] = task->rewrite_cap;
	n = ops->rewrite(loop->pol[p].ctx, st, in, len, out,
			 task->rewrite_cap < sizeof(out) ? (size_t)task->rewrite_cap : sizeof(out),
			 &in_place);
	if (n == 0 || (!in_place && got > len) || (in_place && n > got))
		return; /* a message longer than the policy saw is left whole */
	if (lnch_mem_write(task->tid, task->rewrite_buf, out, n) < 0 ||
	    (!in_place && lnch_arch_set_return(task->tid, (int64_t)n, NULL) < 0))
		return;
	if (!in_place)
		st->ret = (int64_t)n;
	st->injected = true;
	st->inject_origin = task->inject_origin;
}

/* The exit of a call whose entry asked for it (in_syscall): tell observers the result. */
static void report_exit(struct lnch_loop *loop, struct lnch_task *task, uint32_t arch, int64_t rval)
{
	struct lnch_stop st;
	struct __ptrace_syscall_info si = { .arch = arch };

	fill_stop(loop, task, &si, &st);
	st.ret = rval;
	if (task->redirected) {
		st.injected = true; /* the kernel played the policy's outcome out */
		st.inject_origin = task->inject_origin;
	} else if (task->injected) {
		st.ret = task->inject_ret;
		st.denied_by_filter = task->own_trace;
		/* a result that could not be set is not claimed as imposed */
		st.injected = !task->own_trace &&
			      lnch_arch_set_return(task->tid, st.ret, NULL) == 0;
		st.inject_failed = !task->own_trace && !st.injected;
		st.inject_origin = task->inject_origin;
		if (st.inject_failed)
			st.ret = rval;
	}
	task->own_trace = false;
	if (task->rewrite_pol > 0)
		rewrite_received(loop, task, &st);
	for (size_t i = 0; i < loop->npol; i++)
		if ((task->observer_pols & (1u << i)) && loop->pol[i].ops->on_exit != NULL &&
		    loop->pol[i].ops->on_exit(loop->pol[i].ctx, &st))
			loop->end_asked = true;
	task->observer_pols = 0;
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_exit != NULL)
			loop->obs[i].ops->on_exit(loop->obs[i].ctx, &st);
	task->injected = false;
	task->redirected = false;
	task->delay_exit_ns = 0;
}

/* What follows a call's exit stop: the task runs on. */
static void end_exit_stop(struct lnch_loop *loop, struct lnch_task *task)
{
	task->in_syscall = false;
	task->pending = false;
	task->notified = false;
	resume(loop, task, 0);
}

void lnch_loop_release(struct lnch_loop *loop, struct lnch_task *task)
{
	enum lnch_hold_kind kind = (enum lnch_hold_kind)task->held;

	task->held = LNCH_HOLD_NONE;
	if (kind == LNCH_HOLD_EXIT) {
		report_exit(loop, task, task->held_arch, task->held_rval);
		end_exit_stop(loop, task);
	} else {
		resume(loop, task, 0);
	}
}

/*
 * A call of a task traced by stops that repro's filter would have stopped
 * and did not: another filter decided it first (the program's own returned
 * an errno, seccomp(2)), and the call did not run.  Observers see its entry
 * as it was at the syscall-entry stop and its result now.
 */
static void report_denied(struct lnch_loop *loop, struct lnch_task *task,
			  const struct __ptrace_syscall_info *si)
{
	struct lnch_stop st;
	unsigned want = 0;

	fill_stop(loop, task, si, &st);
	st.is_entry = true;
	st.arch = task->entry_arch;
	st.nr = task->entry_nr;
	st.t_ns = task->entry_t_ns;
	memcpy(st.args, task->entry_args, sizeof(st.args));
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_entry != NULL)
			want |= loop->obs[i].ops->on_entry(loop->obs[i].ctx, &st);
	if (!(want & LNCH_WANT_EXIT))
		return;
	st.is_entry = false;
	st.t_ns = lnch_loop_since_start(loop);
	st.ret = si->exit.rval;
	st.denied_by_filter = true;
	/* SECCOMP_RET_TRAP, KILL: no errno was set, the register still holds the number */
	if (st.ret >= 0 || st.ret < -4095) {
		st.ret = 0;
		st.filter_sigsys = true;
	}
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_exit != NULL)
			loop->obs[i].ops->on_exit(loop->obs[i].ctx, &st);
}

/*
 * -ERESTARTSYS, -ERESTARTNOINTR, -ERESTARTNOHAND, -ERESTART_RESTARTBLOCK
 * (include/linux/errno.h): a signal took the call out of a wait (here: a
 * notification not yet received) and the kernel restarts it after the
 * handler, with a new entry stop.  Not a result, and not a denial.
 */
static bool is_restart(int64_t rval)
{
	return rval <= -512 && rval >= -516;
}

/* A syscall-entry stop of a task traced by stops: remember the call until its exit. */
static void note_entry(struct lnch_loop *loop, struct lnch_task *task,
		       const struct __ptrace_syscall_info *si)
{
	task->pending = true;
	task->stop_seen = false;
	task->notified = false;
	task->entry_arch = si->arch;
	task->entry_nr = (int)si->entry.nr;
	memcpy(task->entry_args, si->entry.args, sizeof(task->entry_args));
	task->entry_t_ns = lnch_loop_since_start(loop);
}

/*
 * A syscall-stop (SIGTRAP|0x80, PTRACE_O_TRACESYSGOOD): the exit of a call
 * that asked for it, or, for a task traced by stops, the entry or exit of
 * any call.  In that order for a traced call: entry, seccomp stop (or the
 * notification), exit (ptrace(2): seccomp runs after the entry stop).
 */
static void on_syscall_stop(struct lnch_loop *loop, struct lnch_task *task)
{
	struct __ptrace_syscall_info si;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, task->tid, (void *)sizeof(si), &si) <= 0 ||
	    (si.op != PTRACE_SYSCALL_INFO_ENTRY && si.op != PTRACE_SYSCALL_INFO_EXIT)) {
		task->in_syscall = task->pending = task->injected = task->own_trace = false;
		task->redirected = false;
		task->observer_pols = 0;
		task->rewrite_pol = 0;
		resume(loop, task, 0);
		return;
	}
	if (si.op == PTRACE_SYSCALL_INFO_ENTRY) {
		note_entry(loop, task, &si);
		resume(loop, task, 0);
		return;
	}
	if (task->creds_check)
		creds_check_at_exit(loop, task);
	/* a notification wait a signal interrupted is repro's, not the program's: the call restarts */
	if (task->in_syscall && !(task->notified && is_restart(si.exit.rval)) &&
	    task->delay_exit_ns > 0) {
		task->held_arch = si.arch;
		task->held_rval = si.exit.rval;
		lnch_hold(loop, task, LNCH_HOLD_EXIT,
			  lnch_loop_since_start(loop) + task->delay_exit_ns);
		return;
	}
	if (task->in_syscall && !(task->notified && is_restart(si.exit.rval)))
		report_exit(loop, task, si.arch, si.exit.rval);
	else if (task->pending && !task->stop_seen && !is_restart(si.exit.rval) &&
		 lnch_filter_view_action(&loop->view, task->entry_arch, task->entry_nr,
					 task->entry_args) != LNCH_FILTER_ALLOW)
		report_denied(loop, task, &si);
	end_exit_stop(loop, task);
}

/*
 * A fork, clone or exec event tells how the call the task is stopped in
 * ends (ptrace(2)): give observers that result now and resume without the
 * syscall-exit stop.  ret is what the call returns to this task.
 */
static void end_call_at_event(struct lnch_loop *loop, struct lnch_task *task, int64_t ret)
{
	struct lnch_stop st;

	if (!task->in_syscall || task->injected)
		return;
	memset(&st, 0, sizeof(st));
	st.tid = task->tid;
	st.pid = task->pid;
	st.arch = lnch_arch_audit_token();
	st.nr = -1;
	st.ret = ret;
	st.t_ns = lnch_loop_since_start(loop);
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_exit != NULL)
			loop->obs[i].ops->on_exit(loop->obs[i].ctx, &st);
	task->in_syscall = false;
}

static void on_new_task(struct lnch_loop *loop, struct lnch_task *parent, int event)
{
	unsigned long msg = 0;
	struct lnch_task *child;
	pid_t ptid = parent->tid, ppid = parent->pid, ctid;
	bool parent_changed = parent->creds_changed, parent_filter = parent->own_filter;

	if (ptrace(PTRACE_GETEVENTMSG, ptid, NULL, &msg) < 0) {
		resume(loop, parent, 0);
		return;
	}
	ctid = (pid_t)msg;
	child = lnch_tasks_get(&loop->tasks, ctid);
	if (child == NULL && take_gone_early(loop, ctid)) {
		/* it ran, was announced and ended before this event: nothing to add */
		end_call_at_event(loop, parent, ctid);
		resume(loop, parent, 0);
		return;
	}
	if (child == NULL) {
		child = lnch_tasks_put(&loop->tasks, ctid);
		child->pid = event == PTRACE_EVENT_CLONE ? lnch_read_tgid(ctid) : ctid;
		child->seen_spawn = true;
		announce_spawn(loop, ppid, ctid, child->pid);
	} else if (!child->seen_spawn) {
		child->seen_spawn = true; /* announced at its first stop */
	}
	child = lnch_tasks_get(&loop->tasks, ctid);
	child->creds_changed |= parent_changed;
	child->own_filter |= parent_filter; /* filters are inherited (seccomp(2)) */
	/* the table may have moved: look the parent up again */
	parent = lnch_tasks_get(&loop->tasks, ptid);
	end_call_at_event(loop, parent, ctid);
	resume(loop, parent, 0);
}

/* A set-user-ID program run by root, or an LSM domain transition, changes what a path walk is checked against. */
static void note_exec_creds(struct lnch_loop *loop, struct lnch_task *task)
{
	if (loop->check_exec_creds && !task->creds_changed)
		taint_if_creds_differ(loop, task);
}

static void on_exec(struct lnch_loop *loop, struct lnch_task *task)
{
	unsigned long msg = 0;
	pid_t tid = task->tid, former;

	if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 && (pid_t)msg != tid) {
		/* a non-leader thread exec'd: it takes over the leader's tid (ptrace(2)) */
		struct lnch_task *old = lnch_tasks_get(&loop->tasks, (pid_t)msg);

		if (old != NULL) {
			struct lnch_task moved = *old;

			lnch_tasks_del(&loop->tasks, (pid_t)msg);
			moved.tid = tid;
			task = lnch_tasks_put(&loop->tasks, tid);
			free(task->wait); /* the leader is gone: its wait ends unseen */
			*task = moved;
		}
	}
	former = msg ? (pid_t)msg : tid;
	note_exec_creds(loop, task);
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_exec != NULL)
			loop->obs[i].ops->on_exec(loop->obs[i].ctx, task->pid, former,
						  lnch_loop_since_start(loop));
	end_call_at_event(loop, task, 0);
	resume(loop, task, 0);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_stopped(struct lnch_loop *loop, pid_t tid, int status)
{
	struct lnch_task *task = task_for(loop, tid);
	int sig = WSTOPSIG(status);
	int event = (unsigned)status >> 16;

	lnch_waits_on_stop(loop, task, status);
	if (sig == (SIGTRAP | 0x80)) {
		on_syscall_stop(loop, task);
	} else if (event == PTRACE_EVENT_STOP) {
		/* group-stop: PTRACE_LISTEN keeps it stopped yet lets SIGCONT through (job control) */
		if (is_stop_signal(sig))
			(void)ptrace(PTRACE_LISTEN, tid, NULL, NULL);
		else
			resume(loop, task, 0);
	} else if (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP) {
		on_seccomp(loop, task);
	} else if (sig == SIGTRAP && (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
				      event == PTRACE_EVENT_CLONE)) {
		on_new_task(loop, task, event);
	} else if (sig == SIGTRAP && event == PTRACE_EVENT_EXEC) {
		on_exec(loop, task);
	} else if (event != 0) {
		resume(loop, task, 0);
	} else {
		/* signal-delivery-stop: deliver it as it would be, to a call that would not have been interrupted */
		if (loop->n_notified > 0)
			(void)lnch_arch_restart_interrupted(tid, loop->notified_nrs,
							    loop->n_notified, NULL);
		resume(loop, task, sig);
	}
}

static void stop_all(struct lnch_loop *loop)
{
	uint64_t t = lnch_loop_since_start(loop);

	loop->stopping = true;
	for (size_t i = 0; i < loop->tasks.n; i++) {
		struct lnch_task *task = &loop->tasks.v[i];

		if (task->tid <= 0)
			continue;
		for (size_t j = 0; j < loop->nobs; j++)
			if (loop->obs[j].ops->on_left_running != NULL)
				loop->obs[j].ops->on_left_running(loop->obs[j].ctx, task->tid,
								  task->pid, t);
		if (task->tid == task->pid)
			loop->res.left_running++;
		lnch_waits_end(loop, task, LNCH_WAIT_LEFT, 0);
		kill(task->tid, SIGKILL);
	}
}

static void on_gone(struct lnch_loop *loop, pid_t tid, int status)
{
	struct lnch_task *task = lnch_tasks_get(&loop->tasks, tid);
	pid_t pid = task ? task->pid : tid;
	uint64_t t = lnch_loop_since_start(loop);

	if (task != NULL)
		lnch_waits_end(loop, task, LNCH_WAIT_EXITED, status);
	if (task != NULL && !task->seen_spawn)
		note_gone_early(loop, tid);
	for (size_t i = 0; i < loop->nobs; i++)
		if (loop->obs[i].ops->on_task_exit != NULL)
			loop->obs[i].ops->on_task_exit(loop->obs[i].ctx, tid, pid, status, t);
	lnch_tasks_del(&loop->tasks, tid);
	loop->res.end_ns = t;
	if (tid == loop->child->pid) {
		loop->res.main_status = status;
		loop->res.main_seen = true;
		loop->main_end_ns = t;
		if (loop->tasks.count > 0 && !loop->stopping &&
		    (!loop->wait_all ||
		     (loop->stop_asked && t - loop->stop_asked_ns <= LNCH_STOP_GRACE_NS)))
			stop_all(loop);
	}
}

/* The loop's tick (ns): waitpid(2) returns EINTR this often, for the waits, a stop and a limit. */
#define LNCH_TICK_NS 250000000L
/* The signal of the loop's tick, to the loop's thread only (SIGEV_THREAD_ID). */
#define LNCH_TICK_SIG (SIGRTMIN + 2)

static void on_tick_sig(int sig)
{
	(void)sig; /* only interrupts the loop's waitpid */
}

/*
 * Start the loop's tick: a POSIX timer (CLOCK_MONOTONIC) that sends
 * LNCH_TICK_SIG to this thread every LNCH_TICK_NS, its handler doing
 * nothing and without SA_RESTART, so that the loop samples the waits
 * (launcher/waits.h), polls should_stop and checks the time limit while no
 * tracee stops.  Returns whether it runs (false: no timer, the loop then
 * wakes at stops and other signals only).
 */
static bool tick_start(timer_t *t)
{
	struct sigaction sa = { .sa_handler = on_tick_sig }; /* no SA_RESTART: EINTR */
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = LNCH_TICK_SIG };
	struct itimerspec its = { .it_value = { 0, LNCH_TICK_NS },
				  .it_interval = { 0, LNCH_TICK_NS } };
	sigset_t s;

	sigemptyset(&sa.sa_mask);
	if (sigaction(LNCH_TICK_SIG, &sa, NULL) < 0)
		return false;
	sigemptyset(&s);
	sigaddset(&s, LNCH_TICK_SIG);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, t) < 0)
		return false;
	if (timer_settime(*t, 0, &its, NULL) < 0) {
		timer_delete(*t);
		return false;
	}
	return true;
}

/* Whether some policy may impose a connect fault the kernel plays out (launcher/netfault.h). */
static bool may_net_fault(const struct lnch_loop *loop)
{
	for (size_t i = 0; i < loop->npol; i++)
		if (loop->pol[i].ops->may_net_fault != NULL &&
		    loop->pol[i].ops->may_net_fault(loop->pol[i].ctx))
			return true;
	return false;
}

int lnch_loop_run(struct lnch_loop *loop, struct lnch_result *res, struct repro_err **err)
{
	struct lnch_task *first = lnch_tasks_put(&loop->tasks, loop->child->pid);
	struct lnch_notifier notifier;
	timer_t tick;
	bool ticking;
	int rc = 0;

	first->pid = loop->child->pid;
	first->seen_spawn = true;
	if (loop->child->notify_sock >= 0)
		loop->n_notified = lnch_behalf_native_nrs(loop->notified_nrs, 16);
	/*
	 * Before any thread of the loop runs and before the first stop is
	 * handled: no stop waits for the helper, and loop->netfault is only
	 * read after this.  The child has brought lo up by now (spawn.c).
	 */
	if (may_net_fault(loop))
		lnch_netfault_prepare(&loop->netfault, loop->child->pid);
	/*
	 * EAGAIN: no room for a thread under RLIMIT_NPROC (pthread_create(3)),
	 * which counts repro's threads with the program's processes: the
	 * child then installs the ptrace-only filter and the same calls are
	 * ptrace stops, rather than the run failing where the program alone runs.
	 */
	if (lnch_notifier_start(&notifier, loop, loop->child->notify_sock) < 0 && errno != EAGAIN) {
		rc = repro_err_set(err, errno, "cannot start the seccomp notification thread");
		kill(loop->child->pid, SIGKILL);
	}
	(void)lnch_child_answer_listener(loop->child, notifier.running);
	ticking = tick_start(&tick);
	while (loop->tasks.count > 0) {
		int status = 0;
		pid_t tid = waitpid(-1, &status, __WALL);

		if (tid < 0 && errno == EINTR) {
			pthread_mutex_lock(&loop->mu);
			for (size_t i = 0; i < loop->nobs; i++)
				if (loop->obs[i].ops->on_idle != NULL)
					loop->obs[i].ops->on_idle(loop->obs[i].ctx);
			/*
			 * A stop request ends the recording only once the program itself has
			 * ended; one made before (a Ctrl-C the program got too) is consumed,
			 * unless the program ends within LNCH_STOP_GRACE_NS of it (on_gone).
			 */
			bool stop = loop->should_stop != NULL && loop->should_stop(loop->stop_ctx);

			lnch_holds_release_due(loop);
			/* a delay does not outlast a stop request: the signal passed on must reach its task */
			if (stop) {
				lnch_holds_release_all(loop);
				lnch_notifier_flush(&notifier);
			}
			lnch_waits_sample(loop);
			if (stop && !loop->stopping)
				lnch_waits_stop_requested(loop);
			if (stop && !loop->res.main_seen) {
				loop->stop_asked = true;
				loop->stop_asked_ns = lnch_loop_since_start(loop);
			}
			if (stop && !loop->stopping && loop->res.main_seen)
				stop_all(loop);
			if (loop->time_limit_ns > 0 && !loop->stopping &&
			    lnch_loop_since_start(loop) >= loop->time_limit_ns) {
				loop->res.timed_out = true;
				lnch_holds_release_all(loop);
				stop_all(loop);
			}
			maybe_notice(loop);
			pthread_mutex_unlock(&loop->mu);
			continue;
		}
		if (tid < 0 && errno == ECHILD)
			break;
		if (tid < 0) {
			rc = repro_err_set(err, errno, "waitpid");
			break;
		}
		pthread_mutex_lock(&loop->mu);
		if (WIFEXITED(status) || WIFSIGNALED(status))
			on_gone(loop, tid, status);
		else if (WIFSTOPPED(status))
			on_stopped(loop, tid, status);
		if (loop->end_asked && !loop->stopping) {
			/* a policy ended the run (replay --strict): as at a time limit */
			loop->res.ended_by_policy = true;
			lnch_holds_release_all(loop);
			stop_all(loop);
		}
		lnch_holds_release_due(loop);
		pthread_mutex_unlock(&loop->mu);
	}
	if (ticking)
		timer_delete(tick);
	lnch_notifier_stop(&notifier);
	*res = loop->res;
	return rc;
}
