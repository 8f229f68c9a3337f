/*
 * Unit tests of launcher/filter.h.  Built filters are loaded in a forked
 * child (STYLE.md, "Seccomp filters"): with no tracer attached, a call the
 * filter sends to SECCOMP_RET_TRACE is not executed and fails with ENOSYS
 * (seccomp(2)), so the child can prove by its exit code which calls trap.
 */
#include "launcher/filter.h"
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#define SKIP_RETURN 77

/* Exit codes of the filtered child. */
enum child_code {
	CHILD_OK = 0,
	CHILD_NO_NEW_PRIVS = 10,
	CHILD_LOAD = 11,
	CHILD_OPENAT_RAN = 12,
	CHILD_GETPID_TRAPPED = 13,
	CHILD_FSTAT_TRAPPED = 14,
	CHILD_STAT_RAN = 15,
	CHILD_OPEN_DEVNULL = 16,
};

static const struct lnch_filter_rule openat_rule = { .name = "openat", .arg = -1 };

/* newfstatat traps only without AT_EMPTY_PATH in its flags (argument 3), as recorder/systab.c asks. */
static const struct lnch_filter_rule stat_rule = {
	.name = "newfstatat",
	.arg = 3,
	.mask = AT_EMPTY_PATH,
	.value = 0,
};

static void test_filter_build_openat(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct sock_fprog prog = { 0 };

	assert_int_equal(lnch_filter_build(&openat_rule, 1, false, &prog, &err), 0);
	assert_null(err);
	assert_non_null(prog.filter);
	assert_true(prog.len > 4);
	/* the program ends in a return: BPF_RET | BPF_K */
	assert_int_equal(BPF_CLASS(prog.filter[prog.len - 1].code), BPF_RET);
	lnch_filter_release(&prog);
	assert_null(prog.filter);
	assert_int_equal(prog.len, 0);
}

static void test_filter_build_with_conditions(void **state)
{
	const struct lnch_filter_rule rules[] = {
		openat_rule,
		stat_rule,
		{ .name = "sendto", .arg = 4, .is_ne = true, .value = 0 },
		{ .name = "getsockopt", .arg = 2, .mask = 0xffffffffu, .value = 4 },
	};
	cleanup_err struct repro_err *err = NULL;
	struct sock_fprog prog = { 0 };

	assert_int_equal(lnch_filter_build(rules, 4, false, &prog, &err), 0);
	assert_null(err);
	assert_non_null(prog.filter);
	lnch_filter_release(&prog);
}

static void test_filter_build_native_only_name(void **state)
{
	/* "open" exists on both ABIs, "newfstatat" only natively (i386 has fstatat64): both build */
	const struct lnch_filter_rule rules[] = { { .name = "open", .arg = -1 }, stat_rule };
	cleanup_err struct repro_err *err = NULL;
	struct sock_fprog prog = { 0 };

	assert_int_equal(lnch_filter_build(rules, 2, false, &prog, &err), 0);
	lnch_filter_release(&prog);
}

static void test_filter_build_unknown_name_einval(void **state)
{
	const struct lnch_filter_rule rules[] = { openat_rule, { .name = "opnat", .arg = -1 } };
	cleanup_err struct repro_err *err = NULL;
	struct sock_fprog prog = { 0 };

	assert_int_equal(lnch_filter_build(rules, 2, false, &prog, &err), -1);
	assert_non_null(err);
	assert_int_equal(err->errnum, EINVAL);
	assert_non_null(strstr(err->msg, "'opnat'"));
	assert_null(prog.filter);
}

static int load(const struct sock_fprog *prog)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return CHILD_NO_NEW_PRIVS;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) != 0)
		return CHILD_LOAD;
	return CHILD_OK;
}

/* In the child: openat is trapped (ENOSYS), getpid is not. */
static int openat_child(const struct sock_fprog *prog)
{
	pid_t before = (pid_t)syscall(SYS_getpid);
	int rc = load(prog);
	long fd;

	if (rc != CHILD_OK)
		return rc;
	fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOSYS)
		return CHILD_OPENAT_RAN;
	if (syscall(SYS_getpid) != before)
		return CHILD_GETPID_TRAPPED;
	return CHILD_OK;
}

/* In the child: newfstatat with AT_EMPTY_PATH runs, without it traps. */
static int stat_child(const struct sock_fprog *prog)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct stat st;
	int rc;

	if (fd < 0)
		return CHILD_OPEN_DEVNULL;
	rc = load(prog);
	if (rc != CHILD_OK)
		return rc;
	if (syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH) != 0)
		return CHILD_FSTAT_TRAPPED;
	if (syscall(SYS_newfstatat, AT_FDCWD, "/", &st, 0) == 0 || errno != ENOSYS)
		return CHILD_STAT_RAN;
	return CHILD_OK;
}

static int run_child(int (*body)(const struct sock_fprog *), const struct sock_fprog *prog)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(body(prog));
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_filter_traps_openat_not_getpid(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct sock_fprog prog = { 0 };

	assert_int_equal(lnch_filter_build(&openat_rule, 1, false, &prog, &err), 0);
	assert_int_equal(run_child(openat_child, &prog), CHILD_OK);
	lnch_filter_release(&prog);
}

/* In the child: the notify filter with a listener, handed to the parent over sock. */
static int notify_child(const struct sock_fprog *prog, int sock)
{
	char byte = 'L', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	struct stat st;
	int listener;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return CHILD_NO_NEW_PRIVS;
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	if (listener < 0)
		return CHILD_LOAD;
	memset(cbuf, 0, sizeof(cbuf));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &listener, sizeof(int));
	if (sendmsg(sock, &m, 0) != 1)
		return CHILD_LOAD;
	close(listener);
	/* the parent answers EPERM for the path lookup */
	if (syscall(SYS_newfstatat, AT_FDCWD, "/", &st, 0) != -1 || errno != EPERM)
		return CHILD_STAT_RAN;
	/* setuid changes credentials: traced (ENOSYS without a tracer), never notified */
	if (syscall(SYS_setuid, getuid()) != -1 || errno != ENOSYS)
		return CHILD_GETPID_TRAPPED;
	return CHILD_OK;
}

static int recv_fd(int sock)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)
	};
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || CMSG_FIRSTHDR(&m) == NULL)
		return -1;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(fd));
	return fd;
}

static void test_filter_notify_path_calls(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct sock_fprog prog = { 0 };
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	int sv[2], status = 0, listener;
	pid_t pid;

	assert_int_equal(lnch_filter_build(&stat_rule, 1, true, &prog, &err), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	if (pid == 0)
		_exit(notify_child(&prog, sv[1]));
	close(sv[1]);
	listener = recv_fd(sv[0]);
	close(sv[0]);
	assert_true(listener >= 0);
	memset(&req, 0, sizeof(req));
	assert_int_equal(ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req), 0);
	assert_int_equal(req.data.nr, SYS_newfstatat);
	assert_int_equal(req.pid, pid);
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.error = -EPERM;
	assert_int_equal(ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(listener);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), CHILD_OK);
	lnch_filter_release(&prog);
}

static void test_filter_arg_condition_in_kernel(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct sock_fprog prog = { 0 };

	assert_int_equal(lnch_filter_build(&stat_rule, 1, false, &prog, &err), 0);
	assert_int_equal(run_child(stat_child, &prog), CHILD_OK);
	lnch_filter_release(&prog);
}

/*
 * The view agrees with the kernel: for each sample call, the built filter
 * traps it (ENOSYS without a tracer) exactly when the view says it stops.
 */
struct sample {
	long nr;
	uint64_t args[6];
};

static const struct sample samples[] = {
	{ SYS_getpid, { 0 } },
	{ SYS_openat, { (uint64_t)AT_FDCWD, 0, 0, 0, 0, 0 } },
	{ SYS_newfstatat, { (uint64_t)AT_FDCWD, 0, 0, 0, 0, 0 } },
	{ SYS_newfstatat, { 0, 0, 0, AT_EMPTY_PATH, 0, 0 } },
	{ SYS_prctl, { PR_GET_DUMPABLE, 0, 0, 0, 0, 0 } },
	{ SYS_prctl, { PR_SET_SECCOMP, 99, 0, 0, 0, 0 } },
};

static const struct lnch_filter_rule view_rules[] = {
	{ .name = "openat", .arg = -1 },
	{ .name = "newfstatat",
	  .arg = 3,
	  .mask = AT_EMPTY_PATH,
	  .value = 0,
	  .is_ptrace_only_cond = true },
	{ .name = "prctl", .arg = 0, .mask = 0xffffffffu, .value = PR_SET_SECCOMP },
};

/* Exit code: bit i set when sample i trapped. */
static int samples_child(const struct sock_fprog *prog)
{
	int trapped = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) != 0)
		return 255;
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const uint64_t *a = samples[i].args;

		errno = 0;
		if (syscall(samples[i].nr, a[0], a[1], a[2], a[3], a[4], a[5]) == -1 &&
		    errno == ENOSYS)
			trapped |= 1 << i;
	}
	return trapped;
}

static void test_filter_view_matches_kernel(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct sock_fprog prog = { 0 };
	struct lnch_filter_view view;
	int status = 0, want = 0;
	pid_t pid;

	assert_int_equal(lnch_filter_build(view_rules, 3, false, &prog, &err), 0);
	lnch_filter_view_init(&view, view_rules, 3, false);
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		if (lnch_filter_view_action(&view, AUDIT_ARCH_X86_64, (int)samples[i].nr,
					    samples[i].args) != LNCH_FILTER_ALLOW)
			want |= 1 << i;
	pid = fork();
	if (pid == 0)
		_exit(samples_child(&prog));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), want);
	/* openat, newfstatat with a path and prctl(PR_SET_SECCOMP) stop; the rest run */
	assert_int_equal(want, (1 << 1) | (1 << 2) | (1 << 5));
	lnch_filter_view_release(&view);
	/* with notify, a path-only call is notified, its ptrace-only condition not applied */
	lnch_filter_view_init(&view, view_rules, 3, true);
	assert_int_equal(
		lnch_filter_view_action(&view, AUDIT_ARCH_X86_64, SYS_newfstatat, samples[3].args),
		LNCH_FILTER_NOTIFY);
	/* a taint call, added with notify */
	assert_int_equal(
		lnch_filter_view_action(&view, AUDIT_ARCH_X86_64, SYS_setuid, samples[0].args),
		LNCH_FILTER_TRACE);
	lnch_filter_view_release(&view);
	lnch_filter_release(&prog);
	(void)state;
}

/* close(2) goes to the listener with notify (let run by the kernel there), else it stops. */
static void test_filter_view_close_notified(void **state)
{
	static const struct lnch_filter_rule close_rule = { .name = "close", .arg = -1 };
	static const uint64_t args[6] = { 3 };
	struct lnch_filter_view view;

	lnch_filter_view_init(&view, &close_rule, 1, true);
	assert_int_equal(lnch_filter_view_action(&view, AUDIT_ARCH_X86_64, SYS_close, args),
			 LNCH_FILTER_NOTIFY);
	lnch_filter_view_release(&view);
	lnch_filter_view_init(&view, &close_rule, 1, false);
	assert_int_equal(lnch_filter_view_action(&view, AUDIT_ARCH_X86_64, SYS_close, args),
			 LNCH_FILTER_TRACE);
	lnch_filter_view_release(&view);
	(void)state;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_build_openat),
		cmocka_unit_test(test_filter_view_close_notified),
		cmocka_unit_test(test_filter_build_with_conditions),
		cmocka_unit_test(test_filter_build_native_only_name),
		cmocka_unit_test(test_filter_build_unknown_name_einval),
		cmocka_unit_test(test_filter_traps_openat_not_getpid),
		cmocka_unit_test(test_filter_arg_condition_in_kernel),
		cmocka_unit_test(test_filter_notify_path_calls),
		cmocka_unit_test(test_filter_view_matches_kernel),
	};

	/* prctl(2): PR_GET_SECCOMP fails with EINVAL when the kernel has no seccomp */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		fprintf(stderr, "skip: no seccomp in this kernel\n");
		return SKIP_RETURN;
	}
	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
