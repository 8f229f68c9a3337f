#ifndef REPRO_RECORDER_IOURING_H
#define REPRO_RECORDER_IOURING_H

/*
 * io_uring use in a recording: a program that sets up an io_uring can open,
 * read and connect through it without any syscall a tracer sees
 * (io_uring_setup(2)), so a bundle must say so.
 */

#include "common/err.h"

#include <stddef.h>

/*
 * rec_iouring_note - scan the spool in spool_dir for io_uring_setup calls
 * and write a one-line warning into buf (cap bytes), e.g. "io_uring set up
 * by pid 4242 (python3): I/O through it is not recorded", or "" when none
 * succeeded.  Returns 0, or -1 with *err (spool read errors).
 */
int rec_iouring_note(const char *spool_dir, char *buf, size_t cap, struct repro_err **err);

#endif
