/* Unit tests of recorder/host.h: host.json on the machine running the test. */
#include "recorder/host.h"
#include "common/cleanup.h"

#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static const char *const test_envp[] = {
	"PATH=/usr/bin:/bin",	 "HOME=/root", "MY_API_TOKEN=hunter2planted", "OTHER=alsoplanted",
	"HOSTNAME=planted-host", NULL,
};

static bool has_string(const json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach (arr, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

static const json_t *find_mount(const json_t *mounts, const char *mount_point)
{
	size_t i;
	json_t *m;

	json_array_foreach (mounts, i, m)
		if (strcmp(json_string_value(json_object_get(m, "mount_point")), mount_point) == 0)
			return m;
	return NULL;
}

/* host.json for test_envp under the default policy; names of redactions into *names. */
static json_t *collect(bool redact_hostname, json_t **names)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);
	cleanup_err struct repro_err *err = NULL;
	struct rec_host_opts opts;

	if (redact_hostname)
		rec_redact_hide_hostname(r);
	opts = (struct rec_host_opts){
		.redact = r,
		.envp = test_envp,
		.sandbox = "user+mount namespaces",
		.redact_hostname = redact_hostname,
		.redacted = *names = json_array(),
	};
	json_t *host = rec_host_collect(&opts, &err);

	assert_null(err);
	assert_non_null(host);
	return host;
}

static void test_host_secrets_absent(void **state)
{
	json_t *names;
	json_t *host = collect(false, &names);
	cleanup_free char *text = json_dumps(host, 0);
	json_t *env = json_object_get(host, "environment");

	assert_null(strstr(text, "hunter2planted"));
	assert_null(strstr(text, "alsoplanted"));
	assert_string_equal(json_string_value(json_object_get(env, "PATH")), "/usr/bin:/bin");
	assert_string_equal(json_string_value(json_object_get(env, "HOSTNAME")), "planted-host");
	assert_string_equal(json_string_value(json_object_get(env, "MY_API_TOKEN")), REC_REDACTED);
	assert_true(has_string(names, "MY_API_TOKEN"));
	assert_true(has_string(names, "OTHER"));
	assert_false(has_string(names, "hostname"));
	json_decref(host);
	json_decref(names);
}

static void test_host_types(void **state)
{
	static const char *const cap_sets[] = { "effective", "permitted", "inheritable",
						"bounding" };
	json_t *names;
	json_t *host = collect(false, &names);
	json_t *kernel = json_object_get(host, "kernel");
	json_t *caps = json_object_get(host, "capabilities");
	json_t *dist = json_object_get(host, "distribution");
	json_t *ks = json_object_get(host, "kernel_settings");

	assert_true(json_is_string(json_object_get(kernel, "sysname")));
	assert_true(json_is_string(json_object_get(kernel, "release")));
	assert_true(json_is_string(json_object_get(kernel, "version")));
	assert_true(json_is_string(json_object_get(kernel, "machine")));
	assert_true(json_is_null(dist) || json_is_object(dist));
	assert_true(json_is_string(json_object_get(host, "arch")));
	assert_true(json_is_string(json_object_get(host, "hostname")));
	assert_int_equal(json_integer_value(json_object_get(host, "uid")), getuid());
	assert_int_equal(json_integer_value(json_object_get(host, "gid")), getgid());
	assert_int_equal(json_integer_value(json_object_get(host, "euid")), geteuid());
	assert_int_equal(json_integer_value(json_object_get(host, "egid")), getegid());
	assert_true(json_is_array(json_object_get(host, "groups")));
	for (size_t i = 0; i < sizeof(cap_sets) / sizeof(cap_sets[0]); i++)
		assert_true(json_is_string(json_object_get(caps, cap_sets[i])));
	assert_true(json_is_string(json_object_get(caps, "ambient")) ||
		    json_is_null(json_object_get(caps, "ambient")));
	if (geteuid() != 0)
		assert_string_equal(json_string_value(json_object_get(caps, "effective")), "");
	assert_true(json_is_object(json_object_get(host, "dns")));
	assert_true(json_is_object(ks));
	assert_true(json_is_integer(json_object_get(ks, "max_user_namespaces")) ||
		    json_is_null(json_object_get(ks, "max_user_namespaces")));
	assert_true(json_is_null(json_object_get(ks, "yama_ptrace_scope")) ||
		    json_is_integer(json_object_get(ks, "yama_ptrace_scope")));
	assert_string_equal(json_string_value(json_object_get(host, "sandbox")),
			    "user+mount namespaces");
	json_decref(host);
	json_decref(names);
}

static void test_host_process_facts(void **state)
{
	mode_t old = umask(027);
	json_t *names;
	json_t *host = collect(false, &names);
	json_t *nofile = json_object_get(json_object_get(host, "rlimits"), "NOFILE");
	cleanup_free char *cwd = get_current_dir_name();
	struct rlimit rl;

	umask(old);
	assert_string_equal(json_string_value(json_object_get(host, "umask")), "0027");
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur == RLIM_INFINITY)
		assert_string_equal(json_string_value(json_object_get(nofile, "soft")),
				    "unlimited");
	else
		assert_int_equal(json_integer_value(json_object_get(nofile, "soft")), rl.rlim_cur);
	assert_non_null(json_object_get(nofile, "hard"));
	assert_int_equal(json_object_size(json_object_get(host, "rlimits")), 8);
	assert_string_equal(json_string_value(json_object_get(host, "cwd")), cwd);
	json_decref(host);
	json_decref(names);
}

static void test_host_mounts(void **state)
{
	json_t *names;
	json_t *host = collect(false, &names);
	json_t *mounts = json_object_get(host, "mounts");
	const json_t *root;

	assert_true(json_array_size(mounts) > 0);
	root = find_mount(mounts, "/");
	assert_non_null(root);
	assert_true(json_is_string(json_object_get(root, "fstype")));
	assert_true(json_is_string(json_object_get(root, "source")));
	assert_true(json_array_size(json_object_get(root, "options")) > 0);
	assert_true(json_is_false(json_object_get(host, "mounts_truncated")));
	json_decref(host);
	json_decref(names);
}

static void test_host_hostname_redacted(void **state)
{
	json_t *names;
	json_t *host = collect(true, &names);

	assert_string_equal(json_string_value(json_object_get(host, "hostname")), REC_REDACTED);
	assert_true(has_string(names, "hostname"));
	/* the host name also travels in $HOSTNAME: the policy redacts it */
	assert_string_equal(json_string_value(json_object_get(json_object_get(host, "environment"),
							      "HOSTNAME")),
			    REC_REDACTED);
	assert_true(has_string(names, "HOSTNAME"));
	json_decref(host);
	json_decref(names);
}

static void test_host_default_policy(void **state)
{
	cleanup_err struct repro_err *err = NULL;
	struct rec_host_opts opts = { .envp = test_envp };
	json_t *host = rec_host_collect(&opts, &err);
	json_t *env = json_object_get(host, "environment");

	assert_non_null(host);
	assert_string_equal(json_string_value(json_object_get(env, "HOME")), "/root");
	assert_string_equal(json_string_value(json_object_get(env, "OTHER")), REC_REDACTED);
	assert_true(json_is_null(json_object_get(host, "sandbox")));
	json_decref(host);
	opts.envp = NULL;
	host = rec_host_collect(&opts, &err);
	assert_true(json_is_null(json_object_get(host, "environment")));
	json_decref(host);
}

static void test_host_fs_usage(void **state)
{
	static const char *const paths[] = { "/", "/proc/self/status", "/does/not/exist/at/all",
					     "missing/rel" };
	static const char *const same[] = { "/", "/does/not/exist" };
	json_t *arr = rec_host_fs_usage(paths, 4);
	json_t *one = rec_host_fs_usage(same, 2);
	json_t *first = json_array_get(arr, 0);
	size_t i;
	json_t *e;

	/* "/" and the missing paths below it share a filesystem; /proc is another one */
	assert_true(json_array_size(arr) >= 2 && json_array_size(arr) <= 3);
	assert_string_equal(json_string_value(json_object_get(first, "mount_point")), "/");
	json_array_foreach (arr, i, e) {
		assert_true(json_is_integer(json_object_get(e, "free_bytes")));
		assert_true(json_is_integer(json_object_get(e, "total_inodes")));
		assert_true(json_integer_value(json_object_get(e, "free_bytes")) <=
			    json_integer_value(json_object_get(e, "total_bytes")));
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(arr, 1), "fstype")),
			    "proc");
	assert_int_equal(json_array_size(one), 1);
	json_decref(arr);
	json_decref(one);
}

/*
 * In a child with its own mount namespace, a tmpfs on a directory whose name
 * has a space: mountinfo escapes it as \040 and host.json must not.
 * Returns 0 when found, 1 when not, 77 when no mount namespace can be made.
 */
static int child_mount_with_space(const char *dir)
{
	static const char *const empty[] = { NULL };
	struct rec_host_opts opts = { .envp = empty };
	cleanup_err struct repro_err *err = NULL;
	json_t *host, *usage;
	const json_t *m;
	const char *paths[] = { dir };

	if (unshare(CLONE_NEWNS) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return 77;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("t", dir, "tmpfs", 0, NULL) < 0)
		return 77;
	host = rec_host_collect(&opts, &err);
	m = host != NULL ? find_mount(json_object_get(host, "mounts"), dir) : NULL;
	if (m == NULL || strcmp(json_string_value(json_object_get(m, "fstype")), "tmpfs") != 0)
		return 1;
	usage = rec_host_fs_usage(paths, 1);
	if (strcmp(json_string_value(json_object_get(json_array_get(usage, 0), "mount_point")),
		   dir) != 0)
		return 1;
	return 0;
}

static void test_host_mount_point_unescaped(void **state)
{
	char dir[] = "/tmp/repro host XXXXXX";
	int status;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_mount_with_space(dir));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	rmdir(dir);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* After the run: the filesystems holding touched paths, and /etc/hosts when it was read. */
static void test_host_add_fs_usage_and_hosts(void **state)
{
	char dir[] = "/tmp/repro-hostfs-XXXXXX";
	char host[64], files[64];
	cleanup_err struct repro_err *err = NULL;
	json_t *h, *fs;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(host, sizeof(host), "%s/host.json", dir);
	snprintf(files, sizeof(files), "%s/files.jsonl", dir);
	f = fopen(host, "w");
	fputs("{\"mounts\":[{\"mount_point\":\"/\"},{\"mount_point\":\"/nowhere-mounted\"}]}", f);
	fclose(f);
	f = fopen(files, "w");
	fputs("{\"path\":\"/etc/hosts\",\"ops\":[\"read\"]}\n{\"path\":\"/usr\"}\n", f);
	fclose(f);
	h = json_load_file(host, 0, NULL);
	assert_non_null(h);
	assert_int_equal(rec_host_add_fs_usage(h, files, &err), 0);
	fs = json_object_get(h, "filesystems");
	assert_int_equal(json_array_size(fs), 1); /* only "/" holds a touched path */
	assert_true(json_is_array(json_object_get(h, "hosts_file")));
	json_decref(h);
	unlink(host);
	unlink(files);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_secrets_absent),
		cmocka_unit_test(test_host_types),
		cmocka_unit_test(test_host_process_facts),
		cmocka_unit_test(test_host_mounts),
		cmocka_unit_test(test_host_hostname_redacted),
		cmocka_unit_test(test_host_default_policy),
		cmocka_unit_test(test_host_fs_usage),
		cmocka_unit_test(test_host_mount_point_unescaped),
		cmocka_unit_test(test_host_add_fs_usage_and_hosts),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
