/*
 * The sentence of a finding and the facts behind it, drawn from the bundle
 * only: files.jsonl (the path, its ancestors and mount), host.json (the
 * process's ids and capabilities, free space), network.jsonl (outcome,
 * duration, DNS name) and processes.jsonl (how the process ended).
 * Permission checks follow path_resolution(7) and access(2): search (x) on
 * every directory on the way, write and search on the parent to create or
 * remove an entry, r/w/x on the file itself; CAP_DAC_OVERRIDE bypasses the
 * mode bits (capabilities(7)).
 */
#include "replayer/readers/explain.h"
#include "replayer/readers/explain_internal.h"
#include "replayer/readers/explain_said.h"
#include "common/sysent.h"
#include "bundles/json_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *xp_op_word(enum xp_op op)
{
	static const char *const words[] = {
		[XP_OP_FIND] = "find",	   [XP_OP_READ] = "read",     [XP_OP_WRITE] = "write",
		[XP_OP_CREATE] = "create", [XP_OP_DELETE] = "remove", [XP_OP_RUN] = "run",
		[XP_OP_ENTER] = "enter",   [XP_OP_CHANGE] = "change", [XP_OP_OTHER] = "use",
	};

	return (unsigned)op < sizeof(words) / sizeof(words[0]) ? words[op] : "use";
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* str() for printing: "?" when the key is missing or not a string (hostile bundles). */
static const char *sq(json_t *o, const char *key)
{
	const char *s = str(o, key);

	return s != NULL ? s : "?";
}

static json_int_t num(json_t *o, const char *key, json_int_t def)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : def;
}

static bool is(const char *a, const char *b)
{
	return a != NULL && strcmp(a, b) == 0;
}

/* The reader's word for the table's op of a call (common/sysent.h). */
static enum xp_op xp_op_from(enum repro_sys_op op)
{
	switch (op) {
	case REPRO_OP_STAT:
	case REPRO_OP_READLINK: return XP_OP_FIND;
	case REPRO_OP_READ: return XP_OP_READ;
	case REPRO_OP_WRITE: return XP_OP_WRITE;
	case REPRO_OP_CHANGE: return XP_OP_CHANGE;
	case REPRO_OP_CREATE:
	case REPRO_OP_MKDIR:
	case REPRO_OP_RENAME:
	case REPRO_OP_LINK: return XP_OP_CREATE;
	case REPRO_OP_DELETE: return XP_OP_DELETE;
	case REPRO_OP_EXEC: return XP_OP_RUN;
	case REPRO_OP_CHDIR: return XP_OP_ENTER;
	case REPRO_OP_NONE:
	case REPRO_OP_OPEN:
	case REPRO_OP_OTHER: return XP_OP_OTHER;
	}
	return XP_OP_OTHER;
}

enum xp_op xp_op_of(json_t *ev)
{
	const struct repro_sysent *s = repro_sysent_find(bndl_json_str(ev, "syscall"));
	const char *amode = bndl_json_str(ev, "mode");
	enum repro_sys_op op = repro_sys_op_parse(bndl_json_str(ev, "op"));

	if (s != NULL && repro_sysent_arg_of(s, RA_AMODE) >= 0 && amode != NULL) {
		/* access(2) asks for what the program means to do next */
		if (strstr(amode, "X_OK") != NULL)
			return XP_OP_RUN;
		if (strstr(amode, "W_OK") != NULL)
			return XP_OP_WRITE;
		if (strstr(amode, "R_OK") != NULL)
			return XP_OP_READ;
	}
	if (op == REPRO_OP_NONE && s != NULL) /* a bundle from before events carried "op" */
		op = s->op != REPRO_OP_OPEN ? s->op
		     : repro_sysent_fixed_oflags(s) != 0
			     ? repro_sysent_op(s, -1, 0)
			     : repro_sys_open_op_text(bndl_json_str(ev, "flags"));
	return xp_op_from(op);
}

/* Network failures come from network.jsonl, which follows them to their end. */
bool xp_is_net_call(const char *sc)
{
	const struct repro_sysent *s = repro_sysent_find(sc);

	return s != NULL && (s->flags & REPRO_SYSF_NETLOG);
}

/* ---- who the process was ---- */

struct who {
	json_int_t uid, gid;
	json_t *groups;
	bool dac_override, dac_read_search, fowner, chown;
};

static bool cap_has(json_t *host, const char *cap)
{
	const char *eff = str(json_object_get(host, "capabilities"), "effective");
	const char *at = eff != NULL ? strstr(eff, cap) : NULL;
	size_t n = strlen(cap);

	return at != NULL && (at[n] == '\0' || at[n] == ',');
}

static struct who who_of(json_t *host)
{
	return (struct who){
		.uid = num(host, "uid", -1),
		.gid = num(host, "gid", -1),
		.groups = json_object_get(host, "groups"),
		.dac_override = cap_has(host, "cap_dac_override"),
		.dac_read_search = cap_has(host, "cap_dac_read_search"),
		.fowner = cap_has(host, "cap_fowner"),
		.chown = cap_has(host, "cap_chown"),
	};
}

/*
 * Who process p was: host.json's ids and capabilities, with the ids it (or
 * its parent) changed to during the run; a uid other than 0 has no
 * capabilities (capabilities(7): they are cleared when all uids leave 0).
 */
static struct who who_of_proc(json_t *host, const struct xp_proc *p)
{
	struct who w = who_of(host);

	if (p == NULL)
		return w;
	if (p->has_uid) {
		w.uid = p->euid;
		if (p->euid != 0)
			w.dac_override = w.dac_read_search = w.fowner = w.chown = false;
	}
	if (p->has_gid)
		w.gid = p->egid;
	if (p->groups_dropped)
		w.groups = NULL;
	return w;
}

static bool in_groups(const struct who *w, json_int_t gid)
{
	size_t i;
	json_t *g;

	if (gid == w->gid)
		return true;
	json_array_foreach (w->groups, i, g)
		if (json_integer_value(g) == gid)
			return true;
	return false;
}

/* The rwx bits (4/2/1) of meta that apply to w: owner, group or other class. */
static unsigned class_bits(const struct who *w, json_t *meta)
{
	unsigned long mode = strtoul(str(meta, "mode") ? str(meta, "mode") : "0", NULL, 8);

	if (num(meta, "uid", -2) == w->uid)
		return (unsigned)(mode >> 6) & 7u;
	if (in_groups(w, num(meta, "gid", -2)))
		return (unsigned)(mode >> 3) & 7u;
	return (unsigned)mode & 7u;
}

/* Whether w may have access need (4/2/1 bits) to meta, capabilities included. */
static bool allowed(const struct who *w, json_t *meta, unsigned need)
{
	bool dir = is(str(meta, "type"), "dir");

	if (w->dac_override && (need != 1 || dir))
		return true;
	if (w->dac_read_search && (need == 4 || (dir && need == 1)))
		return true;
	return (class_bits(w, meta) & need) == need;
}

bool rpl_explain_may(json_t *host, json_t *meta, unsigned need)
{
	struct who w = who_of(host);

	return allowed(&w, meta, need);
}

/* ---- text ---- */

struct text {
	char *buf;
	size_t len;
	FILE *f;
};

static void owner_word(FILE *f, json_int_t id)
{
	if (id == 0)
		fputs("root", f);
	else
		fprintf(f, "%" JSON_INTEGER_FORMAT, id);
}

/* "DIR is owned by root:root, mode 0755, and the process ran as uid 1000 (gid 1000)" */
static void put_owner_mode(FILE *f, const char *path, json_t *meta, const struct who *w)
{
	fprintf(f, "%s is owned by ", path != NULL ? path : "?");
	owner_word(f, num(meta, "uid", -1));
	fputc(':', f);
	owner_word(f, num(meta, "gid", -1));
	fprintf(f, ", mode %s, and the process ran as uid %" JSON_INTEGER_FORMAT,
		str(meta, "mode") ? str(meta, "mode") : "?", w->uid);
	fprintf(f, " (gid %" JSON_INTEGER_FORMAT ")", w->gid);
}

static void reason_set(json_t *r, const char *what, const char *path, json_t *meta)
{
	json_object_set_new(r, "what", json_string(what));
	if (path != NULL)
		json_object_set_new(r, "path", json_string(path));
	if (meta != NULL)
		json_object_set(r, "meta", meta);
}

static bool has_option(json_t *mount, const char *opt)
{
	const char *keys[] = { "options", "super_options" };

	for (size_t k = 0; k < 2; k++) {
		size_t i;
		json_t *o;

		json_array_foreach (json_object_get(mount, keys[k]), i, o)
			if (is(json_string_value(o), opt))
				return true;
	}
	return false;
}

/* ---- files ---- */

/* The deepest ancestor that exists (index into ancestors, parent first), or -1. */
static json_t *nearest_existing(json_t *anc)
{
	size_t i;
	json_t *a;

	json_array_foreach (anc, i, a)
		if (json_is_object(json_object_get(a, "meta")))
			return a;
	return NULL;
}

/* The highest missing ancestor: the first component that does not exist. */
static json_t *first_missing(json_t *anc)
{
	json_t *found = NULL;
	size_t i;
	json_t *a;

	json_array_foreach (anc, i, a)
		if (json_is_null(json_object_get(a, "meta")))
			found = a; /* ancestors go from the parent up: the last missing is the highest */
	return found;
}

/*
 * exec ENOENT of a file that exists: the kernel could not find the
 * interpreter of its "#!" line (binfmt_script; files.jsonl "shebang" names
 * it, and whether the line ends in a CR).
 */
static void explain_interpreter(FILE *f, json_t *r, const struct xp_finding *x, json_t *rec)
{
	json_t *sb = json_object_get(rec, "shebang");
	const char *interp = str(sb, "interpreter");

	if (interp != NULL && json_is_true(json_object_get(sb, "cr"))) {
		fprintf(f,
			"its #! line ends in a CR (a script saved with Windows line endings): the "
			"kernel looks for the interpreter '%s\\r', which does not exist "
			"(dos2unix or sed -i 's/\\r$//' fixes it)",
			interp);
		reason_set(r, "interpreter_crlf", x->path, json_object_get(rec, "meta"));
		json_object_set_new(r, "interpreter", json_string(interp));
	} else if (interp != NULL) {
		fprintf(f, "its #! line names the interpreter %s, which does not exist", interp);
		reason_set(r, "interpreter_missing", x->path, json_object_get(rec, "meta"));
		json_object_set_new(r, "interpreter", json_string(interp));
	} else {
		fputs("the file exists, so the interpreter on its #! line is missing (or the line "
		      "ends in a CR: a script saved with Windows line endings)",
		      f);
		reason_set(r, "interpreter_missing", x->path, json_object_get(rec, "meta"));
	}
}

static void explain_missing(FILE *f, json_t *r, const struct xp_finding *x, json_t *rec)
{
	json_t *anc = json_object_get(rec, "ancestors");
	json_t *miss = first_missing(anc), *near = nearest_existing(anc);

	if (x->path_search) {
		const char *base = strrchr(x->path, '/');

		fprintf(f,
			"no directory it searched has %s (%zu tried, the PATH search found nothing)",
			base != NULL ? base + 1 : x->path, x->count);
		reason_set(r, "not_in_path", x->path, NULL);
	} else if (x->kind != XP_EXEC && json_is_object(json_object_get(rec, "meta"))) {
		fputs("it did not exist then (it does at the end of the run: made later)", f);
		reason_set(r, "missing_then", x->path, json_object_get(rec, "meta"));
	} else if (x->kind == XP_EXEC && json_is_object(json_object_get(rec, "meta"))) {
		explain_interpreter(f, r, x, rec);
	} else if (is(x->errname, "ENOTDIR") && near != NULL &&
		   !is(str(json_object_get(near, "meta"), "type"), "dir")) {
		fprintf(f, "%s is not a directory", sq(near, "path"));
		reason_set(r, "not_a_directory", str(near, "path"), json_object_get(near, "meta"));
	} else if (miss != NULL) {
		fprintf(f, "%s does not exist", sq(miss, "path"));
		reason_set(r, "missing", str(miss, "path"), NULL);
	} else if (near != NULL) {
		const char *base = strrchr(x->path, '/');

		fprintf(f, "%s exists but has no %s in it", sq(near, "path"),
			base != NULL ? base + 1 : x->path);
		reason_set(r, "missing", x->path, NULL);
	} else {
		fprintf(f, "%s does not exist", x->path);
		reason_set(r, "missing", x->path, NULL);
	}
}

size_t xp_parent_len(const char *path)
{
	const char *s = path != NULL ? strrchr(path, '/') : NULL;

	if (s == NULL)
		return 0;
	return s == path ? 1 : (size_t)(s - path);
}

/*
 * Whether x adds or removes a name in its directory (unlink, rmdir,
 * rename, link, symlink, mkdir, mknod, creat or open O_CREAT of a file
 * that did not exist), which needs write and search on the directory.  An
 * open with O_CREAT of a file that existed before the call (files.jsonl
 * "before") only opens it.
 */
static bool changes_entry(const struct xp_finding *x, json_t *rec)
{
	if (x->op == XP_OP_DELETE)
		return true;
	if (x->op != XP_OP_CREATE)
		return false;
	if (repro_sysent_find(x->syscall) != NULL &&
	    repro_sysent_find(x->syscall)->op == REPRO_OP_OPEN)
		return !json_is_object(json_object_get(rec, "before"));
	return true;
}

/*
 * The directory that holds x->path, as {"path","meta"}: the first of its
 * files.jsonl ancestors, else the directory's own files.jsonl record (the
 * run named it); NULL when the bundle has neither, or no metadata of it.
 */
static json_t *parent_of(const struct xp_finding *x, json_t *rec, const struct xp_facts *facts)
{
	json_t *a = json_array_get(json_object_get(rec, "ancestors"), 0);
	size_t n = xp_parent_len(x->path);
	char dir[XP_PATH_MAX + 1];

	if (json_is_object(json_object_get(a, "meta")))
		return a;
	if (n == 0 || n > XP_PATH_MAX)
		return NULL;
	memcpy(dir, x->path, n);
	dir[n] = '\0';
	a = json_object_get(facts->files, dir);
	return json_is_object(json_object_get(a, "meta")) ? a : NULL;
}

/* The directory or file whose mode bits deny the access op needs, or NULL. */
static json_t *denier(const struct who *w, const struct xp_finding *x, json_t *rec,
		      const struct xp_facts *facts, const char **how)
{
	json_t *anc = json_object_get(rec, "ancestors"), *meta = json_object_get(rec, "meta");
	json_t *parent = parent_of(x, rec, facts);
	size_t n = json_array_size(anc);

	for (size_t i = n; i-- > 0;) { /* from / down: search permission */
		json_t *m = json_object_get(json_array_get(anc, i), "meta");

		if (json_is_object(m) && !allowed(w, m, 1)) {
			*how = "search";
			return json_array_get(anc, i);
		}
	}
	/* adding or removing a name: write and search on the directory */
	if ((changes_entry(x, rec) || (x->op == XP_OP_WRITE && !json_is_object(meta))) &&
	    parent != NULL && !allowed(w, json_object_get(parent, "meta"), 3)) {
		*how = x->op == XP_OP_DELETE ? "remove entries in" : "create entries in";
		return parent;
	}
	if (!json_is_object(meta))
		return NULL;
	if ((x->op == XP_OP_READ && !allowed(w, meta, 4)) ||
	    ((x->op == XP_OP_WRITE || x->op == XP_OP_CREATE) && !allowed(w, meta, 2)) ||
	    (x->op == XP_OP_RUN && !allowed(w, meta, 1))) {
		*how = x->op == XP_OP_READ ? "read" : x->op == XP_OP_RUN ? "run" : "write";
		return rec;
	}
	return NULL;
}

/* utime, utimes, futimesat, utimensat: a call that sets a file's times. */
static bool sets_times(const char *sc)
{
	const struct repro_sysent *s = repro_sysent_find(sc);

	return s != NULL && repro_sysent_arg_of(s, RA_TIMES) >= 0;
}

/*
 * chmod, chown, utimensat EPERM: only the file's owner (or CAP_FOWNER) may
 * change its mode or set its times, only CAP_CHOWN may give it to another
 * user; utimensat EACCES (times set to now): the process neither owns the
 * file nor may write it (chmod(2), chown(2), utimensat(2)).  False when
 * ownership does not explain it (then the mode bits and the rest are
 * looked at).
 */
static bool explain_not_owner(FILE *f, json_t *r, const struct xp_finding *x, json_t *meta,
			      const struct who *w)
{
	json_int_t owner = num(meta, "uid", -1);
	const struct repro_sysent *s = repro_sysent_find(x->syscall);
	bool is_chown = s != NULL && repro_sysent_arg_of(s, RA_ID) >= 0; /* chown, fchownat … */
	bool to_now = sets_times(x->syscall) && is(x->errname, "EACCES");

	if (is_chown ? w->chown : (w->fowner || owner == w->uid))
		return false;
	if (to_now && allowed(w, meta, 2))
		return false;
	if (owner == 0)
		fprintf(f, "%s is owned by root (uid 0)", x->path);
	else
		fprintf(f, "%s is owned by uid %" JSON_INTEGER_FORMAT, x->path, owner);
	fprintf(f, " and the process ran as uid %" JSON_INTEGER_FORMAT, w->uid);
	if (is_chown)
		fputs(": only root (CAP_CHOWN) may change a file's owner", f);
	else if (to_now)
		fprintf(f,
			": it neither owns the file nor may write it (mode %s), and only the owner, "
			"a process that may write it, or CAP_FOWNER may set its times to now",
			sq(meta, "mode"));
	else
		fprintf(f, ": it does not own the file, and only the owner (or CAP_FOWNER) may %s",
			sets_times(x->syscall) ? "set its times" : "change its mode");
	reason_set(r, "not_owner", x->path, meta);
	json_object_set_new(r, "owner_uid", json_integer(owner));
	return true;
}

/*
 * utimensat(fd, NULL, …) EPERM or EACCES: a call on a descriptor, whose
 * file the bundle does not name (the recorder gave no path).  The errno
 * alone says what the process was not: EPERM, explicit times, only the
 * owner or CAP_FOWNER may; EACCES, times set to now, the owner or one who
 * may write it (utimensat(2)).  Nothing is said when the process had the
 * capability that would have let it.
 */
static void explain_fd_times(FILE *f, json_t *r, const struct xp_finding *x, const struct who *w)
{
	bool to_now = is(x->errname, "EACCES");

	if (w->fowner || (to_now && w->dac_override))
		return;
	fprintf(f,
		" — it tried to set the times of fd %d, whose file the bundle does not name; the "
		"process ran as uid %" JSON_INTEGER_FORMAT,
		(int)x->fd, w->uid);
	if (to_now)
		fputs(", so it neither owns that file nor may write it: only the owner, a process "
		      "that may write it, or CAP_FOWNER may set its times to now",
		      f);
	else
		fputs(", so it does not own that file: only the owner (or CAP_FOWNER) may set its "
		      "times",
		      f);
	reason_set(r, "not_owner", NULL, NULL);
	json_object_set_new(r, "fd", json_integer(x->fd));
	json_object_set_new(r, "process_uid", json_integer(w->uid));
}

/*
 * A sticky directory (mode 1777, /tmp): only the owner of the entry, of
 * the directory, or CAP_FOWNER may remove or rename an entry in it
 * (unlink(2), rename(2) EPERM).  False when that does not explain x.
 */
static bool explain_sticky(FILE *f, json_t *r, const struct xp_finding *x, json_t *rec,
			   json_t *parent, const struct who *w)
{
	json_t *pm = json_object_get(parent, "meta"), *meta = json_object_get(rec, "meta");
	unsigned long mode = strtoul(str(pm, "mode") ? str(pm, "mode") : "0", NULL, 8);
	json_int_t owner = num(meta, "uid", -1);

	const struct repro_sysent *s = repro_sysent_find(x->syscall);

	if (!(x->op == XP_OP_DELETE ||
	      (x->op == XP_OP_CREATE && s != NULL && s->op == REPRO_OP_RENAME)) ||
	    !json_is_object(meta) || (mode & 01000) == 0 || w->fowner || owner == w->uid ||
	    num(pm, "uid", -1) == w->uid)
		return false;
	fprintf(f, "%s has the sticky bit (mode %s): only the owner of %s (", sq(parent, "path"),
		sq(pm, "mode"), x->path);
	owner_word(f, owner);
	fputs("), of the directory (", f);
	owner_word(f, num(pm, "uid", -1));
	fprintf(f,
		") or CAP_FOWNER may remove or rename it, and the process ran as uid %" JSON_INTEGER_FORMAT,
		w->uid);
	reason_set(r, "sticky_directory", str(parent, "path"), pm);
	json_object_set_new(r, "owner_uid", json_integer(owner));
	return true;
}

/*
 * Nothing in the bundle explains a denial: say so, and when the call
 * changes an entry of a directory whose metadata the bundle lacks, that
 * the directory's mode is the part not known.
 */
static void explain_unexplained(FILE *f, json_t *r, const struct xp_finding *x, json_t *rec,
				json_t *parent)
{
	size_t n = xp_parent_len(x->path);

	if (parent == NULL && changes_entry(x, rec) && n > 0) {
		fprintf(f,
			"the bundle has no metadata of %.*s, whose mode decides whether the process "
			"may %s entries in it (write and search permission); no other mode bit in "
			"the bundle explains it",
			(int)n, x->path, x->op == XP_OP_DELETE ? "remove" : "create");
		reason_set(r, "parent_unknown", NULL, NULL);
		json_object_set_new(r, "path", json_stringn(x->path, n));
		return;
	}
	fputs("no mode bit in the bundle explains it (an ACL, a security module such as "
	      "AppArmor or SELinux, or a file of an owner the user namespace does not map)",
	      f);
	reason_set(r, "unexplained", x->path, json_object_get(rec, "meta"));
}

static void explain_denied(FILE *f, json_t *r, const struct xp_finding *x, json_t *rec,
			   const struct who *w, const struct xp_facts *facts)
{
	json_t *mount = json_object_get(rec, "mount"), *meta = json_object_get(rec, "meta");
	json_t *parent = parent_of(x, rec, facts);
	const char *how = NULL;
	json_t *d = denier(w, x, rec, facts, &how);

	if (x->op == XP_OP_RUN && is(str(meta, "type"), "dir")) {
		fprintf(f, "%s is a directory, not a program", x->path);
		reason_set(r, "exec_directory", x->path, meta);
	} else if (x->op == XP_OP_CHANGE && json_is_object(meta) &&
		   (is(x->errname, "EPERM") || sets_times(x->syscall)) &&
		   explain_not_owner(f, r, x, meta, w)) {
		/* said */
	} else if (x->op == XP_OP_RUN && json_is_object(meta) && has_option(mount, "noexec")) {
		fprintf(f, "%s is mounted noexec", sq(mount, "mount_point"));
		reason_set(r, "noexec_mount", str(mount, "mount_point"), NULL);
	} else if (x->op == XP_OP_RUN && json_is_object(meta) &&
		   (strtoul(str(meta, "mode") ? str(meta, "mode") : "0", NULL, 8) & 0111) == 0) {
		fprintf(f, "%s has mode %s: no run bit (chmod +x)", x->path, sq(meta, "mode"));
		reason_set(r, "no_run_bit", x->path, meta);
	} else if (d != NULL) {
		const char *dp = d == rec ? x->path : str(d, "path");

		put_owner_mode(f, dp, json_object_get(d, "meta"), w);
		fprintf(f, ": it may not %s it", how);
		reason_set(r, "permission", dp, json_object_get(d, "meta"));
		json_object_set_new(r, "denied", json_string(how));
	} else if (is(x->errname, "EPERM") && explain_sticky(f, r, x, rec, parent, w)) {
		/* said */
	} else {
		explain_unexplained(f, r, x, rec, parent);
	}
	json_object_set_new(r, "process_uid", json_integer(w->uid));
	json_object_set_new(r, "process_gid", json_integer(w->gid));
}

static void human_bytes(FILE *f, json_int_t b)
{
	if (b >= (json_int_t)1 << 30)
		fprintf(f, "%.1f GiB", (double)b / (double)((json_int_t)1 << 30));
	else if (b >= 1 << 20)
		fprintf(f, "%.1f MiB", (double)b / (double)(1 << 20));
	else if (b >= 1 << 10)
		fprintf(f, "%.1f KiB", (double)b / (double)(1 << 10));
	else
		fprintf(f, "%" JSON_INTEGER_FORMAT " bytes", b);
}

/* The host.json filesystem (longest mount point that prefixes path). */
static json_t *filesystem_of(json_t *host, const char *path)
{
	json_t *best = NULL, *fs;
	size_t i, best_len = 0;

	json_array_foreach (json_object_get(host, "filesystems"), i, fs) {
		const char *mp = str(fs, "mount_point");
		size_t n = mp != NULL ? strlen(mp) : 0;

		if (mp == NULL || strncmp(path, mp, n) != 0 ||
		    (n > 1 && path[n] != '/' && path[n] != '\0'))
			continue;
		if (best == NULL || n > best_len) {
			best = fs;
			best_len = n;
		}
	}
	return best;
}

/*
 * A write that found its filesystem full (x->fs: the space at the first
 * failure), with the mount point and type from after (host.json
 * "filesystems"; NULL when unknown) and, when the space differs after the
 * run (a rollback freed it), both.
 */
static void explain_full_at_failure(FILE *f, json_t *r, const struct xp_finding *x, json_t *after)
{
	const char *base = strrchr(x->path, '/') != NULL ? strrchr(x->path, '/') + 1 : x->path;
	bool quota = is(x->errname, "EDQUOT");

	if (after != NULL)
		fprintf(f, "%s (%s, ", sq(after, "mount_point"),
			str(after, "fstype") ? str(after, "fstype") : "?");
	else
		fputs("its filesystem (", f);
	human_bytes(f, num(x->fs, "total_bytes", 0));
	fputs(" in all) had ", f);
	human_bytes(f, num(x->fs, "free_bytes", 0));
	fprintf(f, " and %" JSON_INTEGER_FORMAT " inodes free when the write failed",
		num(x->fs, "free_inodes", 0));
	if (quota)
		fputs(" (the user's disk quota was used up)", f);
	if (num(x->fs, "size", 0) > 0) {
		fprintf(f, "; %s had ", base);
		human_bytes(f, num(x->fs, "size", 0));
	}
	if (after != NULL && num(after, "free_bytes", 0) != num(x->fs, "free_bytes", 0)) {
		fputs(" (", f);
		human_bytes(f, num(after, "free_bytes", 0));
		fputs(" free after the run)", f);
	}
	json_object_set(r, "filesystem", x->fs);
	if (after != NULL)
		json_object_set(r, "filesystem_after", after);
	json_object_set_new(r, "what", json_string(quota ? "quota" : "disk_full"));
}

static void explain_file(FILE *f, json_t *r, const struct xp_finding *x, const struct xp_proc *p,
			 const struct xp_facts *facts)
{
	json_t *rec = json_object_get(facts->files, x->path);
	json_t *mount = json_object_get(rec, "mount");
	struct who w = who_of_proc(facts->host, p);

	if (is(x->errname, "ENOENT") || is(x->errname, "ENOTDIR")) {
		explain_missing(f, r, x, rec);
	} else if (is(x->errname, "EACCES") || is(x->errname, "EPERM")) {
		explain_denied(f, r, x, rec, &w, facts);
	} else if (is(x->errname, "EROFS")) {
		fprintf(f, "%s is mounted read-only (%s)",
			str(mount, "mount_point") ? str(mount, "mount_point") : "its filesystem",
			str(mount, "fstype") ? str(mount, "fstype") : "?");
		reason_set(r, "read_only_mount", str(mount, "mount_point"), NULL);
	} else if ((is(x->errname, "ENOSPC") || is(x->errname, "EDQUOT")) && x->fs != NULL) {
		explain_full_at_failure(f, r, x, filesystem_of(facts->host, x->path));
	} else if (is(x->errname, "EFBIG")) {
		fputs("the file would grow past the largest size allowed (the process's RLIMIT_FSIZE, "
		      "`ulimit -f`, or the filesystem's limit)",
		      f);
		if (x->fs != NULL && num(x->fs, "size", 0) > 0) {
			fputs("; it had ", f);
			human_bytes(f, num(x->fs, "size", 0));
		}
		reason_set(r, "file_too_large", x->path, NULL);
	} else if (is(x->errname, "EIO")) {
		fputs("the device or filesystem reported an input/output error", f);
		reason_set(r, "io_error", x->path, NULL);
	} else if (is(x->errname, "ENOSPC") || is(x->errname, "EDQUOT")) {
		json_t *fs = filesystem_of(facts->host, x->path);

		if (fs != NULL) {
			fprintf(f, "%s had ", sq(fs, "mount_point"));
			human_bytes(f, num(fs, "free_bytes", 0));
			fprintf(f, " and %" JSON_INTEGER_FORMAT " inodes free after the run",
				num(fs, "free_inodes", 0));
			json_object_set(r, "filesystem", fs);
		} else {
			fputs("the filesystem is full", f);
		}
		json_object_set_new(r, "what",
				    json_string(is(x->errname, "EDQUOT") ? "quota" : "disk_full"));
	} else if (is(x->errname, "ELOOP")) {
		fputs("too many symbolic links on the way (a loop?)", f);
		reason_set(r, "symlink_loop", x->path, NULL);
	} else if (is(x->errname, "EISDIR")) {
		fputs("it is a directory", f);
		reason_set(r, "is_a_directory", x->path, NULL);
	} else {
		fprintf(f, "%s", x->errname);
		reason_set(r, "other", x->path, NULL);
	}
}

/* ---- network ---- */

/* An attempt's endpoint, with the name its address came from; a lookup's server (no name). */
static void put_target(FILE *f, json_t *n)
{
	const char *ip = str(n, "ip");
	const char *name =
		is(str(n, "kind"), "dns") || json_object_get(n, "qtype") ? NULL : str(n, "name");
	bool v6 = is(str(n, "family"), "AF_INET6");

	if (ip != NULL) {
		if (name != NULL)
			fprintf(f, "%s (", name);
		fprintf(f, "%s%s%s:%" JSON_INTEGER_FORMAT, v6 ? "[" : "", ip, v6 ? "]" : "",
			num(n, "port", 0));
		if (name != NULL)
			fputc(')', f);
	} else if (str(n, "path") != NULL) {
		fputs(str(n, "path"), f);
	} else if (str(n, "abstract") != NULL) {
		fprintf(f, "@%s", sq(n, "abstract"));
	} else {
		fputs(str(n, "family") ? str(n, "family") : "?", f);
	}
}

static void put_secs(FILE *f, json_int_t ns)
{
	fprintf(f,
		ns >= 10000000000 ? "%.0f s"
		: ns >= 100000000 ? "%.1f s"
				  : "%.3f s",
		(double)ns / 1e9);
}

/* An outcome without a sentence of its own: its errno, or its name. */
static void put_outcome(FILE *f, json_t *n, const char *o)
{
	fputs(str(n, "errno") ? str(n, "errno") : o ? o : "failed", f);
}

/* Whether n is an attempt to port 53 of a resolv.conf name server (host.json dns). */
static bool to_resolver(json_t *n, json_t *host)
{
	json_t *ns = json_object_get(json_object_get(json_object_get(host, "dns"), "resolv_conf"),
				     "nameservers");
	size_t i;
	json_t *v;

	if (num(n, "port", 0) != 53 || str(n, "ip") == NULL)
		return false;
	json_array_foreach (ns, i, v)
		if (is(json_string_value(v), str(n, "ip")))
			return true;
	return false;
}

/* A word of the command that looks like a host name ("example.com", "https://host/x"), or NULL. */
static const char *host_word(const char *label, char *buf, size_t cap)
{
	const char *s = label != NULL ? strstr(label, "://") : NULL;
	size_t n;

	if (s != NULL) {
		s += 3;
		n = strcspn(s, "/:@ ?#\"'");
		if (n > 0 && n < cap) {
			snprintf(buf, cap, "%.*s", (int)n, s);
			return buf;
		}
	}
	for (s = label; s != NULL && *s != '\0'; s += n + (s[n] != '\0')) {
		size_t dots = 0, k;
		bool ok = true;

		n = strcspn(s, " ");
		for (k = 0; k < n && ok; k++) {
			ok = (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
			     (s[k] >= '0' && s[k] <= '9') || s[k] == '-' || s[k] == '.';
			dots += s[k] == '.';
		}
		/* a dot, not first or last, and a last label of letters: "db.corp.test" */
		if (ok && dots > 0 && n < cap && s[0] != '.' && s[n - 1] != '.' && s[0] != '-' &&
		    s[n - 1] >= 'a' && s[n - 1] <= 'z' && k > 0) {
			snprintf(buf, cap, "%.*s", (int)n, s);
			return buf;
		}
	}
	return NULL;
}

/*
 * A failed connect to the resolver (port 53 of a resolv.conf server): name
 * resolution failed.  The name is the last one the process looked up
 * (network.jsonl), else the host of a URL it looked up as a path, else a
 * host name in its command; none when none says it (a UDP connect that
 * fails sends no query).
 */
static void explain_resolver(FILE *f, json_t *r, const struct xp_finding *x,
			     const struct xp_proc *p, const struct xp_facts *facts)
{
	char pid[24], buf[256];
	const char *name;

	snprintf(pid, sizeof(pid), "%d", (int)x->pid);
	name = json_string_value(json_object_get(facts->dns_names, pid));
	if (name == NULL)
		name = json_string_value(json_object_get(facts->url_hosts, pid));
	if (name == NULL)
		name = host_word(p != NULL ? p->label : NULL, buf, sizeof(buf));
	fputs("name resolution failed", f);
	if (name != NULL)
		fprintf(f, " for %s", name);
	fprintf(f, ": the DNS server %s (resolv.conf) could not be reached: ", sq(x->net, "ip"));
	json_object_set_new(r, "resolving", name != NULL ? json_string(name) : json_null());
}

static void explain_connect(FILE *f, json_t *r, const struct xp_finding *x, const struct xp_proc *p,
			    const struct xp_facts *facts)
{
	json_t *n = x->net;
	const char *o = str(n, "outcome");
	json_int_t dur = num(n, "dur_ns", -1);

	json_object_set_new(r, "what", json_string(o != NULL ? o : "failed"));
	if (to_resolver(n, facts->host)) {
		explain_resolver(f, r, x, p, facts);
		json_object_set_new(r, "name_resolution", json_true());
	}
	if (is(o, "refused")) {
		fputs("nothing was listening there (ECONNREFUSED)", f);
	} else if (is(o, "timed_out") || is(o, "abandoned")) {
		fputs(is(o, "timed_out") ? "no answer; the kernel gave up"
					 : "no answer; the program "
					   "gave up and closed it",
		      f);
		if (dur >= 0) {
			fputs(" after ", f);
			put_secs(f, dur);
		}
	} else if (is(o, "unreachable")) {
		fprintf(f, "no route to the network (%s)", str(n, "errno") ? str(n, "errno") : "?");
		if (is(facts->net_mode, "none"))
			fputs("; the recording ran with --net=none", f);
	} else if (is(o, "no_such_socket")) {
		fprintf(f, "%s does not exist: is the service running?", sq(n, "path"));
	} else if (is(o, "denied")) {
		fputs("denied by a firewall rule or a sandbox", f);
	} else {
		put_outcome(f, n, o);
	}
	json_object_set(r, "attempt", n);
}

static void explain_bind(FILE *f, json_t *r, const struct xp_finding *x)
{
	json_t *n = x->net;
	const char *o = str(n, "outcome");

	if (is(o, "address_in_use"))
		fputs("another socket already holds the address (EADDRINUSE)", f);
	else if (is(o, "denied") && num(n, "port", 0) > 0 && num(n, "port", 0) < 1024)
		fputs("ports below 1024 need CAP_NET_BIND_SERVICE (or a lower "
		      "net.ipv4.ip_unprivileged_port_start)",
		      f);
	else
		put_outcome(f, n, o);
	json_object_set_new(r, "what", json_string(o != NULL ? o : "failed"));
	json_object_set(r, "attempt", n);
}

static void explain_dns(FILE *f, json_t *r, const struct xp_finding *x)
{
	json_t *n = x->net;
	const char *o = str(n, "outcome");

	if (is(o, "nxdomain"))
		fputs("the name does not exist (NXDOMAIN)", f);
	else if (is(o, "servfail"))
		fputs("the server failed to answer (SERVFAIL)", f);
	else if (is(o, "timed_out"))
		fputs("no answer", f);
	else if (is(o, "no_answer"))
		fprintf(f, "the name has no %s record", str(n, "qtype") ? str(n, "qtype") : "such");
	else if (is(o, "refused"))
		fputs("the server refused the query (REFUSED)", f);
	else
		fprintf(f, "%s", str(n, "rcode") ? str(n, "rcode") : o ? o : "failed");
	fputs(" from ", f);
	put_target(f, n); /* the server */
	if (is(o, "timed_out") && num(n, "dur_ns", -1) >= 0) {
		fputs(" within ", f);
		put_secs(f, num(n, "dur_ns", 0));
	}
	json_object_set_new(r, "what", json_string(o != NULL ? o : "failed"));
	json_object_set(r, "lookup", n);
}

/* ---- the sentence ---- */

static void put_subject(FILE *f, const struct xp_finding *x, const struct xp_proc *p)
{
	if (p != NULL)
		fprintf(f, "%s (pid %d)", p->label, (int)x->pid);
	else
		fprintf(f, "pid %d", (int)x->pid);
	switch ((int)x->kind) {
	case XP_CONNECT:
		fputs(" could not connect to ", f);
		put_target(f, x->net);
		break;
	case XP_BIND:
		fprintf(f, " could not %s on ",
			repro_sysent_find(x->syscall) != NULL &&
					repro_sysent_find(x->syscall)->net == REPRO_NET_LISTEN
				? "listen"
				: "bind");
		put_target(f, x->net);
		break;
	case XP_DNS:
		fprintf(f, " could not resolve %s (%s)",
			str(x->net, "name") ? str(x->net, "name") : "?",
			str(x->net, "qtype") ? str(x->net, "qtype") : "?");
		break;
	case XP_OTHER: fprintf(f, ": %s failed with %s", x->syscall, x->errname); break;
	default: fprintf(f, " could not %s %s: %s", xp_op_word(x->op), x->path, x->errname); break;
	}
}

static void put_ending(FILE *f, const struct xp_finding *x, const struct xp_proc *p)
{
	if (x->count > 1 && !x->path_search)
		fprintf(f, " (%zu times)", x->count);
	if (p == NULL || !p->has_exit)
		return;
	fputs("; ", f);
	if (p->end_ns >= 0 && x->t_ns >= 0 && p->end_ns >= x->t_ns) {
		put_secs(f, p->end_ns - x->t_ns);
		fputs(" later ", f);
	} else {
		fputs("then ", f);
	}
	if (p->exit_signal != NULL)
		fprintf(f, "it was killed by %s", p->exit_signal);
	else
		fprintf(f, "it exited with status %d", p->exit_code);
}

/*
 * A call that a seccomp filter other than repro's failed (events.jsonl
 * "denied_by_filter"): the program's own, when a traced process installed
 * one, else an outer one (a container runtime's profile).  The call never
 * ran, so no file or mode explains it.
 */
static void explain_filtered(FILE *f, json_t *r, const struct xp_finding *x,
			     const struct xp_facts *facts)
{
	if (x->kind == XP_OTHER)
		fputs(" — ", f); /* put_subject ended with "failed with E…" */
	fprintf(f, "%s was refused by a seccomp filter, not by the kernel: the call never ran",
		x->syscall);
	if (facts->filter_seq != 0)
		fprintf(f, " (pid %d installed the filter, event %llu)", (int)facts->filter_pid,
			(unsigned long long)facts->filter_seq);
	else
		fputs(" (a filter that was in place before the run: a container's or a service "
		      "manager's seccomp profile)",
		      f);
	/* clone3: the clone whose flags are in a struct clone_args */
	if (repro_sysent_find(x->syscall) != NULL &&
	    repro_sysent_find(x->syscall)->args[0].kind == RA_CLONE3 && is(x->errname, "EPERM"))
		fputs("; glibc creates threads with clone3 and falls back to clone only on ENOSYS, "
		      "so a profile that answers EPERM breaks pthread_create",
		      f);
	reason_set(r, "seccomp_filter", x->path, NULL);
	if (facts->filter_seq != 0)
		json_object_set_new(r, "filter_event", json_integer((json_int_t)facts->filter_seq));
}

/* The text of fault rule n (from 1) in the manifest's injections, or NULL. */
/* The manifest's injections element of rule n, or NULL: linear in the rules. */
static json_t *rule_of(const struct xp_facts *facts, int n)
{
	size_t i;
	json_t *e;

	json_array_foreach (facts->injections, i, e)
		if (bndl_json_int(e, "rule", 0) == n)
			return e;
	return NULL;
}

static const char *rule_text(const struct xp_facts *facts, int n)
{
	return bndl_json_str(rule_of(facts, n), "text");
}

/* A failure a fault rule imposed (repro record --inject): named as such, not explained away. */
static void explain_injected(FILE *f, json_t *r, const struct xp_finding *x,
			     const struct xp_facts *facts)
{
	const char *text = rule_text(facts, x->inject_rule);
	int64_t origin = bndl_json_int(rule_of(facts, x->inject_rule), "origin", 0);

	if (x->kind == XP_OTHER)
		fputs(" — ", f); /* put_subject ended with "failed with E…" */
	if (origin > 0) /* repro replay */
		fprintf(f, "imposed again from the recording (its event %" PRId64 ") by rule %d",
			origin, x->inject_rule);
	else if (x->inject_rule > 0)
		fprintf(f, "injected by rule %d", x->inject_rule);
	else
		fputs("injected by a fault rule", f);
	if (text != NULL)
		fprintf(f, " (%s)", text);
	if (x->kind != XP_DNS)
		fputs(", not the system's answer: the call never ran", f);
	else if (x->errname != NULL && strcmp(x->errname, "timed_out") == 0)
		fputs(", not the system's answer: the query was never sent", f);
	else
		fputs(", not the system's answer: the server's reply was rewritten", f);
	reason_set(r, "injected", x->path, NULL);
	if (x->inject_rule > 0)
		json_object_set_new(r, "rule", json_integer(x->inject_rule));
	if (text != NULL)
		json_object_set_new(r, "rule_text", json_string(text));
	if (origin > 0)
		json_object_set_new(r, "origin", json_integer((json_int_t)origin));
}

/* A failed call without a path: a reason for those the bundle can explain, else none. */
static void explain_other(FILE *f, json_t *r, const struct xp_finding *x, const struct xp_proc *p,
			  const struct xp_facts *facts)
{
	struct who w = who_of_proc(facts->host, p);

	if (sets_times(x->syscall) && x->fd >= 0 &&
	    (is(x->errname, "EPERM") || is(x->errname, "EACCES")))
		explain_fd_times(f, r, x, &w);
}

void xp_reason_build(struct xp_finding *x, const struct xp_proc *p, const struct xp_facts *facts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	x->reason = json_object();
	if (f == NULL)
		return;
	if (x->kind == XP_SAID) {
		xp_said_explain(f, x->reason, x, p);
		if (fclose(f) == 0)
			x->sentence = buf;
		else
			free(buf);
		return;
	}
	if (x->kind == XP_WAIT) {
		xp_wait_explain(f, x->reason, x, p, facts->proc_of, facts->proc_ctx);
		put_ending(f, x, p);
		if (fclose(f) == 0)
			x->sentence = buf;
		else
			free(buf);
		return;
	}
	put_subject(f, x, p);
	if (x->kind != XP_OTHER)
		fputs(" — ", f);
	if (x->injected) {
		explain_injected(f, x->reason, x, facts);
	} else if (x->filter_denied) {
		explain_filtered(f, x->reason, x, facts);
	} else {
		switch (x->kind) {
		case XP_FILE:
		case XP_EXEC: explain_file(f, x->reason, x, p, facts); break;
		case XP_CONNECT: explain_connect(f, x->reason, x, p, facts); break;
		case XP_BIND: explain_bind(f, x->reason, x); break;
		case XP_DNS: explain_dns(f, x->reason, x); break;
		case XP_OTHER: explain_other(f, x->reason, x, p, facts); break;
		case XP_WAIT:
		case XP_SAID: break;
		}
	}
	put_ending(f, x, p);
	if (fclose(f) == 0)
		x->sentence = buf;
	else
		free(buf);
}

void xp_facts_keep_file(struct xp_facts *facts, const char *path, json_t *rec)
{
	char *text = bndl_json_text(rec, JSON_COMPACT);

	if (text != NULL)
		json_object_set_new(facts->files, path, json_string(text));
	free(text);
}

/* The record of path, parsed back from its text when it is still text. */
static void ready_one(struct xp_facts *facts, const char *path)
{
	json_t *v = json_object_get(facts->files, path);

	if (json_is_string(v))
		json_object_set_new(facts->files, path, json_loads(json_string_value(v), 0, NULL));
}

void xp_facts_ready(struct xp_facts *facts, const struct xp_finding *f)
{
	size_t n;
	char dir[XP_PATH_MAX + 1];

	if (f->path == NULL || facts->files == NULL)
		return;
	ready_one(facts, f->path);
	n = xp_parent_len(f->path);
	if (n == 0 || n > XP_PATH_MAX)
		return;
	memcpy(dir, f->path, n);
	dir[n] = '\0';
	ready_one(facts, dir);
}
