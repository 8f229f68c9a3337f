/*
 * `repro __complete WORDS` (not listed in the usage): the words the shell
 * completions (completions/) offer inside values they cannot list
 * themselves, one per line: syscalls (libseccomp's names for this
 * architecture, as fault rules take them), errnos (glibc's
 * strerrorname_np(3)), signals (SIGHUP …, sigabbrev_np(3)).
 */
#include "cli/commands.h"

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Highest syscall number looked up: x86_64's table ends below 512. */
#define MAX_NR 1024

static void syscalls(void)
{
	for (int nr = 0; nr < MAX_NR; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (name != NULL)
			puts(name);
		free(name);
	}
}

static void errnos(void)
{
	for (int e = 1; e < 4096; e++)
		if (strerrorname_np(e) != NULL)
			puts(strerrorname_np(e));
}

static void signals(void)
{
	for (int s = 1; s < SIGRTMIN; s++)
		if (sigabbrev_np(s) != NULL)
			printf("SIG%s\n", sigabbrev_np(s));
}

int cmd_complete(int argc, char **argv, struct repro_err **err)
{
	if (argc == 2 && strcmp(argv[1], "syscalls") == 0)
		syscalls();
	else if (argc == 2 && strcmp(argv[1], "errnos") == 0)
		errnos();
	else if (argc == 2 && strcmp(argv[1], "signals") == 0)
		signals();
	else
		return repro_err_set(err, EINVAL, "__complete: give syscalls, errnos or signals");
	return 0;
}
