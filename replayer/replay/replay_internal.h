#ifndef REPRO_REPLAYER_REPLAY_INTERNAL_H
#define REPRO_REPLAYER_REPLAY_INTERNAL_H

/* Shared inside replayer/replay/ only. */

#include "common/err.h"

#include <jansson.h>

/*
 * rpl_replay_findings - explain's findings of bundle (borrowed path),
 * probe noise included and marked ("noise"), as a new array, and its
 * "run" object in *run (new).  NULL with *err: explain's and the reader's
 * errors.  Linear in the bundle.
 */
json_t *rpl_replay_findings(const char *bundle, json_t **run, struct repro_err **err);

#endif
