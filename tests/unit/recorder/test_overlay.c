/*
 * Unit tests of recorder/overlay.h: upper and lower layers made by hand
 * (a whiteout is a character device 0/0, which anyone may make since Linux
 * 5.8; an opaque directory carries user.overlay.opaque=y) and overlay.jsonl
 * read back.
 */
#include "recorder/overlay.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

struct fixture {
	char dir[64];
	char lower[96], upper[96], out[96];
};

static void put(const char *dir, const char *rel, const char *text)
{
	cleanup_free char *path = repro_xasprintf("%s/%s", dir, rel);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mk(const char *dir, const char *rel)
{
	cleanup_free char *path = repro_xasprintf("%s/%s", dir, rel);

	assert_int_equal(mkdir(path, 0755), 0);
}

/* A copy-up that changed nothing: same mode, size and mtime as the lower entry. */
static void copy_unchanged(const struct fixture *fx, const char *rel, const char *text)
{
	cleanup_free char *l = repro_xasprintf("%s/%s", fx->lower, rel);
	cleanup_free char *u = repro_xasprintf("%s/%s", fx->upper, rel);
	struct stat st;
	struct timespec ts[2];

	put(fx->upper, rel, text);
	assert_int_equal(stat(l, &st), 0);
	assert_int_equal(chmod(u, st.st_mode & 07777), 0);
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, u, ts, 0), 0);
}

/*
 * lower: a, b, d/{1,2}, same; upper: a whiteout, b rewritten, d opaque with
 * d/3, new/f, same copied up unchanged, a whiteout of nothing below.
 */
static int setup(void **state)
{
	struct fixture *fx = repro_xcalloc(1, sizeof(*fx));
	cleanup_free char *wo = NULL, *wo2 = NULL, *d = NULL;

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/repro-ovl-XXXXXX");
	if (mkdtemp(fx->dir) == NULL)
		return -1;
	snprintf(fx->lower, sizeof(fx->lower), "%s/lower", fx->dir);
	snprintf(fx->upper, sizeof(fx->upper), "%s/upper", fx->dir);
	snprintf(fx->out, sizeof(fx->out), "%s/overlay.jsonl", fx->dir);
	mkdir(fx->lower, 0755);
	mkdir(fx->upper, 0755);
	put(fx->lower, "a", "aaa");
	put(fx->lower, "b", "b");
	mk(fx->lower, "d");
	put(fx->lower, "d/1", "1");
	put(fx->lower, "d/2", "2");
	put(fx->lower, "same", "same");
	*state = fx;
	wo = repro_xasprintf("%s/a", fx->upper);
	wo2 = repro_xasprintf("%s/gone", fx->upper);
	if (mknod(wo, S_IFCHR | 0, makedev(0, 0)) < 0 || mknod(wo2, S_IFCHR | 0, makedev(0, 0)) < 0)
		return 0; /* the test skips */
	put(fx->upper, "b", "bbbbb");
	mk(fx->upper, "d");
	put(fx->upper, "d/3", "3");
	mk(fx->upper, "new");
	put(fx->upper, "new/f", "ff");
	copy_unchanged(fx, "same", "same");
	d = repro_xasprintf("%s/d", fx->upper);
	if (setxattr(d, "user.overlay.opaque", "y", 1, 0) < 0)
		unlink(wo); /* the test skips */
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	cleanup_free char *cmd = repro_xasprintf("rm -rf '%s'", fx->dir);

	(void)!system(cmd);
	free(fx);
	return 0;
}

static bool ready(const struct fixture *fx)
{
	cleanup_free char *wo = repro_xasprintf("%s/a", fx->upper);
	struct stat st;

	return lstat(wo, &st) == 0;
}

/* overlay.jsonl as "change type rel size" lines, joined by '\n'. */
static char *summary(const struct fixture *fx)
{
	json_error_t jerr;
	FILE *f = fopen(fx->out, "r");
	struct repro_sbuf b = { 0 };
	json_t *o;

	assert_non_null(f);
	while ((o = json_loadf(f, JSON_DISABLE_EOF_CHECK, &jerr)) != NULL) {
		const char *path = json_string_value(json_object_get(o, "path"));
		cleanup_free char *line = NULL;

		assert_string_equal(json_string_value(json_object_get(o, "root")), fx->lower);
		line = repro_xasprintf(
			"%s %s %s %lld\n", json_string_value(json_object_get(o, "change")),
			json_string_value(json_object_get(o, "type")), path + strlen(fx->lower) + 1,
			(long long)json_integer_value(json_object_get(o, "size")));
		repro_sbuf_adds(&b, line);
		json_decref(o);
	}
	fclose(f);
	return b.buf != NULL ? b.buf : repro_xstrdup("");
}

static void test_overlay_changes(void **state)
{
	struct fixture *fx = *state;
	struct rec_overlay_root root = { .path = fx->lower, .upper = fx->upper };
	struct rec_overlay_stats st = { 0 };
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *got = NULL;

	if (!ready(fx))
		skip();
	assert_int_equal(rec_overlay_write(&root, 1, 0, fx->out, &st, &err), 0);
	got = summary(fx);
	/* sorted per directory; below the opaque d, what it no longer has comes last */
	assert_string_equal(got, "deleted file a 3\n"
				 "modified file b 5\n"
				 "created file d/3 1\n"
				 "deleted file d/1 1\n"
				 "deleted file d/2 1\n"
				 "created dir new 0\n"
				 "created file new/f 2\n");
	assert_int_equal(st.changes, 7);
	assert_false(st.is_truncated);
}

static void test_overlay_limit(void **state)
{
	struct fixture *fx = *state;
	struct rec_overlay_root root = { .path = fx->lower, .upper = fx->upper };
	struct rec_overlay_stats st = { 0 };
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *got = NULL;

	if (!ready(fx))
		skip();
	assert_int_equal(rec_overlay_write(&root, 1, 2, fx->out, &st, &err), 0);
	got = summary(fx);
	assert_string_equal(got, "deleted file a 3\nmodified file b 5\n");
	assert_int_equal(st.changes, 2);
	assert_true(st.is_truncated);
}

static void test_overlay_missing_upper(void **state)
{
	struct fixture *fx = *state;
	cleanup_free char *nowhere = repro_xasprintf("%s/nowhere", fx->dir);
	struct rec_overlay_root root = { .path = fx->lower, .upper = nowhere };
	struct rec_overlay_stats st = { 0 };
	cleanup_err struct repro_err *err = NULL;

	assert_int_equal(rec_overlay_write(&root, 1, 0, fx->out, &st, &err), -1);
	assert_non_null(err);
	assert_int_equal(err->errnum, ENOENT);
	assert_non_null(strstr(err->msg, nowhere));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_overlay_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlay_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlay_missing_upper, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
