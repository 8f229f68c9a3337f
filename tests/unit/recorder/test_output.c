/* Unit tests of recorder/output.h: the ring of the last bytes a process said, and reading them at a write's entry. */
#include "recorder/output.h"
#include "launcher/abi.h"
#include "common/cleanup.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

static size_t copy_of(const struct rec_outring *ring, char *out)
{
	return rec_outring_copy(ring, out);
}

static void test_output_ring_short(void **state)
{
	(void)state;
	cleanup_free struct rec_outring *ring = calloc(1, sizeof(*ring));
	char out[REC_OUTPUT_KEEP];

	assert_int_equal(copy_of(ring, out), 0);
	rec_outring_append(ring, "hello ", 6);
	rec_outring_append(ring, "world\n", 6);
	assert_int_equal(copy_of(ring, out), 12);
	assert_memory_equal(out, "hello world\n", 12);
	assert_int_equal(ring->total, 12);
	assert_false(rec_outring_is_cut(ring));
}

/* Appends that wrap around keep the last REC_OUTPUT_KEEP bytes, oldest first. */
static void test_output_ring_wraps(void **state)
{
	(void)state;
	cleanup_free struct rec_outring *ring = calloc(1, sizeof(*ring));
	cleanup_free char *out = malloc(REC_OUTPUT_KEEP);
	char chunk[1000];
	uint64_t n = 0;

	for (int i = 0; i < 30; i++) {
		for (size_t j = 0; j < sizeof(chunk); j++)
			chunk[j] = (char)('a' + (n + j) % 26);
		rec_outring_append(ring, chunk, sizeof(chunk));
		n += sizeof(chunk);
	}
	assert_int_equal(ring->total, 30000);
	assert_true(rec_outring_is_cut(ring));
	assert_int_equal(copy_of(ring, out), REC_OUTPUT_KEEP);
	for (size_t j = 0; j < REC_OUTPUT_KEEP; j++)
		assert_int_equal(out[j], (char)('a' + (30000 - REC_OUTPUT_KEEP + j) % 26));
}

/* One append larger than the ring keeps its end; exactly full is not cut. */
static void test_output_ring_large_append(void **state)
{
	(void)state;
	cleanup_free struct rec_outring *ring = calloc(1, sizeof(*ring));
	cleanup_free char *big = malloc(3 * REC_OUTPUT_KEEP);
	cleanup_free char *out = malloc(REC_OUTPUT_KEEP);

	for (size_t j = 0; j < 3 * REC_OUTPUT_KEEP; j++)
		big[j] = (char)(j % 251);
	rec_outring_append(ring, big, REC_OUTPUT_KEEP);
	assert_false(rec_outring_is_cut(ring));
	rec_outring_append(ring, "x", 1);
	rec_outring_append(ring, big, 3 * REC_OUTPUT_KEEP);
	assert_true(rec_outring_is_cut(ring));
	assert_int_equal(ring->total, 4 * REC_OUTPUT_KEEP + 1);
	assert_int_equal(copy_of(ring, out), REC_OUTPUT_KEEP);
	assert_memory_equal(out, big + 2 * REC_OUTPUT_KEEP, REC_OUTPUT_KEEP);
}

/* Bytes that could not be read count towards the total only. */
static void test_output_ring_skip(void **state)
{
	(void)state;
	cleanup_free struct rec_outring *ring = calloc(1, sizeof(*ring));
	char out[REC_OUTPUT_KEEP];

	rec_outring_append(ring, "ab", 2);
	rec_outring_skip(ring, 100);
	rec_outring_append(ring, "cd", 2);
	assert_int_equal(ring->total, 104);
	assert_true(rec_outring_is_cut(ring));
	assert_int_equal(copy_of(ring, out), 4);
	assert_memory_equal(out, "abcd", 4);
}

static struct lnch_stop entry_stop(uint64_t fd, const void *buf, uint64_t count)
{
	return (struct lnch_stop){ .tid = getpid(),
				   .pid = getpid(),
				   .is_entry = true,
				   .arch = lnch_arch_audit_token(),
				   .args = { fd, (uint64_t)(uintptr_t)buf, count },
				   .t_ns = 42 };
}

/* write: the bytes it asks to write are kept, from the tracee's memory at its entry. */
static void test_output_entry_write(void **state)
{
	(void)state;
	struct rec_output *o = rec_output_new();
	static const char msg[] = "error: cannot open /srv/x\nnot written";
	struct lnch_stop st = entry_stop(2, msg, 26);
	struct bndl_event ev;

	rec_output_entry(o, &st, BNDL_OUTPUT_STDERR, false);
	st = entry_stop(2, msg, 0); /* nothing to write */
	rec_output_entry(o, &st, BNDL_OUTPUT_STDERR, false);
	assert_true(rec_output_take(o, getpid(), &ev));
	assert_int_equal(ev.type, BNDL_REC_OUTPUT);
	assert_int_equal(ev.args[0], BNDL_OUTPUT_STDERR);
	assert_int_equal(ev.args[1], 26);
	assert_int_equal(ev.t_ns, 42);
	assert_int_equal(ev.nblobs, 1);
	assert_int_equal(ev.blobs[0].kind, BNDL_BLOB_OUT);
	assert_int_equal(ev.blobs[0].len, 26);
	assert_memory_equal(ev.blobs[0].data, msg, 26);
	assert_false(rec_output_take(o, getpid(), &ev)); /* taken once */
	assert_int_equal(rec_output_next_pid(o), 0);
	rec_output_free(o);
}

/* writev: the last bytes across the iovecs; a big write keeps its end, flagged. */
static void test_output_entry_writev(void **state)
{
	(void)state;
	struct rec_output *o = rec_output_new();
	cleanup_free char *big = malloc(20000);
	struct iovec iov[3];
	struct lnch_stop st = entry_stop(1, iov, 3);
	struct bndl_event ev;

	memset(big, 'x', 20000);
	iov[0] = (struct iovec){ big, 20000 };
	iov[1] = (struct iovec){ "\nfail", 5 };
	iov[2] = (struct iovec){ "ed\n", 3 };
	rec_output_entry(o, &st, BNDL_OUTPUT_STDOUT, true);
	assert_int_equal(rec_output_next_pid(o), getpid());
	assert_true(rec_output_take(o, getpid(), &ev));
	assert_int_equal(ev.args[0], BNDL_OUTPUT_STDOUT);
	assert_int_equal(ev.args[1], 20008);
	assert_int_equal(ev.blobs[0].kind, BNDL_BLOB_OUT | BNDL_BLOB_TRUNCATED);
	assert_int_equal(ev.blobs[0].len, REC_OUTPUT_KEEP);
	assert_memory_equal((const char *)ev.blobs[0].data + REC_OUTPUT_KEEP - 8, "\nfailed\n", 8);
	assert_int_equal(((const char *)ev.blobs[0].data)[0], 'x');
	rec_output_free(o);
}

/* An unreadable buffer is counted, not kept. */
static void test_output_entry_unreadable(void **state)
{
	(void)state;
	struct rec_output *o = rec_output_new();
	struct lnch_stop st = entry_stop(2, (void *)8, 100);
	struct bndl_event ev;

	rec_output_entry(o, &st, BNDL_OUTPUT_STDERR, false);
	assert_true(rec_output_take(o, getpid(), &ev));
	assert_int_equal(ev.args[1], 100);
	assert_int_equal(ev.blobs[0].len, 0);
	assert_int_equal(ev.blobs[0].kind, BNDL_BLOB_OUT | BNDL_BLOB_TRUNCATED);
	rec_output_free(o);
}

/* Only stdout and stderr are kept, never stdin or another fd. */
static void test_output_wants_fds(void **state)
{
	(void)state;
	struct lnch_stop st = { .tid = getpid(), .pid = getpid(), .is_entry = true };

	st.args[0] = 0;
	assert_false(rec_output_wants(&st));
	st.args[0] = 5;
	assert_false(rec_output_wants(&st));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_ring_short),
		cmocka_unit_test(test_output_ring_wraps),
		cmocka_unit_test(test_output_ring_large_append),
		cmocka_unit_test(test_output_ring_skip),
		cmocka_unit_test(test_output_entry_write),
		cmocka_unit_test(test_output_entry_writev),
		cmocka_unit_test(test_output_entry_unreadable),
		cmocka_unit_test(test_output_wants_fds),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
