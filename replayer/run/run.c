/* One run of a command with policies (replayer/run/run.h). */
#include "replayer/run/run.h"
#include "common/cleanup.h"
#include "replayer/policies/deny.h"
#include "replayer/policies/inject.h"

#include <errno.h>
#include <stdlib.h>

int rpl_run(const struct rpl_run_opts *o, struct sess_result *res, struct repro_err **err)
{
	cleanup_free int *trap = NULL;
	struct rpl_inject *inject = NULL;
	struct rpl_deny *deny = NULL;
	struct sess_policy policies[3];
	size_t npolicies = 0, ntrap = 0;
	int rc;

	if (o->first != NULL)
		policies[npolicies++] = *o->first;
	if (o->rules != NULL && rpl_rules_count(o->rules) > 0) {
		trap = rpl_inject_trap(o->rules, &ntrap);
		inject = rpl_inject_new(o->rules);
		policies[npolicies++] = (struct sess_policy){ .ops = rpl_inject_ops(),
							      .ctx = inject,
							      .trap_nrs = trap,
							      .ntrap = ntrap,
							      .report = rpl_inject_report };
	}
	if (o->deny_io_uring) {
		deny = rpl_deny_bypass_new(ENOSYS, err);
		if (deny == NULL) {
			rpl_inject_free(inject);
			return -1;
		}
		policies[npolicies++] = (struct sess_policy){ .ops = rpl_deny_ops(), .ctx = deny };
	}
	rc = sess_run(o->sess, policies, npolicies, res, err);
	rpl_deny_free(deny);
	rpl_inject_free(inject);
	return rc;
}

int rpl_runner_run(const struct rpl_runner *r, const struct rpl_run_opts *o,
		   struct sess_result *res, struct repro_err **err)
{
	if (r != NULL && r->run != NULL)
		return r->run(r->ctx, o, res, err);
	return rpl_run(o, res, err);
}
