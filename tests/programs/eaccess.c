/*
 * eaccess PATH - print the effective uid and what faccessat2(2) with
 * AT_EACCESS says of reading PATH: the check a set-user-ID program makes
 * with its own (effective) credentials.  Installed set-user-ID to another
 * user by tests/integration/record_options.sh, it proves that repro does
 * not answer such a program's path calls with its own credentials.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long rc;

	if (argc != 2) {
		fprintf(stderr, "usage: eaccess PATH\n");
		return 2;
	}
	rc = syscall(SYS_faccessat2, AT_FDCWD, argv[1], R_OK, AT_EACCESS);
	printf("euid %d faccessat2(%s, R_OK, AT_EACCESS) = %s\n", (int)geteuid(), argv[1],
	       rc == 0 ? "0" : strerrorname_np(errno));
	return 0;
}
