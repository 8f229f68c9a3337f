/*
 * Unit tests of recorder/socks.h: the watched-socket table's flags, and
 * the data phases chained per process (begin, end in any order, a
 * process's end walking its chain, the list at the recording's end), also
 * across the table's growth and the compaction of removed entries.
 */
#include "recorder/socks.h"
#include "bundles/spool.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

static void test_flags_keep_data(void **state)
{
	struct rec_socks s = { 0 };
	struct rec_sockstat out;

	(void)state;
	rec_socks_set(&s, 5, 3, REC_SOCK_DNS);
	assert_int_equal(rec_socks_get(&s, 5, 3), REC_SOCK_DNS);
	rec_socks_data_begin(&s, 5, 3);
	assert_int_equal(rec_socks_get(&s, 5, 3), REC_SOCK_DNS | REC_SOCK_DATA);
	/* clearing the watch flags leaves the data phase */
	rec_socks_set(&s, 5, 3, 0);
	assert_int_equal(rec_socks_get(&s, 5, 3), REC_SOCK_DATA);
	rec_socks_data(&s, 5, 3)->sent = 42;
	assert_true(rec_socks_data_end(&s, 5, 3, &out));
	assert_int_equal(out.sent, 42);
	assert_int_equal(rec_socks_get(&s, 5, 3), 0);
	assert_false(rec_socks_data_end(&s, 5, 3, &out));
	assert_int_equal(rec_socks_data_first(&s, 5), -1);
	assert_int_equal(s.n, 0); /* the head went with its last socket */
	rec_socks_release(&s);
}

/* Many processes with many sockets: every chain stays whole through growth and deletions. */
static void test_chains(void **state)
{
	struct rec_socks s = { 0 };
	struct rec_sockstat out;
	size_t n;
	uint64_t *all;

	(void)state;
	for (int32_t pid = 100; pid < 140; pid++)
		for (int32_t fd = 3; fd < 53; fd++) {
			rec_socks_data_begin(&s, pid, fd);
			rec_socks_data(&s, pid, fd)->received = (uint64_t)(pid * 1000 + fd);
		}
	/* end the odd fds of every process, middle of the chain first */
	for (int32_t pid = 100; pid < 140; pid++)
		for (int32_t fd = 51; fd >= 3; fd -= 2) {
			assert_true(rec_socks_data_end(&s, pid, fd, &out));
			assert_int_equal(out.received, (uint64_t)(pid * 1000 + fd));
		}
	all = rec_socks_data_list(&s, &n);
	assert_int_equal(n, 40 * 25);
	free(all);
	/* a process's end: its chain gives exactly its even fds */
	for (int32_t pid = 100; pid < 140; pid++) {
		unsigned seen = 0;

		for (int32_t fd; (fd = rec_socks_data_first(&s, pid)) >= 0; seen++) {
			assert_true(fd % 2 == 0);
			assert_true(rec_socks_data_end(&s, pid, fd, &out));
			assert_int_equal(out.received, (uint64_t)(pid * 1000 + fd));
		}
		assert_int_equal(seen, 25);
	}
	assert_int_equal(s.n, 0);
	rec_socks_release(&s);
}

/* The list at the recording's end comes in the order the sockets were added, holes skipped. */
static void test_list_in_order(void **state)
{
	struct rec_socks s = { 0 };
	struct rec_sockstat out;
	uint64_t *all;
	size_t n, k = 0;

	(void)state;
	for (int32_t fd = 3; fd < 3003; fd++)
		rec_socks_data_begin(&s, 7, fd);
	for (int32_t fd = 3; fd < 3003; fd++)
		if (fd % 3 != 0)
			assert_true(rec_socks_data_end(&s, 7, fd, &out)); /* compacts on the way */
	rec_socks_data_begin(&s, 8, 1); /* a newcomer comes last */
	all = rec_socks_data_list(&s, &n);
	assert_int_equal(n, 1000 + 1);
	for (int32_t fd = 3; fd < 3003; fd++)
		if (fd % 3 == 0)
			assert_int_equal(all[k++], (uint64_t)7 << 32 | (uint32_t)fd);
	assert_int_equal(all[k], (uint64_t)8 << 32 | 1);
	assert_true(s.len <= 2 * s.n + 1);
	free(all);
	rec_socks_release(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_keep_data),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_list_in_order),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
