#include "common/sysent.h"

#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>

/* strace's class flags (src/sysent.h) */
#define TF REPRO_SYS_FILE
#define TN REPRO_SYS_NETWORK
#define TP REPRO_SYS_PROCESS
#define TD REPRO_SYS_DESC
#define T_FILE REPRO_TRACE_FILE
#define T_NET REPRO_TRACE_NETWORK
#define T_PROC REPRO_TRACE_PROCESS
#define T_ALWAYS REPRO_TRACE_ALWAYS
#define T_OUTPUT REPRO_TRACE_OUTPUT
#define T_ON_DEMAND REPRO_TRACE_ON_DEMAND
#define F_NOFOLLOW REPRO_SYSF_NOFOLLOW
#define F_RESHAPES REPRO_SYSF_RESHAPES
#define F_FAILURE_ONLY REPRO_SYSF_FAILURE_ONLY
#define F_NO_RETURN REPRO_SYSF_NO_RETURN
#define F_BEHALF REPRO_SYSF_BEHALF
#define F_ENTRY_ONLY REPRO_SYSF_ENTRY_ONLY
#define F_NETLOG REPRO_SYSF_NETLOG
#define F_DNS_IO REPRO_SYSF_DNS_IO
#define F_CREDS REPRO_SYSF_CREDS
#define F_OWN_FILTER REPRO_SYSF_OWN_FILTER
#define F_WAIT_CHILD REPRO_SYSF_WAIT_CHILD
#define F_BYTES_OUT REPRO_SYSF_BYTES_OUT
#define F_BYPASS REPRO_SYSF_BYPASS
#define F_XATTR REPRO_SYSF_XATTR
#define A(kind, key)           \
	{                      \
		RA_##kind, key \
	}
#define ARGS(...) .args = { __VA_ARGS__ }
#define COND(a, m, v, le, ptrace_only)             \
	.has_cond = true, .cond = { .arg = (a),    \
				    .mask = (m),   \
				    .value = (v),  \
				    .is_le = (le), \
				    .is_ptrace_only = (ptrace_only) }
#define ROW(sname, cls, tr, ...)                                             \
	{                                                                    \
		.name = #sname, .classes = (cls), .trace = (tr), __VA_ARGS__ \
	}

/*
 * Sorted by name (repro_sysent_find() searches it; a unit test checks).
 * Columns: name, strace's classes (TF TN TP TD of src/linux/x86_64/
 * syscallent.h and src/linux/generic/syscallent-common.h at v6.19, the
 * same as strace 6.1 for the calls it knew: tests/integration/
 * strace_classes.txt), when the filter stops it (enum repro_sys_trace),
 * then only the facts that apply.  Argument order is the kernel's (each
 * man page, section 2); a key of NULL is shown in trace.txt only.
 *
 * Arguments' conditions: fstat(3) is newfstatat(fd, "", AT_EMPTY_PATH)
 * and statx likewise: no path to learn, but AT_EMPTY_PATH with a path is
 * a lookup, which the filter cannot read: ptrace stops skip AT_EMPTY_PATH
 * (a stop each would cost too much), the listener gets them all and the
 * recorder drops the empty ones at entry.  write and writev stop for fds
 * 0-2 (the recorder keeps 1 and 2: recorder/output.h) and, with %file,
 * for every fd: like the other calls that write to a file's descriptor
 * (pwrite64, fsync, ftruncate …) they are then recorded only when they
 * fail, with the path of the fd; prctl stops only for PR_SET_SECCOMP (the
 * program installs a filter of its own).
 *
 * Sends, receives and sendfile are recorded only when they fail unless
 * they name a destination or concern a watched socket (recorder/socks.h);
 * close is recorded for watched sockets only; read is stopped only when a
 * fault rule names DNS (replayer/policies/rules.c), and then an event on
 * a DNS socket only (DNS over TCP, RFC 1035 4.2.2).  getpmsg and putpmsg
 * are STREAMS calls Linux never implemented: they always fail with ENOSYS.
 */
static const struct repro_sysent table[] = {
	ROW(accept, TN, T_NET, .flags = F_NETLOG, .net = REPRO_NET_NEWFD, .wait = REPRO_WAIT_ACCEPT,
	    ARGS(A(FD, "fd"), A(SOCKADDR_OUT, "addr"), A(SOCKLEN_OUT, NULL))),
	ROW(accept4, TN, T_NET, .flags = F_NETLOG, .net = REPRO_NET_NEWFD,
	    .wait = REPRO_WAIT_ACCEPT,
	    ARGS(A(FD, "fd"), A(SOCKADDR_OUT, "addr"), A(SOCKLEN_OUT, NULL), A(SOCKTYPE, "flags"))),
	ROW(access, TF, T_FILE, .op = REPRO_OP_STAT, .flags = F_BEHALF,
	    ARGS(A(PATH, "path"), A(AMODE, "mode"))),
	ROW(acct, TF, T_FILE, .op = REPRO_OP_OTHER, ARGS(A(PATH, "path"))),
	ROW(bind, TN, T_NET, .flags = F_NETLOG, .net = REPRO_NET_BIND,
	    ARGS(A(FD, "fd"), A(SOCKADDR, "addr"), A(SOCKLEN, NULL))),
	ROW(bpf, TD, 0),
	ROW(cachestat, TD, 0),
	ROW(capset, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(PTR, NULL), A(PTR, NULL))),
	ROW(chdir, TF, T_FILE, .op = REPRO_OP_CHDIR, ARGS(A(PATH, "path"))),
	ROW(chmod, TF, T_FILE, .op = REPRO_OP_CHANGE, ARGS(A(PATH, "path"), A(MODE, "mode"))),
	ROW(chown, TF, T_FILE, .op = REPRO_OP_CHANGE,
	    ARGS(A(PATH, "path"), A(ID, "uid"), A(ID, "gid"))),
	ROW(chroot, TF, T_FILE | T_ALWAYS, .op = REPRO_OP_OTHER, .flags = F_NOFOLLOW | F_RESHAPES,
	    .taint = REPRO_TAINT_ALL, ARGS(A(PATH, "path"))),
	ROW(clock_nanosleep, 0, 0, .wait = REPRO_WAIT_SLEEP),
	ROW(clone, TP, T_PROC, .taint = REPRO_TAINT_CLONE,
	    ARGS(A(CLONEFLAGS, "flags"), A(PTR, NULL), A(PTR, NULL), A(PTR, NULL), A(PTR, NULL))),
	ROW(clone3, TP, T_PROC, .taint = REPRO_TAINT_CLONE3,
	    ARGS(A(CLONE3, "flags"), A(SIZE, NULL))),
	ROW(close, TD, T_NET, .flags = F_ENTRY_ONLY | F_NETLOG, .net = REPRO_NET_CLOSE,
	    ARGS(A(CLOSEFD, "fd"))),
	ROW(connect, TN, T_NET, .flags = F_NETLOG, .net = REPRO_NET_CONNECT,
	    .wait = REPRO_WAIT_CONNECT, ARGS(A(FD, "fd"), A(SOCKADDR, "addr"), A(SOCKLEN, NULL))),
	ROW(copy_file_range, TD, T_FILE, .op = REPRO_OP_WRITE, .flags = F_FAILURE_ONLY,
	    .bytes = REPRO_BYTES_RESULT,
	    ARGS(A(FD, "fd_in"), A(PTR, NULL), A(FD_TARGET, "fd"), A(PTR, NULL), A(SIZE, "count"),
		 A(HEX, NULL))),
	ROW(creat, TF | TD, T_FILE, .op = REPRO_OP_OPEN, ARGS(A(PATH, "path"), A(MODE, "mode"))),
	ROW(dup, TD, 0),
	ROW(dup2, TD, 0),
	ROW(dup3, TD, 0),
	ROW(epoll_create, TD, 0),
	ROW(epoll_create1, TD, 0),
	ROW(epoll_ctl, TD, 0),
	ROW(epoll_pwait, TD, 0, .wait = REPRO_WAIT_EPOLL),
	ROW(epoll_pwait2, TD, 0, .wait = REPRO_WAIT_EPOLL),
	ROW(epoll_wait, TD, 0, .wait = REPRO_WAIT_EPOLL),
	ROW(eventfd, TD, 0),
	ROW(eventfd2, TD, 0),
	ROW(execve, TF | TP, T_FILE | T_PROC, .op = REPRO_OP_EXEC,
	    ARGS(A(PATH, "path"), A(ARGV, "argv"), A(ENVP, "env"))),
	ROW(execveat, TF | TP | TD, T_FILE | T_PROC, .op = REPRO_OP_EXEC,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(ARGV, "argv"), A(ENVP, "env"),
		 A(ATFLAGS, "flags"))),
	ROW(exit, TP, T_PROC, .flags = F_NO_RETURN, ARGS(A(INT, "status"))),
	ROW(exit_group, TP, T_PROC, .flags = F_NO_RETURN, ARGS(A(INT, "status"))),
	ROW(faccessat, TF | TD, T_FILE, .op = REPRO_OP_STAT, .flags = F_BEHALF,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(AMODE, "mode"))),
	ROW(faccessat2, TF | TD, T_FILE, .op = REPRO_OP_STAT, .flags = F_BEHALF,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(AMODE, "mode"), A(ATFLAGS, "flags"))),
	ROW(fadvise64, TD, 0),
	ROW(fallocate, TD, T_FILE, .op = REPRO_OP_WRITE, .flags = F_FAILURE_ONLY,
	    ARGS(A(FD_TARGET, "fd"), A(HEX, "mode"), A(SIZE, "offset"), A(SIZE, "len"))),
	ROW(fanotify_init, TD, 0),
	ROW(fanotify_mark, TF | TD, T_FILE, .op = REPRO_OP_OTHER,
	    ARGS(A(FD, "fd"), A(HEX, "flags"), A(HEX, "mask"), A(DIRFD, "dirfd"),
		 A(PATH_AT, "path"))),
	ROW(fchdir, TD, T_FILE, ARGS(A(FD, "fd"))),
	ROW(fchmod, TD, 0),
	ROW(fchmodat, TF | TD, T_FILE, .op = REPRO_OP_CHANGE,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(MODE, "mode"))),
	ROW(fchmodat2, TF | TD, T_FILE, .op = REPRO_OP_CHANGE,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(MODE, "mode"), A(ATFLAGS, "flags"))),
	ROW(fchown, TD, 0),
	ROW(fchownat, TF | TD, T_FILE, .op = REPRO_OP_CHANGE,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(ID, "uid"), A(ID, "gid"),
		 A(ATFLAGS, "flags"))),
	ROW(fcntl, TD, 0, .wait = REPRO_WAIT_FCNTL),
	ROW(fdatasync, TD, T_FILE, .op = REPRO_OP_WRITE, .flags = F_FAILURE_ONLY,
	    ARGS(A(FD_TARGET, "fd"))),
	ROW(fgetxattr, TD, 0, .flags = F_XATTR),
	ROW(file_getattr, TF | TD, T_FILE, .op = REPRO_OP_STAT,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(PTR, NULL), A(SIZE, NULL),
		 A(ATFLAGS, "flags"))),
	ROW(file_setattr, TF | TD, T_FILE, .op = REPRO_OP_CHANGE,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(PTR, NULL), A(SIZE, NULL),
		 A(ATFLAGS, "flags"))),
	ROW(finit_module, TD, 0),
	ROW(flistxattr, TD, 0, .flags = F_XATTR),
	ROW(flock, TD, 0, .wait = REPRO_WAIT_LOCK),
	ROW(fork, TP, T_PROC),
	ROW(fremovexattr, TD, 0, .flags = F_XATTR),
	ROW(fsconfig, TF | TD, T_FILE,
	    ARGS(A(FD, "fd"), A(INT, "cmd"), A(STR, "key"), A(PTR, NULL), A(INT, "aux"))),
	ROW(fsetxattr, TD, 0, .flags = F_XATTR),
	ROW(fsmount, TD, 0),
	ROW(fsopen, TD, 0),
	ROW(fspick, TF | TD, T_FILE, .op = REPRO_OP_OTHER,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(HEX, "flags"))),
	ROW(fstat, TD, 0),
	ROW(fstatfs, TD, 0),
	ROW(fsync, TD, T_FILE, .op = REPRO_OP_WRITE, .flags = F_FAILURE_ONLY,
	    ARGS(A(FD_TARGET, "fd"))),
	ROW(ftruncate, TD, T_FILE, .op = REPRO_OP_WRITE, .flags = F_FAILURE_ONLY,
	    ARGS(A(FD_TARGET, "fd"), A(SIZE, "length"))),
	ROW(futimesat, TF | TD, T_FILE, .op = REPRO_OP_CHANGE,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(TIMES, NULL))),
	ROW(getcwd, TF, T_FILE, ARGS(A(PTR, NULL), A(SIZE, "size"))),
	ROW(getdents, TD, 0),
	ROW(getdents64, TD, 0),
	ROW(getpeername, TN, T_NET, .net = REPRO_NET_NAME,
	    ARGS(A(FD, "fd"), A(SOCKADDR_OUT, "addr"), A(SOCKLEN_OUT, NULL))),
	ROW(getpmsg, TN, T_NET, .net = REPRO_NET_OTHER,
	    ARGS(A(FD, "fd"), A(PTR, NULL), A(PTR, NULL), A(PTR, NULL), A(PTR, NULL))),
	ROW(getsockname, TN, T_NET, .net = REPRO_NET_NAME,
	    ARGS(A(FD, "fd"), A(SOCKADDR_OUT, "addr"), A(SOCKLEN_OUT, NULL))),
	ROW(getsockopt, TN, T_NET, .flags = F_NETLOG, .net = REPRO_NET_SOCKOPT,
	    ARGS(A(FD, "fd"), A(SOCKLEVEL, "level"), A(SOCKOPT, "optname"), A(SOCKOPTVAL, "optval"),
		 A(PTR, NULL))),
	ROW(getxattr, TF, T_FILE, .flags = F_XATTR, .op = REPRO_OP_STAT,
	    ARGS(A(PATH, "path"), A(STR, "name"), A(PTR, NULL), A(SIZE, "size"))),
	ROW(getxattrat, TF | TD, T_FILE, .flags = F_XATTR, .op = REPRO_OP_STAT,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(ATFLAGS, "flags"), A(STR, "name"),
		 A(PTR, NULL), A(SIZE, NULL))),
	ROW(inotify_add_watch, TF | TD, T_FILE, .op = REPRO_OP_OTHER,
	    ARGS(A(FD, "fd"), A(PATH, "path"), A(HEX, "mask"))),
	ROW(inotify_init, TD, 0),
	ROW(inotify_init1, TD, 0),
	ROW(inotify_rm_watch, TD, 0),
	ROW(io_uring_enter, TD, 0),
	ROW(io_uring_register, TD, 0),
	ROW(io_uring_setup, TD, T_ALWAYS, .flags = F_BYPASS, ARGS(A(INT, "entries"), A(PTR, NULL))),
	ROW(ioctl, TD, 0),
	ROW(kexec_file_load, TD, 0),
	ROW(kill, TP, T_PROC, ARGS(A(PID, "target_pid"), A(SIG, "signal"))),
	ROW(landlock_add_rule, TD, 0),
	ROW(landlock_create_ruleset, TD, 0),
	ROW(landlock_restrict_self, TD, 0),
	ROW(lchown, TF, T_FILE, .op = REPRO_OP_CHANGE, .flags = F_NOFOLLOW,
	    ARGS(A(PATH, "path"), A(ID, "uid"), A(ID, "gid"))),
	ROW(lgetxattr, TF, T_FILE, .flags = F_XATTR, .op = REPRO_OP_STAT,
	    ARGS(A(PATH, "path"), A(STR, "name"), A(PTR, NULL), A(SIZE, "size"))),
	ROW(link, TF, T_FILE, .op = REPRO_OP_LINK, .flags = F_NOFOLLOW,
	    ARGS(A(PATH, "path"), A(PATH, "newpath"))),
	ROW(linkat, TF | TD, T_FILE, .op = REPRO_OP_LINK, .flags = F_NOFOLLOW,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(DIRFD, "newdirfd"), A(PATH_AT, "newpath"),
		 A(ATFLAGS, "flags"))),
	ROW(listen, TN, T_NET, .flags = F_NETLOG, .net = REPRO_NET_LISTEN,
	    ARGS(A(FD, "fd"), A(INT, "backlog"))),
	ROW(listxattr, TF, T_FILE, .flags = F_XATTR, .op = REPRO_OP_STAT,
	    ARGS(A(PATH, "path"), A(PTR, NULL), A(SIZE, "size"))),
	ROW(listxattrat, TF | TD, T_FILE, .flags = F_XATTR, .op = REPRO_OP_STAT,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(ATFLAGS, "flags"), A(PTR, NULL),
		 A(SIZE, "size"))),
	ROW(llistxattr, TF, T_FILE, .flags = F_XATTR, .op = REPRO_OP_STAT,
	    ARGS(A(PATH, "path"), A(PTR, NULL), A(SIZE, "size"))),
	ROW(lremovexattr, TF, T_FILE, .flags = F_XATTR, .op = REPRO_OP_CHANGE,
	    ARGS(A(PATH, "path"), A(STR, "name"))),
	ROW(lseek, TD, 0),
	ROW(lsetxattr, TF, T_FILE, .flags = F_XATTR, .op = REPRO_OP_CHANGE,
	    ARGS(A(PATH, "path"), A(STR, "name"), A(PTR, NULL), A(SIZE, "size"), A(HEX, "flags"))),
	ROW(lstat, TF, T_FILE, .op = REPRO_OP_STAT, .flags = F_NOFOLLOW | F_BEHALF,
	    ARGS(A(PATH, "path"), A(PTR, NULL))),
	ROW(memfd_create, TD, 0),
	ROW(memfd_secret, TD, 0),
	ROW(mkdir, TF, T_FILE, .op = REPRO_OP_MKDIR, .flags = F_NOFOLLOW,
	    ARGS(A(PATH, "path"), A(MODE, "mode"))),
	ROW(mkdirat, TF | TD, T_FILE, .op = REPRO_OP_MKDIR, .flags = F_NOFOLLOW,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(MODE, "mode"))),
	ROW(mknod, TF, T_FILE, .op = REPRO_OP_CREATE, .flags = F_NOFOLLOW,
	    ARGS(A(PATH, "path"), A(MODE, "mode"), A(DEV, "dev"))),
	ROW(mknodat, TF | TD, T_FILE, .op = REPRO_OP_CREATE, .flags = F_NOFOLLOW,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(MODE, "mode"), A(DEV, "dev"))),
	ROW(mmap, TD, 0),
	ROW(mount, TF, T_FILE | T_ALWAYS, .op = REPRO_OP_OTHER, .flags = F_RESHAPES,
	    .taint = REPRO_TAINT_ALL,
	    ARGS(A(STR, "source"), A(PATH, "target"), A(STR, "fstype"), A(SIZE, "mountflags"),
		 A(PTR, NULL))),
	ROW(mount_setattr, TF | TD, T_FILE | T_ALWAYS, .op = REPRO_OP_OTHER,
	    .taint = REPRO_TAINT_ALL,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(INT, "flags"), A(PTR, NULL),
		 A(SIZE, NULL))),
	ROW(move_mount, TF | TD, T_FILE | T_ALWAYS, .op = REPRO_OP_OTHER,
	    .flags = F_NOFOLLOW | F_RESHAPES, .taint = REPRO_TAINT_ALL,
	    ARGS(A(DIRFD, "from_dirfd"), A(PATH_AT, "from_path"), A(DIRFD, "to_dirfd"),
		 A(PATH_AT, "to_path"), A(INT, "flags"))),
	ROW(mq_getsetattr, TD, 0),
	ROW(mq_notify, TD, 0),
	ROW(mq_open, TD, 0),
	ROW(mq_timedreceive, TD, 0),
	ROW(mq_timedsend, TD, 0),
	ROW(name_to_handle_at, TF | TD, T_FILE, .op = REPRO_OP_OTHER,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(PTR, NULL), A(PTR, NULL),
		 A(ATFLAGS, "flags"))),
	ROW(nanosleep, 0, 0, .wait = REPRO_WAIT_SLEEP),
	ROW(newfstatat, TF | TD, T_FILE, .op = REPRO_OP_STAT, .flags = F_BEHALF,
	    COND(3, AT_EMPTY_PATH, 0, false, true),
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(PTR, NULL), A(ATFLAGS, "flags"))),
	ROW(open, TF | TD, T_FILE, .op = REPRO_OP_OPEN,
	    ARGS(A(PATH, "path"), A(OFLAGS, "flags"), A(CMODE, "mode"))),
	ROW(open_by_handle_at, TD, 0),
	ROW(open_tree, TF | TD, T_FILE, .op = REPRO_OP_OTHER,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(HEX, "flags"))),
	ROW(open_tree_attr, TF | TD, T_FILE, .op = REPRO_OP_OTHER,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(HEX, "flags"), A(PTR, NULL),
		 A(SIZE, NULL))),
	ROW(openat, TF | TD, T_FILE, .op = REPRO_OP_OPEN,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(OFLAGS, "flags"), A(CMODE, "mode"))),
	ROW(openat2, TF | TD, T_FILE, .op = REPRO_OP_OPEN,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(OPENHOW, NULL), A(SIZE, NULL))),
	ROW(perf_event_open, TD, 0),
	ROW(pidfd_getfd, TD, 0),
	ROW(pidfd_open, TD, 0),
	ROW(pidfd_send_signal, TP | TD, T_PROC,
	    ARGS(A(FD, "fd"), A(SIG, "signal"), A(PTR, NULL), A(HEX, "flags"))),
	ROW(pipe, TD, 0),
	ROW(pipe2, TD, 0),
	ROW(pivot_root, TF, T_FILE | T_ALWAYS, .op = REPRO_OP_OTHER,
	    .flags = F_NOFOLLOW | F_RESHAPES, .taint = REPRO_TAINT_ALL,
	    ARGS(A(PATH, "new_root"), A(PATH, "put_old"))),
	ROW(poll, TD, 0, .wait = REPRO_WAIT_POLL),
	ROW(ppoll, TD, 0, .wait = REPRO_WAIT_POLL),
	ROW(prctl, 0, T_ALWAYS, .flags = F_OWN_FILTER, .taint = REPRO_TAINT_PRCTL,
	    COND(0, 0xffffffffu, PR_SET_SECCOMP, false, false),
	    ARGS(A(INT, "option"), A(INT, "arg2"), A(PTR, NULL), A(PTR, NULL), A(PTR, NULL))),
	ROW(pread64, TD, 0, .bytes = REPRO_BYTES_COUNT),
	ROW(preadv, TD, 0, .bytes = REPRO_BYTES_RESULT),
	ROW(preadv2, TD, 0, .bytes = REPRO_BYTES_RESULT),
	ROW(process_madvise, TD, 0),
	ROW(process_mrelease, TD, 0),
	ROW(pselect6, TD, 0, .wait = REPRO_WAIT_SELECT),
	ROW(putpmsg, TN, T_NET, .net = REPRO_NET_OTHER,
	    ARGS(A(FD, "fd"), A(PTR, NULL), A(PTR, NULL), A(INT, NULL), A(INT, NULL))),
	ROW(pwrite64, TD, T_FILE, .op = REPRO_OP_WRITE, .flags = F_FAILURE_ONLY | F_BYTES_OUT,
	    .bytes = REPRO_BYTES_COUNT,
	    ARGS(A(FD_TARGET, "fd"), A(PTR, NULL), A(SIZE, "count"), A(SIZE, "offset"))),
	ROW(pwritev, TD, T_FILE, .op = REPRO_OP_WRITE, .flags = F_FAILURE_ONLY | F_BYTES_OUT,
	    .bytes = REPRO_BYTES_RESULT,
	    ARGS(A(FD_TARGET, "fd"), A(PTR, NULL), A(INT, "iovcnt"), A(SIZE, "offset"))),
	ROW(pwritev2, TD, T_FILE, .op = REPRO_OP_WRITE, .flags = F_FAILURE_ONLY | F_BYTES_OUT,
	    .bytes = REPRO_BYTES_RESULT,
	    ARGS(A(FD_TARGET, "fd"), A(PTR, NULL), A(INT, "iovcnt"), A(SIZE, "offset"),
		 A(PTR, NULL), A(HEX, "flags"))),
	ROW(quotactl, TF, T_FILE, .op = REPRO_OP_OTHER,
	    ARGS(A(HEX, "cmd"), A(PATH, "path"), A(INT, "id"), A(PTR, NULL))),
	ROW(quotactl_fd, TD, 0),
	ROW(read, TD, T_ON_DEMAND, .flags = F_DNS_IO, .bytes = REPRO_BYTES_COUNT,
	    .wait = REPRO_WAIT_READ, ARGS(A(FD, "fd"), A(RECVBUF, NULL), A(SIZE, "count"))),
	ROW(readahead, TD, 0),
	ROW(readlink, TF, T_FILE, .op = REPRO_OP_READLINK, .flags = F_NOFOLLOW | F_BEHALF,
	    ARGS(A(PATH, "path"), A(PTR, NULL), A(SIZE, NULL))),
	ROW(readlinkat, TF | TD, T_FILE, .op = REPRO_OP_READLINK, .flags = F_NOFOLLOW | F_BEHALF,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(PTR, NULL), A(SIZE, NULL))),
	ROW(readv, TD, 0, .bytes = REPRO_BYTES_RESULT, .wait = REPRO_WAIT_READ),
	ROW(recvfrom, TN, T_NET, .flags = F_FAILURE_ONLY | F_NETLOG | F_DNS_IO,
	    .net = REPRO_NET_RECV, .bytes = REPRO_BYTES_COUNT, .wait = REPRO_WAIT_READ,
	    ARGS(A(FD, "fd"), A(RECVBUF, NULL), A(SIZE, "len"), A(MSGFLAGS, "msg_flags"),
		 A(PTR, NULL), A(PTR, NULL))),
	ROW(recvmmsg, TN, T_NET, .flags = F_FAILURE_ONLY | F_NETLOG, .net = REPRO_NET_RECV,
	    .wait = REPRO_WAIT_READ,
	    ARGS(A(FD, "fd"), A(RMMSGHDR, NULL), A(INT, "vlen"), A(MSGFLAGS, "msg_flags"),
		 A(PTR, NULL))),
	ROW(recvmsg, TN, T_NET, .flags = F_FAILURE_ONLY | F_NETLOG, .net = REPRO_NET_RECV,
	    .bytes = REPRO_BYTES_RESULT, .wait = REPRO_WAIT_READ,
	    ARGS(A(FD, "fd"), A(RMSGHDR, NULL), A(MSGFLAGS, "msg_flags"))),
	ROW(removexattr, TF, T_FILE, .flags = F_XATTR, .op = REPRO_OP_CHANGE,
	    ARGS(A(PATH, "path"), A(STR, "name"))),
	ROW(removexattrat, TF | TD, T_FILE, .flags = F_XATTR, .op = REPRO_OP_CHANGE,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(ATFLAGS, "flags"), A(STR, "name"))),
	ROW(rename, TF, T_FILE, .op = REPRO_OP_RENAME, .flags = F_NOFOLLOW | F_RESHAPES,
	    ARGS(A(PATH, "path"), A(PATH, "newpath"))),
	ROW(renameat, TF | TD, T_FILE, .op = REPRO_OP_RENAME, .flags = F_NOFOLLOW | F_RESHAPES,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(DIRFD, "newdirfd"),
		 A(PATH_AT, "newpath"))),
	ROW(renameat2, TF | TD, T_FILE, .op = REPRO_OP_RENAME, .flags = F_NOFOLLOW | F_RESHAPES,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(DIRFD, "newdirfd"), A(PATH_AT, "newpath"),
		 A(RENAMEFLAGS, "flags"))),
	ROW(rmdir, TF, T_FILE, .op = REPRO_OP_DELETE, .flags = F_NOFOLLOW | F_RESHAPES,
	    ARGS(A(PATH, "path"))),
	ROW(rt_sigqueueinfo, TP, T_PROC,
	    ARGS(A(PID, "target_pid"), A(SIG, "signal"), A(PTR, NULL))),
	ROW(rt_tgsigqueueinfo, TP, T_PROC,
	    ARGS(A(PID, "target_pid"), A(PID, "target_tid"), A(SIG, "signal"), A(PTR, NULL))),
	ROW(seccomp, 0, T_ALWAYS, .flags = F_OWN_FILTER, .taint = REPRO_TAINT_SECCOMP,
	    ARGS(A(INT, "operation"), A(INT, "flags"), A(PTR, NULL))),
	ROW(select, TD, 0, .wait = REPRO_WAIT_SELECT),
	ROW(sendfile, TN | TD, T_NET, .flags = F_FAILURE_ONLY | F_BYTES_OUT, .net = REPRO_NET_OTHER,
	    .bytes = REPRO_BYTES_RESULT,
	    ARGS(A(FD_TARGET, "fd"), A(FD, "in_fd"), A(PTR, NULL), A(SIZE, "count"))),
	ROW(sendmmsg, TN, T_NET, .flags = F_FAILURE_ONLY | F_NETLOG | F_DNS_IO | F_BYTES_OUT,
	    .net = REPRO_NET_SEND,
	    ARGS(A(FD, "fd"), A(MMSGHDR, NULL), A(INT, "vlen"), A(MSGFLAGS, "msg_flags"))),
	ROW(sendmsg, TN, T_NET, .flags = F_FAILURE_ONLY | F_NETLOG | F_DNS_IO | F_BYTES_OUT,
	    .net = REPRO_NET_SEND, .bytes = REPRO_BYTES_RESULT,
	    ARGS(A(FD, "fd"), A(MSGHDR, "addr"), A(MSGFLAGS, "msg_flags"))),
	ROW(sendto, TN, T_NET, .flags = F_FAILURE_ONLY | F_NETLOG | F_DNS_IO | F_BYTES_OUT,
	    .net = REPRO_NET_SEND, .bytes = REPRO_BYTES_COUNT,
	    ARGS(A(FD, "fd"), A(SENDBUF, NULL), A(SIZE, "len"), A(MSGFLAGS, "msg_flags"),
		 A(SOCKADDR, "addr"), A(SOCKLEN, NULL))),
	ROW(setfsgid, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "fsgid"))),
	ROW(setfsgid32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "fsgid"))),
	ROW(setfsuid, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "fsuid"))),
	ROW(setfsuid32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "fsuid"))),
	ROW(setgid, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS, ARGS(A(ID, "gid"))),
	ROW(setgid32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "gid"))),
	ROW(setgroups, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(INT, "size"), A(PTR, NULL))),
	ROW(setgroups32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(INT, "size"), A(PTR, NULL))),
	ROW(setns, TD, T_ALWAYS, .flags = F_RESHAPES, .taint = REPRO_TAINT_TASK,
	    ARGS(A(FD, "fd"), A(CLONEFLAGS, "nstype"))),
	ROW(setregid, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "rgid"), A(ID, "egid"))),
	ROW(setregid32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "rgid"), A(ID, "egid"))),
	ROW(setresgid, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "rgid"), A(ID, "egid"), A(ID, "sgid"))),
	ROW(setresgid32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "rgid"), A(ID, "egid"), A(ID, "sgid"))),
	ROW(setresuid, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "ruid"), A(ID, "euid"), A(ID, "suid"))),
	ROW(setresuid32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "ruid"), A(ID, "euid"), A(ID, "suid"))),
	ROW(setreuid, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "ruid"), A(ID, "euid"))),
	ROW(setreuid32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "ruid"), A(ID, "euid"))),
	ROW(setsockopt, TN, T_NET, .net = REPRO_NET_OTHER,
	    ARGS(A(FD, "fd"), A(SOCKLEVEL, "level"), A(SOCKOPT, "optname"), A(SOCKOPTIN, "optval"),
		 A(SIZE, NULL))),
	ROW(setuid, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS, ARGS(A(ID, "uid"))),
	ROW(setuid32, 0, T_ALWAYS, .flags = F_CREDS, .taint = REPRO_TAINT_CREDS,
	    ARGS(A(ID, "uid"))),
	ROW(setxattr, TF, T_FILE, .flags = F_XATTR, .op = REPRO_OP_CHANGE,
	    ARGS(A(PATH, "path"), A(STR, "name"), A(PTR, NULL), A(SIZE, "size"), A(HEX, "flags"))),
	ROW(setxattrat, TF | TD, T_FILE, .flags = F_XATTR, .op = REPRO_OP_CHANGE,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(ATFLAGS, "flags"), A(STR, "name"),
		 A(PTR, NULL), A(SIZE, NULL))),
	ROW(shutdown, TN, T_NET, .flags = F_NETLOG, .net = REPRO_NET_OTHER,
	    ARGS(A(FD, "fd"), A(SHUTHOW, "how"))),
	ROW(signalfd, TD, 0),
	ROW(signalfd4, TD, 0),
	ROW(socket, TN, T_NET, .flags = F_NETLOG, .net = REPRO_NET_SOCKET,
	    ARGS(A(DOMAIN, "domain"), A(SOCKTYPE, "type"), A(PROTO, "protocol"))),
	ROW(socketpair, TN, T_NET, .net = REPRO_NET_NEWPAIR,
	    ARGS(A(DOMAIN, "domain"), A(SOCKTYPE, "type"), A(PROTO, "protocol"), A(FDPAIR, "fds"))),
	ROW(splice, TD, 0, .bytes = REPRO_BYTES_RESULT),
	ROW(stat, TF, T_FILE, .op = REPRO_OP_STAT, .flags = F_BEHALF,
	    ARGS(A(PATH, "path"), A(PTR, NULL))),
	ROW(statfs, TF, T_FILE, .op = REPRO_OP_STAT, ARGS(A(PATH, "path"), A(PTR, NULL))),
	ROW(statx, TF | TD, T_FILE, .op = REPRO_OP_STAT, .flags = F_BEHALF,
	    COND(2, AT_EMPTY_PATH, 0, false, true),
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(ATFLAGS, "flags"), A(STATXMASK, NULL),
		 A(PTR, NULL))),
	ROW(swapoff, TF, T_FILE, .op = REPRO_OP_OTHER, ARGS(A(PATH, "path"))),
	ROW(swapon, TF, T_FILE, .op = REPRO_OP_OTHER, ARGS(A(PATH, "path"), A(HEX, "flags"))),
	ROW(symlink, TF, T_FILE, .op = REPRO_OP_CREATE, .flags = F_NOFOLLOW,
	    ARGS(A(STR, "target"), A(PATH, "path"))),
	ROW(symlinkat, TF | TD, T_FILE, .op = REPRO_OP_CREATE, .flags = F_NOFOLLOW,
	    ARGS(A(STR, "target"), A(DIRFD, "dirfd"), A(PATH_AT, "path"))),
	ROW(sync_file_range, TD, 0),
	ROW(syncfs, TD, 0),
	ROW(tee, TD, 0),
	ROW(tgkill, TP, T_PROC, ARGS(A(PID, "target_pid"), A(PID, "target_tid"), A(SIG, "signal"))),
	ROW(timerfd_create, TD, 0),
	ROW(timerfd_gettime, TD, 0),
	ROW(timerfd_settime, TD, 0),
	ROW(tkill, TP, T_PROC, ARGS(A(PID, "target_tid"), A(SIG, "signal"))),
	ROW(truncate, TF, T_FILE, .op = REPRO_OP_WRITE, ARGS(A(PATH, "path"), A(SIZE, "length"))),
	ROW(umount2, TF, T_FILE | T_ALWAYS, .op = REPRO_OP_OTHER, .flags = F_NOFOLLOW | F_RESHAPES,
	    .taint = REPRO_TAINT_ALL, ARGS(A(PATH, "target"), A(INT, "flags"))),
	ROW(unlink, TF, T_FILE, .op = REPRO_OP_DELETE, .flags = F_NOFOLLOW | F_RESHAPES,
	    ARGS(A(PATH, "path"))),
	ROW(unlinkat, TF | TD, T_FILE, .op = REPRO_OP_DELETE, .flags = F_NOFOLLOW | F_RESHAPES,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(UNLINKFLAGS, "flags"))),
	ROW(unshare, 0, T_ALWAYS, .flags = F_RESHAPES, .taint = REPRO_TAINT_TASK,
	    ARGS(A(CLONEFLAGS, "flags"))),
	ROW(uselib, TF, T_FILE, .op = REPRO_OP_OTHER, ARGS(A(PATH, "path"))),
	ROW(userfaultfd, TD, 0),
	ROW(utime, TF, T_FILE, .op = REPRO_OP_CHANGE, ARGS(A(PATH, "path"), A(TIMES, NULL))),
	ROW(utimensat, TF | TD, T_FILE, .op = REPRO_OP_CHANGE,
	    ARGS(A(DIRFD, "dirfd"), A(PATH_AT, "path"), A(TIMES, NULL), A(ATFLAGS, "flags"))),
	ROW(utimes, TF, T_FILE, .op = REPRO_OP_CHANGE, ARGS(A(PATH, "path"), A(TIMES, NULL))),
	ROW(vfork, TP, T_PROC),
	ROW(vmsplice, TD, 0),
	ROW(wait4, TP, T_PROC, .flags = F_WAIT_CHILD, .wait = REPRO_WAIT_WAIT4,
	    ARGS(A(PID, "target_pid"), A(PTR, NULL), A(WAITOPTS, "options"), A(PTR, NULL))),
	ROW(waitid, TP, T_PROC, .flags = F_WAIT_CHILD, .wait = REPRO_WAIT_WAITID,
	    ARGS(A(IDTYPE, "idtype"), A(PID, "target_pid"), A(PTR, NULL), A(WAITOPTS, "options"),
		 A(PTR, NULL))),
	ROW(write, TD, T_OUTPUT | T_FILE, .op = REPRO_OP_WRITE,
	    .flags = F_FAILURE_ONLY | F_DNS_IO | F_BYTES_OUT, .bytes = REPRO_BYTES_COUNT,
	    COND(0, 0, 2, true, false), .cond_unless = T_FILE,
	    ARGS(A(FD_TARGET, "fd"), A(OUTBUF, NULL), A(SIZE, "count"))),
	ROW(writev, TD, T_OUTPUT | T_FILE, .op = REPRO_OP_WRITE,
	    .flags = F_FAILURE_ONLY | F_DNS_IO | F_BYTES_OUT, .bytes = REPRO_BYTES_RESULT,
	    COND(0, 0, 2, true, false), .cond_unless = T_FILE,
	    ARGS(A(FD_TARGET, "fd"), A(OUTIOV, NULL), A(INT, "iovcnt"))),
};

const struct repro_sysent *repro_sysent_all(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct repro_sysent *repro_sysent_find(const char *name)
{
	size_t lo = 0, hi = sizeof(table) / sizeof(table[0]);

	while (name != NULL && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, table[mid].name);

		if (c == 0)
			return &table[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int repro_sysent_nargs(const struct repro_sysent *s)
{
	int n = 0;

	while (n < 6 && s->args[n].kind != RA_NONE)
		n++;
	return n;
}

int repro_sysent_arg_of(const struct repro_sysent *s, enum repro_arg_kind k)
{
	for (int i = 0; i < 6 && s->args[i].kind != RA_NONE; i++)
		if (s->args[i].kind == k)
			return i;
	return -1;
}

static bool op_modifies(enum repro_sys_op op)
{
	switch (op) {
	case REPRO_OP_WRITE:
	case REPRO_OP_CHANGE:
	case REPRO_OP_CREATE:
	case REPRO_OP_MKDIR:
	case REPRO_OP_DELETE:
	case REPRO_OP_RENAME:
	case REPRO_OP_LINK: return true;
	case REPRO_OP_NONE:
	case REPRO_OP_STAT:
	case REPRO_OP_READLINK:
	case REPRO_OP_READ:
	case REPRO_OP_EXEC:
	case REPRO_OP_CHDIR:
	case REPRO_OP_OPEN:
	case REPRO_OP_OTHER: return false;
	}
	return false;
}

bool repro_sysent_modifies(const struct repro_sysent *s, uint64_t oflags)
{
	return op_modifies(repro_sysent_op(s, -1, oflags));
}

enum repro_sys_op repro_sys_open_op(uint64_t oflags)
{
	if (oflags & O_PATH)
		return REPRO_OP_STAT;
	if ((oflags & O_CREAT) || (oflags & O_TMPFILE) == O_TMPFILE)
		return REPRO_OP_CREATE;
	if ((oflags & O_ACCMODE) != O_RDONLY || (oflags & O_TRUNC))
		return REPRO_OP_WRITE;
	return REPRO_OP_READ;
}

/* Whether word is one of the '|'-separated names of flags. */
static bool has_flag(const char *flags, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = flags; (p = strstr(p, word)) != NULL; p += len)
		if ((p == flags || p[-1] == '|') && (p[len] == '\0' || p[len] == '|'))
			return true;
	return false;
}

enum repro_sys_op repro_sys_open_op_text(const char *flags)
{
	if (flags == NULL)
		return REPRO_OP_READ;
	if (has_flag(flags, "O_PATH"))
		return REPRO_OP_STAT;
	if (has_flag(flags, "O_CREAT") || has_flag(flags, "O_TMPFILE"))
		return REPRO_OP_CREATE;
	/* access mode 3 (no read, no write: ioctl only) is spelled O_ACCMODE, a write mode */
	if (has_flag(flags, "O_WRONLY") || has_flag(flags, "O_RDWR") ||
	    has_flag(flags, "O_ACCMODE") || has_flag(flags, "O_TRUNC"))
		return REPRO_OP_WRITE;
	return REPRO_OP_READ;
}

uint64_t repro_sysent_fixed_oflags(const struct repro_sysent *s)
{
	if (s == NULL || s->op != REPRO_OP_OPEN || repro_sysent_arg_of(s, RA_OFLAGS) >= 0 ||
	    repro_sysent_arg_of(s, RA_OPENHOW) >= 0)
		return 0;
	return O_CREAT | O_WRONLY | O_TRUNC; /* creat(2) */
}

enum repro_sys_op repro_sysent_op(const struct repro_sysent *s, int argi, uint64_t oflags)
{
	if (s == NULL)
		return REPRO_OP_NONE;
	if (s->op == REPRO_OP_OPEN)
		return repro_sys_open_op(oflags | repro_sysent_fixed_oflags(s));
	if ((s->op == REPRO_OP_RENAME || s->op == REPRO_OP_LINK) && argi >= 0 && argi < 6 &&
	    s->args[argi].key != NULL && strcmp(s->args[argi].key, "newpath") == 0)
		return REPRO_OP_CREATE;
	return s->op;
}

static const char *const op_names[] = {
	[REPRO_OP_STAT] = "stat",   [REPRO_OP_READLINK] = "readlink", [REPRO_OP_READ] = "read",
	[REPRO_OP_WRITE] = "write", [REPRO_OP_CHANGE] = "change",     [REPRO_OP_CREATE] = "create",
	[REPRO_OP_MKDIR] = "mkdir", [REPRO_OP_DELETE] = "delete",     [REPRO_OP_RENAME] = "rename",
	[REPRO_OP_LINK] = "link",   [REPRO_OP_EXEC] = "exec",	      [REPRO_OP_CHDIR] = "chdir",
	[REPRO_OP_OTHER] = "other",
};

const char *repro_sys_op_name(enum repro_sys_op op)
{
	return (size_t)op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : NULL;
}

enum repro_sys_op repro_sys_op_parse(const char *name)
{
	for (size_t i = 0; name != NULL && i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (op_names[i] != NULL && strcmp(op_names[i], name) == 0)
			return (enum repro_sys_op)i;
	return REPRO_OP_NONE;
}

static const struct {
	const char *word;
	unsigned bits;
} class_words[] = {
	{ "%file", REPRO_SYS_FILE },
	{ "%network", REPRO_SYS_NETWORK },
	{ "%net", REPRO_SYS_NETWORK },
	{ "%process", REPRO_SYS_PROCESS },
	{ "%desc", REPRO_SYS_DESC },
	/* strace's legacy spellings */
	{ "file", REPRO_SYS_FILE },
	{ "network", REPRO_SYS_NETWORK },
	{ "process", REPRO_SYS_PROCESS },
	{ "desc", REPRO_SYS_DESC },
};

unsigned repro_sys_class_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(class_words) / sizeof(class_words[0]); i++)
		if (strcmp(name, class_words[i].word) == 0)
			return class_words[i].bits;
	return 0;
}

const char *repro_sys_class_word(size_t i)
{
	return i < sizeof(class_words) / sizeof(class_words[0]) ? class_words[i].word : NULL;
}

/* glibc's recv(2) and send(2) are recvfrom and sendto on x86_64 (sysdeps/unix/sysv/linux). */
static const struct {
	const char *libc, *kernel;
} aliases[] = {
	{ "recv", "recvfrom" },
	{ "send", "sendto" },
};

const char *repro_sys_alias(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].libc) == 0)
			return aliases[i].kernel;
	return NULL;
}
