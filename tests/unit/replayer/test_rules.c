/*
 * Unit tests of the fault rules (replayer/policies/rules.h): each syntax
 * form and strace's spellings, class expansion and negation, first match
 * wins, when= and prob= counting, each filter matching and not, durations
 * and sizes, and the exact text of every bad-rule error.
 */
#include "replayer/policies/rules.h"
#include "replayer/policies/rules_internal.h"
#include "common/sysent.h"

#include <errno.h>
#include <seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

/* A rule set of the NULL-terminated texts, each of which must parse. */
static struct rpl_rules *rules_of(const char *const *texts)
{
	struct rpl_rules *r = rpl_rules_new();

	for (size_t i = 0; texts[i] != NULL; i++) {
		struct repro_err *err = NULL;

		if (rpl_rules_add(r, texts[i], &err) < 0)
			fail_msg("rule '%s': %s", texts[i], err->msg);
	}
	return r;
}

static struct rpl_rules *rule_of(const char *text)
{
	const char *texts[] = { text, NULL };

	return rules_of(texts);
}

/* The message of adding text as rule 1, which must fail with EINVAL; the caller frees it. */
static char *error_of(const char *text)
{
	struct rpl_rules *r = rpl_rules_new();
	struct repro_err *err = NULL;
	char *msg;

	if (rpl_rules_add(r, text, &err) == 0)
		fail_msg("rule '%s' parsed", text);
	assert_int_equal(err->errnum, EINVAL);
	assert_int_equal(rpl_rules_count(r), 0);
	msg = strdup(err->msg);
	repro_err_free(&err);
	rpl_rules_free(r);
	return msg;
}

#define assert_error(text, want)                 \
	do {                                     \
		char *msg_ = error_of(text);     \
		assert_string_equal(msg_, want); \
		free(msg_);                      \
	} while (0)

/* A call of syscall name with nothing else known. */
static struct lnch_call call_of(const char *name)
{
	return (struct lnch_call){ .syscall = name, .nr = seccomp_syscall_resolve_name(name) };
}

/* The rule index that fires for call + 1, or 0 when none. */
static size_t fires(struct rpl_rules *r, const struct lnch_call *call)
{
	struct rpl_rule_verdict v;

	return rpl_rules_match(r, call, &v) ? v.rule + 1 : 0;
}

static bool fires_on(const char *text, const struct lnch_call *call)
{
	struct rpl_rules *r = rule_of(text);
	bool fired = fires(r, call) == 1;

	rpl_rules_free(r);
	return fired;
}

static char *describe(struct rpl_rules *r, size_t i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rpl_rules_describe(r, i, f);
	fclose(f);
	return buf;
}

static void assert_describes(const char *text, const char *want)
{
	struct rpl_rules *r = rule_of(text);
	char *got = describe(r, 0);

	assert_string_equal(got, want);
	free(got);
	rpl_rules_free(r);
}

/* Which of n calls of call fire: "1" for a fired call, "0" for one that did not. */
static void pattern(struct rpl_rules *r, const struct lnch_call *call, char *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = fires(r, call) ? '1' : '0';
	out[n] = '\0';
}

static void assert_when(const char *when, const char *want)
{
	char text[64], got[16];
	struct lnch_call c = call_of("openat");
	struct rpl_rules *r;

	snprintf(text, sizeof(text), "openat:error=ENOENT:when=%s", when);
	r = rule_of(text);
	pattern(r, &c, got, strlen(want));
	assert_string_equal(got, want);
	{
		size_t ones = 0;

		for (size_t k = 0; want[k] != '\0'; k++)
			ones += want[k] == '1';
		assert_int_equal(rpl_rules_fired(r, 0), ones);
	}
	rpl_rules_free(r);
}

static void test_rules_syntax_forms(void **state)
{
	struct rpl_rules *r = rule_of("openat:error=ENOENT");
	struct lnch_call c = call_of("openat"), other = call_of("close");
	struct rpl_rule_verdict v;

	assert_int_equal(rpl_rules_match(r, &c, &v), 1);
	assert_int_equal(v.rule, 0);
	assert_int_equal(v.errnum, ENOENT);
	assert_false(v.has_retval);
	assert_int_equal(rpl_rules_match(r, &other, &v), 0);
	rpl_rules_free(r);

	r = rule_of("openat:retval=42:signal=SIGUSR1:delay_enter=10ms:delay_exit=2s");
	assert_int_equal(rpl_rules_match(r, &c, &v), 1);
	assert_int_equal(v.errnum, 0);
	assert_true(v.has_retval);
	assert_int_equal(v.retval, 42);
	assert_int_equal(v.signo, SIGUSR1);
	assert_int_equal(v.delay_enter_ns, 10000000);
	assert_int_equal(v.delay_exit_ns, 2000000000);
	rpl_rules_free(r);

	/* signal= alone: the call runs and the signal comes */
	r = rule_of("openat:signal=USR2");
	assert_int_equal(rpl_rules_match(r, &c, &v), 1);
	assert_int_equal(v.errnum, 0);
	assert_false(v.has_retval);
	assert_int_equal(v.signo, SIGUSR2);
	rpl_rules_free(r);

	/* a list, an errno by number, delay= (a delay at exit) */
	r = rule_of("openat,close:error=13:delay=1.5s");
	assert_int_equal(rpl_rules_match(r, &other, &v), 1);
	assert_int_equal(v.errnum, EACCES);
	assert_int_equal(v.delay_exit_ns, 1500000000);
	rpl_rules_free(r);

	assert_describes("openat:error=2:delay=1.5s:when=3+",
			 "openat:error=ENOENT:delay_exit=1500ms:when=3+");
	assert_describes("openat,close:signal=9:delay_enter=250:retval=0x10",
			 "openat,close:retval=16:signal=SIGKILL:delay_enter=250us");
	assert_describes("write:error=ENOSPC:after=4096:prob=0.25:when=2..8+3",
			 "write:error=ENOSPC:after=4k:prob=0.25:when=2..8+3");
	assert_describes("connect:blackhole:addr=[::1]:443:type=stream:exe=/usr/bin/*",
			 "connect:blackhole:addr=[::1]:443:type=stream:exe=/usr/bin/*");
	assert_describes("dns:error=NXDOMAIN:host=*.example.com",
			 "dns:error=NXDOMAIN:host=*.example.com");
	/* empty tokens are skipped, as strace does */
	assert_describes("openat::error=EIO:", "openat:error=EIO");
}

static void test_rules_strace_spellings(void **state)
{
	static const char *const injects[] = {
		"inject=openat:error=ENOENT",
		"-e inject=openat:error=ENOENT",
		"-einject=openat:error=ENOENT",
		"--inject=openat:error=ENOENT",
	};
	struct lnch_call c = call_of("openat");
	struct rpl_rule_verdict v;

	for (size_t i = 0; i < sizeof(injects) / sizeof(injects[0]); i++) {
		struct rpl_rules *r = rule_of(injects[i]);

		assert_int_equal(rpl_rules_match(r, &c, &v), 1);
		assert_int_equal(v.errnum, ENOENT);
		rpl_rules_free(r);
	}
	/* fault= is inject= with error=ENOSYS by default (strace(1) --fault) */
	assert_describes("fault=openat", "openat:error=ENOSYS");
	assert_describes("-e fault=openat:when=2", "openat:error=ENOSYS:when=2");
	assert_describes("--fault=openat:error=EACCES", "openat:error=EACCES");
	/* strace's legacy class names and its man page's example */
	assert_true(fires_on("--inject=file:error=ENOENT", &c));
	assert_describes("chdir:error=ENOENT:when=3+", "chdir:error=ENOENT:when=3+");
	/* libc names that x86_64 implements with another call */
	{
		struct lnch_call recvfrom = call_of("recvfrom");

		recvfrom.fd_bytes = 2048;
		assert_true(fires_on("recv:error=ECONNRESET:after=1024", &recvfrom));
	}
}

static void test_rules_classes(void **state)
{
	static const struct {
		const char *set, *in[4], *out[3];
	} cases[] = {
		{ "%file",
		  { "openat", "stat", "execve", "fchmodat" },
		  { "read", "connect", "fchdir" } },
		{ "%network",
		  { "connect", "socket", "sendto", "accept4" },
		  { "read", "openat", "close" } },
		{ "%net",
		  { "connect", "recvmsg", "getsockopt", "shutdown" },
		  { "write", "openat", "kill" } },
		{ "%process",
		  { "clone", "execve", "kill", "wait4" },
		  { "openat", "getpid", "connect" } },
		{ "%desc",
		  { "read", "close", "openat", "epoll_wait" },
		  { "stat", "getpid", "kill" } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[64];
		struct rpl_rules *r;

		snprintf(text, sizeof(text), "%s:error=EIO", cases[i].set);
		r = rule_of(text);
		for (size_t j = 0; j < 4; j++) {
			struct lnch_call c = call_of(cases[i].in[j]);

			if (fires(r, &c) != 1)
				fail_msg("%s should hold %s", cases[i].set, cases[i].in[j]);
		}
		for (size_t j = 0; j < 3; j++) {
			struct lnch_call c = call_of(cases[i].out[j]);

			if (fires(r, &c) != 0)
				fail_msg("%s should not hold %s", cases[i].set, cases[i].out[j]);
		}
		rpl_rules_free(r);
	}
	/* %network is strace's 21 calls (common/sysent.c) */
	{
		size_t n = 0, rows;
		const struct repro_sysent *t = repro_sysent_all(&rows);

		for (size_t i = 0; i < rows; i++)
			n += (t[i].classes & REPRO_SYS_NETWORK) != 0;
		assert_int_equal(n, 21);
	}
}

static void test_rules_negation(void **state)
{
	struct rpl_rules *r = rule_of("!openat,close:error=EIO");
	struct lnch_call open = call_of("openat"), close = call_of("close"), read = call_of("read");

	assert_int_equal(fires(r, &open), 0);
	assert_int_equal(fires(r, &close), 0);
	assert_int_equal(fires(r, &read), 1);
	rpl_rules_free(r);
	r = rule_of("!%file:error=EIO");
	assert_int_equal(fires(r, &open), 0);
	assert_int_equal(fires(r, &read), 1);
	rpl_rules_free(r);
	/* two '!' cancel */
	r = rule_of("!!openat:error=EIO");
	assert_int_equal(fires(r, &open), 1);
	assert_int_equal(fires(r, &read), 0);
	rpl_rules_free(r);
}

static void test_rules_first_match_wins(void **state)
{
	static const char *const texts[] = {
		"openat:error=EACCES:path=/etc/*",
		"openat:error=ENOENT",
		"openat:error=EIO",
		NULL,
	};
	struct rpl_rules *r = rules_of(texts);
	struct lnch_call etc = call_of("openat"), tmp = call_of("openat");
	struct rpl_rule_verdict v;

	etc.path = "/etc/passwd";
	tmp.path = "/tmp/x";
	assert_int_equal(rpl_rules_match(r, &etc, &v), 1);
	assert_int_equal(v.rule, 0);
	assert_int_equal(v.errnum, EACCES);
	assert_int_equal(rpl_rules_match(r, &tmp, &v), 1);
	assert_int_equal(v.rule, 1);
	assert_int_equal(v.errnum, ENOENT);
	assert_int_equal(rpl_rules_fired(r, 0), 1);
	assert_int_equal(rpl_rules_fired(r, 1), 1);
	assert_int_equal(rpl_rules_fired(r, 2), 0);
	assert_int_equal(rpl_rules_fired(r, 3), 0);
	assert_int_equal(rpl_rules_count(r), 3);
	rpl_rules_free(r);
}

static void test_rules_when(void **state)
{
	assert_when("3", "0010000000");
	assert_when("3+", "0011111111");
	assert_when("2..4", "0111000000");
	assert_when("1+3", "1001001001");
	assert_when("2..8+3", "0100100100");
	assert_when("2..4+", "0111000000");
	/* strace: the last when= wins */
	assert_when("3:when=1+", "1111");
}

static void test_rules_when_counts_matching_calls(void **state)
{
	static const char *const texts[] = {
		"openat:error=EACCES:path=/a:when=2",
		"openat:error=ENOENT:when=3",
		NULL,
	};
	struct rpl_rules *r = rules_of(texts);
	struct lnch_call a = call_of("openat"), b = call_of("openat");

	a.path = "/a";
	b.path = "/b";
	/*
	 * Rule 1 counts the calls on /a only.  A call it counts but does not
	 * fire on goes on to rule 2; a call it fires on is not counted by rule 2.
	 */
	assert_int_equal(fires(r, &b), 0); /* rule 2: 1st */
	assert_int_equal(fires(r, &a), 0); /* rule 1: 1st, rule 2: 2nd */
	assert_int_equal(fires(r, &a), 1); /* rule 1: 2nd */
	assert_int_equal(fires(r, &b), 2); /* rule 2: 3rd */
	rpl_rules_free(r);
}

static void test_rules_prob_seeded(void **state)
{
	struct lnch_call c = call_of("openat");
	char first[65], second[65], third[65], other[65];
	struct rpl_rules *r = rule_of("openat:error=EIO:prob=0.5");
	size_t ones = 0;

	rpl_rules_seed(r, 42);
	pattern(r, &c, first, 64);
	rpl_rules_free(r);
	r = rule_of("openat:error=EIO:prob=0.5");
	rpl_rules_seed(r, 42);
	pattern(r, &c, second, 64);
	rpl_rules_free(r);
	/* seeding before the rule is added gives the same stream */
	r = rpl_rules_new();
	rpl_rules_seed(r, 42);
	assert_int_equal(rpl_rules_add(r, "openat:error=EIO:prob=0.5", NULL), 0);
	pattern(r, &c, third, 64);
	rpl_rules_free(r);
	r = rule_of("openat:error=EIO:prob=0.5");
	rpl_rules_seed(r, 43);
	pattern(r, &c, other, 64);
	rpl_rules_free(r);
	assert_string_equal(first, second);
	assert_string_equal(first, third);
	assert_string_not_equal(first, other);
	for (size_t i = 0; i < 64; i++)
		ones += first[i] == '1';
	assert_in_range(ones, 16, 48);
	/* prob=0 never fires, prob=1 always */
	r = rule_of("openat:error=EIO:prob=0");
	pattern(r, &c, first, 32);
	assert_null(strchr(first, '1'));
	rpl_rules_free(r);
	r = rule_of("openat:error=EIO:prob=1");
	pattern(r, &c, first, 32);
	assert_null(strchr(first, '0'));
	rpl_rules_free(r);
}

static void test_rules_path_filter(void **state)
{
	struct lnch_call c = call_of("openat");

	c.path = "/home/u/proj/cache/x";
	c.path_as_written = "cache/x";
	/* the resolved path matches though the program wrote a relative one */
	assert_true(fires_on("openat:error=EIO:path=/home/*/cache/*", &c));
	/* the path as written matches too */
	assert_true(fires_on("openat:error=EIO:path=cache/*", &c));
	assert_false(fires_on("openat:error=EIO:path=/tmp/*", &c));
	/* '*' crosses '/' */
	assert_true(fires_on("openat:error=EIO:path=*/x", &c));
	c.path = NULL, c.path_as_written = NULL;
	assert_false(fires_on("openat:error=EIO:path=*", &c));
	/* read and write: the file the descriptor is open on */
	c = call_of("write");
	c.path = "/var/log/app.log";
	assert_true(fires_on("write:error=ENOSPC:path=/var/log/*", &c));
	assert_false(fires_on("write:error=ENOSPC:path=/tmp/*", &c));
}

/* A path with ':': "\:" stays in the value and matches a ':' (docs/faults.md, "Syntax"). */
static void test_rules_escaped_colon(void **state)
{
	struct lnch_call c = call_of("openat");
	struct rpl_rules *r;
	char *text;

	c.path = "/srv/x/a:b";
	assert_true(fires_on("openat:error=ENOENT:path=/srv/x/a\\:b", &c));
	assert_true(fires_on("openat:error=ENOENT:path=*/a\\:b:when=1", &c));
	assert_false(fires_on("openat:error=ENOENT:path=*/a\\:c", &c));
	c.path = "/srv/x/a";
	assert_false(fires_on("openat:error=ENOENT:path=/srv/x/a\\:b", &c));
	/* the keys after it are still keys; describe writes it back as given, and it parses again */
	r = rule_of("openat:path=/srv/x/a\\:b:error=EACCES:when=2");
	text = describe(r, 0);
	assert_string_equal(text, "openat:error=EACCES:path=/srv/x/a\\:b:when=2");
	rpl_rules_free(r);
	r = rule_of(text);
	free(text);
	text = describe(r, 0);
	assert_string_equal(text, "openat:error=EACCES:path=/srv/x/a\\:b:when=2");
	free(text);
	rpl_rules_free(r);
	/* unescaped, the part after ':' is a key of its own */
	assert_error("openat:error=ENOENT:path=/srv/x/a:b", "unknown key 'b' in rule 1");
	/* an escape is not an error elsewhere either: the value is what it is */
	assert_error("openat:error=ENO\\:ENT",
		     "unknown errno 'ENO\\:ENT' in rule 1 (did you mean 'ENOENT'?)");
}

static void test_rules_net_filters(void **state)
{
	struct lnch_call c = call_of("connect");

	c.family = AF_INET;
	c.ip = "10.0.0.1";
	c.port = 5432;
	c.sock_type = SOCK_STREAM;
	c.host = "DB.Example.com";
	assert_true(fires_on("connect:error=ECONNREFUSED:addr=10.0.0.1", &c));
	assert_true(fires_on("connect:error=ECONNREFUSED:addr=10.0.0.1:5432:when=1", &c));
	assert_false(fires_on("connect:error=ECONNREFUSED:addr=10.0.0.1:80", &c));
	assert_false(fires_on("connect:error=ECONNREFUSED:addr=10.0.0.2", &c));
	assert_true(fires_on("connect:error=ECONNREFUSED:port=5432", &c));
	assert_false(fires_on("connect:error=ECONNREFUSED:port=5433", &c));
	assert_true(fires_on("connect:error=ECONNREFUSED:type=stream", &c));
	assert_false(fires_on("connect:error=ECONNREFUSED:type=dgram", &c));
	assert_true(fires_on("connect:error=ECONNREFUSED:host=db.example.com", &c));
	assert_true(fires_on("connect:error=ECONNREFUSED:host=*.example.com", &c));
	assert_false(fires_on("connect:error=ECONNREFUSED:host=api.example.com", &c));
	/* an IPv4 rule matches the IPv4-mapped form on an IPv6 socket */
	c.family = AF_INET6;
	c.ip = "::ffff:10.0.0.1";
	assert_true(fires_on("connect:error=ECONNREFUSED:addr=10.0.0.1:5432", &c));
	c.ip = "2001:db8::1";
	c.port = 443;
	assert_true(fires_on("connect:error=ENETUNREACH:addr=[2001:db8::1]:443", &c));
	assert_true(fires_on("connect:error=ENETUNREACH:addr=[2001:db8:0::1]", &c));
	assert_false(fires_on("connect:error=ENETUNREACH:addr=[2001:db8::2]:443", &c));
	assert_false(fires_on("connect:error=ENETUNREACH:addr=[2001:db8::1]:80", &c));
	c.ip = NULL, c.host = NULL;
	assert_false(fires_on("connect:error=ENETUNREACH:addr=10.0.0.1", &c));
	assert_false(fires_on("connect:error=ENETUNREACH:host=*", &c));
}

static void test_rules_other_filters(void **state)
{
	struct lnch_call w = call_of("write"), c = call_of("connect"), q = call_of("sendto");
	struct rpl_rules *r;
	struct rpl_rule_verdict v;

	w.exe = "/usr/bin/python3.11";
	assert_true(fires_on("write:error=EIO:exe=*/python3*", &w));
	assert_false(fires_on("write:error=EIO:exe=/bin/*", &w));
	w.fd_bytes = 4095;
	assert_false(fires_on("write:error=ENOSPC:after=4096", &w));
	assert_false(fires_on("write:error=ENOSPC:after=4k", &w));
	w.fd_bytes = 4096;
	assert_true(fires_on("write:error=ENOSPC:after=4k", &w));
	assert_false(fires_on("write:error=ENOSPC:after=1M", &w));

	r = rule_of("connect:blackhole");
	assert_int_equal(rpl_rules_match(r, &c, &v), 1);
	assert_true(v.is_blackhole);
	assert_int_equal(v.errnum, 0);
	rpl_rules_free(r);

	r = rule_of("dns:error=SERVFAIL:host=*.example.com");
	assert_int_equal(rpl_rules_match(r, &q, &v), 0); /* not a query */
	q.is_dns_query = true;
	q.dns_name = "API.example.com";
	assert_int_equal(rpl_rules_match(r, &q, &v), 1);
	assert_int_equal(v.dns, RPL_DNS_SERVFAIL);
	assert_int_equal(v.errnum, 0);
	q.dns_name = "example.org";
	assert_int_equal(rpl_rules_match(r, &q, &v), 0);
	rpl_rules_free(r);
	assert_true(fires_on("dns:error=TIMEOUT", &q));
}

static void test_rules_syscalls(void **state)
{
	static const char *const texts[] = { "openat,close:error=EIO", "connect:blackhole", NULL };
	struct rpl_rules *r = rules_of(texts);
	int nrs[8];
	int want[] = { seccomp_syscall_resolve_name("openat"),
		       seccomp_syscall_resolve_name("close"),
		       seccomp_syscall_resolve_name("connect") };

	assert_int_equal(rpl_rules_syscalls(r, NULL, 0), 3);
	assert_int_equal(rpl_rules_syscalls(r, nrs, 8), 3);
	/* ascending */
	for (size_t i = 0; i < 3; i++)
		for (size_t j = i + 1; j < 3; j++)
			if (want[j] < want[i]) {
				int t = want[i];

				want[i] = want[j], want[j] = t;
			}
	assert_memory_equal(nrs, want, sizeof(want));
	rpl_rules_free(r);
	r = rule_of("dns:error=NXDOMAIN");
	/* the five calls a query goes through, and recvfrom and read, which take its answer */
	assert_int_equal(rpl_rules_syscalls(r, NULL, 0), 7);
	rpl_rules_free(r);
}

static void test_rules_durations(void **state)
{
	static const struct {
		const char *text;
		uint64_t ns;
	} good[] = {
		{ "30s", 30000000000ull }, { "250ms", 250000000ull },  { "1.5s", 1500000000ull },
		{ "100us", 100000ull },	   { "2m", 120000000000ull },  { "10ns", 10 },
		{ "0.5ms", 500000 },	   { "1h", 3600000000000ull }, { "0s", 0 },
	};
	static const char *const bad[] = { "",	  "s",	 "1.5", "1..5s", "-1s",
					   "1.s", ".5s", "5 s", "5sec",	 "1e3s" };
	uint64_t ns;
	char buf[32];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(rpl_rules_parse_duration(good[i].text, false, &ns), 0);
		assert_int_equal(ns, good[i].ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (rpl_rules_parse_duration(bad[i], false, &ns) == 0)
			fail_msg("duration '%s' parsed", bad[i]);
	/* a bare number is microseconds where strace takes one (delay_enter=) */
	assert_int_equal(rpl_rules_parse_duration("30", true, &ns), 0);
	assert_int_equal(ns, 30000);
	assert_int_equal(rpl_rules_parse_duration("30", false, &ns), -1);
	assert_int_equal(rpl_rules_parse_duration("99999999999999999999s", false, &ns), -1);
	assert_string_equal(rpl_rules_format_duration(120000000000ull, buf, sizeof(buf)), "2m");
	assert_string_equal(rpl_rules_format_duration(90000000000ull, buf, sizeof(buf)), "90s");
	assert_string_equal(rpl_rules_format_duration(1500, buf, sizeof(buf)), "1500ns");
	assert_string_equal(rpl_rules_format_duration(0, buf, sizeof(buf)), "0ns");
}

static void test_rules_sizes(void **state)
{
	uint64_t b;
	char buf[32];

	assert_int_equal(rpl_rules_parse_size("4096", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(rpl_rules_parse_size("4k", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(rpl_rules_parse_size("1M", &b), 0);
	assert_int_equal(b, 1048576);
	assert_int_equal(rpl_rules_parse_size("2G", &b), 0);
	assert_int_equal(b, 2147483648ull);
	assert_int_equal(rpl_rules_parse_size("4kb", &b), -1);
	assert_int_equal(rpl_rules_parse_size("k", &b), -1);
	assert_int_equal(rpl_rules_parse_size("-1", &b), -1);
	assert_int_equal(rpl_rules_parse_size("1.5k", &b), -1);
	assert_string_equal(rpl_rules_format_size(1048576, buf, sizeof(buf)), "1M");
	assert_string_equal(rpl_rules_format_size(1000, buf, sizeof(buf)), "1000");
}

static void test_rules_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "opnat:error=ENOENT",
		  "unknown syscall 'opnat' in rule 1 (did you mean 'openat'?)" },
		{ "xyzzyplugh:error=ENOENT", "unknown syscall 'xyzzyplugh' in rule 1" },
		{ "/open.*:error=ENOENT",
		  "syscall regular expressions ('/open.*') are not supported in rule 1" },
		{ "%fil:error=ENOENT", "unknown class '%fil' in rule 1 (did you mean '%file'?)" },
		{ "%memory:error=ENOENT",
		  "unknown class '%memory' in rule 1 (want %file, %network, %process or %desc)" },
		{ "openat,dns:error=ENOENT", "'dns' must stand alone in rule 1" },
		{ ":error=ENOENT", "rule 1 names no syscall" },
		{ "!all:error=ENOENT", "rule 1 names no syscall" },
		{ "openat:error=ENOENTT",
		  "unknown errno 'ENOENTT' in rule 1 (did you mean 'ENOENT'?)" },
		{ "openat:error=NOPE_NOT_AN_ERRNO", "unknown errno 'NOPE_NOT_AN_ERRNO' in rule 1" },
		{ "openat:error=4096", "unknown errno '4096' in rule 1" },
		{ "openat:error=", "empty 'error=' in rule 1" },
		{ "openat:delay=30",
		  "malformed duration '30' in rule 1 (want e.g. 250ms, 1.5s, 100us, 2m)" },
		{ "openat:delay_enter=1..5s",
		  "malformed duration '1..5s' in rule 1 (want e.g. 250ms, 1.5s, 100us, 2m)" },
		{ "openat:error=EIO:port=80", "'port=' makes no sense for openat in rule 1" },
		{ "connect:error=EIO:path=/tmp/*", "'path=' makes no sense for connect in rule 1" },
		{ "openat:error=EIO:after=1k", "'after=' makes no sense for openat in rule 1" },
		{ "%process:error=EIO:addr=10.0.0.1",
		  "'addr=' makes no sense for %process in rule 1" },
		{ "openat,%network:error=EIO:port=53",
		  "'port=' makes no sense for openat in rule 1" },
		{ "sendto:blackhole", "'blackhole' makes no sense for sendto in rule 1" },
		{ "%network:blackhole", "'blackhole' makes no sense for %network in rule 1" },
		{ "dns:error=NXDOMAIN:path=/x", "'path=' makes no sense for dns in rule 1" },
		{ "dns:error=ENOENT",
		  "unknown dns error 'ENOENT' in rule 1 (want NXDOMAIN, SERVFAIL or TIMEOUT)" },
		{ "dns:host=x", "rule 1 has no action (want error=NXDOMAIN, SERVFAIL or TIMEOUT)" },
		{ "openat:error=EIO:prob=1.5", "prob=1.5 is outside 0..1 in rule 1" },
		{ "openat:error=EIO:prob=-0.1",
		  "malformed prob '-0.1' in rule 1 (want a number in 0..1)" },
		{ "openat:error=EIO:prob=half",
		  "malformed prob 'half' in rule 1 (want a number in 0..1)" },
		{ "openat:error=EIO:when=0", "when=0 in rule 1: calls are counted from 1" },
		{ "openat:error=EIO:when=0..3", "when=0..3 in rule 1: calls are counted from 1" },
		{ "openat:error=EIO:when=5..3", "when=5..3 in rule 1 ends before it starts" },
		{ "openat:error=EIO:when=2+0",
		  "malformed when '2+0' in rule 1 (want N, N+, N+STEP, N..M or N..M+STEP)" },
		{ "openat:error=EIO:when=x",
		  "malformed when 'x' in rule 1 (want N, N+, N+STEP, N..M or N..M+STEP)" },
		{ "openat:error=EIO:foo=1", "unknown key 'foo' in rule 1" },
		{ "openat:errno=EIO", "unknown key 'errno' in rule 1 (did you mean 'error'?)" },
		{ "openat:error", "'error' needs a value in rule 1" },
		{ "connect:blackhole=1", "'blackhole' takes no value in rule 1" },
		{ "openat:error=EIO:syscall=getpid",
		  "strace's 'syscall=' is not supported in rule 1" },
		{ "openat:poke_enter=@arg1=00",
		  "strace's 'poke_enter=' is not supported in rule 1" },
		{ "openat",
		  "rule 1 has no action (want error=, retval=, signal=, delay=, delay_enter=, delay_exit= or blackhole)" },
		{ "openat:path=/x",
		  "rule 1 has no action (want error=, retval=, signal=, delay=, delay_enter=, delay_exit= or blackhole)" },
		{ "openat:error=EIO:error=ENOENT", "duplicate 'error=' in rule 1" },
		{ "openat:error=EIO:retval=0",
		  "'error=' and 'retval=' exclude each other in rule 1" },
		{ "connect:blackhole:error=EIO",
		  "'blackhole' and 'error=' exclude each other in rule 1" },
		{ "openat:delay=1s:delay_exit=2s",
		  "'delay=' and 'delay_exit=' exclude each other in rule 1" },
		{ "openat:retval=-2", "retval=-2 in rule 1 would read as an error (use error=)" },
		{ "openat:retval=12x", "malformed retval '12x' in rule 1" },
		{ "openat:signal=SIGFOO", "unknown signal 'SIGFOO' in rule 1" },
		{ "fault=openat:retval=0",
		  "'retval=' is not allowed with fault= in rule 1 (use inject=)" },
		{ "fault=openat:delay=1s",
		  "'delay=' is not allowed with fault= in rule 1 (use inject=)" },
		{ "-e trace=openat", "rule 1 is not an inject= or fault= expression" },
		{ "connect:error=EIO:addr=fe80::1",
		  "malformed address 'fe80' in rule 1 (want IPv4[:PORT], [IPv6] or [IPv6]:PORT)" },
		{ "connect:error=EIO:addr=10.0.0.300",
		  "malformed address '10.0.0.300' in rule 1 (want IPv4[:PORT], [IPv6] or [IPv6]:PORT)" },
		{ "connect:error=EIO:addr=[::1]:0",
		  "malformed address '[::1]:0' in rule 1 (want IPv4[:PORT], [IPv6] or [IPv6]:PORT)" },
		{ "connect:error=EIO:addr=[::1",
		  "malformed address '[::1' in rule 1 (want IPv4[:PORT], [IPv6] or [IPv6]:PORT)" },
		{ "connect:error=EIO:port=65536",
		  "malformed port '65536' in rule 1 (want 1..65535)" },
		{ "connect:error=EIO:type=raw",
		  "unknown socket type 'raw' in rule 1 (want stream or dgram)" },
		{ "write:error=EIO:after=4kb",
		  "malformed size '4kb' in rule 1 (want e.g. 4096, 4k, 1M)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_error(cases[i].text, cases[i].msg);
}

static void test_rules_error_numbers_later_rules(void **state)
{
	struct rpl_rules *r = rule_of("openat:error=EIO");
	struct repro_err *err = NULL;

	assert_int_equal(rpl_rules_add(r, "conect:error=ETIMEDOUT", &err), -1);
	assert_string_equal(err->msg,
			    "unknown syscall 'conect' in rule 2 (did you mean 'connect'?)");
	assert_int_equal(rpl_rules_count(r), 1);
	repro_err_free(&err);
	rpl_rules_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_syntax_forms),
		cmocka_unit_test(test_rules_strace_spellings),
		cmocka_unit_test(test_rules_classes),
		cmocka_unit_test(test_rules_negation),
		cmocka_unit_test(test_rules_first_match_wins),
		cmocka_unit_test(test_rules_when),
		cmocka_unit_test(test_rules_when_counts_matching_calls),
		cmocka_unit_test(test_rules_prob_seeded),
		cmocka_unit_test(test_rules_path_filter),
		cmocka_unit_test(test_rules_escaped_colon),
		cmocka_unit_test(test_rules_net_filters),
		cmocka_unit_test(test_rules_other_filters),
		cmocka_unit_test(test_rules_syscalls),
		cmocka_unit_test(test_rules_durations),
		cmocka_unit_test(test_rules_sizes),
		cmocka_unit_test(test_rules_errors),
		cmocka_unit_test(test_rules_error_numbers_later_rules),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
