#ifndef REPRO_RECORDER_NETWORK_H
#define REPRO_RECORDER_NETWORK_H

/*
 * network.jsonl: one record per network attempt (connect, sendto/sendmsg
 * with an address, bind, listen), joined across calls after the run from
 * the spool (docs/bundle-format.md "network.jsonl"): the socket's family and
 * type from socket(2), the address, and the outcome, following a
 * non-blocking connect's EINPROGRESS to the getsockopt(SO_ERROR) that
 * reported how it ended (connect(2), "EINPROGRESS").
 */

#include "common/err.h"

/*
 * rec_network_write - read the spool in spool_dir and write out_path.
 * Returns 0, or -1 with *err (spool read errors, write errors naming the
 * file).  Memory: one small entry per (pid, fd) socket seen.
 */
int rec_network_write(const char *spool_dir, const char *out_path, struct repro_err **err);

#endif
