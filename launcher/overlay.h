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
 * Documentation/filesystems/overlayfs.rst).  The upper and work
 * directories are named /proc/self/fd/UPPER_FD and /proc/self/fd/WORK_FD,
 * the fds lnch_overlay_mount_all() opens them at, so that an overlay
 * mounted earlier over the directory holding them (/tmp) does not hide
 * them.  Returns a string the caller frees.  Never fails (OOM aborts).
 */
char *lnch_overlay_data(const struct lnch_overlay *o, bool userns, int upper_fd, int work_fd);

/* The fds of overlay i's upper and work directories during the mounts: below top. */
#define LNCH_OVERLAY_UPPER_FD(top, i) ((top)-2 * (int)(i))
#define LNCH_OVERLAY_WORK_FD(top, i) ((top)-2 * (int)(i)-1)

/*
 * lnch_overlay_mount_all - open every overlay's upper and work
 * directories at the fds LNCH_OVERLAY_*_FD(fd_top, i) (O_PATH, in the
 * calling process's mount namespace, before any overlay covers them),
 * mount overlay i over ovl[i].path with options data[i], for i < n, in
 * order, then close those fds.  For the child after fork: no allocation.
 * Returns 0, or -1 with errno set and *failed the index of the refused one.
 */
int lnch_overlay_mount_all(const struct lnch_overlay *ovl, char *const *data, size_t n, int fd_top,
			   size_t *failed);

/*
 * lnch_overlay_rest_read_only - every mount of the calling process's mount
 * namespace made read-only (mount_setattr(2) of "/" with AT_RECURSIVE),
 * then each of the n overlays (mounted already) writable again, so that
 * only the overlays take writes.  For the child after fork: no
 * allocation.  Returns 0, or -1 with errno (ENOSYS before Linux 5.12).
 */
int lnch_overlay_rest_read_only(const struct lnch_overlay *ovl, size_t n);

#endif
