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

static int decide(void *ctx, const struct lnch_stop *st, const struct lnch_call *call,
		  struct lnch_verdict *v)
{
	struct rpl_rules *rules = ctx;
	struct rpl_rule_verdict rv;

	(void)st;
	if (call->nr < 0 || rpl_rules_match(rules, call, &rv) != 1)
		return 0;
	*v = (struct lnch_verdict){ .errnum = rv.errnum,
				    .has_retval = rv.has_retval,
				    .retval = rv.retval,
				    .delay_enter_ns = rv.delay_enter_ns,
				    .delay_exit_ns = rv.delay_exit_ns,
				    .origin = (int)rv.rule + 1,
				    .net_fault = net_fault_of(call, &rv) };
	if (rv.is_blackhole)
		v->errnum = ETIMEDOUT; /* where the kernel cannot play it out */
	return 1;
}

static const struct lnch_policy_ops ops = { .decide = decide };

const struct lnch_policy_ops *rpl_inject_ops(void)
{
	return &ops;
}

json_t *rpl_inject_report(void *ctx)
{
	const struct rpl_rules *rules = ctx;
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
	if (r->signo != 0)
		return "signal=";
	if (r->is_dns)
		return "dns:";
	if (r->has_after)
		return "after=";
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
