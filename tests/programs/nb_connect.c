/*
 * nb_connect - one non-blocking TCP connect to 127.0.0.1:PORT, then poll(2)
 * for at most WAIT_MS and getsockopt(SO_ERROR), as programs with their own
 * connect timeout do.  Prints what connect said, how poll ended, SO_ERROR
 * and the milliseconds it all took, e.g.
 *	connect EINPROGRESS; poll ready; SO_ERROR ECONNREFUSED; 1 ms
 *	nb_connect PORT [WAIT_MS]
 * Exit status: 0 connected, 1 failed, 2 timed out (poll), 3 bad use.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int wait_ms = argc > 2 ? atoi(argv[2]) : 5000, err = 0, fd, rc;
	socklen_t len = sizeof(err);
	struct pollfd p;
	long t0 = now_ms();

	if (argc < 2)
		return 3;
	sin.sin_port = htons((unsigned short)atoi(argv[1]));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	printf("connect %s", rc == 0 ? "0" : strerrorname_np(errno));
	if (rc < 0 && errno != EINPROGRESS) {
		printf("; %ld ms\n", now_ms() - t0);
		return 1;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	rc = poll(&p, 1, wait_ms);
	if (rc == 0) {
		printf("; poll timed out; %ld ms\n", now_ms() - t0);
		return 2;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	printf("; poll ready; SO_ERROR %s; %ld ms\n", err ? strerrorname_np(err) : "0",
	       now_ms() - t0);
	return err ? 1 : 0;
}
