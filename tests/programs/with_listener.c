/*
 * with_listener CMD [ARG...] - run CMD under a seccomp filter that already
 * has a user-notification listener, as a container supervisor would give
 * it (seccomp_unotify(2)).  The kernel allows one listener per filter
 * chain, so a tracer started as CMD cannot get one (EBUSY) and must fall
 * back to ptrace stops.  The filter notifies uname(2) only; a thread
 * answers every notification with SECCOMP_USER_NOTIF_FLAG_CONTINUE.
 * Exits with CMD's status (128 + N when signal N killed it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *answer(void *arg)
{
	int fd = *(int *)arg;

	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;

		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			return NULL;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_uname, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	static int listener;
	pthread_t th;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: with_listener CMD [ARG...]\n");
		return 2;
	}
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return perror("with_listener: no_new_privs"), 2;
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0)
		return perror("with_listener: seccomp"), 2;
	if (pthread_create(&th, NULL, answer, &listener) != 0)
		return 2;
	pid = fork();
	if (pid == 0) {
		close(listener);
		execvp(argv[1], argv + 1);
		perror("with_listener: exec");
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 2;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
