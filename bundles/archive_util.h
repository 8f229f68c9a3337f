#ifndef REPRO_BUNDLES_ARCHIVE_UTIL_H
#define REPRO_BUNDLES_ARCHIVE_UTIL_H

/*
 * libarchive glue private to bundles/: its functions by name through the
 * table bndl_archive_load() fills, cleanup helpers for its handles
 * (common/cleanup.h stays free of libraries) and the conversion of a
 * handle's error state into a repro_err.
 */

#include "bundles/archive_lib.h"
#include "common/err.h"

#include <archive.h>
#include <archive_entry.h>

/* Every libarchive function bundles/ calls; a new call adds its name here. */
#define BNDL_ARCHIVE_SYMBOLS(X)                                                                    \
	X(archive_entry_filetype)                                                                  \
	X(archive_entry_free)                                                                      \
	X(archive_entry_new)                                                                       \
	X(archive_entry_pathname)                                                                  \
	X(archive_entry_set_filetype)                                                              \
	X(archive_entry_set_mtime)                                                                 \
	X(archive_entry_set_pathname)                                                              \
	X(archive_entry_set_perm)                                                                  \
	X(archive_entry_set_size)                                                                  \
	X(archive_entry_size)                                                                      \
	X(archive_errno)                                                                           \
	X(archive_error_string)                                                                    \
	X(archive_filter_bytes)                                                                    \
	X(archive_read_data)                                                                       \
	X(archive_read_free)                                                                       \
	X(archive_read_new)                                                                        \
	X(archive_read_next_header)                                                                \
	X(archive_read_open)                                                                       \
	X(archive_read_support_filter_zstd)                                                        \
	X(archive_read_support_format_tar)                                                         \
	X(archive_set_error)                                                                       \
	X(archive_write_add_filter_zstd)                                                           \
	X(archive_write_close)                                                                     \
	X(archive_write_data)                                                                      \
	X(archive_write_free)                                                                      \
	X(archive_write_header)                                                                    \
	X(archive_write_new)                                                                       \
	X(archive_write_open_fd)                                                                   \
	X(archive_write_set_bytes_in_last_block)                                                   \
	X(archive_write_set_format_pax_restricted)

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
#define archive_entry_free (*bndl_archive_fns.fn_archive_entry_free)
#define archive_entry_new (*bndl_archive_fns.fn_archive_entry_new)
#define archive_entry_pathname (*bndl_archive_fns.fn_archive_entry_pathname)
#define archive_entry_set_filetype (*bndl_archive_fns.fn_archive_entry_set_filetype)
#define archive_entry_set_mtime (*bndl_archive_fns.fn_archive_entry_set_mtime)
#define archive_entry_set_pathname (*bndl_archive_fns.fn_archive_entry_set_pathname)
#define archive_entry_set_perm (*bndl_archive_fns.fn_archive_entry_set_perm)
#define archive_entry_set_size (*bndl_archive_fns.fn_archive_entry_set_size)
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
#define archive_write_add_filter_zstd (*bndl_archive_fns.fn_archive_write_add_filter_zstd)
#define archive_write_close (*bndl_archive_fns.fn_archive_write_close)
#define archive_write_data (*bndl_archive_fns.fn_archive_write_data)
#define archive_write_free (*bndl_archive_fns.fn_archive_write_free)
#define archive_write_header (*bndl_archive_fns.fn_archive_write_header)
#define archive_write_new (*bndl_archive_fns.fn_archive_write_new)
#define archive_write_open_fd (*bndl_archive_fns.fn_archive_write_open_fd)
#define archive_write_set_bytes_in_last_block (*bndl_archive_fns.fn_archive_write_set_bytes_in_last_block)
#define archive_write_set_format_pax_restricted (*bndl_archive_fns.fn_archive_write_set_format_pax_restricted)

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
