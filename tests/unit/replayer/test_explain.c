/*
 * Unit tests of the parts of `repro explain` (replayer/explain_internal.h):
 * which failures are probes, and the sentence and facts of a finding built
 * from hand-made files.jsonl / host.json / network.jsonl records.
 */
#include "replayer/explain_internal.h"

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
				    .count = 1 };
}

static void test_probes(void **state)
{
	static const struct {
		const char *sc, *path, *err;
		enum xp_op op;
		bool noise;
	} cases[] = {
		{ "openat", "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libc.so.6", "ENOENT",
		  XP_OP_READ, true },
		{ "newfstatat", "/usr/lib/python3.11/__pycache__/os.cpython-311.pyc", "ENOENT",
		  XP_OP_FIND, true },
		{ "openat", "/usr/share/locale/C.UTF-8/LC_MESSAGES/bash.mo", "ENOENT", XP_OP_READ,
		  true },
		{ "readlink", "/usr/bin/python3.11", "EINVAL", XP_OP_FIND, true },
		{ "mkdir", "/tmp/x", "EEXIST", XP_OP_CREATE, true },
		{ "wait4", NULL, "ECHILD", XP_OP_OTHER, true },
		/* what a program meant to open is not a probe, nor a denied write */
		{ "openat", "/srv/app/config.yaml", "ENOENT", XP_OP_READ, false },
		{ "openat", "/usr/lib/app/libfoo.so", "EACCES", XP_OP_READ, false },
		{ "openat", "/srv/app/cache/model.pth", "EACCES", XP_OP_CREATE, false },
		{ "execve", "/srv/app/run.sh", "EACCES", XP_OP_RUN, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xp_finding f =
			file_finding(cases[i].sc, cases[i].op, cases[i].path, cases[i].err);

		xp_noise_classify(&f);
		if (f.noise != cases[i].noise)
			fail_msg("%s %s %s: noise %d, want %d", cases[i].sc,
				 cases[i].path ? cases[i].path : "-", cases[i].err, f.noise,
				 cases[i].noise);
	}
}

static void test_net_noise(void **state)
{
	struct xp_netidx idx = { .ok_conn = json_object(), .answered = json_object() };
	json_t *ok = json_loads("{\"kind\":\"attempt\",\"pid\":5,\"t_ns\":200,\"port\":443,"
				"\"name\":\"cdn.test\",\"outcome\":\"connected\"}",
				0, NULL);
	json_t *v6 = json_loads("{\"kind\":\"attempt\",\"pid\":5,\"t_ns\":100,\"port\":443,"
				"\"name\":\"cdn.test\",\"outcome\":\"unreachable\"}",
				0, NULL);
	json_t *other = json_loads("{\"kind\":\"attempt\",\"pid\":5,\"t_ns\":100,\"port\":443,"
				   "\"name\":\"api.test\",\"outcome\":\"refused\"}",
				   0, NULL);
	json_t *ans =
		json_loads("{\"kind\":\"dns\",\"name\":\"db\",\"outcome\":\"answered\"}", 0, NULL);
	json_t *expand = json_loads("{\"kind\":\"dns\",\"name\":\"db.corp.test\","
				    "\"outcome\":\"nxdomain\"}",
				    0, NULL);
	json_t *nx = json_loads(
		"{\"kind\":\"dns\",\"name\":\"gone.test\",\"outcome\":\"nxdomain\"}", 0, NULL);
	struct xp_finding f = { .kind = XP_CONNECT };

	xp_netidx_add(&idx, ok);
	xp_netidx_add(&idx, ans);
	f.net = v6;
	xp_net_noise(&f, &idx);
	assert_true(f.noise); /* another address of cdn.test answered later */
	f.net = other;
	xp_net_noise(&f, &idx);
	assert_false(f.noise);
	f.kind = XP_DNS;
	f.net = expand;
	xp_net_noise(&f, &idx);
	assert_true(f.noise); /* the search-list expansion of "db", which resolved */
	f.net = nx;
	xp_net_noise(&f, &idx);
	assert_false(f.noise);
	json_decref(ok);
	json_decref(v6);
	json_decref(other);
	json_decref(ans);
	json_decref(expand);
	json_decref(nx);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_net_noise),
		cmocka_unit_test(test_denied_create),
		cmocka_unit_test(test_search_denied_and_missing),
		cmocka_unit_test(test_exec_reasons),
		cmocka_unit_test(test_network_sentences),
		cmocka_unit_test(test_wait_sentences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
