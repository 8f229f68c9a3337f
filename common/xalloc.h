#ifndef REPRO_COMMON_XALLOC_H
#define REPRO_COMMON_XALLOC_H

#include <stddef.h>

/*
 * Allocation wrappers: out of memory is not a recoverable error in repro;
 * these print one line ("repro: out of memory (N bytes more were
 * needed …)") and exit with status 2.  Returned memory is the caller's to free().
 */
void *repro_xmalloc(size_t size);
void *repro_xcalloc(size_t nmemb, size_t size);
void *repro_xrealloc(void *ptr, size_t size);
/* repro_xreallocarray - realloc(ptr, nmemb * size) with overflow check. */
void *repro_xreallocarray(void *ptr, size_t nmemb, size_t size);

/*
 * repro_xgrow - ptr (an array of n elements of size bytes, grown only by
 * this function) with room for element n: the capacity doubles at 8, 16,
 * 32 … elements, so appending n elements costs O(n) copies in all.
 * Returns the (possibly moved) array; aborts on overflow or OOM.
 */
void *repro_xgrow(void *ptr, size_t n, size_t size);
char *repro_xstrdup(const char *s);
char *repro_xstrndup(const char *s, size_t n);
/* repro_xasprintf - printf into a new buffer the caller frees. */
char *repro_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A growing NUL-terminated string: start from {0}; buf stays NULL until the
 * first append; the caller frees buf.  No stdio, for loops that build one
 * string per event.
 */
struct repro_sbuf {
	char *buf;
	size_t len, cap; /* bytes */
};

/* repro_sbuf_add - append s[0..n) (n bytes; s need not be NUL-terminated). */
void repro_sbuf_add(struct repro_sbuf *b, const char *s, size_t n);
/* repro_sbuf_adds - append the C string s. */
void repro_sbuf_adds(struct repro_sbuf *b, const char *s);

#endif
