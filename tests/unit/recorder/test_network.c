/*
 * Unit tests of recorder/network.h: a spool written by hand, network.jsonl
 * read back.  DNS over UDP (a query answered, one never answered until the
 * socket was closed), DNS over TCP split over several receives, names on a
 * later connect, and a non-blocking connect closed before it completed.
 */
#include "recorder/network.h"
#include "bundles/spool.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "launcher/abi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

struct fixture {
	char dir[64];
	struct bndl_spool *sp;
	uint64_t t;
};

static int setup(void **state)
{
	struct fixture *fx = repro_xcalloc(1, sizeof(*fx));
	cleanup_err struct repro_err *err = NULL;

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/repro-net-XXXXXX");
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
	snprintf(path, sizeof(path), "%s/network.jsonl", fx->dir);
	unlink(path);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

/* One call at t (ms) lasting 1 ms: args, result, up to two blobs. */
static void call(struct fixture *fx, uint64_t t_ms, const char *name, int64_t ret, uint64_t a0,
		 uint64_t a1, uint64_t a2, struct bndl_blob *b1, struct bndl_blob *b2)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_event ev = { .type = BNDL_REC_SYSCALL,
				 .t_ns = t_ms * 1000000,
				 .dur_ns = 1000000,
				 .pid = 7,
				 .tid = 7,
				 .arch = lnch_arch_audit_token(),
				 .ret = ret,
				 .args = { a0, a1, a2 } };

	ev.nr = seccomp_syscall_resolve_name(name);
	if (b1 != NULL)
		ev.blobs[ev.nblobs++] = *b1;
	if (b2 != NULL)
		ev.blobs[ev.nblobs++] = *b2;
	assert_int_equal(bndl_spool_append(fx->sp, &ev, &err), 0);
}

static struct sockaddr_in sin_of(const char *ip, unsigned port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

/* A query (qr 0) or an answer with one A record, for name "svc.test". */
static size_t dns_msg(uint8_t *b, unsigned id, bool answer, const char *ip)
{
	static const uint8_t q[] = "\x03svc\x04test\x00\x00\x01\x00\x01";
	size_t n = 0;

	b[n++] = (uint8_t)(id >> 8);
	b[n++] = (uint8_t)id;
	b[n++] = answer ? 0x81 : 0x01;
	b[n++] = answer ? 0x80 : 0x00;
	memcpy(b + n, answer ? "\0\1\0\1\0\0\0\0" : "\0\1\0\0\0\0\0\0", 8);
	n += 8;
	memcpy(b + n, q, sizeof(q) - 1);
	n += sizeof(q) - 1;
	if (answer) {
		memcpy(b + n, "\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04", 12);
		n += 12;
		inet_pton(AF_INET, ip, b + n);
		n += 4;
	}
	return n;
}

static json_t *run(struct fixture *fx)
{
	cleanup_err struct repro_err *err = NULL;
	char out[128];
	json_t *all = json_array();
	char line[4096];
	FILE *f;

	assert_int_equal(bndl_spool_flush(fx->sp, &err), 0);
	snprintf(out, sizeof(out), "%s/network.jsonl", fx->dir);
	assert_int_equal(rec_network_write(fx->dir, out, &err), 0);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		json_array_append_new(all, json_loads(line, 0, NULL));
	fclose(f);
	return all;
}

static json_t *find(json_t *all, const char *kind, const char *key, const char *value)
{
	size_t i;
	json_t *o;

	json_array_foreach (all, i, o)
		if (strcmp(json_string_value(json_object_get(o, "kind")), kind) == 0 &&
		    json_is_string(json_object_get(o, key)) &&
		    strcmp(json_string_value(json_object_get(o, key)), value) == 0)
			return o;
	fail_msg("no %s record with %s=%s", kind, key, value);
	return NULL;
}

static void test_dns_udp_tcp_and_abandoned(void **state)
{
	struct fixture *fx = *state;
	struct sockaddr_in dns = sin_of("127.0.0.53", 53), web = sin_of("192.0.2.9", 443);
	uint8_t q[64], a[80], tcp[96];
	size_t qn = dns_msg(q, 1, false, NULL), an = dns_msg(a, 1, true, "192.0.2.9");
	struct bndl_blob sa = { BNDL_BLOB_SOCKADDR, 1, sizeof(dns), &dns };
	struct bndl_blob wa = { BNDL_BLOB_SOCKADDR, 1, sizeof(web), &web };
	struct bndl_blob qp = { BNDL_BLOB_PAYLOAD, 1, (uint32_t)qn, q };
	struct bndl_blob ap = { BNDL_BLOB_PAYLOAD, 1, (uint32_t)an, a };
	json_t *all, *o;

	/* UDP: connect to port 53, query, answer; then a second query never answered */
	call(fx, 1, "socket", 3, AF_INET, SOCK_DGRAM, 0, NULL, NULL);
	call(fx, 2, "connect", 0, 3, 0, sizeof(dns), &sa, NULL);
	call(fx, 3, "sendto", (int64_t)qn, 3, 0, qn, &qp, NULL);
	call(fx, 5, "recvfrom", (int64_t)an, 3, 0, 512, &ap, NULL);
	q[1] = 2; /* id 2 */
	call(fx, 10, "sendto", (int64_t)qn, 3, 0, qn, &qp, NULL);
	call(fx, 1010, "close", 0, 3, 0, 0, NULL, NULL);
	/* a connect to the answered address carries the name; closed while in progress */
	call(fx, 1100, "socket", 4, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0, NULL, NULL);
	call(fx, 1101, "connect", -EINPROGRESS, 4, 0, sizeof(web), &wa, NULL);
	call(fx, 1601, "close", 0, 4, 0, 0, NULL, NULL);
	/* TCP: the length prefix and the message in separate receives */
	call(fx, 2000, "socket", 5, AF_INET, SOCK_STREAM, 0, NULL, NULL);
	call(fx, 2001, "connect", 0, 5, 0, sizeof(dns), &sa, NULL);
	q[1] = 3;
	tcp[0] = 0;
	tcp[1] = (uint8_t)qn;
	memcpy(tcp + 2, q, qn);
	qp = (struct bndl_blob){ BNDL_BLOB_PAYLOAD, 1, (uint32_t)(qn + 2), tcp };
	call(fx, 2002, "sendto", (int64_t)(qn + 2), 5, 0, qn + 2, &qp, NULL);
	a[1] = 3;
	a[an - 1] = 10; /* 192.0.2.10 */
	uint8_t len[2] = { 0, (uint8_t)an };
	struct bndl_blob l2 = { BNDL_BLOB_PAYLOAD, 1, 2, len };
	call(fx, 2003, "recvfrom", 2, 5, 0, 2, &l2, NULL);
	call(fx, 2004, "recvfrom", (int64_t)an, 5, 0, an, &ap, NULL);

	all = run(fx);
	o = find(all, "dns", "transport", "udp");
	assert_string_equal(json_string_value(json_object_get(o, "name")), "svc.test");
	assert_string_equal(json_string_value(json_object_get(o, "outcome")), "answered");
	assert_string_equal(json_string_value(json_array_get(json_object_get(o, "answers"), 0)),
			    "192.0.2.9");
	assert_int_equal(json_integer_value(json_object_get(o, "dur_ns")), 3000000);
	assert_string_equal(json_string_value(json_object_get(o, "ip")), "127.0.0.53");
	o = find(all, "dns", "outcome", "timed_out");
	assert_int_equal(json_integer_value(json_object_get(o, "dur_ns")), 1000000000);
	o = find(all, "attempt", "outcome", "abandoned");
	assert_string_equal(json_string_value(json_object_get(o, "name")), "svc.test");
	assert_int_equal(json_integer_value(json_object_get(o, "dur_ns")), 500000000);
	o = find(all, "dns", "transport", "tcp");
	assert_string_equal(json_string_value(json_array_get(json_object_get(o, "answers"), 0)),
			    "192.0.2.10");
	json_decref(all);
}

/* A BNDL_REC_SOCK record of pid 7's fd at t (ms). */
static void sock_record(struct fixture *fx, uint64_t t_ms, int32_t fd, struct bndl_sock_info info)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_event ev = { .type = BNDL_REC_SOCK,
				 .t_ns = t_ms * 1000000,
				 .pid = 7,
				 .tid = 7,
				 .args = { (uint64_t)fd },
				 .nblobs = 1 };

	ev.blobs[0] = (struct bndl_blob){ BNDL_BLOB_STRUCT, 0, sizeof(info), &info };
	assert_int_equal(bndl_spool_append(fx->sp, &ev, &err), 0);
}

/*
 * The data phase joins its connect: a blocking connect, then a
 * non-blocking one whose data phase ends before SO_ERROR tells it
 * connected, and a connect whose process ended before any record came.
 */
static void test_data_phase(void **state)
{
	struct fixture *fx = *state;
	struct sockaddr_in web = sin_of("192.0.2.9", 80), api = sin_of("192.0.2.10", 443);
	struct bndl_blob wa = { BNDL_BLOB_SOCKADDR, 1, sizeof(web), &web };
	struct bndl_blob aa = { BNDL_BLOB_SOCKADDR, 1, sizeof(api), &api };
	int32_t so_error = 0;
	struct bndl_blob ok = { BNDL_BLOB_OUT, 3, sizeof(so_error), &so_error };
	json_t *all, *o;

	call(fx, 1, "socket", 3, AF_INET, SOCK_STREAM, 0, NULL, NULL);
	call(fx, 2, "connect", 0, 3, 0, sizeof(web), &wa, NULL); /* ends at 3 ms */
	sock_record(fx, 3000, 3,
		    (struct bndl_sock_info){ .sent = 78,
					     .received = 0,
					     .end = BNDL_SOCK_PEER_CLOSED,
					     .end_ns = 2500000000,
					     .proto = BNDL_PROTO_HTTP });
	call(fx, 4000, "socket", 4, AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0, NULL, NULL);
	call(fx, 4001, "connect", -EINPROGRESS, 4, 0, sizeof(api), &aa, NULL);
	/* the record came first (an odd order, but a spool may hold it) */
	sock_record(fx, 4500, 4,
		    (struct bndl_sock_info){ .sent = 517,
					     .received = 1200,
					     .first_rx_ns = 4010000000,
					     .end = BNDL_SOCK_CLOSED,
					     .end_ns = 4500000000,
					     .proto = BNDL_PROTO_TLS });
	call(fx, 4002, "getsockopt", 0, 4, SOL_SOCKET, SO_ERROR, &ok, NULL);
	/* a spool of an older repro: no record, the connect is written at the process's end */
	call(fx, 5000, "socket", 5, AF_INET, SOCK_STREAM, 0, NULL, NULL);
	call(fx, 5001, "connect", 0, 5, 0, sizeof(web), &wa, NULL);

	all = run(fx);
	assert_int_equal(json_array_size(all), 3);
	o = find(all, "attempt", "proto", "http");
	assert_int_equal(json_integer_value(json_object_get(o, "sent")), 78);
	assert_int_equal(json_integer_value(json_object_get(o, "received")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "end")), "peer_closed");
	assert_int_equal(json_integer_value(json_object_get(o, "end_ns")), 2500000000);
	assert_null(json_object_get(o, "first_byte_ns"));
	o = find(all, "attempt", "proto", "tls");
	assert_string_equal(json_string_value(json_object_get(o, "outcome")), "connected");
	assert_true(json_is_true(json_object_get(o, "nonblocking")));
	assert_int_equal(json_integer_value(json_object_get(o, "received")), 1200);
	/* connected at 4002 + 1 ms, first byte at 4010 ms */
	assert_int_equal(json_integer_value(json_object_get(o, "first_byte_ns")), 7000000);
	assert_null(json_object_get(o, "first_byte_t_ns"));
	o = json_array_get(all, 2);
	assert_int_equal(json_integer_value(json_object_get(o, "fd")), 5);
	assert_string_equal(json_string_value(json_object_get(o, "outcome")), "connected");
	assert_null(json_object_get(o, "end"));
	json_decref(all);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dns_udp_tcp_and_abandoned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_data_phase, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
