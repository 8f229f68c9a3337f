/*
 * The watch of a replay (replayer/replay/watch.c): divergences from the
 * recording as the calls return, on the scenario bundle of the fixture
 * (bash start_app.sh in /srv/app: openat /srv/app/.env ENOENT, twelve
 * weights ENOENT, openat /srv/app/webui.py = 3).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "common/cleanup.h"
#include "common/xalloc.h"
#include "fixture.h"
#include "replayer/replay/replay.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

struct fixture {
	char *dir;
	char *bundle;
	json_t *said; /* the lines the watch said */
};

static int setup(void **state)
{
	struct fixture *fx = repro_xcalloc(1, sizeof(*fx));

	fx->dir = fx_tmpdir();
	fx->bundle = fx_pack_scenario(fx->dir);
	fx->said = json_array();
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	fx_rmtree(fx->dir);
	free(fx->dir);
	free(fx->bundle);
	json_decref(fx->said);
	free(fx);
	return 0;
}

static void say(void *ctx, const char *line)
{
	json_array_append_new(ctx, json_string(line));
}

/* The replay runs in /home/bob/app: the recording's /srv/app is there. */
static struct rpl_watch *watch(struct fixture *fx, bool strict)
{
	static const struct rpl_replay_opts o = { .cwd_here = "/home/bob/app",
						  .home_here = "/home/bob" };
	cleanup_err struct repro_err *err = NULL;
	struct rpl_watch *w = rpl_watch_new(fx->bundle, &o, strict, say, fx->said, &err);

	if (w == NULL)
		fail_msg("watch: %s", err->msg);
	return w;
}

/* One call through the policy: its entry (decide), then its exit with ret; on_exit's answer. */
static bool call(struct rpl_watch *w, pid_t pid, const char *syscall, const char *path, int64_t ret,
		 bool injected)
{
	const struct lnch_policy_ops *ops = rpl_watch_ops();
	struct lnch_stop st = { .tid = pid, .pid = pid };
	struct lnch_call c = { .syscall = syscall, .path = path, .exe = "/usr/bin/python3.11" };
	struct lnch_verdict v = { 0 };

	assert_int_equal(ops->decide(w, &st, &c, &v), 0); /* it imposes nothing */
	if (!v.observe_exit)
		return false;
	st.ret = ret;
	st.injected = injected;
	return ops->on_exit(w, &st);
}

static const char *said(const struct fixture *fx, size_t i)
{
	return json_string_value(json_array_get(fx->said, i));
}

static void test_worked_there_fails_here(void **state)
{
	struct fixture *fx = *state;
	struct rpl_watch *w = watch(fx, false);

	assert_false(call(w, 7, "openat", "/home/bob/app/webui.py", -EACCES, false));
	assert_int_equal(json_array_size(fx->said), 1);
	assert_string_equal(said(fx, 0), "diverged: openat /home/bob/app/webui.py: worked in the "
					 "recording, EACCES here (pid 7, python3.11)");
	assert_true(rpl_watch_reported(w, "openat", "/home/bob/app/webui.py", "EACCES"));
	assert_false(rpl_watch_reported(w, "openat", "/home/bob/app/webui.py", "ENOENT"));
	assert_int_equal(rpl_watch_divergences(w), 1);
	rpl_watch_free(w);
}

static void test_threads_meeting_it_are_one(void **state)
{
	struct fixture *fx = *state;
	struct rpl_watch *w = watch(fx, false);
	const struct lnch_policy_ops *ops = rpl_watch_ops();

	for (pid_t tid = 7; tid < 10; tid++) {
		struct lnch_stop st = { .tid = tid, .pid = 7 };
		struct lnch_call c = { .syscall = "openat", .path = "/home/bob/app/webui.py" };
		struct lnch_verdict v = { 0 };

		ops->decide(w, &st, &c, &v);
		st.ret = -EACCES;
		ops->on_exit(w, &st);
	}
	assert_int_equal(json_array_size(fx->said), 1);
	assert_int_equal(rpl_watch_divergences(w), 1);
	rpl_watch_free(w);
}

static void test_same_outcomes_are_none(void **state)
{
	struct fixture *fx = *state;
	struct rpl_watch *w = watch(fx, false);

	call(w, 7, "openat", "/home/bob/app/.env", -ENOENT, false); /* failed there too */
	call(w, 7, "openat", "/home/bob/app/webui.py", 3, false); /* worked there too */
	call(w, 7, "openat", "/home/bob/app/webui.py", -EACCES, true); /* imposed */
	call(w, 7, "openat", "/home/bob/app/webui.py", -EINTR, false); /* timing */
	call(w, 7, "openat", "/usr/lib/python3.11/new.py", 3, false); /* the system's */
	call(w, 7, "openat", "/opt/elsewhere/x", 3, false); /* neither cwd nor home */
	call(w, 7, "unlinkat", "/home/bob/app/x", 0, false); /* a syscall the recording lacks */
	assert_int_equal(json_array_size(fx->said), 0);
	assert_int_equal(rpl_watch_divergences(w), 0);
	rpl_watch_free(w);
}

static void test_never_made_once_per_program(void **state)
{
	struct fixture *fx = *state;
	struct rpl_watch *w = watch(fx, false);

	call(w, 7, "openat", "/home/bob/app/extra.json", 3, false);
	call(w, 7, "openat", "/home/bob/app/more.json", 3, false);
	call(w, 8, "openat", "/home/bob/.config/app.ini", 3, false);
	assert_int_equal(json_array_size(fx->said), 1);
	assert_string_equal(said(fx, 0),
			    "diverged: openat /home/bob/app/extra.json: a call the recording never "
			    "made (pid 7, python3.11; the first of this program)");
	rpl_watch_free(w);
}

static void test_strict_stops_with_context(void **state)
{
	struct fixture *fx = *state;
	struct rpl_watch *w = watch(fx, true);
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *text = NULL;
	size_t len = 0;
	FILE *f;

	assert_false(call(w, 7, "openat", "/home/bob/app/.env", -ENOENT, false));
	assert_true(call(w, 7, "openat", "/home/bob/app/webui.py", -EACCES, false));
	assert_true(rpl_watch_stopped(w));
	assert_non_null(strstr(rpl_watch_stop_what(w), "webui.py: worked in the recording"));
	/* nothing more is watched once stopped */
	assert_false(call(w, 7, "openat", "/home/bob/app/extra.json", 3, false));
	f = open_memstream(&text, &len);
	assert_int_equal(rpl_watch_context(w, fx->bundle, f, &err), 0);
	fclose(f);
	assert_non_null(strstr(text,
			       "  here, its last calls:\n"
			       "    openat /home/bob/app/.env = -1 ENOENT\n"
			       "    openat /home/bob/app/webui.py = -1 EACCES   <- diverged\n"));
	assert_non_null(strstr(text, "  in the recording, pid 101, up to the same call:\n"));
	assert_non_null(strstr(text, "    openat /srv/app/webui.py = 3\n"));
	rpl_watch_free(w);
}

static void test_hostile_bundle_is_an_error(void **state)
{
	struct fixture *fx = *state;
	static const struct rpl_replay_opts o = { 0 };
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *bad = repro_xasprintf("%s/not-a-bundle", fx->dir);
	FILE *f = fopen(bad, "w");

	assert_non_null(f);
	fputs("garbage\n", f);
	fclose(f);
	assert_null(rpl_watch_new(bad, &o, false, NULL, NULL, &err));
	assert_non_null(err);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_worked_there_fails_here, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_meeting_it_are_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_outcomes_are_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_never_made_once_per_program, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_stops_with_context, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_bundle_is_an_error, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
