#ifndef REPRO_COMMON_FDUTIL_H
#define REPRO_COMMON_FDUTIL_H

#include "err.h"

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
