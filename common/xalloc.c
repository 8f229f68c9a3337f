#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * p, or when the allocation of size bytes failed: one line naming what ran
 * out and exit status 2 (docs/errors.md), without touching the heap again.
 */
static void *check_n(void *p, size_t size)
{
	char msg[160];
	int n;

	if (p != NULL)
		return p;
	n = snprintf(msg, sizeof(msg),
		     "repro: out of memory (%zu bytes more were needed; a memory or "
		     "address-space limit?)\n",
		     size);
	(void)!write(STDERR_FILENO, msg, n > 0 && (size_t)n < sizeof(msg) ? (size_t)n : 0);
	_exit(2);
}

static void *check(void *p)
{
	return check_n(p, 0);
}

void *repro_xmalloc(size_t size)
{
	return check_n(malloc(size ? size : 1), size);
}

void *repro_xcalloc(size_t nmemb, size_t size)
{
	return check_n(calloc(nmemb ? nmemb : 1, size ? size : 1), nmemb * size);
}

void *repro_xrealloc(void *ptr, size_t size)
{
	return check_n(realloc(ptr, size ? size : 1), size);
}

void *repro_xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	return check_n(reallocarray(ptr, nmemb ? nmemb : 1, size ? size : 1), nmemb * size);
}

char *repro_xstrdup(const char *s)
{
	return check(strdup(s));
}

char *repro_xstrndup(const char *s, size_t n)
{
	return check(strndup(s, n));
}

char *repro_xasprintf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		check(NULL);
	return s;
}

void repro_sbuf_add(struct repro_sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->buf = repro_xrealloc(b->buf, b->cap);
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void repro_sbuf_adds(struct repro_sbuf *b, const char *s)
{
	repro_sbuf_add(b, s, strlen(s));
}

void *repro_xgrow(void *ptr, size_t n, size_t size)
{
	if (n == 0)
		return repro_xreallocarray(ptr, 8, size);
	if (n >= 8 && (n & (n - 1)) == 0)
		return repro_xreallocarray(ptr, n * 2, size);
	return ptr;
}
