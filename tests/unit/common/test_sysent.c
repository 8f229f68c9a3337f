/* Unit tests of common/sysent.h: the one table of syscall meaning. */
#include "common/sysent.h"
#include "common/cleanup.h"

#include <fcntl.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Rows of calls added to the kernel after strace 6.1 and libseccomp 2.5 (Linux 6.6 and later). */
static bool is_newer_than_strace_61(const char *name)
{
	static const char *const names[] = {
		"cachestat",   "fchmodat2",	"file_getattr", "file_setattr",	  "getxattrat",
		"listxattrat", "removexattrat", "setxattrat",	"open_tree_attr",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static void test_sysent_sorted_and_unique(void **state)
{
	size_t n = 0;
	const struct repro_sysent *t = repro_sysent_all(&n);

	assert_true(n > 200);
	for (size_t i = 1; i < n; i++)
		if (strcmp(t[i - 1].name, t[i].name) >= 0)
			fail_msg("row %zu '%s' is not after '%s'", i, t[i].name, t[i - 1].name);
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(repro_sysent_find(t[i].name), &t[i]);
	assert_null(repro_sysent_find("opnat"));
	assert_null(repro_sysent_find(""));
	assert_null(repro_sysent_find(NULL));
}

/* Every row is a call libseccomp knows (but for calls newer than it), and its facts agree. */
static void test_sysent_rows_consistent(void **state)
{
	size_t n = 0;
	const struct repro_sysent *t = repro_sysent_all(&n);

	for (size_t i = 0; i < n; i++) {
		const struct repro_sysent *s = &t[i];
		int nargs = repro_sysent_nargs(s);

		if (!is_newer_than_strace_61(s->name) &&
		    seccomp_syscall_resolve_name(s->name) == __NR_SCMP_ERROR)
			fail_msg("'%s' is unknown to libseccomp", s->name);
		/* a traced row has its arguments; an untraced one is for policies and waits */
		if (s->trace != 0 && nargs == 0)
			assert_true(strcmp(s->name, "fork") == 0 || strcmp(s->name, "vfork") == 0);
		/*
		 * a row that acts on a path has a path argument, or writes to
		 * an fd whose path is taken when it fails; and the other way round
		 */
		bool fd_write = repro_sysent_arg_of(s, RA_FD_TARGET) >= 0;

		if (s->op != REPRO_OP_NONE)
			assert_true(repro_sysent_arg_of(s, RA_PATH) >= 0 ||
				    repro_sysent_arg_of(s, RA_PATH_AT) >= 0 ||
				    (fd_write && s->op == REPRO_OP_WRITE));
		if (fd_write && s->trace != 0)
			assert_true(s->flags & REPRO_SYSF_FAILURE_ONLY);
		if (repro_sysent_arg_of(s, RA_PATH) >= 0 || repro_sysent_arg_of(s, RA_PATH_AT) >= 0)
			assert_int_not_equal(s->op, REPRO_OP_NONE);
		/* %file is exactly the calls that take a path, but for getcwd and fsconfig (strace's choice) */
		assert_true(!!(s->classes & REPRO_SYS_FILE) ==
			    ((s->op != REPRO_OP_NONE && !fd_write) ||
			     strcmp(s->name, "getcwd") == 0 || strcmp(s->name, "fsconfig") == 0));
		/*
		 * the filter stops a %file, %network or %process call with its
		 * own class, or a write to an fd with %file (its failures)
		 */
		if (s->trace & REPRO_TRACE_ALL)
			assert_true((s->trace & REPRO_TRACE_ALL & ~s->classes) == 0 ||
				    strcmp(s->name, "fchdir") == 0 ||
				    strcmp(s->name, "close") == 0 ||
				    (fd_write && (s->trace & REPRO_TRACE_ALL) == REPRO_TRACE_FILE));
		if (s->bytes == REPRO_BYTES_COUNT)
			assert_true(s->args[2].kind == RA_NONE || s->args[2].kind == RA_SIZE);
		if (s->flags & REPRO_SYSF_BEHALF)
			assert_int_equal(s->op == REPRO_OP_STAT || s->op == REPRO_OP_READLINK,
					 true);
		if (s->has_cond)
			assert_true(s->cond.arg >= 0 && s->cond.arg < 6);
		if (s->taint != REPRO_TAINT_NONE)
			assert_true(s->trace & REPRO_TRACE_ALWAYS ||
				    s->trace & REPRO_TRACE_PROCESS);
	}
}

static unsigned class_bit(const char *word)
{
	if (strcmp(word, "file") == 0)
		return REPRO_SYS_FILE;
	if (strcmp(word, "network") == 0)
		return REPRO_SYS_NETWORK;
	if (strcmp(word, "process") == 0)
		return REPRO_SYS_PROCESS;
	return 0;
}

/*
 * %file, %network and %process hold strace 6.1's calls of that class
 * (tests/integration/strace_classes.txt), both ways: every listed call has
 * the class in the table, and every row of the class is listed or newer
 * than strace 6.1.  The same sets serve --trace and fault rules.
 */
static void test_sysent_classes_match_strace(void **state)
{
	cleanup_fclose FILE *f = fopen(STRACE_CLASSES_FILE, "re");
	size_t n = 0, listed = 0, in_table = 0;
	const struct repro_sysent *t = repro_sysent_all(&n);
	char line[128], word[32], name[64];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		const struct repro_sysent *s;
		unsigned bit;

		if (line[0] == '#' || sscanf(line, "%31s %63s", word, name) != 2)
			continue;
		bit = class_bit(word);
		assert_int_not_equal(bit, 0);
		s = repro_sysent_find(name);
		if (s == NULL || !(s->classes & bit))
			fail_msg("strace has %s in %%%s; the table does not", name, word);
		listed++;
	}
	for (unsigned bit = REPRO_SYS_FILE; bit <= REPRO_SYS_PROCESS; bit <<= 1)
		for (size_t i = 0; i < n; i++)
			if ((t[i].classes & bit) && !is_newer_than_strace_61(t[i].name))
				in_table++;
	assert_int_equal(in_table, listed);
	assert_true(listed > 100);
}

static void test_sysent_ops(void **state)
{
	assert_int_equal(repro_sysent_find("stat")->op, REPRO_OP_STAT);
	assert_int_equal(repro_sysent_find("truncate")->op, REPRO_OP_WRITE);
	assert_int_equal(repro_sysent_find("utimes")->op, REPRO_OP_CHANGE);
	assert_int_equal(repro_sysent_op(repro_sysent_find("rename"), 0, 0), REPRO_OP_RENAME);
	assert_int_equal(repro_sysent_op(repro_sysent_find("rename"), 1, 0), REPRO_OP_CREATE);
	assert_int_equal(repro_sysent_op(repro_sysent_find("linkat"), 3, 0), REPRO_OP_CREATE);
	assert_int_equal(repro_sysent_op(repro_sysent_find("openat"), 1, O_WRONLY | O_CREAT),
			 REPRO_OP_CREATE);
	assert_int_equal(repro_sysent_op(NULL, 0, 0), REPRO_OP_NONE);
	/* modifies: by the op, an open by its flags */
	assert_true(repro_sysent_modifies(repro_sysent_find("utimes"), 0));
	assert_true(repro_sysent_modifies(repro_sysent_find("truncate"), 0));
	assert_true(repro_sysent_modifies(repro_sysent_find("setxattr"), 0));
	assert_false(repro_sysent_modifies(repro_sysent_find("getxattr"), 0));
	assert_false(repro_sysent_modifies(repro_sysent_find("openat"), O_RDONLY));
	assert_true(repro_sysent_modifies(repro_sysent_find("openat"), O_RDONLY | O_TRUNC));
	assert_true(repro_sysent_modifies(repro_sysent_find("open"), O_RDWR));
	assert_false(repro_sysent_modifies(NULL, O_RDWR));
}

static void test_sysent_open_op(void **state)
{
	assert_int_equal(repro_sys_open_op(O_RDONLY), REPRO_OP_READ);
	assert_int_equal(repro_sys_open_op(O_PATH | O_WRONLY), REPRO_OP_STAT);
	assert_int_equal(repro_sys_open_op(O_WRONLY), REPRO_OP_WRITE);
	assert_int_equal(repro_sys_open_op(O_RDONLY | O_TRUNC), REPRO_OP_WRITE);
	assert_int_equal(repro_sys_open_op(O_RDWR | O_CREAT), REPRO_OP_CREATE);
	assert_int_equal(repro_sys_open_op(O_TMPFILE | O_RDWR), REPRO_OP_CREATE);
	/* the same from events.jsonl's text, a word at a time */
	assert_int_equal(repro_sys_open_op_text("O_RDONLY|O_CLOEXEC"), REPRO_OP_READ);
	assert_int_equal(repro_sys_open_op_text("O_WRONLY|O_CREAT|O_TRUNC"), REPRO_OP_CREATE);
	assert_int_equal(repro_sys_open_op_text("O_RDWR"), REPRO_OP_WRITE);
	assert_int_equal(repro_sys_open_op_text("O_ACCMODE|O_CLOEXEC"), REPRO_OP_WRITE);
	assert_int_equal(repro_sys_open_op(O_ACCMODE), REPRO_OP_WRITE);
	assert_int_equal(repro_sys_open_op_text("O_RDONLY|O_PATH"), REPRO_OP_STAT);
	assert_int_equal(repro_sys_open_op_text("O_RDONLY|O_CREATX"), REPRO_OP_READ);
	assert_int_equal(repro_sys_open_op_text(NULL), REPRO_OP_READ);
}

static void test_sysent_op_names_round_trip(void **state)
{
	for (int op = REPRO_OP_NONE; op <= REPRO_OP_OTHER; op++) {
		const char *name = repro_sys_op_name((enum repro_sys_op)op);

		if (op == REPRO_OP_NONE || op == REPRO_OP_OPEN) {
			assert_null(name);
			continue;
		}
		assert_non_null(name);
		assert_int_equal(repro_sys_op_parse(name), op);
	}
	assert_int_equal(repro_sys_op_parse("bogus"), REPRO_OP_NONE);
	assert_int_equal(repro_sys_op_parse(NULL), REPRO_OP_NONE);
}

static void test_sysent_class_words(void **state)
{
	assert_int_equal(repro_sys_class_lookup("%file"), REPRO_SYS_FILE);
	assert_int_equal(repro_sys_class_lookup("%net"), REPRO_SYS_NETWORK);
	assert_int_equal(repro_sys_class_lookup("desc"), REPRO_SYS_DESC);
	assert_int_equal(repro_sys_class_lookup("%files"), 0);
	assert_string_equal(repro_sys_class_word(0), "%file");
	assert_null(repro_sys_class_word(100));
	assert_string_equal(repro_sys_alias("recv"), "recvfrom");
	assert_null(repro_sys_alias("recvfrom"));
}

/* Calls that move bytes: the byte-counted ones can be cut short at args[2], the vectored ones counted. */
static void test_sysent_bytes(void **state)
{
	static const char *const vectored[] = { "readv",   "writev",   "preadv",  "preadv2",
						"pwritev", "pwritev2", "recvmsg", "sendmsg" };

	assert_int_equal(repro_sysent_find("read")->bytes, REPRO_BYTES_COUNT);
	assert_int_equal(repro_sysent_find("pwrite64")->bytes, REPRO_BYTES_COUNT);
	for (size_t i = 0; i < sizeof(vectored) / sizeof(vectored[0]); i++)
		assert_int_equal(repro_sysent_find(vectored[i])->bytes, REPRO_BYTES_RESULT);
	/* these return a count of messages, not bytes */
	assert_int_equal(repro_sysent_find("sendmmsg")->bytes, REPRO_BYTES_NONE);
	assert_int_equal(repro_sysent_find("recvmmsg")->bytes, REPRO_BYTES_NONE);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysent_sorted_and_unique),
		cmocka_unit_test(test_sysent_rows_consistent),
		cmocka_unit_test(test_sysent_classes_match_strace),
		cmocka_unit_test(test_sysent_ops),
		cmocka_unit_test(test_sysent_open_op),
		cmocka_unit_test(test_sysent_op_names_round_trip),
		cmocka_unit_test(test_sysent_class_words),
		cmocka_unit_test(test_sysent_bytes),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
