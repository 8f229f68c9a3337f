/*
 * Unit tests of rec_path_absolute() (recorder/capture.h) on this process
 * itself: /proc/self/{cwd,fd/N} are what the recorder reads for a tracee.
 */
#include "recorder/capture.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

struct fixture {
	char *dir; /* canonical path of the temp dir, as /proc/self/cwd shows it */
	char *old_cwd;
};

static int setup(void **state)
{
	struct fixture *f = repro_xcalloc(1, sizeof(*f));
	const char *base = getenv("TMPDIR");
	cleanup_free char *tmpl =
		repro_xasprintf("%s/repro-paths-XXXXXX", base != NULL && base[0] ? base : "/tmp");

	if (mkdtemp(tmpl) == NULL)
		return -1;
	f->dir = realpath(tmpl, NULL);
	f->old_cwd = getcwd(NULL, 0);
	if (f->dir == NULL || f->old_cwd == NULL || chdir(f->dir) != 0 || mkdir("sub", 0700) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *sub = repro_xasprintf("%s/sub", f->dir);

	if (chdir(f->old_cwd) != 0)
		return -1;
	rmdir(sub);
	rmdir(f->dir);
	free(f->dir);
	free(f->old_cwd);
	free(f);
	return 0;
}

static void expect_abs(int dirfd, const char *raw, const char *want)
{
	char out[PATH_MAX];
	ssize_t n = rec_path_absolute(getpid(), dirfd, raw, out, sizeof(out));

	assert_int_equal(n, (ssize_t)strlen(want));
	assert_string_equal(out, want);
}

static void test_paths_absolute_unchanged(void **state)
{
	expect_abs(AT_FDCWD, "/etc/passwd", "/etc/passwd");
	expect_abs(AT_FDCWD, "/a/../b//c", "/a/../b//c");
	expect_abs(12345, "/ignored/dirfd",
		   "/ignored/dirfd"); /* an absolute path ignores dirfd (openat(2)) */
	expect_abs(AT_FDCWD, "/", "/");
}

static void test_paths_relative_to_cwd(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *want = repro_xasprintf("%s/missing", f->dir);
	cleanup_free char *want2 = repro_xasprintf("%s/sub/x.txt", f->dir);
	cleanup_free char *want3 = repro_xasprintf("%s/../up", f->dir);

	expect_abs(AT_FDCWD, "missing", want);
	expect_abs(AT_FDCWD, "./missing", want);
	expect_abs(AT_FDCWD, "sub/x.txt", want2);
	expect_abs(AT_FDCWD, "../up",
		   want3); /* no normalisation: the path as the kernel walks it */
}

static void test_paths_dot_and_empty(void **state)
{
	struct fixture *f = *state;

	expect_abs(AT_FDCWD, ".", f->dir);
	expect_abs(AT_FDCWD, "", f->dir);
}

static void test_paths_relative_to_dirfd_and_dup(void **state)
{
	struct fixture *f = *state;
	cleanup_close int fd = open("sub", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_close int fd2 = -1;
	cleanup_free char *sub = repro_xasprintf("%s/sub", f->dir);
	cleanup_free char *want = repro_xasprintf("%s/sub/file", f->dir);

	assert_true(fd >= 0);
	fd2 = dup(fd);
	assert_true(fd2 >= 0);
	expect_abs(fd, "file", want);
	expect_abs(fd2, "file", want);
	expect_abs(fd, ".", sub);
	expect_abs(fd2, "", sub);
	/* the dirfd wins over the cwd, which is elsewhere */
	assert_int_equal(chdir("/"), 0);
	expect_abs(fd2, "./file", want);
}

static void test_paths_cwd_is_root(void **state)
{
	assert_int_equal(chdir("/"), 0);
	expect_abs(AT_FDCWD, "etc/hosts", "/etc/hosts");
	expect_abs(AT_FDCWD, ".", "/");
}

static void test_paths_bad_dirfd_fails(void **state)
{
	char out[PATH_MAX];
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(close(fd), 0);
	/* a closed fd: /proc/self/fd/N does not exist */
	assert_int_equal(rec_path_absolute(getpid(), fd, "x", out, sizeof(out)), -1);
	/* a tid that does not exist */
	assert_int_equal(rec_path_absolute(0x3fffffff, AT_FDCWD, "x", out, sizeof(out)), -1);
}

static void test_paths_small_buffer_fails(void **state)
{
	char out[8];

	assert_int_equal(rec_path_absolute(getpid(), AT_FDCWD, "/exactly7", out, sizeof(out)), -1);
	assert_int_equal(rec_path_absolute(getpid(), AT_FDCWD, "/seven7", out, sizeof(out)), 7);
	assert_string_equal(out, "/seven7");
	assert_int_equal(rec_path_absolute(getpid(), AT_FDCWD, "relative", out, sizeof(out)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_paths_absolute_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_relative_to_cwd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_dot_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_relative_to_dirfd_and_dup, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_paths_cwd_is_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_bad_dirfd_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_small_buffer_fails, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
