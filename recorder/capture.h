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
#include "common/map.h"
#include "recorder/socks.h"
#include "recorder/systab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rec_capture {
	pid_t tid;
	bool active; /* an entry is waiting for its exit */
	/*
	 * a call the recorder does not record (a write to a file, a call of
	 * no trace class that a fault rule trapped) whose entry is kept in ev
	 * all the same: recorded at its exit only when a policy imposed it
	 */
	bool only_if_injected;
	bool failure_only; /* kept only if it fails (REPRO_SYSF_FAILURE_ONLY, no destination, not DNS) */
	/*
	 * argi + 1 of an execve's envp not read at entry (0: none): a
	 * successful exec takes it from the new image's /proc/PID/environ (one
	 * read); a failed one keeps none
	 */
	int env_deferred;
	const struct repro_sysent *sys;
	struct bndl_event ev;
	uint32_t blob_off[BNDL_EVENT_MAX_BLOBS]; /* offsets into arena */
	char *arena; /* owned */
	size_t cap, used;
	/*
	 * borrowed: the paths whose state before the first change is taken,
	 * by repro_map_key_str() (a collision only means a path's earlier
	 * metadata is not taken again)
	 */
	struct repro_map *seen;
	struct rec_socks *socks; /* borrowed: sockets whose payloads or close are recorded */
	struct rec_pathcache *paths; /* borrowed, may be NULL: canonical directories */
};

/*
 * rec_capture_reset - start a new call in c (keeps seen, socks and paths, and
 * the arena up to REC_CAPTURE_KEEP bytes).
 */
void rec_capture_reset(struct rec_capture *c);

/*
 * rec_capture_reserve - room for len bytes of a new blob (kind, argi) in the
 * arena.  Returns where to write (valid until the next reserve), or NULL
 * when the event has no free blob slot.  rec_capture_commit() then sets the
 * blob's final length (<= len).
 */
void *rec_capture_reserve(struct rec_capture *c, uint16_t kind, uint16_t argi, size_t len);
void rec_capture_commit(struct rec_capture *c, size_t len);

/*
 * rec_capture_grow - make room for len bytes (more than reserved so far) in
 * the last blob reserved, keeping what was written there.  Returns its new
 * start (the arena may move: pointers into it from before are stale).  The
 * arena grows to exactly what is asked (callers double len), and
 * rec_capture_reset() gives back an arena over REC_CAPTURE_KEEP bytes, so
 * one exec with a 6 MiB argv does not pin 6 MiB to its thread.
 */
void *rec_capture_grow(struct rec_capture *c, size_t len);

/* Bytes of arena a capture keeps from one call to the next. */
#define REC_CAPTURE_KEEP (256u * 1024u)

/* rec_capture_finish - point ev's blobs into the arena, for bndl_spool_append(). */
void rec_capture_finish(struct rec_capture *c);

void rec_capture_release(struct rec_capture *c);

/*
 * rec_net_capture_stream - at the entry stop of write, writev or read (st
 * borrowed): whether its fd is a socket connected to a DNS server (port
 * 53), and so DNS over TCP, an event; a write's or writev's bytes (at most
 * DNS_PAYLOAD_MAX) are then captured as a payload blob, a read's at its
 * exit (rec_net_capture_exit()).  O(bytes captured).
 */
bool rec_net_capture_stream(struct rec_capture *c, const struct lnch_stop *st);

/*
 * Per-family capture at the entry stop: read what argument i of kind needs
 * from the tracee.  A read failure (EFAULT) leaves the argument without
 * blob; it is rendered as its address.  Return false when the whole call
 * should not be recorded.  rec_net_capture() clears c->failure_only for a
 * send or receive that is kept whatever its outcome.
 */
bool rec_file_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		      enum repro_arg_kind kind);
bool rec_net_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		     enum repro_arg_kind kind);
bool rec_proc_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		      enum repro_arg_kind kind);

/*
 * rec_proc_capture_exec_image - at an exec event whose execve entry was not
 * traced (--trace without process): PATH (argi 0) from /proc/PID/exe, ARGV
 * argi 1 from /proc/PID/cmdline and ARGV argi 2 from /proc/PID/environ of
 * the new image (BNDL_ARGV_MAX bytes for both together).
 */
void rec_proc_capture_exec_image(struct rec_capture *c, pid_t pid);

/*
 * rec_proc_capture_env - at the exec event of a successful exec, the envp
 * that c's entry deferred (env_deferred), from the new image's
 * /proc/PID/environ: one open and read, whatever its size, where reading
 * the caller's memory costs two process_vm_readv(2) per variable.  A
 * failed exec (a PATH search's misses) keeps no environment.  No-op when
 * nothing was deferred.
 */
void rec_proc_capture_env(struct rec_capture *c, pid_t pid);

/*
 * At the exit stop: getsockopt's int value, the sockaddr and length that
 * accept, getsockname and getpeername return, socketpair's two fds, and
 * what a watched DNS socket received (recvfrom, recvmsg, recvmmsg; at most
 * 4 KiB per message).  No allocation beyond the capture's arena.
 */
void rec_net_capture_exit(struct rec_capture *c, const struct lnch_stop *st, int i,
			  enum repro_arg_kind kind);

/*
 * rec_file_capture_exit - at the exit stop of a call the recorder keeps:
 * for an RA_FD_TARGET argument i of a call that failed, what the fd names
 * now (/proc/TID/fd/N: a BNDL_BLOB_STR, and a BNDL_BLOB_PATH when it is a
 * path) and, for a path, the filesystem's space and the file's size (a
 * BNDL_BLOB_STRUCT struct bndl_fs_info).  Other kinds: nothing.  Three
 * syscalls of the tracer (readlink, statvfs, stat), on failures only.
 */
void rec_file_capture_exit(struct rec_capture *c, const struct lnch_stop *st, int i,
			   enum repro_arg_kind kind);

/*
 * rec_file_routine_failure - whether a failed call of a row with an
 * RA_FD_TARGET argument failed the way a program retries (EAGAIN,
 * EINTR and the kernel's restarts): not recorded.  False for other rows.
 */
bool rec_file_routine_failure(const struct rec_capture *c, const struct lnch_stop *st);

/*
 * rec_net_count - at the exit stop of a send or receive (sendto, sendmsg,
 * recvfrom, recvmsg, and write or writev to an fd above 2) on a socket whose data phase is counted
 * (recorder/socks.h): add the bytes it moved, the time of the first byte
 * received, and how the connection ended when the call says (0 from a
 * receive, EPIPE, ECONNRESET, ETIMEDOUT).  Nothing for other calls.  O(1).
 */
void rec_net_count(struct rec_capture *c, const struct lnch_stop *st);

/*
 * rec_net_after - at the exit stop of a call with a network role: update the
 * watched-socket set (a new fd or two, a connect to port 53 or one in
 * progress, a send to port 53, a close).
 */
void rec_net_after(struct rec_capture *c, const struct lnch_stop *st);

#endif
