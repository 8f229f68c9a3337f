/*
 * Unit tests of the fault rules as a policy (replayer/policies/inject.h):
 * may_net_fault() says yes exactly for rule sets that can refuse, time out
 * or blackhole a connect, and never no for one whose decide() then gives a
 * connect a net_fault (the loop would have made no endpoints for it).
 */
#include "replayer/policies/inject.h"
#include "launcher/policy.h"

#include <errno.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

/* The verdict the policy of rules gives a TCP connect to 127.0.0.1:8080. */
static struct lnch_verdict decide_connect(struct rpl_inject *in)
{
	struct lnch_stop st = { .tid = 100, .pid = 100, .is_entry = true };
	struct lnch_call call = { .syscall = "connect",
				  .nr = seccomp_syscall_resolve_name("connect"),
				  .family = AF_INET,
				  .ip = "127.0.0.1",
				  .port = 8080,
				  .sock_type = SOCK_STREAM };
	struct lnch_verdict v = { 0 };

	st.nr = call.nr;
	st.args[0] = 3;
	(void)rpl_inject_ops()->decide(in, &st, &call, &v);
	return v;
}

static void test_inject_may_net_fault(void **state)
{
	static const struct {
		const char *rule;
		bool may;
	} cases[] = {
		{ "connect:error=ECONNREFUSED", true },
		{ "connect:error=ETIMEDOUT:delay=1s", true },
		{ "connect:blackhole:port=8080", true },
		{ "%network:error=ECONNREFUSED", true },
		{ "connect:error=EACCES", false },
		{ "connect:error=ENETUNREACH", false },
		{ "openat:error=ETIMEDOUT", false },
		{ "recvfrom:error=ECONNRESET", false },
		{ "read:delay=10ms", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rpl_rules *r = rpl_rules_new();
		struct repro_err *err = NULL;
		struct rpl_inject *in;
		struct lnch_verdict v;
		bool may;

		if (rpl_rules_add(r, cases[i].rule, &err) < 0)
			fail_msg("rule '%s': %s", cases[i].rule, err->msg);
		in = rpl_inject_new(r);
		may = rpl_inject_ops()->may_net_fault(in);
		if (may != cases[i].may)
			fail_msg("rule '%s': may_net_fault %d", cases[i].rule, (int)may);
		v = decide_connect(in);
		/* here each rule that may fires on this connect */
		if ((v.net_fault != LNCH_NET_NONE) != may)
			fail_msg("rule '%s': net_fault %d, may_net_fault %d", cases[i].rule,
				 (int)v.net_fault, (int)may);
		rpl_inject_free(in);
		rpl_rules_free(r);
	}
}

/* No rule, or rules without a connect fault: a recording forks no endpoint helper. */
static void test_inject_may_net_fault_none(void **state)
{
	struct rpl_rules *r = rpl_rules_new();
	struct rpl_inject *in = rpl_inject_new(r);

	(void)state;
	assert_false(rpl_inject_ops()->may_net_fault(in));
	rpl_inject_free(in);
	rpl_rules_free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inject_may_net_fault),
		cmocka_unit_test(test_inject_may_net_fault_none),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
