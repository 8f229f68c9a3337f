#include "err.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 1, 0))) static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	return s;
}

int repro_err_set(struct repro_err **err, int errnum, const char *fmt, ...)
{
	struct repro_err *e;
	va_list ap;

	if (err == NULL)
		return -1;
	repro_err_free(err);
	e = repro_xmalloc(sizeof(*e));
	va_start(ap, fmt);
	e->msg = vformat(fmt, ap);
	va_end(ap);
	e->errnum = errnum;
	*err = e;
	return -1;
}

int repro_err_wrap(struct repro_err **err, const char *fmt, ...)
{
	char *ctx, *msg;
	va_list ap;

	if (err == NULL || *err == NULL)
		return -1;
	va_start(ap, fmt);
	ctx = vformat(fmt, ap);
	va_end(ap);
	if (asprintf(&msg, "%s: %s", ctx, (*err)->msg) < 0)
		abort();
	free(ctx);
	free((*err)->msg);
	(*err)->msg = msg;
	return -1;
}

bool repro_err_is(struct repro_err *const *err, int errnum)
{
	return err != NULL && *err != NULL && (*err)->errnum == errnum;
}

void repro_err_free(struct repro_err **err)
{
	if (err == NULL || *err == NULL)
		return;
	free((*err)->msg);
	free(*err);
	*err = NULL;
}

char *repro_err_format(const struct repro_err *e)
{
	char *s = NULL;
	int rc;

	if (e->errnum != 0)
		rc = asprintf(&s, "%s: %s", e->msg, strerror(e->errnum));
	else
		rc = asprintf(&s, "%s", e->msg);
	if (rc < 0)
		abort();
	return s;
}
