/*
 * Unit tests of common/term.h: what a terminal could obey is escaped,
 * valid UTF-8 passes, a sequence cut between two writes is whole, and the
 * HTML variant leaves no markup.
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

/* What repro_term_puts_html() makes of s (a new string). */
static char *as_html(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	repro_term_puts_html(f, s, 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_term_html_is_text(void **state)
{
	cleanup_free char *markup = as_html("<script>a('x')&\"b\"</script>");
	cleanup_free char *attr = as_html("\" onmouseover=\"alert(1)");
	cleanup_free char *ctl = as_html("\x1b]0;t\x07 \xc2\x9b \xff \xe2\x82\xac");
	cleanup_free char *none = as_html(NULL);

	(void)state;
	assert_string_equal(markup,
			    "&lt;script&gt;a(&#39;x&#39;)&amp;&quot;b&quot;&lt;/script&gt;");
	assert_string_equal(attr, "&quot; onmouseover=&quot;alert(1)");
	/* the terminal escapes first: controls and bad bytes visible, UTF-8 kept */
	assert_string_equal(ctl, "\\x1b]0;t\\x07 \\u009b \\xff \xe2\x82\xac");
	assert_string_equal(none, "");
}

static void test_term_bidi_escaped(void **state)
{
	/* "/tmp/<RLO>txt.hs" would show as "/tmp/sh.txt" */
	const char rlo[] = "/tmp/\xe2\x80\xaetxt.hs \xe2\x81\xa6x\xe2\x81\xa9 \xd8\x9c";
	cleanup_free char *html = as_html(rlo);

	(void)state;
	expect(rlo, sizeof(rlo) - 1, false, "/tmp/\\u202etxt.hs \\u2066x\\u2069 \\u061c");
	assert_string_equal(html, "/tmp/\\u202etxt.hs \\u2066x\\u2069 \\u061c");
	/* other characters of those blocks pass: an en dash, an Arabic letter */
	expect("\xe2\x80\x93 \xd8\xa8", 6, false, "\xe2\x80\x93 \xd8\xa8");
}

static void test_term_html_cut(void **state)
{
	char *big = malloc(REPRO_TERM_CUT + 100);
	cleanup_free char *got = NULL;

	(void)state;
	assert_non_null(big);
	memset(big, '<', REPRO_TERM_CUT + 99);
	big[REPRO_TERM_CUT + 99] = '\0';
	got = as_html(big);
	/* every kept '<' is a reference, then the length the string had */
	assert_int_equal(strlen(got), (size_t)REPRO_TERM_CUT * 4 + strlen("...[4195 bytes]"));
	assert_non_null(strstr(got, "...[4195 bytes]"));
	free(big);
}

/* What repro_term_quote() makes of s (a new string). */
static char *quoted(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	repro_term_quote(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect_quoted(const char *in, const char *want)
{
	cleanup_free char *got = quoted(in);

	assert_string_equal(got, want);
}

/* A word as a shell reads it back: bare, single-quoted, or $'...' with every other byte as \xNN. */
static void test_term_quote_words(void **state)
{
	cleanup_free char *spaces = malloc(5001);
	cleanup_free char *got = NULL;

	(void)state;
	expect_quoted("start_app.sh", "start_app.sh");
	expect_quoted("--url=http://h:80/a,b@c%2", "--url=http://h:80/a,b@c%2");
	expect_quoted("", "''");
	expect_quoted("a b;rm -rf ~", "'a b;rm -rf ~'");
	expect_quoted("it's", "$'it\\'s'");
	expect_quoted("a\\b", "'a\\b'");
	expect_quoted("a\033[2Jb", "$'a\\x1b[2Jb'");
	expect_quoted("x\ny", "$'x\\x0ay'");
	/* a bidirectional override and a non-ASCII letter: every byte visible */
	expect_quoted("\xe2\x80\xaeoof", "$'\\xe2\\x80\\xaeoof'");
	expect_quoted("caf\xc3\xa9", "$'caf\\xc3\\xa9'");
	/* never cut */
	memset(spaces, ' ', 5000);
	spaces[5000] = '\0';
	got = quoted(spaces);
	assert_int_equal(strlen(got), 5002);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_controls_escaped),
		cmocka_unit_test(test_term_utf8_passes),
		cmocka_unit_test(test_term_sequence_across_writes),
		cmocka_unit_test(test_term_html_is_text),
		cmocka_unit_test(test_term_html_cut),
		cmocka_unit_test(test_term_bidi_escaped),
		cmocka_unit_test(test_term_quote_words),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
