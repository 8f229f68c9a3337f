#ifndef REPRO_BUNDLES_TARZST_INTERNAL_H
#define REPRO_BUNDLES_TARZST_INTERNAL_H

/* For tests of bundles/tarzst.c only. */

#include "bundles/tarzst.h"

/*
 * bndl_tarzst_set_ustar_max - members larger than max bytes get a pax size
 * record, as those past the ustar field's 8 GiB do, so that a test reaches
 * that path without writing 8 GiB.
 */
void bndl_tarzst_set_ustar_max(struct bndl_tarzst *w, uint64_t max);

#endif
