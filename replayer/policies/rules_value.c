#include "replayer/policies/rules_internal.h"
#include "common/names.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

static const struct {
	const char *suffix;
	uint64_t ns;
} time_units[] = {
	/* ascending: rpl_rules_format_duration() walks it from the largest */
	{ "ns", 1 },	   { "us", NS_PER_US },	   { "ms", NS_PER_MS },
	{ "s", NS_PER_S }, { "m", 60 * NS_PER_S }, { "h", 3600 * NS_PER_S },
};

/* *out = a * b + c, or -1 on overflow. */
static int mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
	uint64_t m;

	if (__builtin_mul_overflow(a, b, &m) || __builtin_add_overflow(m, c, out))
		return -1;
	return 0;
}

/* The unit of suffix s in ns, 0 when s is none of time_units. */
static uint64_t time_unit(const char *s)
{
	for (size_t i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++)
		if (strcmp(s, time_units[i].suffix) == 0)
			return time_units[i].ns;
	return 0;
}

/*
 * Digits and an optional fraction, kept exact: "1.5" is whole 1, frac 5,
 * frac_scale 10.  Returns the end of the number, or NULL when s starts with
 * no digit or the number overflows.
 */
static const char *read_decimal(const char *s, uint64_t *whole, uint64_t *frac,
				uint64_t *frac_scale)
{
	*whole = 0, *frac = 0, *frac_scale = 1;
	if (!isdigit((unsigned char)*s))
		return NULL;
	for (; isdigit((unsigned char)*s); s++)
		if (mul_add(*whole, 10, (uint64_t)(*s - '0'), whole) < 0)
			return NULL;
	if (*s != '.')
		return s;
	if (!isdigit((unsigned char)*++s))
		return NULL;
	for (; isdigit((unsigned char)*s); s++)
		if (*frac_scale < NS_PER_S) /* digits past 1e-9 of a unit cannot count */
			*frac = *frac * 10 + (uint64_t)(*s - '0'), *frac_scale *= 10;
	return s;
}

int rpl_rules_parse_duration(const char *s, bool bare_is_us, uint64_t *ns)
{
	uint64_t whole, frac, scale, unit, v;
	const char *end = read_decimal(s, &whole, &frac, &scale);

	if (end == NULL)
		return -1;
	unit = *end == '\0' && bare_is_us ? NS_PER_US : time_unit(end);
	if (unit == 0 ||
	    mul_add(whole, unit, (uint64_t)((unsigned __int128)frac * unit / scale), &v) < 0)
		return -1;
	*ns = v;
	return 0;
}

int rpl_rules_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0, mult = 1;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		if (mul_add(v, 10, (uint64_t)(*s - '0'), &v) < 0)
			return -1;
	switch (*s) {
	case '\0': break;
	case 'k':
	case 'K': mult = 1ull << 10; break;
	case 'm':
	case 'M': mult = 1ull << 20; break;
	case 'g':
	case 'G': mult = 1ull << 30; break;
	default: return -1;
	}
	if (*s != '\0' && s[1] != '\0')
		return -1;
	if (mul_add(v, mult, 0, &v) < 0)
		return -1;
	*bytes = v;
	return 0;
}

/* A whole number lo..hi written in decimal, or -1. */
static long small_number(const char *s, long lo, long hi)
{
	char *end = NULL;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	return v;
}

int rpl_rules_parse_errno(const char *s)
{
	long n = small_number(s, 1, 4095);

	if (n > 0)
		return (int)n;
	return repro_errno_parse(s);
}

int rpl_rules_parse_signal(const char *s)
{
	long n = small_number(s, 1, SIGRTMAX);

	if (n > 0)
		return (int)n;
	return repro_signal_parse(s);
}

size_t rpl_rules_edit_distance(const char *a, const char *b)
{
	enum { MAX = 64 };
	size_t la = strnlen(a, MAX - 1), lb = strnlen(b, MAX - 1);
	size_t row[MAX];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

char *rpl_rules_format_duration(uint64_t ns, char *buf, size_t len)
{
	size_t i = sizeof(time_units) / sizeof(time_units[0]);

	while (--i > 0 && (ns == 0 || ns % time_units[i].ns != 0))
		;
	snprintf(buf, len, "%" PRIu64 "%s", ns / time_units[i].ns, time_units[i].suffix);
	return buf;
}

char *rpl_rules_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char suffix[] = { 'G', 'M', 'k' };

	for (size_t i = 0; i < sizeof(suffix); i++) {
		uint64_t mult = 1ull << (10 * (3 - i));

		if (bytes != 0 && bytes % mult == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", bytes / mult, suffix[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64, bytes);
	return buf;
}
