/*
 * notify_cost - what one traced stat(2) costs on this machine, four ways:
 * natively; under a ptrace tracer that stops at its entry and exit (as
 * strace --seccomp-bpf and repro --ptrace-only do); answered through
 * seccomp user notification by a supervisor that performs the call and
 * writes the result back (as repro does, seccomp_unotify(2)); and the same
 * with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux >= 6.6).  Only the
 * mechanism: no recording.  docs/performance.md quotes its numbers.
 *
 *     cc -O2 -o /tmp/notify_cost bench/notify_cost.c && /tmp/notify_cost [N]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

static long n_calls = 100000;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* newfstatat -> ret, everything else allowed */
static int install(unsigned ret, unsigned flags)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_newfstatat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ret),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { .len = 4, .filter = f };

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}

static void work(void)
{
	struct stat st;

	for (long i = 0; i < n_calls; i++)
		fstatat(AT_FDCWD, "/etc/passwd", &st, 0);
}

static void run_ptrace(void)
{
	struct __ptrace_syscall_info si;
	int status;
	pid_t c = fork();

	if (c == 0) {
		raise(SIGSTOP);
		install(SECCOMP_RET_TRACE, 0);
		work();
		_exit(0);
	}
	waitpid(c, &status, WSTOPPED);
	ptrace(PTRACE_SEIZE, c, 0,
	       PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	kill(c, SIGCONT);
	while (waitpid(c, &status, __WALL) == c && !WIFEXITED(status)) {
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8))) {
			char path[256];
			struct iovec l = { path, sizeof(path) }, r = { 0, sizeof(path) };

			ptrace(PTRACE_GET_SYSCALL_INFO, c, sizeof(si), &si);
			r.iov_base = (void *)(uintptr_t)si.seccomp.args[1];
			process_vm_readv(c, &l, 1, &r, 1, 0);
			ptrace(PTRACE_SYSCALL, c, 0, 0); /* stop again at its exit */
		} else if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			ptrace(PTRACE_GET_SYSCALL_INFO, c, sizeof(si), &si);
			ptrace(PTRACE_CONT, c, 0, 0);
		} else {
			int sig = WSTOPSIG(status);

			ptrace(PTRACE_CONT, c, 0, sig == SIGSTOP || sig == SIGCONT ? 0 : sig);
		}
	}
}

static int recv_fd(int sock)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &byte, 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	int fd = -1;

	if (recvmsg(sock, &m, 0) == 1 && CMSG_FIRSTHDR(&m) != NULL)
		memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(fd));
	return fd;
}

static void send_fd(int sock, int fd)
{
	char byte = 'L', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &byte, 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	sendmsg(sock, &m, 0);
}

/* The supervisor performs each stat and writes the result into the child. */
static void run_notify(int sync_wake)
{
	int sv[2], listener;
	pid_t c;

	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	c = fork();
	if (c == 0) {
		int fd = install(SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);

		send_fd(sv[0], fd);
		close(fd);
		work();
		_exit(0);
	}
	listener = recv_fd(sv[1]);
	if (sync_wake && ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, 1ULL) < 0)
		perror("notify_cost: SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux >= 6.6)");
	for (long i = 0; i < n_calls; i++) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		struct stat st;
		char path[256];
		struct iovec l = { path, sizeof(path) }, r = { 0, sizeof(path) };
		int rc;

		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
			break;
		r.iov_base = (void *)(uintptr_t)req.data.args[1];
		process_vm_readv(req.pid, &l, 1, &r, 1, 0);
		rc = fstatat(AT_FDCWD, path, &st, 0);
		l = (struct iovec){ &st, sizeof(st) };
		r = (struct iovec){ (void *)(uintptr_t)req.data.args[2], sizeof(st) };
		process_vm_writev(req.pid, &l, 1, &r, 1, 0);
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.val = rc;
		ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	waitpid(c, NULL, 0);
	close(listener);
	close(sv[0]);
	close(sv[1]);
}

static void report(const char *what, double t0)
{
	printf("%-34s %7.2f us per stat\n", what, (now_s() - t0) / (double)n_calls * 1e6);
}

int main(int argc, char **argv)
{
	double t0;

	if (argc > 1)
		n_calls = atol(argv[1]);
	t0 = now_s();
	work();
	report("native", t0);
	t0 = now_s();
	run_ptrace();
	report("ptrace, entry and exit stops", t0);
	t0 = now_s();
	run_notify(0);
	report("user notification, answered", t0);
	t0 = now_s();
	run_notify(1);
	report("... with SYNC_WAKE_UP", t0);
	return 0;
}
