#ifndef REPRO_RECORDER_WAITS_H
#define REPRO_RECORDER_WAITS_H

/*
 * Long waits (docs/bundle-format.md "waits.jsonl"): the loop's struct
 * lnch_wait as a spool record while the program runs, and waits.jsonl
 * derived from those records after the run.
 */

#include "bundles/spool.h"
#include "common/err.h"
#include "launcher/stop.h"

/*
 * rec_wait_event - w as a BNDL_REC_WAIT record in *ev, whose blobs point
 * into w and *info (both borrowed: they must outlive the append).
 */
void rec_wait_event(const struct lnch_wait *w, struct bndl_wait_info *info, struct bndl_event *ev);

/*
 * rec_waits_write - read the spool in spool_dir and write its waits, one
 * JSON object a line in the order they ended, to out_path (created 0600).
 * Returns 0, or -1 with *err (spool read errors, write errors naming the
 * file).  Memory: one record at a time.
 */
int rec_waits_write(const char *spool_dir, const char *out_path, struct repro_err **err);

#endif
