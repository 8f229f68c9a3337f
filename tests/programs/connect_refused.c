/*
 * connect_refused - non-blocking TCP connect to a closed port.
 *
 * connect(2) on a non-blocking socket returns EINPROGRESS; the outcome comes
 * later from getsockopt(SO_ERROR), here ECONNREFUSED (the RST from the peer).
 * Loopback can also refuse at once; both forms are printed as they happen.
 *	connect_refused PORT [IPV4]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oracle.h"

static int check_pending_error(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int soerr = 0;
	socklen_t len = sizeof(soerr);
	struct sysres r;

	if (poll(&pfd, 1, 5000) != 1) {
		printf("connect_refused: poll timed out\n");
		return 1;
	}
	printf("connect_refused: poll ready\n");
	r = SYS(SYS_getsockopt, fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
	oracle_call(r, "getsockopt(%d, SOL_SOCKET, SO_ERROR, [%s], [%u])", fd,
		    soerr ? strerrorname_np(soerr) : "0", (unsigned)len);
	oracle_note("optval", "%s", soerr ? strerrorname_np(soerr) : "0");
	return soerr == ECONNREFUSED ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *ip = argc > 2 ? argv[2] : "127.0.0.1";
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sysres r;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: connect_refused PORT [IPV4]\n");
		return 2;
	}
	sin.sin_port = htons((unsigned short)atoi(argv[1]));
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1) {
		fprintf(stderr, "connect_refused: bad address '%s'\n", ip);
		return 2;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("connect_refused: socket");
		return 1;
	}
	r = SYS(SYS_connect, fd, &sin, sizeof(sin));
	oracle_call(r,
		    "connect(%d, {sa_family=AF_INET, sin_port=htons(%s), "
		    "sin_addr=inet_addr(\"%s\")}, %zu)",
		    fd, argv[1], ip, sizeof(sin));
	oracle_note("addr", "%s:%s", ip, argv[1]);
	if (r.rc < 0 && r.err == EINPROGRESS)
		return check_pending_error(fd);
	return r.rc < 0 && r.err == ECONNREFUSED ? 0 : 1;
}
