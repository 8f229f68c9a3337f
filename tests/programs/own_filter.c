/*
 * own_filter - install a seccomp filter of its own, as a container
 * runtime's default profile or a sandboxed service does, then make calls it
 * denies and calls it allows.
 *
 * The filter returns EPERM for clone3 (the classic: glibc's pthread_create
 * uses clone3 and falls back to clone only on ENOSYS, so threads break) and
 * EACCES for access(2), and SECCOMP_RET_TRACE for getppid (which fails with
 * ENOSYS when no tracer takes it); everything else is allowed.  Under repro the
 * denied calls never reach repro's filter (seccomp(2): the action of
 * highest precedence wins), so repro must see them by other means.
 * With tsync, a thread started before the install (so already running
 * when the filter arrives through SECCOMP_FILTER_FLAG_TSYNC) makes the
 * denied access(2).
 *	own_filter [prctl|tsync]   install with seccomp(2), prctl(PR_SET_SECCOMP)
 *	                           or seccomp(2) with TSYNC
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oracle.h"

#define DENY(nr, errnum)                                 \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (errnum))

static struct sock_filter insns[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	DENY(SYS_clone3, EPERM),
	DENY(SYS_access, EACCES),
	/* for a tracer: with none, the kernel fails the call with ENOSYS (seccomp(2)) */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 7),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static void *thread_main(void *arg)
{
	return arg;
}

static int go[2]; /* tsync: main writes a byte once the filter is in place */

/* The thread that runs before the install: its access(2) comes after it. */
static void *early_main(void *arg)
{
	char byte;
	struct sysres r;

	if (read(go[0], &byte, 1) != 1)
		return arg;
	r = SYS(SYS_access, "/etc/hostname", F_OK);
	oracle_call(r, "access(\"/etc/hostname\", F_OK)");
	oracle_note("path", "/etc/hostname");
	return arg;
}

int main(int argc, char **argv)
{
	struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]), .filter = insns };
	bool use_prctl = argc > 1 && strcmp(argv[1], "prctl") == 0;
	bool tsync = argc > 1 && strcmp(argv[1], "tsync") == 0;
	struct sysres r;
	pthread_t t, early;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("prctl(PR_SET_NO_NEW_PRIVS)");
		return 1;
	}
	if (tsync && (pipe(go) < 0 || pthread_create(&early, NULL, early_main, NULL) != 0)) {
		perror("own_filter: thread");
		return 1;
	}
	if (use_prctl)
		r = SYS(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	else
		r = SYS(SYS_seccomp, SECCOMP_SET_MODE_FILTER, tsync ? SECCOMP_FILTER_FLAG_TSYNC : 0,
			&prog);
	printf("installed a filter: clone3 -> EPERM, access -> EACCES (%s)\n",
	       r.rc < 0 ? strerrorname_np(r.err) : "ok");
	if (r.rc < 0)
		return 1;
	if (tsync) {
		/* the thread's denied call first, so that the output's order is fixed */
		if (write(go[1], "g", 1) != 1 || pthread_join(early, NULL) != 0)
			return 1;
	}

	rc = pthread_create(&t, NULL, thread_main, NULL);
	printf("pthread_create = %s\n", rc ? strerrorname_np(rc) : "0");
	if (rc == 0)
		pthread_join(t, NULL);

	r = SYS(SYS_access, "/etc/hostname", F_OK);
	oracle_call(r, "access(\"/etc/hostname\", F_OK)");
	oracle_note("path", "/etc/hostname");
	r = SYS(SYS_getppid);
	printf("getppid() = %s\n", r.rc < 0 ? strerrorname_np(r.err) : "a pid");

	/* allowed by the program's filter: recorded with its result as ever */
	r = SYS(SYS_faccessat, AT_FDCWD, "/nonexistent-own-filter", F_OK);
	oracle_call(r, "faccessat(AT_FDCWD, \"/nonexistent-own-filter\", F_OK)");
	oracle_note("path", "/nonexistent-own-filter");
	r = SYS(SYS_openat, AT_FDCWD, "/nonexistent-own-filter", O_RDONLY);
	oracle_call(r, "openat(AT_FDCWD, \"/nonexistent-own-filter\", O_RDONLY)");
	oracle_note("path", "/nonexistent-own-filter");
	return rc ? 1 : 0;
}
