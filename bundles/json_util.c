#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sigabbrev_np, strcasestr, mkostemp, asprintf */
#endif

#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/*
 * Length of the valid UTF-8 sequence at p[0..n), or 0 when it is not valid
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
static size_t utf8_seq_len(const unsigned char *p, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

json_t *bndl_json_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	cleanup_free char *out = NULL;
	size_t o = 0;
	json_t *j;

	if (p == NULL)
		return json_string("");
	/* a NUL would become \u0000, which readers (jansson without JSON_ALLOW_NUL) refuse */
	j = memchr(data, '\0', len) == NULL ? json_stringn(data, len) : NULL;
	if (j != NULL)
		return j;
	out = repro_xmalloc(len * 4 + 1);
	for (size_t i = 0; i < len;) {
		size_t n = p[i] == 0 ? 0 : utf8_seq_len(p + i, len - i);

		if (n == 0) {
			o += (size_t)sprintf(out + o, "\\x%02x", p[i]);
			i++;
			continue;
		}
		memcpy(out + o, p + i, n);
		o += n;
		i += n;
	}
	j = json_stringn(out, o);
	return j != NULL ? j : json_string("");
}

json_t *bndl_json_str_or_null(const char *s)
{
	json_t *j;

	if (s == NULL)
		return json_null();
	j = json_string(s);
	return j != NULL ? j : bndl_json_bytes(s, strlen(s));
}

char *bndl_json_text(const json_t *v, size_t flags)
{
	size_t n = json_dumpb(v, NULL, 0, flags);
	char *buf;

	if (n == 0)
		return NULL;
	buf = repro_xmalloc(n + 1);
	if (json_dumpb(v, buf, n, flags) != n) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* json_dump_callback()'s sink: buffer to the FILE given, DEL escaped. */
static int write_escaped(const char *buf, size_t size, void *data)
{
	FILE *out = data;
	size_t start = 0;

	for (size_t i = 0; i < size; i++) {
		if (buf[i] != 0x7f)
			continue;
		if (fwrite(buf + start, 1, i - start, out) != i - start ||
		    fputs("\\u007f", out) < 0)
			return -1;
		start = i + 1;
	}
	return fwrite(buf + start, 1, size - start, out) == size - start ? 0 : -1;
}

int bndl_json_write(const json_t *v, FILE *out, size_t flags)
{
	return json_dump_callback(v, write_escaped, out, flags | JSON_ENSURE_ASCII);
}
