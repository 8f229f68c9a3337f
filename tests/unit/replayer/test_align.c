/*
 * Unit tests of replayer/readers/align.h and replayer/readers/normalize.h: Myers' alignment
 * checked against a quadratic LCS on random sequences (each element once, in
 * order; SAME pairs equal; as many edits as the shortest edit script), the
 * cost bound, and the normalisation of paths between machines.
 */
#include "replayer/readers/align.h"
#include "replayer/readers/normalize.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct script {
	const uint64_t *a, *b;
	size_t na, nb, next_a, next_b, edits, same;
	bool bad;
};

static void on_op(void *ctx, enum rpl_align_op op, size_t ia, size_t ib)
{
	struct script *s = ctx;

	switch (op) {
	case RPL_ALIGN_SAME:
		s->bad |= ia != s->next_a || ib != s->next_b || s->a[ia] != s->b[ib];
		s->next_a++, s->next_b++, s->same++;
		break;
	case RPL_ALIGN_DEL:
		s->bad |= ia != s->next_a;
		s->next_a++, s->edits++;
		break;
	case RPL_ALIGN_INS:
		s->bad |= ib != s->next_b;
		s->next_b++, s->edits++;
		break;
	}
}

static size_t lcs(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t *row = calloc((nb + 1) * (na + 1), sizeof(size_t));
	size_t r;

	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++)
			row[i * (nb + 1) + j] =
				a[i - 1] == b[j - 1]
					? row[(i - 1) * (nb + 1) + j - 1] + 1
					: (row[(i - 1) * (nb + 1) + j] > row[i * (nb + 1) + j - 1]
						   ? row[(i - 1) * (nb + 1) + j]
						   : row[i * (nb + 1) + j - 1]);
	r = row[na * (nb + 1) + nb];
	free(row);
	return r;
}

static void test_random_against_lcs(void **state)
{
	uint64_t a[80], b[80];

	srand(42);
	for (int round = 0; round < 3000; round++) {
		size_t na = (size_t)rand() % 40, nb = (size_t)rand() % 40;
		unsigned alphabet = 2 + (unsigned)rand() % 6;
		struct script s = { .a = a, .b = b, .na = na, .nb = nb };

		for (size_t i = 0; i < na; i++)
			a[i] = (uint64_t)(rand() % (int)alphabet);
		/* b: often a mutation of a, sometimes independent */
		for (size_t i = 0; i < nb; i++)
			b[i] = (round % 2 && i < na && rand() % 4)
				       ? a[i]
				       : (uint64_t)(rand() % (int)alphabet);
		assert_int_equal(rpl_align(a, na, b, nb, 0, NULL, on_op, &s), 0);
		assert_false(s.bad);
		assert_int_equal(s.next_a, na);
		assert_int_equal(s.next_b, nb);
		assert_int_equal(s.same, lcs(a, na, b, nb));
	}
}

static void test_cost_bound(void **state)
{
	enum { N = 20000 };
	uint64_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	struct script s = { .a = a, .b = b, .na = N, .nb = N };

	for (size_t i = 0; i < N; i++) {
		a[i] = i;
		b[i] = i + N; /* nothing in common */
	}
	assert_int_equal(rpl_align(a, N, b, N, 100, NULL, on_op, &s), 1);
	assert_false(s.bad);
	assert_int_equal(s.edits, 2 * N);
	/* one call more on one side: found exactly, whatever the length */
	for (size_t i = 0; i < N; i++)
		b[i] = a[i];
	b[N / 2] = 7777777;
	s = (struct script){ .a = a, .b = b, .na = N, .nb = N };
	assert_int_equal(rpl_align(a, N, b, N, 100, NULL, on_op, &s), 0);
	assert_int_equal(s.same, N - 1);
	/* a spent budget: the differing stretch is taken as all different, prefix and suffix kept */
	{
		uint64_t budget = 0;

		s = (struct script){ .a = a, .b = b, .na = N, .nb = N };
		assert_int_equal(rpl_align(a, N, b, N, 0, &budget, on_op, &s), 1);
		assert_false(s.bad);
		assert_int_equal(s.same, N - 1);
	}
	free(a);
	free(b);
}

static void expect_norm(const struct rpl_norm *n, const char *in, const char *want)
{
	char *got = rpl_norm_path(n, in);

	if (strcmp(got, want) != 0)
		fail_msg("normalise %s: got %s, want %s", in, got, want);
	free(got);
}

static void test_normalize(void **state)
{
	struct rpl_norm n = { .cwd = "/tmp/repro-case.dhnAJe/tmp", .home = "/home/ann" };
	char map[] = "/opt/app=/srv/app";
	const char *from, *to;

	expect_norm(&n, "/tmp/repro-case.dhnAJe/tmp/app/x.conf", "<cwd>/app/x.conf");
	expect_norm(&n, "/tmp/repro-case.dhnAJe/tmpfoo", "/tmp/repro-case.XXXXXX/tmpfoo");
	expect_norm(&n, "/home/ann/.config/app.toml", "~/.config/app.toml");
	expect_norm(&n, "/home/anna/x", "/home/anna/x");
	expect_norm(&n, "/tmp/tmp.Qz81bYc0Lm/out", "/tmp/tmp.XXXXXX/out");
	expect_norm(&n, "/tmp/tmpa8b_kz1q/data", "/tmp/tmpXXXXXX/data");
	/* straight in /tmp any letters and digits are random; elsewhere they must mix kinds */
	expect_norm(&n, "/tmp/run.abcdef/x", "/tmp/run.XXXXXX/x");
	expect_norm(&n, "/var/tmp/tmpabcdefgh", "/var/tmp/tmpXXXXXX");
	expect_norm(&n, "/etc/app/run.abcdef", "/etc/app/run.abcdef");
	expect_norm(&n, "/proc/4242/status", "/proc/<pid>/status");
	expect_norm(&n, "/usr/lib/python3.11/os.py", "/usr/lib/python3.11/os.py");
	expect_norm(&n, "/etc/systemd/system/app.service", "/etc/systemd/system/app.service");
	/* temp suffixes of writers that rename into place */
	expect_norm(&n, "/srv/app/__pycache__/app.cpython-311.pyc.140221863",
		    "/srv/app/__pycache__/app.cpython-311.pyc.NNN");
	expect_norm(&n, "/srv/app/state.json.tmp.4711", "/srv/app/state.json.tmp.NNN");
	expect_norm(&n, "/srv/app/state.json.4711.tmp", "/srv/app/state.json.NNN.tmp");
	expect_norm(&n, "/srv/app/x.tmp1", "/srv/app/x.tmp1");
	expect_norm(&n, "/usr/lib/libc.so.6", "/usr/lib/libc.so.6");
	assert_int_equal(rpl_norm_map_parse(map, &from, &to), 0);
	n.map_from[0] = from;
	n.map_to[0] = to;
	n.nmaps = 1;
	expect_norm(&n, "/opt/app/bin/run", "/srv/app/bin/run");
	/* a mapped path still gets the cwd of its side (mapped too, by the caller) */
	n.cwd = "/srv/app";
	expect_norm(&n, "/opt/app/bin/run", "<cwd>/bin/run");
	expect_norm(&n, "/opt/apps/x", "/opt/apps/x");
	{
		char bad1[] = "relative=/x", bad2[] = "/no-equals", bad3[] = "/=/x";

		assert_int_equal(rpl_norm_map_parse(bad1, &from, &to), -1);
		assert_int_equal(rpl_norm_map_parse(bad2, &from, &to), -1);
		assert_int_equal(rpl_norm_map_parse(bad3, &from, &to), -1);
		assert_string_equal(bad3, "/=/x");
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_against_lcs),
		cmocka_unit_test(test_cost_bound),
		cmocka_unit_test(test_normalize),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
