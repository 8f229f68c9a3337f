/* Refused, blackholed and timed-out connects that the kernel plays out (launcher/netfault.h). */
#include "launcher/netfault.h"
#include "launcher/arch/arch.h"
#include "launcher/mem.h"
#include "launcher/syscalls.h"
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Below the red zone of the x86-64 and other ABIs, room for the substitute sockaddr. */
#define STACK_GAP 512

void lnch_netfault_init(struct lnch_netfault *nf)
{
	memset(nf, 0, sizeof(*nf));
}

void lnch_netfault_release(struct lnch_netfault *nf)
{
	for (int i = 0; i < nf->nfds; i++)
		close(nf->fds[i]);
	memset(nf, 0, sizeof(*nf));
}

/* A loopback TCP socket of family fam bound to port 0, listening (backlog 0) or not. */
static int loopback_socket(int fam, bool listening)
{
	struct sockaddr_in in = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, fam == AF_INET ? (struct sockaddr *)&in : (struct sockaddr *)&in6,
		 fam == AF_INET ? sizeof(in) : sizeof(in6)) < 0 ||
	    (listening && listen(fd, 0) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * In the helper child: for each family, a refuser, a listener and the
 * connections that fill its accept queue; their fds in out (at most
 * LNCH_NETFAULT_FDS), in that order, -1 for what could not be made.
 */
static int make_endpoints(int *out)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	int n = 0;

	for (size_t f = 0; f < 2; f++) {
		int hole = loopback_socket(fams[f], true);
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		out[n++] = loopback_socket(fams[f], false);
		out[n++] = hole;
		for (int k = 0; k < 3; k++) {
			int c = hole >= 0 ? socket(fams[f],
						   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)
					  : -1;

			if (c >= 0 && (getsockname(hole, (struct sockaddr *)&ss, &len) < 0 ||
				       (connect(c, (struct sockaddr *)&ss, len) < 0 &&
					errno != EINPROGRESS))) {
				close(c);
				c = -1;
			}
			if (c >= 0 &&
			    k == 0) { /* this one fills the queue (backlog 0); the others wait */
				struct pollfd p = { .fd = c, .events = POLLOUT };

				(void)poll(&p, 1, 200);
			}
			out[n++] = c;
		}
	}
	return n;
}

/* Send fds (n, -1 ones as fd 0 never sent: a mask says which) over sock. */
static void send_fds(int sock, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(sizeof(int) * LNCH_NETFAULT_FDS)];
	unsigned char mask[LNCH_NETFAULT_FDS] = { 0 };
	int real[LNCH_NETFAULT_FDS], k = 0;
	struct iovec io = { .iov_base = mask, .iov_len = sizeof(mask) };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1 };
	struct cmsghdr *c;

	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			mask[i] = 1;
			real[k++] = fds[i];
		}
	if (k > 0) {
		m.msg_control = cbuf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)k);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)k);
		memcpy(CMSG_DATA(c), real, sizeof(int) * (size_t)k);
	}
	(void)sendmsg(sock, &m, MSG_NOSIGNAL);
}

/* stat(2) of /proc/PID/ns/NAME (pid 0: the tracer's own) into *st; -1 when gone. */
static int ns_stat(pid_t pid, const char *name, struct stat *st)
{
	char path[64];

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	else
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, name);
	return stat(path, st);
}

/* Whether /proc/PID/ns/NAME is the tracer's own namespace. */
static bool same_ns(pid_t pid, const char *name)
{
	struct stat a, b;

	if (ns_stat(pid, name, &a) < 0)
		return true;
	return ns_stat(0, name, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* The helper: join pid's user and network namespaces, make the endpoints, send them, exit. */
static void helper_main(int sock, pid_t pid)
{
	int fds[LNCH_NETFAULT_FDS];
	char path[64];
	int nsfd;

	if (same_ns(pid, "net")) { /* --net=host: the tracer's own loopback */
		send_fds(sock, fds, make_endpoints(fds));
		_exit(0);
	}
	if (!same_ns(pid, "user")) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0 || setns(nsfd, CLONE_NEWUSER) < 0)
			_exit(1);
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0)
		_exit(1);
	send_fds(sock, fds, make_endpoints(fds));
	_exit(0);
}

/* Receive what helper_main() sent: fds into nf->fds in order, -1 where the mask says none. */
static int recv_fds(int sock, int *out)
{
	char cbuf[CMSG_SPACE(sizeof(int) * LNCH_NETFAULT_FDS)];
	unsigned char mask[LNCH_NETFAULT_FDS];
	int got[LNCH_NETFAULT_FDS], k = 0, ngot = 0;
	struct iovec io = { .iov_base = mask, .iov_len = sizeof(mask) };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	struct cmsghdr *c;

	ssize_t n;

	do /* a caller's interval timer (the cli's) may interrupt it */
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(mask))
		return -1;
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			ngot = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(got, CMSG_DATA(c), sizeof(int) * (size_t)ngot);
		}
	for (int i = 0; i < LNCH_NETFAULT_FDS; i++)
		out[i] = mask[i] && k < ngot ? got[k++] : -1;
	return 0;
}

/* The address of endpoint fd into *dst (len bytes); false when it has none. */
static bool addr_of(int fd, void *dst, socklen_t len)
{
	socklen_t l = len;

	return fd >= 0 && getsockname(fd, (struct sockaddr *)dst, &l) == 0 && l == len;
}

/* Fork helper_main() for pid and take what it sends into nf; reap it. */
static void run_helper(struct lnch_netfault *nf, pid_t pid)
{
	int sv[2], fds[LNCH_NETFAULT_FDS];
	pid_t child;
	int status;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	child = fork();
	if (child == 0) {
		close(sv[0]);
		helper_main(sv[1], pid);
	}
	close(sv[1]);
	if (child > 0 && recv_fds(sv[0], fds) == 0) {
		for (int i = 0; i < LNCH_NETFAULT_FDS; i++)
			if (fds[i] >= 0)
				nf->fds[nf->nfds++] = fds[i];
		nf->has4 = addr_of(fds[0], &nf->refuse4, sizeof(nf->refuse4)) &&
			   addr_of(fds[1], &nf->hole4, sizeof(nf->hole4));
		nf->has6 = addr_of(fds[5], &nf->refuse6, sizeof(nf->refuse6)) &&
			   addr_of(fds[6], &nf->hole6, sizeof(nf->hole6));
	}
	close(sv[0]);
	/* a specific pid: the loop's waitpid(-1) never sees the helper */
	while (child > 0 && waitpid(child, &status, __WALL) < 0 && errno == EINTR)
		;
}

void lnch_netfault_prepare(struct lnch_netfault *nf, pid_t pid)
{
	struct stat ns;

	/* pid is traced and not reaped: its number cannot name another process meanwhile */
	if (ns_stat(pid, "net", &ns) < 0)
		return;
	nf->ns_dev = ns.st_dev;
	nf->ns_ino = ns.st_ino;
	run_helper(nf, pid);
}

/* Whether pid's network namespace is the endpoints' (a process may make its own). */
static bool in_endpoints_ns(const struct lnch_netfault *nf, pid_t pid)
{
	struct stat ns;

	return ns_stat(pid, "net", &ns) == 0 && ns.st_dev == nf->ns_dev && ns.st_ino == nf->ns_ino;
}

/* TCP_USER_TIMEOUT on pid's fd, through a copy of it. */
static void set_user_timeout(pid_t pid, int fd, uint32_t ms)
{
	cleanup_close int pidfd = lnch_sys_pidfd_open(pid);
	cleanup_close int copy = pidfd >= 0 ? lnch_sys_pidfd_getfd(pidfd, fd) : -1;
	unsigned int v = ms;

	if (copy >= 0)
		(void)setsockopt(copy, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, sizeof(v));
}

bool lnch_netfault_redirect(struct lnch_netfault *nf, pid_t tid, pid_t pid, int family,
			    enum lnch_net_fault fault, uint32_t timeout_ms, const uint64_t args[6])
{
	bool refuse = fault == LNCH_NET_REFUSE;
	const void *sa;
	size_t len;
	uint64_t sp, at;

	if ((!nf->has4 && !nf->has6) || !in_endpoints_ns(nf, pid))
		return false;
	if (family == AF_INET && nf->has4) {
		sa = refuse ? &nf->refuse4 : &nf->hole4;
		len = sizeof(struct sockaddr_in);
	} else if (family == AF_INET6 && nf->has6) {
		sa = refuse ? (const void *)&nf->refuse6 : &nf->hole6;
		len = sizeof(struct sockaddr_in6);
	} else {
		return false;
	}
	if (lnch_arch_stack_pointer(tid, &sp, NULL) < 0)
		return false;
	at = (sp - STACK_GAP - len) & ~(uint64_t)15;
	if (lnch_mem_write(tid, at, sa, len) < 0 || lnch_arch_set_arg(tid, 1, at, NULL) < 0 ||
	    lnch_arch_set_arg(tid, 2, len, NULL) < 0)
		return false;
	if (fault == LNCH_NET_TIMEOUT && timeout_ms > 0)
		set_user_timeout(pid, (int)args[0], timeout_ms);
	return true;
}
