/* A sweep's fault points and the faults on each (replayer/sweep/sweep.h, docs/sweep.md "Faults"). */
#include "replayer/sweep/sweep.h"
#include "bundles/members.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/sysent.h"
#include "common/xalloc.h"
#include "replayer/readers/explain.h"
#include "replayer/readers/normalize.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What a path point was used for (files.jsonl "ops"). */
enum {
	USE_STAT = 1u << 0,
	USE_READ = 1u << 1,
	USE_WRITE = 1u << 2,
	USE_CREATE = 1u << 3,
	USE_EXEC = 1u << 4,
	USE_CHDIR = 1u << 5, /* a directory the program worked in (redis's dir ./data) */
};

/* A file larger than this at the end has a fault after its first block (ENOSPC-after-4KiB). */
#define FIRST_BLOCK 4096
/* Most created files one folder's create-in fault lists (one rule each). */
#define CREATED_MAX 32
/* A connection that received more than this has a reset after it. */
#define RESET_AFTER 1024

/* Which rows of common/sysent.c a template's rule names. */
enum calls_sel {
	SEL_FILE, /* %file: every call that takes a path */
	SEL_OPEN_ENTER, /* the opens and chdir: reading a file, entering a directory */
	SEL_READ_BYTES, /* reading a file's bytes (read, readv, pread64 …) */
	SEL_NAMES, /* the calls that open, create, rename or delete a name */
	SEL_WRITE_BYTES, /* writing a file's bytes (write, writev, pwrite64 …) */
	SEL_CREATE_WRITE, /* the opens, the calls that create a name, and the writes */
	SEL_EXEC,
	SEL_CREATE_NAME, /* the calls that make a new name: opens, mkdir, mknod, link, rename into … */
	SEL_RECEIVE, /* the calls a download reads with: read, readv, recvfrom, recvmsg */
};

/* Whether row s is in the set sel; a file's bytes are those of calls that are not a socket's. */
static bool sel_has(enum calls_sel sel, const struct repro_sysent *s)
{
	bool file_bytes = s->bytes != REPRO_BYTES_NONE && !(s->classes & REPRO_SYS_NETWORK);
	bool writes = file_bytes && (s->flags & REPRO_SYSF_BYTES_OUT);

	switch (sel) {
	case SEL_FILE: return false; /* a class, named as one */
	case SEL_OPEN_ENTER: /* creat never reads */
		return (s->op == REPRO_OP_OPEN && repro_sysent_fixed_oflags(s) == 0) ||
		       s->op == REPRO_OP_CHDIR;
	case SEL_READ_BYTES: return file_bytes && !(s->flags & REPRO_SYSF_BYTES_OUT);
	case SEL_NAMES:
		return s->op == REPRO_OP_OPEN || s->op == REPRO_OP_CREATE ||
		       s->op == REPRO_OP_MKDIR || s->op == REPRO_OP_RENAME ||
		       s->op == REPRO_OP_DELETE;
	case SEL_WRITE_BYTES: return writes;
	case SEL_CREATE_WRITE:
		return s->op == REPRO_OP_OPEN || s->op == REPRO_OP_CREATE ||
		       s->op == REPRO_OP_MKDIR || writes;
	case SEL_EXEC: return s->op == REPRO_OP_EXEC;
	case SEL_CREATE_NAME:
		return s->op == REPRO_OP_OPEN || s->op == REPRO_OP_CREATE ||
		       s->op == REPRO_OP_MKDIR || s->op == REPRO_OP_RENAME ||
		       s->op == REPRO_OP_LINK;
	case SEL_RECEIVE:
		return s->bytes != REPRO_BYTES_NONE && !(s->flags & REPRO_SYSF_BYTES_OUT) &&
		       s->wait == REPRO_WAIT_READ;
	}
	return false;
}

/* The syscall set of a rule for sel ("openat,chdir…" or "%file"). Caller frees.  Linear in the table. */
static char *sel_text(enum calls_sel sel)
{
	size_t n, len = 0;
	const struct repro_sysent *t = repro_sysent_all(&n);
	char *out;

	if (sel == SEL_FILE)
		return repro_xstrdup("%file");
	for (size_t i = 0; i < n; i++)
		if (sel_has(sel, &t[i]))
			len += strlen(t[i].name) + 1;
	out = repro_xcalloc(len + 1, 1);
	for (size_t i = 0; i < n; i++) {
		if (!sel_has(sel, &t[i]))
			continue;
		if (out[0] != '\0')
			strcat(out, ",");
		strcat(out, t[i].name);
	}
	return out;
}

/* One fault template: which uses it applies to, its name, the rule's calls and action. */
struct tmpl {
	unsigned uses; /* any of these (USE_*), for paths */
	enum swp_area area;
	const char *fault; /* name in --faults and in the id */
	const char *verb; /* the id's middle word: "read", "write", "exec", "connect", "dns" */
	enum calls_sel calls; /* the rule's syscall set */
	const char *action; /* the rule's action keys, before its filter */
	int errnum;
};

/*
 * The faults of docs/sweep.md.  ENOENT takes every file call (the file is
 * gone for all of them); EACCES on reading, the opens; EIO, the reads.
 */
static const struct tmpl path_faults[] = {
	{ USE_READ | USE_STAT | USE_CHDIR, SWP_FILE, "ENOENT", "read", SEL_FILE, "error=ENOENT",
	  ENOENT },
	{ USE_READ | USE_CHDIR, SWP_FILE, "EACCES", "read", SEL_OPEN_ENTER, "error=EACCES",
	  EACCES },
	{ USE_READ, SWP_FILE, "EIO", "read", SEL_READ_BYTES, "error=EIO", EIO },
	{ USE_WRITE | USE_CREATE, SWP_FILE, "EACCES", "write", SEL_NAMES, "error=EACCES", EACCES },
	{ USE_WRITE, SWP_FILE, "ENOSPC", "write", SEL_WRITE_BYTES, "error=ENOSPC", ENOSPC },
	/* a file the run created: the disk is full when it creates it, or writes to it */
	{ USE_CREATE, SWP_FILE, "ENOSPC", "create", SEL_CREATE_WRITE, "error=ENOSPC", ENOSPC },
	{ USE_WRITE | USE_CREATE, SWP_FILE, "EROFS", "write", SEL_NAMES, "error=EROFS", EROFS },
	{ USE_WRITE, SWP_FILE, "ENOSPC-after-4KiB", "write", SEL_WRITE_BYTES,
	  "error=ENOSPC:after=4096", ENOSPC },
	{ USE_EXEC, SWP_EXEC, "EACCES", "exec", SEL_EXEC, "error=EACCES", EACCES },
	{ USE_EXEC, SWP_EXEC, "ENOENT", "exec", SEL_EXEC, "error=ENOENT", ENOENT },
};

/* Every fault name --faults accepts. */
static const char *const fault_names[] = { "ENOENT",	       "EACCES",     "EIO",
					   "ENOSPC",	       "EROFS",	     "ENOSPC-after-4KiB",
					   "ECONNREFUSED",     "ETIMEDOUT",  "blackhole",
					   "reset-after-1KiB", "EADDRINUSE", "NXDOMAIN",
					   "TIMEOUT" };

struct plan_state {
	const struct swp_plan_opts *o;
	struct swp_plan *p;
	size_t cap;
	json_t *seen; /* points already planned: "ip:port", "dns:name" -> true */
	json_t *parents; /* directories the run created files in -> [their paths] */
	json_t *pids; /* the working run's pids ("4242" -> true) */
	json_t *after; /* overlay.jsonl: path -> {"type","size"} at the end of the working run */
};

static bool fault_wanted(const struct plan_state *s, const char *fault, enum swp_area area)
{
	if (s->o->areas != 0 && !(s->o->areas & area))
		return false;
	if (s->o->faults == NULL)
		return true;
	for (const char *const *f = s->o->faults; *f != NULL; f++)
		if (strcmp(*f, fault) == 0)
			return true;
	return false;
}

static void add_fault(struct plan_state *s, enum swp_area area, const char *fault, char *id,
		      char *rule, const char *target, const char *host, int errnum)
{
	struct swp_plan *p = s->p;

	if (p->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		p->v = repro_xrealloc(p->v, s->cap * sizeof(*p->v));
	}
	p->v[p->n++] = (struct swp_fault){ .id = id,
					   .rule = rule,
					   .target = repro_xstrdup(target),
					   .host = host != NULL ? repro_xstrdup(host) : NULL,
					   .fault = repro_xstrdup(fault),
					   .area = area,
					   .errnum = errnum };
}

/* A path as a rule's path= glob: glob characters escaped (fnmatch(3)). */
static char *path_glob(const char *path)
{
	char *out = repro_xmalloc(2 * strlen(path) + 1), *q = out;

	for (const char *c = path; *c != '\0'; c++) {
		if (strchr("*?[]\\", *c) != NULL)
			*q++ = '\\';
		*q++ = *c;
	}
	*q = '\0';
	return out;
}

static unsigned uses_of(json_t *ops)
{
	static const struct {
		const char *op;
		unsigned use;
	} map[] = { { "stat", USE_STAT },   { "read", USE_READ },     { "readlink", USE_STAT },
		    { "write", USE_WRITE }, { "create", USE_CREATE }, { "exec", USE_EXEC },
		    { "chdir", USE_CHDIR } };
	unsigned uses = 0;
	size_t i;
	json_t *op;

	json_array_foreach (ops, i, op)
		for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
			if (json_is_string(op) && strcmp(json_string_value(op), map[k].op) == 0)
				uses |= map[k].use;
	return uses;
}

/*
 * Whether a template applies to a path used as uses says, of this type
 * (NULL: gone at the end).  EIO is for regular files; a file the run
 * created gets ENOSPC on its creation and writes, one it only wrote to on
 * its writes; ENOSPC-after-4KiB is for a file written to that ended larger
 * than 4 KiB (its size at the end of the working run, from the overlay's
 * listing when the run wrote it there).
 */
static bool tmpl_applies(const struct tmpl *t, unsigned uses, const char *type, json_int_t size)
{
	bool is_file = type != NULL && strcmp(type, "file") == 0;

	if (!(t->uses & uses))
		return false;
	if (strcmp(t->fault, "EIO") == 0 && !is_file)
		return false;
	if (strcmp(t->fault, "ENOSPC-after-4KiB") == 0 && (!is_file || size <= FIRST_BLOCK))
		return false;
	if (strcmp(t->fault, "ENOSPC") == 0 && strcmp(t->verb, "write") == 0 && (uses & USE_CREATE))
		return false;
	return true;
}

/*
 * Whether the name of a path the run created changes from run to run, so
 * that a rule for it never fires in another: its last component a random
 * temporary name (as repro diff sees one: NAME.XXXXXX, tmpXXXXXXXX) or
 * holding one of the working run's pids (temp-rewriteaof-23034.aof).
 * O(path length).
 */
static bool unstable_name(const struct plan_state *s, const char *path)
{
	const char *base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	cleanup_free char *fake = repro_xasprintf("/tmp/%s", base);
	struct rpl_norm n = { 0 };
	cleanup_free char *norm = rpl_norm_path(&n, fake);

	if (strstr(norm, "XXXXXX") != NULL && strstr(base, "XXXXXX") == NULL)
		return true;
	for (const char *c = base; *c != '\0'; c++) {
		char digits[16];
		size_t k = 0;

		if (*c < '0' || *c > '9' || (c > base && c[-1] >= '0' && c[-1] <= '9'))
			continue;
		while (c[k] >= '0' && c[k] <= '9' && k < sizeof(digits) - 1) {
			digits[k] = c[k];
			k++;
		}
		digits[k] = '\0';
		if (k >= 3 && json_object_get(s->pids, digits) != NULL)
			return true;
	}
	return false;
}

/* Whether a files.jsonl object is a point: a path of the program's that a call used. */
static bool is_point(struct plan_state *s, const char *path, unsigned uses, const char *first,
		     const char *last, const char *type)
{
	bool used_ok = (first != NULL && strcmp(first, "ok") == 0) ||
		       (last != NULL && strcmp(last, "ok") == 0) ||
		       (uses & (USE_WRITE | USE_CREATE)); /* a journal created and removed */

	if (path == NULL || path[0] != '/' || uses == 0 || !used_ok)
		return false;
	if (type != NULL && strcmp(type, "file") != 0 && strcmp(type, "dir") != 0 &&
	    strcmp(type, "symlink") != 0)
		return false; /* devices, fifos, sockets: not a file a program depends on */
	if (!s->o->include_system && rpl_explain_system_path(path) != NULL)
		return false;
	if (type != NULL && strcmp(type, "dir") == 0 &&
	    !(uses & (USE_READ | USE_CREATE | USE_CHDIR)))
		return false; /* the working directory and its parents, looked at on the way */
	if ((uses & USE_CREATE) && unstable_name(s, path)) {
		s->p->nunstable++;
		return false;
	}
	if (strpbrk(path, ":\n\\") != NULL) {
		s->p->nskipped++; /* a rule's keys are ':'-separated; '\\' is an escape in a bundle */
		return false;
	}
	return true;
}

/* A file the run created: its folder's point lists it (at most CREATED_MAX per folder). */
static void note_created(struct plan_state *s, const char *path)
{
	cleanup_free char *dir = repro_xstrdup(path);
	char *slash = strrchr(dir, '/');
	json_t *list;

	if (slash == NULL || slash == dir)
		return;
	*slash = '\0';
	if ((list = json_object_get(s->parents, dir)) == NULL) {
		list = json_array();
		json_object_set_new(s->parents, dir, list);
	}
	if (json_array_size(list) < CREATED_MAX)
		json_array_append_new(list, json_string(path));
}

/* One files.jsonl object: a path some call used successfully is a point. */
static int on_file(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct plan_state *s = ctx;
	const char *path = json_string_value(json_object_get(obj, "path"));
	json_t *meta = json_object_get(obj, "meta");
	json_t *after = path != NULL ? json_object_get(s->after, path) : NULL;
	const char *type = json_string_value(json_object_get(after ? after : meta, "type"));
	json_int_t size = json_integer_value(json_object_get(after ? after : meta, "size"));
	unsigned uses = uses_of(json_object_get(obj, "ops"));
	bool any = false;
	cleanup_free char *glob = NULL;

	(void)lineno;
	(void)err;
	if (!is_point(s, path, uses, json_string_value(json_object_get(obj, "first")),
		      json_string_value(json_object_get(obj, "last")), type))
		return 0;
	glob = path_glob(path);
	for (size_t i = 0; i < sizeof(path_faults) / sizeof(path_faults[0]); i++) {
		const struct tmpl *t = &path_faults[i];

		cleanup_free char *calls = NULL;

		if (!tmpl_applies(t, uses, type, size) || !fault_wanted(s, t->fault, t->area))
			continue;
		calls = sel_text(t->calls);
		add_fault(s, t->area, t->fault,
			  repro_xasprintf("%s %s %s", t->fault, t->verb, path),
			  repro_xasprintf("%s:%s:path=%s", calls, t->action, glob), path, NULL,
			  t->errnum);
		any = true;
	}
	if (any)
		s->p->npoints++;
	if (uses & USE_CREATE) /* its folder may be read-only on another machine */
		note_created(s, path);
	return 0;
}

/*
 * A folder the run created files in: EACCES on creating each of them (a
 * folder owned by root), one rule per file, so that reading what is
 * already there still works.
 */
static void plan_parents(struct plan_state *s)
{
	cleanup_free char *calls = sel_text(SEL_CREATE_NAME);
	const char *dir;
	json_t *list;

	json_object_foreach (s->parents, dir, list) {
		char *rules = NULL;
		size_t len = 0, i;
		FILE *f;
		json_t *c;

		if (!fault_wanted(s, "EACCES", SWP_FILE) || strpbrk(dir, ":\n\\") != NULL ||
		    (!s->o->include_system && rpl_explain_system_path(dir) != NULL) ||
		    (f = open_memstream(&rules, &len)) == NULL)
			continue;
		json_array_foreach (list, i, c) {
			cleanup_free char *glob = path_glob(json_string_value(c));

			fprintf(f, "%s%s:error=EACCES:path=%s", i > 0 ? "\n" : "", calls, glob);
		}
		fclose(f);
		add_fault(s, SWP_FILE, "EACCES", repro_xasprintf("EACCES create-in %s", dir), rules,
			  dir, NULL, EACCES);
		s->p->npoints++;
	}
}

/* "IP:PORT", with brackets for IPv6 (the rules' addr= syntax). */
static char *addr_text(const char *family, const char *ip, json_int_t port)
{
	bool v6 = family != NULL && strcmp(family, "AF_INET6") == 0;

	return repro_xasprintf(v6 ? "[%s]:%lld" : "%s:%lld", ip, (long long)port);
}

static void plan_connect(struct plan_state *s, json_t *obj)
{
	const char *ip = json_string_value(json_object_get(obj, "ip"));
	const char *name = json_string_value(json_object_get(obj, "name"));
	const char *source = json_string_value(json_object_get(obj, "name_source"));
	json_int_t port = json_integer_value(json_object_get(obj, "port"));
	json_int_t received = json_integer_value(json_object_get(obj, "received"));
	cleanup_free char *addr = NULL, *receive = sel_text(SEL_RECEIVE);
	bool any = false;
	struct {
		const char *fault, *action;
		int errnum;
	} faults[] = {
		{ "ECONNREFUSED", "error=ECONNREFUSED", ECONNREFUSED },
		{ "ETIMEDOUT", NULL, ETIMEDOUT },
		{ "blackhole", "blackhole", 0 },
		{ "reset-after-1KiB", "error=ECONNRESET:after=1024", ECONNRESET },
	};

	if (ip == NULL || port <= 0 || port == 53)
		return;
	addr = addr_text(json_string_value(json_object_get(obj, "family")), ip, port);
	if (json_object_get(s->seen, addr) != NULL)
		return;
	json_object_set_new(s->seen, addr, json_true());
	if (source != NULL && strcmp(source, "dns") != 0 && strcmp(source, "hosts") != 0)
		name = NULL;
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		char *rule;

		if (!fault_wanted(s, faults[i].fault, SWP_NETWORK))
			continue;
		if (i == 3 && received <= RESET_AFTER)
			continue; /* nothing to cut */
		if (i == 1)
			rule = repro_xasprintf(
				"connect:error=ETIMEDOUT:delay=%llums:type=stream:addr=%s",
				(unsigned long long)(s->o->connect_delay_ns / 1000000), addr);
		else if (i == 3)
			rule = repro_xasprintf("%s:%s:addr=%s", receive, faults[i].action, addr);
		else
			rule = repro_xasprintf("connect:%s:type=stream:addr=%s", faults[i].action,
					       addr);
		add_fault(s, SWP_NETWORK, faults[i].fault,
			  repro_xasprintf("%s connect %s%s%s%s", faults[i].fault, addr,
					  name ? " (" : "", name ? name : "", name ? ")" : ""),
			  rule, addr, name, faults[i].errnum);
		any = true;
	}
	if (any)
		s->p->npoints++;
}

static void plan_dns(struct plan_state *s, json_t *obj)
{
	const char *name = json_string_value(json_object_get(obj, "name"));
	const char *outcome = json_string_value(json_object_get(obj, "outcome"));
	cleanup_free char *key = NULL;
	static const char *const faults[] = { "NXDOMAIN", "TIMEOUT" };
	bool any = false;

	if (name == NULL || outcome == NULL || strcmp(outcome, "answered") != 0 ||
	    strpbrk(name, ":*?[\\") != NULL)
		return;
	key = repro_xasprintf("dns:%s", name);
	if (json_object_get(s->seen, key) != NULL)
		return;
	json_object_set_new(s->seen, key, json_true());
	for (size_t i = 0; i < 2; i++) {
		if (!fault_wanted(s, faults[i], SWP_DNS))
			continue;
		add_fault(s, SWP_DNS, faults[i], repro_xasprintf("%s dns %s", faults[i], name),
			  repro_xasprintf("dns:error=%s:host=%s", faults[i], name), name, NULL, 0);
		any = true;
	}
	if (any)
		s->p->npoints++;
}

/* A port the run bound: another program may hold it here (EADDRINUSE), or it may be privileged. */
static void plan_bind(struct plan_state *s, json_t *obj)
{
	json_int_t port = json_integer_value(json_object_get(obj, "port"));
	const char *type = json_string_value(json_object_get(obj, "type"));
	const char *ip = json_string_value(json_object_get(obj, "ip"));
	cleanup_free char *key = NULL;
	bool dgram = type != NULL && strcmp(type, "SOCK_DGRAM") == 0;
	bool any = false;

	if (port <= 0 || ip == NULL)
		return; /* port 0: the kernel picks one, nothing another program can hold */
	key = repro_xasprintf("bind:%s:%lld", dgram ? "udp" : "tcp", (long long)port);
	if (json_object_get(s->seen, key) != NULL)
		return;
	json_object_set_new(s->seen, key, json_true());
	if (s->p->listens == NULL)
		s->p->listens = repro_xasprintf("%s port %lld", ip, (long long)port);
	if (fault_wanted(s, "EADDRINUSE", SWP_NETWORK)) {
		add_fault(s, SWP_NETWORK, "EADDRINUSE",
			  repro_xasprintf("EADDRINUSE bind %s port %lld", dgram ? "udp" : "tcp",
					  (long long)port),
			  repro_xasprintf("bind:error=EADDRINUSE:type=%s:port=%lld",
					  dgram ? "dgram" : "stream", (long long)port),
			  ip, NULL, EADDRINUSE);
		any = true;
	}
	if (port < 1024 && fault_wanted(s, "EACCES", SWP_NETWORK)) { /* run without the privilege */
		add_fault(s, SWP_NETWORK, "EACCES",
			  repro_xasprintf("EACCES bind %s port %lld", dgram ? "udp" : "tcp",
					  (long long)port),
			  repro_xasprintf("bind:error=EACCES:type=%s:port=%lld",
					  dgram ? "dgram" : "stream", (long long)port),
			  ip, NULL, EACCES);
		any = true;
	}
	if (any)
		s->p->npoints++;
}

/* One network.jsonl record: a TCP destination connected to, a port bound, a name answered. */
static int on_net(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct plan_state *s = ctx;
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const struct repro_sysent *sc =
		repro_sysent_find(json_string_value(json_object_get(obj, "syscall")));
	const char *outcome = json_string_value(json_object_get(obj, "outcome"));
	const char *type = json_string_value(json_object_get(obj, "type"));

	(void)lineno;
	(void)err;
	if (kind != NULL && strcmp(kind, "dns") == 0)
		plan_dns(s, obj);
	else if (kind != NULL && strcmp(kind, "attempt") == 0 && sc != NULL &&
		 sc->net == REPRO_NET_BIND && outcome != NULL && strcmp(outcome, "bound") == 0)
		plan_bind(s, obj);
	else if (kind != NULL && strcmp(kind, "attempt") == 0 && sc != NULL &&
		 sc->net == REPRO_NET_CONNECT && outcome != NULL &&
		 strcmp(outcome, "connected") == 0 && type != NULL &&
		 strcmp(type, "SOCK_STREAM") == 0)
		plan_connect(s, obj);
	return 0;
}

/* One overlay.jsonl line: what the working run left at a path (its host view is the one before). */
static int on_overlay(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct plan_state *s = ctx;
	const char *path = json_string_value(json_object_get(obj, "path"));

	(void)lineno;
	(void)err;
	if (path != NULL && json_is_string(json_object_get(obj, "type")))
		json_object_set_new(
			s->after, path,
			json_pack("{s:O,s:O}", "type", json_object_get(obj, "type"), "size",
				  json_object_get(obj, "size") ? json_object_get(obj, "size")
							       : json_integer(0)));
	return 0;
}

/* One processes.jsonl object: its pid, so that names made of it are known as such. */
static int on_process(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct plan_state *s = ctx;
	char pid[24];

	(void)lineno;
	(void)err;
	snprintf(pid, sizeof(pid), "%lld",
		 (long long)json_integer_value(json_object_get(obj, "pid")));
	json_object_set_new(s->pids, pid, json_true());
	return 0;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct swp_fault *)a)->id, ((const struct swp_fault *)b)->id);
}

/* The faults --faults names must all exist. */
static int check_fault_names(const struct swp_plan_opts *o, struct repro_err **err)
{
	for (const char *const *f = o->faults; f != NULL && *f != NULL; f++) {
		bool known = false;

		for (size_t i = 0; i < sizeof(fault_names) / sizeof(fault_names[0]); i++)
			known = known || strcmp(*f, fault_names[i]) == 0;
		if (!known)
			return repro_err_set(
				err, EINVAL,
				"sweep --faults: unknown fault '%s' (known: ENOENT, "
				"EACCES, EIO, ENOSPC, EROFS, ENOSPC-after-4KiB, "
				"ECONNREFUSED, ETIMEDOUT, blackhole, reset-after-1KiB, "
				"EADDRINUSE, NXDOMAIN, TIMEOUT)",
				*f);
	}
	return 0;
}

/* Read bundle's points into s (its plan); what swp_plan_read() returns but for the release. */
static int plan_points(struct plan_state *s, const char *bundle, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = NULL;

	if (check_fault_names(s->o, err) < 0 || (r = bndl_reader_open(bundle, err)) == NULL ||
	    bndl_reader_foreach(r, BNDL_PROCESSES_JSONL, on_process, s, err) < 0 ||
	    bndl_reader_foreach_opt(r, BNDL_OVERLAY_JSONL, on_overlay, s, err) < 0 ||
	    bndl_reader_foreach_opt(r, BNDL_FILES_JSONL, on_file, s, err) < 0 ||
	    bndl_reader_foreach_opt(r, BNDL_NETWORK_JSONL, on_net, s, err) < 0 ||
	    bndl_reader_finish(r, err) < 0) /* a member twice, one missing: as every reader */
		return -1;
	plan_parents(s);
	qsort(s->p->v, s->p->n, sizeof(*s->p->v), by_id);
	return 0;
}

int swp_plan_read(const char *bundle, const struct swp_plan_opts *o, struct swp_plan *out,
		  struct repro_err **err)
{
	struct plan_state s = { .o = o,
				.p = out,
				.seen = json_object(),
				.parents = json_object(),
				.pids = json_object(),
				.after = json_object() };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = plan_points(&s, bundle, err);
	json_decref(s.seen);
	json_decref(s.parents);
	json_decref(s.pids);
	json_decref(s.after);
	if (rc < 0)
		swp_plan_release(out);
	return rc;
}

static void fault_release(struct swp_fault *f)
{
	free(f->id);
	free(f->rule);
	free(f->target);
	free(f->host);
	free(f->fault);
}

void swp_plan_release(struct swp_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		fault_release(&p->v[i]);
	free(p->v);
	free(p->listens);
	memset(p, 0, sizeof(*p));
}

void swp_plan_shard(struct swp_plan *p, unsigned k, unsigned n)
{
	size_t kept = 0;

	if (n <= 1)
		return;
	for (size_t i = 0; i < p->n; i++) {
		if (i % n + 1 == k)
			p->v[kept++] = p->v[i];
		else
			fault_release(&p->v[i]);
	}
	p->n = kept;
}

struct outside_state {
	json_t *dirs; /* the overlaid directories (manifest "overlay.paths") */
	size_t n;
	char *first; /* owned */
};

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0' || n == 1);
}

/* A path of the write set (files.jsonl "before") outside every overlaid directory. */
static int on_written(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct outside_state *s = ctx;
	const char *path = json_string_value(json_object_get(obj, "path"));
	size_t i;
	json_t *d;

	(void)lineno;
	(void)err;
	if (path == NULL || json_object_get(obj, "before") == NULL || under(path, "/dev") ||
	    under(path, "/proc") || under(path, "/sys"))
		return 0;
	json_array_foreach (s->dirs, i, d)
		if (json_is_string(d) && under(path, json_string_value(d)))
			return 0;
	if (s->n++ == 0)
		s->first = repro_xstrdup(path);
	return 0;
}

size_t swp_outside_writes(const char *bundle, char **first, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = bndl_reader_open(bundle, err);
	struct outside_state s = { 0 };

	*first = NULL;
	if (r == NULL)
		return (size_t)-1;
	s.dirs = json_object_get(json_object_get(bndl_reader_manifest(r), "overlay"), "paths");
	if (bndl_reader_foreach_opt(r, BNDL_FILES_JSONL, on_written, &s, err) < 0) {
		free(s.first);
		return (size_t)-1;
	}
	*first = s.first;
	return s.n;
}
