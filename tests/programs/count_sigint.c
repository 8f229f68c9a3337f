/*
 * count_sigint [MS] - count the SIGINTs that reach this process while it
 * makes stat(2) calls, until MS milliseconds (default 1500) after the
 * first one (a second copy of it would come by then) or 30 s without
 * any, and exit with that count.  Prints "ready" first (line-buffered),
 * so that a test can signal it once it runs, however late.  Used by tests/integration/signals_tty.sh: a
 * kill(2) of the whole process group must reach a recorded program once.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static volatile sig_atomic_t count;

static void on_int(int sig)
{
	(void)sig;
	count++;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long long grace = argc > 1 ? atol(argv[1]) : 1500, end = now_ms() + 30000, first = 0;
	struct sigaction sa;
	struct stat st;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (now_ms() < end) {
		stat("/", &st);
		if (count > 0 && first == 0) {
			first = now_ms();
			end = first + grace;
		}
	}
	printf("SIGINT count %d\n", (int)count);
	return count;
}
