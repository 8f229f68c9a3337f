#ifndef REPRO_LAUNCHER_SYSCALLS_H
#define REPRO_LAUNCHER_SYSCALLS_H

/*
 * Wrappers for syscalls libc does not wrap, and fallbacks for constants that
 * older headers lack (crun's syscalls.h).  The only home of such #ifndefs.
 */

#include <errno.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc >= 2.32 declares PTRACE_GET_SYSCALL_INFO and struct __ptrace_syscall_info. */
#ifndef PTRACE_SET_SYSCALL_INFO
#define PTRACE_SET_SYSCALL_INFO 0x4212
#endif
#ifndef PTRACE_O_EXITKILL
#define PTRACE_O_EXITKILL (1 << 20)
#endif

/* seccomp_unotify(2): Linux >= 5.19 and 6.6 additions that older headers lack. */
#include <linux/seccomp.h>
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* seccomp(2) with SECCOMP_SET_MODE_FILTER; -1 with errno (ENOSYS when missing). */
static inline int lnch_sys_seccomp(unsigned int op, unsigned int flags, void *args)
{
#ifdef __NR_seccomp
	return (int)syscall(__NR_seccomp, op, flags, args);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* pidfd_open(2), Linux >= 5.3; -1 with errno (ENOSYS when missing). */
static inline int lnch_sys_pidfd_open(pid_t pid)
{
#ifdef __NR_pidfd_open
	return (int)syscall(__NR_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* pidfd_getfd(2), Linux >= 5.6: a copy of the target's fd (O_CLOEXEC); -1 with errno. */
static inline int lnch_sys_pidfd_getfd(int pidfd, int fd)
{
#ifdef __NR_pidfd_getfd
	return (int)syscall(__NR_pidfd_getfd, pidfd, fd, 0);
#else
	(void)pidfd;
	(void)fd;
	errno = ENOSYS;
	return -1;
#endif
}

/* mount_setattr(2), Linux >= 5.12 (struct mount_attr of <linux/mount.h>); -1 with errno. */
#include <linux/mount.h>
static inline int lnch_sys_mount_setattr(const char *path, unsigned int flags, uint64_t set,
					 uint64_t clr)
{
#ifdef __NR_mount_setattr
	struct mount_attr attr = { .attr_set = set, .attr_clr = clr };

	return (int)syscall(__NR_mount_setattr, -100 /* AT_FDCWD */, path, flags, &attr,
			    sizeof(attr));
#else
	(void)path;
	(void)flags;
	(void)set;
	(void)clr;
	errno = ENOSYS;
	return -1;
#endif
}

#endif
