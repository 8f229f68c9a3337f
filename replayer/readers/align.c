#include "replayer/readers/align.h"
#include "common/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>

struct aligner {
	const uint64_t *a, *b;
	size_t max_d, gave_up;
	uint64_t *budget; /* shared steps left, or NULL */
	rpl_align_fn fn;
	void *ctx;
	size_t ia, ib; /* next element of a and b not reported yet */
};

/* Report a[lo_a..), b[lo_b..) as the same up to the next edit at (ea, eb). */
static void same_until(struct aligner *al, size_t ea, size_t eb)
{
	while (al->ia < ea && al->ib < eb)
		al->fn(al->ctx, RPL_ALIGN_SAME, al->ia++, al->ib++);
}

static void del(struct aligner *al, size_t i)
{
	same_until(al, i, al->ib + (i - al->ia));
	al->fn(al->ctx, RPL_ALIGN_DEL, al->ia++, al->ib);
}

static void ins(struct aligner *al, size_t j)
{
	same_until(al, al->ia + (j - al->ib), j);
	al->fn(al->ctx, RPL_ALIGN_INS, al->ia, al->ib++);
}

static size_t wrap(long k, size_t z)
{
	long m = k % (long)z;

	return (size_t)(m < 0 ? m + (long)z : m);
}

static long min_l(long x, long y)
{
	return x < y ? x : y;
}

static long max_l(long x, long y)
{
	return x > y ? x : y;
}

static void diff(struct aligner *al, size_t i, size_t n, size_t j, size_t m);

/* Everything in the stretch differs: report a's part as deleted, then b's as inserted. */
static void all_different(struct aligner *al, size_t i, size_t n, size_t j, size_t m)
{
	for (size_t k = 0; k < n; k++)
		del(al, i + k);
	for (size_t k = 0; k < m; k++)
		ins(al, j + k);
}

/* Elements of the stretch a[i..i+n), b[j..j+m), read forwards (o=1) or backwards (o=0). */
static bool eq(const struct aligner *al, size_t i, long n, size_t j, long m, long x, long y, int o)
{
	long ax = o ? x : n - 1 - x, by = o ? y : m - 1 - y;

	return al->a[i + (size_t)ax] == al->b[j + (size_t)by];
}

/*
 * Find the middle snake of the stretch and recurse on both sides of it
 * (after R. Elder's formulation of Myers' section 4b).  Returns false when
 * the stretch costs more than max_d.
 */
static bool split(struct aligner *al, size_t i, long n, size_t j, long m)
{
	long l = n + m, w = n - m;
	size_t z = (size_t)(2 * min_l(n, m) + 2);
	long *g = repro_xcalloc(z, sizeof(long)), *p = repro_xcalloc(z, sizeof(long));
	long hmax = l / 2 + (l % 2 != 0);

	for (long h = 0; h <= hmax; h++) {
		if (al->max_d != 0 && (size_t)h > al->max_d)
			break;
		if (al->budget != NULL) { /* two passes of up to 2h+1 diagonals each */
			uint64_t steps = 2 * (uint64_t)(2 * h + 1);

			if (*al->budget < steps)
				break;
			*al->budget -= steps;
		}
		for (int r = 0; r < 2; r++) {
			long *c = r == 0 ? g : p, *d = r == 0 ? p : g;
			int o = r == 0 ? 1 : 0;

			for (long k = -(h - 2 * max_l(0, h - m)); k <= h - 2 * max_l(0, h - n);
			     k += 2) {
				long a = (k == -h ||
					  (k != h && c[wrap(k - 1, z)] < c[wrap(k + 1, z)]))
						 ? c[wrap(k + 1, z)]
						 : c[wrap(k - 1, z)] + 1;
				long b = a - k, s = a, t = b, zz;

				while (a < n && b < m && eq(al, i, n, j, m, a, b, o)) {
					a++;
					b++;
				}
				c[wrap(k, z)] = a;
				zz = -(k - w);
				if (l % 2 == o && zz >= -(h - o) && zz <= h - o &&
				    c[wrap(k, z)] + d[wrap(zz, z)] >= n) {
					long dd = o ? 2 * h - 1 : 2 * h;
					long x = o ? s : n - a, y = o ? t : m - b;
					long u = o ? a : n - s, v = o ? b : m - t;

					free(g);
					free(p);
					if (dd > 1 || (x != u && y != v)) {
						diff(al, i, (size_t)x, j, (size_t)y);
						diff(al, i + (size_t)u, (size_t)(n - u),
						     j + (size_t)v, (size_t)(m - v));
					} else if (m > n) {
						diff(al, i + (size_t)n, 0, j + (size_t)n,
						     (size_t)(m - n));
					} else if (m < n) {
						diff(al, i + (size_t)m, (size_t)(n - m),
						     j + (size_t)m, 0);
					}
					return true;
				}
			}
		}
	}
	free(g);
	free(p);
	return false;
}

static void diff(struct aligner *al, size_t i, size_t n, size_t j, size_t m)
{
	/* common prefix and suffix first: most of two similar runs */
	while (n > 0 && m > 0 && al->a[i] == al->b[j]) {
		i++, j++;
		n--, m--;
	}
	while (n > 0 && m > 0 && al->a[i + n - 1] == al->b[j + m - 1]) {
		n--;
		m--;
	}
	if (n == 0 || m == 0) {
		all_different(al, i, n, j, m);
		return;
	}
	if (!split(al, i, (long)n, j, (long)m)) {
		al->gave_up++;
		all_different(al, i, n, j, m);
	}
}

size_t rpl_align(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, size_t max_d,
		 uint64_t *budget, rpl_align_fn fn, void *ctx)
{
	struct aligner al = {
		.a = a, .b = b, .max_d = max_d, .budget = budget, .fn = fn, .ctx = ctx
	};

	diff(&al, 0, na, 0, nb);
	same_until(&al, na, nb);
	return al.gave_up;
}
