/*
 * exec_thread - execve(2) from a thread that is not the thread-group leader.
 *
 * execve(2): "all threads other than the calling thread are destroyed";
 * the kernel (de_thread) then gives the calling thread the leader's id, so a
 * tracer sees the exec under the old tid but the process goes on as the old
 * pid.  Modes:
 *	exec_thread          the thread re-executes this program with "child"
 *	exec_thread true     the thread executes /bin/true
 * Output, pids masked by the harness:
 *	exec_thread: main pid=N
 *	exec_thread: thread tid=N is_leader=no
 *	exec_thread: after exec same_pid=yes tid_is_pid=yes
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oracle.h"

extern char **environ;

static char self[PATH_MAX];
static int run_true;

static void *thread_main(void *arg)
{
	char pid_text[32];
	char *self_argv[] = { self, "child", pid_text, NULL };
	char *true_argv[] = { "/bin/true", NULL };

	(void)arg;
	snprintf(pid_text, sizeof(pid_text), "%d", (int)getpid());
	printf("exec_thread: thread tid=%d is_leader=%s\n", (int)gettid(),
	       gettid() == getpid() ? "yes" : "no");
	fflush(stdout);
	if (run_true)
		execve(true_argv[0], true_argv, environ);
	else
		execve(self, self_argv, environ);
	printf("exec_thread: execve failed: %s\n", strerrorname_np(errno));
	fflush(stdout);
	_exit(1);
}

/* Second life, after the exec: the pid must be the one from before. */
static int after_exec(const char *old_pid)
{
	int same = atoi(old_pid) == (int)getpid();

	printf("exec_thread: after exec same_pid=%s tid_is_pid=%s\n", same ? "yes" : "no",
	       gettid() == getpid() ? "yes" : "no");
	return same ? 0 : 1;
}

int main(int argc, char **argv)
{
	pthread_t thread;

	if (argc == 3 && strcmp(argv[1], "child") == 0)
		return after_exec(argv[2]);
	run_true = argc == 2 && strcmp(argv[1], "true") == 0;
	if (!realpath("/proc/self/exe", self)) {
		perror("exec_thread: realpath");
		return 1;
	}
	printf("exec_thread: main pid=%d\n", (int)getpid());
	fflush(stdout);
	if (pthread_create(&thread, NULL, thread_main, NULL) != 0) {
		fprintf(stderr, "exec_thread: pthread_create failed\n");
		return 1;
	}
	pthread_join(thread, NULL); /* never returns: the exec ends this thread */
	return 1;
}
