/*
 * Unit tests of recorder/render.h: spool events built by hand, rendered as
 * the events.jsonl object and the trace.txt line (docs/bundle-format.md).
 */
#include "recorder/render.h"
#include "recorder/redact.h"
#include "launcher/abi.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#define TID 4242

static int setup(void **state)
{
	*state = rec_renderer_new(NULL, NULL);
	return 0;
}

static int teardown(void **state)
{
	rec_renderer_free(*state);
	return 0;
}

static struct bndl_event syscall_event(const char *name)
{
	struct bndl_event ev = {
		.type = BNDL_REC_SYSCALL,
		.seq = 7,
		.t_ns = 1000,
		.dur_ns = 20,
		.pid = TID,
		.tid = TID,
		.arch = lnch_arch_audit_token(),
	};

	ev.nr = seccomp_syscall_resolve_name(name);
	assert_true(ev.nr >= 0);
	return ev;
}

static void add_blob(struct bndl_event *ev, uint16_t kind, uint16_t argi, const void *data,
		     size_t len)
{
	assert_true(ev->nblobs < BNDL_EVENT_MAX_BLOBS);
	ev->blobs[ev->nblobs++] = (struct bndl_blob){
		.kind = kind, .argi = argi, .len = (uint32_t)len, .data = data
	};
}

/* A path argument as the recorder captures it: the raw string and its absolute form. */
static void add_path(struct bndl_event *ev, uint16_t argi, const char *raw, const char *abs)
{
	add_blob(ev, BNDL_BLOB_STR, argi, raw, strlen(raw));
	add_blob(ev, BNDL_BLOB_PATH, argi, abs, strlen(abs));
}

struct rendered {
	json_t *json;
	char *line;
};

static struct rendered render(struct rec_renderer *r, const struct bndl_event *ev)
{
	cleanup_err struct repro_err *err = NULL;
	struct rendered out = { NULL, NULL };

	assert_int_equal(rec_render_event(r, ev, &out.json, &out.line, &err), 0);
	assert_null(err);
	assert_non_null(out.json);
	assert_non_null(out.line);
	return out;
}

static void rendered_free(struct rendered *o)
{
	json_decref(o->json);
	free(o->line);
}

static const char *str_key(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	assert_true(json_is_string(v));
	return json_string_value(v);
}

static void test_render_openat_enoent(void **state)
{
	struct bndl_event ev = syscall_event("openat");
	struct rendered o;

	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev.args[1] = 0x7ffd1000;
	ev.args[2] = O_RDONLY | O_CLOEXEC;
	ev.ret = -ENOENT;
	add_path(&ev, 1, "missing", "/home/u/missing");
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "syscall"), "openat");
	assert_string_equal(str_key(o.json, "path"), "/home/u/missing");
	assert_string_equal(str_key(o.json, "flags"), "O_RDONLY|O_CLOEXEC");
	assert_string_equal(str_key(o.json, "dirfd"), "AT_FDCWD");
	assert_string_equal(str_key(o.json, "errno"), "ENOENT");
	assert_int_equal(json_integer_value(json_object_get(o.json, "ret")), -1);
	assert_int_equal(json_integer_value(json_object_get(o.json, "seq")), 7);
	assert_int_equal(json_integer_value(json_object_get(o.json, "pid")), TID);
	assert_int_equal(json_integer_value(json_object_get(o.json, "tid")), TID);
	assert_int_equal(json_integer_value(json_object_get(o.json, "t_ns")), 1000);
	assert_int_equal(json_integer_value(json_object_get(o.json, "dur_ns")), 20);
	assert_null(json_object_get(o.json, "mode"));
	assert_null(json_object_get(o.json, "unfinished"));
	assert_null(json_object_get(o.json, "arch"));
	assert_string_equal(
		o.line,
		"4242  openat(AT_FDCWD, \"missing\", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)");
	rendered_free(&o);
}

static void test_render_openat_creat_mode(void **state)
{
	struct bndl_event ev = syscall_event("openat");
	struct rendered o;

	ev.args[0] = 5;
	ev.args[2] = O_WRONLY | O_CREAT | O_TRUNC;
	ev.args[3] = 0644;
	ev.ret = 3;
	add_path(&ev, 1, "out.txt", "/srv/dir/out.txt");
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "mode"), "0644");
	assert_string_equal(str_key(o.json, "flags"), "O_WRONLY|O_CREAT|O_TRUNC");
	assert_int_equal(json_integer_value(json_object_get(o.json, "dirfd")), 5);
	assert_int_equal(json_integer_value(json_object_get(o.json, "ret")), 3);
	assert_null(json_object_get(o.json, "errno"));
	assert_string_equal(o.line,
			    "4242  openat(5, \"out.txt\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3");
	rendered_free(&o);
}

static void test_render_connect_sockaddr(void **state)
{
	struct bndl_event ev = syscall_event("connect");
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(8080) };
	json_t *addr;
	struct rendered o;

	assert_int_equal(inet_pton(AF_INET, "127.0.0.1", &in.sin_addr), 1);
	ev.args[0] = 3;
	ev.args[1] = 0x5000;
	ev.args[2] = sizeof(in);
	ev.ret = -ECONNREFUSED;
	add_blob(&ev, BNDL_BLOB_SOCKADDR, 1, &in, sizeof(in));
	o = render(*state, &ev);
	addr = json_object_get(o.json, "addr");
	assert_true(json_is_object(addr));
	assert_string_equal(str_key(addr, "family"), "AF_INET");
	assert_string_equal(str_key(addr, "ip"), "127.0.0.1");
	assert_int_equal(json_integer_value(json_object_get(addr, "port")), 8080);
	assert_int_equal(json_integer_value(json_object_get(o.json, "fd")), 3);
	assert_string_equal(str_key(o.json, "errno"), "ECONNREFUSED");
	assert_string_equal(
		o.line,
		"4242  connect(3, {sa_family=AF_INET, sin_port=htons(8080), "
		"sin_addr=inet_addr(\"127.0.0.1\")}, 16) = -1 ECONNREFUSED (Connection refused)");
	rendered_free(&o);
}

static void test_render_connect_unreadable_addr(void **state)
{
	struct bndl_event ev = syscall_event("connect");
	struct rendered o;

	/* no blob (EFAULT at capture): the address is shown as a pointer, no addr key */
	ev.args[0] = 3;
	ev.args[1] = 0xdead0;
	ev.args[2] = 16;
	ev.ret = -EFAULT;
	o = render(*state, &ev);
	assert_null(json_object_get(o.json, "addr"));
	assert_string_equal(o.line, "4242  connect(3, 0xdead0, 16) = -1 EFAULT (Bad address)");
	rendered_free(&o);
}

static void test_render_execve_argv(void **state)
{
	static const char argv_blob[] = "true\0--version\0";
	struct bndl_event ev = syscall_event("execve");
	json_t *argv;
	struct rendered o;

	ev.args[0] = 0x1000;
	ev.args[1] = 0x2000;
	ev.args[2] = 0x3000;
	ev.ret = 0;
	add_path(&ev, 0, "/bin/true", "/bin/true");
	add_blob(&ev, BNDL_BLOB_ARGV, 1, argv_blob, sizeof(argv_blob) - 1);
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "path"), "/bin/true");
	argv = json_object_get(o.json, "argv");
	assert_true(json_is_array(argv));
	assert_int_equal(json_array_size(argv), 2);
	assert_string_equal(json_string_value(json_array_get(argv, 0)), "true");
	assert_string_equal(json_string_value(json_array_get(argv, 1)), "--version");
	assert_string_equal(o.line,
			    "4242  execve(\"/bin/true\", [\"true\", \"--version\"], 0x3000) = 0");
	rendered_free(&o);
}

/* An execve of /bin/true with ENV_LEN bytes of ENV as its envp (args[2] 0x3000). */
static struct bndl_event execve_with_env(const char *env, size_t env_len)
{
	static const char argv_blob[] = "true";
	struct bndl_event ev = syscall_event("execve");

	ev.args[0] = 0x1000;
	ev.args[1] = 0x2000;
	ev.args[2] = 0x3000;
	ev.ret = 0;
	add_path(&ev, 0, "/bin/true", "/bin/true");
	add_blob(&ev, BNDL_BLOB_ARGV, 1, argv_blob, sizeof(argv_blob));
	if (env != NULL)
		add_blob(&ev, BNDL_BLOB_ARGV, 2, env, env_len);
	return ev;
}

static void assert_strings(json_t *arr, const char *const *want, size_t n)
{
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(json_string_value(json_array_get(arr, i)), want[i]);
}

/*
 * envp: "env" in JSON under host.json's rules (harmless names kept, a kept
 * value still filtered, secret words redacted whatever --keep-env says,
 * $HOSTNAME with --redact-hostname), each redacted name noted once in the
 * manifest's list; trace.txt shows the address and the count.  The
 * processes.jsonl callback gives the same array.
 */
static void test_render_execve_env(void **state)
{
	static const char env[] = "PATH=/usr/bin\0API_TOKEN=s3cr3t1\0FOO=bar\0"
				  "KEEP_URL=http://u:s3cr3t2@h/\0NOEQUALS\0HOSTNAME=box\0";
	static const char *const keep[] = { "KEEP_*", "API_*", NULL };
	static const char *const want[] = {
		"PATH=/usr/bin",     "API_TOKEN=" REC_REDACTED,
		"FOO=" REC_REDACTED, "KEEP_URL=http://u:" REC_REDACTED "@h/",
		REC_REDACTED,	     "HOSTNAME=" REC_REDACTED,
	};
	static const char *const want_names[] = { "API_TOKEN", "FOO", "KEEP_URL", "env",
						  "HOSTNAME" };
	cleanup_redact struct rec_redact *policy = rec_redact_new(keep, NULL, NULL);
	cleanup_json json_t *names = json_pack("[s]", "API_TOKEN");
	cleanup_json json_t *from_ops = NULL;
	struct bndl_event ev = execve_with_env(env, sizeof(env) - 1);
	struct rec_renderer *r;
	struct bndl_render_ops ops;
	struct rendered o;
	(void)state;

	rec_redact_hide_hostname(policy);
	r = rec_renderer_new(policy, names);
	o = render(r, &ev);
	assert_strings(json_object_get(o.json, "env"), want, sizeof(want) / sizeof(want[0]));
	assert_null(json_object_get(o.json, "truncated"));
	assert_string_equal(o.line,
			    "4242  execve(\"/bin/true\", [\"true\"], 0x3000 /* 6 vars */) = 0");
	assert_null(strstr(o.line, "s3cr3t"));
	rendered_free(&o);
	rec_renderer_ops(r, &ops);
	assert_non_null(ops.env_json);
	from_ops = ops.env_json(ops.ctx, env, sizeof(env) - 1);
	assert_strings(from_ops, want, sizeof(want) / sizeof(want[0]));
	/* a second exec with the same environment adds no name twice */
	o = render(r, &ev);
	rendered_free(&o);
	assert_strings(names, want_names, sizeof(want_names) / sizeof(want_names[0]));
	rec_renderer_free(r);
}

/* An empty envp, one variable, a NULL envp, and one cut at the size limit. */
static void test_render_execve_env_forms(void **state)
{
	static const char one[] = "LANG=C.UTF-8";
	struct bndl_event ev = execve_with_env("", 0);
	struct rendered o;

	o = render(*state, &ev);
	assert_int_equal(json_array_size(json_object_get(o.json, "env")), 0);
	assert_non_null(strstr(o.line, ", 0x3000 /* 0 vars */) = 0"));
	rendered_free(&o);

	ev = execve_with_env(one, sizeof(one));
	o = render(*state, &ev);
	assert_string_equal(json_string_value(json_array_get(json_object_get(o.json, "env"), 0)),
			    "LANG=C.UTF-8");
	assert_non_null(strstr(o.line, ", 0x3000 /* 1 var */) = 0"));
	rendered_free(&o);

	ev = execve_with_env(NULL, 0);
	ev.args[2] = 0;
	o = render(*state, &ev);
	assert_null(json_object_get(o.json, "env"));
	assert_non_null(strstr(o.line, "[\"true\"], NULL) = 0"));
	rendered_free(&o);

	ev = execve_with_env(one, sizeof(one));
	ev.blobs[ev.nblobs - 1].kind |= BNDL_BLOB_TRUNCATED;
	o = render(*state, &ev);
	assert_true(json_is_true(json_object_get(o.json, "truncated")));
	rendered_free(&o);
}

static void test_render_unfinished(void **state)
{
	struct bndl_event ev = syscall_event("openat");
	struct rendered o;

	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev.args[2] = O_RDONLY;
	ev.flags = BNDL_EV_UNFINISHED;
	add_path(&ev, 1, "fifo", "/tmp/fifo");
	o = render(*state, &ev);
	assert_true(json_is_null(json_object_get(o.json, "ret")));
	assert_true(json_is_true(json_object_get(o.json, "unfinished")));
	assert_null(json_object_get(o.json, "errno"));
	assert_string_equal(o.line, "4242  openat(AT_FDCWD, \"fifo\", O_RDONLY) = ?");
	rendered_free(&o);
}

static void test_render_exit_group_no_return(void **state)
{
	struct bndl_event ev = syscall_event("exit_group");
	struct rendered o;

	ev.args[0] = 3;
	ev.flags = BNDL_EV_NO_RETURN;
	o = render(*state, &ev);
	assert_true(json_is_null(json_object_get(o.json, "ret")));
	assert_null(json_object_get(o.json, "unfinished"));
	assert_int_equal(json_integer_value(json_object_get(o.json, "status")), 3);
	assert_string_equal(o.line, "4242  exit_group(3) = ?");
	rendered_free(&o);
}

static void test_render_restart_code(void **state)
{
	struct bndl_event ev = syscall_event("wait4");
	struct rendered o;

	ev.args[0] = (uint64_t)-1;
	ev.ret = -512;
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "errno"), "ERESTARTSYS");
	assert_int_equal(json_integer_value(json_object_get(o.json, "ret")), -1);
	assert_int_equal(json_integer_value(json_object_get(o.json, "target_pid")), -1);
	assert_string_equal(o.line, "4242  wait4(-1, NULL, 0, NULL) = ? ERESTARTSYS");
	rendered_free(&o);
}

static void test_render_getsockopt_so_error(void **state)
{
	struct bndl_event ev = syscall_event("getsockopt");
	int32_t pending = ECONNREFUSED;
	struct rendered o;

	ev.args[0] = 3;
	ev.args[1] = SOL_SOCKET;
	ev.args[2] = SO_ERROR;
	ev.args[3] = 0x7000;
	ev.args[4] = 0x7008;
	ev.ret = 0;
	add_blob(&ev, BNDL_BLOB_OUT, 3, &pending, sizeof(pending));
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "level"), "SOL_SOCKET");
	assert_string_equal(str_key(o.json, "optname"), "SO_ERROR");
	assert_string_equal(str_key(o.json, "optval"), "ECONNREFUSED");
	assert_string_equal(
		o.line, "4242  getsockopt(3, SOL_SOCKET, SO_ERROR, [ECONNREFUSED], 0x7008) = 0");
	rendered_free(&o);
}

static void test_render_getpeername_failed(void **state)
{
	struct bndl_event ev = syscall_event("getpeername");
	uint32_t len = 16;
	struct rendered o;

	ev.args[0] = 0;
	ev.args[1] = 0x7ffe1860;
	ev.args[2] = 0x7ffe185c;
	ev.ret = -ENOTSOCK;
	add_blob(&ev, BNDL_BLOB_OUT, 2, &len, sizeof(len)); /* *addrlen, left as given */
	o = render(*state, &ev);
	assert_int_equal(json_integer_value(json_object_get(o.json, "fd")), 0);
	assert_null(json_object_get(o.json, "addr"));
	assert_string_equal(str_key(o.json, "errno"), "ENOTSOCK");
	assert_string_equal(o.line, "4242  getpeername(0, 0x7ffe1860, [16]) = -1 ENOTSOCK "
				    "(Socket operation on non-socket)");
	rendered_free(&o);
}

static void test_render_getsockname_addr(void **state)
{
	struct bndl_event ev = syscall_event("getsockname");
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(40121) };
	uint32_t len = sizeof(in);
	json_t *addr;
	struct rendered o;

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ev.args[0] = 5;
	ev.args[1] = 0x7000;
	ev.args[2] = 0x7010;
	ev.ret = 0;
	add_blob(&ev, BNDL_BLOB_SOCKADDR, 1, &in, sizeof(in));
	add_blob(&ev, BNDL_BLOB_OUT, 2, &len, sizeof(len));
	o = render(*state, &ev);
	addr = json_object_get(o.json, "addr");
	assert_string_equal(str_key(addr, "family"), "AF_INET");
	assert_string_equal(str_key(addr, "ip"), "127.0.0.1");
	assert_int_equal(json_integer_value(json_object_get(addr, "port")), 40121);
	assert_string_equal(o.line,
			    "4242  getsockname(5, {sa_family=AF_INET, sin_port=htons(40121), "
			    "sin_addr=inet_addr(\"127.0.0.1\")}, [16]) = 0");
	rendered_free(&o);
}

static void test_render_socketpair_fds(void **state)
{
	struct bndl_event ev = syscall_event("socketpair");
	int32_t fds[2] = { 3, 4 };
	struct rendered o;

	ev.args[0] = AF_UNIX;
	ev.args[1] = SOCK_STREAM | SOCK_CLOEXEC;
	ev.args[2] = 0;
	ev.args[3] = 0x7000;
	ev.ret = 0;
	add_blob(&ev, BNDL_BLOB_OUT, 3, fds, sizeof(fds));
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "domain"), "AF_UNIX");
	assert_string_equal(str_key(o.json, "type"), "SOCK_STREAM|SOCK_CLOEXEC");
	assert_int_equal(json_integer_value(json_object_get(o.json, "protocol")), 0);
	assert_int_equal(json_array_size(json_object_get(o.json, "fds")), 2);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(o.json, "fds"), 1)), 4);
	assert_string_equal(o.line,
			    "4242  socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0, [3, 4]) = 0");
	rendered_free(&o);
}

static void test_render_setsockopt_int(void **state)
{
	struct bndl_event ev = syscall_event("setsockopt");
	int32_t one = 1;
	struct rendered o;

	ev.args[0] = 5;
	ev.args[1] = 6; /* SOL_TCP */
	ev.args[2] = 1; /* TCP_NODELAY */
	ev.args[3] = 0x7000;
	ev.args[4] = sizeof(one);
	ev.ret = 0;
	add_blob(&ev, BNDL_BLOB_STRUCT, 3, &one, sizeof(one));
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "level"), "SOL_TCP");
	assert_string_equal(str_key(o.json, "optname"), "TCP_NODELAY");
	assert_int_equal(json_integer_value(json_object_get(o.json, "optval")), 1);
	assert_string_equal(o.line, "4242  setsockopt(5, SOL_TCP, TCP_NODELAY, [1], 4) = 0");
	rendered_free(&o);
}

static void test_render_getsockopt_int(void **state)
{
	struct bndl_event ev = syscall_event("getsockopt");
	int32_t type = SOCK_STREAM;
	struct rendered o;

	ev.args[0] = 3;
	ev.args[1] = SOL_SOCKET;
	ev.args[2] = SO_TYPE;
	ev.args[3] = 0x7000;
	ev.args[4] = 0x7008;
	ev.ret = 0;
	add_blob(&ev, BNDL_BLOB_OUT, 3, &type, sizeof(type));
	o = render(*state, &ev);
	/* only SO_ERROR's value is an errno: SO_TYPE's 1 stays a number */
	assert_int_equal(json_integer_value(json_object_get(o.json, "optval")), SOCK_STREAM);
	assert_string_equal(o.line, "4242  getsockopt(3, SOL_SOCKET, SO_TYPE, [1], 0x7008) = 0");
	rendered_free(&o);
}

static void test_render_sendto_epipe(void **state)
{
	struct bndl_event ev = syscall_event("sendto");
	struct rendered o;

	ev.args[0] = 3;
	ev.args[1] = 0xa5f170;
	ev.args[2] = 1;
	ev.args[3] = 0;
	ev.ret = -EPIPE;
	o = render(*state, &ev);
	assert_int_equal(json_integer_value(json_object_get(o.json, "fd")), 3);
	assert_string_equal(str_key(o.json, "errno"), "EPIPE");
	assert_string_equal(o.line,
			    "4242  sendto(3, 0xa5f170, 1, 0, NULL, 0) = -1 EPIPE (Broken pipe)");
	rendered_free(&o);
}

static void test_render_xattr_and_tkill(void **state)
{
	struct bndl_event ev = syscall_event("lgetxattr");
	struct rendered o;

	ev.args[0] = 0x7000;
	ev.args[1] = 0x7100;
	ev.args[2] = 0x7200;
	ev.args[3] = 255;
	ev.ret = -ENODATA;
	add_path(&ev, 0, "f", "/srv/f");
	add_blob(&ev, BNDL_BLOB_STR, 1, "security.selinux", strlen("security.selinux"));
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "path"), "/srv/f");
	assert_string_equal(str_key(o.json, "name"), "security.selinux");
	assert_string_equal(o.line, "4242  lgetxattr(\"f\", \"security.selinux\", 0x7200, 255) = "
				    "-1 ENODATA (No data available)");
	rendered_free(&o);

	ev = syscall_event("tkill");
	ev.args[0] = 4343;
	ev.args[1] = SIGTERM;
	ev.ret = -ESRCH;
	o = render(*state, &ev);
	assert_int_equal(json_integer_value(json_object_get(o.json, "target_tid")), 4343);
	assert_string_equal(str_key(o.json, "signal"), "SIGTERM");
	assert_string_equal(o.line, "4242  tkill(4343, SIGTERM) = -1 ESRCH (No such process)");
	rendered_free(&o);
}

static void test_render_clone_flags(void **state)
{
	struct bndl_event ev = syscall_event("clone");
	struct rendered o;

	ev.args[0] = CLONE_VM | CLONE_VFORK | SIGCHLD;
	ev.ret = 4343;
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "flags"), "CLONE_VM|CLONE_VFORK|SIGCHLD");
	assert_int_equal(json_integer_value(json_object_get(o.json, "ret")), 4343);
	assert_string_equal(
		o.line, "4242  clone(CLONE_VM|CLONE_VFORK|SIGCHLD, NULL, NULL, NULL, NULL) = 4343");
	rendered_free(&o);
}

static void test_render_invalid_utf8_path(void **state)
{
	static const char raw[] = "a\xff"
				  "b";
	static const char abs[] = "/tmp/a\xff"
				  "b";
	struct bndl_event ev = syscall_event("openat");
	cleanup_free char *dumped = NULL;
	json_t *back;
	struct rendered o;

	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev.ret = -ENOENT;
	add_path(&ev, 1, raw, abs);
	o = render(*state, &ev);
	/* the byte becomes the four characters \xff, so the line is valid JSON */
	assert_string_equal(str_key(o.json, "path"), "/tmp/a\\xffb");
	dumped = json_dumps(o.json, JSON_COMPACT);
	assert_non_null(dumped);
	back = json_loads(dumped, 0, NULL);
	assert_non_null(back);
	assert_string_equal(str_key(back, "path"), "/tmp/a\\xffb");
	json_decref(back);
	/* trace.txt keeps the bytes as the program passed them */
	assert_non_null(strstr(o.line, "\"a\xff"
				       "b\""));
	rendered_free(&o);
}

/*
 * docs/bundle-format.md: valid UTF-8 is kept; NUL and bytes that are not
 * part of valid UTF-8 are written as \xNN.
 */
static void test_render_mixed_utf8_path_escapes_only_invalid_bytes(void **state)
{
	static const char abs[] = "/tmp/caf\xc3\xa9-\xff";
	struct bndl_event ev = syscall_event("openat");
	struct rendered o;

	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev.ret = -ENOENT;
	add_path(&ev, 1, abs + 5, abs);
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "path"), "/tmp/caf\xc3\xa9-\\xff");
	rendered_free(&o);
}

static void test_render_truncated_path_flag(void **state)
{
	struct bndl_event ev = syscall_event("openat");
	struct rendered o;

	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev.ret = -ENAMETOOLONG;
	add_blob(&ev, BNDL_BLOB_STR | BNDL_BLOB_TRUNCATED, 1, "aaaa", 4);
	add_blob(&ev, BNDL_BLOB_PATH, 1, "/x/aaaa", 7);
	o = render(*state, &ev);
	assert_true(json_is_true(json_object_get(o.json, "truncated")));
	assert_string_equal(str_key(o.json, "path"), "/x/aaaa");
	rendered_free(&o);
}

static void test_render_undecoded_syscall_by_name(void **state)
{
	struct bndl_event ev = syscall_event("getpid");
	struct rendered o;

	ev.ret = TID;
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "syscall"), "getpid");
	/* a call outside the table (a fault rule trapped it): its first three raw arguments */
	assert_string_equal(o.line, "4242  getpid(0, 0, 0) = 4242");
	rendered_free(&o);
}

static void test_render_not_a_syscall_eproto(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_event ev = syscall_event("openat");
	json_t *json = NULL;
	char *line = NULL;

	ev.type = BNDL_REC_PROC_EXIT;
	assert_int_equal(rec_render_event(*state, &ev, &json, &line, &err), -1);
	assert_true(repro_err_is(&err, EPROTO));
	assert_null(json);
	assert_null(line);
}

static void test_render_path_as_written(void **state)
{
	struct bndl_event ev = syscall_event("openat");
	struct rendered o;

	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev.ret = 3;
	add_path(&ev, 1, "./../etc/hostname", "/etc/hostname");
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "path"), "/etc/hostname");
	assert_string_equal(str_key(o.json, "path_as_written"), "./../etc/hostname");
	/* trace.txt shows the argument as written, as strace does */
	assert_non_null(strstr(o.line, "\"./../etc/hostname\""));
	rendered_free(&o);

	ev = syscall_event("openat");
	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	add_path(&ev, 1, "/etc/hostname", "/etc/hostname");
	o = render(*state, &ev);
	assert_null(json_object_get(o.json, "path_as_written")); /* only where it differs */
	rendered_free(&o);
}

static void openat2_event(struct bndl_event *ev, struct open_how *how, int64_t ret)
{
	*ev = syscall_event("openat2");
	ev->args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev->args[3] = sizeof(*how);
	ev->ret = ret;
	add_path(ev, 1, "sub/x", "/d/sub/x");
	add_blob(ev, BNDL_BLOB_STRUCT, 2, how, sizeof(*how));
}

static void test_render_openat2_resolve(void **state)
{
	static const struct {
		uint64_t resolve;
		int err;
		const char *text, *cause;
	} cases[] = {
		{ RESOLVE_BENEATH, EXDEV, "RESOLVE_BENEATH", "RESOLVE_BENEATH" },
		{ RESOLVE_IN_ROOT, EXDEV, "RESOLVE_IN_ROOT", "RESOLVE_IN_ROOT" },
		{ RESOLVE_NO_XDEV, EXDEV, "RESOLVE_NO_XDEV", "RESOLVE_NO_XDEV" },
		{ RESOLVE_NO_SYMLINKS, ELOOP, "RESOLVE_NO_SYMLINKS", "RESOLVE_NO_SYMLINKS" },
		{ RESOLVE_NO_MAGICLINKS, ELOOP, "RESOLVE_NO_MAGICLINKS", "RESOLVE_NO_MAGICLINKS" },
		{ RESOLVE_CACHED, EAGAIN, "RESOLVE_CACHED", "RESOLVE_CACHED" },
		{ RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, ELOOP,
		  "RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH", "RESOLVE_NO_SYMLINKS" },
		{ RESOLVE_NO_XDEV, ENOENT, "RESOLVE_NO_XDEV", NULL }, /* not the flag's doing */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct open_how how = { .flags = O_RDONLY | O_CLOEXEC,
					.resolve = cases[i].resolve };
		struct bndl_event ev;
		struct rendered o;
		char want[160];

		openat2_event(&ev, &how, -cases[i].err);
		o = render(*state, &ev);
		assert_string_equal(str_key(o.json, "flags"), "O_RDONLY|O_CLOEXEC");
		assert_string_equal(str_key(o.json, "resolve"), cases[i].text);
		assert_null(json_object_get(o.json, "mode"));
		if (cases[i].cause != NULL)
			assert_string_equal(str_key(o.json, "resolve_cause"), cases[i].cause);
		else
			assert_null(json_object_get(o.json, "resolve_cause"));
		snprintf(want, sizeof(want), "{flags=O_RDONLY|O_CLOEXEC, resolve=%s}",
			 cases[i].text);
		assert_non_null(strstr(o.line, want));
		rendered_free(&o);
	}
}

static void test_render_openat2_create_mode(void **state)
{
	struct open_how how = { .flags = O_WRONLY | O_CREAT, .mode = 0640 };
	struct bndl_event ev;
	struct rendered o;

	openat2_event(&ev, &how, 3);
	o = render(*state, &ev);
	assert_string_equal(str_key(o.json, "mode"), "0640");
	assert_null(json_object_get(o.json, "resolve"));
	assert_non_null(strstr(o.line, "{flags=O_WRONLY|O_CREAT, mode=0640}"));
	rendered_free(&o);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_render_openat_enoent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_openat_creat_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_connect_sockaddr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_connect_unreadable_addr, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_render_execve_argv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_execve_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_execve_env_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_unfinished, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_exit_group_no_return, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_restart_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_getsockopt_so_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_getpeername_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_getsockname_addr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_socketpair_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_setsockopt_int, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_getsockopt_int, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_sendto_epipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_xattr_and_tkill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_clone_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_invalid_utf8_path, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_render_mixed_utf8_path_escapes_only_invalid_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_truncated_path_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_undecoded_syscall_by_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_render_not_a_syscall_eproto, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_path_as_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_openat2_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_render_openat2_create_mode, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
