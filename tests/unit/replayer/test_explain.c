/*
 * Unit tests of the parts of `repro explain` (replayer/readers/explain_internal.h):
 * which failures are probes, and the sentence and facts of a finding built
 * from hand-made files.jsonl / host.json / network.jsonl records.
 */
#include "replayer/readers/explain_internal.h"
#include "replayer/readers/sockidx.h"

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct xp_finding file_finding(const char *sc, enum xp_op op, const char *path,
				      const char *err)
{
	return (struct xp_finding){ .kind = strncmp(sc, "exec", 4) == 0 ? XP_EXEC : XP_FILE,
				    .op = op,
				    .pid = 10,
				    .syscall = (char *)sc,
				    .path = (char *)path,
				    .errname = (char *)err,
				    .fd = -1,
				    .count = 1 };
}

/* A run that found some names again elsewhere: what found_later asks. */
static bool found_later_stub(const void *run, const struct xp_finding *f)
{
	return f->path != NULL && strcmp(f->path, "/usr/local/bin/tool") == 0;
}

/* A run whose processes used some paths after a check: what used_later asks. */
static bool used_later_stub(const void *run, const struct xp_finding *f)
{
	return f->path != NULL && strcmp(f->path, "/opt/venv/bin/activate") == 0;
}

/* A run whose processes exec'd after some of their failures: what handed_over asks. */
static bool handed_over_stub(const void *run, const struct xp_finding *f)
{
	return f->path != NULL && strcmp(f->path, "/etc/default/runuser") == 0;
}

/*
 * One case for every rule of the noise table, each under a prefix the old
 * prefix lists did not know (pyenv, venv, conda, /opt), then findings no
 * rule may set aside.  test_noise_rules checks that every rule of
 * xp_noise_rules() is exercised here.
 */
static const struct {
	const char *rule; /* expected rule id, NULL: not noise */
	const char *sc, *path, *err;
	enum xp_op op;
	const char *program;
} noise_cases[] = {
	{ "retry_result", "wait4", NULL, "ECHILD", XP_OP_OTHER, NULL },
	{ "readlink_not_symlink", "readlink", "/opt/x/bin/python3.11", "EINVAL", XP_OP_FIND, NULL },
	{ "mkdir_exists", "mkdir", "/tmp/x", "EEXIST", XP_OP_CREATE, NULL },
	{ "remove_missing", "unlink", "/tmp/x.lock", "ENOENT", XP_OP_DELETE, NULL },
	{ "no_tty", "openat", "/dev/tty", "ENXIO", XP_OP_READ, NULL },
	{ "socket_query", "getpeername", NULL, "ENOTSOCK", XP_OP_OTHER, NULL },
	{ "xattr_absent", "lgetxattr", "/srv/a", "ENODATA", XP_OP_FIND, NULL },
	{ "xattr_absent", "llistxattr", "/srv/a", "EOPNOTSUPP", XP_OP_FIND, "ls" },
	{ "loader_hwcaps", "openat",
	  "/root/.pyenv/versions/3.11.7/lib/tls/haswell/libpython3.11.so.1.0", "ENOENT", XP_OP_READ,
	  NULL },
	{ "loader_hwcaps", "newfstatat", "/root/.pyenv/versions/3.11.7/lib/avx512_1/x86_64",
	  "ENOENT", XP_OP_FIND, NULL },
	{ "loader_hwcaps", "newfstatat", "/opt/conda/lib/glibc-hwcaps/x86-64-v3", "ENOENT",
	  XP_OP_FIND, NULL },
	{ "loader_hwcaps", "openat", "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libc.so.6",
	  "ENOENT", XP_OP_READ, NULL },
	{ "loader_config", "access", "/opt/glibc-2.38/etc/ld.so.preload", "ENOENT", XP_OP_FIND,
	  NULL },
	{ "loader_config", "openat", "/etc/ld.so.cache", "ENOENT", XP_OP_READ, NULL },
	{ "python_bytecode", "newfstatat", "/opt/x/lib/python3.11/__pycache__/os.cpython-311.pyc",
	  "ENOENT", XP_OP_FIND, NULL },
	{ "python_bytecode", "openat", "/srv/app/__pycache__/app.cpython-311.pyc.140221", "EACCES",
	  XP_OP_CREATE, NULL },
	{ "python_module", "newfstatat", "/tmp/venv/lib/python3.11/site/json/__init__.abi3.so",
	  "ENOENT", XP_OP_FIND, NULL },
	{ "python_module", "newfstatat", "/opt/x/lib/python311.zip", "ENOENT", XP_OP_FIND, NULL },
	{ "python_module", "newfstatat", "/opt/x/bin/lib/python3.11/os.py", "ENOENT", XP_OP_FIND,
	  NULL },
	{ "python_site", "newfstatat", "/tmp/venv/bin/pyvenv.cfg", "ENOENT", XP_OP_FIND, NULL },
	{ "python_site", "openat", "/home/u/.local/lib/python3.11/site-packages/x.pth", "ENOENT",
	  XP_OP_READ, NULL },
	{ "python_site", "openat", "/opt/x/bin/python3.11._pth", "ENOENT", XP_OP_READ, NULL },
	{ "node_module", "openat", "/srv/app/node_modules/left-pad/package.json", "ENOENT",
	  XP_OP_READ, NULL },
	{ "version_shim", "newfstatat", "/srv/app/.python-version", "ENOENT", XP_OP_FIND, "bash" },
	{ "version_shim", "openat", "/root/.pyenv/plugins/pyenv-virtualenv/etc/pyenv.d/exec",
	  "ENOENT", XP_OP_READ, "bash" },
	{ "locale_data", "openat", "/usr/share/locale-langpack/en/LC_MESSAGES/bash.mo", "ENOENT",
	  XP_OP_READ, NULL },
	{ "locale_data", "openat", "/opt/x/share/locale/C.UTF-8/LC_MESSAGES/x.mo", "ENOENT",
	  XP_OP_READ, NULL },
	{ "shell_config", "openat", "/root/.bashrc", "ENOENT", XP_OP_READ, NULL },
	{ "tool_config", "openat", "/root/.curlrc", "ENOENT", XP_OP_READ, "curl" },
	{ "tool_config", "openat", "/etc/xdg/pip/pip.conf", "ENOENT", XP_OP_READ, "pip" },
	{ "lsm_marker", "newfstatat", "/sys/fs/selinux", "ENOENT", XP_OP_FIND, NULL },
	{ "lsm_marker", "openat", "/etc/selinux/config", "ENOENT", XP_OP_READ, NULL },
	{ "lsm_marker", "statfs", "/selinux", "ENOENT", XP_OP_FIND, NULL },
	{ "netrc", "openat", "/home/u/.netrc", "ENOENT", XP_OP_READ, NULL },
	{ "netrc", "openat", "/home/u/_netrc", "ENOENT", XP_OP_READ, NULL },
	{ "dev_log", "newfstatat", "/dev/log", "ENOENT", XP_OP_FIND, NULL },
	{ "crypto_config", "openat", "/etc/gnutls/config", "ENOENT", XP_OP_READ, NULL },
	{ "crypto_config", "openat", "/proc/sys/crypto/fips_enabled", "ENOENT", XP_OP_READ, NULL },
	{ "crypto_config", "openat", "/usr/local/ssl/openssl.cnf", "ENOENT", XP_OP_READ, NULL },
	{ "userdb", "openat", "/run/systemd/userdb", "ENOENT", XP_OP_READ, NULL },
	{ "userdb", "openat", "/etc/userdb", "ENOENT", XP_OP_READ, NULL },
	{ "git_config", "access", "/root/.config/git/config", "ENOENT", XP_OP_READ, NULL },
	{ "git_repository", "newfstatat", "/tmp/.git", "ENOENT", XP_OP_FIND, "git" },
	{ "git_repository", "newfstatat", "/tmp/HEAD", "ENOENT", XP_OP_FIND, "git" },
	{ "git_repository", "openat", "/srv/r/.git/objects/info/alternates", "ENOENT", XP_OP_READ,
	  "git" },
	{ "git_repository", "openat", "/srv/r/objects/info/commit-graph", "ENOENT", XP_OP_READ,
	  "git-upload-pack" },
	{ "shared_library", "openat", "/opt/app/lib/libgcc_s.so.1", "ENOENT", XP_OP_READ, NULL },
	{ "found_later", "execve", "/usr/local/bin/tool", "ENOENT", XP_OP_RUN, NULL },
	{ "wrapper_probe", "openat", "/etc/default/runuser", "ENOENT", XP_OP_READ, "runuser" },
	/* the same by a program that did not hand over is its own */
	{ NULL, "openat", "/etc/default/myapp", "ENOENT", XP_OP_READ, "myapp" },
	{ "checked_then_used", "access", "/opt/venv/bin/activate", "EACCES", XP_OP_RUN, "bash" },
	/* a check that said no and was heeded stays a finding */
	{ NULL, "access", "/opt/app/run.sh", "EACCES", XP_OP_RUN, "bash" },
	/* what a program meant to open is not a probe, nor a denied write */
	{ NULL, "openat", "/srv/app/config.yaml", "ENOENT", XP_OP_READ, NULL },
	{ NULL, "openat", "/nonexistent/cfg", "ENOENT", XP_OP_READ, "python3" },
	{ NULL, "openat", "/usr/lib/app/libfoo.so", "EACCES", XP_OP_READ, NULL },
	{ NULL, "openat", "/srv/app/cache/model.pth", "EACCES", XP_OP_CREATE, NULL },
	{ NULL, "openat", "/srv/app/cache_hub/model.pth", "ENOENT", XP_OP_READ, NULL },
	{ NULL, "execve", "/srv/app/run.sh", "EACCES", XP_OP_RUN, NULL },
	{ NULL, "openat", "/srv/x86_64/app.conf", "ENOENT", XP_OP_READ, NULL },
	{ NULL, "openat", "/srv/app/HEAD", "ENOENT", XP_OP_READ, "python3" },
	{ NULL, "openat", "/srv/backup/repo.bundle", "ENOENT", XP_OP_READ, "git" },
	{ NULL, "newfstatat", "/srv/lib/glibc-hwcaps.conf", "ENOENT", XP_OP_FIND, NULL },
	{ NULL, "openat", "/srv/app/.netrc", "EACCES", XP_OP_READ, NULL },
	{ NULL, "openat", "/srv/app/app.pyc", "ENOSPC", XP_OP_CREATE, "python3" }, /* a disk full */
	{ NULL, "execve", "/usr/bin/tool", "ENOENT", XP_OP_RUN, NULL },
};

static void test_noise_cases(void **state)
{
	struct xp_noise_ctx ctx = { .found_later = found_later_stub,
				    .used_later = used_later_stub,
				    .handed_over = handed_over_stub };

	for (size_t i = 0; i < sizeof(noise_cases) / sizeof(noise_cases[0]); i++) {
		struct xp_finding f = file_finding(noise_cases[i].sc, noise_cases[i].op,
						   noise_cases[i].path, noise_cases[i].err);
		const char *want = noise_cases[i].rule;

		if (noise_cases[i].path == NULL)
			f.kind = XP_OTHER;
		ctx.program = noise_cases[i].program;
		xp_noise_classify(&f, &ctx);
		if (f.noise != (want != NULL) ||
		    (want != NULL && (f.noise_rule == NULL || strcmp(f.noise_rule, want) != 0)))
			fail_msg("%s %s %s: rule %s, want %s", noise_cases[i].sc,
				 noise_cases[i].path ? noise_cases[i].path : "-",
				 noise_cases[i].err, f.noise_rule ? f.noise_rule : "none",
				 want ? want : "none");
	}
}

/*
 * Rules that look at the path as the program wrote it (events.jsonl
 * path_as_written), beside the canonical path the cases above give.
 */
static const struct {
	const char *rule; /* expected rule id, NULL: not noise */
	const char *sc, *path, *as_written, *err;
	enum xp_op op;
} written_cases[] = {
	{ "url_as_path", "newfstatat", "/srv/run/https:/pypi.org/simple/requests",
	  "https://pypi.org/simple/requests/", "ENOENT", XP_OP_FIND },
	{ "url_as_path", "openat", "/srv/run/git+ssh:/example.com/r.git",
	  "git+ssh://example.com/r.git", "ENOTDIR", XP_OP_READ },
	{ "url_as_path", "access", "/srv/run/file:/srv/wheels", "file:///srv/wheels", "ENOENT",
	  XP_OP_FIND },
	/* written to, refused, not written as a URL, or no scheme: not a probe */
	{ NULL, "openat", "/srv/run/https:/x.org/a", "https://x.org/a", "ENOENT", XP_OP_CREATE },
	{ NULL, "access", "/srv/run/https:/x.org/a", "https://x.org/a", "ENOENT", XP_OP_WRITE },
	{ NULL, "newfstatat", "/srv/run/https:/x.org/a", "https://x.org/a", "EACCES", XP_OP_FIND },
	{ NULL, "newfstatat", "/srv/run/https:/x.org/a", "https:/x.org/a", "ENOENT", XP_OP_FIND },
	{ NULL, "newfstatat", "/srv/run/https:/x.org/a", NULL, "ENOENT", XP_OP_FIND },
	{ NULL, "newfstatat", "/srv/run/1http:/x/a", "1http://x/a", "ENOENT", XP_OP_FIND },
	{ NULL, "newfstatat", "/srv/run/:/x/a", "://x/a", "ENOENT", XP_OP_FIND },
	{ NULL, "newfstatat", "/srv/run/a/https:/x/a", "a/https://x/a", "ENOENT", XP_OP_FIND },
};

static void test_noise_written(void **state)
{
	for (size_t i = 0; i < sizeof(written_cases) / sizeof(written_cases[0]); i++) {
		struct xp_finding f = file_finding(written_cases[i].sc, written_cases[i].op,
						   written_cases[i].path, written_cases[i].err);
		const char *want = written_cases[i].rule;

		f.path_as_written = (char *)written_cases[i].as_written;
		xp_noise_classify(&f, NULL);
		if (f.noise != (want != NULL) ||
		    (want != NULL && (f.noise_rule == NULL || strcmp(f.noise_rule, want) != 0)))
			fail_msg("%s %s (%s) %s: rule %s, want %s", written_cases[i].sc,
				 written_cases[i].path,
				 written_cases[i].as_written ? written_cases[i].as_written : "-",
				 written_cases[i].err, f.noise_rule ? f.noise_rule : "none",
				 want ? want : "none");
	}
}

/* Every rule of the table has a case above (or in test_net_noise), and a reason. */
static void test_noise_rules(void **state)
{
	static const char *const net_rules[] = { "resolver_socket", "syslog_socket",
						 "other_address", "name_answered" };
	size_t n;
	const struct xp_noise_rule *r = xp_noise_rules(&n);

	assert_true(n > 20);
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		assert_non_null(r[i].why);
		for (size_t k = 0; k < sizeof(noise_cases) / sizeof(noise_cases[0]); k++)
			seen |= noise_cases[k].rule != NULL &&
				strcmp(noise_cases[k].rule, r[i].id) == 0;
		for (size_t k = 0; k < sizeof(written_cases) / sizeof(written_cases[0]); k++)
			seen |= written_cases[k].rule != NULL &&
				strcmp(written_cases[k].rule, r[i].id) == 0;
		for (size_t k = 0; k < sizeof(net_rules) / sizeof(net_rules[0]); k++)
			seen |= strcmp(net_rules[k], r[i].id) == 0;
		if (!seen)
			fail_msg("noise rule %s has no test case", r[i].id);
	}
}

static void net_case(json_t *rec, enum xp_kind kind, const struct xp_noise_ctx *ctx,
		     const char *want)
{
	struct xp_finding f = { .kind = kind, .net = rec };

	xp_noise_classify(&f, ctx);
	if (f.noise != (want != NULL) || (want != NULL && strcmp(f.noise_rule, want) != 0))
		fail_msg("network rule %s, want %s", f.noise_rule ? f.noise_rule : "none",
			 want ? want : "none");
	json_decref(rec);
}

static void test_net_noise(void **state)
{
	struct xp_netidx idx = { .ok_conn = json_object(), .answered = json_object() };
	struct xp_noise_ctx ctx = { .net = &idx };
	json_t *ok = json_loads("{\"kind\":\"attempt\",\"pid\":5,\"t_ns\":200,\"port\":443,"
				"\"name\":\"cdn.test\",\"outcome\":\"connected\"}",
				0, NULL);
	json_t *ans =
		json_loads("{\"kind\":\"dns\",\"name\":\"db\",\"outcome\":\"answered\"}", 0, NULL);

	xp_netidx_add(&idx, ok);
	xp_netidx_add(&idx, ans);
	/* another address of cdn.test answered later */
	net_case(json_loads("{\"kind\":\"attempt\",\"pid\":5,\"t_ns\":100,\"port\":443,"
			    "\"name\":\"cdn.test\",\"outcome\":\"unreachable\"}",
			    0, NULL),
		 XP_CONNECT, &ctx, "other_address");
	net_case(json_loads("{\"kind\":\"attempt\",\"pid\":5,\"t_ns\":100,\"port\":443,"
			    "\"name\":\"api.test\",\"outcome\":\"refused\"}",
			    0, NULL),
		 XP_CONNECT, &ctx, NULL);
	net_case(json_loads("{\"path\":\"/var/run/nscd/socket\",\"outcome\":\"no_such_socket\"}", 0,
			    NULL),
		 XP_CONNECT, &ctx, "resolver_socket");
	net_case(json_loads("{\"path\":\"/dev/log\",\"outcome\":\"no_such_socket\"}", 0, NULL),
		 XP_CONNECT, &ctx, "syslog_socket");
	/* the search-list expansion of "db", which resolved */
	net_case(json_loads("{\"kind\":\"dns\",\"name\":\"db.corp.test\",\"outcome\":\"nxdomain\"}",
			    0, NULL),
		 XP_DNS, &ctx, "name_answered");
	net_case(json_loads("{\"kind\":\"dns\",\"name\":\"gone.test\",\"outcome\":\"nxdomain\"}", 0,
			    NULL),
		 XP_DNS, &ctx, NULL);
	json_decref(ok);
	json_decref(ans);
	json_decref(idx.ok_conn);
	json_decref(idx.answered);
}

/* The sentence and reason of f, given one files.jsonl record and host.json. */
static void build(struct xp_finding *f, const char *file_rec, const char *host)
{
	struct xp_facts facts = { .host = json_loads(host, 0, NULL), .files = json_object() };
	struct xp_proc p = { .pid = 10,
			     .label = (char *)"python3 webui.py",
			     .has_exit = true,
			     .exit_code = 1,
			     .end_ns = 400000000 };

	if (file_rec != NULL)
		json_object_set_new(facts.files, f->path, json_loads(file_rec, 0, NULL));
	xp_reason_build(f, &p, &facts);
	assert_non_null(f->sentence);
	json_decref(facts.host);
	json_decref(facts.files);
}

/* build(), with a second files.jsonl record (the directory's own, when the run named it). */
static void build2(struct xp_finding *f, const char *file_rec, const char *dir, const char *dir_rec,
		   const char *host)
{
	struct xp_facts facts = { .host = json_loads(host, 0, NULL), .files = json_object() };
	struct xp_proc p = { .pid = 10, .label = (char *)"apt-get update" };

	json_object_set_new(facts.files, f->path, json_loads(file_rec, 0, NULL));
	if (dir_rec != NULL)
		json_object_set_new(facts.files, dir, json_loads(dir_rec, 0, NULL));
	xp_reason_build(f, &p, &facts);
	assert_non_null(f->sentence);
	json_decref(facts.host);
	json_decref(facts.files);
}

static const char *what(const struct xp_finding *f)
{
	return json_string_value(json_object_get(f->reason, "what"));
}

static void release(struct xp_finding *f)
{
	free(f->sentence);
	json_decref(f->reason);
}

#define USER_HOST \
	"{\"uid\":1000,\"gid\":1000,\"groups\":[1000],\"capabilities\":{\"effective\":\"\"}}"
#define DIR(mode, uid) "{\"type\":\"dir\",\"mode\":\"" mode "\",\"uid\":" #uid ",\"gid\":" #uid "}"

static void test_denied_create(void **state)
{
	struct xp_finding f =
		file_finding("openat", XP_OP_CREATE, "/srv/cache/model.pth", "EACCES");

	f.t_ns = 0;
	build(&f,
	      "{\"meta\":null,\"ancestors\":[{\"path\":\"/srv/cache\",\"meta\":" DIR(
		      "0755",
		      0) "},{\"path\":\"/srv\",\"meta\":" DIR("0755",
							      0) "},{\"path\":\"/\",\"meta\":" DIR("0755",
												   0) "}]}",
	      USER_HOST);
	assert_string_equal(what(&f), "permission");
	assert_string_equal(json_string_value(json_object_get(f.reason, "path")), "/srv/cache");
	assert_non_null(strstr(f.sentence, "python3 webui.py (pid 10) could not create "
					   "/srv/cache/model.pth: EACCES"));
	assert_non_null(strstr(f.sentence, "/srv/cache is owned by root:root, mode 0755, and the "
					   "process ran as uid 1000"));
	assert_non_null(strstr(f.sentence, "0.4 s later it exited with status 1"));
	release(&f);
	/* with CAP_DAC_OVERRIDE the mode bits do not deny: nothing in the bundle explains it */
	f = file_finding("openat", XP_OP_CREATE, "/srv/cache/model.pth", "EACCES");
	build(&f,
	      "{\"meta\":null,\"ancestors\":[{\"path\":\"/srv/cache\",\"meta\":" DIR("0755",
										     0) "}]}",
	      "{\"uid\":0,\"gid\":0,\"capabilities\":{\"effective\":\"cap_chown,cap_dac_override\"}}");
	assert_string_equal(what(&f), "unexplained");
	release(&f);
}

static void test_search_denied_and_missing(void **state)
{
	struct xp_finding f = file_finding("openat", XP_OP_READ, "/home/a/secret/x.conf", "EACCES");

	build(&f,
	      "{\"meta\":null,\"ancestors\":[{\"path\":\"/home/a/secret\",\"meta\":" DIR(
		      "0700", 2000) "},{\"path\":\"/home/a\",\"meta\":" DIR("0755", 2000) "}]}",
	      USER_HOST);
	assert_string_equal(what(&f), "permission");
	assert_string_equal(json_string_value(json_object_get(f.reason, "denied")), "search");
	assert_string_equal(json_string_value(json_object_get(f.reason, "path")), "/home/a/secret");
	release(&f);
	f = file_finding("openat", XP_OP_READ, "/opt/app/conf/app.yaml", "ENOENT");
	build(&f,
	      "{\"meta\":null,\"ancestors\":[{\"path\":\"/opt/app/conf\",\"meta\":null},"
	      "{\"path\":\"/opt/app\",\"meta\":null},{\"path\":\"/opt\",\"meta\":" DIR("0755",
										       0) "}]}",
	      USER_HOST);
	assert_string_equal(what(&f), "missing");
	assert_string_equal(json_string_value(json_object_get(f.reason, "path")), "/opt/app");
	release(&f);
}

static void test_exec_reasons(void **state)
{
	struct xp_finding f = file_finding("execve", XP_OP_RUN, "/srv/run.sh", "EACCES");

	build(&f,
	      "{\"meta\":{\"type\":\"file\",\"mode\":\"0644\",\"uid\":0,\"gid\":0},"
	      "\"mount\":{\"mount_point\":\"/\",\"options\":[\"rw\"]}}",
	      USER_HOST);
	assert_string_equal(what(&f), "no_run_bit");
	release(&f);
	f = file_finding("execve", XP_OP_RUN, "/mnt/usb/run.sh", "EACCES");
	build(&f,
	      "{\"meta\":{\"type\":\"file\",\"mode\":\"0755\",\"uid\":0,\"gid\":0},"
	      "\"mount\":{\"mount_point\":\"/mnt/usb\",\"options\":[\"rw\",\"noexec\"]}}",
	      USER_HOST);
	assert_string_equal(what(&f), "noexec_mount");
	release(&f);
	/* ENOENT from exec of a file that exists: its #! interpreter is missing */
	f = file_finding("execve", XP_OP_RUN, "/srv/crlf.sh", "ENOENT");
	build(&f, "{\"meta\":{\"type\":\"file\",\"mode\":\"0755\",\"uid\":0,\"gid\":0}}",
	      USER_HOST);
	assert_string_equal(what(&f), "interpreter_missing");
	release(&f);
}

static void test_exec_shebang_and_directory(void **state)
{
	struct xp_finding f = file_finding("execve", XP_OP_RUN, "/srv/crlf.sh", "ENOENT");

	build(&f,
	      "{\"meta\":{\"type\":\"file\",\"mode\":\"0755\",\"uid\":0,\"gid\":0},"
	      "\"shebang\":{\"interpreter\":\"/bin/sh\",\"cr\":true}}",
	      USER_HOST);
	assert_string_equal(what(&f), "interpreter_crlf");
	assert_non_null(strstr(f.sentence, "'/bin/sh\\r'"));
	release(&f);
	f = file_finding("execve", XP_OP_RUN, "/srv/old.py", "ENOENT");
	build(&f,
	      "{\"meta\":{\"type\":\"file\",\"mode\":\"0755\",\"uid\":0,\"gid\":0},"
	      "\"shebang\":{\"interpreter\":\"/usr/bin/python2\",\"cr\":false}}",
	      USER_HOST);
	assert_string_equal(what(&f), "interpreter_missing");
	assert_non_null(strstr(f.sentence, "names the interpreter /usr/bin/python2"));
	release(&f);
	f = file_finding("execve", XP_OP_RUN, "/srv/app", "EACCES");
	build(&f, "{\"meta\":" DIR("0755", 0) ",\"ancestors\":[]}", USER_HOST);
	assert_string_equal(what(&f), "exec_directory");
	assert_non_null(strstr(f.sentence, "/srv/app is a directory"));
	release(&f);
}

/* chmod, chown, utimensat EPERM: ownership first, before ACLs or security modules. */
static void test_change_not_owner(void **state)
{
	struct xp_finding f =
		file_finding("fchmodat", XP_OP_CHANGE, "/srv/data/db.sqlite", "EPERM");

	build(&f,
	      "{\"meta\":{\"type\":\"file\",\"mode\":\"0666\",\"uid\":998,\"gid\":998},"
	      "\"ancestors\":[{\"path\":\"/srv/data\",\"meta\":" DIR("0777", 0) "}]}",
	      USER_HOST);
	assert_string_equal(what(&f), "not_owner");
	assert_int_equal(json_integer_value(json_object_get(f.reason, "owner_uid")), 998);
	assert_non_null(strstr(f.sentence, "owned by uid 998 and the process ran as uid 1000: "
					   "it does not own the file"));
	release(&f);
	f = file_finding("utimensat", XP_OP_CHANGE, "/srv/data/db.sqlite", "EPERM");
	build(&f, "{\"meta\":{\"type\":\"file\",\"mode\":\"0666\",\"uid\":0,\"gid\":0}}",
	      USER_HOST);
	assert_string_equal(what(&f), "not_owner");
	assert_non_null(strstr(f.sentence, "set its times"));
	release(&f);
	/* the owner itself: not an ownership question */
	f = file_finding("fchmodat", XP_OP_CHANGE, "/srv/data/mine", "EPERM");
	build(&f, "{\"meta\":{\"type\":\"file\",\"mode\":\"0644\",\"uid\":1000,\"gid\":1000}}",
	      USER_HOST);
	assert_string_not_equal(what(&f), "not_owner");
	release(&f);
}

/* A root-owned file that exists at the end; its last call worked, so no ancestors. */
#define ROOT_FILE                                                              \
	"{\"meta\":{\"type\":\"file\",\"mode\":\"0644\",\"uid\":0,\"gid\":0}," \
	"\"before\":{\"type\":\"file\",\"mode\":\"0644\",\"uid\":0,\"gid\":0}}"

static const char *rs(const struct xp_finding *f, const char *key)
{
	return json_string_value(json_object_get(f->reason, key));
}

/*
 * Adding or removing a name needs write and search on the directory: its
 * mode explains a denial even when the path's record has no ancestors,
 * from the directory's own record; without it the sentence says so.
 */
static void test_entry_parent(void **state)
{
	struct xp_finding f =
		file_finding("unlink", XP_OP_DELETE, "/var/cache/apt/pkgcache.bin", "EACCES");

	build2(&f, ROOT_FILE, "/var/cache/apt",
	       "{\"path\":\"/var/cache/apt\",\"meta\":" DIR("0755", 0) "}", USER_HOST);
	assert_string_equal(what(&f), "permission");
	assert_string_equal(rs(&f, "path"), "/var/cache/apt");
	assert_string_equal(rs(&f, "denied"), "remove entries in");
	assert_non_null(strstr(f.sentence, "/var/cache/apt is owned by root:root, mode 0755, and "
					   "the process ran as uid 1000 (gid 1000): it may not "
					   "remove entries in it"));
	assert_null(strstr(f.sentence, "no mode bit"));
	release(&f);
	/* write without search on the directory denies too */
	f = file_finding("unlinkat", XP_OP_DELETE, "/srv/drop/x", "EACCES");
	build2(&f, ROOT_FILE, "/srv/drop", "{\"path\":\"/srv/drop\",\"meta\":" DIR("0776", 0) "}",
	       USER_HOST);
	assert_string_equal(what(&f), "permission");
	assert_string_equal(rs(&f, "path"), "/srv/drop");
	release(&f);
	/* the directory is not in the bundle: say so */
	f = file_finding("unlink", XP_OP_DELETE, "/var/cache/apt/pkgcache.bin", "EACCES");
	build2(&f, ROOT_FILE, NULL, NULL, USER_HOST);
	assert_string_equal(what(&f), "parent_unknown");
	assert_string_equal(rs(&f, "path"), "/var/cache/apt");
	assert_non_null(strstr(f.sentence, "the bundle has no metadata of /var/cache/apt"));
	release(&f);
	/* mkdir in a directory the user may write: the mode bits do not explain it */
	f = file_finding("mkdir", XP_OP_CREATE, "/srv/open/new", "EACCES");
	build2(&f, "{\"meta\":null}", "/srv/open",
	       "{\"path\":\"/srv/open\",\"meta\":" DIR("0777", 0) "}", USER_HOST);
	assert_string_equal(what(&f), "unexplained");
	release(&f);
	/* O_CREAT of a file that existed: it only opens it, so the file's mode decides */
	f = file_finding("openat", XP_OP_CREATE, "/var/cache/apt/pkgcache.bin", "EACCES");
	build2(&f, ROOT_FILE, "/var/cache/apt",
	       "{\"path\":\"/var/cache/apt\",\"meta\":" DIR("0755", 0) "}", USER_HOST);
	assert_string_equal(what(&f), "permission");
	assert_string_equal(rs(&f, "path"), "/var/cache/apt/pkgcache.bin");
	assert_string_equal(rs(&f, "denied"), "write");
	release(&f);
}

/* unlink EPERM in a sticky directory: only the entry's or the directory's owner may. */
static void test_entry_sticky(void **state)
{
	struct xp_finding f = file_finding("unlink", XP_OP_DELETE, "/tmp/other.lock", "EPERM");

	build2(&f, "{\"meta\":{\"type\":\"file\",\"mode\":\"0644\",\"uid\":2000,\"gid\":2000}}",
	       "/tmp", "{\"path\":\"/tmp\",\"meta\":" DIR("01777", 0) "}", USER_HOST);
	assert_string_equal(what(&f), "sticky_directory");
	assert_int_equal(json_integer_value(json_object_get(f.reason, "owner_uid")), 2000);
	assert_non_null(strstr(f.sentence, "/tmp has the sticky bit (mode 01777): only the owner "
					   "of /tmp/other.lock (2000), of the directory (root)"));
	release(&f);
	/* its own file: the sticky bit does not explain it */
	f = file_finding("unlink", XP_OP_DELETE, "/tmp/mine.lock", "EPERM");
	build2(&f, "{\"meta\":{\"type\":\"file\",\"mode\":\"0644\",\"uid\":1000,\"gid\":1000}}",
	       "/tmp", "{\"path\":\"/tmp\",\"meta\":" DIR("01777", 0) "}", USER_HOST);
	assert_string_equal(what(&f), "unexplained");
	release(&f);
}

/*
 * utimensat EACCES (times set to now): neither the owner nor allowed to
 * write; on a descriptor without a path, the same from the errno, naming
 * the fd.
 */
static void test_times_not_owner(void **state)
{
	struct xp_finding f = file_finding("utimensat", XP_OP_CHANGE, "/srv/data/stamp", "EACCES");

	build(&f, "{\"meta\":{\"type\":\"file\",\"mode\":\"0644\",\"uid\":0,\"gid\":0}}",
	      USER_HOST);
	assert_string_equal(what(&f), "not_owner");
	assert_non_null(
		strstr(f.sentence, "it neither owns the file nor may write it (mode 0644)"));
	release(&f);
	/* one who may write it may set its times to now: not an ownership question */
	f = file_finding("utimensat", XP_OP_CHANGE, "/srv/data/stamp", "EACCES");
	build(&f, "{\"meta\":{\"type\":\"file\",\"mode\":\"0666\",\"uid\":0,\"gid\":0}}",
	      USER_HOST);
	assert_string_not_equal(what(&f), "not_owner");
	release(&f);
	/* utimensat(3, NULL, NULL, 0): no path, the fd */
	f = file_finding("utimensat", XP_OP_OTHER, NULL, "EACCES");
	f.kind = XP_OTHER;
	f.fd = 3;
	build(&f, NULL, USER_HOST);
	assert_string_equal(what(&f), "not_owner");
	assert_int_equal(json_integer_value(json_object_get(f.reason, "fd")), 3);
	assert_non_null(strstr(f.sentence,
			       "utimensat failed with EACCES — it tried to set the "
			       "times of fd 3, whose file the bundle does not name; the "
			       "process ran as uid 1000, so it neither owns that file nor "
			       "may write it"));
	release(&f);
	f = file_finding("utimensat", XP_OP_OTHER, NULL, "EPERM");
	f.kind = XP_OTHER;
	f.fd = 5;
	build(&f, NULL, USER_HOST);
	assert_string_equal(what(&f), "not_owner");
	assert_non_null(strstr(f.sentence, "fd 5"));
	assert_non_null(strstr(f.sentence, "so it does not own that file: only the owner (or "
					   "CAP_FOWNER) may set its times"));
	release(&f);
	/* with CAP_FOWNER ownership does not explain it: no reason */
	f = file_finding("utimensat", XP_OP_OTHER, NULL, "EPERM");
	f.kind = XP_OTHER;
	f.fd = 5;
	build(&f, NULL, "{\"uid\":0,\"gid\":0,\"capabilities\":{\"effective\":\"cap_fowner\"}}");
	assert_null(what(&f));
	assert_null(strstr(f.sentence, "fd 5"));
	release(&f);
}

/* A failed connect to port 53 of a resolv.conf server is name resolution failing. */
static void test_resolver_unreachable(void **state)
{
	struct xp_facts facts = {
		.host = json_loads("{\"uid\":1000,\"gid\":1000,\"dns\":{\"resolv_conf\":"
				   "{\"nameservers\":[\"10.0.0.53\"]}}}",
				   0, NULL),
		.files = json_object(),
		.dns_names = json_pack("{s:s}", "10", "db.corp.test"),
		.net_mode = "none",
	};
	struct xp_proc p = { .pid = 10, .label = (char *)"getent hosts db.corp.test" };
	struct xp_finding f = { .kind = XP_CONNECT,
				.pid = 10,
				.syscall = (char *)"connect",
				.errname = (char *)"unreachable",
				.count = 1 };

	f.net = json_loads("{\"ip\":\"10.0.0.53\",\"port\":53,\"outcome\":\"unreachable\","
			   "\"errno\":\"ENETUNREACH\"}",
			   0, NULL);
	xp_reason_build(&f, &p, &facts);
	assert_non_null(strstr(f.sentence, "name resolution failed for db.corp.test: the DNS "
					   "server 10.0.0.53 (resolv.conf) could not be reached"));
	assert_string_equal(json_string_value(json_object_get(f.reason, "resolving")),
			    "db.corp.test");
	release(&f);
	/* no lookup recorded (a UDP connect that fails sends none): the name from the command */
	json_object_clear(facts.dns_names);
	xp_reason_build(&f, &p, &facts);
	assert_non_null(strstr(f.sentence, "name resolution failed for db.corp.test"));
	release(&f);
	/* nor in the command: the host of a URL the process looked up as a path (pip) */
	facts.url_hosts = json_pack("{s:s}", "10", "pypi.org");
	p.label = (char *)"pip install --retries …";
	xp_reason_build(&f, &p, &facts);
	assert_non_null(strstr(f.sentence, "name resolution failed for pypi.org"));
	release(&f);
	json_decref(f.net);
	json_decref(facts.host);
	json_decref(facts.files);
	json_decref(facts.dns_names);
	json_decref(facts.url_hosts);
}

/* The host of a URL: without user, password or port; none for file:/// or a non-URL. */
static void test_url_host(void **state)
{
	static const char *const cases[][2] = {
		{ "https://pypi.org/simple/requests/", "pypi.org" },
		{ "git+ssh://git@example.com:22/r.git", "example.com" },
		{ "http://u:pw@[::1]:8080/x", "[::1]" },
		{ "https://host.test", "host.test" },
		{ "file:///srv/wheels", NULL },
		{ "https:/pypi.org/simple", NULL },
		{ "/srv/https://x/y", NULL },
		{ "Https://x/y", NULL },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *h = xp_url_host(cases[i][0], buf, sizeof(buf));

		if (cases[i][1] == NULL ? h != NULL : h == NULL || strcmp(h, cases[i][1]) != 0)
			fail_msg("%s: host %s, want %s", cases[i][0], h ? h : "none",
				 cases[i][1] ? cases[i][1] : "none");
	}
	assert_null(
		xp_url_host("https://a-very-long-host-name-that-does-not-fit.example/", buf, 8));
}

static void test_network_sentences(void **state)
{
	struct xp_finding f = { .kind = XP_CONNECT,
				.pid = 10,
				.syscall = (char *)"connect",
				.errname = (char *)"timed_out",
				.count = 1 };

	f.net = json_loads("{\"ip\":\"203.0.113.7\",\"port\":443,\"name\":\"cdn.example.com\","
			   "\"outcome\":\"abandoned\",\"dur_ns\":5000000000}",
			   0, NULL);
	build(&f, NULL, USER_HOST);
	assert_non_null(strstr(f.sentence, "could not connect to cdn.example.com "
					   "(203.0.113.7:443) — no answer; the program gave up "
					   "and closed it after 5.0 s"));
	release(&f);
	json_decref(f.net);
	f.kind = XP_DNS;
	f.net = json_loads("{\"name\":\"gone.test\",\"qtype\":\"A\",\"outcome\":\"nxdomain\","
			   "\"ip\":\"127.0.0.53\",\"port\":53}",
			   0, NULL);
	build(&f, NULL, USER_HOST);
	assert_non_null(strstr(f.sentence, "could not resolve gone.test (A) — the name does not "
					   "exist (NXDOMAIN) from 127.0.0.53:53"));
	release(&f);
	json_decref(f.net);
}

/* waits.jsonl findings: a stall that took most of a failed run, and an interruption. */
static void test_wait_sentences(void **state)
{
	struct xp_finding f = { .kind = XP_WAIT,
				.pid = 10,
				.syscall = (char *)"recvfrom",
				.errname = (char *)"returned",
				.count = 1,
				.t_ns = 390000000,
				.wait_dominant = true };

	(void)state;
	f.wait = json_loads("{\"pid\":10,\"tid\":10,\"syscall\":\"recvfrom\",\"what\":\"read\","
			    "\"t_ns\":0,\"dur_ns\":12000000000,\"end\":\"returned\",\"ret\":0,"
			    "\"fds\":[{\"fd\":3,\"kind\":\"socket\",\"peer\":{\"family\":"
			    "\"AF_INET\",\"ip\":\"127.0.0.1\",\"port\":18081}}]}",
			    0, NULL);
	build(&f, NULL, USER_HOST);
	assert_non_null(strstr(f.sentence,
			       "python3 webui.py (pid 10) waited 12 s for a reply from "
			       "127.0.0.1:18081 (recvfrom), then the peer closed the "
			       "connection (recvfrom returned 0); 0.010 s later it exited "
			       "with status 1"));
	assert_string_equal(what(&f), "stall");
	assert_true(xp_wait_score(&f, NULL, true) > 100);
	assert_true(xp_wait_score(&f, NULL, false) < 20);
	release(&f);
	json_decref(f.wait);
	f.wait_interrupted = true;
	f.wait = json_loads(
		"[{\"pid\":10,\"syscall\":\"connect\",\"what\":\"connect\","
		"\"t_ns\":1000000000,\"dur_ns\":45000000000,\"end\":\"signal\","
		"\"signal\":\"SIGINT\",\"at_stop\":true,\"stop_ns\":45000000000,"
		"\"addr\":{\"family\":\"AF_INET\",\"ip\":\"104.18.25.73\",\"port\":443}}]",
		0, NULL);
	build(&f, NULL, USER_HOST);
	assert_non_null(strstr(f.sentence,
			       "interrupted after 45 s (SIGINT): pid 10 had been waiting "
			       "44 s in connect to 104.18.25.73:443"));
	assert_true(xp_wait_score(&f, NULL, false) >= 200);
	release(&f);
	json_decref(f.wait);
}

/* A wait on a socket joined to its connect (replayer/readers/sockidx.h): peer, protocol, data phase. */
static void test_wait_socket_sentences(void **state)
{
	struct rpl_sockidx idx;
	struct xp_finding f = { .kind = XP_WAIT,
				.pid = 10,
				.syscall = (char *)"poll",
				.errname = (char *)"returned",
				.count = 1,
				.t_ns = 12001000000,
				.wait_dominant = true };
	json_t *conn = json_loads(
		"{\"kind\":\"attempt\",\"pid\":10,\"fd\":3,\"t_ns\":0,\"dur_ns\":150000,"
		"\"syscall\":\"connect\",\"type\":\"SOCK_STREAM\",\"family\":\"AF_INET\","
		"\"ip\":\"127.0.0.1\",\"port\":18081,\"outcome\":\"connected\","
		"\"nonblocking\":true,\"sent\":120,\"received\":0,\"end\":\"peer_closed\","
		"\"end_ns\":12000500000,\"proto\":\"http\"}",
		0, NULL);
	json_t *pending = json_loads(
		"{\"kind\":\"attempt\",\"pid\":11,\"fd\":5,\"t_ns\":1000,\"dur_ns\":2000000000,"
		"\"syscall\":\"connect\",\"type\":\"SOCK_STREAM\",\"family\":\"AF_INET\","
		"\"ip\":\"127.0.0.1\",\"port\":8080,\"outcome\":\"abandoned\","
		"\"errno\":\"EINPROGRESS\",\"nonblocking\":true}",
		0, NULL);

	(void)state;
	rpl_sockidx_init(&idx);
	assert_true(rpl_sockidx_add(&idx, conn) > 0);
	assert_true(rpl_sockidx_add(&idx, pending) > 0);
	f.wait = json_loads("{\"pid\":10,\"tid\":10,\"syscall\":\"poll\",\"what\":\"poll\","
			    "\"t_ns\":1000000,\"dur_ns\":12000000000,\"end\":\"returned\","
			    "\"nfds\":1,\"fds\":[{\"fd\":3,\"kind\":\"socket\",\"peer\":{"
			    "\"family\":\"AF_INET\",\"ip\":\"127.0.0.1\",\"port\":18081}}]}",
			    0, NULL);
	rpl_sockidx_join(&idx, f.wait);
	build(&f, NULL, USER_HOST);
	assert_non_null(strstr(f.sentence,
			       "waited 12 s for a reply from 127.0.0.1:18081 (HTTP over TCP, "
			       "connected in 0.1 ms; poll), then the peer closed the connection "
			       "without sending anything"));
	release(&f);
	json_decref(f.wait);
	/* a socket still connecting has no peer of its own: the connect names it */
	f.wait_interrupted = true;
	f.pid = 11;
	f.wait = json_loads("[{\"pid\":11,\"tid\":11,\"syscall\":\"poll\",\"what\":\"poll\","
			    "\"t_ns\":2000,\"dur_ns\":2000000000,\"end\":\"signal\","
			    "\"signal\":\"SIGINT\",\"at_stop\":true,\"stop_ns\":2000000000,"
			    "\"nfds\":2,\"fds\":[{\"fd\":5,\"kind\":\"socket\",\"local\":{"
			    "\"family\":\"AF_INET\",\"ip\":\"127.0.0.1\",\"port\":40000}}]}]",
			    0, NULL);
	rpl_sockidx_join(&idx, json_array_get(f.wait, 0));
	build(&f, NULL, USER_HOST);
	assert_non_null(strstr(f.sentence, "in poll on 2 fds, first the connection to "
					   "127.0.0.1:8080 to complete (TCP)"));
	release(&f);
	json_decref(f.wait);
	/* the program gave up: it closed the socket, nothing received, right after the wait */
	f.wait_interrupted = false;
	f.pid = 10;
	json_object_set_new(conn, "end", json_string("closed"));
	json_object_set_new(conn, "fd", json_integer(6));
	json_object_set_new(conn, "t_ns", json_integer(20000000000));
	json_object_set_new(conn, "end_ns", json_integer(22800000000));
	assert_true(rpl_sockidx_add(&idx, conn) > 0);
	f.wait = json_loads("{\"pid\":10,\"tid\":10,\"syscall\":\"poll\",\"what\":\"poll\","
			    "\"t_ns\":20000400000,\"dur_ns\":2200000000,\"end\":\"returned\","
			    "\"nfds\":2,\"fds\":[{\"fd\":6,\"kind\":\"socket\"}]}",
			    0, NULL);
	rpl_sockidx_join(&idx, f.wait);
	build(&f, NULL, USER_HOST);
	assert_non_null(strstr(f.sentence,
			       "in poll on 2 fds, first a reply from 127.0.0.1:18081 "
			       "(HTTP over TCP, connected in 0.1 ms), then it closed the "
			       "connection, having received nothing"));
	release(&f);
	json_decref(f.wait);
	/* no connect of that fd before the wait: nothing is joined */
	f.wait = json_loads("{\"pid\":10,\"t_ns\":0,\"fds\":[{\"fd\":4,\"kind\":\"socket\"}]}", 0,
			    NULL);
	rpl_sockidx_join(&idx, f.wait);
	assert_null(json_object_get(f.wait, "socket"));
	json_decref(f.wait);
	json_decref(conn);
	json_decref(pending);
	rpl_sockidx_release(&idx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise_cases),
		cmocka_unit_test(test_noise_written),
		cmocka_unit_test(test_noise_rules),
		cmocka_unit_test(test_net_noise),
		cmocka_unit_test(test_denied_create),
		cmocka_unit_test(test_search_denied_and_missing),
		cmocka_unit_test(test_exec_reasons),
		cmocka_unit_test(test_network_sentences),
		cmocka_unit_test(test_exec_shebang_and_directory),
		cmocka_unit_test(test_change_not_owner),
		cmocka_unit_test(test_entry_parent),
		cmocka_unit_test(test_times_not_owner),
		cmocka_unit_test(test_entry_sticky),
		cmocka_unit_test(test_resolver_unreachable),
		cmocka_unit_test(test_url_host),
		cmocka_unit_test(test_wait_sentences),
		cmocka_unit_test(test_wait_socket_sentences),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
