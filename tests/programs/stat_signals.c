/*
 * stat_signals [N] - N stat(2) calls (default 20000) and N/4 open+close
 * pairs while a SIGALRM handler installed without SA_RESTART fires every
 * 200 us.  Natively none of these calls is ever interrupted; the program
 * prints how many failed with EINTR (0) and whether signals came.  Under
 * repro a signal can come while a call waits for the seccomp notification
 * thread: the loop must make the kernel restart it (launcher/arch/).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t signals;

static void on_alarm(int sig)
{
	(void)sig;
	signals = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	long n = argc > 1 ? atol(argv[1]) : 20000, stat_eintr = 0, close_eintr = 0, other = 0;
	struct stat st;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART: an interrupted call fails with EINTR */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < n; i++)
		if (stat("/etc/passwd", &st) < 0)
			*(errno == EINTR ? &stat_eintr : &other) += 1;
	for (long i = 0; i < n / 4; i++) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd >= 0 && close(fd) < 0)
			*(errno == EINTR ? &close_eintr : &other) += 1;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("stat EINTR %ld, close EINTR %ld, other errors %ld, signals came: %s\n", stat_eintr,
	       close_eintr, other, signals ? "yes" : "no");
	return stat_eintr + close_eintr + other == 0 ? 0 : 1;
}
