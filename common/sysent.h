#ifndef REPRO_COMMON_SYSENT_H
#define REPRO_COMMON_SYSENT_H

/*
 * The one table of syscall meaning (strace's syscallent.h + sysent.h
 * model): a row per syscall repro knows, with every fact about it that
 * any part needs as a field -- strace's classes, whether and when repro's
 * seccomp filter stops it, what it does to its path (the "op" of
 * events.jsonl), how its arguments are decoded, its network role, whether
 * it moves bytes (after= of fault rules), whether it blocks and on what,
 * whether it changes what a path walk sees.  The launcher derives the
 * filter, its taint and wait tables and the calls it answers on a
 * tracee's behalf from it; the recorder its decoders; the policies the
 * classes of fault rules; the readers and sweep what a recorded call did.
 *
 * Rows are keyed by libseccomp name; numbers come from libseccomp at run
 * time (recorder/systab.h indexes traced rows by number).  The table is
 * static const data in common/sysent.c, sorted by name.  Adding a syscall
 * is one row there (docs/architecture.md, "The syscall table").
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* strace's classes: the TF, TN, TP and TD flags of its syscallent.h (v6.19, x86_64). */
enum repro_sys_class {
	REPRO_SYS_FILE = 1u << 0, /* %file: takes a path */
	REPRO_SYS_NETWORK = 1u << 1, /* %network */
	REPRO_SYS_PROCESS = 1u << 2, /* %process */
	REPRO_SYS_DESC = 1u << 3, /* %desc: takes or returns a descriptor */
};

/*
 * When the seccomp filter stops a row (the recorder's --trace classes):
 * FILE, NETWORK and PROCESS with that class of --trace; ALWAYS, OUTPUT and
 * ON_DEMAND whatever --trace says.  0: never stopped for recording (a
 * fault rule may still name it).  The low three bits equal the strace
 * classes of the row, except where repro needs a call to follow state
 * (fchdir for the cwd with %file, close for sockets with %network).
 */
enum repro_sys_trace {
	REPRO_TRACE_FILE = 1u << 0,
	REPRO_TRACE_NETWORK = 1u << 1,
	REPRO_TRACE_PROCESS = 1u << 2,
	REPRO_TRACE_ALL = 7u,
	REPRO_TRACE_ALWAYS = 1u << 3, /* credentials, root, mounts, io_uring_setup, filters */
	/*
	 * what the program said: writes to fds 0-2, kept in a ring per process
	 * (recorder/output.h), never events
	 */
	REPRO_TRACE_OUTPUT = 1u << 4,
	/* stopped only when a policy asks (read, for a fault rule on DNS) */
	REPRO_TRACE_ON_DEMAND = 1u << 5,
};

/*
 * What a call does to its path: the "op" of events.jsonl
 * (docs/bundle-format.md).  OPEN is decided by the open flags
 * (repro_sys_open_op()); NONE: the call takes no path.
 */
enum repro_sys_op {
	REPRO_OP_NONE = 0,
	REPRO_OP_STAT, /* looks at it: stat, access, statfs, getxattr */
	REPRO_OP_READLINK,
	REPRO_OP_READ,
	REPRO_OP_WRITE, /* changes its content: truncate, an open for writing */
	REPRO_OP_CHANGE, /* changes its metadata: chmod, chown, utimes, setxattr */
	REPRO_OP_CREATE,
	REPRO_OP_MKDIR, /* creates a directory: mkdir, mkdirat */
	REPRO_OP_DELETE,
	REPRO_OP_RENAME, /* its old name goes, "newpath" is created */
	REPRO_OP_LINK, /* a new name "newpath" for it */
	REPRO_OP_EXEC,
	REPRO_OP_CHDIR,
	REPRO_OP_OPEN, /* in the table only: read, write, create or stat by the flags */
	REPRO_OP_OTHER, /* takes a path, none of the above: mount, chroot, inotify_add_watch … */
};

/* Network roles: what the call does with a socket (recorder/socks.h, network.jsonl). */
enum repro_sys_net {
	REPRO_NET_NONE = 0,
	REPRO_NET_SOCKET, /* socket: the returned fd is a new, unconnected socket */
	REPRO_NET_NEWFD, /* accept, accept4: the returned fd is a new, connected socket */
	REPRO_NET_CONNECT,
	REPRO_NET_SEND, /* sendto, sendmsg, sendmmsg: may name a destination */
	REPRO_NET_CLOSE, /* close */
	REPRO_NET_NEWPAIR, /* socketpair: two new sockets */
	REPRO_NET_RECV, /* recvfrom, recvmsg, recvmmsg: counted on a connected socket */
	REPRO_NET_BIND,
	REPRO_NET_LISTEN,
	REPRO_NET_SOCKOPT, /* getsockopt: SO_ERROR ends a non-blocking connect */
	REPRO_NET_NAME, /* getsockname, getpeername: ask, change nothing */
	REPRO_NET_OTHER, /* setsockopt, shutdown, getpmsg, putpmsg, sendfile */
};

/* How a call moves bytes through its descriptor args[0] (after= of fault rules). */
enum repro_sys_bytes {
	REPRO_BYTES_NONE = 0,
	REPRO_BYTES_COUNT, /* args[2] bytes at most (read, write, pread64, sendto …): can be cut short */
	REPRO_BYTES_RESULT, /* its result in bytes, counted after it (readv, preadv, sendmsg, splice …) */
};

/* What a blocking call waits on (launcher/waits.h; waits.jsonl "what"). */
enum repro_sys_wait {
	REPRO_WAIT_NONE = 0,
	REPRO_WAIT_CONNECT, /* a connection: args[0] and its address */
	REPRO_WAIT_ACCEPT, /* a client: args[0] */
	REPRO_WAIT_READ, /* data on args[0] */
	REPRO_WAIT_LOCK, /* flock(2) on args[0] */
	REPRO_WAIT_FCNTL, /* fcntl(2) F_SETLKW / F_OFD_SETLKW on args[0] */
	REPRO_WAIT_POLL, /* poll, ppoll: struct pollfd[args[1]] at args[0] */
	REPRO_WAIT_SELECT, /* select, pselect6: the fd sets */
	REPRO_WAIT_EPOLL, /* epoll_wait family on args[0] */
	REPRO_WAIT_WAIT4, /* a child: wait4(args[0]) */
	REPRO_WAIT_WAITID, /* a child: waitid(args[0], args[1]) */
	REPRO_WAIT_SLEEP,
};

/*
 * Calls after which the tracer may no longer act for a tracee
 * (launcher/behalf.h, launcher/taint.h): they change its credentials, its
 * root or the mount tree.
 */
enum repro_sys_taint {
	REPRO_TAINT_NONE = 0,
	REPRO_TAINT_TASK, /* the calling thread and what it starts (unshare, setns) */
	/*
	 * the same, once the call has changed what a path walk is checked
	 * against (set*id, setgroups, capset): a call that leaves the
	 * credentials as they were (setresuid(-1, 0, -1) by root, as compilers'
	 * drivers do) changes nothing, and is compared at its exit
	 */
	REPRO_TAINT_CREDS,
	/* clone: the caller and the child when the child gets a new user or mount namespace */
	REPRO_TAINT_CLONE,
	REPRO_TAINT_CLONE3, /* the same for clone3(2), whose flags are in struct clone_args */
	/*
	 * every tracee: mount, umount2, pivot_root ... change the one mount
	 * namespace; chroot changes an fs_struct that other processes may
	 * share (clone(CLONE_FS))
	 */
	REPRO_TAINT_ALL,
	/*
	 * seccomp(2) SECCOMP_SET_MODE_FILTER, prctl(2) PR_SET_SECCOMP with
	 * SECCOMP_MODE_FILTER: the task installs a filter of its own, which
	 * may decide calls before repro's filter sees them (and its children
	 * inherit it; SECCOMP_FILTER_FLAG_TSYNC puts it on every thread)
	 */
	REPRO_TAINT_SECCOMP,
	REPRO_TAINT_PRCTL,
};

/* How one argument is captured at the stop and rendered afterwards (recorder/sys/). */
enum repro_arg_kind {
	RA_NONE = 0,
	RA_INT, /* signed int, decimal */
	RA_SIZE, /* unsigned long, decimal */
	RA_PTR, /* address, not decoded */
	RA_TIMES, /* the times to set (utimbuf, timeval[2], timespec[2]): an address, not decoded */
	RA_HEX, /* unsigned flags or mask without names, hexadecimal */
	RA_FD,
	/*
	 * an fd the call writes to: when the call fails, the recorder keeps
	 * what the fd names ("path", or "fd_target" for a pipe or socket) and
	 * the filesystem's space at that moment (recorder/sys/file.c)
	 */
	RA_FD_TARGET,
	RA_DIRFD, /* AT_FDCWD or an fd naming a directory */
	RA_PATH, /* path, relative to the cwd */
	RA_PATH_AT, /* path, relative to the nearest preceding RA_DIRFD */
	RA_STR, /* string kept as given (symlink target) */
	RA_OFLAGS, /* O_* */
	RA_CMODE, /* mode, shown only with O_CREAT / O_TMPFILE */
	RA_MODE, /* mode, octal */
	RA_ATFLAGS, /* AT_* */
	RA_AMODE, /* access(2) mode */
	RA_RENAMEFLAGS,
	RA_UNLINKFLAGS,
	RA_OPENHOW, /* struct open_how * (openat2(2)) */
	RA_ID, /* uid or gid */
	RA_DEV,
	RA_STATXMASK,
	RA_DOMAIN, /* AF_* */
	RA_SOCKTYPE, /* SOCK_* */
	RA_PROTO,
	RA_SOCKADDR, /* struct sockaddr *, length in the next argument */
	RA_SOCKLEN,
	RA_SOCKADDR_OUT, /* struct sockaddr * the kernel fills (accept, getsockname), read at exit */
	RA_SOCKLEN_OUT, /* socklen_t * of the preceding RA_SOCKADDR_OUT, read at exit */
	RA_FDPAIR, /* int[2] the kernel fills (socketpair), read at exit */
	RA_MSGHDR, /* struct msghdr * with msg_name */
	RA_MSGFLAGS,
	RA_SOCKLEVEL,
	RA_SOCKOPT,
	RA_SOCKOPTVAL, /* getsockopt's int result (SO_ERROR: an errno), read at exit */
	RA_SOCKOPTIN, /* setsockopt's value: an int when optlen is 4 */
	RA_SHUTHOW,
	RA_SENDBUF, /* bytes sent (sendto); kept for DNS sockets only */
	RA_RECVBUF, /* bytes received (recvfrom), read at exit; DNS sockets only */
	RA_RMSGHDR, /* struct msghdr * of recvmsg, read at exit; DNS sockets only */
	RA_MMSGHDR, /* struct mmsghdr * of sendmmsg; DNS sockets only */
	RA_RMMSGHDR, /* struct mmsghdr * of recvmmsg, read at exit; DNS sockets only */
	RA_CLOSEFD, /* close(2)'s fd: recorded for watched sockets only (recorder/socks.h) */
	RA_OUTBUF, /* bytes to write (write), read at entry: recorder/output.h */
	RA_OUTIOV, /* struct iovec * of the bytes to write (writev), read at entry likewise */
	RA_CLONEFLAGS,
	RA_CLONE3, /* struct clone_args * */
	RA_ARGV,
	RA_ENVP,
	RA_PID,
	RA_SIG,
	RA_WAITOPTS,
	RA_IDTYPE,
};

struct repro_sysarg {
	enum repro_arg_kind kind;
	const char *key; /* JSON key, or NULL: shown in trace.txt only */
};

/* Flags of a row (repro_sysent.flags). */
enum repro_sys_flag {
	REPRO_SYSF_NOFOLLOW =
		1u << 0, /* acts on a final symlink itself (lstat, unlink, rename …) */
	/* a directory path may name something else after it (rename, rmdir, mount …) */
	REPRO_SYSF_RESHAPES = 1u << 1,
	/*
	 * recorded only when it fails, unless its capture keeps it (a send
	 * with a destination, DNS): sends, receives, sendfile -- the hottest
	 * calls of the table, whose success costs their exit stop only
	 */
	REPRO_SYSF_FAILURE_ONLY = 1u << 2,
	REPRO_SYSF_NO_RETURN = 1u << 3, /* exit, exit_group */
	/*
	 * path-only: the tracer can perform it on the tracee's behalf for the
	 * seccomp notification listener (launcher/behalf.h)
	 */
	REPRO_SYSF_BEHALF = 1u << 4,
	/* notified to be seen at its entry only, then run by the kernel (close) */
	REPRO_SYSF_ENTRY_ONLY = 1u << 5,
	/* its failures are followed to their end in network.jsonl (recorder/network.h) */
	REPRO_SYSF_NETLOG = 1u << 6,
	/* carries a DNS message on a DNS socket (recorder/dns.h): sends, receives, write, read */
	REPRO_SYSF_DNS_IO = 1u << 7,
	REPRO_SYSF_CREDS = 1u << 8, /* changes credentials (set*id, setgroups, capset) */
	REPRO_SYSF_OWN_FILTER = 1u << 9, /* may install a seccomp filter of the program's own */
	REPRO_SYSF_WAIT_CHILD = 1u << 10, /* waits for a child (wait4, waitid): ECHILD is routine */
	REPRO_SYSF_BYTES_OUT = 1u << 11, /* its bytes go out through args[0] (write, sendto …) */
	/* sets up I/O that no traced syscall shows (io_uring_setup): always recorded */
	REPRO_SYSF_BYPASS = 1u << 12,
	/* acts on extended attributes (getxattr, listxattr, setxattr, removexattr …) */
	REPRO_SYSF_XATTR = 1u << 13,
};

/*
 * An argument condition of the seccomp filter (struct lnch_filter_rule):
 * the call stops only when (args[arg] & mask) == value, or args[arg] <=
 * value with is_le.  arg -1: no condition.
 */
struct repro_sys_cond {
	int8_t arg;
	bool is_le;
	bool is_ptrace_only; /* the condition holds for ptrace stops only, not the listener */
	uint64_t mask;
	uint64_t value;
};

struct repro_sysent {
	const char *name; /* libseccomp's */
	unsigned classes; /* enum repro_sys_class */
	unsigned trace; /* enum repro_sys_trace */
	enum repro_sys_op op; /* of "path" (or the only path argument) */
	unsigned flags; /* enum repro_sys_flag */
	enum repro_sys_net net;
	enum repro_sys_bytes bytes;
	enum repro_sys_wait wait;
	enum repro_sys_taint taint;
	bool has_cond;
	struct repro_sys_cond cond;
	/*
	 * trace classes with which cond is dropped: write stops for fds 0-2
	 * only (what the program said), and for every fd with %file (so that a
	 * failed write to a file is recorded)
	 */
	unsigned cond_unless;
	struct repro_sysarg args[6]; /* in the kernel's order, RA_NONE after the last */
};

/*
 * repro_sysent_all - the table and its length in *n.  Static storage,
 * sorted by name; never NULL.
 */
const struct repro_sysent *repro_sysent_all(size_t *n);

/*
 * repro_sysent_find - the row of the syscall called name (libseccomp's
 * spelling), or NULL for a name not in the table or NULL.  Borrowed:
 * static storage.  Cost: a binary search, O(log n) string compares.
 */
const struct repro_sysent *repro_sysent_find(const char *name);

/* repro_sysent_nargs - how many arguments of s are decoded (0-6). */
int repro_sysent_nargs(const struct repro_sysent *s);

/* repro_sysent_arg_of - index of s's first argument of kind k, or -1. */
int repro_sysent_arg_of(const struct repro_sysent *s, enum repro_arg_kind k);

/*
 * repro_sysent_modifies - whether a call of s may create, change or delete
 * what its path names (mkdir, unlink, chmod, truncate …); for an open,
 * whether flags (O_*) let it.  NULL s: false.
 */
bool repro_sysent_modifies(const struct repro_sysent *s, uint64_t oflags);

/*
 * repro_sys_open_op - what an open with flags (O_*, open(2)) does to its
 * path: STAT with O_PATH, CREATE with O_CREAT or O_TMPFILE, WRITE with a
 * write mode or O_TRUNC, else READ.
 */
enum repro_sys_op repro_sys_open_op(uint64_t oflags);

/*
 * repro_sys_open_op_text - the same from the flags as events.jsonl spells
 * them ("O_WRONLY|O_CREAT|O_CLOEXEC"); NULL: READ.  For bundles written
 * before events carried "op".
 */
enum repro_sys_op repro_sys_open_op_text(const char *flags);

/*
 * repro_sysent_fixed_oflags - the open flags an open without a flags
 * argument implies: creat(2) is open(O_CREAT|O_WRONLY|O_TRUNC); else 0.
 */
uint64_t repro_sysent_fixed_oflags(const struct repro_sysent *s);

/*
 * repro_sysent_op - the op of a call of s on its argument argi (the
 * "newpath" of rename and link is CREATE), flags its open flags (ignored
 * for others).  NULL s: NONE.
 */
enum repro_sys_op repro_sysent_op(const struct repro_sysent *s, int argi, uint64_t oflags);

/* repro_sys_op_name - "stat", "read" … of events.jsonl; NULL for NONE and OPEN.  Static. */
const char *repro_sys_op_name(enum repro_sys_op op);

/* repro_sys_op_parse - the op called name ("stat" …), or REPRO_OP_NONE. */
enum repro_sys_op repro_sys_op_parse(const char *name);

/*
 * repro_sys_class_lookup - the REPRO_SYS_* bits of a class word of fault
 * rules and --trace: "%file", "%network", "%net", "%process", "%desc", or
 * strace's legacy spellings without '%'.  0 when name is no class.
 */
unsigned repro_sys_class_lookup(const char *name);

/* repro_sys_class_word - the i-th spelling accepted above, NULL past the end.  Static. */
const char *repro_sys_class_word(size_t i);

/*
 * repro_sys_alias - the x86_64 syscall that implements the libc call name
 * when the kernel has no call of that name ("recv" is "recvfrom", "send"
 * is "sendto"), or NULL.  Static.
 */
const char *repro_sys_alias(const char *name);

#endif
