/*
 * connect_stalled - TCP connects that never get an answer.
 *
 * A loopback listener with backlog 0 and one connection waiting in its
 * accept queue drops further SYNs (the queue is full; tcp_conn_request in
 * the kernel), so a connect to it stays in SYN-SENT:
 *   1. non-blocking connect: EINPROGRESS, poll(2) for WAIT_MS, then close:
 *      the program abandons it;
 *   2. blocking connect with TCP_SYNCNT=1: the kernel gives up after two
 *      SYNs (about 3 s) with ETIMEDOUT.
 *	connect_stalled [WAIT_MS]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int full_listener(struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), c;

	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = 0;
	if (l < 0 || bind(l, (struct sockaddr *)sin, sizeof(*sin)) < 0 || listen(l, 0) < 0 ||
	    getsockname(l, (struct sockaddr *)sin, &len) < 0) {
		perror("connect_stalled: listener");
		return -1;
	}
	/* one connection fills the accept queue of a backlog-0 listener */
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (struct sockaddr *)sin, sizeof(*sin)) < 0) {
		perror("connect_stalled: first connect");
		return -1;
	}
	return l;
}

int main(int argc, char **argv)
{
	int wait_ms = argc > 1 ? atoi(argv[1]) : 500, one = 1, fd, rc;
	struct sockaddr_in sin;
	struct pollfd pfd;

	if (full_listener(&sin) < 0)
		return 1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	printf("nonblocking connect: %s\n", rc == 0 ? "0" : strerrorname_np(errno));
	pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
	rc = poll(&pfd, 1, wait_ms);
	printf("poll: %s\n", rc == 0 ? "timed out" : "ready");
	close(fd);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (setsockopt(fd, IPPROTO_TCP, TCP_SYNCNT, &one, sizeof(one)) < 0)
		perror("connect_stalled: TCP_SYNCNT");
	rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	printf("blocking connect: %s\n", rc == 0 ? "0" : strerrorname_np(errno));
	close(fd);
	return 0;
}
