/* Capture of %file arguments: path strings, their canonical form (recorder/pathres.h), open_how. */
#include "recorder/capture.h"
#include "launcher/mem.h"
#include "common/names.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <string.h>
#include <unistd.h>

/* The dirfd a PATH_AT argument is relative to: the nearest preceding RA_DIRFD. */
static int dirfd_for(const struct repro_sysent *sys, const struct lnch_stop *st, int i)
{
	for (int j = i - 1; j >= 0; j--)
		if (sys->args[j].kind == RA_DIRFD)
			return (int)st->args[j];
	return AT_FDCWD;
}

static const char *capture_string(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	char *buf = rec_capture_reserve(c, BNDL_BLOB_STR, (uint16_t)i, PATH_MAX);
	bool truncated = false;
	ssize_t n;

	if (buf == NULL)
		return NULL;
	if (st->path != NULL && st->path_argi == i) {
		/* the launcher read it already (a seccomp notification) */
		size_t len = strlen(st->path);

		memcpy(buf, st->path, len + 1);
		rec_capture_commit(c, len);
		return buf;
	}
	n = lnch_mem_read_str(st->tid, st->args[i], buf, PATH_MAX, &truncated);
	if (n < 0) {
		c->ev.nblobs--; /* unreadable (NULL or EFAULT): rendered as the address */
		return NULL;
	}
	if (truncated)
		c->ev.blobs[c->ev.nblobs - 1].kind |= BNDL_BLOB_TRUNCATED;
	rec_capture_commit(c, (size_t)n);
	return buf;
}

/* Whether this call may change what its paths name: by its kind, or an open by its flags. */
static bool call_modifies(const struct rec_capture *c, const struct lnch_stop *st)
{
	int oi = repro_sysent_arg_of(c->sys, RA_OFLAGS);

	return repro_sysent_modifies(c->sys, oi >= 0 ? st->args[oi] : 0);
}

/*
 * The first time a path may be changed, keep what it was (lstat(2) from the
 * tracer, so owners are the host's), as a BNDL_BLOB_BEFORE of argument i.
 */
static void capture_before(struct rec_capture *c, const struct lnch_stop *st, int i,
			   const char *abs, size_t len)
{
	struct bndl_before b = { 0 };
	struct stat sb;
	void *buf;

	if (!repro_map_put(c->seen, repro_map_key_str(abs, len), 0))
		return;
	if (lstat(abs, &sb) < 0) {
		b.err = errno;
	} else {
		b.mode = sb.st_mode;
		b.uid = sb.st_uid;
		b.gid = sb.st_gid;
		b.size = (uint64_t)sb.st_size;
		b.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	}
	buf = rec_capture_reserve(c, BNDL_BLOB_BEFORE, (uint16_t)i, sizeof(b));
	if (buf != NULL) {
		memcpy(buf, &b, sizeof(b));
		rec_capture_commit(c, sizeof(b)); /* a later path argument reserves after it */
	}
}

/* The open_how of an openat2 call, read once (also kept as its BNDL_BLOB_STRUCT); false when unreadable. */
static bool read_open_how(struct rec_capture *c, const struct lnch_stop *st, struct open_how *how)
{
	void *buf;

	for (int j = 0; j < repro_sysent_nargs(c->sys); j++) {
		if (c->sys->args[j].kind != RA_OPENHOW)
			continue;
		if (lnch_mem_read(st->tid, st->args[j], how, sizeof(*how)) < 0)
			return false;
		buf = rec_capture_reserve(c, BNDL_BLOB_STRUCT, (uint16_t)j, sizeof(*how));
		if (buf != NULL) {
			memcpy(buf, how, sizeof(*how));
			rec_capture_commit(c, sizeof(*how));
		}
		return true;
	}
	return false;
}

/*
 * Whether the call acts on a final symlink (and magic link) itself: by its
 * kind (lstat, unlink …, linkat without AT_SYMLINK_FOLLOW), AT_SYMLINK_NOFOLLOW,
 * O_NOFOLLOW or O_CREAT|O_EXCL, or openat2's RESOLVE_NO_SYMLINKS/NO_MAGICLINKS.
 */
static bool final_not_followed(const struct rec_capture *c, const struct lnch_stop *st,
			       const struct open_how *how)
{
	const struct repro_sysent *s = c->sys;
	int ai = repro_sysent_arg_of(s, RA_ATFLAGS), oi = repro_sysent_arg_of(s, RA_OFLAGS);
	uint64_t at = ai >= 0 ? st->args[ai] : 0;
	uint64_t of = oi >= 0 ? st->args[oi] : 0;

	if (how != NULL) {
		of = how->flags;
		if (how->resolve & (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS))
			return true;
	}
	if (s->flags & REPRO_SYSF_NOFOLLOW)
		return !(at & AT_SYMLINK_FOLLOW);
	return (at & AT_SYMLINK_NOFOLLOW) || (of & O_NOFOLLOW) ||
	       (of & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
}

/* newfstatat/statx(fd, "", AT_EMPTY_PATH): fstat(3), which teaches nothing about paths. */
static bool is_fstat(const struct rec_capture *c, const struct lnch_stop *st, const char *raw)
{
	const struct repro_sysent *s = c->sys;
	int ai = s != NULL ? repro_sysent_arg_of(s, RA_ATFLAGS) : -1;

	/* the rows whose filter condition is AT_EMPTY_PATH (common/sysent.c) */
	return raw[0] == '\0' && ai >= 0 && (st->args[ai] & AT_EMPTY_PATH) && s->has_cond &&
	       s->cond.mask == AT_EMPTY_PATH;
}

/* Returns false when the call is not to be recorded (an fstat). */
static bool capture_path(struct rec_capture *c, const struct lnch_stop *st, int i, int dirfd)
{
	const char *raw = capture_string(c, st, i);
	struct rec_path_req rq = { .tid = st->tid, .pid = st->pid, .dirfd = dirfd };
	struct open_how how = { 0 };
	bool has_how = false;
	size_t off;
	char *out;
	ssize_t n;

	if (raw == NULL)
		return true;
	if (is_fstat(c, st, raw))
		return false;
	off = (size_t)(raw - c->arena);
	if (c->sys != NULL) {
		has_how = read_open_how(c, st, &how);
		rq.is_nofollow = final_not_followed(c, st, has_how ? &how : NULL);
		rq.resolve = how.resolve;
	}
	out = rec_capture_reserve(c, BNDL_BLOB_PATH, (uint16_t)i, PATH_MAX);
	if (out == NULL)
		return true;
	rq.raw = c->arena + off; /* the arena may have moved */
	n = rec_path_canonical(c->paths, &rq, out, PATH_MAX);
	if (n < 0) {
		c->ev.nblobs--;
		return true;
	}
	rec_capture_commit(c, (size_t)n);
	/* only calls that may change the path pay for the set lookup and lstat */
	if (c->seen != NULL && c->sys != NULL && call_modifies(c, st)) {
		char abs[PATH_MAX];

		memcpy(abs, out, (size_t)n + 1); /* the next reserve may move the arena */
		capture_before(c, st, i, abs, (size_t)n);
	}
	return true;
}

static void capture_open_how(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	struct open_how how;
	void *buf;

	if (bndl_event_blob(&c->ev, BNDL_BLOB_STRUCT, (uint16_t)i) != NULL)
		return; /* read with the path */
	if (lnch_mem_read(st->tid, st->args[i], &how, sizeof(how)) < 0)
		return;
	buf = rec_capture_reserve(c, BNDL_BLOB_STRUCT, (uint16_t)i, sizeof(how));
	if (buf != NULL) {
		memcpy(buf, &how, sizeof(how));
		rec_capture_commit(c, sizeof(how));
	}
}

bool rec_file_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		      enum repro_arg_kind kind)
{
	switch ((int)kind) {
	case RA_PATH: return capture_path(c, st, i, AT_FDCWD);
	case RA_PATH_AT:
		if (st->args[i] == 0) /* utimensat(fd, NULL, …) acts on fd itself */
			break;
		return capture_path(c, st, i, dirfd_for(c->sys, st, i));
	case RA_STR: capture_string(c, st, i); break;
	case RA_OPENHOW: capture_open_how(c, st, i); break;
	default: break;
	}
	return true;
}

bool rec_file_routine_failure(const struct rec_capture *c, const struct lnch_stop *st)
{
	int64_t e = -st->ret;

	if (c->sys == NULL || repro_sysent_arg_of(c->sys, RA_FD_TARGET) < 0)
		return false;
	return e == EAGAIN || e == EINTR || repro_errno_is_restart((int)e);
}

/* len bytes of data as a new blob (kind, argument i); none when the event has no free slot. */
static void put_blob(struct rec_capture *c, uint16_t kind, int i, const void *data, size_t len)
{
	void *buf = rec_capture_reserve(c, kind, (uint16_t)i, len);

	if (buf != NULL) {
		memcpy(buf, data, len);
		rec_capture_commit(c, len);
	}
}

/* The filesystem's space and the size of what the fd names, as a BNDL_BLOB_STRUCT of argument i. */
static void capture_fs_info(struct rec_capture *c, const char *link, int i)
{
	struct statvfs vfs;
	struct stat sb;
	struct bndl_fs_info info;

	if (statvfs(link, &vfs) < 0 || stat(link, &sb) < 0)
		return;
	info = (struct bndl_fs_info){
		.free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize,
		.total_bytes = (uint64_t)vfs.f_blocks * vfs.f_frsize,
		.free_inodes = vfs.f_favail,
		.total_inodes = vfs.f_files,
		.size = S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0,
	};
	put_blob(c, BNDL_BLOB_STRUCT, i, &info, sizeof(info));
}

void rec_file_capture_exit(struct rec_capture *c, const struct lnch_stop *st, int i,
			   enum repro_arg_kind kind)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	if (kind != RA_FD_TARGET || !(st->ret < 0 && st->ret >= -4095))
		return;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)st->tid, (int)c->ev.args[i]);
	n = readlink(link, target, sizeof(target));
	if (n <= 0 || (size_t)n >= sizeof(target))
		return; /* EBADF: no such fd; a path too long is left out */
	put_blob(c, BNDL_BLOB_STR, i, target, (size_t)n);
	if (target[0] != '/')
		return; /* pipe:[N], socket:[N], anon_inode:… */
	put_blob(c, BNDL_BLOB_PATH, i, target, (size_t)n);
	capture_fs_info(c, link, i);
}
