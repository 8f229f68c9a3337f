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

/* The code point of the valid UTF-8 sequence s of len 2 or 3 bytes. */
static unsigned code_point(const unsigned char *s, size_t len)
{
	if (len == 2)
		return (unsigned)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	return (unsigned)(s[0] & 0x0f) << 12 | (unsigned)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
}

/*
 * Whether s (a valid UTF-8 sequence of len bytes) is a bidirectional
 * formatting character, which makes a display show the text around it in
 * another order ("Trojan Source", CVE-2021-42574): U+061C, U+200E, U+200F,
 * U+202A..U+202E, U+2066..U+2069.
 */
static bool is_bidi(const unsigned char *s, size_t len)
{
	unsigned cp;

	if (len != 2 && len != 3)
		return false;
	cp = code_point(s, len);
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
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
		} else if (len > 1 && is_bidi(u + i, (size_t)len)) {
			fprintf(out, "\\u%04x", code_point(u + i, (size_t)len));
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

/* repro_term_puts() and repro_term_puts_html(): one line, cut past max bytes. */
static void safe_puts(FILE *out, const char *s, size_t max, bool html)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n <= max) {
		(void)safe_write(out, s, n, false, false, html);
		return;
	}
	/* cut at a character boundary: the incomplete sequence is left out */
	(void)safe_write(out, s, max, false, true, html);
	fprintf(out, "...[%zu bytes]", n);
}

void repro_term_puts(FILE *out, const char *s)
{
	safe_puts(out, s, REPRO_TERM_CUT, false);
}

void repro_term_puts_html(FILE *out, const char *s, size_t max)
{
	safe_puts(out, s, max > 0 ? max : REPRO_TERM_CUT, true);
}

void repro_term_puts_markup(FILE *out, const char *s)
{
	if (s != NULL)
		(void)safe_write(out, s, strlen(s), true, false, true);
}

/* Whether every byte of s is in set (s non-empty). */
static bool all_in(const char *s, bool (*in)(unsigned char c))
{
	for (; *s != '\0'; s++)
		if (!in((unsigned char)*s))
			return false;
	return true;
}

static bool bare_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_-./:=@%+,", c) != NULL;
}

static bool quotable_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\'';
}

void repro_term_quote(FILE *out, const char *s)
{
	if (*s != '\0' && all_in(s, bare_byte)) {
		fputs(s, out);
		return;
	}
	if (all_in(s, quotable_byte)) {
		fprintf(out, "'%s'", s);
		return;
	}
	fputs("$'", out);
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '\'' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, out);
		else
			fprintf(out, "\\x%02x", *p);
	}
	fputc('\'', out);
}
