/*
 * Capture of path arguments at a syscall stop, read from this very process
 * (process_vm_readv(2) on oneself is allowed): the raw string and its
 * absolute form must both survive, whatever their lengths.
 */
#include "recorder/capture.h"
#include "recorder/systab.h"
#include "launcher/abi.h"
#include "common/cleanup.h"

#include <fcntl.h>
#include <limits.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static const struct repro_sysent *openat_entry(struct rec_systab *tab)
{
	return rec_systab_lookup(tab, lnch_arch_audit_token(),
				 seccomp_syscall_resolve_name("openat"));
}

static void check_relative(const char *raw)
{
	struct rec_systab *tab = rec_systab_new();
	struct rec_capture c = { .tid = getpid() };
	struct lnch_stop st = { .tid = getpid(), .pid = getpid(), .arch = lnch_arch_audit_token() };
	char cwd[PATH_MAX], want[PATH_MAX * 2];
	const struct bndl_blob *r, *a;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, raw);
	st.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	st.args[1] = (uint64_t)(uintptr_t)raw;
	rec_capture_reset(&c);
	c.sys = openat_entry(tab);
	assert_non_null(c.sys);
	assert_true(rec_file_capture(&c, &st, 1, RA_PATH_AT));
	rec_capture_finish(&c);
	r = bndl_event_blob(&c.ev, BNDL_BLOB_STR, 1);
	a = bndl_event_blob(&c.ev, BNDL_BLOB_PATH, 1);
	assert_non_null(r);
	assert_non_null(a);
	assert_int_equal(r->len, strlen(raw));
	assert_memory_equal(r->data, raw, r->len);
	assert_int_equal(a->len, strlen(want));
	assert_memory_equal(a->data, want, a->len);
	rec_capture_release(&c);
	rec_systab_free(tab);
}

/* "webui.py" is 8 bytes: the next blob used to start on its NUL and garble the join */
static void test_capture_relative_path_of_eight_bytes(void **state)
{
	(void)state;
	check_relative("webui.py");
}

static void test_capture_relative_paths_of_every_length(void **state)
{
	char raw[40];

	(void)state;
	for (size_t n = 1; n < sizeof(raw); n++) {
		memset(raw, 'a', n);
		raw[n] = '\0';
		check_relative(raw);
	}
}

/* newfstatat(fd, "", AT_EMPTY_PATH) is fstat(3): dropped; with a path it is recorded */
static void test_capture_empty_path_fstat_dropped(void **state)
{
	struct rec_systab *tab = rec_systab_new();
	struct rec_capture c = { .tid = getpid() };
	struct lnch_stop st = { .tid = getpid(), .pid = getpid(), .arch = lnch_arch_audit_token() };
	const struct repro_sysent *sys = rec_systab_lookup(
		tab, lnch_arch_audit_token(), seccomp_syscall_resolve_name("newfstatat"));
	cleanup_close int fd = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cleanup_free char *etc = realpath("/etc", NULL);
	char want[PATH_MAX];
	const struct bndl_blob *a;

	(void)state;
	assert_non_null(sys);
	assert_true(fd >= 0);
	st.args[0] = (uint64_t)fd;
	st.args[1] = (uint64_t)(uintptr_t) "";
	st.args[3] = AT_EMPTY_PATH;
	rec_capture_reset(&c);
	c.sys = sys;
	assert_false(rec_file_capture(&c, &st, 1, RA_PATH_AT));
	st.args[1] = (uint64_t)(uintptr_t) "passwd";
	rec_capture_reset(&c);
	c.sys = sys;
	assert_true(rec_file_capture(&c, &st, 1, RA_PATH_AT));
	rec_capture_finish(&c);
	a = bndl_event_blob(&c.ev, BNDL_BLOB_PATH, 1);
	assert_non_null(a);
	snprintf(want, sizeof(want), "%s/passwd", etc);
	assert_int_equal(a->len, strlen(want));
	assert_memory_equal(a->data, want, a->len);
	/* without AT_EMPTY_PATH an empty path is an ENOENT worth recording */
	st.args[1] = (uint64_t)(uintptr_t) "";
	st.args[3] = 0;
	rec_capture_reset(&c);
	c.sys = sys;
	assert_true(rec_file_capture(&c, &st, 1, RA_PATH_AT));
	rec_capture_release(&c);
	rec_systab_free(tab);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_relative_path_of_eight_bytes),
		cmocka_unit_test(test_capture_relative_paths_of_every_length),
		cmocka_unit_test(test_capture_empty_path_fstat_dropped),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
