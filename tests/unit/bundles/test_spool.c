#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "bundles/spool.h"
#include "bundles/spool_internal.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static int setup(void **state)
{
	*state = fx_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	fx_rmtree(*state);
	free(*state);
	return 0;
}

static char *spool_path(const char *dir)
{
	return repro_xasprintf("%s/%s", dir, BNDL_SPOOL_FILE);
}

static void write_file(const char *path, const void *data, size_t len)
{
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
}

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static struct bndl_spool_reader *reader_or_fail(const char *dir)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool_reader *r = bndl_spool_reader_open(dir, &err);

	assert_non_null(r);
	return r;
}

/* Write n numbered openat events; returns the file size after close. */
static void write_events(const char *dir, int n)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp = bndl_spool_open(dir, &err);
	char path[64];

	assert_non_null(sp);
	for (int i = 0; i < n; i++) {
		struct bndl_event ev;

		snprintf(path, sizeof(path), "/p/%d", i);
		ev = fx_syscall((uint64_t)i + 1, (uint64_t)i * 10, 7, FX_OPENAT, path, "O_RDONLY",
				-ENOENT);
		fx_append(sp, &ev);
	}
	assert_int_equal(bndl_spool_count(sp), (uint64_t)n);
	assert_int_equal(bndl_spool_close(sp, &err), 0);
}

static void test_spool_round_trip_with_blobs(void **state)
{
	const char *dir = *state;
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp = bndl_spool_open(dir, &err);
	struct bndl_spool_reader *r;
	static const char argv[] = "python3\0webui.py";
	struct bndl_event ev = fx_syscall(42, 1234, 4242, FX_OPENAT, "/srv/app/cache_hub/model.pth",
					  "O_RDONLY|O_CLOEXEC", -ENOENT);
	const struct bndl_blob *b;

	assert_non_null(sp);
	ev.tid = 4243;
	ev.dur_ns = 2100;
	ev.arch = 0xc000003e;
	ev.args[0] = (uint64_t)-100;
	ev.args[5] = 77;
	ev.flags = BNDL_EV_INJECTED;
	ev.blobs[ev.nblobs++] = (struct bndl_blob){
		.kind = BNDL_BLOB_ARGV, .argi = 1, .len = sizeof(argv), .data = argv
	};
	fx_append(sp, &ev);
	fx_proc_exit(sp, 4242, 99999, 1 << 8);
	assert_int_equal(bndl_spool_close(sp, &err), 0);

	r = reader_or_fail(dir);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 1);
	assert_int_equal(ev.type, BNDL_REC_SYSCALL);
	assert_int_equal(ev.seq, 42);
	assert_int_equal(ev.t_ns, 1234);
	assert_int_equal(ev.dur_ns, 2100);
	assert_int_equal(ev.pid, 4242);
	assert_int_equal(ev.tid, 4243);
	assert_int_equal(ev.nr, FX_OPENAT);
	assert_int_equal(ev.arch, 0xc000003e);
	assert_int_equal(ev.args[0], (uint64_t)-100);
	assert_int_equal(ev.args[5], 77);
	assert_int_equal(ev.ret, -ENOENT);
	assert_int_equal(ev.flags, BNDL_EV_INJECTED);
	assert_int_equal(ev.nblobs, 3);
	b = bndl_event_blob(&ev, BNDL_BLOB_PATH, 1);
	assert_non_null(b);
	assert_string_equal(b->data, "/srv/app/cache_hub/model.pth");
	b = bndl_event_blob(&ev, BNDL_BLOB_ARGV, 1);
	assert_non_null(b);
	assert_int_equal(b->len, sizeof(argv));
	assert_memory_equal(b->data, argv, sizeof(argv));
	assert_null(bndl_event_blob(&ev, BNDL_BLOB_ARGV, 0));
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 1);
	assert_int_equal(ev.type, BNDL_REC_PROC_EXIT);
	assert_int_equal(ev.status, 1 << 8);
	assert_int_equal(ev.nblobs, 0);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 0);
	assert_false(bndl_spool_reader_was_truncated(r));
	bndl_spool_reader_free(r);
}

/* Append an exec record with argv and envp blobs of ARGV_LEN and ENV_LEN bytes of BIG. */
static void append_exec(struct bndl_spool *sp, uint64_t seq, const char *big, uint32_t argv_len,
			uint32_t env_len)
{
	struct bndl_event ev = { .type = BNDL_REC_PROC_EXEC, .seq = seq, .nblobs = 2 };

	ev.blobs[0] = (struct bndl_blob){
		.kind = BNDL_BLOB_ARGV, .argi = 1, .len = argv_len, .data = big
	};
	ev.blobs[1] = (struct bndl_blob){
		.kind = BNDL_BLOB_ARGV, .argi = 2, .len = env_len, .data = big
	};
	fx_append(sp, &ev);
}

/* The next record: its argv and envp blobs must have these lengths and kinds. */
static void expect_exec(struct bndl_spool_reader *r, uint32_t argv_len, uint16_t argv_kind,
			uint32_t env_len, uint16_t env_kind)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_event ev;

	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 1);
	assert_int_equal(ev.nblobs, 2);
	assert_int_equal(ev.blobs[0].len, argv_len);
	assert_int_equal(ev.blobs[0].kind, argv_kind);
	assert_int_equal(ev.blobs[1].len, env_len);
	assert_int_equal(ev.blobs[1].kind, env_kind);
}

/*
 * An exec's argv and envp up to BNDL_ARGV_MAX together stay whole; beyond
 * it, the one that crosses the limit is cut there and the next keeps nothing.
 */
static void test_spool_argv_blob_limits(void **state)
{
	const uint16_t cut = BNDL_BLOB_ARGV | BNDL_BLOB_TRUNCATED;
	const char *dir = *state;
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp = bndl_spool_open(dir, &err);
	cleanup_free char *big = repro_xmalloc(BNDL_ARGV_MAX + 100);
	struct bndl_spool_reader *r;
	struct bndl_event ev;

	memset(big, 'a', BNDL_ARGV_MAX + 100);
	append_exec(sp, 1, big, 1u << 20, 1u << 20);
	append_exec(sp, 2, big, BNDL_ARGV_MAX - 100, 1u << 20);
	append_exec(sp, 3, big, BNDL_ARGV_MAX + 100, 1u << 20);
	append_exec(sp, 4, big, 0, BNDL_ARGV_MAX);
	assert_int_equal(bndl_spool_close(sp, &err), 0);
	r = reader_or_fail(dir);
	expect_exec(r, 1u << 20, BNDL_BLOB_ARGV, 1u << 20, BNDL_BLOB_ARGV);
	expect_exec(r, BNDL_ARGV_MAX - 100, BNDL_BLOB_ARGV, 100, cut);
	expect_exec(r, BNDL_ARGV_MAX, cut, 0, cut);
	expect_exec(r, 0, BNDL_BLOB_ARGV, BNDL_ARGV_MAX, BNDL_BLOB_ARGV);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 0);
	assert_null(err);
	bndl_spool_reader_free(r);
}

/* Many records (several buffer flushes) and a record larger than the buffer. */
static void test_spool_large_records_and_many(void **state)
{
	const char *dir = *state;
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp = bndl_spool_open(dir, &err);
	cleanup_free char *big = repro_xmalloc(BNDL_BLOB_MAX + 100);
	struct bndl_spool_reader *r;
	struct bndl_event ev = { .type = BNDL_REC_SYSCALL,
				 .seq = 1,
				 .nblobs = BNDL_EVENT_MAX_BLOBS };
	uint64_t n = 0;

	memset(big, 'x', BNDL_BLOB_MAX + 100);
	for (int i = 0; i < BNDL_EVENT_MAX_BLOBS; i++)
		ev.blobs[i] = (struct bndl_blob){ .kind = BNDL_BLOB_STR,
						  .argi = (uint16_t)i,
						  .len = BNDL_BLOB_MAX + 100,
						  .data = big };
	fx_append(sp, &ev);
	for (int i = 0; i < 20000; i++) {
		ev = fx_syscall((uint64_t)i + 2, 0, 1, FX_READ, "/x", NULL, 0);
		fx_append(sp, &ev);
	}
	assert_int_equal(bndl_spool_close(sp, &err), 0);
	r = reader_or_fail(dir);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 1);
	assert_int_equal(ev.nblobs, BNDL_EVENT_MAX_BLOBS);
	for (int i = 0; i < BNDL_EVENT_MAX_BLOBS; i++) {
		assert_int_equal(ev.blobs[i].len, BNDL_BLOB_MAX);
		assert_int_equal(ev.blobs[i].kind, BNDL_BLOB_STR | BNDL_BLOB_TRUNCATED);
		assert_int_equal(ev.blobs[i].argi, i);
		assert_memory_equal(ev.blobs[i].data, big, BNDL_BLOB_MAX);
	}
	assert_non_null(bndl_event_blob(&ev, BNDL_BLOB_STR, 7));
	while (bndl_spool_reader_next(r, &ev, &err) == 1)
		assert_int_equal(ev.seq, ++n + 1);
	assert_null(err);
	assert_int_equal(n, 20000);
	assert_false(bndl_spool_reader_was_truncated(r));
	bndl_spool_reader_free(r);
}

static void test_spool_open_refuses_existing(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	write_events(*state, 1);
	assert_null(bndl_spool_open(*state, &err));
	assert_non_null(err);
	assert_int_equal(err->errnum, EEXIST);
}

static void test_spool_truncated_tail_is_end(void **state)
{
	const char *dir = *state;
	cleanup_free char *path = spool_path(dir);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool_reader *r;
	struct bndl_event ev;

	write_events(dir, 3);
	assert_int_equal(truncate(path, file_size(path) - 5), 0);
	r = reader_or_fail(dir);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 1);
	assert_int_equal(ev.seq, 1);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 1);
	assert_int_equal(ev.seq, 2);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 0);
	assert_null(err);
	assert_true(bndl_spool_reader_was_truncated(r));
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 0);
	bndl_spool_reader_free(r);
}

/* A tail cut inside the 8-byte record header is a truncation too. */
static void test_spool_truncated_in_header(void **state)
{
	const char *dir = *state;
	cleanup_free char *path = spool_path(dir);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool_reader *r;
	struct bndl_event ev;
	off_t one;

	write_events(dir, 1);
	one = file_size(path);
	fx_rmtree(dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	write_events(dir, 2);
	assert_int_equal(truncate(path, one + 3), 0);
	r = reader_or_fail(dir);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 1);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), 0);
	assert_true(bndl_spool_reader_was_truncated(r));
	bndl_spool_reader_free(r);
}

static void expect_open_eproto(const char *dir, const void *data, size_t len)
{
	cleanup_free char *path = spool_path(dir);
	cleanup_err struct repro_err *err = NULL;

	write_file(path, data, len);
	assert_null(bndl_spool_reader_open(dir, &err));
	assert_non_null(err);
	assert_int_equal(err->errnum, EPROTO);
	assert_non_null(strstr(err->msg, path));
}

static void test_spool_garbage_header(void **state)
{
	struct bndl_spool_file_hdr newer = { .magic = "REPROSPL", .version = 2 };

	expect_open_eproto(*state, "this is not a spool at all", 26);
	expect_open_eproto(*state, "REPRO", 5);
	expect_open_eproto(*state, "", 0);
	expect_open_eproto(*state, &newer, sizeof(newer));
}

static void test_spool_missing_file(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	assert_null(bndl_spool_reader_open(*state, &err));
	assert_int_equal(err->errnum, ENOENT);
}

/* Rewrite bytes of the first record at off (from the record start), then expect EPROTO. */
static void expect_hostile(const char *dir, size_t off, const void *bytes, size_t len)
{
	cleanup_free char *path = spool_path(dir);
	cleanup_close int fd = -1;
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool_reader *r;
	struct bndl_event ev;

	unlink(path);
	write_events(dir, 2);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, len, (off_t)(sizeof(struct bndl_spool_file_hdr) + off)),
			 (ssize_t)len);
	r = reader_or_fail(dir);
	assert_int_equal(bndl_spool_reader_next(r, &ev, &err), -1);
	assert_non_null(err);
	assert_int_equal(err->errnum, EPROTO);
	assert_non_null(strstr(err->msg, "record 1"));
	bndl_spool_reader_free(r);
}

static void test_spool_hostile_lengths(void **state)
{
	const size_t blob0 = sizeof(struct bndl_spool_rec_hdr) + sizeof(struct bndl_event_fixed);
	uint32_t huge = 0xfffffff8u, tiny = 8, odd = 0x101;
	uint16_t many = 200, type = 99, kind = 77;
	uint32_t blob_huge = 0xffffffffu, blob_over = 60000;

	expect_hostile(*state, offsetof(struct bndl_spool_rec_hdr, len), &huge, sizeof(huge));
	expect_hostile(*state, offsetof(struct bndl_spool_rec_hdr, len), &tiny, sizeof(tiny));
	expect_hostile(*state, offsetof(struct bndl_spool_rec_hdr, len), &odd, sizeof(odd));
	expect_hostile(*state, offsetof(struct bndl_spool_rec_hdr, nblobs), &many, sizeof(many));
	expect_hostile(*state, offsetof(struct bndl_spool_rec_hdr, type), &type, sizeof(type));
	expect_hostile(*state, blob0 + offsetof(struct bndl_blob_hdr, len), &blob_huge,
		       sizeof(blob_huge));
	/* within BNDL_BLOB_MAX but past the end of the record */
	expect_hostile(*state, blob0 + offsetof(struct bndl_blob_hdr, len), &blob_over,
		       sizeof(blob_over));
	expect_hostile(*state, blob0 + offsetof(struct bndl_blob_hdr, kind), &kind, sizeof(kind));
}

/* Records reach the file within about 100 ms even without an explicit flush. */
static void test_spool_time_flush(void **state)
{
	const char *dir = *state;
	cleanup_free char *path = spool_path(dir);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp = bndl_spool_open(dir, &err);
	struct bndl_event ev = fx_syscall(1, 0, 1, FX_READ, NULL, NULL, 0);
	struct timespec pause = { .tv_nsec = 120 * 1000 * 1000 };
	off_t after_first;

	assert_non_null(sp);
	fx_append(sp, &ev);
	after_first = file_size(path);
	assert_int_equal(after_first, sizeof(struct bndl_spool_file_hdr));
	nanosleep(&pause, NULL);
	ev.seq = 2;
	fx_append(sp, &ev);
	assert_true(file_size(path) > after_first);
	assert_int_equal(bndl_spool_flush(sp, &err), 0);
	assert_int_equal(bndl_spool_close(sp, &err), 0);
}

static void test_spool_too_many_blobs(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp = bndl_spool_open(*state, &err);
	struct bndl_event ev = { .type = BNDL_REC_SYSCALL, .nblobs = BNDL_EVENT_MAX_BLOBS + 1 };

	assert_int_equal(bndl_spool_append(sp, &ev, &err), -1);
	assert_int_equal(err->errnum, EINVAL);
	assert_int_equal(bndl_spool_count(sp), 0);
	assert_int_equal(bndl_spool_close(sp, NULL), 0);
}

static void test_spool_remove(void **state)
{
	const char *dir = *state;
	cleanup_err struct repro_err *err = NULL;
	struct stat st;

	write_events(dir, 1);
	assert_int_equal(bndl_spool_remove(dir, &err), 0);
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(mkdir(dir, 0700), 0); /* for teardown */
}

static int teardown_fs(void **state)
{
	fx_small_fs_release(*state);
	return teardown(state);
}

/* A syscall event with a path blob of about 1 KiB, so that a few hundred fill a small disk. */
static void append_big_event(struct bndl_spool *sp, uint64_t seq)
{
	char path[1024];
	struct bndl_event ev;

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	ev = fx_syscall(seq, seq * 1000, 1, FX_OPENAT, path, "O_RDONLY", -ENOENT);
	ev.dur_ns = 10;
	fx_append(sp, &ev);
}

/* What the reader finds: syscall records (their seqs must run 1, 2, …) and the other types. */
struct spool_census {
	uint64_t events;
	uint64_t by_type[BNDL_REC_END + 1];
	struct bndl_event end; /* blobs not kept */
	struct bndl_spool_drops end_drops;
	int64_t dropped_ret;
	uint16_t exec_nblobs, exec_argv_kind;
	uint32_t exec_argv_len;
	bool is_truncated;
};

static struct spool_census census(const char *dir)
{
	struct bndl_spool_reader *r = reader_or_fail(dir);
	cleanup_err struct repro_err *err = NULL;
	struct spool_census c = { 0 };
	struct bndl_event ev;

	while (bndl_spool_reader_next(r, &ev, &err) == 1) {
		const struct bndl_blob *b = bndl_event_blob(&ev, BNDL_BLOB_STRUCT, 0);

		c.by_type[ev.type]++;
		if (ev.type == BNDL_REC_SYSCALL)
			assert_int_equal(ev.seq, ++c.events);
		if (ev.type == BNDL_REC_DROPPED)
			c.dropped_ret = ev.ret;
		if (ev.type == BNDL_REC_PROC_EXEC) {
			c.exec_nblobs = ev.nblobs;
			c.exec_argv_kind = ev.blobs[0].kind;
			c.exec_argv_len = ev.blobs[0].len;
		}
		if (ev.type == BNDL_REC_END && b != NULL && b->len == sizeof(c.end_drops)) {
			memcpy(&c.end_drops, b->data, sizeof(c.end_drops));
			c.end = ev;
		}
	}
	assert_null(err);
	c.is_truncated = bndl_spool_reader_was_truncated(r);
	bndl_spool_reader_free(r);
	return c;
}

/*
 * On a full filesystem the spool keeps the whole records that went out,
 * drops syscall records from then on and writes the process records into
 * the reserve, even after the program took the rest of the disk; a later
 * exec loses its environment; the END record carries the drops.
 */
static void test_spool_full_keeps_process_records(void **state)
{
	const char *dir = *state;
	cleanup_free char *reserve = repro_xasprintf("%s/%s", dir, BNDL_SPOOL_RESERVE);
	cleanup_free char *big = repro_xmalloc(100 * 1024);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp;
	struct bndl_spool_drops d;
	struct spool_census c;
	struct stat st;

	if (!fx_small_fs(dir, "320k"))
		skip();
	memset(big, 'x', 100 * 1024);
	sp = bndl_spool_open(dir, &err);
	assert_non_null(sp);
	assert_int_equal(stat(reserve, &st), 0);
	fx_proc_start(sp, 1, 0, 0, false);
	for (uint64_t seq = 1; seq <= 400; seq++) {
		append_big_event(sp, seq);
		if (seq == 100)
			fx_proc_start(sp, 2, 1, seq * 1000, false);
		if (seq == 380)
			append_exec(sp, 0, big, 10 * 1024, 100 * 1024);
		if (seq == 390)
			fx_proc_exit(sp, 2, seq * 1000, 0);
	}
	/* the program takes what room is left: the reserve's is allocated already */
	fx_fill(dir, "hog");
	fx_proc_exit(sp, 1, 401000, 3 << 8);
	d = *bndl_spool_drops(sp);
	assert_int_equal(d.errnum, ENOSPC);
	assert_true(d.events > 0 && d.events < 400);
	assert_int_equal(d.slim_execs, 1);
	assert_int_equal(bndl_spool_end(sp, true, 3 << 8, 402000, &err), 0);
	assert_int_equal(bndl_spool_drops(sp)->procs, 0);
	assert_int_equal(bndl_spool_close(sp, &err), 0);
	/* cut to the records it holds */
	assert_int_equal(stat(reserve, &st), 0);
	assert_true(st.st_size > 0 && st.st_size < BNDL_SPOOL_RESERVE_SIZE);

	c = census(dir);
	assert_false(c.is_truncated);
	assert_int_equal(c.events + d.events, 400);
	assert_int_equal(c.by_type[BNDL_REC_PROC_START], 2);
	assert_int_equal(c.by_type[BNDL_REC_PROC_EXIT], 2);
	assert_int_equal(c.by_type[BNDL_REC_PROC_EXEC], 1);
	assert_int_equal(c.by_type[BNDL_REC_DROPPED], 1);
	assert_int_equal(c.by_type[BNDL_REC_END], 1);
	assert_int_equal(c.dropped_ret, -ENOSPC);
	/* the exec after the disk filled: argv cut, no envp */
	assert_int_equal(c.exec_nblobs, 1);
	assert_int_equal(c.exec_argv_len, BNDL_SPOOL_SLIM_ARGV);
	assert_int_equal(c.exec_argv_kind, BNDL_BLOB_ARGV | BNDL_BLOB_TRUNCATED);
	assert_true(c.end.flags & BNDL_EV_HAS_EXIT);
	assert_int_equal(c.end.status, 3 << 8);
	assert_int_equal(c.end.t_ns, 402000);
	assert_int_equal(c.end_drops.events, d.events);
	assert_int_equal(c.end_drops.errnum, ENOSPC);
	assert_int_equal(c.end_drops.procs, 0);
	/* the first dropped call completed after the last one kept */
	assert_int_equal(c.end_drops.since_ns, (c.events + 1) * 1000 + 10);
}

/*
 * Where not even the reserve fits, the process records that find no room
 * are counted too and kept in memory for the pack, in order; the spool
 * still ends on a whole record.
 */
static void test_spool_full_without_reserve(void **state)
{
	const char *dir = *state;
	cleanup_free char *reserve = repro_xasprintf("%s/%s", dir, BNDL_SPOOL_RESERVE);
	cleanup_err struct repro_err *err = NULL;
	cleanup_free struct bndl_event *lost = NULL;
	struct bndl_spool *sp;
	struct spool_census c;
	struct stat st;
	size_t nlost;
	bool lost_end;

	if (!fx_small_fs(dir, "64k"))
		skip();
	sp = bndl_spool_open(dir, &err);
	assert_non_null(sp);
	assert_int_equal(stat(reserve, &st), -1); /* 256 KiB do not fit */
	for (uint64_t seq = 1; seq <= 300; seq++) {
		append_big_event(sp, seq);
		fx_proc_start(sp, (int32_t)seq + 1, 1, seq * 1000, false);
	}
	assert_int_equal(bndl_spool_end(sp, false, 0, 1, &err), 0);
	assert_true(bndl_spool_drops(sp)->procs > 0);
	lost = bndl_spool_take_lost(sp, &nlost);
	lost_end = bndl_spool_lost_end(sp);
	assert_int_equal(nlost, bndl_spool_drops(sp)->procs);
	assert_int_equal(bndl_spool_close(sp, &err), 0);
	c = census(dir);
	assert_false(c.is_truncated);
	assert_true(c.events > 0 && c.events < 300);
	/* the starts the spool has, then the ones it lost: each pid once, in order */
	assert_int_equal(c.by_type[BNDL_REC_PROC_START] + nlost, 300);
	for (size_t i = 0; i < nlost; i++) {
		assert_int_equal(lost[i].type, BNDL_REC_PROC_START);
		assert_int_equal(lost[i].pid, (int32_t)(302 - nlost + i));
		assert_int_equal(lost[i].ppid, 1);
	}
	assert_int_equal(lost_end, c.by_type[BNDL_REC_END] == 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_spool_round_trip_with_blobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_argv_blob_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_large_records_and_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_open_refuses_existing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_truncated_tail_is_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_truncated_in_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_garbage_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_hostile_lengths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_time_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_too_many_blobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_full_keeps_process_records, setup,
						teardown_fs),
		cmocka_unit_test_setup_teardown(test_spool_full_without_reserve, setup,
						teardown_fs),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
