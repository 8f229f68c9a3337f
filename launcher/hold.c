/* Tasks held at a stop until a policy's delay ends (launcher/hold.h). */
#include "launcher/hold.h"
#include "launcher/loop_internal.h"
#include "launcher/taint.h"
#include "common/xalloc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void on_hold_sig(int sig)
{
	(void)sig; /* only interrupts the loop's waitpid */
}

void lnch_holds_init(struct lnch_holds *h)
{
	memset(h, 0, sizeof(*h));
}

void lnch_holds_release(struct lnch_holds *h)
{
	if (h->has_timer)
		timer_delete(h->timer);
	free(h->tids);
	memset(h, 0, sizeof(*h));
}

/* The timer that wakes the loop's thread (this one): made once. */
static bool make_timer(struct lnch_holds *h)
{
	struct sigaction sa = { .sa_handler = on_hold_sig }; /* no SA_RESTART: EINTR */
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = LNCH_HOLD_SIG };
	sigset_t s;

	if (h->has_timer)
		return true;
	sigemptyset(&sa.sa_mask);
	if (sigaction(LNCH_HOLD_SIG, &sa, NULL) < 0)
		return false;
	sigemptyset(&s);
	sigaddset(&s, LNCH_HOLD_SIG);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	h->has_timer = timer_create(CLOCK_MONOTONIC, &sev, &h->timer) == 0;
	return h->has_timer;
}

/*
 * Arm the timer for deadline (since t0), 0 to disarm.  It then fires every
 * LNCH_HOLD_REPEAT_NS until re-armed: a signal that came just before the
 * loop entered waitpid(2) would otherwise be lost until the next event.
 */
static void arm(struct lnch_loop *loop, uint64_t deadline)
{
	struct lnch_holds *h = &loop->holds;
	uint64_t at = deadline != 0 ? loop->child->t0_ns + deadline : 0;
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)(at / 1000000000u),
						.tv_nsec = (long)(at % 1000000000u) },
				  .it_interval = { .tv_nsec = deadline != 0 ? LNCH_HOLD_REPEAT_NS
									    : 0 } };

	if (h->has_timer && timer_settime(h->timer, TIMER_ABSTIME, &its, NULL) == 0)
		h->armed_ns = deadline;
}

void lnch_hold(struct lnch_loop *loop, struct lnch_task *task, enum lnch_hold_kind kind,
	       uint64_t until_ns)
{
	struct lnch_holds *h = &loop->holds;

	task->held = kind;
	task->hold_until_ns = until_ns;
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->tids = repro_xreallocarray(h->tids, h->cap, sizeof(*h->tids));
	}
	h->tids[h->n++] = task->tid;
	if (make_timer(h) && (h->armed_ns == 0 || until_ns < h->armed_ns))
		arm(loop, until_ns);
}

/* The hex mask after key in a /proc/TID/status text, 0 when absent. */
static uint64_t status_mask(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	uint64_t v = 0;

	for (p = p != NULL ? p + strlen(key) : NULL; p != NULL && (*p == ' ' || *p == '\t'); p++)
		;
	for (; p != NULL && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')); p++)
		v = v * 16 + (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	return v;
}

/* The bit of sig in a /proc/TID/status mask. */
#define SIG_BIT(sig) (1ull << ((sig)-1))

bool lnch_signal_pending(pid_t tid)
{
	/* ignored by default: a tracee has them queued all the same (ptrace), though they do nothing */
	const uint64_t dfl_ign = SIG_BIT(SIGCHLD) | SIG_BIT(SIGURG) | SIG_BIT(SIGWINCH) |
				 SIG_BIT(SIGCONT);
	char text[4096];
	uint64_t pending;

	if (lnch_proc_read(tid, "status", text, sizeof(text)) <= 0)
		return false;
	pending = (status_mask(text, "SigPnd:") | status_mask(text, "ShdPnd:")) &
		  ~status_mask(text, "SigBlk:") & ~status_mask(text, "SigIgn:");
	return (pending & ~(dfl_ign & ~status_mask(text, "SigCgt:"))) != 0;
}

void lnch_holds_release_due(struct lnch_loop *loop)
{
	struct lnch_holds *h = &loop->holds;
	uint64_t now, next = 0;
	bool look;

	if (h->n == 0)
		return;
	now = lnch_loop_since_start(loop);
	look = now - h->sig_checked_ns >= LNCH_HOLD_SIG_CHECK_NS;
	if (look)
		h->sig_checked_ns = now;
	for (size_t i = 0; i < h->n;) {
		struct lnch_task *task = lnch_tasks_get(&loop->tasks, h->tids[i]);

		if (task != NULL && task->held != LNCH_HOLD_NONE && task->hold_until_ns > now &&
		    !(look && lnch_signal_pending(task->tid))) {
			if (next == 0 || task->hold_until_ns < next)
				next = task->hold_until_ns;
			i++;
			continue;
		}
		h->tids[i] = h->tids[--h->n]; /* due, or gone */
		if (task != NULL && task->held != LNCH_HOLD_NONE)
			lnch_loop_release(loop, task);
	}
	arm(loop, next); /* also stops the repeats of one that fired */
}

void lnch_holds_release_all(struct lnch_loop *loop)
{
	struct lnch_holds *h = &loop->holds;

	for (size_t i = 0; i < h->n; i++) {
		struct lnch_task *task = lnch_tasks_get(&loop->tasks, h->tids[i]);

		if (task != NULL)
			task->hold_until_ns = 0;
	}
	lnch_holds_release_due(loop);
}
