/*
 * Unit tests of recorder/waits.h: waits written to a spool by hand and
 * waits.jsonl read back.  A read on a pipe with the holders of its other
 * end, one cut short, and a record of an older spool whose wait info ends
 * before other_end.
 */
#include "recorder/waits.h"
#include "bundles/spool.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

struct fixture {
	char dir[64];
	struct bndl_spool *sp;
};

static int setup(void **state)
{
	struct fixture *fx = repro_xcalloc(1, sizeof(*fx));
	cleanup_err struct repro_err *err = NULL;

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/repro-waits-XXXXXX");
	if (mkdtemp(fx->dir) == NULL || (fx->sp = bndl_spool_open(fx->dir, &err)) == NULL)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char path[128];

	bndl_spool_close(fx->sp, NULL);
	snprintf(path, sizeof(path), "%s/events.spool", fx->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/waits.jsonl", fx->dir);
	unlink(path);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

/* waits.jsonl of the spool, as an array (owned by the caller). */
static json_t *run(struct fixture *fx)
{
	cleanup_err struct repro_err *err = NULL;
	char out[128], line[4096];
	json_t *all = json_array();
	FILE *f;

	assert_int_equal(bndl_spool_flush(fx->sp, &err), 0);
	snprintf(out, sizeof(out), "%s/waits.jsonl", fx->dir);
	assert_int_equal(rec_waits_write(fx->dir, out, &err), 0);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		json_array_append_new(all, json_loads(line, 0, NULL));
	fclose(f);
	return all;
}

/* A read of pid 10 on fd 0, a pipe, for 2 s. */
static struct lnch_wait pipe_read(void)
{
	struct lnch_wait w = { .tid = 10, .pid = 10, .dur_ns = 2000000000, .nfds = 1 };

	w.nr = seccomp_syscall_resolve_name("read");
	w.fds[0].fd = 0;
	snprintf(w.fds[0].link, sizeof(w.fds[0].link), "pipe:[77]");
	w.fds[0].end_flags = LNCH_WAIT_END_LOOKED;
	return w;
}

static void append(struct fixture *fx, const struct lnch_wait *w, size_t info_len)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_wait_info info;
	struct bndl_event ev;

	rec_wait_event(w, &info, &ev);
	ev.blobs[0].len = (uint32_t)info_len; /* the BNDL_BLOB_STRUCT comes first */
	assert_int_equal(bndl_spool_append(fx->sp, &ev, &err), 0);
}

static json_t *fd0(json_t *all, size_t i)
{
	return json_array_get(json_object_get(json_array_get(all, i), "fds"), 0);
}

static void test_pipe_other_end(void **state)
{
	struct fixture *fx = *state;
	struct lnch_wait w = pipe_read();
	json_t *all, *d, *h;

	w.fds[0].nholders = 1;
	w.fds[0].holders[0] = (struct lnch_wait_holder){ .pid = 4242, .fd = 1 };
	append(fx, &w, sizeof(struct bndl_wait_info));
	w.fds[0].end_flags |= LNCH_WAIT_END_WRITE | LNCH_WAIT_END_MORE;
	w.fds[0].nholders = LNCH_WAIT_HOLDERS;
	append(fx, &w, sizeof(struct bndl_wait_info));
	w.fds[0].end_flags = LNCH_WAIT_END_LOOKED | LNCH_WAIT_END_FDS_CUT;
	w.fds[0].nholders = 0;
	append(fx, &w, sizeof(struct bndl_wait_info));
	append(fx, &w, BNDL_WAIT_INFO_V1_SIZE); /* an older spool */
	all = run(fx);
	assert_int_equal(json_array_size(all), 4);
	d = fd0(all, 0);
	assert_string_equal(json_string_value(json_object_get(d, "pipe_end")), "read");
	assert_int_equal(json_array_size(json_object_get(d, "other_end")), 1);
	h = json_array_get(json_object_get(d, "other_end"), 0);
	assert_int_equal(json_integer_value(json_object_get(h, "pid")), 4242);
	assert_int_equal(json_integer_value(json_object_get(h, "fd")), 1);
	assert_null(json_object_get(d, "other_end_cut"));
	d = fd0(all, 1);
	assert_string_equal(json_string_value(json_object_get(d, "pipe_end")), "write");
	assert_int_equal(json_array_size(json_object_get(d, "other_end")), LNCH_WAIT_HOLDERS);
	assert_string_equal(json_string_value(json_object_get(d, "other_end_cut")), "holders");
	d = fd0(all, 2);
	assert_int_equal(json_array_size(json_object_get(d, "other_end")), 0);
	assert_true(json_is_array(json_object_get(d, "other_end")));
	assert_string_equal(json_string_value(json_object_get(d, "other_end_cut")), "fds");
	/* the older record: the fd as before, nothing of its other end */
	d = fd0(all, 3);
	assert_string_equal(json_string_value(json_object_get(d, "kind")), "pipe");
	assert_null(json_object_get(d, "pipe_end"));
	assert_null(json_object_get(d, "other_end"));
	json_decref(all);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pipe_other_end, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
