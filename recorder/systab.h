#ifndef REPRO_RECORDER_SYSTAB_H
#define REPRO_RECORDER_SYSTAB_H

/*
 * The syscalls repro records: recorder/sys/table.def is the single source of
 * truth for names, classes (%file, %network, %process) and argument kinds,
 * like strace's syscallent.h.  Numbers come from libseccomp, resolved once
 * per architecture by rec_systab_new().
 */

#include "common/err.h"
#include "launcher/filter_rule.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rec_class {
	REC_CLASS_FILE = 1u << 0,
	REC_CLASS_NETWORK = 1u << 1,
	REC_CLASS_PROCESS = 1u << 2,
	REC_CLASS_ALL = 7u,
	REC_CLASS_ALWAYS = 1u << 3, /* traced whatever --trace says (io_uring_setup) */
	/*
	 * what the program said: writes to fds 1 and 2, whatever --trace
	 * says; kept in a ring per process (recorder/output.h), never events
	 */
	REC_CLASS_OUTPUT = 1u << 4,
	/*
	 * traced only when a policy asks (read, for a fault rule on DNS); an
	 * event only on a DNS socket (DNS over TCP), else as OUTPUT's calls
	 */
	REC_CLASS_ON_DEMAND = 1u << 5,
	/* table.def's names for calls in two classes */
	REC_CLASS_FILE_PROCESS = REC_CLASS_FILE | REC_CLASS_PROCESS, /* execve, execveat */
	REC_CLASS_FILE_ALWAYS = REC_CLASS_FILE | REC_CLASS_ALWAYS, /* chroot, mount … */
};

/* How one argument is captured at the stop and rendered afterwards. */
enum rec_arg_kind {
	RA_NONE = 0,
	RA_INT, /* signed int, decimal */
	RA_SIZE, /* unsigned long, decimal */
	RA_PTR, /* address, not decoded */
	RA_HEX, /* unsigned flags or mask without names, hexadecimal */
	RA_FD,
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

struct rec_arg {
	enum rec_arg_kind kind;
	const char *key; /* JSON key, or NULL: shown in trace.txt only */
};

/* Network calls that change which sockets the recorder watches (recorder/socks.h). */
enum rec_net_role {
	REC_NET_NONE = 0,
	REC_NET_NEWFD, /* socket, accept, accept4: the returned fd is a new socket */
	REC_NET_CONNECT, /* connect */
	REC_NET_SEND, /* sendto, sendmsg, sendmmsg: may name a destination */
	REC_NET_CLOSE, /* close */
	REC_NET_NEWPAIR, /* socketpair: two new sockets */
	REC_NET_RECV, /* recvfrom, recvmsg, recvmmsg: counted on a connected socket */
};

struct rec_sys {
	const char *name;
	unsigned classes;
	struct rec_arg args[6];
	int nargs;
	bool no_return; /* exit, exit_group */
	bool modifies; /* may create, change or delete its path arguments (mkdir, unlink, chmod …) */
	int oflags_arg; /* index of the open(2) flags argument, or -1 */
	int atflags_arg; /* index of the AT_* flags argument, or -1 */
	bool is_nofollow; /* acts on a final symlink itself (lstat, readlink, unlink, rename …) */
	bool reshapes; /* may change what an existing directory path names (rename, rmdir, mount …) */
	enum rec_net_role net_role; /* what the call does to the set of watched sockets */
	/*
	 * Recorded only when it fails, unless its capture keeps it (a send
	 * with a destination, DNS): sends, receives, sendfile.  These are the
	 * hottest calls of the table; a success costs their exit stop only.
	 */
	bool is_failure_only;
};

struct rec_systab;

/*
 * rec_systab_new - resolve every table entry for the native and compat ABIs
 * (lnch_arch_filter_arches()).  Returns a table for rec_systab_free(), never
 * NULL (names a libseccomp does not know are left unresolved).
 */
struct rec_systab *rec_systab_new(void);
void rec_systab_free(struct rec_systab *t);

/*
 * rec_systab_lookup - the entry for (arch, nr), or NULL when repro does not
 * decode that call.  Borrowed from the static table.
 */
const struct rec_sys *rec_systab_lookup(const struct rec_systab *t, uint32_t arch, int nr);

/*
 * rec_systab_name - the libseccomp name of (arch, nr), or NULL for an unknown
 * number.  Borrowed from t, valid until rec_systab_free().
 */
const char *rec_systab_name(const struct rec_systab *t, uint32_t arch, int nr);

/*
 * rec_classes_parse - "file,network,process" (any subset, also "all" and
 * "%file"…) into REC_CLASS_* bits.  Returns 0, or -1 with *err (EINVAL naming
 * the unknown word).
 */
int rec_classes_parse(const char *text, unsigned *classes, struct repro_err **err);

/* rec_classes_format - "file,network,process" for bits; static buffer-free: writes into buf. */
void rec_classes_format(unsigned classes, char *buf, size_t cap);

/*
 * rec_filter_rules - the seccomp rules for classes: every table entry of
 * those classes, with argument conditions so that calls that teach nothing
 * do not stop (fstat-style newfstatat/statx with AT_EMPTY_PATH).  Returns a new array
 * the caller frees; *n gets its length.
 */
struct lnch_filter_rule *rec_filter_rules(unsigned classes, size_t *n);

/*
 * rec_filter_rules_with - rec_filter_rules() plus the calls named in extra
 * (nextra libseccomp names, borrowed: they must outlive the rules), which
 * stop whatever their arguments: a policy acts on them (fault rules).  A
 * name already there loses its argument condition.  Linear in the table
 * times nextra.
 */
struct lnch_filter_rule *rec_filter_rules_with(unsigned classes, const char *const *extra,
					       size_t nextra, size_t *n);

/* rec_systab_entries - the static table and its length (for tests). */
const struct rec_sys *rec_systab_entries(size_t *n);

#endif
