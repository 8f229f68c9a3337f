/* Tasks held at a stop until a policy's delay ends (launcher/hold.h). */
#include "launcher/hold.h"
#include "launcher/loop_internal.h"
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

void lnch_holds_release_due(struct lnch_loop *loop)
{
	struct lnch_holds *h = &loop->holds;
	uint64_t now, next = 0;

	if (h->n == 0)
		return;
	now = lnch_loop_since_start(loop);
	for (size_t i = 0; i < h->n;) {
		struct lnch_task *task = lnch_tasks_get(&loop->tasks, h->tids[i]);

		if (task != NULL && task->held != LNCH_HOLD_NONE && task->hold_until_ns > now) {
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
