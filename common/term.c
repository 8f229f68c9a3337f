#include "common/term.h"

#include <string.h>

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes available): 1..4,
 * 0 when s[0] starts none (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF), -1 when n ends inside a sequence that may yet be valid.
 */
static int utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	int len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 0;
	}
	return len;
}

/* The five characters HTML gives a meaning to, as entities; other bytes pass. */
static void put_html(FILE *out, unsigned char c)
{
	switch (c) {
	case '&': fputs("&amp;", out); break;
	case '<': fputs("&lt;", out); break;
	case '>': fputs("&gt;", out); break;
	case '"': fputs("&quot;", out); break;
	case '\'': fputs("&#39;", out); break;
	default: fputc(c, out);
	}
}

/* repro_term_write(), with html: the five characters as entities too. */
static size_t safe_write(FILE *out, const char *s, size_t n, bool keep_lines, bool more, bool html)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned char c = u[i];
		int len = utf8_len(u + i, n - i);

		if (len < 0 && more)
			break; /* the rest of the sequence comes with the next call */
		if (len == 1 && (c >= 0x20 && c != 0x7f)) {
			if (html)
				put_html(out, c);
			else
				fputc(c, out);
		} else if (len == 1 && keep_lines && (c == '\n' || c == '\t')) {
			fputc(c, out);
		} else if (len == 2 && c == 0xc2 && u[i + 1] <= 0x9f) {
			fprintf(out, "\\u%04x", u[i + 1]); /* C1: CSI, OSC, ... */
		} else if (len > 1) {
			fwrite(u + i, 1, (size_t)len, out);
		} else {
			fprintf(out, "\\x%02x", c);
			len = 1;
		}
		i += (size_t)len;
	}
	return i;
}

size_t repro_term_write(FILE *out, const char *s, size_t n, bool keep_lines, bool more)
{
	return safe_write(out, s, n, keep_lines, more, false);
}

/* repro_term_puts() and repro_term_puts_html(): one line, cut past REPRO_TERM_CUT. */
static void safe_puts(FILE *out, const char *s, bool html)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n <= REPRO_TERM_CUT) {
		(void)safe_write(out, s, n, false, false, html);
		return;
	}
	/* cut at a character boundary: the incomplete sequence is left out */
	(void)safe_write(out, s, REPRO_TERM_CUT, false, true, html);
	fprintf(out, "...[%zu bytes]", n);
}

void repro_term_puts(FILE *out, const char *s)
{
	safe_puts(out, s, false);
}

void repro_term_puts_html(FILE *out, const char *s)
{
	safe_puts(out, s, true);
}
