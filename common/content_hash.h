#ifndef REPRO_COMMON_CONTENT_HASH_H
#define REPRO_COMMON_CONTENT_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * repro_hash_fd - XXH3-64 of the whole content of fd (read from its offset
 * to its end) into *out, when that is at most max bytes; buf (bufsz bytes,
 * the caller's) is where it reads.  The content hashes of files.jsonl
 * (docs/bundle-format.md, "Content hashes").  Returns 0, or -1 with errno
 * set (EFBIG when the file is larger than max).  Linear in the bytes.
 */
int repro_hash_fd(int fd, uint64_t max, char *buf, size_t bufsz, uint64_t *out);

#endif
