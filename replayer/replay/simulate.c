/* `repro replay --simulate`: a bundle's facts checked against this host (replayer/replay/replay.h). */
#include "replayer/replay/replay.h"
#include "bundles/members.h"
#include "common/sysent.h"
#include "bundles/json_util.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/content_hash.h"
#include "common/xalloc.h"
#include "replayer/readers/explain.h"
#include "replayer/readers/normalize.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files hashed here to compare with the recorded hash: at most this big (bytes). */
#define HASH_MAX (64ull << 20)
#define HASH_BUF (256u * 1024u)
/* --probe-network: how long a connect may take here (ms). */
#define PROBE_MS 1000

/* How much a difference matters, most first (the order of the report). */
enum rank { R_EXISTENCE, R_TYPE, R_ACCESS, R_CONTENT, R_NAME, R_NETWORK };

struct sim {
	const struct rpl_replay_opts *o;
	const char *cwd, *home; /* the recording's (borrowed from facts) */
	json_t *out; /* the differences, each with its "rank" */
	char *buf; /* borrowed: HASH_BUF bytes for hashing */
	json_t *seen; /* names and destinations already checked */
	bool probe;
	json_t *host; /* borrowed: the recording's host.json (its user), or NULL */
};

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void differ(struct sim *s, enum rank r, const char *kind, const char *target,
		   const char *what, const char *recorded, const char *here)
{
	json_array_append_new(s->out, json_pack("{s:i,s:s,s:s,s:s,s:s,s:s}", "rank", (int)r, "kind",
						kind, "target", target, "what", what, "recorded",
						recorded, "here", here));
}

/*
 * A recorded path as it is named here: --map prefixes, then the
 * recording's cwd as the replay's and its HOME as this one; NULL when its
 * name is made anew each run (a random temporary name, /proc/PID), so that
 * no path here stands for it.  A new string.
 */
static char *path_here(const struct sim *s, const char *path)
{
	struct rpl_norm plain = { 0 }, n = { .nmaps = s->o->nmaps };
	const char *base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	cleanup_free char *fake = repro_xasprintf("/tmp/%s", base), *norm = NULL, *mapped = NULL;
	const char *p = path, *cwd_here = s->o->cwd_here != NULL ? s->o->cwd_here : s->cwd;
	size_t k;

	norm = rpl_norm_path(&plain, fake);
	if (strstr(norm, "XXXXXX") != NULL || strstr(path, "/proc/") == path)
		return NULL; /* a temporary name the run made, a pid: nothing here stands for it */
	for (size_t i = 0; i < s->o->nmaps && i < RPL_NORM_MAX_MAPS; i++) {
		n.map_from[i] = s->o->map_from[i];
		n.map_to[i] = s->o->map_to[i];
	}
	if ((mapped = rpl_norm_map(&n, path)) != NULL)
		return steal_ptr(&mapped);
	k = strlen(s->cwd);
	if (strncmp(p, s->cwd, k) == 0 && (p[k] == '/' || p[k] == '\0') && strcmp(s->cwd, "/") != 0)
		return repro_xasprintf("%s%s", cwd_here, p + k);
	k = s->home != NULL ? strlen(s->home) : 0;
	if (k > 1 && s->o->home_here != NULL && strncmp(p, s->home, k) == 0 &&
	    (p[k] == '/' || p[k] == '\0'))
		return repro_xasprintf("%s%s", s->o->home_here, p + k);
	return repro_xstrdup(path);
}

static const char *type_of(mode_t m)
{
	return S_ISREG(m)    ? "file"
	       : S_ISDIR(m)  ? "dir"
	       : S_ISLNK(m)  ? "symlink"
	       : S_ISCHR(m)  ? "char"
	       : S_ISBLK(m)  ? "block"
	       : S_ISFIFO(m) ? "fifo"
			     : "socket";
}

/* The recorded state of a path before the run touched it: "before" for the write set, else "meta". */
static json_t *recorded_state(json_t *obj, bool *changed)
{
	*changed = json_object_get(obj, "before") != NULL;
	return json_object_get(obj, *changed ? "before" : "meta");
}

/*
 * The size and content here of a regular file against the recorded: its
 * XXH3 compared when the recording has one, unless the recorder's rule
 * withholds this file's hash (repro_hash_withheld(): its name, mode and
 * size here), when it is not read at all and said not compared.
 */
static void compare_content(struct sim *s, const char *target, const char *here, json_t *rec,
			    const struct stat *st)
{
	const char *hash = str(rec, "hash"), *why;
	char a[64], b[64];
	uint64_t h = 0;
	int fd;

	if ((json_int_t)st->st_size != json_integer_value(json_object_get(rec, "size"))) {
		snprintf(a, sizeof(a), "%lld bytes",
			 (long long)json_integer_value(json_object_get(rec, "size")));
		snprintf(b, sizeof(b), "%lld bytes", (long long)st->st_size);
		differ(s, R_CONTENT, "path", target, "another size", a, b);
		return;
	}
	if (hash == NULL || strncmp(hash, "xxh3:", 5) != 0 || (uint64_t)st->st_size > HASH_MAX)
		return;
	if ((why = repro_hash_withheld(here, strlen(here), st->st_mode, (uint64_t)st->st_size)) !=
	    NULL) { /* the recorder's rule: no hash of this file here, not even compared */
		snprintf(b, sizeof(b), "hash withheld (%s)", why);
		differ(s, R_CONTENT, "path", target, "content not compared", "hashed", b);
		json_object_set_new(json_array_get(s->out, json_array_size(s->out) - 1),
				    "hash_withheld", json_string(why));
		return;
	}
	if ((fd = open(here, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
		return;
	if (repro_hash_fd(fd, HASH_MAX, s->buf, HASH_BUF, &h) == 0 &&
	    strtoull(hash + 5, NULL, 16) != h) {
		snprintf(b, sizeof(b), "xxh3:%016llx", (unsigned long long)h);
		differ(s, R_CONTENT, "path", target, "another content", hash, b);
	}
	close(fd);
}

/* Mode (as files.jsonl writes it, "0644", "01777") and owner of a path here against the recorded. */
static void compare_access(struct sim *s, const char *here, json_t *rec, const struct stat *st)
{
	const char *mode = str(rec, "mode");
	char a[64], b[64];

	snprintf(b, sizeof(b), "0%03o", (unsigned)(st->st_mode & 07777));
	if (mode != NULL && strtoul(mode, NULL, 8) != (unsigned long)(st->st_mode & 07777))
		differ(s, R_ACCESS, "path", here, "another mode", mode, b);
	if (json_object_get(rec, "uid") != NULL &&
	    (json_integer_value(json_object_get(rec, "uid")) != (json_int_t)st->st_uid ||
	     json_integer_value(json_object_get(rec, "gid")) != (json_int_t)st->st_gid)) {
		snprintf(a, sizeof(a), "%lld:%lld",
			 (long long)json_integer_value(json_object_get(rec, "uid")),
			 (long long)json_integer_value(json_object_get(rec, "gid")));
		snprintf(b, sizeof(b), "%d:%d", (int)st->st_uid, (int)st->st_gid);
		differ(s, R_ACCESS, "path", here, "another owner", a, b);
	}
}

/*
 * The directories on the way to a path whose last call failed (files.jsonl
 * "ancestors"): each missing here or there, or with another mode or
 * owner, which decides a search or a create.  Each directory once.
 */
static void compare_ancestors(struct sim *s, json_t *ancestors)
{
	size_t i;
	json_t *a;

	json_array_foreach (ancestors, i, a) {
		const char *path = str(a, "path");
		json_t *meta = json_object_get(a, "meta");
		cleanup_free char *here = NULL, *key = NULL;
		struct stat st;

		if (path == NULL ||
		    (!s->o->include_system && rpl_explain_system_path(path) != NULL) ||
		    (here = path_here(s, path)) == NULL)
			continue;
		key = repro_xasprintf("dir:%s", here);
		if (json_object_get(s->seen, key) != NULL)
			continue;
		json_object_set_new(s->seen, key, json_true());
		if (lstat(here, &st) < 0) {
			if (!json_is_null(meta))
				differ(s, R_EXISTENCE, "path", here, "missing here", "dir",
				       "missing");
		} else if (json_is_null(meta)) {
			differ(s, R_EXISTENCE, "path", here, "exists here", "missing",
			       type_of(st.st_mode));
		} else {
			compare_access(s, here, meta, &st);
		}
	}
}

/* Whether the recorded user may search directory st here. */
static bool may_search(const struct sim *s, const struct stat *st)
{
	char mode[8];
	json_t *meta;
	bool ok;

	snprintf(mode, sizeof(mode), "0%03o", (unsigned)(st->st_mode & 07777));
	meta = json_pack("{s:s,s:s,s:I,s:I}", "type", "dir", "mode", mode, "uid",
			 (json_int_t)st->st_uid, "gid", (json_int_t)st->st_gid);
	ok = rpl_explain_may(s->host, meta, 1);
	json_decref(meta);
	return ok;
}

/*
 * The directories on the way to here (a path the recording reached) that
 * the recorded user could not search on this host: its ids and
 * capabilities against each one's mode and owner, as explain judges a
 * path walk (rpl_explain_may()).  Each directory once; linear in the
 * path's length.
 */
static void check_walk(struct sim *s, const char *here)
{
	cleanup_free char *dir = repro_xstrdup(here);
	char *slash;

	if (s->host == NULL)
		return;
	for (slash = strchr(dir + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
		cleanup_free char *key = NULL;
		char b[96];
		struct stat st;

		*slash = '\0';
		key = repro_xasprintf("walk:%s", dir);
		if (json_object_get(s->seen, key) == NULL) {
			json_object_set_new(s->seen, key, json_true());
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && !may_search(s, &st)) {
				snprintf(b, sizeof(b), "0%03o %d:%d, no search for uid %lld",
					 (unsigned)(st.st_mode & 07777), (int)st.st_uid,
					 (int)st.st_gid,
					 (long long)json_integer_value(
						 json_object_get(s->host, "uid")));
				differ(s, R_ACCESS, "path", dir,
				       "not searchable by the recorded user", "searchable", b);
			}
		}
		*slash = '/';
	}
}

/* One files.jsonl object against the path here. */
static int on_file(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct sim *s = ctx;
	const char *path = str(obj, "path");
	cleanup_free char *here = NULL;
	bool changed;
	json_t *rec;
	struct stat st;
	bool exists;

	(void)lineno;
	(void)err;
	if (path == NULL || path[0] != '/' ||
	    (!s->o->include_system && rpl_explain_system_path(path) != NULL) ||
	    (here = path_here(s, path)) == NULL)
		return 0;
	rec = recorded_state(obj, &changed);
	exists = lstat(here, &st) == 0;
	if (!exists && errno == EACCES) { /* this user cannot reach it: which directory says why */
		size_t before = json_array_size(s->out);

		check_walk(s, here);
		if (json_array_size(s->out) == before)
			differ(s, R_ACCESS, "path", here, "not reachable here", "reached",
			       "permission denied on the way");
		return 0;
	}
	if (json_is_null(rec) || rec == NULL) {
		if (exists && (rec != NULL || str(obj, "errno") != NULL))
			differ(s, R_EXISTENCE, "path", here, "exists here", "missing",
			       type_of(st.st_mode));
		return 0;
	}
	if (!exists) {
		differ(s, R_EXISTENCE, "path", here, "missing here",
		       str(rec, "type") ? str(rec, "type") : "present", "missing");
		return 0;
	}
	if (str(rec, "type") != NULL && strcmp(str(rec, "type"), type_of(st.st_mode)) != 0) {
		differ(s, R_TYPE, "path", here, "another type", str(rec, "type"),
		       type_of(st.st_mode));
		return 0;
	}
	compare_access(s, here, rec, &st);
	if (S_ISREG(st.st_mode) && json_object_get(rec, "size") != NULL)
		compare_content(s, here, here, rec, &st);
	compare_ancestors(s, json_object_get(obj, "ancestors"));
	if ((str(obj, "first") != NULL && strcmp(str(obj, "first"), "ok") == 0) ||
	    (str(obj, "last") != NULL &&
	     strcmp(str(obj, "last"), "ok") == 0)) /* the recording reached it */
		check_walk(s, here);
	return 0;
}

/* What resolving name here gives: "answered A,B", "nxdomain", "failed: …". */
static char *resolve_here(const char *name)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	int rc = getaddrinfo(name, NULL, &hints, &res);
	char *out;

	if (rc == EAI_NONAME)
		return repro_xstrdup("nxdomain");
	if (rc != 0)
		return repro_xasprintf("failed (%s)", gai_strerror(rc));
	out = repro_xstrdup("answered");
	freeaddrinfo(res);
	return out;
}

static void check_name(struct sim *s, json_t *obj)
{
	const char *name = str(obj, "name"), *outcome = str(obj, "outcome");
	cleanup_free char *key = NULL, *here = NULL;
	const char *rec;

	if (name == NULL || outcome == NULL)
		return;
	key = repro_xasprintf("dns:%s", name);
	if (json_object_get(s->seen, key) != NULL)
		return;
	json_object_set_new(s->seen, key, json_true());
	rec = strcmp(outcome, "answered") == 0 || strcmp(outcome, "no_answer") == 0 ? "answered"
										    : outcome;
	here = resolve_here(name);
	if (strcmp(rec, here) != 0 &&
	    !(strncmp(here, "failed", 6) == 0 &&
	      (strcmp(rec, "timed_out") == 0 || strcmp(rec, "servfail") == 0)))
		differ(s, R_NAME, "dns", name, "resolves otherwise", rec, here);
}

/* A TCP connect to ip:port here, at most PROBE_MS: "connected", "refused", "timed_out" … */
static const char *probe(const char *family, const char *ip, int port)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port) };
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	bool v6 = family != NULL && strcmp(family, "AF_INET6") == 0;
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int e = 0, rc;
	socklen_t len = sizeof(e);

	if (fd < 0 || inet_pton(v6 ? AF_INET6 : AF_INET, ip,
				v6 ? (void *)&in6.sin6_addr : (void *)&in.sin_addr) != 1) {
		if (fd >= 0)
			close(fd);
		return "not probed";
	}
	rc = connect(fd, v6 ? (struct sockaddr *)&in6 : (struct sockaddr *)&in,
		     v6 ? sizeof(in6) : sizeof(in));
	if (rc < 0 && errno == EINPROGRESS) {
		rc = poll(&p, 1, PROBE_MS);
		if (rc == 0) {
			close(fd);
			return "timed_out";
		}
		(void)getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len);
	} else if (rc < 0) {
		e = errno;
	}
	close(fd);
	return e == 0 ? "connected" : e == ECONNREFUSED ? "refused" : "unreachable";
}

static void check_destination(struct sim *s, json_t *obj)
{
	const char *ip = str(obj, "ip"), *outcome = str(obj, "outcome");
	json_int_t port = json_integer_value(json_object_get(obj, "port"));
	cleanup_free char *key = NULL;
	const char *here, *rec;

	if (ip == NULL || outcome == NULL || port <= 0 || port > 65535 || port == 53 ||
	    repro_sysent_find(str(obj, "syscall")) == NULL ||
	    repro_sysent_find(str(obj, "syscall"))->net != REPRO_NET_CONNECT ||
	    strcmp(str(obj, "type") ? str(obj, "type") : "", "SOCK_STREAM") != 0)
		return;
	key = repro_xasprintf("%s:%lld", ip, (long long)port);
	if (json_object_get(s->seen, key) != NULL)
		return;
	json_object_set_new(s->seen, key, json_true());
	rec = strcmp(outcome, "abandoned") == 0 ? "timed_out" : outcome;
	here = probe(str(obj, "family"), ip, (int)port);
	if (strcmp(rec, here) != 0 && strcmp(here, "not probed") != 0)
		differ(s, R_NETWORK, "network", key, "answers otherwise", rec, here);
}

static int on_net(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct sim *s = ctx;
	const char *kind = str(obj, "kind");

	(void)lineno;
	(void)err;
	if (kind != NULL && strcmp(kind, "dns") == 0)
		check_name(s, obj);
	else if (kind != NULL && strcmp(kind, "attempt") == 0 && s->probe)
		check_destination(s, obj);
	return 0;
}

static int by_rank(const void *a, const void *b)
{
	json_int_t ra = json_integer_value(json_object_get(*(json_t *const *)a, "rank"));
	json_int_t rb = json_integer_value(json_object_get(*(json_t *const *)b, "rank"));

	return ra < rb ? -1 : ra > rb;
}

/* The differences ranked, most important first (a stable sort keeps the bundle's order); takes arr. */
static json_t *ranked(json_t *arr)
{
	size_t n = json_array_size(arr), i;
	json_t **v = repro_xcalloc(n + 1, sizeof(*v)), *e, *out = json_array();

	json_array_foreach (arr, i, e)
		v[i] = e;
	for (size_t a = 1; a < n; a++) /* insertion sort: stable; the ranks are few */
		for (size_t b = a; b > 0 && by_rank(&v[b - 1], &v[b]) > 0; b--) {
			json_t *t = v[b];

			v[b] = v[b - 1];
			v[b - 1] = t;
		}
	for (i = 0; i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	json_decref(arr);
	return out;
}

int rpl_replay_simulate(const char *bundle, const struct rpl_replay_opts *o, bool probe_network,
			json_t **out, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = bndl_reader_open_limited(bundle, o->limits, err);
	cleanup_json json_t *found = json_array(), *seen = json_object(), *host = NULL;
	cleanup_free char *buf = repro_xmalloc(HASH_BUF);
	struct sim s = { .o = o, .out = found, .seen = seen, .probe = probe_network, .buf = buf };
	json_t *m;

	*out = NULL;
	if (r == NULL)
		return -1;
	m = bndl_reader_manifest(r);
	s.cwd = str(m, "cwd") != NULL ? str(m, "cwd") : "/";
	if (bndl_reader_load_opt(r, BNDL_HOST_JSON, &host, err) < 0 ||
	    bndl_reader_check_command(r, err) < 0)
		return -1;
	s.home = str(json_object_get(host, "environment"), "HOME");
	s.host = json_is_integer(json_object_get(host, "uid")) ? host : NULL;
	if (bndl_reader_foreach_opt(r, BNDL_FILES_JSONL, on_file, &s, err) < 0 ||
	    bndl_reader_foreach_opt(r, BNDL_NETWORK_JSONL, on_net, &s, err) < 0 ||
	    bndl_reader_finish(r, err) < 0) /* a member twice, one missing: as every reader */
		return -1;
	*out = ranked(steal_ptr(&found)); /* takes the array */
	return 0;
}
