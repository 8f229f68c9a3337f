/*
 * try_syscall - attempt one syscall and exit with its errno (0 on success).
 *
 * After bubblewrap's tests/try-syscall.c: a sandbox or seccomp check runs it
 * with and without the sandbox and compares exit statuses.  Each attempt is
 * harmless when it succeeds (a private namespace of this process only, a
 * chroot to "/", a setuid to the current uid).
 * bind-low binds a port below 1024 (CAP_NET_BIND_SERVICE), raw opens a raw
 * ICMP socket (CAP_NET_RAW), as root-started servers and ping do.
 *	try_syscall unshare|unshare-user|mount|chroot|setuid|bind-low|raw
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oracle.h"

struct attempt {
	const char *name;
	const char *text;
	struct sysres (*run)(void);
};

static struct sysres try_unshare(void)
{
	return SYS(SYS_unshare, CLONE_NEWNS);
}

static struct sysres try_unshare_user(void)
{
	return SYS(SYS_unshare, CLONE_NEWUSER);
}

/* The target is missing, so even a caller allowed to mount changes nothing. */
static struct sysres try_mount(void)
{
	return SYS(SYS_mount, "none", "/nonexistent-try-syscall", "tmpfs", 0UL, NULL);
}

static struct sysres try_chroot(void)
{
	return SYS(SYS_chroot, "/");
}

static struct sysres try_setuid(void)
{
	return SYS(SYS_setuid, getuid());
}

/* A port below 1024 on loopback: the first of 1019..1000 that nothing holds. */
static struct sysres try_bind_low(void)
{
	struct sysres r = { -1, EADDRINUSE };

	for (int port = 1019; port >= 1000 && r.rc < 0 && r.err == EADDRINUSE; port--) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons((unsigned short)port),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return (struct sysres){ -1, errno };
		r = SYS(SYS_bind, fd, &sa, sizeof(sa));
		close(fd);
	}
	return r;
}

static struct sysres try_raw(void)
{
	struct sysres r = SYS(SYS_socket, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);

	if (r.rc >= 0) {
		close((int)r.rc);
		r.rc = 0;
	}
	return r;
}

static const struct attempt attempts[] = {
	{ .name = "unshare", .text = "unshare(CLONE_NEWNS)", .run = try_unshare },
	{ .name = "unshare-user", .text = "unshare(CLONE_NEWUSER)", .run = try_unshare_user },
	{ .name = "mount",
	  .text = "mount(\"none\", \"/nonexistent-try-syscall\", \"tmpfs\", 0, NULL)",
	  .run = try_mount },
	{ .name = "chroot", .text = "chroot(\"/\")", .run = try_chroot },
	{ .name = "setuid", .text = "setuid(getuid())", .run = try_setuid },
	{ .name = "bind-low", .text = "bind(127.0.0.1:1019..1000)", .run = try_bind_low },
	{ .name = "raw", .text = "socket(AF_INET, SOCK_RAW, IPPROTO_ICMP)", .run = try_raw },
};

int main(int argc, char **argv)
{
	size_t i;

	for (i = 0; argc == 2 && i < sizeof(attempts) / sizeof(attempts[0]); i++) {
		if (strcmp(argv[1], attempts[i].name) == 0) {
			struct sysres r = attempts[i].run();

			oracle_call(r, "%s", attempts[i].text);
			return r.rc < 0 ? r.err : 0;
		}
	}
	fprintf(stderr,
		"usage: try_syscall unshare|unshare-user|mount|chroot|setuid|bind-low|raw\n");
	return 255;
}
