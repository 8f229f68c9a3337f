/*
 * Unit tests of rec_path_canonical() (recorder/pathres.h) on this process
 * itself: /proc/PID/{cwd,fd/N} are what the recorder reads for a tracee.
 */
#include "recorder/pathres.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
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

static ssize_t canon(struct rec_pathcache *pc, int dirfd, const char *raw, bool nofollow,
		     uint64_t resolve, char *out, size_t cap)
{
	struct rec_path_req rq = {
		.tid = getpid(),
		.pid = getpid(),
		.dirfd = dirfd,
		.raw = raw,
		.is_nofollow = nofollow,
		.resolve = resolve,
	};

	return rec_path_canonical(pc, &rq, out, cap);
}

static void expect_canon_how(int dirfd, const char *raw, bool nofollow, uint64_t resolve,
			     const char *want)
{
	struct rec_pathcache pc;
	char out[PATH_MAX];
	ssize_t n;

	/* the same answer without the cache, with it (a miss), and again (a hit) */
	n = canon(NULL, dirfd, raw, nofollow, resolve, out, sizeof(out));
	assert_string_equal(out, want);
	assert_int_equal(n, (ssize_t)strlen(want));
	rec_pathcache_init(&pc);
	for (int round = 0; round < 2; round++) {
		n = canon(&pc, dirfd, raw, nofollow, resolve, out, sizeof(out));
		assert_string_equal(out, want);
		assert_int_equal(n, (ssize_t)strlen(want));
	}
	rec_pathcache_release(&pc);
}

static void expect_abs(int dirfd, const char *raw, const char *want)
{
	expect_canon_how(dirfd, raw, false, 0, want);
}

static void test_paths_absolute_canonical(void **state)
{
	cleanup_free char *etc = realpath("/etc", NULL);
	cleanup_free char *want = repro_xasprintf("%s/passwd", etc);

	(void)state;
	expect_abs(AT_FDCWD, "/etc/passwd", want);
	expect_abs(AT_FDCWD, "/etc/./passwd", want);
	expect_abs(AT_FDCWD, "//etc//passwd", want);
	/* the walk fails at the missing component: what follows stays as written */
	expect_abs(AT_FDCWD, "/nonexistent-dir/../b//c", "/nonexistent-dir/../b/c");
	expect_abs(12345, "/etc/passwd", want); /* an absolute path ignores dirfd (openat(2)) */
	expect_abs(AT_FDCWD, "/", "/");
	expect_abs(AT_FDCWD, "/..", "/");
}

static void test_paths_relative_to_cwd(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *want = repro_xasprintf("%s/missing", f->dir);
	cleanup_free char *want2 = repro_xasprintf("%s/sub/x.txt", f->dir);
	cleanup_free char *parent = repro_xstrndup(f->dir, (size_t)(strrchr(f->dir, '/') - f->dir));
	cleanup_free char *want3 = repro_xasprintf("%s/up", parent);

	expect_abs(AT_FDCWD, "missing", want);
	expect_abs(AT_FDCWD, "./missing", want);
	expect_abs(AT_FDCWD, "sub/x.txt", want2);
	expect_abs(AT_FDCWD, "sub/../sub/./x.txt", want2);
	expect_abs(AT_FDCWD, "../up", want3); /* `..` resolved against the real directory */
	cleanup_free char *sub = repro_xasprintf("%s/sub", f->dir);

	expect_abs(AT_FDCWD, "sub/", sub);
}

/*
 * A walk stops at the first missing component, or at one that is not a
 * directory: the `..` after it is never walked, and folding it would name
 * a file the call did not reach (sub/x exists).
 */
static void test_paths_missing_components_folded(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *want = repro_xasprintf("%s/sub/missing/../x", f->dir);
	cleanup_free char *want2 = repro_xasprintf("%s/sub/no/such/f", f->dir);
	cleanup_free char *notdir = repro_xasprintf("%s/sub/f/../f", f->dir);

	expect_abs(AT_FDCWD, "sub/missing/../x", want);
	expect_abs(AT_FDCWD, "sub/f/../f", notdir);
	expect_abs(AT_FDCWD, "sub/no/such/f", want2);
	expect_abs(AT_FDCWD, "sub/no/./such/f", want2);
}

static void test_paths_symlinked_directory(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *want = repro_xasprintf("%s/sub/f", f->dir);
	cleanup_free char *link = repro_xasprintf("%s/ln", f->dir);
	cleanup_free char *up = repro_xasprintf("%s/sub/ln/../f", f->dir);
	cleanup_free char *parent = repro_xstrndup(f->dir, (size_t)(strrchr(f->dir, '/') - f->dir));
	cleanup_free char *top = repro_xasprintf("%s/f", parent);

	assert_int_equal(symlink("sub", "ln"), 0);
	expect_abs(AT_FDCWD, "ln/f", want); /* a symlink in a directory component is followed */
	expect_abs(AT_FDCWD, "ln", link); /* a final one is kept */
	expect_canon_how(AT_FDCWD, "ln", true, 0, link);
	/* `..` after a symlink goes up from its target (sub/ln is the base dir), not lexically */
	assert_int_equal(symlink("..", "sub/ln"), 0);
	expect_abs(AT_FDCWD, up, top);
	assert_int_equal(unlink("sub/ln"), 0);
	assert_int_equal(unlink("ln"), 0);
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
	cleanup_free char *up = repro_xasprintf("%s/x", f->dir);

	assert_true(fd >= 0);
	fd2 = dup(fd);
	assert_true(fd2 >= 0);
	expect_abs(fd, "file", want);
	expect_abs(fd2, "file", want);
	expect_abs(fd, ".", sub);
	expect_abs(fd2, "", sub);
	expect_abs(fd, "../x", up);
	expect_abs(fd, "..", f->dir);
	/* the dirfd wins over the cwd, which is elsewhere */
	assert_int_equal(chdir("/"), 0);
	expect_abs(fd2, "./file", want);
}

static void test_paths_magic_links(void **state)
{
	struct fixture *f = *state;
	cleanup_close int dfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_close int ffd = open("sub/f2.txt", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	cleanup_free char *file = repro_xasprintf("%s/sub/f2.txt", f->dir);
	cleanup_free char *self_fd = NULL, *dev_fd = NULL, *pid_fd = NULL, *lnk = NULL;
	cleanup_free char *cwd = repro_xasprintf("/proc/%d/cwd/sub/f2.txt", (int)getpid());

	assert_true(dfd >= 0 && ffd >= 0);
	self_fd = repro_xasprintf("/proc/self/fd/%d/sub/f2.txt", dfd);
	dev_fd = repro_xasprintf("/dev/fd/%d/sub/f2.txt", dfd);
	expect_abs(AT_FDCWD, self_fd, file);
	expect_abs(AT_FDCWD, dev_fd, file);
	expect_abs(AT_FDCWD, cwd, file);
	expect_abs(AT_FDCWD, "/proc/self/cwd/sub/f2.txt", file);
	expect_abs(AT_FDCWD, "/proc/thread-self/cwd/sub/f2.txt", file);
	/* a final magic link is replaced by its target when the call follows it */
	free(self_fd), self_fd = repro_xasprintf("/proc/self/fd/%d", ffd);
	free(dev_fd), dev_fd = repro_xasprintf("/dev/fd/%d", ffd);
	expect_abs(AT_FDCWD, self_fd, file);
	expect_abs(AT_FDCWD, dev_fd, file);
	/* ... and kept, with /proc/self resolved, when the call acts on the link itself */
	pid_fd = repro_xasprintf("/proc/%d/fd/%d", (int)getpid(), ffd);
	expect_canon_how(AT_FDCWD, self_fd, true, 0, pid_fd);
	expect_canon_how(AT_FDCWD, dev_fd, true, 0, pid_fd); /* /dev/fd is a directory symlink */
	/* a descriptor that is no path (a pipe) leaves the name as written */
	expect_abs(AT_FDCWD, "/proc/self/status",
		   lnk = repro_xasprintf("/proc/%d/status", (int)getpid()));
	unlink(file);
}

static void test_paths_dev_stdin(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *file = repro_xasprintf("%s/in.txt", f->dir);
	int saved = dup(0), fd = open(file, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	int pipefd[2];

	assert_true(saved >= 0 && fd >= 0);
	assert_int_equal(dup2(fd, 0), 0);
	expect_abs(AT_FDCWD, "/dev/stdin", file);
	expect_canon_how(AT_FDCWD, "/dev/stdin", true, 0, "/dev/stdin");
	assert_int_equal(pipe(pipefd), 0);
	assert_int_equal(dup2(pipefd[0], 0), 0);
	expect_abs(AT_FDCWD, "/dev/stdin", "/dev/stdin"); /* pipe:[N] is not a path */
	assert_int_equal(dup2(saved, 0), 0);
	close(saved), close(fd), close(pipefd[0]), close(pipefd[1]);
	unlink(file);
}

static void test_paths_resolve_in_root(void **state)
{
	struct fixture *f = *state;
	cleanup_close int fd = open("sub", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_free char *want = repro_xasprintf("%s/sub/x", f->dir);

	assert_true(fd >= 0);
	expect_canon_how(fd, "/x", false, RESOLVE_IN_ROOT, want);
	expect_canon_how(fd, "../../x", false, RESOLVE_IN_ROOT, want);
	expect_canon_how(fd, "/missing/../x", false, RESOLVE_IN_ROOT, want);
	/* RESOLVE_BENEATH changes nothing in a walk that succeeds */
	expect_canon_how(fd, "x", false, RESOLVE_BENEATH, want);
}

static void test_paths_cache_cleared(void **state)
{
	struct fixture *f = *state;
	cleanup_free char *want = repro_xasprintf("%s/sub/f", f->dir);
	cleanup_free char *want2 = repro_xasprintf("%s/other/f", f->dir);
	struct rec_pathcache pc;
	char out[PATH_MAX];

	rec_pathcache_init(&pc);
	assert_int_equal(mkdir("other", 0700), 0);
	assert_int_equal(symlink("sub", "ln"), 0);
	assert_true(canon(&pc, AT_FDCWD, "ln/f", false, 0, out, sizeof(out)) > 0);
	assert_string_equal(out, want);
	assert_true(canon(&pc, AT_FDCWD, "ln/f", false, 0, out, sizeof(out)) > 0);
	assert_int_equal(pc.hits, 1);
	/* a rename makes the cached answer stale until the recorder clears the cache */
	assert_int_equal(unlink("ln"), 0);
	assert_int_equal(symlink("other", "ln"), 0);
	rec_pathcache_clear(&pc);
	assert_true(canon(&pc, AT_FDCWD, "ln/f", false, 0, out, sizeof(out)) > 0);
	assert_string_equal(out, want2);
	assert_int_equal(unlink("ln"), 0);
	assert_int_equal(rmdir("other"), 0);
	rec_pathcache_release(&pc);
}

static void test_paths_fold(void **state)
{
	static const char *const cases[][2] = {
		{ "/a/b/../c", "/a/c" },      { "/../..", "/" }, { "//a//./b/", "/a/b" },
		{ "/a/b/c/../../d", "/a/d" }, { "/", "/" },	 { "/a/..", "/" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%s", cases[i][0]);
		assert_int_equal(rec_path_fold(buf), strlen(cases[i][1]));
		assert_string_equal(buf, cases[i][1]);
	}
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
	assert_int_equal(canon(NULL, fd, "x", false, 0, out, sizeof(out)), -1);
	/* a tid that does not exist */
	struct rec_path_req rq = {
		.tid = 0x3fffffff, .pid = 0x3fffffff, .dirfd = AT_FDCWD, .raw = "x"
	};

	assert_int_equal(rec_path_canonical(NULL, &rq, out, sizeof(out)), -1);
}

static void test_paths_small_buffer_fails(void **state)
{
	char out[8];

	assert_int_equal(canon(NULL, AT_FDCWD, "/exactly7", false, 0, out, sizeof(out)), -1);
	assert_int_equal(canon(NULL, AT_FDCWD, "/seven7", false, 0, out, sizeof(out)), 7);
	assert_string_equal(out, "/seven7");
	assert_int_equal(canon(NULL, AT_FDCWD, "relative", false, 0, out, sizeof(out)), -1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_paths_absolute_canonical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_relative_to_cwd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_missing_components_folded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_paths_symlinked_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_magic_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_dev_stdin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_resolve_in_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_cache_cleared, setup, teardown),
		cmocka_unit_test(test_paths_fold),
		cmocka_unit_test_setup_teardown(test_paths_dot_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_relative_to_dirfd_and_dup, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_paths_cwd_is_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_bad_dirfd_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_small_buffer_fails, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
