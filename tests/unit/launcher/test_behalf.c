/*
 * Unit tests of launcher/behalf.h and launcher/taint.h.  The "tracee" is
 * this test process itself: process_vm_readv/writev(2) work on one's own
 * pid, so every call is performed on our own behalf and compared with the
 * same call made directly.
 */
#include "launcher/behalf.h"
#include "launcher/abi.h"
#include "launcher/taint.h"

#include <errno.h>
#include <linux/audit.h>
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
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

static struct lnch_behalf_ctx ctx;

static bool valid(void *cookie)
{
	return *(bool *)cookie;
}

static enum lnch_behalf_outcome perform(int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
					uint64_t a4, int64_t *ret)
{
	const uint64_t args[6] = { a0, a1, a2, a3, a4, 0 };
	pid_t tid = (pid_t)syscall(SYS_gettid);
	static struct lnch_behalf_path path;
	bool yes = true;

	*ret = 12345;
	lnch_behalf_read_path(tid, nr, args, &path);
	return lnch_behalf_perform(&ctx, tid, getpid(), nr, args, &path, valid, &yes, ret);
}

#define U(p) ((uint64_t)(uintptr_t)(p))

static void test_stat_matches_kernel(void **state)
{
	struct stat mine, kernel;
	int64_t ret;

	memset(&mine, 0xa5, sizeof(mine));
	assert_int_equal(
		perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U("/etc/passwd"), U(&mine), 0, 0, &ret),
		LNCH_BEHALF_DONE);
	assert_int_equal(ret, 0);
	assert_int_equal(stat("/etc/passwd", &kernel), 0);
	assert_int_equal(mine.st_ino, kernel.st_ino);
	assert_int_equal(mine.st_mode, kernel.st_mode);
	assert_int_equal(mine.st_size, kernel.st_size);
}

static void test_errors_are_the_kernels(void **state)
{
	struct stat st;
	char longpath[PATH_MAX + 10];
	int64_t ret;

	assert_int_equal(perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U("/nonexistent/x"), U(&st), 0,
				 0, &ret),
			 LNCH_BEHALF_DONE);
	assert_int_equal(ret, -ENOENT);
	assert_int_equal(
		perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U("/etc/passwd/x"), U(&st), 0, 0, &ret),
		LNCH_BEHALF_DONE);
	assert_int_equal(ret, -ENOTDIR);
	/* a bad buffer: EFAULT, as the kernel's copy-out gives */
	assert_int_equal(
		perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U("/etc/passwd"), 8, 0, 0, &ret),
		LNCH_BEHALF_DONE);
	assert_int_equal(ret, -EFAULT);
	/* a path with no NUL within PATH_MAX bytes */
	memset(longpath, 'a', sizeof(longpath));
	longpath[sizeof(longpath) - 1] = '\0';
	assert_int_equal(
		perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U(longpath), U(&st), 0, 0, &ret),
		LNCH_BEHALF_DONE);
	assert_int_equal(ret, -ENAMETOOLONG);
	/* a relative path from a dirfd that is not open */
	assert_int_equal(perform(SYS_newfstatat, 987, U("x"), U(&st), 0, 0, &ret),
			 LNCH_BEHALF_DONE);
	assert_int_equal(ret, -EBADF);
	/* an empty path without AT_EMPTY_PATH */
	assert_int_equal(perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U(""), U(&st), 0, 0, &ret),
			 LNCH_BEHALF_DONE);
	assert_int_equal(ret, -ENOENT);
}

static void test_readlink_and_access(void **state)
{
	char buf[64], kernel[64];
	ssize_t n;
	int64_t ret;

	assert_int_equal(perform(SYS_readlinkat, (uint64_t)AT_FDCWD, U("/proc/self/exe"), U(buf),
				 sizeof(buf), 0, &ret),
			 LNCH_BEHALF_DONE);
	n = readlink("/proc/self/exe", kernel, sizeof(kernel));
	assert_int_equal(ret, n);
	assert_memory_equal(buf, kernel, (size_t)n);
	/* a file that is not a symlink */
	assert_int_equal(perform(SYS_readlinkat, (uint64_t)AT_FDCWD, U("/etc/passwd"), U(buf),
				 sizeof(buf), 0, &ret),
			 LNCH_BEHALF_DONE);
	assert_int_equal(ret, -EINVAL);
	assert_int_equal(
		perform(SYS_faccessat, (uint64_t)AT_FDCWD, U("/etc/passwd"), R_OK, 0, 0, &ret),
		LNCH_BEHALF_DONE);
	assert_int_equal(ret, 0);
	/* a mode with unknown bits is left to the kernel's EINVAL */
	assert_int_equal(
		perform(SYS_faccessat, (uint64_t)AT_FDCWD, U("/etc/passwd"), 0x100, 0, 0, &ret),
		LNCH_BEHALF_KERNEL);
}

static void test_proc_self_is_the_tracee(void **state)
{
	struct stat mine, kernel;
	int64_t ret;

	/* /proc/self is rewritten to our pid: same inode as the kernel gives us */
	assert_int_equal(perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U("/proc/self/status"),
				 U(&mine), 0, 0, &ret),
			 LNCH_BEHALF_DONE);
	assert_int_equal(ret, 0);
	assert_int_equal(stat("/proc/self/status", &kernel), 0);
	assert_int_equal(mine.st_ino, kernel.st_ino);
	/* a magic link, and procfs reached through "self" by a symlink: only the kernel knows */
	assert_int_equal(
		perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U("/dev/stdin"), U(&mine), 0, 0, &ret),
		LNCH_BEHALF_KERNEL);
	assert_int_equal(perform(SYS_newfstatat, (uint64_t)AT_FDCWD, U("/proc/mounts"), U(&mine), 0,
				 0, &ret),
			 LNCH_BEHALF_KERNEL);
	assert_int_equal(ret, 12345); /* untouched */
}

static void test_gone_tracee_writes_nothing(void **state)
{
	struct stat st;
	const uint64_t args[6] = { (uint64_t)AT_FDCWD, U("/etc/passwd"), U(&st), 0, 0, 0 };
	static struct lnch_behalf_path path;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	bool no = false;
	int64_t ret = 7;

	memset(&st, 0, sizeof(st));
	lnch_behalf_read_path(tid, SYS_newfstatat, args, &path);
	assert_int_equal(path.argi, 1);
	assert_string_equal(path.text, "/etc/passwd");
	assert_int_equal(lnch_behalf_perform(&ctx, tid, getpid(), SYS_newfstatat, args, &path,
					     valid, &no, &ret),
			 LNCH_BEHALF_KERNEL);
	assert_int_equal(st.st_ino, 0);
}

static void test_supported_names(void **state)
{
	assert_true(lnch_behalf_supported("newfstatat"));
	assert_true(lnch_behalf_supported("readlinkat"));
	assert_false(lnch_behalf_supported("openat"));
	assert_false(lnch_behalf_supported("statfs"));
}

static void test_taint_scopes(void **state)
{
	struct lnch_taint_table t;
	uint32_t native = lnch_arch_audit_token();

	lnch_taint_table_init(&t);
	assert_int_equal(lnch_taint_scope_of(&t, native, SYS_setuid), REPRO_TAINT_CREDS);
	assert_int_equal(lnch_taint_scope_of(&t, native, SYS_unshare), REPRO_TAINT_TASK);
	assert_int_equal(lnch_taint_scope_of(&t, native, SYS_seccomp), REPRO_TAINT_SECCOMP);
	assert_int_equal(lnch_taint_scope_of(&t, native, SYS_prctl), REPRO_TAINT_PRCTL);
	/* the i386 ABI's 32-bit-id calls (int $0x80: setresuid32 is 208) */
	assert_int_equal(lnch_taint_scope_of(&t, AUDIT_ARCH_I386, 208), REPRO_TAINT_CREDS);
	assert_int_equal(lnch_taint_scope_of(&t, native, SYS_chroot), REPRO_TAINT_ALL);
	assert_int_equal(lnch_taint_scope_of(&t, native, SYS_clone3), REPRO_TAINT_CLONE3);
	assert_int_equal(lnch_taint_scope_of(&t, native, SYS_mount), REPRO_TAINT_ALL);
	assert_int_equal(lnch_taint_scope_of(&t, native, SYS_openat), REPRO_TAINT_NONE);
	{
		struct lnch_filter_rule r;
		size_t pos = 0;

		assert_true(lnch_taint_next(&pos, &r));
		assert_non_null(r.name);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_matches_kernel),
		cmocka_unit_test(test_errors_are_the_kernels),
		cmocka_unit_test(test_readlink_and_access),
		cmocka_unit_test(test_proc_self_is_the_tracee),
		cmocka_unit_test(test_gone_tracee_writes_nothing),
		cmocka_unit_test(test_supported_names),
		cmocka_unit_test(test_taint_scopes),
	};

	lnch_behalf_init(&ctx);
	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
