#ifndef REPRO_REPLAYER_POLICIES_INJECT_H
#define REPRO_REPLAYER_POLICIES_INJECT_H

/*
 * A fault rule set (replayer/policies/rules.h) as a policy of the loop
 * (launcher/policy.h): `repro record --inject RULE`.  Each call a rule
 * fires on is failed with its errno (or retval) after its delays; the
 * event records the rule's number (docs/faults.md).
 */

#include "common/err.h"
#include <jansson.h>
#include <stddef.h>
#include "launcher/policy.h"
#include "replayer/policies/rules.h"

struct rpl_inject;

/*
 * rpl_inject_new - the policy of rules (borrowed: it must outlive the
 * policy), with the byte counts after= needs: per process and descriptor,
 * what read, write, pread64, pwrite64, recvfrom, sendto, readv, writev,
 * recvmsg and sendmsg moved (forgotten at close).  A call of the first
 * six that would cross a limit is cut short at it (its count argument),
 * so that the program sees a short write or read, and the next call fails
 * as the rule says.  The counts, the calls awaiting their result and the
 * DNS answers to rewrite are in the one hash map (common/map.h): O(1) per
 * stop on average, a DNS answer linear in those awaited on its socket.
 * Free with rpl_inject_free().
 */
struct rpl_inject *rpl_inject_new(struct rpl_rules *rules);
void rpl_inject_free(struct rpl_inject *in);

/*
 * rpl_inject_ops - the callbacks for a policy whose ctx is a struct
 * rpl_inject.  Its may_net_fault() is true when a rule may refuse, time
 * out or blackhole a connect (or is a dns: rule with such an outcome), so
 * that the loop makes the fault endpoints for those runs only.
 */
const struct lnch_policy_ops *rpl_inject_ops(void);

/*
 * rpl_inject_report - for the manifest's "injections": a new array of
 * {"rule":N (from 1),"text":"openat:error=EACCES:path=*","fired":K}, one
 * per rule (ctx: a struct rpl_inject).  The caller owns it.
 */
json_t *rpl_inject_report(void *ctx);

/*
 * rpl_inject_trap - the native syscall numbers rules may fire on, in a new
 * array (*n of them; free()), for struct sess_policy.trap_nrs.
 */
int *rpl_inject_trap(const struct rpl_rules *rules, size_t *n);

/*
 * rpl_inject_check - refuse (EINVAL, one line naming the rule) a rule whose
 * action a run cannot impose yet: dns:error=NXDOMAIN, dns:error=SERVFAIL.
 * Returns 0 or -1 with *err.  Linear in the rules.
 */
int rpl_inject_check(const struct rpl_rules *rules, struct repro_err **err);

#endif
