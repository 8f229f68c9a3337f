/* Unit tests of recorder/flags.h: strace-style names for flag words, modes, errno and signals. */
#include "recorder/flags.h"
#include "common/names.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static char buf[256];

static void test_flags_oflags_common(void **state)
{
	assert_string_equal(rec_oflags_format(O_RDONLY | O_CLOEXEC, buf, sizeof(buf)),
			    "O_RDONLY|O_CLOEXEC");
	assert_string_equal(rec_oflags_format(O_WRONLY | O_CREAT | O_TRUNC, buf, sizeof(buf)),
			    "O_WRONLY|O_CREAT|O_TRUNC");
	assert_string_equal(rec_oflags_format(O_RDONLY, buf, sizeof(buf)), "O_RDONLY");
	assert_string_equal(rec_oflags_format(O_RDWR, buf, sizeof(buf)), "O_RDWR");
	assert_string_equal(rec_oflags_format(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, buf,
					      sizeof(buf)),
			    "O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY");
}

static void test_flags_oflags_composites(void **state)
{
	/*
	 * O_SYNC includes O_DSYNC's bit (one name); O_TMPFILE includes O_DIRECTORY's,
	 * shown as its own bit (strace folds it into "O_TMPFILE")
	 */
	assert_string_equal(rec_oflags_format(O_WRONLY | O_SYNC, buf, sizeof(buf)),
			    "O_WRONLY|O_SYNC");
	assert_string_equal(rec_oflags_format(O_WRONLY | O_DSYNC, buf, sizeof(buf)),
			    "O_WRONLY|O_DSYNC");
	assert_string_equal(rec_oflags_format(O_RDWR | O_TMPFILE, buf, sizeof(buf)),
			    "O_RDWR|O_TMPFILE|O_DIRECTORY");
}

static void test_flags_oflags_unknown_bits_hex(void **state)
{
	/* 0x10000000 is no O_* flag on Linux */
	assert_string_equal(rec_oflags_format(O_RDONLY | O_CLOEXEC | 0x10000000, buf, sizeof(buf)),
			    "O_RDONLY|O_CLOEXEC|0x10000000");
	assert_string_equal(rec_oflags_format(O_WRONLY | 0x10000000, buf, sizeof(buf)),
			    "O_WRONLY|0x10000000");
}

static void test_flags_oflags_cut_to_cap(void **state)
{
	char small[9];

	memset(small, 'X', sizeof(small));
	rec_oflags_format(O_RDONLY | O_CLOEXEC, small, sizeof(small));
	assert_string_equal(small, "O_RDONLY");
}

static void test_flags_generic_table(void **state)
{
	static const struct rec_flag tab[] = { { 1, "A" }, { 2, "B" }, { 6, "BC" } };

	assert_string_equal(rec_flags_format(tab, 3, 0, buf, sizeof(buf)), "0");
	assert_string_equal(rec_flags_format(tab, 3, 3, buf, sizeof(buf)), "A|B");
	assert_string_equal(rec_flags_format(tab, 3, 0x41, buf, sizeof(buf)), "A|0x40");
	assert_string_equal(rec_flags_format(tab, 3, 0x80, buf, sizeof(buf)), "0x80");
}

static void test_flags_atflags_and_amode(void **state)
{
	assert_string_equal(rec_atflags_format(AT_SYMLINK_NOFOLLOW, buf, sizeof(buf)),
			    "AT_SYMLINK_NOFOLLOW");
	assert_string_equal(
		rec_atflags_format(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH, buf, sizeof(buf)),
		"AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH");
	assert_string_equal(rec_atflags_format(0, buf, sizeof(buf)), "0");
	assert_string_equal(rec_amode_format(F_OK, buf, sizeof(buf)), "F_OK");
	assert_string_equal(rec_amode_format(R_OK | W_OK, buf, sizeof(buf)), "R_OK|W_OK");
	assert_string_equal(rec_amode_format(X_OK, buf, sizeof(buf)), "X_OK");
}

static void test_flags_mode_octal(void **state)
{
	assert_string_equal(rec_mode_format(0644, buf, sizeof(buf)), "0644");
	assert_string_equal(rec_mode_format(0, buf, sizeof(buf)), "0000");
	assert_string_equal(rec_mode_format(S_IFIFO | 0600, buf, sizeof(buf)), "S_IFIFO|0600");
	assert_string_equal(rec_mode_format(S_IFREG | 0644, buf, sizeof(buf)), "S_IFREG|0644");
}

/*
 * Special bits still need the leading 0 that marks octal, as strace prints
 * chmod("x", 04755) and docs/bundle-format.md shows "0644"; "%04o" drops it.
 */
static void test_flags_mode_setuid_keeps_octal_prefix(void **state)
{
	assert_string_equal(rec_mode_format(04755, buf, sizeof(buf)), "04755");
	assert_string_equal(rec_mode_format(01777, buf, sizeof(buf)), "01777");
}

static void test_flags_errno_names(void **state)
{
	char e[32];

	assert_string_equal(repro_errno_name(ENOENT, e, sizeof(e)), "ENOENT");
	assert_string_equal(repro_errno_name(ECONNREFUSED, e, sizeof(e)), "ECONNREFUSED");
	/* include/linux/errno.h: restart codes a tracer sees at syscall exit */
	assert_string_equal(repro_errno_name(512, e, sizeof(e)), "ERESTARTSYS");
	assert_string_equal(repro_errno_name(514, e, sizeof(e)), "ERESTARTNOHAND");
	assert_string_equal(repro_errno_name(516, e, sizeof(e)), "ERESTART_RESTARTBLOCK");
	assert_string_equal(repro_errno_name(4000, e, sizeof(e)), "E4000");
	assert_ptr_equal(repro_errno_name(4000, e, sizeof(e)), e);
}

static void test_flags_signal_names(void **state)
{
	char s[32];

	assert_string_equal(repro_signal_name(SIGSEGV, s, sizeof(s)), "SIGSEGV");
	assert_string_equal(repro_signal_name(SIGCHLD, s, sizeof(s)), "SIGCHLD");
	assert_string_equal(repro_signal_name(SIGKILL, s, sizeof(s)), "SIGKILL");
	assert_string_equal(repro_signal_name(200, s, sizeof(s)), "SIG200");
}

static void test_flags_clone_flags(void **state)
{
	assert_string_equal(
		rec_cloneflags_format(CLONE_VM | CLONE_VFORK | SIGCHLD, buf, sizeof(buf)),
		"CLONE_VM|CLONE_VFORK|SIGCHLD");
	assert_string_equal(rec_cloneflags_format(SIGCHLD, buf, sizeof(buf)), "SIGCHLD");
	assert_string_equal(rec_cloneflags_format(CLONE_VM | CLONE_FS | CLONE_FILES |
							  CLONE_SIGHAND | CLONE_THREAD,
						  buf, sizeof(buf)),
			    "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD");
	assert_string_equal(rec_cloneflags_format(0, buf, sizeof(buf)), "0");
}

static void test_flags_socket_words(void **state)
{
	char l[32], n[32];

	assert_string_equal(rec_domain_format(AF_INET6, buf, sizeof(buf)), "AF_INET6");
	assert_string_equal(rec_domain_format(99, buf, sizeof(buf)), "99");
	assert_string_equal(rec_socktype_format(SOCK_STREAM | SOCK_CLOEXEC, buf, sizeof(buf)),
			    "SOCK_STREAM|SOCK_CLOEXEC");
	assert_string_equal(rec_socktype_format(SOCK_DGRAM, buf, sizeof(buf)), "SOCK_DGRAM");
	assert_string_equal(rec_socktype_format(SOCK_NONBLOCK, buf, sizeof(buf)), "SOCK_NONBLOCK");
	assert_string_equal(rec_sockopt_format(SOL_SOCKET, SO_ERROR, l, n, sizeof(l)),
			    "SOL_SOCKET");
	assert_string_equal(n, "SO_ERROR");
	assert_string_equal(rec_shuthow_format(SHUT_RDWR, buf, sizeof(buf)), "SHUT_RDWR");
	assert_string_equal(rec_msgflags_format(MSG_NOSIGNAL | MSG_DONTWAIT, buf, sizeof(buf)),
			    "MSG_DONTWAIT|MSG_NOSIGNAL");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_oflags_common),
		cmocka_unit_test(test_flags_oflags_composites),
		cmocka_unit_test(test_flags_oflags_unknown_bits_hex),
		cmocka_unit_test(test_flags_oflags_cut_to_cap),
		cmocka_unit_test(test_flags_generic_table),
		cmocka_unit_test(test_flags_atflags_and_amode),
		cmocka_unit_test(test_flags_mode_octal),
		cmocka_unit_test(test_flags_mode_setuid_keeps_octal_prefix),
		cmocka_unit_test(test_flags_errno_names),
		cmocka_unit_test(test_flags_signal_names),
		cmocka_unit_test(test_flags_clone_flags),
		cmocka_unit_test(test_flags_socket_words),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
