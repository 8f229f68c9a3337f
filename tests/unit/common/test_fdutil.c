/* Unit tests of common/fdutil.h and the fd helpers of common/cleanup.h, on real files and pipes. */
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static int setup(void **state)
{
	const char *base = getenv("TMPDIR");
	char *dir =
		repro_xasprintf("%s/repro-fdutil-XXXXXX", base != NULL && base[0] ? base : "/tmp");

	if (mkdtemp(dir) == NULL) {
		free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	nftw(*state, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(*state);
	return 0;
}

/* Write len bytes of a repeating pattern to dir/name; returns the path (caller frees). */
static char *make_file(const char *dir, const char *name, size_t len)
{
	char *path = repro_xasprintf("%s/%s", dir, name);
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	for (size_t i = 0; i < len; i++) {
		char c = (char)('a' + i % 26);

		assert_int_equal(write(fd, &c, 1), 1);
	}
	return path;
}

static void test_fdutil_read_file_whole(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *path = make_file(*state, "f", 10000);
	cleanup_free char *data = NULL;
	size_t len = 0;

	data = repro_read_file(path, 1 << 20, &len, &err);
	assert_non_null(data);
	assert_null(err);
	assert_int_equal(len, 10000);
	assert_int_equal(strlen(data), 10000);
	assert_int_equal(data[0], 'a');
	assert_int_equal(data[9999], 'a' + 9999 % 26);
	assert_int_equal(data[10000], '\0');
}

static void test_fdutil_read_file_empty(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *path = make_file(*state, "empty", 0);
	cleanup_free char *data = repro_read_file(path, 16, NULL, &err);

	assert_non_null(data);
	assert_string_equal(data, "");
}

static void test_fdutil_read_file_over_cap_efbig(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *path = make_file(*state, "big", 10000);
	size_t len = 12345;
	char *data = repro_read_file(path, 4096, &len, &err);

	assert_null(data);
	assert_true(repro_err_is(&err, EFBIG));
	assert_non_null(strstr(err->msg, path));
	assert_int_equal(len, 12345); /* out-parameter untouched on failure */
}

/*
 * A cap below the initial 4 KiB buffer must still be enforced: 11 bytes with a
 * cap of 10 is "larger than max_bytes" (fdutil.h).
 */
static void test_fdutil_read_file_small_cap_efbig(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *path = make_file(*state, "eleven", 11);
	cleanup_free char *data = repro_read_file(path, 10, NULL, &err);

	assert_null(data);
	assert_true(repro_err_is(&err, EFBIG));
}

/* A file of exactly max_bytes is within the limit ("at most max_bytes"). */
static void test_fdutil_read_file_exactly_cap(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *path = make_file(*state, "exact", 8192);
	cleanup_free char *data = NULL;
	size_t len = 0;

	data = repro_read_file(path, 8192, &len, &err);
	assert_null(err);
	assert_non_null(data);
	assert_int_equal(len, 8192);
}

static void test_fdutil_read_file_missing_enoent(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *path = repro_xasprintf("%s/missing", (char *)*state);
	char *data = repro_read_file(path, 100, NULL, &err);

	assert_null(data);
	assert_true(repro_err_is(&err, ENOENT));
	assert_non_null(strstr(err->msg, "missing"));
}

static void test_fdutil_read_file_directory_eisdir(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	char *data = repro_read_file(*state, 100, NULL, &err);

	assert_null(data);
	assert_true(repro_err_is(&err, EISDIR));
}

static void expect_join(const char *dir, const char *rel, const char *want)
{
	cleanup_free char *got = repro_path_join(dir, rel);

	assert_string_equal(got, want);
}

static void test_fdutil_path_join_cases(void **state)
{
	expect_join("/a", "b", "/a/b");
	expect_join("/a/", "b", "/a/b");
	expect_join("/a///", "b/c", "/a/b/c");
	expect_join("a", "b", "a/b");
	expect_join("/", "b", "/b");
	expect_join("//", "b", "/b");
	expect_join("/a", "/abs/x", "/abs/x");
	expect_join("/", "/", "/");
	expect_join("/a/b/", "", "/a/b");
	expect_join("/", "", "/");
	expect_join("", "rel", "rel");
	expect_join(NULL, "rel", "rel");
	expect_join("/a", "b/", "/a/b/");
}

struct pipe_reader {
	pid_t pid;
	int wfd;
};

/* A child that reads the pipe to EOF and exits 0 when it saw want bytes of the pattern. */
static struct pipe_reader start_reader(size_t want)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned char buf[4096];
		size_t total = 0;
		ssize_t n;

		close(p[1]);
		while ((n = read(p[0], buf, sizeof(buf))) > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (buf[i] != (unsigned char)((total + (size_t)i) * 7))
					_exit(2);
			total += (size_t)n;
		}
		_exit(n == 0 && total == want ? 0 : 1);
	}
	close(p[0]);
	return (struct pipe_reader){ .pid = pid, .wfd = p[1] };
}

static void test_fdutil_write_all_pipe(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	const size_t len = 1u << 20; /* far above the 64 KiB pipe buffer: many short writes */
	cleanup_free unsigned char *buf = repro_xmalloc(len);
	struct pipe_reader r;
	int status = 0;

	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 7);
	r = start_reader(len);
	assert_int_equal(repro_write_all(r.wfd, buf, len, "pipe", &err), 0);
	assert_null(err);
	close(r.wfd);
	assert_int_equal(waitpid(r.pid, &status, 0), r.pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_fdutil_write_all_zero_len(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	/* nothing to write: the fd is never used */
	assert_int_equal(repro_write_all(-1, "", 0, "none", &err), 0);
	assert_null(err);
}

static void test_fdutil_write_all_closed_reader_epipe(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int p[2];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	assert_int_equal(sigaction(SIGPIPE, &ign, &old), 0);
	assert_int_equal(repro_write_all(p[1], "data", 4, "events.jsonl", &err), -1);
	sigaction(SIGPIPE, &old, NULL);
	close(p[1]);
	assert_true(repro_err_is(&err, EPIPE));
	assert_string_equal(err->msg, "cannot write 'events.jsonl'");
}

static void test_fdutil_write_all_bad_fd_ebadf(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	assert_int_equal(repro_write_all(-1, "x", 1, "nowhere", &err), -1);
	assert_true(repro_err_is(&err, EBADF));
}

static void test_fdutil_steal_moves_ownership(void **state)
{
	cleanup_close int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cleanup_free char *p = repro_xstrdup("owned");
	int taken_fd = steal_fd(&fd);
	char *taken = steal_ptr(&p);

	assert_true(taken_fd >= 0);
	assert_int_equal(fd, -1);
	assert_null(p);
	assert_string_equal(taken, "owned");
	free(taken);
	assert_int_equal(close(taken_fd), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fdutil_read_file_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fdutil_read_file_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fdutil_read_file_over_cap_efbig, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fdutil_read_file_small_cap_efbig, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fdutil_read_file_exactly_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fdutil_read_file_missing_enoent, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fdutil_read_file_directory_eisdir, setup,
						teardown),
		cmocka_unit_test(test_fdutil_path_join_cases),
		cmocka_unit_test(test_fdutil_write_all_pipe),
		cmocka_unit_test(test_fdutil_write_all_zero_len),
		cmocka_unit_test(test_fdutil_write_all_closed_reader_epipe),
		cmocka_unit_test(test_fdutil_write_all_bad_fd_ebadf),
		cmocka_unit_test(test_fdutil_steal_moves_ownership),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
