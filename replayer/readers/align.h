#ifndef REPRO_REPLAYER_ALIGN_H
#define REPRO_REPLAYER_ALIGN_H

/*
 * Aligning two sequences of keys (the normalised calls of two runs of one
 * process) with Myers' O(ND) difference algorithm in its linear-space form
 * (E. W. Myers, "An O(ND) Difference Algorithm and Its Variations",
 * Algorithmica 1986, section 4b): memory O(N+M), time O((N+M)·D), where D is
 * the number of calls on one side only, so near-linear for similar runs.
 * Past a cost limit a stretch is given up on as "all different" (deleted on
 * one side, inserted on the other) to keep the time bounded.
 */

#include <stddef.h>
#include <stdint.h>

enum rpl_align_op {
	RPL_ALIGN_SAME, /* a[ia] and b[ib] are the same call */
	RPL_ALIGN_DEL, /* a[ia] has no partner in b */
	RPL_ALIGN_INS, /* b[ib] has no partner in a */
};

/* Called for every element of both sequences, in order. */
typedef void (*rpl_align_fn)(void *ctx, enum rpl_align_op op, size_t ia, size_t ib);

/*
 * rpl_align - align a[0..na) with b[0..nb) and report every element through
 * fn.  max_d bounds the half edit distance searched in any one stretch (0:
 * no bound); budget, when not NULL, holds the steps left for all calls
 * sharing it (a step is one diagonal extended) and is decreased: once it is
 * spent, every further stretch is taken as all different.  Returns the
 * number of stretches given up on (0 when the alignment is a true shortest
 * edit script).
 */
size_t rpl_align(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, size_t max_d,
		 uint64_t *budget, rpl_align_fn fn, void *ctx);

#endif
