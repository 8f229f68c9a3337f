#ifndef REPRO_BUNDLES_ARCHIVE_UTIL_H
#define REPRO_BUNDLES_ARCHIVE_UTIL_H

/*
 * libarchive glue private to bundles/: its functions by name through the
 * table bndl_archive_load() fills, and the cleanup helper for a read
 * handle (common/cleanup.h stays free of libraries).
 */

#include "bundles/archive_lib.h"
#include "common/err.h"

#include <archive.h>
#include <archive_entry.h>

/* Every libarchive function the readers call; a new call adds its name here. */
#define BNDL_ARCHIVE_SYMBOLS(X)             \
	X(archive_entry_filetype)           \
	X(archive_entry_pathname)           \
	X(archive_entry_size)               \
	X(archive_errno)                    \
	X(archive_error_string)             \
	X(archive_filter_bytes)             \
	X(archive_read_data)                \
	X(archive_read_free)                \
	X(archive_read_new)                 \
	X(archive_read_next_header)         \
	X(archive_read_open)                \
	X(archive_read_support_filter_zstd) \
	X(archive_read_support_format_tar)  \
	X(archive_set_error)

/* The loaded functions, with the types archive.h gives them. */
struct bndl_archive_lib {
#define BNDL_ARCHIVE_FIELD(name) __typeof__(name) *fn_##name;
	BNDL_ARCHIVE_SYMBOLS(BNDL_ARCHIVE_FIELD)
#undef BNDL_ARCHIVE_FIELD
};

/*
 * The table, filled once by the first bndl_archive_load() (under
 * pthread_once) and never written after: like the dynamic loader's own
 * tables, process-wide by nature.  Read it only after a bndl_archive_load()
 * that returned 0 on this or an earlier call.
 */
extern struct bndl_archive_lib bndl_archive_fns;

/*
 * Each libarchive call in bundles/ goes through the table that
 * bndl_archive_load() fills (bundles/archive_lib.h): a function that makes
 * a handle calls bndl_archive_load() first.
 */
#define archive_entry_filetype (*bndl_archive_fns.fn_archive_entry_filetype)
#define archive_entry_pathname (*bndl_archive_fns.fn_archive_entry_pathname)
#define archive_entry_size (*bndl_archive_fns.fn_archive_entry_size)
#define archive_errno (*bndl_archive_fns.fn_archive_errno)
#define archive_error_string (*bndl_archive_fns.fn_archive_error_string)
#define archive_filter_bytes (*bndl_archive_fns.fn_archive_filter_bytes)
#define archive_read_data (*bndl_archive_fns.fn_archive_read_data)
#define archive_read_free (*bndl_archive_fns.fn_archive_read_free)
#define archive_read_new (*bndl_archive_fns.fn_archive_read_new)
#define archive_read_next_header (*bndl_archive_fns.fn_archive_read_next_header)
#define archive_read_open (*bndl_archive_fns.fn_archive_read_open)
#define archive_read_support_filter_zstd (*bndl_archive_fns.fn_archive_read_support_filter_zstd)
#define archive_read_support_format_tar (*bndl_archive_fns.fn_archive_read_support_format_tar)
#define archive_set_error (*bndl_archive_fns.fn_archive_set_error)

static inline void bndl_cleanup_archive_read_fn(struct archive **a)
{
	if (*a != NULL)
		archive_read_free(*a);
}

#define cleanup_archive_read __attribute__((cleanup(bndl_cleanup_archive_read_fn)))

#endif
