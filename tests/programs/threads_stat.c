/*
 * threads_stat [N] - N threads (default 80) alive at once, each making path
 * calls (stat of a file that exists and of one that does not, access,
 * readlink of /proc/thread-self/cwd) while the others do, and then one fork
 * whose child does the same.  Prints how many calls gave what the main
 * thread got for them: all of them, bare or recorded.  Under repro this
 * exercises the seccomp notification thread against many tracees at once,
 * and the loop's task table growing while events arrive.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 512
#define ROUNDS 20

static pthread_barrier_t start;
static struct stat want;
static char want_cwd[PATH_MAX];

/* One round of calls; returns how many matched the main thread's answers. */
static int calls(void)
{
	char buf[PATH_MAX];
	struct stat st;
	ssize_t n;
	int ok = 0;

	if (stat("/etc/passwd", &st) == 0 && st.st_ino == want.st_ino && st.st_size == want.st_size)
		ok++;
	if (stat("/nonexistent/threads_stat", &st) < 0 && errno == ENOENT)
		ok++;
	if (access("/etc/passwd", R_OK) == 0)
		ok++;
	n = readlink("/proc/thread-self/cwd", buf, sizeof(buf) - 1);
	if (n > 0 && (buf[n] = '\0', strcmp(buf, want_cwd) == 0))
		ok++;
	return ok;
}

static void *worker(void *arg)
{
	long ok = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS; i++)
		ok += calls();
	return (void *)ok;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	int n = argc > 1 ? atoi(argv[1]) : 80;
	long total = 0;
	int status = 0;
	pid_t pid;

	if (n < 1 || n > MAX_THREADS || stat("/etc/passwd", &want) < 0 ||
	    getcwd(want_cwd, sizeof(want_cwd)) == NULL)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL) != 0)
			return 2;
	pthread_barrier_wait(&start);
	for (int i = 0; i < n; i++) {
		void *ok;

		pthread_join(th[i], &ok);
		total += (long)ok;
	}
	pid = fork();
	if (pid == 0)
		_exit(calls() == 4 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 2;
	printf("threads %d: %ld of %d calls as expected; child %s\n", n, total, n * ROUNDS * 4,
	       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "wrong");
	return total == (long)n * ROUNDS * 4 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0
											      : 1;
}
