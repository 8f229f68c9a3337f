/*
 * Unit tests of common/term.h: what a terminal could obey is escaped,
 * valid UTF-8 passes, and a sequence cut between two writes is whole.
 */
#include "common/term.h"
#include "common/cleanup.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* What repro_term_write() makes of n bytes of s (a new string). */
static char *sanitised(const char *s, size_t n, bool keep_lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(repro_term_write(f, s, n, keep_lines, false), n);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect(const char *in, size_t n, bool keep_lines, const char *want)
{
	cleanup_free char *got = sanitised(in, n, keep_lines);

	assert_string_equal(got, want);
}

static void test_term_controls_escaped(void **state)
{
	(void)state;
	expect("a\x1b[31mred", 9, false, "a\\x1b[31mred"); /* ESC sequence */
	expect("x\x07y\x7f", 4, false, "x\\x07y\\x7f"); /* BEL, DEL */
	expect("l1\nl2\t.", 7, false, "l1\\x0al2\\x09.");
	expect("l1\nl2\t.", 7, true, "l1\nl2\t.");
	expect("\xc2\x9b"
	       "2J",
	       4, false, "\\u009b2J"); /* CSI as UTF-8 U+009B */
	expect("\xc2\x9d"
	       "0;t\x07",
	       6, false, "\\u009d0;t\\x07"); /* OSC */
	expect("\x9b"
	       "2J",
	       3, false, "\\x9b2J"); /* a raw C1 byte: not UTF-8 */
	expect("\xc0\xaf", 2, false, "\\xc0\\xaf"); /* overlong '/' */
	expect("\xed\xa0\x80", 3, false, "\\xed\\xa0\\x80"); /* a surrogate */
	expect("\xe2\x82", 2, false, "\\xe2\\x82"); /* cut at the end, nothing follows */
}

static void test_term_utf8_passes(void **state)
{
	(void)state;
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0", 17, false,
	       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\xa0");
}

static void test_term_sequence_across_writes(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char first[] = "ab\xe2\x82", second[] = "\xac!";
	char joined[8];

	(void)state;
	assert_non_null(f);
	/* with more, the incomplete euro sign is left for the next write */
	assert_int_equal(repro_term_write(f, first, 4, true, true), 2);
	memcpy(joined, first + 2, 2);
	memcpy(joined + 2, second, 2);
	assert_int_equal(repro_term_write(f, joined, 4, true, false), 4);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "ab\xe2\x82\xac!");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_controls_escaped),
		cmocka_unit_test(test_term_utf8_passes),
		cmocka_unit_test(test_term_sequence_across_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
