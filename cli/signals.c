#include "cli/signals.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t forward_pid;
static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t pending_sig; /* sent before the program existed */

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	stop_requested = 1;
	/* from kill(2) (SI_USER/SI_QUEUE/SI_TKILL): pass on; from the tty (SI_KERNEL): it got there already */
	if (info == NULL || info->si_code > 0)
		return;
	if (forward_pid > 0)
		kill((pid_t)forward_pid, sig);
	else
		pending_sig = sig;
}

static void on_tick(int sig)
{
	(void)sig; /* only here to interrupt waitpid (see lnch_loop_new) */
}

/* A 250 ms tick while recording (zero interval: stopped). */
static void set_tick(bool on)
{
	struct itimerval it = { .it_interval = { 0, on ? 250000 : 0 },
				.it_value = { 0, on ? 250000 : 0 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_tick : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	if (on)
		sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	if (!on)
		sigaction(SIGALRM, &sa, NULL);
}

void cli_signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: waitpid returns EINTR so the loop can look */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

void cli_signals_forward_to(pid_t pid)
{
	forward_pid = pid;
	set_tick(pid != 0);
	if (pid > 0 && pending_sig != 0) {
		kill(pid, pending_sig);
		pending_sig = 0;
	}
}

bool cli_signals_stop_requested(void *ctx)
{
	bool requested = stop_requested != 0;

	(void)ctx;
	stop_requested = 0;
	return requested;
}
