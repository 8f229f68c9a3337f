#ifndef REPRO_BUNDLES_TARZST_H
#define REPRO_BUNDLES_TARZST_H

/*
 * The writer of a bundle's archive: a POSIX ustar stream (pax extended
 * headers where a size does not fit), zstd-compressed with libzstd, into an
 * fd.  Only what a bundle needs: regular files, mode 0644, owner 0:0, no
 * padding after the two end blocks.  Reading stays with libarchive
 * (bundles/reader.c); writing does without it because loading libarchive
 * and what it brings (libxml2, ICU, libstdc++) took 2.5-3 ms of every
 * recording (docs/performance.md).  Format: POSIX.1-2017 pax(1) "ustar
 * Interchange Format" and "pax Interchange Format"; RFC 8878 (zstd).
 */

#include "common/err.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct bndl_tarzst;

/*
 * bndl_tarzst_open - start an archive written to fd (borrowed; not closed),
 * at zstd level 1 with the frame's content checksum (level 1 compressed an
 * 11 MB events.jsonl at 850 MB/s to 1/14 of it, level 3 at 450 MB/s to
 * 1/12: docs/performance.md).  what names the
 * output in messages (borrowed for the writer's life).  Returns the writer
 * (the caller's, bndl_tarzst_free()), or NULL with *err.
 */
struct bndl_tarzst *bndl_tarzst_open(int fd, const char *what, struct repro_err **err);

/*
 * bndl_tarzst_member - the header of the next member: name (a relative
 * path of at most 100 bytes), size (bytes, exactly what the
 * bndl_tarzst_write() calls that follow give), mtime (seconds since the
 * epoch).  The member before it must be complete.  Returns 0, or -1 with
 * *err (EINVAL for a bad name or an incomplete member, or write(2)'s
 * errno: "cannot write 'WHAT'").
 */
int bndl_tarzst_member(struct bndl_tarzst *w, const char *name, uint64_t size, time_t mtime,
		       struct repro_err **err);

/*
 * bndl_tarzst_write - len bytes of the current member's content; more than
 * its size is EINVAL.  Cost: linear in len.  Returns 0, or -1 with *err.
 */
int bndl_tarzst_write(struct bndl_tarzst *w, const void *data, size_t len, struct repro_err **err);

/*
 * bndl_tarzst_close - pad the last member, write the two end blocks and end
 * the zstd frame.  Returns 0, or -1 with *err; the fd is left open either
 * way.
 */
int bndl_tarzst_close(struct bndl_tarzst *w, struct repro_err **err);

/* bndl_tarzst_free - free w (NULL-safe); an unclosed archive is left incomplete. */
void bndl_tarzst_free(struct bndl_tarzst *w);

#endif
