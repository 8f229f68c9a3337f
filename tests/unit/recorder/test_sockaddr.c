/* Unit tests of recorder/sockaddr.h: sockaddr bytes as JSON, strace text and short text. */
#include "recorder/sockaddr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cmocka.h>

/* All three forms of (sa, len) must be exactly json_want (compact, sorted keys), text_want and short_want. */
static void expect_forms(const void *sa, size_t len, const char *json_want, const char *text_want,
			 const char *short_want)
{
	json_t *j = rec_sockaddr_json(sa, len);
	char *dumped;
	char text[256], shrt[128];

	assert_non_null(j);
	dumped = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(dumped);
	assert_string_equal(dumped, json_want);
	free(dumped);
	json_decref(j);
	assert_string_equal(rec_sockaddr_text(sa, len, text, sizeof(text)), text_want);
	assert_string_equal(rec_sockaddr_short(sa, len, shrt, sizeof(shrt)), short_want);
}

static struct sockaddr_in inet4(const char *ip, uint16_t port)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(port) };

	assert_int_equal(inet_pton(AF_INET, ip, &in.sin_addr), 1);
	return in;
}

static void test_sockaddr_inet(void **state)
{
	struct sockaddr_in in = inet4("127.0.0.1", 443);

	expect_forms(&in, sizeof(in), "{\"family\":\"AF_INET\",\"ip\":\"127.0.0.1\",\"port\":443}",
		     "{sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr(\"127.0.0.1\")}",
		     "127.0.0.1:443");
	in = inet4("10.20.30.40", 0);
	expect_forms(&in, sizeof(in), "{\"family\":\"AF_INET\",\"ip\":\"10.20.30.40\",\"port\":0}",
		     "{sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"10.20.30.40\")}",
		     "10.20.30.40:0");
}

static void test_sockaddr_inet6(void **state)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(80) };

	assert_int_equal(inet_pton(AF_INET6, "::1", &in6.sin6_addr), 1);
	expect_forms(&in6, sizeof(in6), "{\"family\":\"AF_INET6\",\"ip\":\"::1\",\"port\":80}",
		     "{sa_family=AF_INET6, sin6_port=htons(80), sin6_addr=inet_pton(\"::1\")}",
		     "[::1]:80");
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::8:800:200c:417a", &in6.sin6_addr), 1);
	in6.sin6_port = htons(65535);
	expect_forms(
		&in6, sizeof(in6),
		"{\"family\":\"AF_INET6\",\"ip\":\"2001:db8::8:800:200c:417a\",\"port\":65535}",
		"{sa_family=AF_INET6, sin6_port=htons(65535), sin6_addr=inet_pton(\"2001:db8::8:800:200c:417a\")}",
		"[2001:db8::8:800:200c:417a]:65535");
}

static void test_sockaddr_unix_path(void **state)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t off = offsetof(struct sockaddr_un, sun_path);

	strcpy(un.sun_path, "/run/x.sock");
	/* the length a program passes for a path: with or without the NUL, or the whole struct */
	expect_forms(&un, off + strlen(un.sun_path) + 1,
		     "{\"family\":\"AF_UNIX\",\"path\":\"/run/x.sock\"}",
		     "{sa_family=AF_UNIX, sun_path=\"/run/x.sock\"}", "/run/x.sock");
	expect_forms(&un, off + strlen(un.sun_path),
		     "{\"family\":\"AF_UNIX\",\"path\":\"/run/x.sock\"}",
		     "{sa_family=AF_UNIX, sun_path=\"/run/x.sock\"}", "/run/x.sock");
	expect_forms(&un, sizeof(un), "{\"family\":\"AF_UNIX\",\"path\":\"/run/x.sock\"}",
		     "{sa_family=AF_UNIX, sun_path=\"/run/x.sock\"}", "/run/x.sock");
}

static void test_sockaddr_unix_path_fills_sun_path(void **state)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char want_json[256], want_text[256], want_short[128];

	/* 108 bytes with no NUL: unix(7) allows it; nothing may be read past sun_path */
	memset(un.sun_path, 'p', sizeof(un.sun_path));
	snprintf(want_json, sizeof(want_json), "{\"family\":\"AF_UNIX\",\"path\":\"%.108s\"}",
		 un.sun_path);
	snprintf(want_text, sizeof(want_text), "{sa_family=AF_UNIX, sun_path=\"%.108s\"}",
		 un.sun_path);
	snprintf(want_short, sizeof(want_short), "%.108s", un.sun_path);
	expect_forms(&un, sizeof(un), want_json, want_text, want_short);
}

static void test_sockaddr_unix_abstract(void **state)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t off = offsetof(struct sockaddr_un, sun_path);

	memcpy(un.sun_path, "\0name", 5);
	expect_forms(&un, off + 5, "{\"abstract\":\"name\",\"family\":\"AF_UNIX\"}",
		     "{sa_family=AF_UNIX, sun_path=@\"name\"}", "@name");
}

static void test_sockaddr_unix_unnamed(void **state)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };

	/* an unnamed socket has only the family (unix(7)) */
	expect_forms(&un, sizeof(sa_family_t), "{\"family\":\"AF_UNIX\",\"path\":\"\"}",
		     "{sa_family=AF_UNIX, sun_path=\"\"}", "");
}

static void test_sockaddr_short_buffers(void **state)
{
	struct sockaddr_in in = inet4("127.0.0.1", 443);
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };

	/* a family but not the whole struct: only the family is decoded */
	expect_forms(&in, sizeof(in) - 1, "{\"family\":\"AF_INET\"}", "{sa_family=AF_INET}",
		     "AF_INET");
	expect_forms(&in6, sizeof(in6) - 4, "{\"family\":\"AF_INET6\"}", "{sa_family=AF_INET6}",
		     "AF_INET6");
	/* not even a family */
	expect_forms(&in, 1, "{\"family\":\"AF_UNSPEC\"}", "{sa_family=AF_UNSPEC}", "AF_UNSPEC");
	expect_forms(&in, 0, "{\"family\":\"AF_UNSPEC\"}", "{sa_family=AF_UNSPEC}", "AF_UNSPEC");
}

static void test_sockaddr_other_family(void **state)
{
	struct sockaddr_storage ss = { .ss_family = AF_NETLINK };

	expect_forms(&ss, 12, "{\"family\":\"AF_NETLINK\"}", "{sa_family=AF_NETLINK}",
		     "AF_NETLINK");
}

static void test_sockaddr_text_cut_to_cap(void **state)
{
	struct sockaddr_in in = inet4("127.0.0.1", 443);
	char small[12];

	assert_string_equal(rec_sockaddr_text(&in, sizeof(in), small, sizeof(small)),
			    "{sa_family=");
	assert_string_equal(rec_sockaddr_short(&in, sizeof(in), small, 6), "127.0");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sockaddr_inet),
		cmocka_unit_test(test_sockaddr_inet6),
		cmocka_unit_test(test_sockaddr_unix_path),
		cmocka_unit_test(test_sockaddr_unix_path_fills_sun_path),
		cmocka_unit_test(test_sockaddr_unix_abstract),
		cmocka_unit_test(test_sockaddr_unix_unnamed),
		cmocka_unit_test(test_sockaddr_short_buffers),
		cmocka_unit_test(test_sockaddr_other_family),
		cmocka_unit_test(test_sockaddr_text_cut_to_cap),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
