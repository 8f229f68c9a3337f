#ifndef REPRO_RECORDER_SOCKS_H
#define REPRO_RECORDER_SOCKS_H

/*
 * The sockets the recorder watches while the program runs, by (pid, fd):
 * those connected or sending to port 53, whose payloads are kept so that
 * DNS queries and answers can be decoded at pack time; those with a
 * non-blocking connect in progress, whose close(2) is recorded; and every
 * other connected socket, whose data phase is counted (struct
 * rec_sockstat: bytes sent and received, the first byte's time, how it
 * ended) until the program lets go of it.  Every other send, receive and
 * close is dropped at its entry stop.  Used on the hot path: a lookup is
 * one hash in the one hash map (common/map.h) and an index, O(1) on
 * average; no allocation but on growth.
 *
 * The counted sockets of one process are chained by fd number from a head
 * entry (pid, fd -1), so that a process's end finds them in time linear in
 * their number, not in the table's size.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct repro_map;

enum rec_sock_flag {
	REC_SOCK_DNS = 1u << 0, /* peer or destination port 53 */
	REC_SOCK_PENDING = 1u << 1, /* connect returned EINPROGRESS */
	REC_SOCK_DATA = 1u << 2, /* connected: its data phase is counted */
	REC_SOCK_HEAD = 1u << 3, /* (pid, -1): the head of pid's chain of counted sockets */
};

/* The data phase of one connected socket (the values of a struct bndl_sock_info). */
struct rec_sockstat {
	uint64_t sent, received; /* bytes */
	uint64_t first_rx_ns; /* since the start; 0: nothing received yet */
	uint64_t end_ns; /* when end was seen; 0: not yet */
	int32_t prev_fd, next_fd; /* the process's chain (-1: none) */
	uint8_t end; /* enum bndl_sock_end, with end_ns */
	uint8_t proto; /* enum bndl_sock_proto */
	bool sniffed; /* the first send was looked at */
};

/*
 * The entries in arrays in the order they were added, keys being
 * (pid << 32 | fd), and the map from key to index.  A removed entry leaves
 * a hole (flags 0) until the holes outnumber the entries, when they are
 * compacted in order: removal is amortised O(1).  Zero-initialised is
 * empty; rec_socks_release() frees.
 */
struct rec_socks {
	uint64_t *keys; /* owned: len entries, holes included */
	uint8_t *flags; /* owned: 0 marks a hole */
	struct rec_sockstat
		*stats; /* owned, beside keys: meaningful with REC_SOCK_DATA or REC_SOCK_HEAD */
	size_t len;
	size_t n; /* entries watched */
	struct repro_map *by_key; /* owned: key -> index; NULL before the first entry */
};

/* Most sockets watched at once; further ones are not watched (bounded memory). */
#define REC_SOCKS_MAX (1u << 20)

/* rec_socks_get - the flags of (pid, fd), 0 when not watched. */
unsigned rec_socks_get(const struct rec_socks *s, int32_t pid, int32_t fd);

/*
 * rec_socks_set - set the REC_SOCK_DNS and REC_SOCK_PENDING flags of
 * (pid, fd) to those of flags; 0 stops watching it for them (the fd was
 * closed or reused).  REC_SOCK_DATA is left as it is (rec_socks_data_*).
 * Past REC_SOCKS_MAX entries new sockets are not added.
 */
void rec_socks_set(struct rec_socks *s, int32_t pid, int32_t fd, unsigned flags);

/*
 * rec_socks_data_begin - count the data phase of (pid, fd) from now, with
 * zeroed counters (the caller ended any earlier one with
 * rec_socks_data_end()).  Nothing past REC_SOCKS_MAX entries.  O(1).
 */
void rec_socks_data_begin(struct rec_socks *s, int32_t pid, int32_t fd);

/*
 * rec_socks_data - the counters of (pid, fd), or NULL when its data phase
 * is not counted.  Valid until the table next changes.  O(1).
 */
struct rec_sockstat *rec_socks_data(struct rec_socks *s, int32_t pid, int32_t fd);

/*
 * rec_socks_data_end - stop counting (pid, fd): its counters into *out.
 * Returns false (and leaves *out) when it was not counted.  O(1).
 */
bool rec_socks_data_end(struct rec_socks *s, int32_t pid, int32_t fd, struct rec_sockstat *out);

/* rec_socks_data_first - an fd of pid whose data phase is counted, or -1.  O(1). */
int32_t rec_socks_data_first(const struct rec_socks *s, int32_t pid);

/*
 * rec_socks_data_list - every counted (pid, fd), as pid << 32 | fd in a
 * new array (*n entries; free() it), in the order they were added.
 * Linear in the entries.
 */
uint64_t *rec_socks_data_list(const struct rec_socks *s, size_t *n);

/* rec_socks_release - free what s holds, leaving it empty. */
void rec_socks_release(struct rec_socks *s);

#endif
