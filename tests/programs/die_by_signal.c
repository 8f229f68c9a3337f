/*
 * die_by_signal - print a line, then die by SIGSEGV (default) or SIGABRT.
 *
 * The handler is reset to SIG_DFL first, so that a runtime that installed
 * its own (a sanitizer) cannot turn the death into an exit.  The shell
 * reports 128+N; repro must exit with the same status.
 *	die_by_signal [segv|abort]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int is_abort = argc > 1 && strcmp(argv[1], "abort") == 0;
	int sig = is_abort ? SIGABRT : SIGSEGV;

	printf("die_by_signal: raising SIG%s\n", sigabbrev_np(sig));
	fflush(stdout);
	signal(sig, SIG_DFL);
	if (is_abort)
		abort();
	raise(sig);
	printf("die_by_signal: still alive\n");
	return 1;
}
