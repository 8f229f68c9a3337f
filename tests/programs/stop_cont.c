/*
 * stop_cont - job control of a child: it stops itself with SIGSTOP, the
 * parent sees the stop (waitpid WUNTRACED), continues it with SIGCONT, sees
 * that (WCONTINUED) and then its exit.  Under a tracer the stop is a
 * group-stop that must stay visible to the real parent (ptrace(2),
 * PTRACE_LISTEN).
 * Output:
 *	stop_cont: child stopped by SIGSTOP
 *	stop_cont: child continued
 *	stop_cont: child exited 7
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int wait_for(pid_t pid, int flags)
{
	int status;

	if (waitpid(pid, &status, flags) != pid) {
		perror("stop_cont: waitpid");
		_exit(1);
	}
	return status;
}

int main(void)
{
	int gate[2];
	pid_t pid;
	int st;
	char c;

	/* the child exits only once the parent has seen it continue (else waitpid may report the exit) */
	if (pipe(gate) < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(gate[1]);
		raise(SIGSTOP);
		(void)!read(gate[0], &c, 1);
		_exit(7);
	}
	close(gate[0]);
	st = wait_for(pid, WUNTRACED);
	if (WIFSTOPPED(st))
		printf("stop_cont: child stopped by SIG%s\n", sigabbrev_np(WSTOPSIG(st)));
	kill(pid, SIGCONT);
	st = wait_for(pid, WCONTINUED);
	if (WIFCONTINUED(st))
		printf("stop_cont: child continued\n");
	close(gate[1]);
	st = wait_for(pid, 0);
	if (WIFEXITED(st))
		printf("stop_cont: child exited %d\n", WEXITSTATUS(st));
	return 0;
}
