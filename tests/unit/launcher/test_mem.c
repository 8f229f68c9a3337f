/*
 * Unit tests of launcher/mem.h on a real, stopped child.  After fork(2) the
 * child has the same address layout, so the parent knows where the child
 * wrote; it writes only after the fork, so what the parent reads can only come
 * from the child.  Reading a child of the same uid with process_vm_readv(2)
 * needs PTRACE_MODE_ATTACH_REALCREDS, which a parent has (also under Yama
 * ptrace_scope 1); where it is refused the whole file skips (exit 77).
 */
#include "launcher/mem.h"

#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define SKIP_RETURN 77
#define CHILD_TEXT "written by the child after fork"

static char child_buf[256] = "parent's copy";
static char long_buf[3 * 4096 + 100];
/*
 * Two pages mapped by the parent; each child unmaps the second one itself just
 * before it stops, so nothing else can be mapped into the hole.
 */
static char *two_pages;
static size_t page;

/* What a child writes before it stops; chosen per test. */
static void (*prepare_child)(void);

static void write_text(void)
{
	strcpy(child_buf, CHILD_TEXT);
}

/* The stopped child of the running test, killed by teardown even when an assertion failed. */
static pid_t current_child = -1;

static pid_t stopped_child(void (*prepare)(void))
{
	int status = 0;
	pid_t pid;

	prepare_child = prepare;
	pid = fork();
	if (pid == 0) {
		prepare_child();
		raise(SIGSTOP);
		_exit(0);
	}
	assert_true(pid > 0);
	current_child = pid;
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	assert_true(WIFSTOPPED(status));
	return pid;
}

static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	current_child = -1;
}

static int teardown(void **state)
{
	if (current_child > 0)
		end_child(current_child);
	return 0;
}

static void test_mem_read_child_buffer(void **state)
{
	pid_t pid = stopped_child(write_text);
	char out[sizeof(CHILD_TEXT)] = { 0 };

	assert_int_equal(lnch_mem_read(pid, (uintptr_t)child_buf, out, sizeof(out)), 0);
	assert_string_equal(out, CHILD_TEXT);
	assert_string_equal(child_buf, "parent's copy"); /* ours is untouched */
	/* an unaligned middle part */
	memset(out, 0, sizeof(out));
	assert_int_equal(lnch_mem_read(pid, (uintptr_t)child_buf + 3, out, 7), 0);
	assert_string_equal(out, "tten by");
	/* len 0 reads nothing and succeeds */
	assert_int_equal(lnch_mem_read(pid, 0, out, 0), 0);
	end_child(pid);
}

static void test_mem_read_str_child_string(void **state)
{
	pid_t pid = stopped_child(write_text);
	char out[128];
	bool truncated = true;

	memset(out, 'X', sizeof(out));
	assert_int_equal(lnch_mem_read_str(pid, (uintptr_t)child_buf, out, sizeof(out), &truncated),
			 strlen(CHILD_TEXT));
	assert_string_equal(out, CHILD_TEXT);
	assert_false(truncated);
	end_child(pid);
}

static void test_mem_read_str_truncates_to_cap(void **state)
{
	pid_t pid = stopped_child(write_text);
	char out[8];
	bool truncated = false;

	assert_int_equal(lnch_mem_read_str(pid, (uintptr_t)child_buf, out, sizeof(out), &truncated),
			 7);
	assert_string_equal(out, "written");
	assert_true(truncated);
	end_child(pid);
}

/* mem.h: truncated only "when the string was longer than cap - 1 bytes"; cap - 1 bytes plus NUL fit. */
static void test_mem_read_str_exact_fit_not_truncated(void **state)
{
	pid_t pid = stopped_child(write_text);
	char fit[sizeof(CHILD_TEXT)];
	bool truncated = true;

	assert_int_equal(lnch_mem_read_str(pid, (uintptr_t)child_buf, fit, sizeof(fit), &truncated),
			 strlen(CHILD_TEXT));
	assert_string_equal(fit, CHILD_TEXT);
	assert_false(truncated);
	end_child(pid);
}

static void write_long(void)
{
	memset(long_buf, 'L', sizeof(long_buf) - 1);
	long_buf[sizeof(long_buf) - 1] = '\0';
}

static void test_mem_read_str_spans_pages(void **state)
{
	pid_t pid = stopped_child(write_long);
	static char out[4 * 4096];
	bool truncated = true;
	ssize_t n = lnch_mem_read_str(pid, (uintptr_t)long_buf, out, sizeof(out), &truncated);

	assert_int_equal(n, sizeof(long_buf) - 1);
	assert_int_equal(strlen(out), sizeof(long_buf) - 1);
	assert_int_equal(out[0], 'L');
	assert_int_equal(out[n - 1], 'L');
	assert_false(truncated);
	end_child(pid);
}

/* "tail\0" ends exactly at the last byte before the hole. */
static void make_hole(void)
{
	if (munmap(two_pages + page, page) != 0)
		_exit(3);
}

static void write_at_hole_with_nul(void)
{
	make_hole();
	memcpy(two_pages + page - 5, "tail", 5);
}

static void test_mem_read_str_ends_before_hole(void **state)
{
	pid_t pid = stopped_child(write_at_hole_with_nul);
	char out[256];
	bool truncated = true;

	/* reading page by page must not touch the unmapped page after the NUL */
	assert_int_equal(lnch_mem_read_str(pid, (uintptr_t)two_pages + page - 5, out, sizeof(out),
					   &truncated),
			 4);
	assert_string_equal(out, "tail");
	assert_false(truncated);
	end_child(pid);
}

/* "abcdef" without NUL, running into the unmapped page. */
static void write_at_hole_without_nul(void)
{
	make_hole();
	memcpy(two_pages + page - 6, "abcdef", 6);
}

static void test_mem_read_str_runs_into_hole(void **state)
{
	pid_t pid = stopped_child(write_at_hole_without_nul);
	char out[256];
	bool truncated = false;
	ssize_t n;

	memset(out, 'X', sizeof(out));
	n = lnch_mem_read_str(pid, (uintptr_t)two_pages + page - 6, out, sizeof(out), &truncated);
	/* the readable part comes back, NUL-terminated, rather than nothing */
	assert_int_equal(n, 6);
	assert_string_equal(out, "abcdef");
	/* a plain read across the hole fails as a whole */
	assert_int_equal(lnch_mem_read(pid, (uintptr_t)two_pages + page - 6, out, 16), -1);
	assert_int_equal(errno, EFAULT);
	/* and starting inside the hole there is nothing: -1 EFAULT */
	errno = 0;
	assert_int_equal(
		lnch_mem_read_str(pid, (uintptr_t)two_pages + page, out, sizeof(out), &truncated),
		-1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(out[0], '\0');
	end_child(pid);
}

static void test_mem_read_null_and_unmapped(void **state)
{
	pid_t pid = stopped_child(make_hole);
	char out[16];
	bool truncated = false;

	errno = 0;
	assert_int_equal(lnch_mem_read_str(pid, 0, out, sizeof(out), &truncated), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(lnch_mem_read(pid, (uintptr_t)two_pages + page, out, sizeof(out)), -1);
	assert_int_equal(errno, EFAULT);
	end_child(pid);
}

static void test_mem_read_gone_tracee_esrch(void **state)
{
	pid_t pid = fork();
	char out[8];
	bool truncated = false;

	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	errno = 0;
	assert_int_equal(lnch_mem_read(pid, (uintptr_t)child_buf, out, sizeof(out)), -1);
	assert_int_equal(errno, ESRCH);
	errno = 0;
	assert_int_equal(lnch_mem_read_str(pid, (uintptr_t)child_buf, out, sizeof(out), &truncated),
			 -1);
	assert_int_equal(errno, ESRCH);
}

/* process_vm_readv on our own stopped child; EPERM means the environment forbids it. */
static bool can_read_child(void)
{
	char c = 0;
	struct iovec l = { &c, 1 }, r = { child_buf, 1 };
	int status;
	pid_t pid = fork();
	ssize_t n;

	if (pid == 0) {
		raise(SIGSTOP);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, WUNTRACED) != pid)
		return false;
	n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return n == 1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_mem_read_child_buffer, teardown),
		cmocka_unit_test_teardown(test_mem_read_str_child_string, teardown),
		cmocka_unit_test_teardown(test_mem_read_str_truncates_to_cap, teardown),
		cmocka_unit_test_teardown(test_mem_read_str_exact_fit_not_truncated, teardown),
		cmocka_unit_test_teardown(test_mem_read_str_spans_pages, teardown),
		cmocka_unit_test_teardown(test_mem_read_str_ends_before_hole, teardown),
		cmocka_unit_test_teardown(test_mem_read_str_runs_into_hole, teardown),
		cmocka_unit_test_teardown(test_mem_read_null_and_unmapped, teardown),
		cmocka_unit_test_teardown(test_mem_read_gone_tracee_esrch, teardown),
	};

	if (!can_read_child()) {
		fprintf(stderr, "skip: process_vm_readv of a child is not permitted here\n");
		return SKIP_RETURN;
	}
	page = (size_t)sysconf(_SC_PAGESIZE);
	two_pages =
		mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (two_pages == MAP_FAILED)
		return 1;
	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
