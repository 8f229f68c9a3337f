/*
 * Unit tests of recorder/describe.h: the exec lineage a policy is told of
 * (inherited at spawn, extended at exec, forgotten at exit), and the DNS
 * queries a write carries over TCP (several messages, each after its
 * two-byte length) or a datagram carries alone.
 */
#include "recorder/describe.h"
#include "recorder/capture.h"
#include "recorder/systab.h"
#include "launcher/arch/arch.h"
#include "launcher/policy.h"

#include <seccomp.h>

#include <jansson.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static const char *lineage_of(struct rec_describe *d, pid_t pid)
{
	char key[16];

	snprintf(key, sizeof(key), "%d", (int)pid);
	return json_string_value(json_object_get(d->lineage, key));
}

static void test_lineage(void **state)
{
	struct rec_describe d = { 0 };
	char exe[PATH_MAX], want[2 * PATH_MAX + 4];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t self = getpid(), child = 4194000; /* above any pid this test could meet */

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	rec_describe_exec(&d, self);
	assert_string_equal(lineage_of(&d, self), exe);
	rec_describe_exec(&d, self); /* a second exec appends */
	snprintf(want, sizeof(want), "%s > %s", exe, exe);
	assert_string_equal(lineage_of(&d, self), want);
	rec_describe_spawn(&d, self, child); /* a child starts with its parent's */
	assert_string_equal(lineage_of(&d, child), want);
	rec_describe_exec(&d, child); /* no such process: unchanged */
	assert_string_equal(lineage_of(&d, child), want);
	rec_describe_exit(&d, child);
	assert_null(lineage_of(&d, child));
	assert_non_null(lineage_of(&d, self));
	rec_describe_release(&d);
}

/* A query for name with id (RFC 1035 4.1: header, QNAME, QTYPE A, QCLASS IN) at out; its length. */
static size_t query(uint8_t *out, uint16_t id, const char *name)
{
	size_t n = 12;
	const char *p = name;

	memset(out, 0, 12);
	out[0] = (uint8_t)(id >> 8);
	out[1] = (uint8_t)id;
	out[2] = 0x01; /* RD */
	out[5] = 1; /* QDCOUNT */
	while (*p != '\0') {
		const char *dot = strchr(p, '.');
		size_t len = dot != NULL ? (size_t)(dot - p) : strlen(p);

		out[n++] = (uint8_t)len;
		memcpy(out + n, p, len);
		n += len;
		p += len + (dot != NULL);
	}
	out[n++] = 0;
	memcpy(out + n, "\0\1\0\1", 4);
	return n + 4;
}

/* What a policy is told of a call nr (by name) whose capture holds payload (len bytes). */
static void describe_payload(const char *name, const uint8_t *payload, size_t len, uint64_t arg2,
			     struct lnch_call *call)
{
	struct rec_systab *t = rec_systab_new();
	struct rec_describe d = { 0 };
	struct rec_capture c = { .tid = getpid() };
	struct lnch_stop st = { .tid = getpid(), .pid = getpid(), .arch = lnch_arch_audit_token() };
	void *buf;

	st.nr = seccomp_syscall_resolve_name(name);
	st.args[0] = 3;
	st.args[2] = arg2;
	rec_capture_reset(&c);
	c.sys = rec_systab_lookup(t, st.arch, st.nr);
	assert_non_null(c.sys);
	buf = rec_capture_reserve(&c, BNDL_BLOB_PAYLOAD, 1, len);
	assert_non_null(buf);
	memcpy(buf, payload, len);
	rec_capture_commit(&c, len);
	*call = (struct lnch_call){ .nr = st.nr };
	rec_describe_call(&d, &c, &st, call);
	assert_true(call->is_dns_query);
	assert_string_equal(call->dns_name, "good.repro.test");
	rec_describe_release(&d);
	rec_capture_release(&c);
	rec_systab_free(t);
}

static void test_tcp_queries(void **state)
{
	uint8_t buf[256];
	size_t a, b;
	struct lnch_call call;

	(void)state;
	/* writev of glibc's A and AAAA over TCP: two messages, each after its length */
	a = query(buf + 2, 0x1234, "good.repro.test");
	buf[0] = 0;
	buf[1] = (uint8_t)a;
	b = query(buf + 4 + a, 0x5678, "good.repro.test");
	buf[2 + a] = 0;
	buf[3 + a] = (uint8_t)b;
	describe_payload("writev", buf, 4 + a + b, 4, &call);
	assert_int_equal(call.n_dns_ids, 2);
	assert_int_equal(call.dns_ids[0], 0x1234);
	assert_int_equal(call.dns_ids[1], 0x5678);
	assert_int_equal(call.dns_ret, (int64_t)(4 + a + b)); /* the bytes, not the iovec count */
	/* the same first message alone over UDP: one id, sendto returns its length */
	describe_payload("sendto", buf + 2, a, a, &call);
	assert_int_equal(call.n_dns_ids, 1);
	assert_int_equal(call.dns_ret, (int64_t)a);
	/* a write of one message over TCP returns the length asked for */
	describe_payload("write", buf, 2 + a, 2 + a, &call);
	assert_int_equal(call.n_dns_ids, 1);
	assert_int_equal(call.dns_ids[0], 0x1234);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lineage),
		cmocka_unit_test(test_tcp_queries),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
