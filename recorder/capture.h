#ifndef REPRO_RECORDER_CAPTURE_H
#define REPRO_RECORDER_CAPTURE_H

/*
 * What the recorder keeps of one traced call between its entry and exit
 * stops (one per thread), and the per-family capture functions of
 * recorder/sys/.  Hot path: memory is reused from call to call; nothing is
 * formatted here (rendering happens when the bundle is packed).
 */

#include "bundles/spool.h"
#include "launcher/stop.h"
#include "recorder/pathres.h"
#include "recorder/seen.h"
#include "recorder/socks.h"
#include "recorder/systab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rec_capture {
	pid_t tid;
	bool active; /* an entry is waiting for its exit */
	bool drop; /* the call teaches nothing (sendmsg without an address) */
	const struct rec_sys *sys;
	struct bndl_event ev;
	uint32_t blob_off[BNDL_EVENT_MAX_BLOBS]; /* offsets into arena */
	char *arena; /* owned */
	size_t cap, used;
	struct rec_seen *seen; /* borrowed: paths whose state before the first change is taken */
	struct rec_socks *socks; /* borrowed: sockets whose payloads or close are recorded */
	struct rec_pathcache *paths; /* borrowed, may be NULL: canonical directories */
};

/* rec_capture_reset - start a new call in c (keeps the arena, seen, socks and paths). */
void rec_capture_reset(struct rec_capture *c);

/*
 * rec_capture_reserve - room for len bytes of a new blob (kind, argi) in the
 * arena.  Returns where to write (valid until the next reserve), or NULL
 * when the event has no free blob slot.  rec_capture_commit() then sets the
 * blob's final length (<= len).
 */
void *rec_capture_reserve(struct rec_capture *c, uint16_t kind, uint16_t argi, size_t len);
void rec_capture_commit(struct rec_capture *c, size_t len);

/* rec_capture_finish - point ev's blobs into the arena, for bndl_spool_append(). */
void rec_capture_finish(struct rec_capture *c);

void rec_capture_release(struct rec_capture *c);

/*
 * Per-family capture at the entry stop: read what argument i of kind needs
 * from the tracee.  A read failure (EFAULT) leaves the argument without
 * blob; it is rendered as its address.  Return false when the whole call
 * should not be recorded.
 */
bool rec_file_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		      enum rec_arg_kind kind);
bool rec_net_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		     enum rec_arg_kind kind);
bool rec_proc_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		      enum rec_arg_kind kind);

/*
 * rec_proc_capture_exec_image - at an exec event whose execve entry was not
 * traced (--trace without process): PATH (argi 0) from /proc/PID/exe and
 * ARGV (argi 1) from /proc/PID/cmdline of the new image.
 */
void rec_proc_capture_exec_image(struct rec_capture *c, pid_t pid);

/*
 * At the exit stop: getsockopt's SO_ERROR value, and what a watched DNS
 * socket received (recvfrom, recvmsg, recvmmsg; at most 4 KiB per message).
 */
void rec_net_capture_exit(struct rec_capture *c, const struct lnch_stop *st, int i,
			  enum rec_arg_kind kind);

/*
 * rec_net_after - at the exit stop of a call with a net_role: update the
 * watched-socket set (a new fd, a connect to port 53 or one in progress, a
 * send to port 53, a close).
 */
void rec_net_after(struct rec_capture *c, const struct lnch_stop *st);

#endif
