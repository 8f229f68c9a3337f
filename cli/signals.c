#include "cli/signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t forward_pid;
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	stop_requested = 1;
	/* from kill(2) (SI_USER/SI_QUEUE/SI_TKILL): pass on; from the tty (SI_KERNEL): it got there already */
	if (forward_pid > 0 && info != NULL && info->si_code <= 0)
		kill((pid_t)forward_pid, sig);
}

void cli_signals_forward_to(pid_t pid)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	struct sigaction sa;

	forward_pid = pid;
	if (pid == 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: waitpid returns EINTR so the loop can look */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

bool cli_signals_stop_requested(void *ctx)
{
	(void)ctx;
	return stop_requested != 0;
}
