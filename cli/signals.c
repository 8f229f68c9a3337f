#include "cli/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

static volatile sig_atomic_t forward_pid;
static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t pending_sig; /* sent before the program existed */

/* What repro was started with (cli_signals_save_inherited()), written once before any handler. */
static struct sess_signals inherited;
static bool is_inherited_saved;
static unsigned long long
	ignored_bits; /* inherited.ignored as bits 1 << (sig - 1), for the handler */

/* The hex mask after "key" in a /proc/PID/status text (proc(5)), 0 when absent. */
static unsigned long long status_mask(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	unsigned long long v = 0;

	for (p = p ? p + strlen(key) : NULL; p != NULL && (*p == ' ' || *p == '\t'); p++)
		;
	for (; p != NULL && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')); p++)
		v = v * 16 + (unsigned long long)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	return v;
}

/*
 * Whether the program already has sig from sender: a kill(2) of repro's
 * whole process group (kill -INT 0, timeout(1)) signals the program too,
 * newest member first, so by now it is pending there (SigPnd, ShdPnd of
 * /proc/PID/status) or the program waits in its signal-delivery-stop for
 * this tracer (PTRACE_GETSIGINFO).  No allocation and no locks: only
 * system calls and scanning of the text read.
 */
static bool program_has(pid_t pid, int sig, pid_t sender)
{
	char path[64], text[2048];
	unsigned long long bit = 1ull << (sig - 1);
	siginfo_t si;
	ssize_t n;
	int fd, len = 0;

	for (pid_t v = pid; v > 0; v /= 10)
		len++;
	memcpy(path, "/proc/", 6);
	for (int i = 0, v = (int)pid; i < len; i++, v /= 10)
		path[6 + len - 1 - i] = (char)('0' + v % 10);
	memcpy(path + 6 + len, "/status", 8);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		text[n] = '\0';
		if ((status_mask(text, "SigPnd:") | status_mask(text, "ShdPnd:")) & bit)
			return true;
	}
	return ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0 && si.si_signo == sig &&
	       si.si_code <= 0 && si.si_pid == sender;
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;

	(void)uctx;
	/*
	 * One repro was started with ignored asks for nothing: the program
	 * and what it leaves running ignore it as well (nohup(1), a shell's
	 * background job), so it must not end the recording.  From kill(2) it
	 * is still passed on below: the program may have set a handler of
	 * its own, and a kill(2) of repro stands for one of the program.
	 */
	if (sig < 1 || sig > 64 || !(ignored_bits & (1ull << (sig - 1))))
		stop_requested = 1;
	/* from kill(2) (SI_USER/SI_QUEUE/SI_TKILL): pass on; from the tty (SI_KERNEL): it got there already */
	if (info == NULL || info->si_code > 0) {
		errno = saved;
		return;
	}
	if (forward_pid > 0) {
		if (!program_has((pid_t)forward_pid, sig, info->si_pid))
			kill((pid_t)forward_pid, sig);
	} else {
		pending_sig = sig;
	}
	errno = saved;
}

void cli_signals_save_inherited(void)
{
	struct sigaction old;

	if (is_inherited_saved)
		return;
	sigemptyset(&inherited.ignored);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
			sigaddset(&inherited.ignored, sig);
			if (sig <= 64)
				ignored_bits |= 1ull << (sig - 1);
		}
	sigprocmask(SIG_BLOCK, NULL, &inherited.blocked);
	is_inherited_saved = true;
}

const struct sess_signals *cli_signals_inherited(void)
{
	cli_signals_save_inherited();
	return &inherited;
}

void cli_signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa;

	cli_signals_save_inherited();
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
