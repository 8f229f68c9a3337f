/* Fault rules as a loop policy (replayer/policies/inject.h). */
#include "replayer/policies/inject.h"
#include "common/sysent.h"
#include "replayer/policies/rules_internal.h"

#include "common/map.h"
#include "common/xalloc.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A connect's refusal, timeout or blackhole is played out by the kernel
 * (launcher/netfault.h), so that a non-blocking connect learns it through
 * poll(2) and SO_ERROR as on a real network.
 */
static enum lnch_net_fault net_fault_of(const struct lnch_call *call,
					const struct rpl_rule_verdict *rv)
{
	const struct repro_sysent *s = repro_sysent_find(call->syscall);

	if (s == NULL || s->net != REPRO_NET_CONNECT)
		return LNCH_NET_NONE;
	if (rv->is_blackhole)
		return LNCH_NET_BLACKHOLE;
	if (rv->errnum == ECONNREFUSED)
		return LNCH_NET_REFUSE;
	if (rv->errnum == ETIMEDOUT)
		return LNCH_NET_TIMEOUT;
	return LNCH_NET_NONE;
}

/* The maps below hold byte counts and (pid, fd) keys as values: size_t is 64 bits here. */
_Static_assert(sizeof(size_t) >= sizeof(uint64_t), "map values hold 64-bit numbers");

/* A DNS query whose answer is to be rewritten. */
struct answer {
	uint16_t id;
	uint8_t rcode;
	bool in_place; /* over TCP (a stream): its header only */
	int rule; /* the rule's number (index + 1) */
};

/* The answers awaited on one socket, in the order their queries went. */
struct answer_sock {
	uint64_t key; /* fd_key() */
	struct answer *v; /* owned: n, grown by repro_xgrow() */
	size_t n;
};

struct rpl_inject {
	struct rpl_rules *rules; /* borrowed */
	struct repro_map *bytes; /* owned: fd_key() -> bytes moved through it */
	struct repro_map
		*pending; /* owned: tid -> fd_key() of a call whose result is to be counted */
	/* owned: the sockets with answers to rewrite, and the map from fd_key() to their index */
	struct answer_sock *socks;
	size_t nsocks;
	struct repro_map *sock_by_key;
	size_t nanswers; /* over all of socks */
};

struct rpl_inject *rpl_inject_new(struct rpl_rules *rules)
{
	struct rpl_inject *in = repro_xcalloc(1, sizeof(*in));

	in->rules = rules;
	in->bytes = repro_map_new();
	in->pending = repro_map_new();
	in->sock_by_key = repro_map_new();
	return in;
}

void rpl_inject_free(struct rpl_inject *in)
{
	if (in == NULL)
		return;
	repro_map_free(in->bytes);
	repro_map_free(in->pending);
	for (size_t i = 0; i < in->nsocks; i++)
		free(in->socks[i].v);
	free(in->socks);
	repro_map_free(in->sock_by_key);
	free(in);
}

/* The key of descriptor fd of process pid (as the tracee's int arguments give them). */
static uint64_t fd_key(const struct lnch_stop *st)
{
	return (uint64_t)(uint32_t)st->pid << 32 | (uint32_t)(int)st->args[0];
}

/*
 * The byte count after= rules need: the descriptor's count into c, and
 * when some rule limits it, the call's result is asked for (and a call
 * that would cross the limit is cut short at it).  Returns 1 when *v
 * cuts the call.
 */
static int count_bytes(struct rpl_inject *in, const struct lnch_stop *st, struct lnch_call *c,
		       enum repro_sys_bytes kind, struct lnch_verdict *v)
{
	uint64_t limit;
	size_t rule = 0, count = 0;

	(void)repro_map_get(in->bytes, fd_key(st), &count);
	c->fd_bytes = count;
	limit = rpl_rules_byte_limit(in->rules, c, &rule);
	if (limit == UINT64_MAX)
		return 0;
	repro_map_put(in->pending, (uint32_t)st->tid, fd_key(st));
	v->observe_exit = true;
	if (kind != REPRO_BYTES_COUNT || c->fd_bytes + st->args[2] <= limit)
		return 0;
	rpl_rules_count_cut(in->rules, rule);
	v->has_arg = true; /* a short read or write that ends at the limit */
	v->arg_i = 2;
	v->arg_val = limit - c->fd_bytes;
	return 1;
}

/* The bytes a counted call moved go to its descriptor's count. */
static bool on_exit_result(void *ctx, const struct lnch_stop *st)
{
	struct rpl_inject *in = ctx;
	size_t key, count = 0;

	if (repro_map_get(in->pending, (uint32_t)st->tid, &key) && st->ret > 0 && !st->injected) {
		(void)repro_map_get(in->bytes, key, &count);
		repro_map_put(in->bytes, key, count + (size_t)st->ret);
	}
	repro_map_del(in->pending, (uint32_t)st->tid);
	return false;
}

/* Whether name is a call that writes a stream (write, writev): DNS over TCP's query. */
static bool is_stream_write(const char *name)
{
	const struct repro_sysent *s = repro_sysent_find(name);

	return s != NULL && (s->flags & REPRO_SYSF_DNS_IO) && s->net == REPRO_NET_NONE &&
	       s->wait == REPRO_WAIT_NONE;
}

/* Most DNS answers waiting to be rewritten (bounded memory). */
#define ANSWERS_MAX 10000

/* The socket of key with answers awaited, or NULL.  O(1) on average. */
static struct answer_sock *sock_find(const struct rpl_inject *in, uint64_t key)
{
	size_t i;

	return repro_map_get(in->sock_by_key, key, &i) ? &in->socks[i] : NULL;
}

/* The socket of key, added with none awaited when new.  Amortised O(1). */
static struct answer_sock *sock_put(struct rpl_inject *in, uint64_t key)
{
	struct answer_sock *k = sock_find(in, key);

	if (k != NULL)
		return k;
	in->socks = repro_xgrow(in->socks, in->nsocks, sizeof(*in->socks));
	repro_map_put(in->sock_by_key, key, in->nsocks);
	k = &in->socks[in->nsocks++];
	*k = (struct answer_sock){ .key = key };
	return k;
}

/* The answer to id awaited on k, or NULL.  Linear in k's answers (a lookup's A and AAAA: two). */
static struct answer *answer_find(const struct answer_sock *k, uint16_t id)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].id == id)
			return &k->v[i];
	return NULL;
}

/*
 * Forget answer a of k, keeping the others' order; a socket left with none
 * goes (the last socket takes its place).  Linear in k's answers.
 */
static void answer_del(struct rpl_inject *in, struct answer_sock *k, struct answer *a)
{
	size_t i = (size_t)(a - k->v), at;

	memmove(a, a + 1, (k->n - i - 1) * sizeof(*a));
	k->n--;
	in->nanswers--;
	if (k->n > 0)
		return;
	(void)repro_map_get(in->sock_by_key, k->key, &at);
	repro_map_del(in->sock_by_key, k->key);
	free(k->v);
	if (at != --in->nsocks) {
		in->socks[at] = in->socks[in->nsocks];
		repro_map_put(in->sock_by_key, in->socks[at].key, at);
	}
}

/*
 * An NXDOMAIN or SERVFAIL rule fired on a query: the query goes to the
 * server, and the answer to each of its ids is rewritten when it comes
 * (rewrite_answer()), so the resolver sees the rule's RCODE from its own
 * server, as glibc reads it: recvfrom over UDP, read over TCP (where the
 * answer keeps its length, the rest of the stream its place).  An id
 * already awaited on the socket keeps its place and takes the new rule.
 */
static void expect_answers(struct rpl_inject *in, const struct lnch_stop *st,
			   const struct lnch_call *call, const struct rpl_rule_verdict *rv)
{
	struct answer a = { .rcode = rv->dns == RPL_DNS_NXDOMAIN ? 3 : 2,
			    .in_place = is_stream_write(call->syscall),
			    .rule = (int)rv->rule + 1 };

	for (int i = 0; i < call->n_dns_ids && in->nanswers < ANSWERS_MAX; i++) {
		struct answer_sock *k = sock_put(in, fd_key(st));
		struct answer *at = answer_find(k, call->dns_ids[i]);

		a.id = call->dns_ids[i];
		if (at != NULL) {
			*at = a;
			continue;
		}
		k->v = repro_xgrow(k->v, k->n, sizeof(*k->v));
		k->v[k->n++] = a;
		in->nanswers++;
	}
}

/*
 * Whether an answer on (pid, fd) is expected to be rewritten: the rule's
 * number of the first query still awaiting its answer there, else 0.  O(1).
 */
static int answer_expected(const struct rpl_inject *in, const struct lnch_stop *st)
{
	const struct answer_sock *k = sock_find(in, fd_key(st));

	return k != NULL ? k->v[0].rule : 0;
}

/* Length of the question section at p (QNAME labels, QTYPE, QCLASS), 0 when it does not fit. */
static size_t question_len(const uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len && p[i] != 0) {
		if (p[i] & 0xc0)
			return 0; /* a query's name is never compressed */
		i += (size_t)p[i] + 1;
	}
	return i + 5 <= len ? i + 5 : 0;
}

/*
 * The answer to an expected query, rewritten: its id and question, the
 * rule's RCODE, no records (RFC 1035 4.1.1); over TCP its header only, in
 * place, so the message keeps the length its prefix gave and the records
 * after the question are left unread by a resolver told there are none.
 * 0 when it is not one (a TCP answer's two-byte length comes alone).
 */
static size_t rewrite_answer(void *ctx, const struct lnch_stop *st, const uint8_t *in_buf,
			     size_t len, uint8_t *out, size_t cap, bool *in_place)
{
	struct rpl_inject *in = ctx;
	struct answer_sock *k;
	struct answer *a = NULL;
	size_t q;

	if (len < 12 || !(in_buf[2] & 0x80))
		return 0;
	k = sock_find(in, fd_key(st));
	if (k != NULL)
		a = answer_find(k, (uint16_t)(in_buf[0] << 8 | in_buf[1]));
	q = question_len(in_buf + 12, len - 12);
	if (a == NULL || q == 0 || 12 + q > cap)
		return 0;
	memcpy(out, in_buf, 12 + q);
	out[3] = (uint8_t)((in_buf[3] & 0xf0) | (a->rcode & 0x0f));
	out[4] = 0; /* QDCOUNT 1, ANCOUNT, NSCOUNT, ARCOUNT 0 */
	out[5] = 1;
	memset(out + 6, 0, 6);
	*in_place = a->in_place;
	answer_del(in, k, a);
	return 12 + q;
}

static int decide(void *ctx, const struct lnch_stop *st, const struct lnch_call *call,
		  struct lnch_verdict *v)
{
	struct rpl_inject *in = ctx;
	struct lnch_call c = *call;
	struct rpl_rule_verdict rv;
	const struct repro_sysent *s = repro_sysent_find(call->syscall);
	enum repro_sys_bytes kind = s != NULL ? s->bytes : REPRO_BYTES_NONE;
	int cut = 0;

	if (s != NULL && s->net == REPRO_NET_CLOSE)
		repro_map_del(in->bytes, fd_key(st)); /* the number may name another file next */
	if (kind != REPRO_BYTES_NONE)
		cut = count_bytes(in, st, &c, kind, v);
	/* recvfrom and read: how glibc takes a DNS answer over UDP and TCP */
	if (s != NULL && (s->flags & REPRO_SYSF_DNS_IO) && s->wait == REPRO_WAIT_READ &&
	    in->nanswers > 0 && (v->origin = answer_expected(in, st)) > 0) {
		v->rewrite_result = true; /* an answer an NXDOMAIN or SERVFAIL rule changes */
		return 1;
	}
	if (call->nr < 0 || rpl_rules_match(in->rules, &c, &rv) != 1)
		return cut;
	*v = (struct lnch_verdict){ .errnum = rv.errnum,
				    .has_retval = rv.has_retval,
				    .retval = rv.retval,
				    .delay_enter_ns = rv.delay_enter_ns,
				    .delay_exit_ns = rv.delay_exit_ns,
				    .origin = (int)rv.rule + 1,
				    .net_fault = net_fault_of(call, &rv),
				    .observe_exit = v->observe_exit,
				    .signo = rv.signo };
	if (rv.is_blackhole)
		v->errnum = ETIMEDOUT; /* where the kernel cannot play it out */
	if (s != NULL && (s->flags & REPRO_SYSF_NO_RETURN)) {
		/* a call that never returns has no result to hold back: the delay comes first */
		v->delay_enter_ns += v->delay_exit_ns;
		v->delay_exit_ns = 0;
	}
	if (rv.dns == RPL_DNS_TIMEOUT) { /* the query is dropped: no answer ever comes */
		v->errnum = 0;
		v->has_retval = true;
		v->retval = call->dns_ret;
	} else if (rv.dns != RPL_DNS_NONE) { /* the query goes; its answer will be rewritten */
		expect_answers(in, st, call, &rv);
		*v = (struct lnch_verdict){ .observe_exit = v->observe_exit };
		return 0;
	}
	return 1;
}

/* Most rows of common/sysent.c that connect (REPRO_NET_CONNECT): connect(2) alone today. */
#define CONNECT_CALLS_MAX 4

/* Whether rule r may fire with an outcome net_fault_of() plays out, on one of nrs (n of them). */
static bool rule_may_net_fault(const struct rpl_rule *r, const int *nrs, size_t n)
{
	if (!r->is_blackhole && r->errnum != ECONNREFUSED && r->errnum != ETIMEDOUT)
		return false;
	if (r->is_dns) /* matched on the query, not on the number: assume it may */
		return true;
	for (size_t i = 0; i < n; i++)
		if (nrs[i] >= 0 && nrs[i] < RPL_RULES_NR_MAX &&
		    ((r->set[nrs[i] / 64] >> (nrs[i] % 64)) & 1))
			return true;
	return false;
}

/* lnch_policy_ops.may_net_fault: some rule may refuse, time out or blackhole a connect. */
static bool may_net_fault(void *ctx)
{
	const struct rpl_rules *rules = ((const struct rpl_inject *)ctx)->rules;
	int nrs[CONNECT_CALLS_MAX];
	size_t rows, n = 0;
	const struct repro_sysent *t = repro_sysent_all(&rows);

	for (size_t i = 0; i < rows && n < CONNECT_CALLS_MAX; i++)
		if (t[i].net == REPRO_NET_CONNECT)
			nrs[n++] = seccomp_syscall_resolve_name(t[i].name);
	for (size_t i = 0; i < rules->n; i++)
		if (rule_may_net_fault(&rules->v[i], nrs, n))
			return true;
	return false;
}

static const struct lnch_policy_ops ops = { .decide = decide,
					    .on_exit = on_exit_result,
					    .rewrite = rewrite_answer,
					    .may_net_fault = may_net_fault };

const struct lnch_policy_ops *rpl_inject_ops(void)
{
	return &ops;
}

json_t *rpl_inject_report(void *ctx)
{
	const struct rpl_rules *rules = ((const struct rpl_inject *)ctx)->rules;
	json_t *arr = json_array();

	for (size_t i = 0; i < rpl_rules_count(rules); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		if (f == NULL)
			continue;
		rpl_rules_describe(rules, i, f);
		fclose(f);
		json_t *e = json_pack("{s:I,s:s,s:I}", "rule", (json_int_t)(i + 1), "text",
				      text != NULL ? text : "", "fired",
				      (json_int_t)rpl_rules_fired(rules, i));

		const uint64_t *origins;
		size_t norigins = rpl_rules_origins(rules, i, &origins);

		if (norigins > 0) /* repro replay: the recorded events it imposes */
			json_object_set_new(e, "origin",
					    json_integer((json_int_t)rpl_rules_origin(rules, i)));
		if (norigins > 1) {
			json_t *all = json_array();

			for (size_t k = 0; k < norigins; k++)
				json_array_append_new(all, json_integer((json_int_t)origins[k]));
			json_object_set_new(e, "origins", all);
		}
		json_array_append_new(arr, e);
		free(text);
	}
	return arr;
}

int *rpl_inject_trap(const struct rpl_rules *rules, size_t *n)
{
	size_t count = rpl_rules_syscalls(rules, NULL, 0);
	int *nrs = repro_xcalloc(count + 1, sizeof(*nrs));

	*n = rpl_rules_syscalls(rules, nrs, count);
	return nrs;
}

/* What rule r asks for that the loop cannot do yet, or NULL. */
static const char *unsupported(const struct rpl_rule *r)
{
	return NULL;
}

int rpl_inject_check(const struct rpl_rules *rules, struct repro_err **err)
{
	for (size_t i = 0; i < rules->n; i++) {
		const char *what = unsupported(&rules->v[i]);

		if (what != NULL)
			return repro_err_set(err, EINVAL,
					     "rule %zu: %s is not supported by repro record yet "
					     "(docs/faults.md)",
					     i + 1, what);
	}
	return 0;
}
