#ifndef REPRO_REPLAYER_WAIT_TEXT_H
#define REPRO_REPLAYER_WAIT_TEXT_H

/*
 * Words for a waits.jsonl record (docs/bundle-format.md), shared by
 * `repro explain` and `repro show`.  A record may carry "socket": the
 * network.jsonl connect its first fd was on (rpl_sockidx_join()), which
 * names the peer of a socket still connecting, the protocol, and how the
 * connection ended.  Strings from the bundle are written as they are:
 * callers print the result through the terminal sanitiser.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * rpl_put_addr - "127.0.0.1:80", "[::1]:80", "/run/x.sock", "@name" of a
 * sockaddr object (events.jsonl "addr", the address keys of a
 * network.jsonl line) into f; false, writing nothing, when it has none.
 */
bool rpl_put_addr(FILE *f, json_t *a);

/* rpl_wait_put_secs - "12 s", "3.0 s", "0.042 s" for ns nanoseconds. */
void rpl_wait_put_secs(FILE *f, int64_t ns);

/*
 * How a caller names the traced processes: label(ctx, pid) is the program
 * of pid ("sleep 30", from processes.jsonl), borrowed until the next call,
 * or NULL when it is not known.
 */
struct rpl_wait_names {
	const char *(*label)(void *ctx, int64_t pid);
	void *ctx;
};

/*
 * rpl_wait_put_on - what wait record w waited on: "in connect to 10.0.0.1:443",
 * "for a reply from 127.0.0.1:8080 (HTTP over TCP, connected in 0.2 ms; recvfrom)",
 * "for the connection to 10.0.0.1:443 to complete (TCP; poll)",
 * "in wait4 for its child pid 12",
 * "for data on a pipe from pid 4242 (sleep 30) (read)" …; names (NULL: pids
 * only) labels the processes holding a pipe's other end.  Cost: linear in
 * the record's fds and holders (at most 2 and 4 each), plus the labels.
 */
void rpl_wait_put_on(FILE *f, json_t *w, const struct rpl_wait_names *names);

/*
 * rpl_wait_put_end - how w ended, after a comma: ", then the peer closed
 * the connection without sending anything", ", then the peer closed the
 * connection (recvfrom returned 0)", ", then SIGINT interrupted it" …;
 * nothing when the record does not say.
 */
void rpl_wait_put_end(FILE *f, json_t *w);

#endif
