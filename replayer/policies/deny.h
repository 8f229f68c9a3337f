#ifndef REPRO_REPLAYER_DENY_H
#define REPRO_REPLAYER_DENY_H

/*
 * A policy that fails every call of one syscall with one errno without
 * running it (launcher/policy.h), e.g. `record --io-uring=deny`: io_uring_setup
 * fails with ENOSYS, so programs fall back to plain syscalls that repro sees
 * (io_uring_setup(2), ERRORS).
 */

#include "common/err.h"
#include "launcher/policy.h"

struct rpl_deny;

/*
 * rpl_deny_new - deny syscall (a libseccomp name) with errnum (> 0).
 * Returns a policy for rpl_deny_free(), or NULL with *err (EINVAL: a name
 * libseccomp does not know, naming it).
 */
struct rpl_deny *rpl_deny_new(const char *syscall, int errnum, struct repro_err **err);
void rpl_deny_free(struct rpl_deny *d);

/*
 * rpl_deny_bypass_new - deny with errnum the call whose I/O no traced
 * syscall shows (REPRO_SYSF_BYPASS of common/sysent.h: io_uring_setup), as
 * `record --io-uring=deny` does with ENOSYS.  As rpl_deny_new().
 */
struct rpl_deny *rpl_deny_bypass_new(int errnum, struct repro_err **err);

/* rpl_deny_ops - the callbacks for lnch_loop_add_policy(ops, d). */
const struct lnch_policy_ops *rpl_deny_ops(void);

#endif
