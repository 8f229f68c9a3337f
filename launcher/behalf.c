/*
 * Path-only calls performed on a tracee's behalf (launcher/behalf.h).  The
 * path walk is the kernel's own, through openat2(2) from the tracee's cwd or
 * dirfd; only the final operation runs on the O_PATH descriptor it yields.
 */
#include "launcher/behalf.h"
#include "common/sysent.h"
#include "launcher/mem.h"
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

enum op { OP_STAT, OP_STATX, OP_ACCESS, OP_READLINK };

/* One call, decoded from its arguments (each man page, section 2). */
struct call {
	enum op op;
	int dirfd;
	int path_argi; /* which argument the path is */
	uint64_t path_addr;
	uint64_t out_addr; /* struct stat, struct statx or the readlink buffer */
	uint64_t size; /* readlink: bufsiz */
	unsigned flags; /* AT_* */
	unsigned mask; /* statx: STATX_* */
	unsigned mode; /* access: R_OK | W_OK | X_OK */
};

bool lnch_behalf_supported(const char *name)
{
	const struct repro_sysent *s = repro_sysent_find(name);

	return s != NULL && (s->flags & REPRO_SYSF_BEHALF);
}

bool lnch_behalf_entry_only(const char *name)
{
	const struct repro_sysent *s = repro_sysent_find(name);

	return s != NULL && (s->flags & REPRO_SYSF_ENTRY_ONLY);
}

size_t lnch_behalf_native_nrs(int *out, size_t max)
{
	size_t n = 0, rows;
	const struct repro_sysent *t = repro_sysent_all(&rows);

	for (size_t i = 0; i < rows && n < max; i++) {
		int nr;

		if (!(t[i].flags & (REPRO_SYSF_BEHALF | REPRO_SYSF_ENTRY_ONLY)))
			continue;
		nr = seccomp_syscall_resolve_name(t[i].name);
		if (nr >= 0)
			out[n++] = nr;
	}
	return n;
}

void lnch_behalf_init(struct lnch_behalf_ctx *ctx)
{
	struct stat st;

	ctx->proc_dev = stat("/proc/self", &st) == 0 ? (uint64_t)st.st_dev : 0;
}

/* The legacy calls exist on x86_64 only; the *at forms everywhere. */
static bool decode_legacy(int nr, const uint64_t a[6], struct call *c)
{
	c->dirfd = AT_FDCWD;
	c->path_argi = 0;
	c->path_addr = a[0];
	switch (nr) {
#ifdef __NR_stat
	case __NR_stat: c->op = OP_STAT, c->out_addr = a[1]; return true;
	case __NR_lstat:
		c->op = OP_STAT, c->out_addr = a[1], c->flags = AT_SYMLINK_NOFOLLOW;
		return true;
	case __NR_access: c->op = OP_ACCESS, c->mode = (unsigned)a[1]; return true;
	case __NR_readlink: c->op = OP_READLINK, c->out_addr = a[1], c->size = a[2]; return true;
#endif
	default: return false;
	}
}

static bool decode(int nr, const uint64_t a[6], struct call *c)
{
	memset(c, 0, sizeof(*c));
	if (decode_legacy(nr, a, c))
		return true;
	c->dirfd = (int)a[0];
	c->path_argi = 1;
	c->path_addr = a[1];
	switch (nr) {
	case __NR_newfstatat:
		c->op = OP_STAT, c->out_addr = a[2], c->flags = (unsigned)a[3];
		return true;
	case __NR_statx:
		c->op = OP_STATX, c->flags = (unsigned)a[2], c->mask = (unsigned)a[3];
		c->out_addr = a[4];
		return true;
	case __NR_faccessat: c->op = OP_ACCESS, c->mode = (unsigned)a[2]; return true;
	case __NR_faccessat2:
		c->op = OP_ACCESS, c->mode = (unsigned)a[2], c->flags = (unsigned)a[3];
		return true;
	case __NR_readlinkat: c->op = OP_READLINK, c->out_addr = a[2], c->size = a[3]; return true;
	default: return false;
	}
}

/* Arguments whose handling by the kernel (EINVAL and its order) is not copied here. */
static bool plain_arguments(const struct call *c)
{
	unsigned ok;

	switch (c->op) {
	case OP_STAT: ok = AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT; break;
	case OP_STATX:
		ok = AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE;
		if ((c->flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE ||
		    (c->mask & STATX__RESERVED) != 0)
			return false;
		break;
	case OP_ACCESS:
		ok = AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH;
		if (c->mode & ~(unsigned)(R_OK | W_OK | X_OK))
			return false;
		break;
	case OP_READLINK:
		ok = 0;
		if ((int)c->size <= 0)
			return false;
		break;
	default: return false;
	}
	return (c->flags & ~ok) == 0;
}

/*
 * The path as getname() reads it: -EFAULT when unreadable before its NUL,
 * -ENAMETOOLONG when it has no NUL within PATH_MAX bytes, -ESRCH when the
 * tracee is gone.
 */
static int read_path(pid_t tid, uint64_t addr, char *buf)
{
	size_t len = 0;

	while (len < PATH_MAX) {
		size_t want = 4096 - (size_t)((addr + len) % 4096);

		if (want > PATH_MAX - len)
			want = PATH_MAX - len;
		if (lnch_mem_read(tid, addr + len, buf + len, want) < 0)
			return errno == ESRCH ? -ESRCH : -EFAULT;
		if (memchr(buf + len, '\0', want) != NULL)
			return 0;
		len += want;
	}
	return -ENAMETOOLONG;
}

/* /proc/self and /proc/thread-self name the reader: say the tracee instead. */
static void rewrite_self(const char *path, pid_t tid, pid_t tgid, char *out, size_t cap)
{
	static const char self[] = "/proc/self", tself[] = "/proc/thread-self";

	if (strncmp(path, self, sizeof(self) - 1) == 0 &&
	    (path[sizeof(self) - 1] == '/' || path[sizeof(self) - 1] == '\0'))
		snprintf(out, cap, "/proc/%d%s", (int)tgid, path + sizeof(self) - 1);
	else if (strncmp(path, tself, sizeof(tself) - 1) == 0 &&
		 (path[sizeof(tself) - 1] == '/' || path[sizeof(tself) - 1] == '\0'))
		snprintf(out, cap, "/proc/%d/task/%d%s", (int)tgid, (int)tid,
			 path + sizeof(tself) - 1);
	else
		snprintf(out, cap, "%s", path);
}

/*
 * An object in procfs is the tracee's only when named as /proc or
 * /proc/<pid>/... without "..": other names there (/proc/mounts is
 * self/mounts) depend on who reads them.
 */
static bool procfs_name_is_absolute(const char *path)
{
	const char *p = path + 6;

	if (strcmp(path, "/proc") == 0 || strcmp(path, "/proc/") == 0)
		return true;
	if (strncmp(path, "/proc/", 6) != 0 || *p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p != '/' && *p != '\0')
		return false;
	return strstr(path, "/..") == NULL;
}

static void close_if_owned(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#define cleanup_fd_owned __attribute__((cleanup(close_if_owned)))

/* The directory a relative path starts from, as an O_PATH fd; -errno when the dirfd is bad. */
static int open_base(pid_t tid, int dirfd)
{
	char link[64];
	int fd;

	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
	else if (dirfd < 0)
		return -EBADF;
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tid, dirfd);
	fd = open(link, O_PATH | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	return errno == ENOENT && dirfd != AT_FDCWD ? -EBADF : -ESRCH;
}

struct target {
	pid_t tid;
	bool (*still_valid)(void *cookie);
	void *cookie;
};

/* Copy bytes into the tracee: 0, -EFAULT like the kernel, or -ESRCH when that is impossible. */
static int write_out(const struct target *t, uint64_t addr, const void *buf, size_t len)
{
	struct iovec local = { .iov_base = (void *)buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n;

	if (!t->still_valid(t->cookie))
		return -ESRCH;
	n = process_vm_writev(t->tid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0 || errno == EFAULT)
		return -EFAULT;
	return -ESRCH;
}

/* Run the operation on obj; *ret as the syscall returns. Returns false to leave it to the kernel. */
static bool run_op(const struct call *c, const struct target *t, int obj, uint64_t proc_dev,
		   bool name_ok, int64_t *ret)
{
	struct stat st;
	struct statx stx;
	char link[PATH_MAX];
	ssize_t n;
	int rc;

	if (c->op == OP_STATX) {
		if (statx(obj, "", AT_EMPTY_PATH | (c->flags & AT_STATX_SYNC_TYPE), c->mask, &stx) <
		    0)
			return *ret = -errno, true;
		if (proc_dev && makedev(stx.stx_dev_major, stx.stx_dev_minor) == proc_dev &&
		    !name_ok)
			return false;
		rc = write_out(t, c->out_addr, &stx, sizeof(stx));
		return rc == -ESRCH ? false : (*ret = rc, true);
	}
	if (fstat(obj, &st) < 0)
		return *ret = -errno, true;
	if (proc_dev && (uint64_t)st.st_dev == proc_dev && !name_ok)
		return false;
	if (c->op == OP_READLINK && !S_ISLNK(st.st_mode))
		return *ret = -EINVAL, true; /* readlinkat(fd, "") says ENOENT there */
	if (c->op == OP_STAT) {
		rc = write_out(t, c->out_addr, &st, sizeof(st));
	} else if (c->op == OP_ACCESS) {
		rc = faccessat(obj, "", (int)c->mode, AT_EMPTY_PATH | (c->flags & AT_EACCESS));
		rc = rc < 0 ? -errno : 0;
	} else {
		n = readlinkat(obj, "", link, c->size < sizeof(link) ? c->size : sizeof(link));
		if (n < 0)
			return *ret = -errno, true;
		rc = write_out(t, c->out_addr, link, (size_t)n);
		if (rc == 0)
			rc = (int)n;
	}
	return rc == -ESRCH ? false : (*ret = rc, true);
}

/*
 * ELOOP under RESOLVE_NO_MAGICLINKS is a magic link (/proc/N/fd/M, which
 * only the tracee can follow) unless the walk also gives ELOOP without it:
 * then it is a loop of ordinary symlinks, and ELOOP the answer.
 */
static bool is_symlink_loop(int base, const char *path, const struct open_how *how)
{
	struct open_how plain = *how;
	int fd;

	plain.resolve = 0;
	fd = (int)syscall(SYS_openat2, base >= 0 ? base : AT_FDCWD, path, &plain, sizeof(plain));
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == ELOOP;
}

/*
 * Paths whose walk depends on who walks them, by name: /dev/fd and
 * /dev/std* lead to /proc/self/fd, /etc/mtab and /proc/mounts to
 * /proc/self/mounts, /proc/net to /proc/self/net (repro's network
 * namespace, not the program's under --net=none); and /proc/self,
 * /proc/thread-self themselves when the call does not follow them.  Such a
 * walk can fail in repro's view where it would not in the program's, so no
 * check of the object found is enough.
 */
static bool reader_dependent(const char *path, bool follow)
{
	static const char *const prefixes[] = { "/dev/fd", "/dev/std", "/etc/mtab", "/proc/mounts",
						"/proc/net" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (strncmp(path, prefixes[i], n) == 0 &&
		    (path[n] == '\0' || path[n] == '/' || strcmp(prefixes[i], "/dev/std") == 0))
			return true;
	}
	return !follow &&
	       (strcmp(path, "/proc/self") == 0 || strcmp(path, "/proc/thread-self") == 0);
}

/* Entries of a procfs root that name the reader ("net" and "mounts" lead to "self"). */
static bool is_self_entry(const char *name, size_t len)
{
	static const char *const names[] = { "self", "thread-self", "net", "mounts" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && memcmp(name, names[i], len) == 0)
			return true;
	return false;
}

static bool in_procfs(const struct lnch_behalf_ctx *ctx, int fd)
{
	struct stat st;

	return ctx->proc_dev == 0 || fstat(fd, &st) < 0 || (uint64_t)st.st_dev == ctx->proc_dev;
}

#define MAX_SYMLINKS 40 /* the kernel's limit (path_resolution(7)) */

/*
 * Walk path from base one component at a time, following symlinks by their
 * text as the kernel would, and say whether the walk reaches an entry of
 * procfs that names the reader (self, thread-self, net, mounts), or any
 * symlink inside procfs: then repro's walk may differ from the program's.
 * Stops with false (does not depend) where a component is missing: that is
 * where both walks fail.  Costs two or three syscalls per component, so it
 * runs only for walks that failed and met a symlink.
 */
static bool walk_meets_self(const struct lnch_behalf_ctx *ctx, int base, const char *path,
			    bool follow_last)
{
	char bufs[2][PATH_MAX], comp[NAME_MAX + 1];
	const char *rest = path;
	int in_buf = -1, links = 0, cur;
	bool depends = true;

	cur = path[0] != '/' && base >= 0
		      ? dup(base)
		      : open(path[0] == '/' ? "/" : ".", O_PATH | O_CLOEXEC | O_DIRECTORY);
	while (cur >= 0) {
		struct stat st;
		size_t len;
		bool last;
		int next;

		rest += strspn(rest, "/");
		if (*rest == '\0') {
			depends = false; /* walked to the end without meeting one */
			break;
		}
		len = strcspn(rest, "/");
		if (len > NAME_MAX) {
			depends = false; /* ENAMETOOLONG here in both walks */
			break;
		}
		memcpy(comp, rest, len);
		comp[len] = '\0';
		rest += len;
		last = rest[strspn(rest, "/")] == '\0';
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") != 0 && is_self_entry(comp, len) && in_procfs(ctx, cur))
			break;
		next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st) < 0) {
			if (next >= 0)
				close(next);
			depends = false; /* the walk fails here, whoever makes it */
			break;
		}
		if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(next, "", target, sizeof(target) - 1);
			bool procfs = in_procfs(ctx, next);
			int out = in_buf == 0 ? 1 : 0;

			close(next);
			if (procfs || n <= 0 || ++links > MAX_SYMLINKS ||
			    (size_t)n + strlen(rest) + 1 > PATH_MAX)
				break; /* a magic link, or one repro cannot follow */
			memcpy(bufs[out], target, (size_t)n);
			memcpy(bufs[out] + n, rest, strlen(rest) + 1);
			rest = bufs[out];
			in_buf = out;
			if (target[0] == '/') { /* from the root again */
				close(cur);
				cur = open("/", O_PATH | O_CLOEXEC | O_DIRECTORY);
			}
			continue;
		}
		close(cur);
		cur = next;
	}
	if (cur >= 0)
		close(cur);
	return depends;
}

/*
 * A walk that failed with errnum gives the program's answer when it cannot
 * have passed through an entry of procfs that names the reader.  Without
 * symlinks the walk is what the path says: it depends only when a component
 * is such an entry.  With symlinks, walk_meets_self() follows them.
 */
static bool failure_is_readers_own(const struct lnch_behalf_ctx *ctx, int base, const char *path,
				   const struct open_how *how, int errnum)
{
	struct open_how strict = *how;
	const char *p = path;
	int fd;

	strict.resolve = RESOLVE_NO_SYMLINKS;
	fd = (int)syscall(SYS_openat2, base >= 0 ? base : AT_FDCWD, path, &strict, sizeof(strict));
	if (fd >= 0) {
		close(fd); /* cannot happen: the walk with symlinks failed */
		return false;
	}
	if (errno != errnum)
		return !walk_meets_self(ctx, base, path, !(how->flags & O_NOFOLLOW));
	while ((p = strstr(p, "self")) != NULL) {
		if ((p == path || p[-1] == '/') && (p[4] == '\0' || p[4] == '/'))
			return false;
		p += 4;
	}
	return strstr(path, "thread-self") == NULL;
}

void lnch_behalf_read_path(pid_t tid, int nr, const uint64_t args[6], struct lnch_behalf_path *p)
{
	struct call c;

	_Static_assert(sizeof(p->text) == PATH_MAX, "a path buffer holds PATH_MAX bytes");
	p->argi = -1;
	p->rc = -ESRCH;
	p->text[0] = '\0';
	if (!decode(nr, args, &c))
		return;
	p->argi = c.path_argi;
	p->rc = read_path(tid, c.path_addr, p->text);
}

enum lnch_behalf_outcome lnch_behalf_perform(const struct lnch_behalf_ctx *ctx, pid_t tid,
					     pid_t tgid, int nr, const uint64_t args[6],
					     const struct lnch_behalf_path *p,
					     bool (*still_valid)(void *cookie), void *cookie,
					     int64_t *ret)
{
	const char *raw = p->text;
	char path[PATH_MAX + 32];
	cleanup_fd_owned int base = -1, obj = -1;
	struct target t = { tid, still_valid, cookie };
	struct call c;

	if (!decode(nr, args, &c) || !plain_arguments(&c) || p->argi < 0 || p->rc == -ESRCH)
		return LNCH_BEHALF_KERNEL;
	if (p->rc < 0)
		return *ret = p->rc, LNCH_BEHALF_DONE;
	/* fstat-style (AT_EMPTY_PATH, ""): the kernel is cheaper than open + fstat here */
	if (raw[0] == '\0' && c.op != OP_READLINK && (c.flags & AT_EMPTY_PATH))
		return LNCH_BEHALF_KERNEL;
	if (raw[0] == '\0' && (c.op == OP_READLINK || !(c.flags & AT_EMPTY_PATH)))
		return c.op == OP_READLINK ? LNCH_BEHALF_KERNEL
					   : (*ret = -ENOENT, LNCH_BEHALF_DONE);
	if (reader_dependent(raw, c.op != OP_READLINK && !(c.flags & AT_SYMLINK_NOFOLLOW)))
		return LNCH_BEHALF_KERNEL;
	rewrite_self(raw, tid, tgid, path, sizeof(path));
	if (path[0] != '/') {
		base = open_base(tid, c.dirfd);
		if (base == -ESRCH)
			return LNCH_BEHALF_KERNEL;
		if (base < 0)
			return *ret = base, LNCH_BEHALF_DONE;
	}
	if (path[0] == '\0') {
		obj = base, base = -1;
	} else {
		struct open_how how = {
			.flags = O_PATH | O_CLOEXEC |
				 (c.op == OP_READLINK || (c.flags & AT_SYMLINK_NOFOLLOW)
					  ? O_NOFOLLOW
					  : 0),
			.resolve = RESOLVE_NO_MAGICLINKS,
		};

		obj = (int)syscall(SYS_openat2, base >= 0 ? base : AT_FDCWD, path, &how,
				   sizeof(how));
		if (obj < 0 && errno == ELOOP && !is_symlink_loop(base, path, &how))
			return LNCH_BEHALF_KERNEL;
		if (obj < 0 &&
		    (errno == ENOSYS || errno == E2BIG || errno == EAGAIN || errno == EINVAL))
			return LNCH_BEHALF_KERNEL;
		if (obj < 0) {
			int errnum = errno;

			/* a failed walk may have failed in repro's /proc/self: show it was not */
			if (!failure_is_readers_own(ctx, base, path, &how, errnum))
				return LNCH_BEHALF_KERNEL;
			return *ret = -errnum, LNCH_BEHALF_DONE;
		}
	}
	return run_op(&c, &t, obj, ctx->proc_dev, procfs_name_is_absolute(path), ret)
		       ? LNCH_BEHALF_DONE
		       : LNCH_BEHALF_KERNEL;
}
