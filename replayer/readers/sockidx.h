#ifndef REPRO_REPLAYER_SOCKIDX_H
#define REPRO_REPLAYER_SOCKIDX_H

/*
 * The connects of network.jsonl by (pid, fd), so that a wait of
 * waits.jsonl on a socket can be told what that socket was: whom it
 * connected to, in what protocol, how its data phase went
 * (docs/bundle-format.md "network.jsonl", "waits.jsonl").  Shared by
 * `repro explain` and `repro show`, which read network.jsonl before
 * waits.jsonl.  Memory: one small object per connect, at most
 * RPL_SOCKIDX_MAX of them.
 */

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Most connects kept; later ones are not joined to waits. */
#define RPL_SOCKIDX_MAX 65536u

struct repro_strmap;

/* Zero-initialised: not initialised (by_fd NULL). */
struct rpl_sockidx {
	/* owned: "PID/FD", exact (common/map.h), -> the index in conns; NULL before init */
	struct repro_strmap *by_fd;
	json_t **conns; /* owned: per index, an array of compact connects in the file's order */
	size_t n; /* connects kept */
};

/* rpl_sockidx_init - an empty index, for rpl_sockidx_release(). */
void rpl_sockidx_init(struct rpl_sockidx *idx);
void rpl_sockidx_release(struct rpl_sockidx *idx);

/*
 * rpl_sockidx_add - learn network.jsonl record n (borrowed) when it is a
 * connect: its address, outcome, timing and data phase are copied.
 * Returns the bytes kept (an estimate, for a memory budget), 0 when n is
 * not kept.  O(size of n).
 */
size_t rpl_sockidx_add(struct rpl_sockidx *idx, json_t *n);

/*
 * rpl_sockidx_find - the connect of socket fd of pid that a wait starting
 * at t_ns (ns since the start) was on: the last one made before it (1 ms
 * of slack: a wait's start may be the connect's own stop).  Borrowed, or
 * NULL.  One lookup, then linear in the connects of that (pid, fd).
 */
json_t *rpl_sockidx_find(const struct rpl_sockidx *idx, int64_t pid, int64_t fd, int64_t t_ns);

/*
 * rpl_sockidx_join - set "socket" in waits.jsonl record w (modified) to the
 * connect its first fd was on, when there is one (see rpl_sockidx_find).
 */
void rpl_sockidx_join(const struct rpl_sockidx *idx, json_t *w);

#endif
