/*
 * overlay.jsonl: the write set of a run, read from the overlays' upper
 * layers after the run (recorder/overlay.h).
 */
#include "recorder/overlay.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The walk of one run's upper layers. */
struct walk {
	FILE *out; /* borrowed */
	const char *out_path; /* borrowed */
	const char *root; /* borrowed: the overlaid directory being walked */
	const char *upper; /* borrowed: its upper layer, for error messages */
	uint64_t max, n;
	uint64_t unreadable; /* directories of an upper layer skipped: no permission */
	bool is_truncated;
	char rel[4096]; /* the entry's path below root, "" for root itself */
};

/* A directory's entry names, sorted (owned: names and the array). */
struct names {
	char **v;
	size_t n;
};

static void names_release(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}
#define cleanup_names __attribute__((cleanup(names_release)))

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the directory fd (a dup is read; fd stays open), sorted.  -1 with errno. */
static int read_names(int fd, struct names *ns)
{
	int copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_closedir DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	struct dirent *de;

	if (d == NULL) {
		if (copy >= 0)
			close(copy);
		return -1;
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		ns->v = repro_xgrow(ns->v, ns->n, sizeof(*ns->v));
		ns->v[ns->n++] = repro_xstrdup(de->d_name);
	}
	if (errno != 0)
		return -1;
	if (ns->n > 1) /* qsort(3) of no array is undefined */
		qsort(ns->v, ns->n, sizeof(*ns->v), name_cmp);
	return 0;
}

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "dir";
	case S_IFLNK: return "symlink";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFCHR: return "chardev";
	case S_IFBLK: return "blockdev";
	default: return "other";
	}
}

/* overlayfs' whiteout: a character device 0/0 in the upper layer. */
static bool is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

/* An opaque directory ("y"): what is below it in the lower layer is hidden. */
static bool is_opaque(int dirfd)
{
	static const char *const names[] = { "trusted.overlay.opaque", "user.overlay.opaque" };
	char v[4];

	for (size_t i = 0; i < 2; i++)
		if (fgetxattr(dirfd, names[i], v, sizeof(v)) == 1 && v[0] == 'y')
			return true;
	return false;
}

/* Whether an entry that is in both layers differs (a directory: type, mode and owner only). */
static bool differs(const struct stat *u, const struct stat *l)
{
	if ((u->st_mode & S_IFMT) != (l->st_mode & S_IFMT) || u->st_mode != l->st_mode ||
	    u->st_uid != l->st_uid || u->st_gid != l->st_gid)
		return true;
	if (S_ISDIR(u->st_mode))
		return false;
	return u->st_size != l->st_size || u->st_mtim.tv_sec != l->st_mtim.tv_sec ||
	       u->st_mtim.tv_nsec != l->st_mtim.tv_nsec;
}

/* "root/rel" as bytes for JSON (root "/" gives "/rel"). */
static json_t *full_path(const struct walk *w)
{
	bool slash = w->rel[0] != '\0' && strcmp(w->root, "/") != 0;
	cleanup_free char *p = repro_xasprintf("%s%s%s", w->root, slash ? "/" : "", w->rel);

	return bndl_json_bytes(p, strlen(p));
}

/* One line for the entry at w->rel.  0, 1 when the limit was reached, -1 with *err. */
static int emit(struct walk *w, const char *change, const struct stat *st, struct repro_err **err)
{
	cleanup_json json_t *o = json_object();
	cleanup_free char *line = NULL;
	bool sized = S_ISREG(st->st_mode) || S_ISLNK(st->st_mode);

	if (w->n >= w->max) {
		w->is_truncated = true;
		return 1;
	}
	json_object_set_new(o, "root", bndl_json_bytes(w->root, strlen(w->root)));
	json_object_set_new(o, "path", full_path(w));
	json_object_set_new(o, "change", json_string(change));
	json_object_set_new(o, "type", json_string(type_name(st->st_mode)));
	json_object_set_new(o, "size", json_integer(sized ? (json_int_t)st->st_size : 0));
	json_object_set_new(o, "mode", json_integer((json_int_t)(st->st_mode & 07777)));
	line = bndl_json_text(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (line == NULL || fprintf(w->out, "%s\n", line) < 0)
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", w->out_path);
	w->n++;
	return 0;
}

/* w->rel += "/name" (or "name" at the top); returns the old length, or -1 when too long. */
static ssize_t rel_push(struct walk *w, const char *name)
{
	size_t len = strlen(w->rel);
	int n = snprintf(w->rel + len, sizeof(w->rel) - len, "%s%s", len ? "/" : "", name);

	if (n < 0 || (size_t)n >= sizeof(w->rel) - len) {
		w->rel[len] = '\0';
		return -1;
	}
	return (ssize_t)len;
}

static int walk_dir(struct walk *w, int ufd, int lfd, bool hidden, struct repro_err **err);

/* Into a directory of the upper layer: its entries, against the lower one when there is one. */
static int descend(struct walk *w, int ufd, int lfd, const char *name, bool lower_is_dir,
		   bool hidden, struct repro_err **err)
{
	cleanup_close int cu = openat(ufd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cleanup_close int cl = -1;

	/* the program may have taken the tracer's permission away (chmod 0): said, not fatal */
	if (cu < 0 && errno == EACCES) {
		w->unreadable++;
		return 0;
	}
	if (cu < 0)
		return repro_err_set(err, errno, "cannot read '%s/%s'", w->upper, w->rel);
	if (lower_is_dir)
		cl = openat(lfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return walk_dir(w, cu, cl, hidden || (cl >= 0 && is_opaque(cu)), err);
}

/* One entry of the upper layer.  0, 1 at the limit, -1 with *err. */
static int visit(struct walk *w, int ufd, int lfd, bool hidden, const char *name,
		 struct repro_err **err)
{
	struct stat us, ls;
	bool has_lower;
	int rc = 0;

	if (fstatat(ufd, name, &us, AT_SYMLINK_NOFOLLOW) < 0)
		return repro_err_set(err, errno, "cannot read '%s/%s'", w->upper, w->rel);
	has_lower = lfd >= 0 && fstatat(lfd, name, &ls, AT_SYMLINK_NOFOLLOW) == 0;
	if (is_whiteout(&us))
		return has_lower ? emit(w, "deleted", &ls, err) : 0;
	if (!has_lower)
		rc = emit(w, "created", &us, err);
	else if (differs(&us, &ls))
		rc = emit(w, "modified", &us, err);
	if (rc != 0 || !S_ISDIR(us.st_mode))
		return rc;
	return descend(w, ufd, lfd, name, has_lower && S_ISDIR(ls.st_mode), hidden, err);
}

/* Below an opaque directory: what the lower one has and the upper one does not was deleted. */
static int hidden_deleted(struct walk *w, const struct names *upper, int lfd,
			  struct repro_err **err)
{
	cleanup_names struct names lower = { 0 };

	if (read_names(lfd, &lower) < 0)
		return 0; /* an unreadable lower directory: nothing to say about it */
	for (size_t i = 0; i < lower.n; i++) {
		struct stat ls;
		ssize_t old;
		int rc;

		if (bsearch(&lower.v[i], upper->v, upper->n, sizeof(char *), name_cmp) != NULL ||
		    fstatat(lfd, lower.v[i], &ls, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if ((old = rel_push(w, lower.v[i])) < 0)
			continue;
		rc = emit(w, "deleted", &ls, err);
		w->rel[old] = '\0';
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int walk_dir(struct walk *w, int ufd, int lfd, bool hidden, struct repro_err **err)
{
	cleanup_names struct names ns = { 0 };

	if (read_names(ufd, &ns) < 0) {
		if (errno != EACCES)
			return repro_err_set(err, errno, "cannot read '%s/%s'", w->upper, w->rel);
		w->unreadable++;
		return 0;
	}
	for (size_t i = 0; i < ns.n; i++) {
		ssize_t old = rel_push(w, ns.v[i]);
		int rc;

		if (old < 0)
			return repro_err_set(err, ENAMETOOLONG, "cannot read '%s/%s/%s'", w->upper,
					     w->rel, ns.v[i]);
		rc = visit(w, ufd, lfd, hidden, ns.v[i], err);
		w->rel[old] = '\0';
		if (rc != 0)
			return rc;
	}
	return hidden && lfd >= 0 ? hidden_deleted(w, &ns, lfd, err) : 0;
}

/* One root: its own metadata (a chmod of the overlaid directory), then what is in it. */
static int walk_root(struct walk *w, const struct rec_overlay_root *r, struct repro_err **err)
{
	cleanup_close int ufd = open(r->upper, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_close int lfd = open(r->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat us, ls;
	int rc;

	w->root = r->path;
	w->upper = r->upper;
	w->rel[0] = '\0';
	if (ufd < 0 || fstat(ufd, &us) < 0)
		return repro_err_set(err, errno, "cannot read the overlay's upper layer '%s'",
				     r->upper);
	if (lfd >= 0 && fstat(lfd, &ls) == 0 && differs(&us, &ls) &&
	    (rc = emit(w, "modified", &us, err)) != 0)
		return rc;
	return walk_dir(w, ufd, lfd, false, err);
}

int rec_overlay_write(const struct rec_overlay_root *roots, size_t n, uint64_t max,
		      const char *out_path, struct rec_overlay_stats *st, struct repro_err **err)
{
	int fd = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	cleanup_fclose FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct walk w = { .out = out, .out_path = out_path, .max = max ? max : REC_OVERLAY_MAX };
	int rc = 0;

	if (out == NULL) {
		rc = repro_err_set(err, errno, "cannot create '%s'", out_path);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = walk_root(&w, &roots[i], err);
	if (rc < 0)
		return -1;
	if (fclose(steal_ptr(&out)) != 0)
		return repro_err_set(err, errno, "cannot write '%s'", out_path);
	*st = (struct rec_overlay_stats){ .changes = w.n,
					  .unreadable = w.unreadable,
					  .is_truncated = w.is_truncated };
	return 0;
}
