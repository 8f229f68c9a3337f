#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sigabbrev_np, strcasestr, mkostemp, asprintf */
#endif

#include "bundles/archive_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int bndl_archive_err(struct repro_err **err, struct archive *a, const char *fmt, ...)
{
	int errnum = archive_errno(a);
	const char *what = archive_error_string(a);
	cleanup_free char *ctx = NULL;
	va_list ap;

	if (errnum <= 0)
		errnum = EIO;
	va_start(ap, fmt);
	if (vasprintf(&ctx, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (what == NULL || strcmp(what, strerror(errnum)) == 0)
		return repro_err_set(err, errnum, "%s", ctx);
	return repro_err_set(err, errnum, "%s: %s", ctx, what);
}
