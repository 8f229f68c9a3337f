#ifndef REPRO_RECORDER_OUTPUT_H
#define REPRO_RECORDER_OUTPUT_H

/*
 * What the program said: the last REC_OUTPUT_KEEP bytes each process wrote
 * to its stderr (/dev/null too, marked discarded), and to its stdout when
 * that is the same file (the same
 * st_dev and st_ino through /proc/TID/fd/1 and /proc/TID/fd/2, as 2>&1 or a
 * terminal makes them).  The filter stops write and writev on fds 0 to 2
 * only (recorder/systab.c); the bytes are read from the tracee's memory at
 * that stop, the only one such a call makes (no exit stop).  Kept in one ring
 * per process, written to the spool as a BNDL_REC_OUTPUT record when the
 * process ends (or when the recording does), and rendered redacted into
 * output.jsonl (docs/bundle-format.md).  Memory: one ring per live process
 * that wrote to stderr, REC_OUTPUT_KEEP bytes each, freed at its exit.
 */

#include "bundles/spool.h"
#include "launcher/stop.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes of a process's output that are kept: the last ones. */
#define REC_OUTPUT_KEEP (8u * 1024u)
/* Most iovecs of a writev that are looked at (UIO_MAXIOV: the kernel refuses more). */
#define REC_OUTPUT_IOV_MAX 1024u

/* The last REC_OUTPUT_KEEP bytes of a byte stream. */
struct rec_outring {
	char buf[REC_OUTPUT_KEEP];
	size_t head; /* where the next byte goes */
	size_t kept; /* bytes in buf, ending at head (<= REC_OUTPUT_KEEP) */
	uint64_t total; /* bytes appended or skipped so far, those overwritten included */
};

/*
 * rec_outring_append - append data[0..len) (borrowed) to ring; once more
 * than REC_OUTPUT_KEEP bytes went in, the oldest are overwritten.  Cost:
 * O(min(len, REC_OUTPUT_KEEP)).  Never fails.
 */
void rec_outring_append(struct rec_outring *ring, const void *data, size_t len);

/*
 * rec_outring_skip - count len bytes that were written but could not be
 * read (an unmapped buffer): they are in total, not in the ring, which
 * keeps its bytes.  O(1).
 */
void rec_outring_skip(struct rec_outring *ring, uint64_t len);

/*
 * rec_outring_copy - the kept bytes, oldest first, into out (at least
 * REC_OUTPUT_KEEP bytes).  Returns how many (<= REC_OUTPUT_KEEP).  O(kept).
 */
size_t rec_outring_copy(const struct rec_outring *ring, char *out);

/* rec_outring_is_cut - true when bytes were dropped or skipped: more went in than are kept. */
bool rec_outring_is_cut(const struct rec_outring *ring);

struct rec_output;

/* rec_output_new - an empty set of rings, for rec_output_free().  Never NULL. */
struct rec_output *rec_output_new(void);
void rec_output_free(struct rec_output *o);

/*
 * rec_output_wants - at the entry stop of a write or writev (st borrowed):
 * whether its bytes are kept, as the bits of enum bndl_output_fd to add to
 * the process's record: BNDL_OUTPUT_STDERR for fd 2, BNDL_OUTPUT_STDOUT for
 * fd 1 when it is the same file as fd 2 (a stat(2) of /proc/TID/fd/2, and
 * of /proc/TID/fd/1), with BNDL_OUTPUT_DISCARDED when that file is
 * /dev/null; 0 (not kept) for fd 0 and for a stdout that is not stderr.
 * O(1).
 */
unsigned rec_output_wants(const struct lnch_stop *st);

/*
 * rec_output_entry - at the entry stop of a write (is_writev false) or
 * writev that rec_output_wants() kept, with what it returned in fds (st
 * borrowed): of the bytes it asks to write, the last REC_OUTPUT_KEEP at
 * most are read from the tracee (process_vm_readv) into st->pid's ring, so
 * that the call needs no exit stop.  What the program asked to write is
 * kept, whether or not the kernel then wrote it all (EPIPE, a short write
 * to a full pipe).  A 32-bit writev is not read.  Cost: O(bytes kept +
 * iovecs, at most REC_OUTPUT_IOV_MAX).  Never fails: bytes that cannot be
 * read are counted only.
 */
void rec_output_entry(struct rec_output *o, const struct lnch_stop *st, unsigned fds,
		      bool is_writev);

/*
 * rec_output_take - the BNDL_REC_OUTPUT record of pid into *ev (pid, t_ns
 * of its last kept write, args[0] enum bndl_output_fd bits, args[1] bytes
 * written in total, one BNDL_BLOB_OUT blob with the kept bytes, flagged
 * BNDL_BLOB_TRUNCATED when some were dropped) and forget pid's ring.  The
 * blob points into o, valid until the next call.  Returns false (ev
 * untouched) when pid wrote nothing that was kept.  O(REC_OUTPUT_KEEP).
 */
bool rec_output_take(struct rec_output *o, pid_t pid, struct bndl_event *ev);

/*
 * rec_output_next_pid - a pid that still has a ring (the processes left
 * running when the recording ended), or 0 when none has.  Each call
 * after rec_output_take() of the one returned goes on where the last left
 * off: all of them cost O(pid_max / 4096 + rings) together.
 */
pid_t rec_output_next_pid(struct rec_output *o);

#endif
