/*
 * --overlay: the directories the program may write to without touching
 * the host (docs/architecture.md, "Sandbox").  The tracer makes a private
 * temporary directory per overlaid directory before the run; the launcher
 * mounts the overlays in the program's mount namespace; after the run the
 * upper layers are read into overlay.jsonl (recorder/overlay.h), moved to
 * --keep-overlay's directory or removed.
 */
#include "session/session_internal.h"
#include "bundles/members.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"
#include "recorder/overlay.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether path is dir or inside it (both canonical). */
static bool is_inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* One more directory to overlay, canonical; explicit ones must exist, a missing $HOME is skipped. */
static int add_path(char ***v, size_t *n, const char *path, bool explicit, struct repro_err **err)
{
	char *real = realpath(path, NULL);
	struct stat st;

	if (real == NULL && !explicit)
		return 0;
	if (real == NULL)
		return repro_err_set(err, errno, "cannot overlay '%s'", path);
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return repro_err_set(err, ENOTDIR, "cannot overlay '%s'", path);
	}
	*v = repro_xreallocarray(*v, *n + 1, sizeof(char *));
	(*v)[(*n)++] = real;
	return 0;
}

/* Whether v[i] is inside another of v (an equal one earlier counts), which covers it. */
static bool is_covered(char *const *v, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && is_inside(v[i], v[j]) && (strcmp(v[i], v[j]) != 0 || j < i))
			return true;
	return false;
}

/* Into s->ovl in the order given, but for those another one covers. */
static void keep_outermost(struct sess_state *s, char **v, size_t n)
{
	s->ovl = repro_xcalloc(n, sizeof(*s->ovl));
	for (size_t i = 0; i < n; i++)
		if (!is_covered(v, n, i))
			s->ovl[s->novl++].path = repro_xstrdup(v[i]);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

/* The directories to overlay: --overlay=PATH,… or the working directory and $HOME. */
static int collect_paths(struct sess_state *s, struct repro_err **err)
{
	const struct sess_options *o = s->o;
	char **v = NULL;
	size_t n = 0;
	int rc = 0;

	if (o->noverlay_paths == 0) {
		rc = add_path(&v, &n, s->cwd, true, err);
		if (rc == 0 && getenv("HOME") != NULL && getenv("HOME")[0] == '/')
			rc = add_path(&v, &n, getenv("HOME"), false, err);
	}
	for (size_t i = 0; rc == 0 && i < o->noverlay_paths; i++)
		rc = add_path(&v, &n, o->overlay_paths[i], true, err);
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return -1;
	}
	keep_outermost(s, v, n);
	free(v);
	return 0;
}

/*
 * The upper layer's root is what the program sees as the overlaid
 * directory itself, so it gets that directory's mode and, for root, its
 * owner (what cannot be given shows in overlay.jsonl as a change).
 */
static int make_layers(struct sess_overlay *ov, struct repro_err **err)
{
	struct stat st;

	ov->upper = repro_path_join(ov->tmp, "upper");
	ov->work = repro_path_join(ov->tmp, "work");
	if (mkdir(ov->upper, 0700) < 0 || mkdir(ov->work, 0700) < 0)
		return repro_err_set(err, errno, "cannot create the overlay's layers in '%s'",
				     ov->tmp);
	if (stat(ov->path, &st) == 0) {
		if (geteuid() == 0)
			(void)!chown(ov->upper, st.st_uid, st.st_gid);
		(void)chmod(ov->upper, st.st_mode & 07777);
	}
	return 0;
}

/*
 * Where the temporary directory of the overlay of path goes: parent, or
 * when that is inside path (overlayfs refuses an upper layer inside its
 * lower one: ELOOP) and may_move, the first of /var/tmp, /dev/shm and /tmp
 * that is not (a replay overlays /tmp itself).  Canonical into real; 0 or
 * -1 with *err.
 */
static int tmp_parent(const char *path, const char *parent, bool may_move, char real[PATH_MAX],
		      struct repro_err **err)
{
	static const char *const others[] = { "/var/tmp", "/dev/shm", "/tmp" };

	if (realpath(parent, real) == NULL)
		return repro_err_set(err, errno, "cannot overlay '%s': temporary directory '%s'",
				     path, parent);
	for (size_t i = 0; may_move && is_inside(real, path) && i < 3; i++) {
		char other[PATH_MAX];

		if (realpath(others[i], other) != NULL && access(other, W_OK) == 0 &&
		    !is_inside(other, path))
			memcpy(real, other, PATH_MAX);
	}
	if (is_inside(real, path))
		return repro_err_set(err, EINVAL,
				     "cannot overlay '%s': its upper layer would be inside it, in "
				     "'%s' (set TMPDIR to a directory elsewhere)",
				     path, real);
	return 0;
}

/* The temporary directory of one overlay in parent (mkdtemp(3): 0700, so the upper layer is the caller's alone). */
static int make_tmp(struct sess_overlay *ov, const char *parent, bool may_move,
		    struct repro_err **err)
{
	char real[PATH_MAX];

	if (tmp_parent(ov->path, parent, may_move, real, err) < 0)
		return -1;
	ov->tmp = repro_xasprintf("%s/repro-overlay.XXXXXX", real);
	if (mkdtemp(ov->tmp) == NULL) {
		int e = errno;

		free(ov->tmp);
		ov->tmp = NULL;
		return repro_err_set(err, e, "cannot create a temporary directory in '%s'", real);
	}
	return make_layers(ov, err);
}

/* The name of an overlaid directory in --keep-overlay's: "/home/u" -> "home_u", "/" -> "root". */
static char *kept_name(const char *path)
{
	char *name = repro_xstrdup(path[1] != '\0' ? path + 1 : "root");

	for (char *p = name; *p != '\0'; p++)
		if (*p == '/')
			*p = '_';
	return name;
}

/*
 * --keep-overlay DIR: made now (0700) when missing, and each upper layer's
 * name there free, so that nothing is lost after the run.  Its temporary
 * directories go into DIR itself when DIR is not inside an overlaid
 * directory, so that the move after the run is a rename(2).
 */
static int prepare_keep(struct sess_state *s, bool *tmp_in_keep, struct repro_err **err)
{
	const char *dir = s->o->keep_overlay;
	char real[PATH_MAX];

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return repro_err_set(err, errno, "cannot create '%s' for --keep-overlay", dir);
	if (realpath(dir, real) == NULL)
		return repro_err_set(err, errno, "--keep-overlay '%s'", dir);
	*tmp_in_keep = true;
	for (size_t i = 0; i < s->novl; i++) {
		struct sess_overlay *ov = &s->ovl[i];
		cleanup_free char *to = NULL;
		struct stat st;

		ov->kept_name = kept_name(ov->path);
		/* "/a_b" and "/a/b" have the same name: the second could not be moved there */
		for (size_t j = 0; j < i; j++)
			if (strcmp(s->ovl[j].kept_name, ov->kept_name) == 0)
				return repro_err_set(err, EEXIST,
						     "cannot keep the overlays of '%s' and '%s' in "
						     "'%s': both would be named '%s'",
						     s->ovl[j].path, ov->path, dir, ov->kept_name);
		to = repro_path_join(real, ov->kept_name);
		if (lstat(to, &st) == 0)
			return repro_err_set(err, EEXIST, "cannot keep the overlay of '%s' in '%s'",
					     ov->path, to);
		*tmp_in_keep &= !is_inside(real, ov->path);
	}
	return 0;
}

int sess_overlay_prepare(struct sess_state *s, struct repro_err **err)
{
	bool tmp_in_keep = false;

	if (!s->o->is_overlay)
		return 0;
	if (collect_paths(s, err) < 0)
		return -1;
	if (s->o->keep_overlay != NULL && prepare_keep(s, &tmp_in_keep, err) < 0)
		return -1;
	for (size_t i = 0; i < s->novl; i++)
		if (make_tmp(&s->ovl[i], tmp_in_keep ? s->o->keep_overlay : sess_tmp_parent(s->o),
			     !tmp_in_keep, err) < 0)
			return -1;
	s->lovl = repro_xcalloc(s->novl, sizeof(*s->lovl));
	for (size_t i = 0; i < s->novl; i++)
		s->lovl[i] = (struct lnch_overlay){ .path = s->ovl[i].path,
						    .upper = s->ovl[i].upper,
						    .work = s->ovl[i].work };
	return 0;
}

void sess_overlay_settle(struct sess_state *s)
{
	cleanup_free char *line = NULL;
	size_t len = 0;
	FILE *f;

	if (s->novl == 0 || s->o->keep_overlay == NULL || (f = open_memstream(&line, &len)) == NULL)
		return;
	fprintf(f, "the overlay's upper layers are kept in '%s':", s->o->keep_overlay);
	for (size_t i = 0; i < s->novl; i++) {
		struct sess_overlay *ov = &s->ovl[i];
		char *to = repro_path_join(s->o->keep_overlay, ov->kept_name);

		if (rename(ov->upper, to) == 0) {
			fprintf(f, "%s '%s' (of '%s')", i ? "," : "", ov->kept_name, ov->path);
			free(ov->upper);
			ov->upper = to;
			continue;
		}
		fprintf(f, "%s not '%s' (of '%s', %s: left in '%s')", i ? "," : "", ov->kept_name,
			ov->path, strerror(errno), ov->tmp);
		free(to);
		free(ov->tmp); /* not removed: it holds the layer */
		ov->tmp = NULL;
	}
	if (fclose(f) == 0)
		sess_notice(s, "%s", line);
}

/* Directories the program made unreadable to the tracer: what is in them is not listed. */
static void unreadable_warning(struct sess_state *s, uint64_t n)
{
	char note[160];

	snprintf(note, sizeof(note),
		 "overlay.jsonl leaves out what is in %llu director%s the program made unreadable",
		 (unsigned long long)n, n == 1 ? "y" : "ies");
	sess_add_warning(s, note);
}

int sess_overlay_derive(struct sess_state *s, const char *dir, struct repro_err **err)
{
	cleanup_free struct rec_overlay_root *roots = NULL;
	cleanup_free char *out = NULL;
	struct rec_overlay_stats st = { 0 };
	json_t *paths;

	if (s->novl == 0)
		return 0;
	roots = repro_xcalloc(s->novl, sizeof(*roots));
	for (size_t i = 0; i < s->novl; i++)
		roots[i] = (struct rec_overlay_root){ .path = s->ovl[i].path,
						      .upper = s->ovl[i].upper };
	out = repro_path_join(dir, BNDL_OVERLAY_JSONL);
	if (rec_overlay_write(roots, s->novl, REC_OVERLAY_MAX, out, &st, err) < 0)
		return -1;
	json_decref(s->overlay_json);
	s->overlay_json = json_object();
	paths = json_array();
	for (size_t i = 0; i < s->novl; i++)
		json_array_append_new(paths,
				      bndl_json_bytes(s->ovl[i].path, strlen(s->ovl[i].path)));
	json_object_set_new(s->overlay_json, "paths", paths);
	json_object_set_new(s->overlay_json, "changes", json_integer((json_int_t)st.changes));
	json_object_set_new(s->overlay_json, "truncated", json_boolean(st.is_truncated));
	json_object_set_new(s->overlay_json, "kept",
			    s->o->keep_overlay != NULL ? bndl_json_bytes(s->o->keep_overlay,
									 strlen(s->o->keep_overlay))
						       : json_null());
	s->info.overlay = s->overlay_json;
	if (st.is_truncated)
		sess_add_warning(s, "overlay.jsonl stopped at its limit of changes");
	if (st.unreadable > 0)
		unreadable_warning(s, st.unreadable);
	/* run.json too, for a `repro pack` of a spool kept by a full disk */
	if (strcmp(dir, s->spool_dir) == 0)
		(void)bndl_runinfo_save(s->spool_dir, &s->info, NULL);
	return 0;
}

void sess_overlay_release(struct sess_state *s)
{
	for (size_t i = 0; i < s->novl; i++) {
		struct sess_overlay *ov = &s->ovl[i];

		if (ov->tmp != NULL)
			repro_remove_tree(ov->tmp);
		free(ov->path);
		free(ov->tmp);
		free(ov->upper);
		free(ov->work);
		free(ov->kept_name);
	}
	free(s->ovl);
	free(s->lovl);
	json_decref(s->overlay_json);
	s->ovl = NULL;
	s->lovl = NULL;
	s->overlay_json = NULL;
	s->novl = 0;
}
