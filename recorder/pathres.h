#ifndef REPRO_RECORDER_PATHRES_H
#define REPRO_RECORDER_PATHRES_H

/*
 * Canonical paths at the time of a call (docs/bundle-format.md, "Paths"):
 * the directory part of a path argument resolved for real against the
 * tracee's cwd or dirfd (`..` and symlinks in directory components as the
 * kernel follows them), /proc/self, /dev/fd/N, /dev/stdin and
 * /proc/PID/{fd/N,cwd,root} replaced by what they name; the last component
 * kept as written (a final symlink is not followed) unless it is such a
 * magic link and the call follows it.
 *
 * Hot path: a cache maps the directory part as written (an absolute string)
 * to its canonical form, so a call whose directory was seen before costs a
 * hash and a compare, no syscall.  A miss costs openat2(2) + readlink(2) +
 * close(2) of an O_PATH descriptor; a walk through a missing directory one
 * more openat2 per missing component.  The cache is emptied by
 * rec_pathcache_clear() after a call that may change what an existing
 * directory path names (rename, unlink, rmdir, mount ...).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rec_pathcache_entry;
struct repro_strmap;

/*
 * Directory (as written, absolute) -> canonical directory: the directories
 * in the one exact string map (common/map.h: a collision would give
 * another directory's canonical form), their canonical forms at the same
 * index.
 */
struct rec_pathcache {
	struct repro_strmap *dirs; /* owned; NULL before the first insert */
	struct rec_pathcache_entry *canon; /* owned: by the index of dirs */
	pid_t self_pid; /* the recorder's own pid: a walk that met /proc/self went astray */
	uint64_t hits, misses; /* lookups answered by the cache, and not (for tests) */
};

/* rec_pathcache_init - an empty cache; no allocation until the first insert. */
void rec_pathcache_init(struct rec_pathcache *pc);

/* rec_pathcache_clear - forget every entry (keeps the counters); linear in the entries. */
void rec_pathcache_clear(struct rec_pathcache *pc);

void rec_pathcache_release(struct rec_pathcache *pc);

/* One path argument of a call, as the recorder sees it at the entry stop. */
struct rec_path_req {
	pid_t tid, pid; /* the calling thread and its thread group */
	int dirfd; /* AT_FDCWD or the dirfd argument */
	const char *raw; /* borrowed: the path as the program passed it */
	bool is_nofollow; /* the call does not follow a final symlink (lstat, O_NOFOLLOW, unlink …) */
	uint64_t resolve; /* openat2(2) RESOLVE_* flags; RESOLVE_IN_ROOT changes what '/' means */
};

/*
 * rec_path_canonical - write the canonical form of rq->raw into out (cap
 * bytes, NUL-terminated).  pc may be NULL (no cache).  Returns the length,
 * or -1 when the base directory (cwd or dirfd of rq->tid) could not be read
 * or the result does not fit.  A path whose walk fails partway keeps its
 * longest existing prefix resolved and the rest folded lexically (`.` and
 * `..` removed).  Linear in the length of the path, plus the syscalls named
 * above on a cache miss.
 */
ssize_t rec_path_canonical(struct rec_pathcache *pc, const struct rec_path_req *rq, char *out,
			   size_t cap);

/*
 * rec_path_fold - fold path (absolute, NUL-terminated) lexically in place:
 * repeated '/' and `.` removed, `..` removes the component before it (not
 * above "/"), no trailing '/'.  Returns the new length.  Linear.
 */
size_t rec_path_fold(char *path);

#endif
