/*
 * vfork_exec - vfork(2) then execve(2) of /bin/echo in the child.
 *
 * The parent is suspended until the child execs (CLONE_VM|CLONE_VFORK), so a
 * tracer must follow the child before the parent runs again.
 * Output:
 *	vfork_exec: parent pid=N
 *	vforked
 *	vfork_exec: child pid=N exited status=0
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(void)
{
	char *child_argv[] = { "/bin/echo", "vforked", NULL };
	int status;
	pid_t pid;

	printf("vfork_exec: parent pid=%d\n", (int)getpid());
	fflush(stdout); /* the child writes to the same stdout */
	pid = vfork();
	if (pid < 0) {
		perror("vfork_exec: vfork");
		return 1;
	}
	if (pid == 0) {
		execve(child_argv[0], child_argv, environ);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("vfork_exec: waitpid");
		return 1;
	}
	if (!WIFEXITED(status)) {
		printf("vfork_exec: child pid=%d did not exit normally\n", (int)pid);
		return 1;
	}
	printf("vfork_exec: child pid=%d exited status=%d\n", (int)pid, WEXITSTATUS(status));
	return WEXITSTATUS(status);
}
