/* Unit tests of common/map.h: the one hash map. */
#include "common/map.h"
#include "common/map_internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* Strings get 0, 1, 2 … in the order first put, keep them, and come back as copies. */
static void test_strmap_indices_and_keys(void **state)
{
	cleanup_strmap struct repro_strmap *m = repro_strmap_new();
	char buf[] = "/etc/passwd";
	size_t i = 99, len;
	bool is_new;

	assert_false(repro_strmap_get(m, "x", 1, &i));
	assert_int_equal(i, 99); /* untouched when absent */
	assert_int_equal(repro_strmap_put(m, buf, strlen(buf), &is_new), 0);
	assert_true(is_new);
	assert_int_equal(repro_strmap_put(m, "", 0, NULL), 1); /* the empty string is a key */
	assert_int_equal(repro_strmap_put(m, "a\0b", 3, NULL), 2); /* bytes, not C strings */
	assert_int_equal(repro_strmap_put(m, "a", 1, NULL), 3);
	assert_int_equal(repro_strmap_put(m, "/etc/passwd", 11, &is_new), 0);
	assert_false(is_new);
	buf[1] = 'X'; /* the map holds its own copy */
	assert_string_equal(repro_strmap_key(m, 0, &len), "/etc/passwd");
	assert_int_equal(len, 11);
	assert_true(repro_strmap_get(m, "a\0b", 3, &i));
	assert_int_equal(i, 2);
	assert_memory_equal(repro_strmap_key(m, 2, NULL), "a\0b", 4);
	assert_int_equal(repro_strmap_count(m), 4);
	repro_strmap_clear(m);
	assert_int_equal(repro_strmap_count(m), 0);
	assert_false(repro_strmap_get(m, "a", 1, &i));
	assert_int_equal(repro_strmap_put(m, "a", 1, NULL), 0); /* indices start again */
}

static uint64_t same_hash(const char *s, size_t len)
{
	(void)s;
	(void)len;
	return 42;
}

/* Strings whose hashes collide stay distinct keys: they are compared, not their hashes. */
static void test_strmap_collisions(void **state)
{
	cleanup_strmap struct repro_strmap *m = repro_strmap_new_hashed(same_hash);
	char key[32];
	size_t i;

	for (int k = 0; k < 100; k++) {
		snprintf(key, sizeof(key), "/tmp/f%d", k);
		assert_int_equal(repro_strmap_put(m, key, strlen(key), NULL), (size_t)k);
	}
	for (int k = 99; k >= 0; k--) {
		snprintf(key, sizeof(key), "/tmp/f%d", k);
		assert_true(repro_strmap_get(m, key, strlen(key), &i));
		assert_int_equal(i, (size_t)k);
		assert_string_equal(repro_strmap_key(m, i, NULL), key);
	}
	assert_false(repro_strmap_get(m, "/tmp/f100", 9, &i));
	assert_false(repro_strmap_get(m, "/tmp/f1", 6, &i)); /* a prefix is another string */
	assert_int_equal(repro_strmap_count(m), 100);
}

/* Many strings through the map's growth: each found at its index, its key not moved. */
static void test_strmap_many(void **state)
{
	cleanup_strmap struct repro_strmap *m = repro_strmap_new();
	const char *first;
	char key[32];
	size_t i;

	first = repro_strmap_key(m, repro_strmap_put(m, "first", 5, NULL), NULL);
	for (int k = 0; k < 50000; k++) {
		snprintf(key, sizeof(key), "%d", k);
		assert_int_equal(repro_strmap_put(m, key, strlen(key), NULL), (size_t)k + 1);
	}
	assert_ptr_equal(repro_strmap_key(m, 0, NULL), first);
	for (int k = 0; k < 50000; k++) {
		snprintf(key, sizeof(key), "%d", k);
		assert_true(repro_strmap_get(m, key, strlen(key), &i));
		assert_int_equal(i, (size_t)k + 1);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_put_get_replace),
		cmocka_unit_test(test_map_grow_and_remove),
		cmocka_unit_test(test_map_string_keys),
		cmocka_unit_test(test_strmap_indices_and_keys),
		cmocka_unit_test(test_strmap_collisions),
		cmocka_unit_test(test_strmap_many),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
