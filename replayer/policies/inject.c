/* Fault rules as a loop policy (replayer/policies/inject.h). */
#include "replayer/policies/inject.h"
#include "replayer/policies/rules_internal.h"

#include "common/xalloc.h"

#include <errno.h>
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
	if (call->syscall == NULL || strcmp(call->syscall, "connect") != 0)
		return LNCH_NET_NONE;
	if (rv->is_blackhole)
		return LNCH_NET_BLACKHOLE;
	if (rv->errnum == ECONNREFUSED)
		return LNCH_NET_REFUSE;
	if (rv->errnum == ETIMEDOUT)
		return LNCH_NET_TIMEOUT;
	return LNCH_NET_NONE;
}

struct rpl_inject {
	struct rpl_rules *rules; /* borrowed */
	json_t *bytes; /* owned: "PID/FD" -> bytes moved through it */
	json_t *pending; /* owned: "TID" -> "PID/FD" of a call whose result is to be counted */
};

struct rpl_inject *rpl_inject_new(struct rpl_rules *rules)
{
	struct rpl_inject *in = repro_xcalloc(1, sizeof(*in));

	in->rules = rules;
	in->bytes = json_object();
	in->pending = json_object();
	return in;
}

void rpl_inject_free(struct rpl_inject *in)
{
	if (in == NULL)
		return;
	json_decref(in->bytes);
	json_decref(in->pending);
	free(in);
}

/* 2: a call that moves args[2] bytes through args[0]; 1: one that moves bytes (an iovec); 0: neither. */
static int moves_bytes(const char *sc)
{
	static const char *const counted[] = { "read",	   "write",    "pread64",
					       "pwrite64", "recvfrom", "sendto" };
	static const char *const vectors[] = { "readv", "writev", "recvmsg", "sendmsg" };

	for (size_t i = 0; sc != NULL && i < sizeof(counted) / sizeof(counted[0]); i++)
		if (strcmp(sc, counted[i]) == 0)
			return 2;
	for (size_t i = 0; sc != NULL && i < sizeof(vectors) / sizeof(vectors[0]); i++)
		if (strcmp(sc, vectors[i]) == 0)
			return 1;
	return 0;
}

/*
 * The byte count after= rules need: the descriptor's count into c, and
 * when some rule limits it, the call's result is asked for (and a call
 * that would cross the limit is cut short at it).  Returns 1 when *v
 * cuts the call.
 */
static int count_bytes(struct rpl_inject *in, const struct lnch_stop *st, struct lnch_call *c,
		       int kind, struct lnch_verdict *v)
{
	char key[48], tid[24];
	uint64_t limit;

	snprintf(key, sizeof(key), "%d/%d", (int)st->pid, (int)st->args[0]);
	c->fd_bytes = (uint64_t)json_integer_value(json_object_get(in->bytes, key));
	limit = rpl_rules_byte_limit(in->rules, c);
	if (limit == UINT64_MAX)
		return 0;
	snprintf(tid, sizeof(tid), "%d", (int)st->tid);
	json_object_set_new(in->pending, tid, json_string(key));
	v->observe_exit = true;
	if (kind != 2 || c->fd_bytes + st->args[2] <= limit)
		return 0;
	v->has_arg = true; /* a short read or write that ends at the limit */
	v->arg_i = 2;
	v->arg_val = limit - c->fd_bytes;
	return 1;
}

/* The bytes a counted call moved go to its descriptor's count. */
static void on_exit_result(void *ctx, const struct lnch_stop *st)
{
	struct rpl_inject *in = ctx;
	char tid[24];
	json_t *key;

	snprintf(tid, sizeof(tid), "%d", (int)st->tid);
	key = json_object_get(in->pending, tid);
	if (key != NULL && st->ret > 0 && !st->injected) {
		const char *k = json_string_value(key);

		json_object_set_new(
			in->bytes, k,
			json_integer(json_integer_value(json_object_get(in->bytes, k)) + st->ret));
	}
	json_object_del(in->pending, tid);
}

static int decide(void *ctx, const struct lnch_stop *st, const struct lnch_call *call,
		  struct lnch_verdict *v)
{
	struct rpl_inject *in = ctx;
	struct lnch_call c = *call;
	struct rpl_rule_verdict rv;
	int kind = moves_bytes(call->syscall), cut = 0;

	if (call->syscall != NULL && strcmp(call->syscall, "close") == 0) {
		char key[48];

		snprintf(key, sizeof(key), "%d/%d", (int)st->pid, (int)st->args[0]);
		json_object_del(in->bytes, key); /* the number may name another file next */
	}
	if (kind != 0)
		cut = count_bytes(in, st, &c, kind, v);
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
	if (rv.dns == RPL_DNS_TIMEOUT) { /* the query is dropped: no answer ever comes */
		v->errnum = 0;
		v->has_retval = true;
		v->retval = call->dns_ret;
	}
	return 1;
}

static const struct lnch_policy_ops ops = { .decide = decide, .on_exit = on_exit_result };

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
		json_array_append_new(arr, json_pack("{s:I,s:s,s:I}", "rule", (json_int_t)(i + 1),
						     "text", text != NULL ? text : "", "fired",
						     (json_int_t)rpl_rules_fired(rules, i)));
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
	if (r->is_dns && r->dns != RPL_DNS_TIMEOUT)
		return "dns:error=NXDOMAIN and SERVFAIL (dns:error=TIMEOUT is)";
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
