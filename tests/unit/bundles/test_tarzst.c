#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

/*
 * bundles/tarzst.c: what it writes, read back by libarchive (as the
 * readers do) and by GNU tar and zstd (as users do).
 */
#include "bundles/tarzst.h"
#include "bundles/tarzst_internal.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "fixture.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

struct member {
	const char *name;
	size_t size;
	char fill;
};

/* Write members (each size bytes of its fill) to dir/a.tar.zst; ustar_max 0 keeps the default. */
static char *write_archive(const char *dir, const struct member *m, size_t n, uint64_t ustar_max)
{
	char *path = repro_xasprintf("%s/a.tar.zst", dir);
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_tarzst *w;

	assert_true(fd >= 0);
	w = bndl_tarzst_open(fd, path, &err);
	assert_non_null(w);
	if (ustar_max != 0)
		bndl_tarzst_set_ustar_max(w, ustar_max);
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *data = repro_xmalloc(m[i].size + 1);

		memset(data, m[i].fill, m[i].size);
		assert_int_equal(bndl_tarzst_member(w, m[i].name, m[i].size, 1795963304, &err), 0);
		/* in two pieces, the second possibly empty */
		assert_int_equal(bndl_tarzst_write(w, data, m[i].size / 2, &err), 0);
		assert_int_equal(
			bndl_tarzst_write(w, data + m[i].size / 2, m[i].size - m[i].size / 2, &err),
			0);
	}
	assert_int_equal(bndl_tarzst_close(w, &err), 0);
	bndl_tarzst_free(w);
	return path;
}

/* Read path with libarchive and compare with m: names, sizes, contents, mode, mtime. */
static void check_with_libarchive(const char *path, const struct member *m, size_t n)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t i = 0;

	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_filename(a, path, 10240), ARCHIVE_OK);
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		cleanup_free char *buf = repro_xmalloc(m[i].size + 16);
		la_ssize_t got = 0, r;

		assert_true(i < n);
		assert_string_equal(archive_entry_pathname(e), m[i].name);
		assert_int_equal(archive_entry_size(e), (la_int64_t)m[i].size);
		assert_int_equal(archive_entry_filetype(e), AE_IFREG);
		assert_int_equal(archive_entry_perm(e), 0644);
		assert_int_equal(archive_entry_mtime(e), 1795963304);
		while ((r = archive_read_data(a, buf + got, m[i].size + 16 - (size_t)got)) > 0)
			got += r;
		assert_int_equal(r, 0);
		assert_int_equal(got, (la_ssize_t)m[i].size);
		for (size_t k = 0; k < m[i].size; k++)
			if (buf[k] != m[i].fill)
				fail_msg("%s: byte %zu differs", m[i].name, k);
		i++;
	}
	assert_int_equal(i, n);
	assert_int_equal(archive_filter_code(a, 0), ARCHIVE_FILTER_ZSTD);
	archive_read_free(a);
}

/* Sizes around the 512-byte block: empty, one byte, a block, a block and one, several blocks. */
static void test_tarzst_block_edges(void **state)
{
	const struct member m[] = {
		{ "manifest.json", 0, 'a' },	{ "one", 1, 'b' },
		{ "block", 512, 'c' },		{ "block-and-one", 513, 'd' },
		{ "events.jsonl", 70001, 'e' }, { "dir/with/slashes.txt", 1023, 'f' },
	};
	cleanup_free char *path = write_archive(*state, m, 6, 0);

	check_with_libarchive(path, m, 6);
}

/* A name of exactly 100 bytes fills the ustar field with no NUL. */
static void test_tarzst_name_100(void **state)
{
	char name[101];
	struct member m[1] = { { name, 10, 'x' } };

	memset(name, 'n', 100);
	name[100] = '\0';
	cleanup_free char *path = write_archive(*state, m, 1, 0);

	check_with_libarchive(path, m, 1);
}

/* A size past the ustar field goes into a pax record that readers take. */
static void test_tarzst_pax_size(void **state)
{
	const struct member m[] = { { "small", 100, 's' },
				    { "large", 3000, 'l' },
				    { "after", 7, 'z' } };
	cleanup_free char *path = write_archive(*state, m, 3, 1000);

	check_with_libarchive(path, m, 3);
}

/* GNU tar and zstd(1) agree: the archive tests clean and lists the members. */
static void test_tarzst_tools_read_it(void **state)
{
	const struct member m[] = { { "manifest.json", 12, '{' }, { "trace.txt", 600, 't' } };
	cleanup_free char *path = write_archive(*state, m, 2, 0);
	cleanup_free char *cmd = NULL;

	if (system("command -v zstd >/dev/null && command -v tar >/dev/null") != 0)
		skip();
	cmd = repro_xasprintf("zstd -q -t '%s' && test \"$(tar --zstd -tf '%s' | tr '\\n' ' ')\" = "
			      "'manifest.json trace.txt '",
			      path, path);
	assert_int_equal(system(cmd), 0);
}

/* Misuse is an error, not a broken archive: a bad name, too many bytes, an unfinished member. */
static void test_tarzst_misuse(void **state)
{
	cleanup_free char *path = repro_xasprintf("%s/b.tar.zst", (char *)*state);
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct repro_err *err = NULL;
	struct bndl_tarzst *w = bndl_tarzst_open(fd, path, &err);
	char name[102];

	assert_non_null(w);
	memset(name, 'n', 101);
	name[101] = '\0';
	assert_int_equal(bndl_tarzst_member(w, name, 1, 0, &err), -1);
	assert_int_equal(err->errnum, EINVAL);
	repro_err_free(&err);
	assert_int_equal(bndl_tarzst_member(w, "/abs", 1, 0, &err), -1);
	repro_err_free(&err);
	assert_int_equal(bndl_tarzst_member(w, "m", 2, 0, &err), 0);
	assert_int_equal(bndl_tarzst_write(w, "abc", 3, &err), -1);
	repro_err_free(&err);
	assert_int_equal(bndl_tarzst_write(w, "a", 1, &err), 0);
	assert_int_equal(bndl_tarzst_member(w, "n", 0, 0, &err), -1);
	repro_err_free(&err);
	assert_int_equal(bndl_tarzst_close(w, &err), -1);
	assert_non_null(strstr(err->msg, "incomplete"));
	repro_err_free(&err);
	bndl_tarzst_free(w);
}

/* A write that fails (a full device) is reported with the output's name and errno. */
static void test_tarzst_full_device(void **state)
{
	cleanup_close int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	struct repro_err *err = NULL;
	struct bndl_tarzst *w;
	cleanup_free char *data = repro_xmalloc(1 << 20);
	int rc = 0;

	if (fd < 0)
		skip();
	w = bndl_tarzst_open(fd, "/dev/full", &err);
	assert_non_null(w);
	/* random-ish bytes, so that zstd has output to write before the end */
	for (size_t i = 0; i < (1u << 20); i++)
		data[i] = (char)(i * 2654435761u >> 13);
	rc |= bndl_tarzst_member(w, "m", 1u << 20, 0, &err);
	if (rc == 0)
		rc |= bndl_tarzst_write(w, data, 1u << 20, &err);
	if (rc == 0)
		rc |= bndl_tarzst_close(w, &err);
	assert_int_equal(rc, -1);
	assert_int_equal(err->errnum, ENOSPC);
	assert_non_null(strstr(err->msg, "cannot write '/dev/full'"));
	repro_err_free(&err);
	bndl_tarzst_free(w);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tarzst_block_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tarzst_name_100, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tarzst_pax_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tarzst_tools_read_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tarzst_misuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tarzst_full_device, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
