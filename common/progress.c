/* The one progress line (common/progress.h). */
#include "common/progress.h"

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

/* Work shorter than this shows no line; a line is redrawn at most this often. */
#define FIRST_NS 500000000ull
#define EVERY_NS 100000000ull

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void repro_progress_init(struct repro_progress *p, FILE *out)
{
	*p = (struct repro_progress){ .out = out != NULL && isatty(fileno(out)) ? out : NULL,
				      .start_ns = now_ns() };
}

/* Whether the line is to be drawn now (and note that it is). */
static bool due(struct repro_progress *p, bool force)
{
	uint64_t t;

	if (p->out == NULL)
		return false;
	t = now_ns();
	if (!force && (t - p->start_ns < FIRST_NS || t - p->last_ns < EVERY_NS))
		return false;
	p->last_ns = t;
	return true;
}

void repro_progress_text(struct repro_progress *p, bool force, const char *fmt, ...)
{
	va_list ap;

	if (!due(p, force))
		return;
	fputs("\r\033[K", p->out);
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
	fflush(p->out);
	p->shown = true;
}

/* "270 MiB", "12 KiB", "512 bytes". */
static void size_words(uint64_t n, char *buf, size_t cap)
{
	if (n >= 1ull << 30)
		snprintf(buf, cap, "%.1f GiB", (double)n / (double)(1ull << 30));
	else if (n >= 1ull << 20)
		snprintf(buf, cap, "%.0f MiB", (double)n / (double)(1ull << 20));
	else if (n >= 1ull << 10)
		snprintf(buf, cap, "%.0f KiB", (double)n / 1024.0);
	else
		snprintf(buf, cap, "%llu bytes", (unsigned long long)n);
}

void repro_progress_bytes(struct repro_progress *p, const char *what, uint64_t done, uint64_t total)
{
	char a[32], b[32];

	if (p->out == NULL)
		return;
	size_words(done, a, sizeof(a));
	size_words(total, b, sizeof(b));
	if (total > 0)
		repro_progress_text(p, false, "repro: %s: %llu%% (%s of %s)", what,
				    (unsigned long long)(done >= total ? 100 : done * 100 / total),
				    a, b);
	else
		repro_progress_text(p, false, "repro: %s: %s", what, a);
}

void repro_progress_clear(struct repro_progress *p)
{
	if (p->out == NULL || !p->shown)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->shown = false;
}
