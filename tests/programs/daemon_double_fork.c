/*
 * daemon_double_fork - the classic daemon start: fork, setsid, fork again.
 *
 * The original process exits 0 at once; the grandchild, detached from the
 * session and with its stdio on /dev/null, sleeps 300 ms, creates the file
 * named by argv[1] and exits 0.  A recorder must wait for it: when
 * `repro record` returns, the file exists.  Pids go to stderr only.
 *	daemon_double_fork FILE
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		_exit(3);
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static void grandchild_main(const char *flag)
{
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 300 * 1000 * 1000 };
	int fd;

	detach_stdio();
	nanosleep(&nap, NULL);
	fd = open(flag, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		_exit(4);
	if (write(fd, "done\n", 5) != 5)
		_exit(5);
	close(fd);
	_exit(0);
}

int main(int argc, char **argv)
{
	pid_t child;

	if (argc != 2) {
		fprintf(stderr, "usage: daemon_double_fork FILE\n");
		return 2;
	}
	printf("daemon_double_fork: starting daemon\n");
	fflush(stdout);
	fprintf(stderr, "daemon_double_fork: parent pid=%d\n", (int)getpid());
	child = fork();
	if (child < 0) {
		perror("daemon_double_fork: fork");
		return 1;
	}
	if (child == 0) {
		if (setsid() < 0)
			_exit(6);
		if (fork() == 0)
			grandchild_main(argv[1]);
		_exit(0);
	}
	fprintf(stderr, "daemon_double_fork: child pid=%d\n", (int)child);
	return 0;
}
