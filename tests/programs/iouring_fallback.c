/*
 * iouring_fallback FILE - sets up an io_uring (io_uring_setup(2)); when that
 * fails with ENOSYS it falls back to plain open+read of FILE, as programs
 * that support old kernels do.  Prints which way it went:
 *	io_uring: available
 *	io_uring: ENOSYS, falling back to read(2)
 *	read N bytes
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct io_uring_params p;
	char buf[4096];
	ssize_t n;
	long fd;
	int in;

	if (argc != 2) {
		fprintf(stderr, "usage: iouring_fallback FILE\n");
		return 2;
	}
	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 4, &p);
	if (fd >= 0) {
		printf("io_uring: available\n");
		close((int)fd);
	} else {
		printf("io_uring: %s%s\n", strerrorname_np(errno),
		       errno == ENOSYS ? ", falling back to read(2)" : "");
	}
	in = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		perror("iouring_fallback: open");
		return 1;
	}
	n = read(in, buf, sizeof(buf));
	printf("read %zd bytes\n", n);
	close(in);
	return 0;
}
