#ifndef REPRO_LAUNCHER_FILTER_H
#define REPRO_LAUNCHER_FILTER_H

#include "common/err.h"
#include "launcher/launcher.h"

#include <linux/filter.h>

/*
 * lnch_filter_build - compile the rules into a classic BPF seccomp program
 * (seccomp(2), SECCOMP_RET_TRACE for each rule, SECCOMP_RET_ALLOW otherwise)
 * with libseccomp, for the native and compat ABIs of lnch_arch_filter_arches().
 * With notify, the native ABI's path-only calls that launcher/behalf.h can
 * perform, and its entry-only calls (close), return SECCOMP_RET_USER_NOTIF instead (seccomp_unotify(2)), and
 * the calls that change credentials, root or mounts (launcher/taint.h) are
 * traced even when no rule names them.
 * A name that does not exist on an ABI is skipped for that ABI; a name that
 * exists on none is an error (EINVAL, naming it).  On success *prog->filter is
 * a buffer the caller frees (lnch_filter_release()).
 */
int lnch_filter_build(const struct lnch_filter_rule *rules, size_t nrules, bool notify,
		      struct sock_fprog *prog, struct repro_err **err);

void lnch_filter_release(struct sock_fprog *prog);

/*
 * The SECCOMP_RET_DATA of repro's SECCOMP_RET_TRACE (PTRACE_GETEVENTMSG at
 * the seccomp stop): a stop with other data came from a filter of the
 * program's own (seccomp(2): of equal actions, the most recent filter's
 * data is the one seen).
 */
#define LNCH_TRACE_DATA 0x7270

/* What repro's filter does with a call. */
enum lnch_filter_action {
	LNCH_FILTER_ALLOW = 0, /* runs without a stop */
	LNCH_FILTER_TRACE, /* a seccomp stop (SECCOMP_RET_TRACE) */
	LNCH_FILTER_NOTIFY, /* a notification (SECCOMP_RET_USER_NOTIF) */
};

#define LNCH_VIEW_ABIS 4
#define LNCH_VIEW_NRS 1024 /* syscall numbers below this are looked up directly */

/*
 * The filter lnch_filter_build() makes, as a table the loop can ask in
 * O(1) per call: which calls repro's filter stops, so that a call that
 * should have stopped and did not was decided by another filter (the
 * program's own: seccomp(2), "the action of highest precedence wins").
 */
struct lnch_filter_view {
	uint32_t arch[LNCH_VIEW_ABIS];
	size_t narch;
	uint16_t rule[LNCH_VIEW_ABIS][LNCH_VIEW_NRS]; /* 1 + index into all; 0: no rule */
	struct lnch_filter_rule *all; /* owned: the rules and the taint calls */
	size_t nall;
	bool notify;
};

/*
 * lnch_filter_view_init - the view of the filter that lnch_filter_build()
 * makes of the same arguments (rules borrowed for the view's life).
 * Release with lnch_filter_view_release().  Cost: linear in the rules.
 */
void lnch_filter_view_init(struct lnch_filter_view *v, const struct lnch_filter_rule *rules,
			   size_t nrules, bool notify);
void lnch_filter_view_release(struct lnch_filter_view *v);

/*
 * lnch_filter_view_action - what the filter does with call nr of ABI arch
 * and these arguments (argument conditions on the native ABI only, as
 * built).  O(1).
 */
enum lnch_filter_action lnch_filter_view_action(const struct lnch_filter_view *v, uint32_t arch,
						int nr, const uint64_t args[6]);

#endif
