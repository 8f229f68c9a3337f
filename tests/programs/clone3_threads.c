/*
 * clone3_threads - a raw clone3(2) fork-like child, then two pthreads.
 *
 * glibc >= 2.34 creates pthreads with clone3 (CLONE_VM|CLONE_FS|CLONE_FILES|
 * CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|...), and the raw call
 * with exit_signal = SIGCHLD makes a new process.  Each task opens a distinct
 * missing path, so a tracer must attribute each event to the right task.
 * The threads run one after the other, so the output order is fixed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oracle.h"

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static const char *const thread_paths[] = {
	"/nonexistent/clone3-thread-1",
	"/nonexistent/clone3-thread-2",
};

/*
 * The clone3 child shares nothing with glibc's view of the process (no
 * atfork handlers ran), so it formats into a stack buffer and uses write(2)
 * and exit_group(2) only.
 */
static void child_main(void)
{
	const char *path = "/nonexistent/clone3-child";
	struct sysres r = SYS(SYS_openat, AT_FDCWD, path, O_RDONLY);
	char buf[256];
	int n;

	n = snprintf(buf, sizeof(buf), "openat(AT_FDCWD, \"%s\", O_RDONLY) = %ld %s\n  path %s\n",
		     path, r.rc, r.rc < 0 ? strerrorname_np(r.err) : "", path);
	if (write(STDOUT_FILENO, buf, (size_t)n) != n)
		syscall(SYS_exit_group, 2);
	syscall(SYS_exit_group, 0);
}

static int run_clone3_child(void)
{
	struct clone_args args = { .exit_signal = SIGCHLD };
	int status;
	long pid;

	fflush(stdout);
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid < 0) {
		printf("clone3_threads: clone3 = -1 %s\n", strerrorname_np(errno));
		return 1;
	}
	if (pid == 0)
		child_main();
	if (waitpid((pid_t)pid, &status, 0) != (pid_t)pid || !WIFEXITED(status)) {
		printf("clone3_threads: clone3 child did not exit normally\n");
		return 1;
	}
	printf("clone3_threads: clone3 child pid=%ld exited status=%d\n", pid, WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

static void *thread_main(void *arg)
{
	const char *path = arg;
	struct sysres r = SYS(SYS_openat, AT_FDCWD, path, O_RDONLY);

	oracle_call(r, "openat(AT_FDCWD, \"%s\", O_RDONLY)", path);
	oracle_note("path", "%s", path);
	printf("clone3_threads: thread tid=%d is_leader=%s\n", (int)gettid(),
	       gettid() == getpid() ? "yes" : "no");
	return NULL;
}

int main(void)
{
	pthread_t thread;
	size_t i;

	printf("clone3_threads: main pid=%d\n", (int)getpid());
	if (run_clone3_child() != 0)
		return 1;
	for (i = 0; i < sizeof(thread_paths) / sizeof(thread_paths[0]); i++) {
		if (pthread_create(&thread, NULL, thread_main, (void *)thread_paths[i]) != 0 ||
		    pthread_join(thread, NULL) != 0) {
			printf("clone3_threads: pthread failed\n");
			return 1;
		}
	}
	return 0;
}
