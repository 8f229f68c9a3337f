#ifndef REPRO_LAUNCHER_OVERLAY_H
#define REPRO_LAUNCHER_OVERLAY_H

/*
 * Mounting the overlays of struct lnch_overlay (launcher/launcher.h) in the
 * child, after its namespaces exist and before exec.  The mount options
 * are built in the tracer, before fork; the child only calls mount(2).
 */

#include "launcher/launcher.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * lnch_overlay_data - the overlayfs mount options for o: lowerdir=,
 * upperdir= and workdir= with '\', ',' and ':' escaped by a backslash (the
 * kernel's overlayfs option parser splits on the last two), and userxattr
 * when the mount is made in a user namespace (overlayfs keeps its
 * whiteout and opaque marks in user.overlay.* xattrs there; Linux >= 5.11,
 * Documentation/filesystems/overlayfs.rst).  Returns a string the caller
 * frees.  Never fails (OOM aborts).
 */
char *lnch_overlay_data(const struct lnch_overlay *o, bool userns);

/*
 * lnch_overlay_mount_all - mount overlay i over ovl[i].path with options
 * data[i], for i < n, in order.  For the child after fork: no allocation.
 * Returns 0, or -1 with errno set and *failed the index of the refused one.
 */
int lnch_overlay_mount_all(const struct lnch_overlay *ovl, char *const *data, size_t n,
			   size_t *failed);

#endif
