#include "recorder/flags.h"
#include "common/names.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define N(tab) (sizeof(tab) / sizeof((tab)[0]))
/* clang-format off */
#define F(x) { x, #x }
/* clang-format on */

char *rec_flags_format(const struct rec_flag *tab, size_t n, uint64_t value, char *buf, size_t cap)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && value != 0; i++) {
		if (tab[i].value == 0 || (value & tab[i].value) != tab[i].value)
			continue;
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%s",
					 used ? "|" : "", tab[i].name);
		value &= ~tab[i].value;
	}
	if (value != 0 || used == 0)
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%#llx",
					 used ? "|" : "", (unsigned long long)value);
	if (used == 0 || (used >= 3 && strcmp(buf, "0") == 0))
		snprintf(buf, cap, "0");
	return buf;
}

static const struct rec_flag oflags[] = {
	F(O_CREAT),	F(O_EXCL),     F(O_NOCTTY),
	F(O_TRUNC),	F(O_APPEND),   F(O_NONBLOCK),
	F(O_SYNC),	F(O_DSYNC),    F(O_DIRECT),
	F(O_LARGEFILE), F(O_NOFOLLOW), F(O_NOATIME),
	F(O_CLOEXEC),	F(O_PATH),     { O_TMPFILE & ~O_DIRECTORY, "O_TMPFILE" },
	F(O_DIRECTORY), F(O_ASYNC),
};

char *rec_oflags_format(uint64_t flags, char *buf, size_t cap)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
	char rest[256];
	uint64_t others = flags & ~(uint64_t)O_ACCMODE;

	if (others == 0) {
		snprintf(buf, cap, "%s", acc[flags & O_ACCMODE]);
		return buf;
	}
	rec_flags_format(oflags, N(oflags), others, rest, sizeof(rest));
	snprintf(buf, cap, "%s|%s", acc[flags & O_ACCMODE], rest);
	return buf;
}

char *rec_atflags_format(uint64_t flags, char *buf, size_t cap)
{
	/* 0x200 is AT_EACCESS here; AT_REMOVEDIR shares it, for unlinkat only (rec_unlinkflags_format) */
	static const struct rec_flag tab[] = {
		F(AT_SYMLINK_NOFOLLOW),
		F(AT_SYMLINK_FOLLOW),
		F(AT_NO_AUTOMOUNT),
		F(AT_EMPTY_PATH),
		F(AT_EACCESS),
		{ 0x2000, "AT_STATX_FORCE_SYNC" },
		{ 0x4000, "AT_STATX_DONT_SYNC" },
	};

	return rec_flags_format(tab, N(tab), flags, buf, cap);
}

char *rec_resolve_format(uint64_t resolve, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = {
		F(RESOLVE_NO_XDEV), F(RESOLVE_NO_MAGICLINKS), F(RESOLVE_NO_SYMLINKS),
		F(RESOLVE_BENEATH), F(RESOLVE_IN_ROOT),	      F(RESOLVE_CACHED),
	};

	return rec_flags_format(tab, N(tab), resolve, buf, cap);
}

uint64_t rec_resolve_cause(uint64_t resolve, int errnum)
{
	switch (errnum) {
	case EXDEV: return resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT | RESOLVE_NO_XDEV);
	case ELOOP:
		if (resolve & (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS))
			return resolve & (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		return resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT);
	case EAGAIN: return resolve & RESOLVE_CACHED;
	default: return 0;
	}
}

char *rec_amode_format(uint64_t mode, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = { F(R_OK), F(W_OK), F(X_OK) };

	if (mode == F_OK) {
		snprintf(buf, cap, "F_OK");
		return buf;
	}
	return rec_flags_format(tab, N(tab), mode, buf, cap);
}

char *rec_mode_format(uint64_t mode, char *buf, size_t cap)
{
	static const struct rec_flag types[] = {
		F(S_IFREG), F(S_IFCHR), F(S_IFBLK), F(S_IFIFO), F(S_IFSOCK),
	};
	const char *type = "";

	for (size_t i = 0; i < N(types); i++)
		if ((mode & S_IFMT) == types[i].value)
			type = types[i].name;
	/* a leading 0 marks octal, as strace and chmod(1) write it: 0644, 04755 */
	snprintf(buf, cap, "%s%s0%03llo", type, type[0] ? "|" : "",
		 (unsigned long long)(mode & 07777));
	return buf;
}

char *rec_renameflags_format(uint64_t flags, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = {
		{ 1, "RENAME_NOREPLACE" },
		{ 2, "RENAME_EXCHANGE" },
		{ 4, "RENAME_WHITEOUT" },
	};

	return rec_flags_format(tab, N(tab), flags, buf, cap);
}

char *rec_unlinkflags_format(uint64_t flags, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = { F(AT_REMOVEDIR) };

	return rec_flags_format(tab, N(tab), flags, buf, cap);
}

static char *name_or_number(const struct rec_flag *tab, size_t n, uint64_t v, char *buf, size_t cap)
{
	for (size_t i = 0; i < n; i++) {
		if (tab[i].value == v) {
			snprintf(buf, cap, "%s", tab[i].name);
			return buf;
		}
	}
	snprintf(buf, cap, "%llu", (unsigned long long)v);
	return buf;
}

char *rec_domain_format(uint64_t domain, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = {
		F(AF_UNIX), F(AF_INET), F(AF_INET6), F(AF_NETLINK), F(AF_PACKET), F(AF_UNSPEC),
	};

	return name_or_number(tab, N(tab), domain, buf, cap);
}

char *rec_socktype_format(uint64_t type, char *buf, size_t cap)
{
	static const struct rec_flag types[] = {
		F(SOCK_STREAM), F(SOCK_DGRAM), F(SOCK_RAW), F(SOCK_SEQPACKET), F(SOCK_RDM),
	};
	static const struct rec_flag flags[] = { F(SOCK_NONBLOCK), F(SOCK_CLOEXEC) };
	char t[32], f[64];
	uint64_t extra = type & (SOCK_NONBLOCK | SOCK_CLOEXEC);

	if ((type & 0xf) == 0) { /* accept4 flags alone */
		return rec_flags_format(flags, N(flags), type, buf, cap);
	}
	name_or_number(types, N(types), type & 0xf, t, sizeof(t));
	if (extra == 0)
		snprintf(buf, cap, "%s", t);
	else
		snprintf(buf, cap, "%s|%s", t,
			 rec_flags_format(flags, N(flags), extra, f, sizeof(f)));
	return buf;
}

char *rec_msgflags_format(uint64_t flags, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = {
		F(MSG_OOB),	 F(MSG_DONTROUTE), F(MSG_DONTWAIT), F(MSG_EOR),
		F(MSG_NOSIGNAL), F(MSG_MORE),	   F(MSG_CONFIRM),  F(MSG_FASTOPEN),
	};

	return rec_flags_format(tab, N(tab), flags, buf, cap);
}

char *rec_sockopt_format(uint64_t level, uint64_t name, char *lbuf, char *nbuf, size_t cap)
{
	static const struct rec_flag levels[] = {
		F(SOL_SOCKET), { 6, "SOL_TCP" }, { 0, "SOL_IP" }, { 41, "SOL_IPV6" }
	};
	static const struct rec_flag names[] = {
		F(SO_DEBUG),	    F(SO_REUSEADDR),	F(SO_TYPE),	     F(SO_ERROR),
		F(SO_DONTROUTE),    F(SO_BROADCAST),	F(SO_SNDBUF),	     F(SO_RCVBUF),
		F(SO_KEEPALIVE),    F(SO_OOBINLINE),	F(SO_NO_CHECK),	     F(SO_PRIORITY),
		F(SO_LINGER),	    F(SO_BSDCOMPAT),	F(SO_REUSEPORT),     F(SO_PASSCRED),
		F(SO_PEERCRED),	    F(SO_RCVLOWAT),	F(SO_SNDLOWAT),	     F(SO_RCVTIMEO_OLD),
		F(SO_SNDTIMEO_OLD), F(SO_BINDTODEVICE), F(SO_TIMESTAMP_OLD), F(SO_ACCEPTCONN),
		F(SO_PEERSEC),	    F(SO_SNDBUFFORCE),	F(SO_RCVBUFFORCE),   F(SO_PASSSEC),
		F(SO_MARK),	    F(SO_PROTOCOL),	F(SO_DOMAIN),	     F(SO_RXQ_OVFL),
		F(SO_PEEK_OFF),	    F(SO_BUSY_POLL),	F(SO_INCOMING_CPU),  F(SO_ZEROCOPY),
		F(SO_COOKIE),
	};
	/* netinet/tcp.h, ipv6(7) and ip(7) numbers, named here to keep their headers out */
	static const struct rec_flag tcp[] = {
		{ 1, "TCP_NODELAY" },	   { 2, "TCP_MAXSEG" },
		{ 3, "TCP_CORK" },	   { 4, "TCP_KEEPIDLE" },
		{ 5, "TCP_KEEPINTVL" },	   { 6, "TCP_KEEPCNT" },
		{ 7, "TCP_SYNCNT" },	   { 8, "TCP_LINGER2" },
		{ 9, "TCP_DEFER_ACCEPT" }, { 10, "TCP_WINDOW_CLAMP" },
		{ 11, "TCP_INFO" },	   { 12, "TCP_QUICKACK" },
		{ 13, "TCP_CONGESTION" },  { 18, "TCP_USER_TIMEOUT" },
		{ 23, "TCP_FASTOPEN" },	   { 30, "TCP_FASTOPEN_CONNECT" },
	};
	static const struct rec_flag ipv6[] = { { 26, "IPV6_V6ONLY" }, { 67, "IPV6_TCLASS" } };
	static const struct rec_flag ip[] = {
		{ 1, "IP_TOS" }, { 2, "IP_TTL" }, { 10, "IP_MTU_DISCOVER" }, { 24, "IP_FREEBIND" }
	};

	name_or_number(levels, N(levels), level, lbuf, cap);
	if (level == SOL_SOCKET)
		name_or_number(names, N(names), name, nbuf, cap);
	else if (level == 6)
		name_or_number(tcp, N(tcp), name, nbuf, cap);
	else if (level == 41)
		name_or_number(ipv6, N(ipv6), name, nbuf, cap);
	else if (level == 0)
		name_or_number(ip, N(ip), name, nbuf, cap);
	else
		snprintf(nbuf, cap, "%llu", (unsigned long long)name);
	return lbuf;
}

char *rec_shuthow_format(uint64_t how, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = { { SHUT_RD, "SHUT_RD" },
					       { SHUT_WR, "SHUT_WR" },
					       { SHUT_RDWR, "SHUT_RDWR" } };

	return name_or_number(tab, N(tab), how, buf, cap);
}

char *rec_cloneflags_format(uint64_t flags, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = {
		F(CLONE_VM),
		F(CLONE_FS),
		F(CLONE_FILES),
		F(CLONE_SIGHAND),
		F(CLONE_PIDFD),
		F(CLONE_PTRACE),
		F(CLONE_VFORK),
		F(CLONE_PARENT),
		F(CLONE_THREAD),
		F(CLONE_NEWNS),
		F(CLONE_SYSVSEM),
		F(CLONE_SETTLS),
		F(CLONE_PARENT_SETTID),
		F(CLONE_CHILD_CLEARTID),
		F(CLONE_UNTRACED),
		F(CLONE_CHILD_SETTID),
		F(CLONE_NEWCGROUP),
		F(CLONE_NEWUTS),
		F(CLONE_NEWIPC),
		F(CLONE_NEWUSER),
		F(CLONE_NEWPID),
		F(CLONE_NEWNET),
		F(CLONE_IO),
	};
	char f[512], s[32];
	int sig = (int)(flags & 0xff);

	rec_flags_format(tab, N(tab), flags & ~(uint64_t)0xff, f, sizeof(f));
	if (sig == 0)
		snprintf(buf, cap, "%s", f);
	else if ((flags & ~(uint64_t)0xff) == 0)
		snprintf(buf, cap, "%s", repro_signal_name(sig, s, sizeof(s)));
	else
		snprintf(buf, cap, "%s|%s", f, repro_signal_name(sig, s, sizeof(s)));
	return buf;
}

char *rec_waitopts_format(uint64_t opts, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = {
		F(WNOHANG), F(WUNTRACED),   F(WEXITED), F(WCONTINUED),
		F(WNOWAIT), F(__WNOTHREAD), F(__WALL),	F(__WCLONE),
	};

	return rec_flags_format(tab, N(tab), opts, buf, cap);
}

char *rec_idtype_format(uint64_t idtype, char *buf, size_t cap)
{
	static const struct rec_flag tab[] = { F(P_ALL), F(P_PID), F(P_PGID), { 3, "P_PIDFD" } };

	return name_or_number(tab, N(tab), idtype, buf, cap);
}
