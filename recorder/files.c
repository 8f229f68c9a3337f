/*
 * files.jsonl: touched paths, their uses and results from the spool, their
 * metadata from the host after the run (recorder/files.h).
 *
 * Three steps, each over a table of distinct paths: read the spool
 * (ops, first/last result, calls), add the ancestors of failed paths, gather
 * metadata (statx through io_uring or plain, readlink, XXH3 hash with read(2)),
 * then write the sorted lines.
 */
#include "recorder/files.h"
#include "bundles/members.h"
#include "common/names.h"
#include "bundles/spool.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/content_hash.h"
#include "common/map.h"
#include "common/mountinfo.h"
#include "common/xalloc.h"
#include "recorder/flags.h"
#include "recorder/jsonstr.h"
#include "recorder/render.h"
#include "recorder/systab.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/openat2.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* SQEs per io_uring submission; one statx buffer each. */
#define URING_BATCH 256u
/* read(2) size while hashing (bytes). */
#define HASH_CHUNK (256u * 1024u)
#define MOUNTINFO "/proc/self/mountinfo"

enum file_op {
	OP_STAT = 1u << 0,
	OP_READ = 1u << 1,
	OP_WRITE = 1u << 2,
	OP_CREATE = 1u << 3,
	OP_DELETE = 1u << 4,
	OP_LINK = 1u << 5, /* the existing path of link(2) */
	OP_EXEC = 1u << 6,
	OP_CHDIR = 1u << 7,
	OP_READLINK = 1u << 8,
	OP_OTHER = 1u << 9, /* a path-taking call this file does not classify */
};

/* files.jsonl's names of enum file_op, bit i -> op_names[i]; also the output order. */
static const char *const op_names[] = {
	[0] = "stat", [1] = "read", [2] = "write", [3] = "create",   [4] = "delete",
	[5] = "link", [6] = "exec", [7] = "chdir", [8] = "readlink", [9] = "other",
};

/* Result of a call as kept per path: 0 ok, an errno, or RES_UNFINISHED. */
#define RES_UNFINISHED (-1)

/* Metadata of one path, statx(2) with AT_SYMLINK_NOFOLLOW. */
struct fmeta {
	int err; /* 0: exists; else errno of statx (ENOENT, ENOTDIR, EACCES …) */
	uint32_t mode; /* stx_mode: S_IFMT | permission bits */
	uint32_t uid;
	uint32_t gid;
	uint64_t size; /* bytes */
	int64_t mtime_ns; /* since the epoch */
	bool has_hash;
	uint64_t hash; /* XXH3-64 of the content */
	const char *withheld; /* static: why there is no hash ("small" …), or NULL */
	char *target; /* owned: symlink target, or NULL */
	size_t target_len;
};

struct fentry {
	const char *path; /* borrowed from the table's paths, NUL-terminated */
	uint32_t len;
	bool is_touched; /* false: only an ancestor of a failed path */
	unsigned ops; /* enum file_op */
	int first;
	int last;
	uint64_t calls;
	struct fmeta meta;
	bool has_before; /* the program may have changed it: its state before */
	struct fmeta before; /* no hash, no target */
};

/*
 * Distinct paths: entries in v, in the order first seen; the paths in the
 * one exact string map (common/map.h), whose index is the entry's.
 */
struct ftable {
	struct fentry *v;
	size_t n;
	size_t cap;
	struct repro_strmap *paths; /* owned */
	size_t touched;
	size_t max_touched;
	size_t ancestors;
	uint64_t dropped;
};

struct mount {
	char *point; /* owned, unescaped */
	size_t len;
	char *fstype; /* owned */
	char *options; /* owned: per-mount options, "rw,nosuid" */
	char *super; /* owned: superblock options */
};

struct mounts {
	struct mount *v;
	size_t n;
};

/* ---------------------------------------------------------------- table */

static void table_init(struct ftable *t, size_t max_touched)
{
	*t = (struct ftable){ .max_touched = max_touched, .paths = repro_strmap_new() };
}

static void table_release(struct ftable *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].meta.target);
	free(t->v);
	repro_strmap_free(t->paths);
}

static void cleanup_table_fn(struct ftable *t)
{
	table_release(t);
}
#define cleanup_table __attribute__((cleanup(cleanup_table_fn)))

/* table_find - the entry of path, or NULL.  Borrowed until the next table_add.  O(len). */
static struct fentry *table_find(const struct ftable *t, const char *path, size_t len)
{
	size_t i;

	return repro_strmap_get(t->paths, path, len, &i) ? &t->v[i] : NULL;
}

/*
 * table_add - the entry of path, added when new (is_touched as given).  NULL
 * when the table is full for that kind: at most max_touched touched paths and
 * as many ancestors.  Borrowed until the next table_add.  O(len) amortised.
 */
static struct fentry *table_add(struct ftable *t, const char *path, size_t len, bool is_touched)
{
	size_t *count = is_touched ? &t->touched : &t->ancestors;
	struct fentry *e = table_find(t, path, len);

	if (e != NULL)
		return e;
	if (*count >= t->max_touched || len > UINT32_MAX)
		return NULL;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->v = repro_xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	/* a new path's index is t->n, its entry's */
	path = repro_strmap_key(t->paths, repro_strmap_put(t->paths, path, len, NULL), NULL);
	e = &t->v[t->n++];
	*e = (struct fentry){
		.path = path, .len = (uint32_t)len, .is_touched = is_touched, .meta.err = ENOENT
	};
	(*count)++;
	return e;
}

/* ------------------------------------------------------- ops of a call */

/* open(2) flags -> ops: O_CREAT creates, a write mode or O_TRUNC writes, else it reads. */
static unsigned open_flags_ops(uint64_t flags)
{
	unsigned ops = 0;

	if (flags & O_PATH)
		return OP_STAT;
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		ops |= OP_CREATE;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		ops |= OP_WRITE;
	else
		ops |= OP_READ;
	return ops;
}

/* The ops of files.jsonl for the table's op of a call (common/sysent.h). */
static unsigned ops_of(enum repro_sys_op op)
{
	switch (op) {
	case REPRO_OP_STAT: return OP_STAT;
	case REPRO_OP_READLINK: return OP_READLINK;
	case REPRO_OP_READ: return OP_READ;
	case REPRO_OP_WRITE:
	case REPRO_OP_CHANGE: return OP_WRITE;
	case REPRO_OP_CREATE:
	case REPRO_OP_MKDIR: return OP_CREATE;
	case REPRO_OP_DELETE:
	case REPRO_OP_RENAME: return OP_DELETE; /* the old name goes; newpath is CREATE */
	case REPRO_OP_LINK: return OP_LINK;
	case REPRO_OP_EXEC: return OP_EXEC;
	case REPRO_OP_CHDIR: return OP_CHDIR;
	case REPRO_OP_NONE:
	case REPRO_OP_OPEN:
	case REPRO_OP_OTHER: return OP_OTHER;
	}
	return OP_OTHER;
}

/* The ops that call sys made on its path argument argi. */
static unsigned path_ops(const struct repro_sysent *sys, const struct bndl_event *ev, unsigned argi)
{
	if (sys->op == REPRO_OP_OPEN)
		return open_flags_ops(rec_event_oflags(sys, ev));
	return ops_of(repro_sysent_op(sys, (int)argi, 0));
}

static int event_result(const struct bndl_event *ev)
{
	if (ev->flags & (BNDL_EV_UNFINISHED | BNDL_EV_RESULT_UNSEEN))
		return RES_UNFINISHED;
	return ev->ret < 0 && ev->ret >= -4095 ? (int)-ev->ret : 0;
}

static void entry_note_call(struct fentry *e, unsigned ops, int res)
{
	if (e->calls == 0)
		e->first = res;
	e->last = res;
	e->calls++;
	e->ops |= ops;
}

/* The recorder's lstat from just before the first call that could change the path. */
static void note_before(struct fentry *e, const struct bndl_blob *b)
{
	struct bndl_before bb;

	if (e->has_before || b == NULL || b->len < sizeof(bb))
		return;
	memcpy(&bb, b->data, sizeof(bb));
	e->has_before = true;
	e->before = (struct fmeta){ .err = bb.err,
				    .mode = bb.mode,
				    .uid = bb.uid,
				    .gid = bb.gid,
				    .size = bb.size,
				    .mtime_ns = bb.mtime_ns };
}

/* record_event - note every path blob of one syscall record. */
static void record_event(struct ftable *t, const struct rec_systab *tab,
			 const struct bndl_event *ev)
{
	const struct repro_sysent *sys = rec_systab_lookup(tab, ev->arch, ev->nr);
	int res = event_result(ev);

	if (sys == NULL)
		return;
	for (unsigned i = 0; i < ev->nblobs; i++) {
		const struct bndl_blob *b = &ev->blobs[i];
		struct fentry *e;

		if ((b->kind & ~BNDL_BLOB_TRUNCATED) != BNDL_BLOB_PATH || b->len == 0)
			continue;
		e = table_add(t, b->data, b->len, true);
		if (e == NULL) {
			t->dropped++;
			continue;
		}
		entry_note_call(e, path_ops(sys, ev, b->argi), res);
		note_before(e, bndl_event_blob(ev, BNDL_BLOB_BEFORE, b->argi));
	}
}

static void cleanup_reader_fn(struct bndl_spool_reader **r)
{
	bndl_spool_reader_free(*r);
}
#define cleanup_reader __attribute__((cleanup(cleanup_reader_fn)))

static void cleanup_systab_fn(struct rec_systab **t)
{
	rec_systab_free(*t);
}
#define cleanup_systab __attribute__((cleanup(cleanup_systab_fn)))

/* read_spool - every syscall record of DIR/events.spool into t.  0, or -1 with *err. */
static int read_spool(const char *dir, struct ftable *t, struct rec_files_stats *st,
		      struct repro_err **err)
{
	cleanup_reader struct bndl_spool_reader *r = bndl_spool_reader_open(dir, err);
	cleanup_systab struct rec_systab *tab = NULL;
	struct bndl_event ev;
	int rc;

	if (r == NULL)
		return -1;
	tab = rec_systab_new();
	while ((rc = bndl_spool_reader_next(r, &ev, err)) > 0) {
		if (ev.type != BNDL_REC_SYSCALL)
			continue;
		st->events++;
		record_event(t, tab, &ev);
	}
	st->spool_truncated = bndl_spool_reader_was_truncated(r);
	return rc;
}

/* ---------------------------------------------------------- ancestors */

/* The errors an ancestor listing can explain (path_resolution(7)). */
static bool is_explainable(int res)
{
	switch (res) {
	case ENOENT:
	case EACCES:
	case EPERM:
	case EROFS:
	case ENOTDIR:
	case ELOOP:
	case ENAMETOOLONG: return true;
	default: return false;
	}
}

static bool needs_ancestors(const struct fentry *e)
{
	return e->is_touched && e->calls > 0 && is_explainable(e->last);
}

/*
 * parent_len - length of the lexical parent of path[0..len): "/a/b/" -> "/a",
 * "/a" -> "/".  0 for "/" itself (or a relative path).  Lexical on purpose:
 * the names the program used, not where symlinks lead.
 */
static size_t parent_len(const char *path, size_t len)
{
	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

/* add_ancestors - every ancestor of every failed path, up to "/". */
static void add_ancestors(struct ftable *t)
{
	size_t n = t->n;

	for (size_t i = 0; i < n; i++) {
		size_t len = t->v[i].len;

		if (!needs_ancestors(&t->v[i]))
			continue;
		while (len > 1 && (len = parent_len(t->v[i].path, len)) > 0) {
			if (table_add(t, t->v[i].path, len, false) == NULL)
				t->dropped++;
		}
	}
}

/* ----------------------------------------------------------- metadata */

static void meta_from_statx(struct fmeta *m, const struct statx *sx)
{
	m->err = 0;
	m->mode = sx->stx_mode;
	m->uid = sx->stx_uid;
	m->gid = sx->stx_gid;
	m->size = sx->stx_size;
	m->mtime_ns = (int64_t)sx->stx_mtime.tv_sec * 1000000000 + sx->stx_mtime.tv_nsec;
}

static void stat_one(struct fentry *e)
{
	struct statx sx;

	if (statx(AT_FDCWD, e->path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) < 0)
		e->meta.err = errno;
	else
		meta_from_statx(&e->meta, &sx);
}

/* A path with a NUL in it names something else to the kernel: leave it unstated. */
static bool is_statable(const struct fentry *e)
{
	return memchr(e->path, '\0', e->len) == NULL;
}

static void stat_plain(struct ftable *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (is_statable(&t->v[i]))
			stat_one(&t->v[i]);
}

struct uring {
	struct io_uring ring;
	bool is_ready;
};

static void cleanup_uring_fn(struct uring *u)
{
	if (u->is_ready)
		io_uring_queue_exit(&u->ring);
}
#define cleanup_uring __attribute__((cleanup(cleanup_uring_fn)))

/* Reap n completions of statx SQEs whose user_data indexes batch[] and bufs[]. */
static int uring_reap(struct io_uring *ring, struct fentry **batch, struct statx *bufs, size_t n,
		      struct repro_err **err)
{
	for (size_t done = 0; done < n; done++) {
		struct io_uring_cqe *cqe = NULL;
		uint64_t i;
		int rc, res;

		while ((rc = io_uring_wait_cqe(ring, &cqe)) == -EINTR)
			;
		if (rc < 0)
			return repro_err_set(err, -rc, "cannot reap io_uring statx completion");
		i = io_uring_cqe_get_data64(cqe);
		res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		if (i >= n)
			continue;
		if (res == 0)
			meta_from_statx(&batch[i]->meta, &bufs[i]);
		else if (res == -EINVAL || res == -EOPNOTSUPP)
			stat_one(batch[i]); /* a kernel without IORING_OP_STATX (< 5.6) */
		else
			batch[i]->meta.err = -res;
	}
	return 0;
}

/* One batch of at most URING_BATCH statx requests: queue, submit, reap. */
static int uring_stat_batch(struct io_uring *ring, struct fentry **batch, size_t n,
			    struct statx *bufs, struct repro_err **err)
{
	size_t submitted = 0;

	for (size_t i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (sqe == NULL)
			return repro_err_set(err, EBUSY, "io_uring submission queue full");
		io_uring_prep_statx(sqe, AT_FDCWD, batch[i]->path, AT_SYMLINK_NOFOLLOW,
				    STATX_BASIC_STATS, &bufs[i]);
		io_uring_sqe_set_data64(sqe, i);
	}
	while (submitted < n) {
		int rc = io_uring_submit(ring);

		if (rc == -EINTR)
			continue;
		if (rc <= 0)
			return repro_err_set(err, rc < 0 ? -rc : EIO,
					     "cannot submit io_uring statx");
		submitted += (size_t)rc;
	}
	return uring_reap(ring, batch, bufs, n, err);
}

/*
 * stat_uring - statx every entry of t through io_uring, URING_BATCH at a
 * time.  Returns 1 when done, 0 when io_uring is not available here
 * (io_uring_queue_init(3) failed: ENOSYS, EPERM from
 * kernel.io_uring_disabled or seccomp, ENOMEM …), -1 with *err when the ring
 * failed after setup.
 */
static int stat_uring(struct ftable *t, struct repro_err **err)
{
	cleanup_uring struct uring u = { .is_ready = false };
	cleanup_free struct statx *bufs = repro_xcalloc(URING_BATCH, sizeof(*bufs));
	cleanup_free struct fentry **batch = repro_xcalloc(URING_BATCH, sizeof(*batch));
	size_t n = 0;

	if (io_uring_queue_init(URING_BATCH, &u.ring, 0) < 0)
		return 0;
	u.is_ready = true;
	for (size_t i = 0; i < t->n; i++) {
		if (!is_statable(&t->v[i]))
			continue;
		batch[n++] = &t->v[i];
		if (n < URING_BATCH && i + 1 < t->n)
			continue;
		if (uring_stat_batch(&u.ring, batch, n, bufs, err) < 0)
			return -1;
		n = 0;
	}
	if (n > 0 && uring_stat_batch(&u.ring, batch, n, bufs, err) < 0)
		return -1;
	return 1;
}

static void read_target(struct fentry *e)
{
	size_t cap = e->meta.size > 0 && e->meta.size < 65536 ? (size_t)e->meta.size + 1 : 4097;
	cleanup_free char *buf = repro_xmalloc(cap);
	ssize_t n = readlink(e->path, buf, cap);

	if (n < 0 || (size_t)n >= cap)
		return; /* gone or grown since statx: no target rather than a wrong one */
	e->meta.target = steal_ptr(&buf);
	e->meta.target_len = (size_t)n;
}

static void hash_one(struct fentry *e, uint64_t max, char *buf)
{
	/* O_NONBLOCK|O_NOFOLLOW: never hang on a FIFO or follow a link swapped in since statx */
	cleanup_close int fd =
		open(e->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (repro_hash_fd(fd, max, buf, HASH_CHUNK, &e->meta.hash) == 0)
		e->meta.has_hash = true;
}

/*
 * Uses of a path that depend on its content: only such files are hashed (a
 * stat, access or readlink does not read the file; hashing the 20,000 files a
 * `find` stats would cost more than the run).
 */
#define CONTENT_OPS (OP_READ | OP_WRITE | OP_CREATE | OP_EXEC | OP_LINK)

/*
 * Why the content hash of regular file E is not stored, or NULL: the one
 * rule, shared with `replay --simulate` (common/content_hash.h).
 */
static const char *withheld_reason(const struct fentry *e)
{
	return repro_hash_withheld(e->path, e->len, e->meta.mode, e->meta.size);
}

/*
 * Symlink targets of every entry, content hashes of regular files read,
 * written or run (or the reason one is withheld).
 */
static void read_contents(struct ftable *t, const struct rec_files_opts *o)
{
	cleanup_free char *buf = repro_xmalloc(HASH_CHUNK);

	for (size_t i = 0; i < t->n; i++) {
		struct fentry *e = &t->v[i];

		if (e->meta.err != 0)
			continue;
		if (S_ISLNK(e->meta.mode)) {
			read_target(e);
			continue;
		}
		if (!S_ISREG(e->meta.mode) || !e->is_touched || !(e->ops & CONTENT_OPS) ||
		    o->hash_max_bytes == 0 || e->meta.size > o->hash_max_bytes)
			continue;
		if (!o->hash_secrets)
			e->meta.withheld = withheld_reason(e);
		if (e->meta.withheld == NULL)
			hash_one(e, o->hash_max_bytes, buf);
	}
}

/* gather_meta - metadata of every entry; *used_uring says how.  0, or -1 with *err. */
static int gather_meta(struct ftable *t, const struct rec_files_opts *o, bool *used_uring,
		       struct repro_err **err)
{
	uint32_t min = o->uring_min_paths ? o->uring_min_paths : REC_FILES_URING_MIN;
	int rc = o->no_uring || t->n < min ? 0 : stat_uring(t, err);

	if (rc < 0)
		return -1;
	if (rc == 0)
		stat_plain(t);
	read_contents(t, o);
	*used_uring = rc == 1;
	return 0;
}

/* ------------------------------------------------------------- mounts */

/* One line of /proc/PID/mountinfo as a struct mount (owned copies); -1 for a malformed line. */
static int parse_mountinfo_line(char *line, struct mount *m)
{
	struct repro_mountinfo mi;

	if (!repro_mountinfo_parse(line, &mi))
		return -1;
	*m = (struct mount){ .point = repro_xstrdup(mi.mount_point),
			     .len = strlen(mi.mount_point),
			     .fstype = repro_xstrdup(mi.fstype),
			     .options = repro_xstrdup(mi.options),
			     .super = repro_xstrdup(mi.super_options != NULL ? mi.super_options
									     : "") };
	return 0;
}

static void mounts_release(struct mounts *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->v[i].point);
		free(ms->v[i].fstype);
		free(ms->v[i].options);
		free(ms->v[i].super);
	}
	free(ms->v);
}

static void cleanup_mounts_fn(struct mounts *ms)
{
	mounts_release(ms);
}
#define cleanup_mounts __attribute__((cleanup(cleanup_mounts_fn)))

/* mounts_load - the mount table of this process; empty when unreadable (no "mount" keys). */
static void mounts_load(struct mounts *ms)
{
	cleanup_fclose FILE *f = fopen(MOUNTINFO, "re");
	cleanup_free char *line = NULL;
	size_t cap = 0, alloc = 0;

	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		struct mount m;

		if (parse_mountinfo_line(line, &m) < 0)
			continue;
		if (ms->n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			ms->v = repro_xreallocarray(ms->v, alloc, sizeof(*ms->v));
		}
		ms->v[ms->n++] = m;
	}
}

/*
 * mounts_find - the mount path lies on: the longest mount point that is path
 * or a directory prefix of it; the last listed among equals (mounted on top).
 * Borrowed from ms, or NULL.
 */
static const struct mount *mounts_find(const struct mounts *ms, const char *path, size_t len)
{
	const struct mount *best = NULL;

	for (size_t i = 0; i < ms->n; i++) {
		const struct mount *m = &ms->v[i];
		bool is_prefix = m->len <= len && memcmp(m->point, path, m->len) == 0 &&
				 (m->len == len || path[m->len] == '/' || m->len == 1);

		if (is_prefix && (best == NULL || m->len >= best->len))
			best = m;
	}
	return best;
}

/* --------------------------------------------------------------- JSON */

static const char *type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "dir";
	case S_IFLNK: return "symlink";
	case S_IFCHR: return "char";
	case S_IFBLK: return "block";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	default: return "unknown";
	}
}

static json_t *result_json(int res)
{
	char buf[32];

	if (res == 0)
		return json_string("ok");
	if (res == RES_UNFINISHED)
		return json_string("unfinished");
	return json_string(repro_errno_name(res, buf, sizeof(buf)));
}

static json_t *ops_json(unsigned ops)
{
	json_t *a = json_array();

	for (size_t i = 0; i < N(op_names); i++)
		if (ops & (1u << i))
			json_array_append_new(a, json_string(op_names[i]));
	return a;
}

/* The short form (type, mode, owner, symlink target) of an ancestor, or the start of meta. */
static json_t *meta_short_json(const struct fmeta *m)
{
	json_t *o = json_object();
	char mode[16];

	snprintf(mode, sizeof(mode), "0%03o", m->mode & 07777);
	json_object_set_new(o, "type", json_string(type_name(m->mode)));
	json_object_set_new(o, "mode", json_string(mode));
	json_object_set_new(o, "uid", json_integer(m->uid));
	json_object_set_new(o, "gid", json_integer(m->gid));
	return o;
}

static json_t *meta_json(const struct fmeta *m)
{
	json_t *o = meta_short_json(m);
	char hash[32];

	json_object_set_new(o, "size", json_integer((json_int_t)m->size));
	json_object_set_new(o, "mtime_ns", json_integer(m->mtime_ns));
	if (m->target != NULL)
		json_object_set_new(o, "target", rec_json_str(m->target, m->target_len));
	if (m->has_hash) {
		snprintf(hash, sizeof(hash), "xxh3:%016llx", (unsigned long long)m->hash);
		json_object_set_new(o, "hash", json_string(hash));
	}
	if (m->withheld != NULL)
		json_object_set_new(o, "hash_withheld", json_string(m->withheld));
	return o;
}

/* {"meta": …} for m, and "meta_errno" when statx failed other than for absence. */
static void set_meta(json_t *o, const struct fmeta *m, bool is_short)
{
	char buf[32];

	if (m->err == 0) {
		json_object_set_new(o, "meta", is_short ? meta_short_json(m) : meta_json(m));
		if (is_short && m->target != NULL)
			json_object_set_new(json_object_get(o, "meta"), "target",
					    rec_json_str(m->target, m->target_len));
		return;
	}
	json_object_set_new(o, "meta", json_null());
	if (m->err != ENOENT && m->err != ENOTDIR)
		json_object_set_new(o, "meta_errno",
				    json_string(repro_errno_name(m->err, buf, sizeof(buf))));
}

/*
 * ancestors_json - [{"path","meta"}…] from the parent of e up to "/".  *deepest
 * gets the deepest existing one (or stays as it was when none exists).
 */
static json_t *ancestors_json(const struct ftable *t, const struct fentry *e,
			      const struct fentry **deepest)
{
	json_t *a = json_array();
	size_t len = e->len;

	while (len > 1 && (len = parent_len(e->path, len)) > 0) {
		const struct fentry *p = table_find(t, e->path, len);
		json_t *o;

		if (p == NULL)
			continue; /* beyond the table's bound: counted in stats.dropped */
		o = json_object();
		json_object_set_new(o, "path", rec_json_str(p->path, p->len));
		set_meta(o, &p->meta, true);
		json_array_append_new(a, o);
		if (p->meta.err == 0 && *deepest == NULL)
			*deepest = p;
	}
	return a;
}

static json_t *split_options(const char *text)
{
	cleanup_free char *copy = repro_xstrdup(text);
	json_t *a = json_array();
	char *save = NULL;

	for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save))
		json_array_append_new(a, json_string(w));
	return a;
}

static json_t *mount_json(const struct mount *m)
{
	json_t *o = json_object();

	json_object_set_new(o, "mount_point", rec_json_str(m->point, m->len));
	json_object_set_new(o, "fstype", json_string(m->fstype));
	json_object_set_new(o, "options", split_options(m->options));
	json_object_set_new(o, "super_options", split_options(m->super));
	return o;
}

/*
 * add_explanation - "ancestors" and "mount" of a failed path.  The mount is
 * that of the path itself when it exists (a read-only bind-mounted file),
 * else of its deepest existing ancestor.
 */
static void add_explanation(json_t *o, const struct ftable *t, const struct fentry *e,
			    const struct mounts *ms)
{
	const struct fentry *deepest = e->meta.err == 0 ? e : NULL;
	const struct mount *m;

	json_object_set_new(o, "ancestors", ancestors_json(t, e, &deepest));
	if (deepest == NULL)
		return;
	m = mounts_find(ms, deepest->path, deepest->len);
	if (m != NULL)
		json_object_set_new(o, "mount", mount_json(m));
}

/*
 * shebang_json - for a path whose exec failed with ENOENT and that is a
 * regular file at the end: the interpreter its "#!" line names, and
 * whether the line ends in a CR (a script saved with Windows line
 * endings: the kernel looks for "/bin/sh\r"), binfmt_script(5)'s reading.
 * Only the interpreter's path is kept, never its arguments (they may hold
 * anything).  NULL when the file does not start with "#!" or cannot be
 * read.  One read(2) of at most 256 bytes.
 */
static json_t *shebang_json(const struct fentry *e)
{
	char line[256];
	cleanup_close int fd = -1;
	ssize_t n;
	size_t i = 2, start, end;

	if (!(e->ops & OP_EXEC) || (e->last != ENOENT && e->first != ENOENT) || e->meta.err != 0 ||
	    !S_ISREG(e->meta.mode) || !is_statable(e))
		return NULL;
	fd = open(e->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || (n = read(fd, line, sizeof(line))) < 3 || line[0] != '#' || line[1] != '!')
		return NULL;
	while (i < (size_t)n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	start = i;
	while (i < (size_t)n && line[i] != ' ' && line[i] != '\t' && line[i] != '\n' &&
	       line[i] != '\r')
		i++;
	end = i;
	while (i < (size_t)n && line[i] != '\n')
		i++;
	if (end == start)
		return NULL;
	return json_pack("{s:o,s:b}", "interpreter", rec_json_str(line + start, end - start), "cr",
			 i > 0 && i <= (size_t)n && line[i - 1] == '\r');
}

static json_t *entry_json(const struct ftable *t, const struct fentry *e, const struct mounts *ms)
{
	json_t *o = json_object(), *sb;

	json_object_set_new(o, "path", rec_json_str(e->path, e->len));
	json_object_set_new(o, "ops", ops_json(e->ops));
	json_object_set_new(o, "first", result_json(e->first));
	json_object_set_new(o, "last", result_json(e->last));
	if (e->last > 0)
		json_object_set_new(o, "errno", result_json(e->last));
	json_object_set_new(o, "calls", json_integer((json_int_t)e->calls));
	set_meta(o, &e->meta, false);
	if (e->has_before) {
		json_t *b = NULL;

		if (e->before.err == 0) {
			b = meta_short_json(&e->before);
			json_object_set_new(b, "size", json_integer((json_int_t)e->before.size));
			json_object_set_new(b, "mtime_ns", json_integer(e->before.mtime_ns));
		}
		json_object_set_new(o, "before", b != NULL ? b : json_null());
	}
	if (needs_ancestors(e))
		add_explanation(o, t, e, ms);
	if ((sb = shebang_json(e)) != NULL)
		json_object_set_new(o, "shebang", sb);
	return o;
}

/* ------------------------------------------------------------- output */

static int cmp_entry(const void *a, const void *b)
{
	const struct fentry *x = *(const struct fentry *const *)a;
	const struct fentry *y = *(const struct fentry *const *)b;
	int c = memcmp(x->path, y->path, x->len < y->len ? x->len : y->len);

	if (c != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* The touched entries sorted by path bytes; *n gets the count.  Borrowed from t. */
static struct fentry **sorted_touched(const struct ftable *t, size_t *n)
{
	struct fentry **v = repro_xcalloc(t->n ? t->n : 1, sizeof(*v));
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].is_touched)
			v[k++] = &t->v[i];
	qsort(v, k, sizeof(*v), cmp_entry);
	*n = k;
	return v;
}

static int write_line(FILE *f, json_t *o, const char *out_path, struct repro_err **err)
{
	int rc = json_dumpf(o, f, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	if (rc < 0 || fputc('\n', f) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", out_path);
	return 0;
}

static int close_out(FILE **f, const char *out_path, struct repro_err **err)
{
	FILE *g = steal_ptr(f);
	int bad = ferror(g);

	if (fclose(g) != 0 || bad)
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", out_path);
	return 0;
}

static bool has_failures(const struct ftable *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (needs_ancestors(&t->v[i]))
			return true;
	return false;
}

/* A program the run executed that is set-user-ID or set-group-ID (its mode at the end). */
static void note_setid(const struct fentry *e, struct rec_files_stats *st)
{
	if (!(e->ops & OP_EXEC) || e->meta.err != 0 || !S_ISREG(e->meta.mode) ||
	    !(e->meta.mode & (S_ISUID | S_ISGID)))
		return;
	if (st->setid_execs++ == 0)
		snprintf(st->setid_example, sizeof(st->setid_example), "%.*s", (int)e->len,
			 e->path);
}

/* write_jsonl - one line per touched entry, sorted; counts lines and set-ID execs into *st. */
static int write_jsonl(const struct ftable *t, const char *out_path, struct rec_files_stats *st,
		       struct repro_err **err)
{
	cleanup_mounts struct mounts ms = { NULL, 0 };
	cleanup_free struct fentry **v = NULL;
	cleanup_fclose FILE *f = NULL;
	size_t n = 0;
	int fd;

	/* never through a link planted where it goes (a spool packed later) */
	fd = repro_file_create(out_path, false, err);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		return repro_err_set(err, errno, "cannot create '%s'", out_path);
	}
	if (has_failures(t))
		mounts_load(&ms);
	v = sorted_touched(t, &n);
	errno = 0;
	for (size_t i = 0; i < n; i++) {
		note_setid(v[i], st);
		if (write_line(f, entry_json(t, v[i], &ms), out_path, err) < 0)
			return -1;
	}
	if (close_out(&f, out_path, err) < 0)
		return -1;
	st->paths = n;
	return 0;
}

/* -------------------------------------------------------------- entry */

void rec_files_opts_init(struct rec_files_opts *opts)
{
	*opts = (struct rec_files_opts){ .hash_max_bytes = REC_FILES_HASH_MAX_DEFAULT,
					 .max_paths = REC_FILES_MAX_PATHS_DEFAULT };
}

int rec_files_write_stats(const char *spool_dir, const struct rec_files_opts *opts,
			  const char *out_path, struct rec_files_stats *stats,
			  struct repro_err **err)
{
	struct rec_files_opts o;
	struct rec_files_stats st = { 0 };
	cleanup_table struct ftable t = { 0 };

	if (opts != NULL)
		o = *opts;
	else
		rec_files_opts_init(&o);
	table_init(&t, o.max_paths ? o.max_paths : REC_FILES_MAX_PATHS_DEFAULT);
	if (read_spool(spool_dir, &t, &st, err) < 0)
		return repro_err_wrap(err, BNDL_FILES_JSONL);
	add_ancestors(&t);
	if (gather_meta(&t, &o, &st.used_uring, err) < 0)
		return repro_err_wrap(err, BNDL_FILES_JSONL);
	if (write_jsonl(&t, out_path, &st, err) < 0)
		return -1;
	st.dropped = t.dropped;
	if (stats != NULL)
		*stats = st;
	return 0;
}

int rec_files_write(const char *spool_dir, const struct rec_files_opts *opts, const char *out_path,
		    struct repro_err **err)
{
	return rec_files_write_stats(spool_dir, opts, out_path, NULL, err);
}
