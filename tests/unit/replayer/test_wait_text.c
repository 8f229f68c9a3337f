/*
 * Unit tests of the words for waits.jsonl records (replayer/readers/wait_text.h):
 * a wait on a pipe and who holds its other end.
 */
#include "replayer/readers/wait_text.h"

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Labels of the test's processes: 4242 is sleep, 4243 a shell, others unknown. */
static const char *label(void *ctx, int64_t pid)
{
	(void)ctx;
	return pid == 4242 ? "sleep 30" : pid == 4243 ? "sh -c x" : NULL;
}

static const struct rpl_wait_names names = { .label = label, .ctx = NULL };

/* rpl_wait_put_on of the record made of the waits.jsonl line s, freed by the caller. */
static char *on(const char *s, const struct rpl_wait_names *n)
{
	json_t *w = json_loads(s, 0, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(w);
	assert_non_null(f);
	rpl_wait_put_on(f, w, n);
	fclose(f);
	json_decref(w);
	return buf;
}

/* A read on a pipe with fds entry d (JSON) of pid 10. */
static char *read_on(const char *d, const struct rpl_wait_names *n)
{
	char s[512];

	snprintf(s, sizeof(s),
		 "{\"pid\":10,\"tid\":10,\"syscall\":\"read\",\"what\":\"read\",\"nfds\":1,"
		 "\"fds\":[%s]}",
		 d);
	return on(s, n);
}

static void expect(char *got, const char *want)
{
	assert_string_equal(got, want);
	free(got);
}

static void test_pipe_writers(void **state)
{
	(void)state;
	expect(read_on("{\"fd\":0,\"kind\":\"pipe\",\"link\":\"pipe:[5]\",\"pipe_end\":\"read\","
		       "\"other_end\":[{\"pid\":4242,\"fd\":1}]}",
		       &names),
	       "for data on a pipe from pid 4242 (sleep 30) (read)");
	/* without names, and a process names does not know */
	expect(read_on("{\"fd\":0,\"kind\":\"pipe\",\"link\":\"pipe:[5]\",\"pipe_end\":\"read\","
		       "\"other_end\":[{\"pid\":4242,\"fd\":1}]}",
		       NULL),
	       "for data on a pipe from pid 4242 (read)");
	expect(read_on("{\"fd\":0,\"kind\":\"pipe\",\"pipe_end\":\"read\",\"other_end\":["
		       "{\"pid\":4243,\"fd\":1},{\"pid\":10,\"fd\":4},{\"pid\":4242,\"fd\":1},"
		       "{\"pid\":77,\"fd\":9}]}",
		       &names),
	       "for data on a pipe from pid 4243 (sh -c x), pid 4242 (sleep 30) and pid 77 "
	       "(read)");
	expect(read_on("{\"fd\":0,\"kind\":\"pipe\",\"pipe_end\":\"read\",\"other_end\":["
		       "{\"pid\":4243,\"fd\":1},{\"pid\":4242,\"fd\":1}],"
		       "\"other_end_cut\":\"holders\"}",
		       &names),
	       "for data on a pipe from pid 4243 (sh -c x), pid 4242 (sleep 30) and others "
	       "(read)");
}

static void test_pipe_nobody(void **state)
{
	(void)state;
	expect(read_on("{\"fd\":0,\"kind\":\"pipe\",\"pipe_end\":\"read\",\"other_end\":[]}",
		       &names),
	       "for data on a pipe whose writer is outside the recording (read)");
	expect(read_on("{\"fd\":3,\"kind\":\"pipe\",\"pipe_end\":\"read\","
		       "\"other_end\":[{\"pid\":10,\"fd\":4}]}",
		       &names),
	       "for data on a pipe nobody else holds open (its own fd 4 is the write end) "
	       "(read)");
	expect(read_on("{\"fd\":0,\"kind\":\"pipe\",\"pipe_end\":\"read\",\"other_end\":[],"
		       "\"other_end_cut\":\"fds\"}",
		       &names),
	       "for data on a pipe whose writer was not found (a process had over 1024 fds) "
	       "(read)");
	/* a bundle made before other_end */
	expect(read_on("{\"fd\":0,\"kind\":\"pipe\",\"link\":\"pipe:[5]\"}", &names),
	       "for data on a pipe (fd 0, pipe:[5]) (read)");
}

/* poll on a pipe's write end: the readers. */
static void test_pipe_readers(void **state)
{
	(void)state;
	expect(on("{\"pid\":10,\"syscall\":\"poll\",\"what\":\"poll\",\"nfds\":1,\"fds\":["
		  "{\"fd\":1,\"kind\":\"pipe\",\"pipe_end\":\"write\","
		  "\"other_end\":[{\"pid\":4242,\"fd\":0}]}]}",
		  &names),
	       "for room on a pipe read by pid 4242 (sleep 30) (poll)");
	expect(on("{\"pid\":10,\"syscall\":\"poll\",\"what\":\"poll\",\"nfds\":1,\"fds\":["
		  "{\"fd\":1,\"kind\":\"pipe\",\"pipe_end\":\"write\",\"other_end\":[]}]}",
		  &names),
	       "for room on a pipe whose reader is outside the recording (poll)");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_writers),
		cmocka_unit_test(test_pipe_nobody),
		cmocka_unit_test(test_pipe_readers),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
