#ifndef REPRO_COMMON_CONTENT_HASH_H
#define REPRO_COMMON_CONTENT_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Regular files smaller than this (bytes) get no content hash: an unsalted
 * 64-bit hash of a short file is an oracle a guess can be checked against,
 * a PIN or a password file in milliseconds (docs/bundle-format.md,
 * "Content hashes").
 */
#define REPRO_HASH_MIN_SIZE 256u

/*
 * repro_hash_fd - XXH3-64 of the whole content of fd (read from its offset
 * to its end) into *out, when that is at most max bytes; buf (bufsz bytes,
 * the caller's) is where it reads.  The content hashes of files.jsonl
 * (docs/bundle-format.md, "Content hashes").  Returns 0, or -1 with errno
 * set (EFBIG when the file is larger than max).  Linear in the bytes.
 */
int repro_hash_fd(int fd, uint64_t max, char *buf, size_t bufsz, uint64_t *out);

/*
 * repro_hash_withheld - why the content hash of the regular file at
 * path[0..len) (any form: absolute, relative; not NUL-terminated), with
 * permission bits mode (st_mode; the file type bits are ignored) and size
 * bytes, must not be stored or shown, or NULL when it may: "secret-name"
 * (a component named like a key, token or credential file, or a directory
 * of them, without regard to case), "owner-only" (mode & 077 == 0) or
 * "small" (under REPRO_HASH_MIN_SIZE), in that order.  The one rule of
 * files.jsonl's "hash_withheld" and of `replay --simulate`
 * (docs/bundle-format.md, "Content hashes", lists the names).  Returns a
 * static string.  O(len) times the name table's size and the length of
 * its texts.
 */
const char *repro_hash_withheld(const char *path, size_t len, unsigned mode, uint64_t size);

#endif
