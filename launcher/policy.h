#ifndef REPRO_LAUNCHER_POLICY_H
#define REPRO_LAUNCHER_POLICY_H

/*
 * The policy seam of the ptrace loop (docs/architecture.md): at every
 * syscall entry each registered policy may let the call run or impose an
 * outcome.  Fault rules and replay are policies; adding one never touches
 * the loop.
 */

#include "launcher/stop.h"

#include <stdint.h>

/* What a policy decides for one call. */
struct lnch_verdict {
	int errnum; /* 0: let the call run; else skip it and return -errnum */
	uint64_t delay_ns; /* wait this long before returning the imposed result */
};

struct lnch_policy_ops {
	/*
	 * decide - called at a seccomp stop.  Fill *v and return 1 to impose it,
	 * or return 0 to let the call run.  The first policy that returns 1 wins.
	 */
	int (*decide)(void *ctx, const struct lnch_stop *st, struct lnch_verdict *v);
};

#endif
