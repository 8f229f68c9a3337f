#ifndef REPRO_COMMON_PROGRESS_H
#define REPRO_COMMON_PROGRESS_H

/*
 * The one progress line: what long work is doing and how far it is, on a
 * terminal only (never on a pipe or a file), redrawn in place at most ten
 * times a second and only once the work has taken half a second, cleared
 * when it ends.  State is the caller's (struct repro_progress).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct repro_progress {
	FILE *out; /* borrowed; NULL: no line (not a terminal) */
	uint64_t start_ns, last_ns; /* CLOCK_MONOTONIC */
	bool shown; /* a line is on the terminal */
};

/*
 * repro_progress_init - a progress line on out (borrowed) when out is a
 * terminal (isatty(3)), else one that prints nothing.
 */
void repro_progress_init(struct repro_progress *p, FILE *out);

/*
 * repro_progress_bytes - "repro: WHAT: 45% (120 MiB of 270 MiB)" for done
 * of total bytes (total 0: the bytes only), when the line is due (see
 * above).  what is borrowed for the call.
 */
void repro_progress_bytes(struct repro_progress *p, const char *what, uint64_t done,
			  uint64_t total);

/*
 * repro_progress_text - the line (a printf format; no newline), when due,
 * or always with force (a step that has just ended).
 */
void repro_progress_text(struct repro_progress *p, bool force, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* repro_progress_clear - take the line off the terminal, if one is there. */
void repro_progress_clear(struct repro_progress *p);

#endif
