#ifndef REPRO_COMMON_FDUTIL_H
#define REPRO_COMMON_FDUTIL_H

#include "err.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * repro_write_all - write all of buf[0..len) to fd, retrying on EINTR and
 * short writes.  Returns 0, or -1 with *err set (errno from write(2), e.g.
 * ENOSPC).  what: name of the file for the message.
 */
int repro_write_all(int fd, const void *buf, size_t len, const char *what, struct repro_err **err);

/*
 * repro_read_file - read the whole file at path (at most max_bytes) into a
 * NUL-terminated buffer the caller frees; *len_out (may be NULL) gets its
 * length in bytes.  Errors: open/read errno; EFBIG when larger than max_bytes.
 */
char *repro_read_file(const char *path, size_t max_bytes, size_t *len_out, struct repro_err **err);

/*
 * repro_file_kind - what a file of mode m is, in words for a message: "a
 * FIFO", "a symbolic link", "a directory", "a socket", "a character
 * device", "a block device", "a regular file".  Static storage.
 */
const char *repro_file_kind(mode_t m);

/*
 * repro_file_open_regular - open path read-only, never following a
 * symbolic link as its last component (O_NOFOLLOW) and never waiting on a
 * FIFO's writer (O_NONBLOCK: open(2) of a FIFO otherwise blocks until one
 * comes).  Returns the fd (O_CLOEXEC, blocking again), or -1 with *err:
 * errno of open(2) (ENOENT when it does not exist: repro_err_is() tells),
 * or errnum 0 with "'PATH' is a FIFO, not a regular file" when it is
 * anything but a regular file (a symbolic link included).
 */
int repro_file_open_regular(const char *path, struct repro_err **err);

/*
 * repro_file_create - create path for writing (mode 0600, O_CLOEXEC),
 * never through a symbolic link or into a FIFO or device: O_EXCL|O_NOFOLLOW,
 * so what is at path already (a link planted there, a file) makes it fail
 * (EEXIST).  With is_replace, an existing regular file (no link) is
 * truncated and written instead.  Returns the fd, or -1 with *err (errno of
 * open(2); errnum 0 and the kind when is_replace meets a non-regular file).
 */
int repro_file_create(const char *path, bool is_replace, struct repro_err **err);

/* repro_read_fd - repro_read_file() of an open fd (borrowed), read from where it is; path names it. */
char *repro_read_fd(int fd, size_t max_bytes, size_t *len_out, const char *path,
		    struct repro_err **err);

/*
 * repro_path_join - "dir/rel" in a new buffer the caller frees; when rel is
 * absolute it is returned as is (copied).  No normalisation beyond removing a
 * doubled slash at the join.
 */
char *repro_path_join(const char *dir, const char *rel);

/*
 * repro_remove_tree - remove path and everything below it, not following
 * symlinks; a directory without search or write permission (a program's
 * chmod, overlayfs' work/work at mode 0000) is given it first.  Best
 * effort: what cannot be removed stays.  Depth-first, one open directory
 * per level.
 */
void repro_remove_tree(const char *path);

#endif
