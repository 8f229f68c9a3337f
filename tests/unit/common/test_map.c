/* Unit tests of common/map.h: the one hash map. */
#include "common/map.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static void test_map_put_get_replace(void **state)
{
	cleanup_map struct repro_map *m = repro_map_new();
	size_t v = 99;

	assert_false(repro_map_get(m, 0, &v));
	assert_int_equal(v, 99); /* untouched when absent */
	assert_true(repro_map_put(m, 0, 7)); /* key 0 is a key like any other */
	assert_true(repro_map_put(m, UINT64_MAX, 8));
	assert_false(repro_map_put(m, 0, 9)); /* replaced, not new */
	assert_true(repro_map_get(m, 0, &v));
	assert_int_equal(v, 9);
	assert_true(repro_map_get(m, UINT64_MAX, &v));
	assert_int_equal(v, 8);
	assert_int_equal(repro_map_count(m), 2);
}

/* 100,000 keys through growth, half removed, the rest still found; removed slots are reused. */
static void test_map_grow_and_remove(void **state)
{
	cleanup_map struct repro_map *m = repro_map_new();
	size_t v;

	for (uint64_t k = 1; k <= 100000; k++)
		assert_true(repro_map_put(m, k * 4096, (size_t)k));
	for (uint64_t k = 1; k <= 100000; k += 2)
		assert_true(repro_map_del(m, k * 4096));
	assert_false(repro_map_del(m, 4096));
	assert_int_equal(repro_map_count(m), 50000);
	for (uint64_t k = 1; k <= 100000; k++) {
		bool found = repro_map_get(m, k * 4096, &v);

		assert_int_equal(found, k % 2 == 0);
		if (found)
			assert_int_equal(v, k);
	}
	/* a table that keeps removing and adding stays usable (removed slots are reclaimed) */
	for (uint64_t round = 0; round < 200000; round++) {
		assert_true(repro_map_put(m, (1ull << 40) + round, 1));
		assert_true(repro_map_del(m, (1ull << 40) + round));
	}
	assert_int_equal(repro_map_count(m), 50000);
}

static void test_map_string_keys(void **state)
{
	cleanup_map struct repro_map *m = repro_map_new();
	const char *a = "/srv/app/cache/model.pth", *b = "/srv/app/cache/model.pt";

	assert_true(repro_map_put(m, repro_map_key_str(a, strlen(a)), 0));
	assert_true(repro_map_put(m, repro_map_key_str(b, strlen(b)), 0));
	assert_false(repro_map_put(m, repro_map_key_str(a, strlen(a)), 0));
	assert_int_equal(repro_map_key_str(a, strlen(a)), repro_map_key_str(a, strlen(a)));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_put_get_replace),
		cmocka_unit_test(test_map_grow_and_remove),
		cmocka_unit_test(test_map_string_keys),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
