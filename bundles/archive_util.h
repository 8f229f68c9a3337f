#ifndef REPRO_BUNDLES_ARCHIVE_UTIL_H
#define REPRO_BUNDLES_ARCHIVE_UTIL_H

/*
 * libarchive glue private to bundles/: cleanup helpers for its handles
 * (common/cleanup.h stays free of libraries) and the conversion of a handle's
 * error state into a repro_err.
 */

#include "common/err.h"

#include <archive.h>
#include <archive_entry.h>

static inline void bndl_cleanup_archive_read_fn(struct archive **a)
{
	if (*a != NULL)
		archive_read_free(*a);
}

static inline void bndl_cleanup_archive_write_fn(struct archive **a)
{
	if (*a != NULL)
		archive_write_free(*a);
}

static inline void bndl_cleanup_archive_entry_fn(struct archive_entry **e)
{
	if (*e != NULL)
		archive_entry_free(*e);
}

#define cleanup_archive_read __attribute__((cleanup(bndl_cleanup_archive_read_fn)))
#define cleanup_archive_write __attribute__((cleanup(bndl_cleanup_archive_write_fn)))
#define cleanup_archive_entry __attribute__((cleanup(bndl_cleanup_archive_entry_fn)))

/*
 * bndl_archive_err - set *err from a's last error: errnum is archive_errno()
 * when it is a real errno (EIO otherwise), the message is the formatted
 * context, then ": " and archive_error_string() unless that merely repeats
 * strerror(errnum) (cli/main.c appends that).  Returns -1.
 */
int bndl_archive_err(struct repro_err **err, struct archive *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
