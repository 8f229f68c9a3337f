/* Canonical paths at the time of a call (recorder/pathres.h). */
#include "recorder/pathres.h"
#include "common/map.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Entries kept before the cache starts over (a run that names more directories pays misses). */
#define CACHE_MAX 16384u
/* Magic links followed at the start of one path (a /proc/PID/fd/N naming /proc/PID2/cwd …). */
#define MAGIC_MAX 8

struct rec_pathcache_entry {
	char *dir; /* owned: the canonical directory, NUL-terminated */
	size_t len;
};

void rec_pathcache_init(struct rec_pathcache *pc)
{
	*pc = (struct rec_pathcache){ .self_pid = getpid() };
}

void rec_pathcache_clear(struct rec_pathcache *pc)
{
	if (pc->dirs == NULL)
		return;
	for (size_t i = 0; i < repro_strmap_count(pc->dirs); i++)
		free(pc->canon[i].dir);
	repro_strmap_clear(pc->dirs);
}

void rec_pathcache_release(struct rec_pathcache *pc)
{
	rec_pathcache_clear(pc);
	repro_strmap_free(pc->dirs);
	free(pc->canon);
	pc->dirs = NULL;
	pc->canon = NULL;
}

/* The canonical form of key, borrowed until the next insert or clear; NULL when absent.  O(len). */
static const struct rec_pathcache_entry *cache_find(const struct rec_pathcache *pc, const char *key,
						    size_t len)
{
	size_t i;

	if (pc->dirs == NULL || !repro_strmap_get(pc->dirs, key, len, &i))
		return NULL;
	return &pc->canon[i];
}

/* Remember val (vlen bytes) as the canonical form of key (klen bytes, not there yet). */
static void cache_insert(struct rec_pathcache *pc, const char *key, size_t klen, const char *val,
			 size_t vlen)
{
	size_t i;

	if (pc->dirs == NULL)
		pc->dirs = repro_strmap_new();
	if (repro_strmap_count(pc->dirs) >= CACHE_MAX)
		rec_pathcache_clear(pc);
	i = repro_strmap_count(pc->dirs);
	pc->canon = repro_xgrow(pc->canon, i, sizeof(*pc->canon));
	pc->canon[i] =
		(struct rec_pathcache_entry){ .dir = repro_xstrndup(val, vlen), .len = vlen };
	repro_strmap_put(pc->dirs, key, klen, NULL);
}

/*
 * The next component of path from *r on: skips the '/' before it, leaves
 * *r at its start and returns its length (0 at the end).
 */
static size_t next_component(const char *path, size_t *r)
{
	size_t n;

	while (path[*r] == '/')
		(*r)++;
	for (n = 0; path[*r + n] != '\0' && path[*r + n] != '/'; n++)
		;
	return n;
}

size_t rec_path_fold(char *path)
{
	size_t w = 0, r = 0;

	while (path[r] != '\0') {
		size_t n = next_component(path, &r);

		if (n == 0 || (n == 1 && path[r] == '.')) {
			r += n;
			continue;
		}
		if (n == 2 && path[r] == '.' && path[r + 1] == '.') {
			while (w > 0 && path[w - 1] != '/')
				w--;
			if (w > 0)
				w--; /* the '/' before the dropped component */
			r += n;
			continue;
		}
		path[w++] = '/';
		memmove(path + w, path + r, n);
		w += n;
		r += n;
	}
	if (w == 0)
		path[w++] = '/';
	path[w] = '\0';
	return w;
}

/*
 * Squeeze repeated '/' and drop `.` components: what the kernel's walk
 * does with them does not depend on the file system.  `..` stays.
 * Returns the new length.  Linear.
 */
static size_t light_fold(char *path)
{
	size_t w = 0, r = 0;
	bool abs = path[0] == '/';

	while (path[r] != '\0') {
		size_t n = next_component(path, &r);

		if (n == 0 || (n == 1 && path[r] == '.')) {
			r += n;
			continue;
		}
		if (w > 0 || abs)
			path[w++] = '/';
		memmove(path + w, path + r, n);
		w += n;
		r += n;
	}
	if (w == 0 && abs)
		path[w++] = '/';
	path[w] = '\0';
	return w;
}

/* readlink(2) of link into out (cap bytes, NUL-terminated); the length, or -1. */
static ssize_t read_link(const char *link, char *out, size_t cap)
{
	ssize_t n = readlink(link, out, cap - 1);

	if (n <= 0)
		return -1;
	out[n] = '\0';
	return n;
}

/* A target that names a path: absolute, and not a deleted file ("/x (deleted)"). */
static bool is_path_target(const char *t, size_t n)
{
	static const char deleted[] = " (deleted)";

	return n > 0 && t[0] == '/' &&
	       !(n >= sizeof(deleted) - 1 && strcmp(t + n - (sizeof(deleted) - 1), deleted) == 0);
}

/* Whether p starts with the component(s) word, followed by '/' or the end; *rest past it. */
static bool starts_with(const char *p, const char *word, const char **rest)
{
	size_t n = strlen(word);

	if (strncmp(p, word, n) != 0 || (p[n] != '/' && p[n] != '\0'))
		return false;
	*rest = p + n;
	return true;
}

/* The length of "/proc/N[/task/T]/(fd/M|cwd|root|exe)" at the start of p, or 0. */
static size_t proc_link_len(const char *p)
{
	const char *s = p + 6; /* past "/proc/" */
	size_t d;

	if (strncmp(p, "/proc/", 6) != 0)
		return 0;
	for (d = 0; s[d] >= '0' && s[d] <= '9'; d++)
		;
	if (d == 0 || s[d] != '/')
		return 0;
	s += d + 1;
	if (strncmp(s, "task/", 5) == 0) {
		for (d = 0; s[5 + d] >= '0' && s[5 + d] <= '9'; d++)
			;
		if (d == 0 || s[5 + d] != '/')
			return 0;
		s += 5 + d + 1;
	}
	if (strncmp(s, "fd/", 3) == 0) {
		for (d = 0; s[3 + d] >= '0' && s[3 + d] <= '9'; d++)
			;
		s += d > 0 ? 3 + d : 0;
		if (d == 0)
			return 0;
	} else if (strncmp(s, "cwd", 3) == 0 || strncmp(s, "exe", 3) == 0) {
		s += 3;
	} else if (strncmp(s, "root", 4) == 0) {
		s += 4;
	} else {
		return 0;
	}
	return *s == '/' || *s == '\0' ? (size_t)(s - p) : 0;
}

/*
 * Replace the magic links at the start of path (absolute, in buf of cap
 * bytes) by what they name for the tracee: /proc/self and
 * /proc/thread-self by its pid and tid; /dev/fd, /dev/stdin, /dev/stdout,
 * /dev/stderr and /proc/PID/{fd/N,cwd,root,exe} by the target of the link,
 * when that is a path.  A final component is replaced only when the call
 * follows it.  Returns the new length.
 */
static size_t replace_magic(char *buf, size_t len, size_t cap, const struct rec_path_req *rq)
{
	static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	char tmp[PATH_MAX * 2], target[PATH_MAX];
	const char *rest;
	bool follow_final = !rq->is_nofollow;

	for (int round = 0; round < MAGIC_MAX; round++) {
		const char *head = NULL;
		char fd_head[64];
		size_t link_len;
		ssize_t n;

		for (size_t i = 0; i < 3 && head == NULL; i++) {
			if (starts_with(buf, std[i], &rest) && (*rest || follow_final)) {
				snprintf(fd_head, sizeof(fd_head), "/proc/%d/fd/%zu", (int)rq->pid,
					 i);
				head = fd_head;
			}
		}
		if (head == NULL && starts_with(buf, "/dev/fd", &rest) && (*rest || follow_final)) {
			snprintf(fd_head, sizeof(fd_head), "/proc/%d/fd", (int)rq->pid);
			head = fd_head;
		}
		if (head == NULL && starts_with(buf, "/proc/self", &rest) &&
		    (*rest || follow_final)) {
			snprintf(fd_head, sizeof(fd_head), "/proc/%d", (int)rq->pid);
			head = fd_head;
		}
		if (head == NULL && starts_with(buf, "/proc/thread-self", &rest) &&
		    (*rest || follow_final)) {
			snprintf(fd_head, sizeof(fd_head), "/proc/%d/task/%d", (int)rq->pid,
				 (int)rq->tid);
			head = fd_head;
		}
		if (head != NULL) {
			bool via_dev = strncmp(buf, "/dev/", 5) == 0;

			if ((size_t)snprintf(tmp, sizeof(tmp), "%s%s", head, rest) >= sizeof(tmp))
				return len;
			link_len = proc_link_len(tmp);
			/* /dev/fd/N and /dev/std*: only when the descriptor names a path */
			if (via_dev && link_len == 0 && strcmp(tmp, fd_head) != 0)
				return len;
			if (via_dev) {
				char saved = tmp[link_len];

				tmp[link_len] = '\0';
				n = link_len > 0 ? read_link(tmp, target, sizeof(target)) : -1;
				tmp[link_len] = saved;
				if (n < 0 || !is_path_target(target, (size_t)n))
					return len;
			}
			if (strlen(tmp) >= cap)
				return len;
			len = (size_t)snprintf(buf, cap, "%s", tmp);
			continue;
		}
		link_len = proc_link_len(buf);
		if (link_len == 0 || (buf[link_len] == '\0' && !follow_final))
			return len;
		if (strncmp(buf + link_len - 3, "exe", 3) == 0 && buf[link_len] != '\0')
			return len; /* exe is a file: nothing below it */
		memcpy(tmp, buf, link_len);
		tmp[link_len] = '\0';
		n = read_link(tmp, target, sizeof(target));
		if (n < 0 || !is_path_target(target, (size_t)n))
			return len;
		if ((size_t)n + strlen(buf + link_len) >= cap)
			return len;
		memmove(buf + n, buf + link_len, strlen(buf + link_len) + 1);
		memcpy(buf, target, (size_t)n);
		len = strlen(buf);
	}
	return len;
}

/* Whether canon (from a walk in the recorder) went through the recorder's own /proc/self. */
static bool is_own_proc(const struct rec_pathcache *pc, const char *canon)
{
	char own[32];
	const char *rest;

	if (pc == NULL)
		return false;
	snprintf(own, sizeof(own), "/proc/%d", (int)pc->self_pid);
	return starts_with(canon, own, &rest);
}

/*
 * The canonical form of directory dir (absolute, dlen bytes, no trailing
 * '/') opened from base (AT_FDCWD for the recorder's root) with resolve,
 * into out (PATH_MAX bytes): the kernel's walk, then the name of what it
 * found.  Returns the length, or -1 when the walk failed.
 */
static ssize_t walk_dir(struct rec_pathcache *pc, int base, const char *dir, uint64_t resolve,
			char *out)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = resolve | RESOLVE_NO_MAGICLINKS,
	};
	char link[64];
	ssize_t n;
	int fd = (int)syscall(SYS_openat2, base, dir, &how, sizeof(how));

	if (fd < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = read_link(link, out, PATH_MAX);
	close(fd);
	if (n < 0 || !is_path_target(out, (size_t)n) || is_own_proc(pc, out))
		return -1;
	return n;
}

/* walk_dir() of an absolute dir from the recorder's root, through the cache. */
static ssize_t cached_dir(struct rec_pathcache *pc, const char *dir, size_t dlen, char *out)
{
	const struct rec_pathcache_entry *e = pc != NULL ? cache_find(pc, dir, dlen) : NULL;
	ssize_t n;

	if (dlen == 0) {
		out[0] = '/', out[1] = '\0';
		return 1;
	}
	if (e != NULL) {
		pc->hits++;
		memcpy(out, e->dir, e->len + 1);
		return (ssize_t)e->len;
	}
	if (pc != NULL)
		pc->misses++;
	n = walk_dir(pc, AT_FDCWD, dir, 0, out);
	if (n >= 0 && pc != NULL)
		cache_insert(pc, dir, dlen, out, (size_t)n);
	return n;
}

/*
 * The canonical directory of dir (absolute, NUL-terminated, no trailing
 * '/'): its longest prefix that a walk resolves, then the rest as written
 * (`.` and doubled '/' dropped, `..` kept).  Into out (PATH_MAX bytes); returns the length or -1.
 */
static ssize_t resolve_dir(struct rec_pathcache *pc, char *dir, size_t dlen, char *out)
{
	ssize_t n = cached_dir(pc, dir, dlen, out);
	size_t cut = dlen;

	while (n < 0 && cut > 0) {
		char saved;

		while (cut > 0 && dir[cut - 1] != '/')
			cut--;
		if (cut > 0)
			cut--; /* dir[cut] is the '/' before the component that failed */
		saved = dir[cut];
		dir[cut] = '\0';
		n = cached_dir(pc, dir, cut, out);
		dir[cut] = saved;
	}
	if (n < 0)
		return -1;
	if (cut < dlen) {
		if ((size_t)n + (dlen - cut) >= PATH_MAX)
			return -1;
		memcpy(out + n, dir + cut, dlen - cut);
		out[(size_t)n + (dlen - cut)] = '\0';
		/*
		 * The walk stops at the first component that is missing or not a
		 * directory: a `..` after it is never walked, so it stays as
		 * written (folding it would name a file the call never reached).
		 */
		n = (ssize_t)light_fold(out);
	}
	return n;
}

/* out = dir + "/" + last (dir "/" gives "/last"); last may be empty.  The length, or -1. */
static ssize_t join(const char *dir, size_t dlen, const char *last, char *out, size_t cap)
{
	int len;

	if (last[0] == '\0')
		len = snprintf(out, cap, "%.*s", (int)dlen, dir);
	else
		len = snprintf(out, cap, "%.*s/%s", dlen == 1 && dir[0] == '/' ? 0 : (int)dlen, dir,
			       last);
	return len < 0 || (size_t)len >= cap ? -1 : len;
}

/* Split path (light-folded, absolute or relative) at its last '/': *last, and the dir length. */
static size_t split_last(char *path, size_t len, const char **last)
{
	size_t k = len;

	while (k > 0 && path[k - 1] != '/')
		k--;
	*last = path + k;
	if (strcmp(*last, "..") == 0) {
		*last = "";
		return len; /* the whole path is a directory to resolve */
	}
	return k > 0 ? k - 1 : 0;
}

/* The base directory of a relative path (cwd or dirfd of the tracee) into out; -1 when unreadable. */
static ssize_t read_base(const struct rec_path_req *rq, char *out, size_t cap, char *link,
			 size_t link_cap)
{
	ssize_t n;

	if (rq->dirfd == AT_FDCWD)
		snprintf(link, link_cap, "/proc/%d/cwd", (int)rq->tid);
	else
		snprintf(link, link_cap, "/proc/%d/fd/%d", (int)rq->tid, rq->dirfd);
	n = read_link(link, out, cap);
	return n > 0 && out[0] == '/' ? n : -1;
}

/* openat2(2) RESOLVE_IN_ROOT: '/' and `..` stop at the dirfd, which is the root of the walk. */
static ssize_t canonical_in_root(struct rec_pathcache *pc, const struct rec_path_req *rq, char *out,
				 size_t cap)
{
	char link[64], root[PATH_MAX], rel[PATH_MAX + 2], dir[PATH_MAX];
	const char *last;
	size_t rlen, dlen;
	ssize_t blen = read_base(rq, root, sizeof(root), link, sizeof(link)), n = -1;
	int base;

	if (blen < 0 || snprintf(rel, sizeof(rel), "/%s", rq->raw) >= (int)sizeof(rel))
		return -1;
	rlen = light_fold(rel);
	dlen = split_last(rel, rlen, &last);
	if (dlen > 0 && (base = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		char saved = rel[dlen];

		rel[dlen] = '\0';
		n = walk_dir(pc, base, rel + 1, RESOLVE_IN_ROOT, dir);
		rel[dlen] = saved;
		close(base);
	}
	if (n < 0) {
		/* lexically, `..` stopping at the root */
		char lex[PATH_MAX + 2];

		snprintf(lex, sizeof(lex), "%.*s", (int)dlen, rel);
		rec_path_fold(lex);
		if (snprintf(dir, sizeof(dir), "%s%s", root, strcmp(lex, "/") == 0 ? "" : lex) >=
		    (int)sizeof(dir))
			return -1;
		n = (ssize_t)strlen(dir);
	}
	return join(dir, (size_t)n, last, out, cap);
}

ssize_t rec_path_canonical(struct rec_pathcache *pc, const struct rec_path_req *rq, char *out,
			   size_t cap)
{
	char path[PATH_MAX * 2], dir[PATH_MAX], link[64];
	const char *raw = rq->raw, *last;
	size_t len, dlen;
	ssize_t n;

	if ((rq->resolve & RESOLVE_IN_ROOT) && raw[0] != '\0')
		return canonical_in_root(pc, rq, out, cap);
	if (raw[0] == '/') {
		if (strlen(raw) >= sizeof(path))
			return -1;
		memcpy(path, raw, strlen(raw) + 1);
		len = strlen(path);
	} else {
		n = read_base(rq, path, PATH_MAX, link, sizeof(link));
		if (n < 0)
			return -1;
		/* the common case: a name in the base directory, which readlink gave canonical */
		if (strchr(raw, '/') == NULL && strcmp(raw, ".") != 0 && strcmp(raw, "..") != 0)
			return join(path, (size_t)n, raw, out, cap);
		if ((size_t)n + 1 + strlen(raw) >= sizeof(path))
			return -1;
		path[n] = '/';
		memcpy(path + n + 1, raw, strlen(raw) + 1);
		len = (size_t)n + 1 + strlen(raw);
	}
	len = light_fold(path);
	len = replace_magic(path, len, sizeof(path), rq);
	len = light_fold(path);
	dlen = split_last(path, len, &last);
	path[dlen] = '\0';
	n = resolve_dir(pc, path, dlen, dir);
	if (n < 0)
		return -1;
	return join(dir, (size_t)n, last, out, cap);
}
