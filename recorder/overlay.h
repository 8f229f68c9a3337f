#ifndef REPRO_RECORDER_OVERLAY_H
#define REPRO_RECORDER_OVERLAY_H

/*
 * The write set of a run under `record --overlay` (docs/bundle-format.md
 * "overlay.jsonl"): what the program created, modified and deleted under
 * each overlaid directory, read from the overlays' upper layers after the
 * run.  overlayfs marks a deleted entry with a whiteout (a character
 * device 0/0) and a directory that hides what was beneath it as opaque
 * (the xattr trusted.overlay.opaque, or user.overlay.opaque with the
 * userxattr mount option, set to "y"); Documentation/filesystems/overlayfs.rst.
 */

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most lines overlay.jsonl gets by default (struct rec_overlay_stats.is_truncated past it). */
#define REC_OVERLAY_MAX 100000u

/* One overlaid directory after the run. */
struct rec_overlay_root {
	const char *path; /* borrowed: the overlaid directory, as the host still has it (lower) */
	const char *upper; /* borrowed: its upper layer */
};

/* What rec_overlay_write() wrote. */
struct rec_overlay_stats {
	uint64_t changes; /* lines */
	uint64_t unreadable; /* directories skipped: the tracer may not read them (EACCES) */
	bool is_truncated; /* the walk stopped at max lines */
};

/*
 * rec_overlay_write - walk the upper layer of each of the n roots (in
 * order, each directory's entries sorted by name) against its lower
 * directory and write one JSON object a line to out_path (created 0600):
 * {"root", "path", "change": "created"|"modified"|"deleted", "type",
 * "size", "mode"}.  An entry is modified when it also exists below with a
 * different type, mode, owner, size or mtime (a directory: type, mode or
 * owner; one copied up only because something under it changed is not
 * listed); deleted for a whiteout hiding an entry below, and for every
 * entry below an opaque directory that the directory no longer has
 * (type and size are then those of what was deleted).  At most max lines
 * (0: REC_OVERLAY_MAX); *st says how many and whether the walk stopped.
 * A directory the tracer may not read (the program made it mode 0) is
 * skipped and counted in st->unreadable.
 * Cost: linear in the upper layers' entries (plus the lower entries of
 * opaque directories), n log n per directory for the sorting; one open
 * directory per level.  Returns 0, or -1 with *err (an upper layer that
 * cannot be read, a write error; the message names the path).
 */
int rec_overlay_write(const struct rec_overlay_root *roots, size_t n, uint64_t max,
		      const char *out_path, struct rec_overlay_stats *st, struct repro_err **err);

#endif
