/*
 * Unit tests of recorder/dns.h and recorder/socks.h: DNS messages built by
 * hand (RFC 1035 4.1) including compression, a CNAME, cut and hostile
 * messages; and the watched-socket set under inserts, updates and removals.
 */
#include "recorder/dns.h"
#include "recorder/socks.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct msg {
	uint8_t b[512];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	assert_true(m->n + n <= sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put16(struct msg *m, unsigned v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(m, b, 2);
}

static void put_name(struct msg *m, const char *dotted)
{
	while (*dotted) {
		const char *dot = strchr(dotted, '.');
		size_t len = dot ? (size_t)(dot - dotted) : strlen(dotted);
		uint8_t l = (uint8_t)len;

		put(m, &l, 1);
		put(m, dotted, len);
		dotted += len + (dot ? 1 : 0);
	}
	put(m, "", 1);
}

static void header(struct msg *m, unsigned id, unsigned flags, unsigned an)
{
	put16(m, id);
	put16(m, flags);
	put16(m, 1);
	put16(m, an);
	put16(m, 0);
	put16(m, 0);
}

static void question(struct msg *m, const char *name, unsigned type)
{
	put_name(m, name);
	put16(m, type);
	put16(m, 1);
}

/* An answer whose owner is a pointer to the question name (offset 12). */
static void answer(struct msg *m, unsigned type, const void *rdata, size_t len)
{
	put16(m, 0xc000 | 12);
	put16(m, type);
	put16(m, 1);
	put16(m, 0);
	put16(m, 60);
	put16(m, (unsigned)len);
	put(m, rdata, len);
}

static void test_query(void **state)
{
	struct msg m = { .n = 0 };
	struct rec_dns_msg d;

	header(&m, 0x1234, 0x0100, 0);
	question(&m, "example.test", 28);
	assert_int_equal(rec_dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(d.id, 0x1234);
	assert_false(d.response);
	assert_true(d.has_question);
	assert_string_equal(d.name, "example.test");
	assert_int_equal(d.qtype, 28);
	rec_dns_msg_release(&d);
}

static void test_answer_with_cname(void **state)
{
	struct msg m = { .n = 0 };
	struct rec_dns_msg d;
	uint8_t ip[4] = { 192, 0, 2, 7 }, target[32];
	struct msg t = { .n = 0 };

	put_name(&t, "real.test");
	memcpy(target, t.b, t.n);
	header(&m, 7, 0x8180, 2);
	question(&m, "alias.test", 1);
	answer(&m, 5, target, t.n);
	answer(&m, 1, ip, sizeof(ip));
	assert_int_equal(rec_dns_parse(m.b, m.n, &d), 0);
	assert_true(d.response);
	assert_int_equal(d.rcode, 0);
	assert_string_equal(d.name, "alias.test");
	assert_int_equal(json_array_size(d.answers), 1);
	assert_string_equal(json_string_value(json_array_get(d.answers, 0)), "192.0.2.7");
	assert_string_equal(json_string_value(json_array_get(d.cnames, 0)), "real.test");
	rec_dns_msg_release(&d);
}

static void test_nxdomain_and_names(void **state)
{
	struct msg m = { .n = 0 };
	struct rec_dns_msg d;
	char buf[32];

	header(&m, 9, 0x8183, 0);
	question(&m, "missing.test", 1);
	assert_int_equal(rec_dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(d.rcode, 3);
	assert_string_equal(rec_dns_rcode_name(d.rcode, buf, sizeof(buf)), "NXDOMAIN");
	assert_int_equal(json_array_size(d.answers), 0);
	rec_dns_msg_release(&d);
	assert_string_equal(rec_dns_type_name(28, buf, sizeof(buf)), "AAAA");
	assert_string_equal(rec_dns_type_name(65280, buf, sizeof(buf)), "TYPE65280");
	assert_string_equal(rec_dns_rcode_name(12, buf, sizeof(buf)), "RCODE12");
}

static void test_hostile(void **state)
{
	struct msg m = { .n = 0 };
	struct rec_dns_msg d;
	uint8_t loop[2] = { 0xc0, 12 };

	/* too short to be DNS */
	assert_int_equal(rec_dns_parse((const uint8_t *)"abc", 3, &d), -1);
	/* a name that points at itself: header only */
	header(&m, 5, 0x8180, 1);
	put(&m, loop, sizeof(loop));
	put16(&m, 1);
	put16(&m, 1);
	assert_int_equal(rec_dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(d.id, 5);
	assert_false(d.has_question);
	rec_dns_msg_release(&d);
	/* cut in the middle of an answer: the question is kept, no answer */
	m.n = 0;
	header(&m, 6, 0x8180, 1);
	question(&m, "cut.test", 1);
	put16(&m, 0xc00c);
	put16(&m, 1);
	assert_int_equal(rec_dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(d.id, 6);
	assert_int_equal(json_array_size(d.answers), 0);
	rec_dns_msg_release(&d);
	/* an A record with a wrong length is not an address */
	m.n = 0;
	header(&m, 8, 0x8180, 1);
	question(&m, "odd.test", 1);
	answer(&m, 1, "\x01\x02\x03", 3);
	assert_int_equal(rec_dns_parse(m.b, m.n, &d), 0);
	assert_int_equal(json_array_size(d.answers), 0);
	rec_dns_msg_release(&d);
}

static void test_socks(void **state)
{
	struct rec_socks s = { 0 };

	assert_int_equal(rec_socks_get(&s, 1, 3), 0);
	rec_socks_set(&s, 1, 3, 0); /* removing from an empty set */
	for (int32_t fd = 0; fd < 5000; fd++)
		rec_socks_set(&s, 100 + fd % 7, fd, REC_SOCK_DNS);
	assert_int_equal(s.n, 5000);
	rec_socks_set(&s, 100 + 42 % 7, 42, REC_SOCK_DNS | REC_SOCK_PENDING);
	assert_int_equal(rec_socks_get(&s, 100 + 42 % 7, 42), REC_SOCK_DNS | REC_SOCK_PENDING);
	/* remove every other entry; the rest must still be found (backward-shift deletion) */
	for (int32_t fd = 0; fd < 5000; fd += 2)
		rec_socks_set(&s, 100 + fd % 7, fd, 0);
	assert_int_equal(s.n, 2500);
	for (int32_t fd = 0; fd < 5000; fd++)
		assert_int_equal(rec_socks_get(&s, 100 + fd % 7, fd), fd % 2 ? REC_SOCK_DNS : 0);
	assert_int_equal(rec_socks_get(&s, 999, 1), 0);
	rec_socks_release(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_answer_with_cname),
		cmocka_unit_test(test_nxdomain_and_names),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_socks),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
