#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "fixture.h"
#include "replayer/readers/show.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

struct fixture {
	char *dir;
	char *bundle;
};

static int setup(void **state)
{
	struct fixture *fx = repro_xcalloc(1, sizeof(*fx));

	fx->dir = fx_tmpdir();
	fx->bundle = fx_pack_scenario(fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	fx_rmtree(fx->dir);
	free(fx->dir);
	free(fx->bundle);
	free(fx);
	return 0;
}

/* Run rpl_show_run into a string the caller frees; fails the test on error. */
static char *show(const struct rpl_show_opts *opts)
{
	cleanup_err struct repro_err *err = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (rpl_show_run(opts, f, &err) < 0)
		fail_msg("show: %s", err->msg);
	fclose(f);
	return text;
}

static const char *find(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);

	if (p == NULL)
		fail_msg("'%s' not found in:\n%s", needle, text);
	return p;
}

static void test_show_run_summary(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle };
	cleanup_free char *text = show(&opts);

	assert_true(strncmp(text, "Run\n  command   bash start_app.sh\n  cwd       /srv/app\n",
			    54) == 0);
	find(text, "\n  started   2026-11-29T14:41:44Z\n");
	find(text, "\n  duration  9.00 s\n");
	find(text, "\n  exit      code 1\n");
	find(text, "\n  counts    20 events, 17 failed, 4 processes\n");
	find(text, "\n  warning   first note\n  warning   second note\n");
	assert_null(strchr(text, '\033'));
}

static void test_show_process_tree(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle };
	cleanup_free char *text = show(&opts);
	const char *tree = find(text, "Processes\n");

	assert_ptr_equal(find(tree, "  100 bash start_app.sh  [exit 1]\n"), tree + 10);
	assert_true(find(tree, "    101 python3 webui.py  [exit 1]\n") <
		    find(tree, "      102 curl -sS https://cdn.example.com/model.pth  [exit 0]\n"));
	assert_true(find(tree, "      102 curl") <
		    find(tree, "    103 sh -c fetch  [killed by SIGKILL]\n"));
}

/* Failed processes first, the first to fail ahead; then the others, latest first. */
static void test_show_failure_groups_order(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle };
	cleanup_free char *text = show(&opts);
	const char *sect = find(text, "Failed calls\n");
	const char *g100 = find(sect, "pid 100 (bash start_app.sh), exit 1, 1 failed\n");
	const char *g101 = find(sect, "pid 101 (python3 webui.py), exit 1, 12 failed\n");
	const char *g103 = find(sect, "pid 103 (sh -c fetch), killed by SIGKILL, 3 failed\n");
	const char *g102 = find(
		sect, "pid 102 (curl -sS https://cdn.example.com/model.pth), exit 0, 1 failed\n");

	assert_true(g103 < g101);
	assert_true(g101 < g100);
	assert_true(g100 < g102);
	find(g100, "\n  openat /srv/app/.env O_RDONLY -> ENOENT\n");
	find(g102, "\n  openat /etc/curlrc O_RDONLY -> ENOENT\n");
}

/* Newest first, ten at most, and the count of the rest. */
static void test_show_failures_newest_first_capped(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle };
	cleanup_free char *text = show(&opts);
	const char *g101 = find(text, "pid 101 (");
	const char *g100 = find(text, "pid 100 (");
	const char *first = find(
		g101, "\n  openat /srv/app/cache_hub/model_11.pth O_RDONLY|O_CLOEXEC -> ENOENT\n");
	const char *last = find(
		g101, "\n  openat /srv/app/cache_hub/model_2.pth O_RDONLY|O_CLOEXEC -> ENOENT\n");
	const char *more = find(g101, "\n  ... 2 more\n");

	assert_true(first < last);
	assert_true(last < more);
	assert_true(more < g100);
	assert_null(strstr(text, "model_1.pth"));
	assert_null(strstr(text, "model_0.pth"));
	assert_null(strstr(text, "webui.py O_RDONLY")); /* a successful openat */
	assert_null(strstr(text, "  read")); /* the unfinished call is no failure */
}

static void test_show_connect_lines(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle };
	cleanup_free char *text = show(&opts);
	const char *g103 = find(text, "pid 103 (");
	const char *un = find(g103, "\n  connect /run/app.sock -> ENOENT\n");
	const char *v6 = find(g103, "\n  connect [2001:db8::1]:8443 -> ECONNREFUSED\n");
	const char *v4 = find(g103, "\n  connect 198.51.100.7:443 -> ENETUNREACH\n");

	assert_true(un < v6);
	assert_true(v6 < v4);
}

static void test_show_all(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle, .all = true };
	cleanup_free char *text = show(&opts);

	find(text, "\n  openat /srv/app/cache_hub/model_0.pth O_RDONLY|O_CLOEXEC -> ENOENT\n");
	assert_true(find(text, "model_1.pth") < find(text, "model_0.pth"));
	assert_null(strstr(text, "more\n"));
}

static void test_show_json(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle, .json = true };
	cleanup_free char *text = show(&opts);
	json_error_t jerr;
	cleanup_json json_t *doc = json_loads(text, 0, &jerr);
	json_t *fails, *g;

	assert_non_null(doc);
	assert_string_equal(bndl_json_str(json_object_get(doc, "manifest"), "format"),
			    "repro-bundle");
	assert_int_equal(json_array_size(json_object_get(doc, "processes")), 4);
	fails = json_object_get(doc, "failures");
	assert_int_equal(json_array_size(fails), 4);
	assert_int_equal(bndl_json_int(json_array_get(fails, 0), "pid", 0), 103);
	g = json_array_get(fails, 1);
	assert_int_equal(bndl_json_int(g, "pid", 0), 101);
	assert_int_equal(bndl_json_int(g, "total", 0), 12);
	assert_int_equal(json_array_size(json_object_get(g, "events")), 10);
	assert_string_equal(bndl_json_str(json_array_get(json_object_get(g, "events"), 0), "path"),
			    "/srv/app/cache_hub/model_11.pth");
	assert_int_equal(bndl_json_int(json_array_get(fails, 2), "pid", 0), 100);
	assert_int_equal(bndl_json_int(json_array_get(fails, 3), "pid", 0), 102);
}

static void test_show_trace(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle, .trace = true, .json = true };
	cleanup_free char *text = show(&opts);

	assert_true(strncmp(text,
			    "100  openat(\"/srv/app/.env\") = -1 ENOENT\n100  read(\"\") = 12\n",
			    58) == 0);
}

static void test_show_color(void **state)
{
	struct fixture *fx = *state;
	struct rpl_show_opts opts = { .bundle_path = fx->bundle, .color = true };
	cleanup_free char *text = show(&opts);

	assert_true(strncmp(text, "\033[1mRun\033[0m\n", 12) == 0);
	find(text, "\033[1mFailed calls\033[0m\n");
	find(text, "  connect 198.51.100.7:443 -> \033[31mENETUNREACH\033[0m\n");
}

static void test_show_missing_bundle(void **state)
{
	struct fixture *fx = *state;
	cleanup_free char *path = repro_xasprintf("%s/absent.repro", fx->dir);
	struct rpl_show_opts opts = { .bundle_path = path };
	cleanup_err struct repro_err *err = NULL;

	assert_int_equal(rpl_show_run(&opts, stdout, &err), -1);
	assert_int_equal(err->errnum, ENOENT);
	assert_non_null(strstr(err->msg, path));
}

/*
 * A spool of the one process that exec'd argv, as the launcher runs the
 * recorded command: the manifest's argv is its first exec's (the readers
 * refuse a bundle where they differ).
 */
static void write_command_spool(const char *dir, char *const *argv)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp = NULL;
	char *nul = NULL;
	size_t len = 0;

	for (size_t i = 0; argv[i] != NULL; i++) {
		size_t n = strlen(argv[i]) + 1;

		nul = repro_xrealloc(nul, len + n);
		memcpy(nul + len, argv[i], n);
		len += n;
	}
	assert_int_equal(mkdir(dir, 0700), 0);
	sp = bndl_spool_open(dir, &err);
	assert_non_null(sp);
	fx_proc_start(sp, 100, 0, 0, false);
	fx_proc_exec(sp, 100, 100, "/bin/sh", nul, (uint32_t)len);
	fx_proc_exit(sp, 100, 1000, 1 << 8);
	assert_int_equal(bndl_spool_close(sp, &err), 0);
	free(nul);
}

/* Words that sh would split or interpret are quoted; control characters are escaped. */
static void test_show_quotes_command(void **state)
{
	struct fixture *fx = *state;
	static char *const argv[] = { "sh", "-c", "echo 'hi' there", "", "\033[2J", NULL };
	cleanup_free char *spool = repro_xasprintf("%s/q.spool", fx->dir);
	cleanup_free char *out = repro_xasprintf("%s/q.repro", fx->dir);
	struct bndl_run_info run = fx_run_info();
	cleanup_err struct repro_err *err = NULL;
	struct rpl_show_opts opts = { .bundle_path = out };
	cleanup_free char *text = NULL;

	write_command_spool(spool, argv);
	run.argv = argv;
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	text = show(&opts);
	find(text, "  command   sh -c 'echo '\\''hi'\\'' there' '' '\\x1b[2J'\n");
}

/* A command line of 3,000 words of 1,000 bytes: the line stops after 4 KiB and counts the rest. */
static void test_show_cuts_long_command(void **state)
{
	struct fixture *fx = *state;
	char **argv = repro_xcalloc(3001, sizeof(*argv));
	cleanup_free char *word = repro_xmalloc(1001);
	cleanup_free char *spool = repro_xasprintf("%s/long.spool", fx->dir);
	cleanup_free char *out = repro_xasprintf("%s/long.repro", fx->dir);
	struct bndl_run_info run = fx_run_info();
	cleanup_err struct repro_err *err = NULL;
	struct rpl_show_opts opts = { .bundle_path = out };
	cleanup_free char *text = NULL;
	const char *line, *end;

	memset(word, 'a', 1000);
	word[1000] = '\0';
	for (size_t i = 0; i < 3000; i++)
		argv[i] = word;
	write_command_spool(spool, argv);
	run.argv = argv;
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	text = show(&opts);
	line = strstr(text, "  command   ");
	assert_non_null(line);
	end = strchr(line, '\n');
	assert_non_null(end);
	assert_true(end - line < 6 * 1024);
	find(text, " ...[2995 more words]\n");
	free(argv);
}

/* A bundle of a run whose disk filled (fx_full_spool()), or whose spool was cut short. */
static char *pack_incomplete(const char *dir, bool is_cut)
{
	cleanup_free char *spool = NULL;
	cleanup_free char *file = NULL;
	char *out = repro_xasprintf("%s/incomplete.repro", dir);
	struct bndl_run_info run = fx_run_info();
	cleanup_err struct repro_err *err = NULL;
	uint64_t nfailed;
	struct stat st;

	if (is_cut) {
		spool = repro_xasprintf("%s/cut.spool", dir);
		file = repro_xasprintf("%s/events.spool", spool);
		assert_int_equal(mkdir(spool, 0700), 0);
		fx_write_scenario(spool, &nfailed);
		assert_int_equal(stat(file, &st), 0);
		assert_int_equal(truncate(file, st.st_size - 3), 0);
	} else {
		spool = fx_full_spool(dir, true, ENOSPC);
	}
	assert_int_equal(bndl_pack(spool, &run, fx_render_ops(), out, &err), 0);
	return out;
}

/* An incomplete bundle says so in the first line of the summary. */
static void test_show_incomplete(void **state)
{
	static const char want[] = "Incomplete bundle: 40 events after 0.00 s were not recorded "
				   "(ENOSPC: the spool's filesystem was full); processes and exit "
				   "statuses are complete\nRun\n";
	struct fixture *fx = *state;
	cleanup_free char *full = pack_incomplete(fx->dir, false);
	struct rpl_show_opts opts = { .bundle_path = full };
	cleanup_free char *text = show(&opts);

	assert_true(strncmp(text, want, sizeof(want) - 1) == 0);
	unlink(full);
	free(steal_ptr(&text));
	{
		cleanup_free char *cut = pack_incomplete(fx->dir, true);

		opts.bundle_path = cut;
		text = show(&opts);
		assert_true(strncmp(text, "Incomplete bundle: the spool was cut short", 42) == 0);
	}
	opts.bundle_path = fx->bundle;
	free(steal_ptr(&text));
	text = show(&opts);
	assert_null(strstr(text, "Incomplete"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_show_run_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_process_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_failure_groups_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_failures_newest_first_capped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_show_connect_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_cuts_long_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_color, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_missing_bundle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_quotes_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_incomplete, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
