#include "replayer/policies/deny.h"
#include "common/sysent.h"
#include "common/xalloc.h"

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>

#define MAX_ABIS 4

struct rpl_deny {
	char *name;
	int errnum;
	/* the call's number per ABI, looked up once per ABI seen */
	struct {
		uint32_t arch;
		int nr;
	} abi[MAX_ABIS];
	size_t nabi;
};

struct rpl_deny *rpl_deny_new(const char *syscall, int errnum, struct repro_err **err)
{
	struct rpl_deny *d;

	if (seccomp_syscall_resolve_name(syscall) == __NR_SCMP_ERROR)
		return repro_err_set(err, EINVAL, "unknown syscall '%s'", syscall), NULL;
	d = repro_xcalloc(1, sizeof(*d));
	d->name = repro_xstrdup(syscall);
	d->errnum = errnum;
	return d;
}

struct rpl_deny *rpl_deny_bypass_new(int errnum, struct repro_err **err)
{
	size_t n;
	const struct repro_sysent *t = repro_sysent_all(&n);

	for (size_t i = 0; i < n; i++)
		if (t[i].flags & REPRO_SYSF_BYPASS)
			return rpl_deny_new(t[i].name, errnum, err);
	return repro_err_set(err, ENOSYS, "no call sets up unseen I/O here"), NULL;
}

void rpl_deny_free(struct rpl_deny *d)
{
	if (d == NULL)
		return;
	free(d->name);
	free(d);
}

static int nr_for(struct rpl_deny *d, uint32_t arch)
{
	for (size_t i = 0; i < d->nabi; i++)
		if (d->abi[i].arch == arch)
			return d->abi[i].nr;
	if (d->nabi == MAX_ABIS)
		return -1;
	d->abi[d->nabi].arch = arch;
	d->abi[d->nabi].nr = seccomp_syscall_resolve_name_arch(arch, d->name);
	return d->abi[d->nabi++].nr;
}

static int decide(void *ctx, const struct lnch_stop *st, const struct lnch_call *call,
		  struct lnch_verdict *v)
{
	struct rpl_deny *d = ctx;
	int nr = nr_for(d, st->arch);

	if (nr < 0 || st->nr != nr)
		return 0;
	(void)call;
	v->errnum = d->errnum;
	return 1;
}

static const struct lnch_policy_ops ops = { .decide = decide };

const struct lnch_policy_ops *rpl_deny_ops(void)
{
	return &ops;
}
