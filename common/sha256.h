#ifndef REPRO_COMMON_SHA256_H
#define REPRO_COMMON_SHA256_H

#include "common/err.h"

/* Length of a SHA-256 in hexadecimal, without its NUL (bytes). */
#define REPRO_SHA256_HEX 64

/*
 * repro_sha256_file - the SHA-256 of the whole file at path (nettle's
 * sha256), as 64 lowercase hexadecimal digits and a NUL into hex: the
 * digest `sha256sum` prints, by which `repro replay --trust` names a
 * bundle.  Returns 0, or -1 with *err (errno: cannot open or read it).
 * Linear in the file's bytes; constant memory.
 */
int repro_sha256_file(const char *path, char hex[REPRO_SHA256_HEX + 1], struct repro_err **err);

#endif
