/* Unit tests of launcher/tasks.h: the table of traced tasks (a dense array and the one hash map). */
#include "launcher/tasks.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define MANY 5000

static int setup(void **state)
{
	static struct lnch_tasks t;

	lnch_tasks_init(&t);
	*state = &t;
	return 0;
}

static int teardown(void **state)
{
	lnch_tasks_release(*state);
	return 0;
}

static void test_tasks_empty(void **state)
{
	struct lnch_tasks *t = *state;

	assert_int_equal(t->count, 0);
	assert_int_equal(t->n, 0);
	assert_null(lnch_tasks_get(t, 1));
	assert_null(lnch_tasks_get(t, 4242));
	lnch_tasks_del(t, 1); /* deleting a missing tid is a no-op */
	assert_int_equal(t->count, 0);
	assert_int_equal(t->n, 0);
}

static void test_tasks_put_creates_zeroed_and_is_idempotent(void **state)
{
	struct lnch_tasks *t = *state;
	struct lnch_task *a = lnch_tasks_put(t, 100);

	assert_non_null(a);
	assert_int_equal(a->tid, 100);
	assert_int_equal(a->pid, 0);
	assert_false(a->in_syscall);
	assert_false(a->injected);
	assert_int_equal(a->inject_ret, 0);
	a->pid = 99;
	a->in_syscall = true;
	/* a second put of the same tid returns the existing task, data kept */
	assert_ptr_equal(lnch_tasks_put(t, 100), a);
	assert_int_equal(a->pid, 99);
	assert_true(a->in_syscall);
	assert_int_equal(t->count, 1);
	assert_ptr_equal(lnch_tasks_get(t, 100), a);
}

static void fill(struct lnch_tasks *t, pid_t first, int n)
{
	for (int i = 0; i < n; i++) {
		struct lnch_task *k = lnch_tasks_put(t, first + i);

		k->pid = (first + i) / 4 + 1;
		k->inject_ret = (first + i) % 131;
		k->delay_exit_ns = (uint64_t)(first + i) * 1000u;
		k->seen_spawn = (i % 2) == 0;
	}
}

static void check(struct lnch_tasks *t, pid_t first, int n)
{
	for (int i = 0; i < n; i++) {
		struct lnch_task *k = lnch_tasks_get(t, first + i);

		assert_non_null(k);
		assert_int_equal(k->tid, first + i);
		assert_int_equal(k->pid, (first + i) / 4 + 1);
		assert_int_equal(k->inject_ret, (first + i) % 131);
		assert_int_equal(k->delay_exit_ns, (uint64_t)(first + i) * 1000u);
		assert_int_equal(k->seen_spawn, (i % 2) == 0);
	}
}

static void test_tasks_thousands_survive_rehash(void **state)
{
	struct lnch_tasks *t = *state;

	fill(t, 1000, MANY);
	assert_int_equal(t->count, MANY);
	assert_int_equal(t->n, MANY); /* no holes */
	check(t, 1000, MANY);
	assert_null(lnch_tasks_get(t, 999));
	assert_null(lnch_tasks_get(t, 1000 + MANY));
}

static void test_tasks_large_and_sparse_tids(void **state)
{
	struct lnch_tasks *t = *state;

	/* pid_max can be 4194304; tids a multiple of the table size apart collide in low bits */
	for (int i = 0; i < 2000; i++)
		lnch_tasks_put(t, 4194304 - i * 2048)->pid = i + 1;
	for (int i = 0; i < 2000; i++) {
		struct lnch_task *k = lnch_tasks_get(t, 4194304 - i * 2048);

		assert_non_null(k);
		assert_int_equal(k->pid, i + 1);
	}
	assert_int_equal(t->count, 2000);
}

static void test_tasks_del_keeps_others(void **state)
{
	struct lnch_tasks *t = *state;

	fill(t, 1, MANY);
	for (int i = 1; i <= MANY; i += 2)
		lnch_tasks_del(t, i);
	assert_int_equal(t->count, MANY / 2);
	for (int i = 1; i <= MANY; i++) {
		struct lnch_task *k = lnch_tasks_get(t, i);

		if (i % 2 == 1) {
			assert_null(k);
		} else {
			assert_non_null(k);
			assert_int_equal(k->pid, i / 4 + 1);
		}
	}
	/* delete twice: no change */
	lnch_tasks_del(t, 1);
	assert_int_equal(t->count, MANY / 2);
}

static void test_tasks_put_again_after_del(void **state)
{
	struct lnch_tasks *t = *state;
	struct lnch_task *k;

	lnch_tasks_put(t, 7)->pid = 70;
	lnch_tasks_del(t, 7);
	assert_int_equal(t->count, 0);
	assert_null(lnch_tasks_get(t, 7));
	/* the same tid again comes back zeroed */
	k = lnch_tasks_put(t, 7);
	assert_int_equal(k->tid, 7);
	assert_int_equal(k->pid, 0);
	assert_int_equal(k->last_entry_nr, -1);
	assert_int_equal(t->count, 1);
	lnch_tasks_del(t, 7);

	/* a long churn of short-lived tids (fork-heavy builds) must not grow the table */
	for (pid_t tid = 10; tid < 10 + 20 * MANY; tid++) {
		lnch_tasks_put(t, tid)->pid = tid;
		assert_int_equal(lnch_tasks_get(t, tid)->pid, tid);
		lnch_tasks_del(t, tid);
	}
	assert_int_equal(t->count, 0);
	assert_int_equal(t->n, 0);
	assert_null(lnch_tasks_get(t, 10));
}

static void test_tasks_churn_with_live_set(void **state)
{
	struct lnch_tasks *t = *state;

	/* 300 live tasks while thousands come and go around them */
	fill(t, 1, 300);
	for (pid_t tid = 1000; tid < 1000 + 10 * MANY; tid++) {
		lnch_tasks_put(t, tid);
		if (tid >= 1050)
			lnch_tasks_del(t, tid - 50);
	}
	assert_int_equal(t->count, 300 + 50);
	check(t, 1, 300);
	for (pid_t tid = 1000 + 10 * MANY - 50; tid < 1000 + 10 * MANY; tid++)
		assert_non_null(lnch_tasks_get(t, tid));
	assert_null(lnch_tasks_get(t, 1000 + 10 * MANY - 51));
	assert_true(t->n <= 2 * t->count + 1); /* holes never outnumber the tasks for long */
}

/* Iteration follows the order of arrival, through removals and the compaction they cause. */
static void test_tasks_in_arrival_order(void **state)
{
	struct lnch_tasks *t = *state;
	pid_t last = 0;
	size_t seen = 0;

	for (pid_t tid = 4000; tid > 0; tid -= 10)
		lnch_tasks_put(t, tid);
	for (pid_t tid = 4000; tid > 0; tid -= 10)
		if (tid % 30 != 0)
			lnch_tasks_del(t, tid); /* two in three go: compacted on the way */
	lnch_tasks_put(t, 5); /* a newcomer comes last */
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].tid <= 0)
			continue;
		assert_true(last == 0 || t->v[i].tid < last);
		assert_ptr_equal(lnch_tasks_get(t, t->v[i].tid), &t->v[i]);
		last = t->v[i].tid;
		seen++;
	}
	assert_int_equal(last, 5);
	assert_int_equal(seen, t->count);
	assert_int_equal(t->count, 133 + 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tasks_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tasks_put_creates_zeroed_and_is_idempotent,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_tasks_thousands_survive_rehash, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tasks_large_and_sparse_tids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tasks_del_keeps_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tasks_put_again_after_del, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tasks_churn_with_live_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tasks_in_arrival_order, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
