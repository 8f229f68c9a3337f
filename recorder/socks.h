#ifndef REPRO_RECORDER_SOCKS_H
#define REPRO_RECORDER_SOCKS_H

/*
 * The sockets the recorder watches while the program runs, by (pid, fd):
 * those connected or sending to port 53, whose payloads are kept so that
 * DNS queries and answers can be decoded at pack time, and those with a
 * non-blocking connect in progress, whose close(2) is recorded.  Every
 * other send, receive and close is dropped at its entry stop.  Used on the
 * hot path: one hash and a probe per lookup, no allocation but on growth.
 */

#include <stddef.h>
#include <stdint.h>

enum rec_sock_flag {
	REC_SOCK_DNS = 1u << 0, /* peer or destination port 53 */
	REC_SOCK_PENDING = 1u << 1, /* connect returned EINPROGRESS */
};

/* Open addressing with linear probing; keys are (pid << 32 | fd), 0 = empty. */
struct rec_socks {
	uint64_t *keys;
	uint8_t *flags;
	size_t cap; /* a power of two */
	size_t n;
};

/* Most sockets watched at once; further ones are not watched (bounded memory). */
#define REC_SOCKS_MAX (1u << 20)

/* rec_socks_get - the flags of (pid, fd), 0 when not watched. */
unsigned rec_socks_get(const struct rec_socks *s, int32_t pid, int32_t fd);

/*
 * rec_socks_set - set the flags of (pid, fd); 0 stops watching it (the fd
 * was closed or reused).  Past REC_SOCKS_MAX entries new sockets are not added.
 */
void rec_socks_set(struct rec_socks *s, int32_t pid, int32_t fd, unsigned flags);

void rec_socks_release(struct rec_socks *s);

#endif
