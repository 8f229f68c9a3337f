/*
 * int80_open - a 64-bit program making a 32-bit open(2) through int $0x80.
 *
 * On x86_64 the i386 entry (int $0x80) uses the i386 table: 5 is open, while
 * 5 in the x86_64 table is fstat.  A tracer that reads the number without the
 * architecture would record a bogus fstat.  The pointer must fit in 32 bits,
 * hence MAP_32BIT.  The call runs in a child: a kernel without IA32
 * emulation kills it with SIGSEGV, and then the program prints "skip" and
 * exits 77 (skipped).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __x86_64__
#define I386_NR_OPEN 5

static const char path[] = "/nonexistent-int80";

static long int80_open(const char *p)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"((long)I386_NR_OPEN), "b"(p), "c"(0L), "d"(0L)
			 : "memory");
	return ret;
}

static void child_main(void)
{
	char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	long ret;

	if (low == MAP_FAILED) {
		perror("int80_open: mmap");
		_exit(1);
	}
	memcpy(low, path, sizeof(path));
	ret = int80_open(low);
	printf("open(\"%s\", O_RDONLY) = %s%s\n", path, ret < 0 ? "-1 " : "",
	       ret < 0 ? strerrorname_np((int)-ret) : "fd");
	printf("  path %s\n", path);
	printf("  arch i386\n");
	printf("int80_open: raw return %ld\n", ret);
	fflush(stdout);
	_exit(ret == -2 ? 0 : 1);
}

int main(void)
{
	int status;
	pid_t pid;

	printf("int80_open: 32-bit int $0x80 open from a 64-bit process\n");
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("int80_open: fork");
		return 1;
	}
	if (pid == 0)
		child_main();
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) {
		printf("int80_open: skip: int $0x80 is not available (no IA32 emulation)\n");
		return 77; /* CTest's SKIP_RETURN_CODE: nothing was tested */
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
#else
int main(void)
{
	printf("int80_open: skip: not x86_64\n");
	return 0;
}
#endif
