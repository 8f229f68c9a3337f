#ifndef REPRO_BUNDLES_ARCHIVE_LIB_H
#define REPRO_BUNDLES_ARCHIVE_LIB_H

/*
 * libarchive, loaded when a reader first opens a bundle rather than when
 * repro starts.  Debian's libarchive brings libxml2, ICU and libstdc++ with
 * it: loading them took 2.5-3 ms (a program linked with -larchive alone
 * starts in 3.6 ms, one without it in 0.9 ms; docs/performance.md), a
 * fifth of what `repro record -- /bin/true` cost.  A recording never loads
 * it: bundles are written by bundles/tarzst.c.
 *
 * bundles/ calls libarchive by its own names: bundles/archive_util.h turns
 * each into a call through the table this fills.
 */

#include "common/err.h"

/*
 * bndl_archive_load - load libarchive (REPRO_LIBARCHIVE_SONAME, the soname
 * of the libarchive repro was built against) and fill the table of
 * bundles/archive_util.h.
 * Thread-safe; the first call does the work (about 2.5 ms: dlopen with
 * RTLD_NOW), later ones wait for it and return its result.  Returns 0, or
 * -1 with *err ("cannot load libarchive 'libarchive.so.13': <dlerror>")
 * when the library or one of its functions is missing, on every call.
 */
int bndl_archive_load(struct repro_err **err);

#endif
