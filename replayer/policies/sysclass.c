#include "replayer/policies/sysclass.h"

#include <string.h>

#define CF RPL_SYSCLASS_FILE
#define CN RPL_SYSCLASS_NETWORK
#define CP RPL_SYSCLASS_PROCESS
#define CD RPL_SYSCLASS_DESC
#define IO RPL_SYSCLASS_IO
#define SC(name, bits)      \
	{                   \
#name, bits \
	}

/*
 * Sorted by name (rpl_sysclass_of() searches it).  Each row's CF/CN/CP/CD
 * are strace v6.19's TF/TN/TP/TD for that call on x86_64; IO marks the
 * read/write/send/recv families, sendfile, copy_file_range and splice.
 * Calls in none of these classes have no row.
 */
static const struct {
	const char *name;
	unsigned bits;
} table[] = {
	SC(accept, CN),
	SC(accept4, CN),
	SC(access, CF),
	SC(acct, CF),
	SC(bind, CN),
	SC(bpf, CD),
	SC(cachestat, CD),
	SC(chdir, CF),
	SC(chmod, CF),
	SC(chown, CF),
	SC(chroot, CF),
	SC(clone, CP),
	SC(clone3, CP),
	SC(close, CD),
	SC(connect, CN),
	SC(copy_file_range, CD | IO),
	SC(creat, CF | CD),
	SC(dup, CD),
	SC(dup2, CD),
	SC(dup3, CD),
	SC(epoll_create, CD),
	SC(epoll_create1, CD),
	SC(epoll_ctl, CD),
	SC(epoll_pwait, CD),
	SC(epoll_pwait2, CD),
	SC(epoll_wait, CD),
	SC(eventfd, CD),
	SC(eventfd2, CD),
	SC(execve, CF | CP),
	SC(execveat, CF | CP | CD),
	SC(exit, CP),
	SC(exit_group, CP),
	SC(faccessat, CF | CD),
	SC(faccessat2, CF | CD),
	SC(fadvise64, CD),
	SC(fallocate, CD),
	SC(fanotify_init, CD),
	SC(fanotify_mark, CF | CD),
	SC(fchdir, CD),
	SC(fchmod, CD),
	SC(fchmodat, CF | CD),
	SC(fchmodat2, CF | CD),
	SC(fchown, CD),
	SC(fchownat, CF | CD),
	SC(fcntl, CD),
	SC(fdatasync, CD),
	SC(fgetxattr, CD),
	SC(file_getattr, CF | CD),
	SC(file_setattr, CF | CD),
	SC(finit_module, CD),
	SC(flistxattr, CD),
	SC(flock, CD),
	SC(fork, CP),
	SC(fremovexattr, CD),
	SC(fsconfig, CF | CD),
	SC(fsetxattr, CD),
	SC(fsmount, CD),
	SC(fsopen, CD),
	SC(fspick, CF | CD),
	SC(fstat, CD),
	SC(fstatfs, CD),
	SC(fsync, CD),
	SC(ftruncate, CD),
	SC(futimesat, CF | CD),
	SC(getcwd, CF),
	SC(getdents, CD),
	SC(getdents64, CD),
	SC(getpeername, CN),
	SC(getpmsg, CN),
	SC(getsockname, CN),
	SC(getsockopt, CN),
	SC(getxattr, CF),
	SC(getxattrat, CF | CD),
	SC(inotify_add_watch, CF | CD),
	SC(inotify_init, CD),
	SC(inotify_init1, CD),
	SC(inotify_rm_watch, CD),
	SC(io_uring_enter, CD),
	SC(io_uring_register, CD),
	SC(io_uring_setup, CD),
	SC(ioctl, CD),
	SC(kexec_file_load, CD),
	SC(kill, CP),
	SC(landlock_add_rule, CD),
	SC(landlock_create_ruleset, CD),
	SC(landlock_restrict_self, CD),
	SC(lchown, CF),
	SC(lgetxattr, CF),
	SC(link, CF),
	SC(linkat, CF | CD),
	SC(listen, CN),
	SC(listxattr, CF),
	SC(listxattrat, CF | CD),
	SC(llistxattr, CF),
	SC(lremovexattr, CF),
	SC(lseek, CD),
	SC(lsetxattr, CF),
	SC(lstat, CF),
	SC(memfd_create, CD),
	SC(memfd_secret, CD),
	SC(mkdir, CF),
	SC(mkdirat, CF | CD),
	SC(mknod, CF),
	SC(mknodat, CF | CD),
	SC(mmap, CD),
	SC(mount, CF),
	SC(mount_setattr, CF | CD),
	SC(move_mount, CF | CD),
	SC(mq_getsetattr, CD),
	SC(mq_notify, CD),
	SC(mq_open, CD),
	SC(mq_timedreceive, CD),
	SC(mq_timedsend, CD),
	SC(name_to_handle_at, CF | CD),
	SC(newfstatat, CF | CD),
	SC(open, CF | CD),
	SC(open_by_handle_at, CD),
	SC(open_tree, CF | CD),
	SC(open_tree_attr, CF | CD),
	SC(openat, CF | CD),
	SC(openat2, CF | CD),
	SC(perf_event_open, CD),
	SC(pidfd_getfd, CD),
	SC(pidfd_open, CD),
	SC(pidfd_send_signal, CP | CD),
	SC(pipe, CD),
	SC(pipe2, CD),
	SC(pivot_root, CF),
	SC(poll, CD),
	SC(ppoll, CD),
	SC(pread64, CD | IO),
	SC(preadv, CD | IO),
	SC(preadv2, CD | IO),
	SC(process_madvise, CD),
	SC(process_mrelease, CD),
	SC(pselect6, CD),
	SC(putpmsg, CN),
	SC(pwrite64, CD | IO),
	SC(pwritev, CD | IO),
	SC(pwritev2, CD | IO),
	SC(quotactl, CF),
	SC(quotactl_fd, CD),
	SC(read, CD | IO),
	SC(readahead, CD),
	SC(readlink, CF),
	SC(readlinkat, CF | CD),
	SC(readv, CD | IO),
	SC(recvfrom, CN | IO),
	SC(recvmmsg, CN | IO),
	SC(recvmsg, CN | IO),
	SC(removexattr, CF),
	SC(removexattrat, CF | CD),
	SC(rename, CF),
	SC(renameat, CF | CD),
	SC(renameat2, CF | CD),
	SC(rmdir, CF),
	SC(rt_sigqueueinfo, CP),
	SC(rt_tgsigqueueinfo, CP),
	SC(select, CD),
	SC(sendfile, CN | CD | IO),
	SC(sendmmsg, CN | IO),
	SC(sendmsg, CN | IO),
	SC(sendto, CN | IO),
	SC(setns, CD),
	SC(setsockopt, CN),
	SC(setxattr, CF),
	SC(setxattrat, CF | CD),
	SC(shutdown, CN),
	SC(signalfd, CD),
	SC(signalfd4, CD),
	SC(socket, CN),
	SC(socketpair, CN),
	SC(splice, CD | IO),
	SC(stat, CF),
	SC(statfs, CF),
	SC(statx, CF | CD),
	SC(swapoff, CF),
	SC(swapon, CF),
	SC(symlink, CF),
	SC(symlinkat, CF | CD),
	SC(sync_file_range, CD),
	SC(syncfs, CD),
	SC(tee, CD),
	SC(tgkill, CP),
	SC(timerfd_create, CD),
	SC(timerfd_gettime, CD),
	SC(timerfd_settime, CD),
	SC(tkill, CP),
	SC(truncate, CF),
	SC(umount2, CF),
	SC(unlink, CF),
	SC(unlinkat, CF | CD),
	SC(uselib, CF),
	SC(userfaultfd, CD),
	SC(utime, CF),
	SC(utimensat, CF | CD),
	SC(utimes, CF),
	SC(vfork, CP),
	SC(vmsplice, CD),
	SC(wait4, CP),
	SC(waitid, CP),
	SC(write, CD | IO),
	SC(writev, CD | IO),
};

#undef SC
#undef CF
#undef CN
#undef CP
#undef CD
#undef IO

static const struct {
	const char *name;
	unsigned bits;
} classes[] = {
	{ "%file", RPL_SYSCLASS_FILE },
	{ "%network", RPL_SYSCLASS_NETWORK },
	{ "%net", RPL_SYSCLASS_NETWORK },
	{ "%process", RPL_SYSCLASS_PROCESS },
	{ "%desc", RPL_SYSCLASS_DESC },
	/* strace's legacy spellings */
	{ "file", RPL_SYSCLASS_FILE },
	{ "network", RPL_SYSCLASS_NETWORK },
	{ "process", RPL_SYSCLASS_PROCESS },
	{ "desc", RPL_SYSCLASS_DESC },
};

/* glibc's recv(2) and send(2) are recvfrom and sendto on x86_64 (sysdeps/unix/sysv/linux). */
static const struct {
	const char *libc, *kernel;
} aliases[] = {
	{ "recv", "recvfrom" },
	{ "send", "sendto" },
};

unsigned rpl_sysclass_of(const char *name)
{
	size_t lo = 0, hi = sizeof(table) / sizeof(table[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, table[mid].name);

		if (c == 0)
			return table[mid].bits;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

unsigned rpl_sysclass_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strcmp(name, classes[i].name) == 0)
			return classes[i].bits;
	return 0;
}

const char *rpl_sysclass_name(size_t i)
{
	return i < sizeof(table) / sizeof(table[0]) ? table[i].name : NULL;
}

const char *rpl_sysclass_class_name(size_t i)
{
	return i < sizeof(classes) / sizeof(classes[0]) ? classes[i].name : NULL;
}

const char *rpl_sysclass_alias(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].libc) == 0)
			return aliases[i].kernel;
	return NULL;
}
