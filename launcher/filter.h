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

#endif
