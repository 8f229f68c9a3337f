/*
 * unix_connect - connect(2) to AF_UNIX addresses that have no listener.
 *
 * A filesystem path that does not exist gives ENOENT; an abstract name
 * (sun_path[0] == '\0', unix(7)) that nobody bound gives ECONNREFUSED.
 * The abstract address length counts only the bytes of the name.
 *	unix_connect PATH
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "oracle.h"

static const char abstract_name[] = "repro-test-no-such-abstract-socket";

static int connect_path(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sysres r;

	if (fd < 0 || strlen(path) >= sizeof(sun.sun_path))
		return 1;
	strcpy(sun.sun_path, path);
	r = SYS(SYS_connect, fd, &sun, sizeof(sun));
	oracle_call(r, "connect(%d, {sa_family=AF_UNIX, sun_path=\"%s\"}, %zu)", fd, path,
		    sizeof(sun));
	oracle_note("addr", "unix:%s", path);
	close(fd);
	return r.rc < 0 && r.err == ENOENT ? 0 : 1;
}

static int connect_abstract(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len =
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(abstract_name));
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sysres r;

	if (fd < 0)
		return 1;
	memcpy(sun.sun_path + 1, abstract_name, strlen(abstract_name));
	r = SYS(SYS_connect, fd, &sun, len);
	oracle_call(r, "connect(%d, {sa_family=AF_UNIX, sun_path=@\"%s\"}, %u)", fd, abstract_name,
		    (unsigned)len);
	oracle_note("addr", "abstract:%s", abstract_name);
	close(fd);
	return r.rc < 0 && r.err == ECONNREFUSED ? 0 : 1;
}

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: unix_connect PATH\n");
		return 2;
	}
	bad |= connect_path(argv[1]);
	bad |= connect_abstract();
	return bad;
}
