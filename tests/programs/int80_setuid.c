/*
 * int80_setuid - a 64-bit program started as root steps down to uid 65534
 * with the i386 ABI's setresuid32 (int $0x80, number 208), then stats a
 * file in a directory only root may search.  A tracer that did not see the
 * 32-bit call would go on answering path lookups with root's rights: the
 * stat must fail with EACCES as it does without one.  The call runs in a
 * child: a kernel without IA32 emulation kills it with SIGSEGV, and then
 * the program prints "skip".
 *	int80_setuid DIR   (DIR: mode 0700, owned by root, with a file "f")
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __x86_64__
#define I386_NR_SETRESUID32 208

static long int80_setresuid(long uid)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"((long)I386_NR_SETRESUID32), "b"(uid), "c"(uid), "d"(uid)
			 : "memory");
	return ret;
}

static void child_main(const char *dir)
{
	char path[4096];
	struct stat st;
	long ret = int80_setresuid(65534);
	int rc;

	snprintf(path, sizeof(path), "%s/f", dir);
	printf("setresuid32(65534, 65534, 65534) = %ld, euid now %d\n", ret, (int)geteuid());
	rc = stat(path, &st);
	printf("stat(DIR/f) = %d %s\n", rc, rc < 0 ? strerrorname_np(errno) : "");
	fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: int80_setuid DIR\n");
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		child_main(argv[1]);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) {
		printf("int80_setuid: skip: int $0x80 is not available (no IA32 emulation)\n");
		return 0;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
#else
int main(void)
{
	printf("int80_setuid: skip: not x86_64\n");
	return 0;
}
#endif
