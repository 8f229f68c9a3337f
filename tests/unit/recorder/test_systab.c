/* Unit tests of recorder/systab.h: the table of recorded syscalls, trace classes and filter rules. */
#include "recorder/systab.h"
#include "launcher/abi.h"
#include "launcher/filter.h"
#include "launcher/taint.h"
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

static int setup(void **state)
{
	*state = rec_systab_new();
	return *state == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	rec_systab_free(*state);
	return 0;
}

static void test_systab_lookup_openat(void **state)
{
	const struct rec_systab *t = *state;
	int nr = seccomp_syscall_resolve_name("openat");
	const struct repro_sysent *s;

	assert_true(nr >= 0);
	s = rec_systab_lookup(t, lnch_arch_audit_token(), nr);
	assert_non_null(s);
	assert_string_equal(s->name, "openat");
	assert_int_equal(s->trace, REC_CLASS_FILE);
	assert_int_equal(repro_sysent_nargs(s), 4);
	assert_int_equal(s->args[0].kind, RA_DIRFD);
	assert_int_equal(s->args[1].kind, RA_PATH_AT);
	assert_string_equal(s->args[1].key, "path");
	assert_int_equal(s->args[2].kind, RA_OFLAGS);
	assert_int_equal(s->args[3].kind, RA_CMODE);
	assert_false(s->flags & REPRO_SYSF_NO_RETURN);
	assert_string_equal(rec_systab_name(t, lnch_arch_audit_token(), nr), "openat");
}

static void test_systab_lookup_compat_abi(void **state)
{
	const struct rec_systab *t = *state;
	uint32_t arches[4];
	size_t n = lnch_arch_filter_arches(arches, 4);

	/* every ABI of the filter resolves its own number for openat and connect */
	for (size_t a = 0; a < n; a++) {
		int open_nr = seccomp_syscall_resolve_name_arch(arches[a], "openat");
		int conn_nr = seccomp_syscall_resolve_name_arch(arches[a], "connect");

		assert_true(open_nr >= 0);
		assert_string_equal(rec_systab_lookup(t, arches[a], open_nr)->name, "openat");
		assert_string_equal(rec_systab_name(t, arches[a], open_nr), "openat");
		if (conn_nr >= 0) {
			assert_string_equal(rec_systab_lookup(t, arches[a], conn_nr)->name,
					    "connect");
			assert_int_equal(rec_systab_lookup(t, arches[a], conn_nr)->trace,
					 REC_CLASS_NETWORK);
		}
	}
}

static void test_systab_undecoded_and_unknown(void **state)
{
	const struct rec_systab *t = *state;
	int nr = seccomp_syscall_resolve_name("getpid");

	/* getpid is named but not decoded */
	assert_null(rec_systab_lookup(t, lnch_arch_audit_token(), nr));
	assert_string_equal(rec_systab_name(t, lnch_arch_audit_token(), nr), "getpid");
	assert_null(rec_systab_lookup(t, lnch_arch_audit_token(), -1));
	assert_null(rec_systab_lookup(t, lnch_arch_audit_token(), 1 << 20));
	assert_null(rec_systab_name(t, lnch_arch_audit_token(), 1 << 20));
	assert_null(rec_systab_lookup(t, 0x12345678, seccomp_syscall_resolve_name("openat")));
	assert_null(rec_systab_name(t, 0x12345678, 1));
}

static void test_systab_classes_parse(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	unsigned classes = 0;

	assert_int_equal(rec_classes_parse("file,%network", &classes, &err), 0);
	assert_int_equal(classes, REC_CLASS_FILE | REC_CLASS_NETWORK);
	assert_int_equal(rec_classes_parse("%process", &classes, &err), 0);
	assert_int_equal(classes, REC_CLASS_PROCESS);
	assert_int_equal(rec_classes_parse("all", &classes, &err), 0);
	assert_int_equal(classes, REC_CLASS_ALL);
	assert_int_equal(rec_classes_parse("net,file", &classes, &err), 0);
	assert_int_equal(classes, REC_CLASS_FILE | REC_CLASS_NETWORK);
	assert_null(err);
}

static void test_systab_classes_parse_errors(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	unsigned classes = 12345;

	assert_int_equal(rec_classes_parse("bogus", &classes, &err), -1);
	assert_true(repro_err_is(&err, EINVAL));
	assert_non_null(strstr(err->msg, "'bogus'"));
	assert_int_equal(classes, 12345); /* untouched on failure */
	assert_int_equal(rec_classes_parse("file,%bogus", &classes, &err), -1);
	assert_non_null(strstr(err->msg, "'bogus'"));
	assert_int_equal(rec_classes_parse("", &classes, &err), -1);
	assert_true(repro_err_is(&err, EINVAL));
	assert_int_equal(classes, 12345);
}

static void test_systab_classes_format(void **state)
{
	char buf[64];

	rec_classes_format(REC_CLASS_ALL, buf, sizeof(buf));
	assert_string_equal(buf, "file,network,process");
	rec_classes_format(REC_CLASS_FILE | REC_CLASS_PROCESS, buf, sizeof(buf));
	assert_string_equal(buf, "file,process");
	rec_classes_format(REC_CLASS_NETWORK, buf, sizeof(buf));
	assert_string_equal(buf, "network");
	rec_classes_format(REC_CLASS_FILE, buf, sizeof(buf));
	assert_string_equal(buf, "file");
}

static const struct lnch_filter_rule *find_rule(const struct lnch_filter_rule *r, size_t n,
						const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(r[i].name, name) == 0)
			return &r[i];
	return NULL;
}

static void test_systab_filter_rules_network(void **state)
{
	size_t n = 0;
	cleanup_free struct lnch_filter_rule *rules = rec_filter_rules(REC_CLASS_NETWORK, &n);
	const struct lnch_filter_rule *r;

	assert_true(n >= 5);
	r = find_rule(rules, n, "connect");
	assert_non_null(r);
	assert_int_equal(r->arg, -1);
	/* every getsockopt stops: strace shows each failed one */
	r = find_rule(rules, n, "getsockopt");
	assert_non_null(r);
	assert_int_equal(r->arg, -1);
	/*
	 * every send, receive and close stops: the recorder keeps failures,
	 * DNS and watched sockets
	 */
	static const char *const always[] = { "sendto",	     "sendmsg",	    "sendmmsg",
					      "recvfrom",    "recvmsg",	    "recvmmsg",
					      "close",	     "sendfile",    "setsockopt",
					      "getpeername", "getsockname", "socketpair" };
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		r = find_rule(rules, n, always[i]);
		assert_non_null(r);
		assert_int_equal(r->arg, -1);
	}
	assert_null(find_rule(rules, n, "openat"));
	assert_null(find_rule(rules, n, "execve"));
}

static void test_systab_filter_rules_file(void **state)
{
	size_t n = 0;
	cleanup_free struct lnch_filter_rule *rules = rec_filter_rules(REC_CLASS_FILE, &n);
	const struct lnch_filter_rule *r = find_rule(rules, n, "newfstatat");

	/*
	 * fstat(3) is newfstatat(fd, "", AT_EMPTY_PATH): it does not make a
	 * ptrace stop; the listener gets it, for AT_EMPTY_PATH with a path
	 */
	assert_non_null(r);
	assert_int_equal(r->arg, 3);
	assert_int_equal(r->mask, AT_EMPTY_PATH);
	assert_int_equal(r->value, 0);
	assert_true(r->is_ptrace_only_cond);
	r = find_rule(rules, n, "statx");
	assert_non_null(r);
	assert_int_equal(r->arg, 2);
	assert_true(r->is_ptrace_only_cond);
	assert_int_equal(find_rule(rules, n, "openat")->arg, -1);
	assert_null(find_rule(rules, n, "connect"));
}

/* Writes stop for fds 0 to 2 only, whatever the classes (what the program said: recorder/output.h). */
static void test_systab_filter_rules_output(void **state)
{
	size_t n = 0;
	cleanup_free struct lnch_filter_rule *rules = rec_filter_rules(REC_CLASS_NETWORK, &n);
	const struct lnch_filter_rule *r = find_rule(rules, n, "write");
	struct lnch_filter_view v;
	uint64_t args[6] = { 2 };
	int nr = seccomp_syscall_resolve_name("write");

	assert_non_null(r);
	assert_int_equal(r->arg, 0);
	assert_true(r->is_le);
	assert_int_equal(r->value, 2);
	assert_non_null(find_rule(rules, n, "writev"));
	lnch_filter_view_init(&v, rules, n, true);
	assert_int_equal(lnch_filter_view_action(&v, lnch_arch_audit_token(), nr, args),
			 LNCH_FILTER_TRACE);
	args[0] = 3;
	assert_int_equal(lnch_filter_view_action(&v, lnch_arch_audit_token(), nr, args),
			 LNCH_FILTER_ALLOW);
	lnch_filter_view_release(&v);
}

static void test_systab_filter_rules_build(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	size_t n = 0;
	cleanup_free struct lnch_filter_rule *rules = rec_filter_rules(REC_CLASS_ALL, &n);
	size_t total = 0, traced = 0;
	const struct repro_sysent *t = repro_sysent_all(&total);
	struct sock_fprog prog = { 0 };

	/*
	 * every row the filter stops but read, traced only when a fault rule
	 * asks, and calls newer than this libseccomp
	 */
	for (size_t i = 0; i < total; i++)
		traced += t[i].trace != 0 && t[i].trace != REC_CLASS_ON_DEMAND &&
			  seccomp_syscall_resolve_name(t[i].name) != __NR_SCMP_ERROR;
	assert_int_equal(n, traced);
	/* every rule of the table compiles into one filter for all ABIs */
	if (lnch_filter_build(rules, n, false, &prog, &err) < 0)
		fail_msg("%s", err->msg);
	assert_null(err);
	assert_true(prog.len > n);
	lnch_filter_release(&prog);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_systab_lookup_openat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_systab_lookup_compat_abi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_systab_undecoded_and_unknown, setup, teardown),
		cmocka_unit_test(test_systab_classes_parse),
		cmocka_unit_test(test_systab_classes_parse_errors),
		cmocka_unit_test(test_systab_classes_format),
		cmocka_unit_test(test_systab_filter_rules_network),
		cmocka_unit_test(test_systab_filter_rules_file),
		cmocka_unit_test(test_systab_filter_rules_output),
		cmocka_unit_test(test_systab_filter_rules_build),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
