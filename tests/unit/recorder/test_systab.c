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
	const struct rec_sys *s;

	assert_true(nr >= 0);
	s = rec_systab_lookup(t, lnch_arch_audit_token(), nr);
	assert_non_null(s);
	assert_string_equal(s->name, "openat");
	assert_int_equal(s->classes, REC_CLASS_FILE);
	assert_int_equal(s->nargs, 4);
	assert_int_equal(s->args[0].kind, RA_DIRFD);
	assert_int_equal(s->args[1].kind, RA_PATH_AT);
	assert_string_equal(s->args[1].key, "path");
	assert_int_equal(s->args[2].kind, RA_OFLAGS);
	assert_int_equal(s->args[3].kind, RA_CMODE);
	assert_false(s->no_return);
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
			assert_int_equal(rec_systab_lookup(t, arches[a], conn_nr)->classes,
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

static bool is_taint_call(const char *name)
{
	for (size_t i = 0; lnch_taint_name(i) != NULL; i++)
		if (strcmp(lnch_taint_name(i), name) == 0)
			return true;
	return false;
}

static void test_systab_entries_shape(void **state)
{
	size_t n = 0;
	const struct rec_sys *e = rec_systab_entries(&n);
	int seen_exit_group = 0;

	/* every call the launcher must see is in the table (and decoded) */
	for (size_t t = 0; lnch_taint_name(t) != NULL; t++) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			found = strcmp(e[i].name, lnch_taint_name(t)) == 0;
		assert_true(found);
	}

	assert_true(n > 40);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(e[i].name);
		assert_true(e[i].nargs >= 0 && e[i].nargs <= 6);
		/* always: io_uring_setup, and what launcher/taint.h must see */
		assert_true(
			e[i].classes == REC_CLASS_FILE || e[i].classes == REC_CLASS_NETWORK ||
			e[i].classes == REC_CLASS_PROCESS ||
			e[i].classes == REC_CLASS_FILE_PROCESS ||
			e[i].classes == REC_CLASS_OUTPUT || e[i].classes == REC_CLASS_ON_DEMAND ||
			((e[i].classes & ~REC_CLASS_FILE) == REC_CLASS_ALWAYS &&
			 (strcmp(e[i].name, "io_uring_setup") == 0 || is_taint_call(e[i].name))));
		/* every name is one libseccomp knows */
		assert_int_not_equal(seccomp_syscall_resolve_name(e[i].name), __NR_SCMP_ERROR);
		if (strcmp(e[i].name, "exit_group") == 0) {
			seen_exit_group = 1;
			assert_true(e[i].no_return);
		}
	}
	assert_true(seen_exit_group);
}

/* Whether the table row of name is in class bit (false when name has no row). */
static bool table_has(const struct rec_sys *e, size_t n, const char *name, unsigned bit)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].name, name) == 0)
			return (e[i].classes & bit) != 0;
	return false;
}

/* Calls repro traces with a class that strace puts elsewhere (%desc), and why. */
static bool is_extra(const char *name, unsigned bit)
{
	/* fchdir: later relative paths depend on it; close: the end of a watched socket */
	return (bit == REC_CLASS_FILE && strcmp(name, "fchdir") == 0) ||
	       (bit == REC_CLASS_NETWORK && strcmp(name, "close") == 0);
}

static unsigned class_bit(const char *word)
{
	if (strcmp(word, "file") == 0)
		return REC_CLASS_FILE;
	if (strcmp(word, "network") == 0)
		return REC_CLASS_NETWORK;
	if (strcmp(word, "process") == 0)
		return REC_CLASS_PROCESS;
	return 0;
}

/*
 * %file, %network and %process hold exactly strace 6.1's calls of that
 * class (tests/integration/strace_classes.txt), both ways.
 */
static void test_systab_classes_match_strace(void **state)
{
	cleanup_fclose FILE *f = fopen(STRACE_CLASSES_FILE, "re");
	size_t n = 0, listed = 0, in_table = 0;
	const struct rec_sys *e = rec_systab_entries(&n);
	char line[128], word[32], name[64];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned bit;

		if (line[0] == '#' || sscanf(line, "%31s %63s", word, name) != 2)
			continue;
		bit = class_bit(word);
		assert_int_not_equal(bit, 0);
		if (!table_has(e, n, name, bit))
			fail_msg("strace has %s in %%%s; table.def does not", name, word);
		listed++;
	}
	for (unsigned bit = REC_CLASS_FILE; bit <= REC_CLASS_PROCESS; bit <<= 1)
		for (size_t i = 0; i < n; i++)
			if ((e[i].classes & bit) && !is_extra(e[i].name, bit))
				in_table++;
	/* every row counted above is one of the listed lines: the sets are equal */
	assert_int_equal(in_table, listed);
	assert_true(listed > 100);
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
	size_t total = 0;
	struct sock_fprog prog = { 0 };

	rec_systab_entries(&total);
	assert_int_equal(n, total - 1); /* all but read, traced only when a fault rule asks */
	/* every rule of the table compiles into one filter for all ABIs */
	assert_int_equal(lnch_filter_build(rules, n, false, &prog, &err), 0);
	assert_null(err);
	assert_true(prog.len > n);
	lnch_filter_release(&prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_systab_lookup_openat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_systab_lookup_compat_abi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_systab_undecoded_and_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_systab_entries_shape, setup, teardown),
		cmocka_unit_test(test_systab_classes_match_strace),
		cmocka_unit_test(test_systab_classes_parse),
		cmocka_unit_test(test_systab_classes_parse_errors),
		cmocka_unit_test(test_systab_classes_format),
		cmocka_unit_test(test_systab_filter_rules_network),
		cmocka_unit_test(test_systab_filter_rules_file),
		cmocka_unit_test(test_systab_filter_rules_output),
		cmocka_unit_test(test_systab_filter_rules_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
