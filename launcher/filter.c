#include "launcher/filter.h"
#include "launcher/arch/arch.h"
#include "launcher/behalf.h"
#include "launcher/taint.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static inline void cleanup_seccomp_ctx(scmp_filter_ctx *ctx)
{
	if (*ctx != NULL)
		seccomp_release(*ctx);
}
#define cleanup_seccomp __attribute__((cleanup(cleanup_seccomp_ctx)))

/*
 * Whether a native call goes to the notification listener: a path-only call
 * performed there, or one seen at its entry and let run by the kernel
 * (close(2); launcher/behalf.h).
 */
static bool is_notified(const char *name)
{
	return lnch_behalf_supported(name) || lnch_behalf_entry_only(name);
}

static int add_rule(scmp_filter_ctx ctx, uint32_t arch, const struct lnch_filter_rule *r,
		    bool notify, bool *added, struct repro_err **err)
{
	int arch_nr = seccomp_syscall_resolve_name_arch(arch, r->name);
	/* rule numbers are native (or libseccomp pseudo) numbers that libseccomp maps to each ABI */
	int nr = seccomp_syscall_resolve_name(r->name);
	bool native = arch == lnch_arch_audit_token();
	/* path-only calls and close of the native ABI go to the notification listener */
	uint32_t act = notify && native && is_notified(r->name) ? SCMP_ACT_NOTIFY
								: SCMP_ACT_TRACE(LNCH_TRACE_DATA);
	int rc;

	if (arch_nr == __NR_SCMP_ERROR || arch_nr < 0 || nr == __NR_SCMP_ERROR)
		return 0; /* not on this ABI */
	/* conditions only on the native ABI: libseccomp refuses some on 32-bit ones (EFAULT) */
	if (r->arg < 0 || !native || (r->is_ptrace_only_cond && act == SCMP_ACT_NOTIFY))
		rc = seccomp_rule_add(ctx, act, nr, 0);
	else if (r->is_ne)
		rc = seccomp_rule_add(ctx, act, nr, 1,
				      SCMP_CMP((unsigned)r->arg, SCMP_CMP_NE, r->value));
	else if (r->is_le)
		rc = seccomp_rule_add(ctx, act, nr, 1,
				      SCMP_CMP((unsigned)r->arg, SCMP_CMP_LE, r->value));
	else
		rc = seccomp_rule_add(
			ctx, act, nr, 1,
			SCMP_CMP((unsigned)r->arg, SCMP_CMP_MASKED_EQ, r->mask, r->value));
	if (rc < 0)
		return repro_err_set(err, -rc, "seccomp_rule_add '%s'", r->name);
	*added = true;
	return 0;
}

/* One filter context per ABI; libseccomp resolves numbers per architecture. */
static scmp_filter_ctx build_arch_ctx(uint32_t arch, const struct lnch_filter_rule *rules, size_t n,
				      bool notify, bool *seen, struct repro_err **err)
{
	cleanup_seccomp scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (ctx == NULL)
		return repro_err_set(err, ENOMEM, "seccomp_init"), NULL;
	if (arch != seccomp_arch_native()) {
		if ((rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE)) < 0 ||
		    (rc = seccomp_arch_add(ctx, arch)) < 0)
			return repro_err_set(err, -rc, "seccomp_arch_add %s", lnch_arch_name(arch)),
			       NULL;
	}
	/* Programs of an ABI the filter does not cover run untraced rather than killed. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (rc < 0)
		return repro_err_set(err, -rc, "seccomp_attr_set BADARCH"), NULL;
	for (size_t i = 0; i < n; i++)
		if (add_rule(ctx, arch, &rules[i], notify, &seen[i], err) < 0)
			return NULL;
	return steal_ptr(&ctx);
}

static int export_bpf(scmp_filter_ctx ctx, struct sock_fprog *prog, struct repro_err **err)
{
	cleanup_close int fd = memfd_create("repro-seccomp", MFD_CLOEXEC);
	cleanup_free struct sock_filter *buf = NULL;
	off_t size;
	int rc;

	if (fd < 0)
		return repro_err_set(err, errno, "memfd_create");
	if ((rc = seccomp_export_bpf(ctx, fd)) < 0)
		return repro_err_set(err, -rc, "seccomp_export_bpf");
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 || size > 65536 * 8)
		return repro_err_set(err, EINVAL, "seccomp filter has a bad size (%lld bytes)",
				     (long long)size);
	buf = repro_xmalloc((size_t)size);
	if (pread(fd, buf, (size_t)size, 0) != size)
		return repro_err_set(err, errno ? errno : EIO,
				     "cannot read back the seccomp filter");
	prog->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
	prog->filter = steal_ptr(&buf);
	return 0;
}

/* The rules plus, with notify, the taint calls no rule names (launcher/taint.h). Caller frees. */
static struct lnch_filter_rule *with_taint_rules(const struct lnch_filter_rule *rules,
						 size_t nrules, bool notify, size_t *n)
{
	size_t extra = 0, pos = 0;
	struct lnch_filter_rule *all, t;

	while (notify && lnch_taint_next(&pos, &t))
		extra++;
	all = repro_xcalloc(nrules + extra + 1, sizeof(*all));
	memcpy(all, rules, nrules * sizeof(*rules));
	*n = nrules;
	pos = 0;
	for (size_t i = 0; i < extra && lnch_taint_next(&pos, &t); i++) {
		bool listed = false;

		for (size_t j = 0; j < nrules && !listed; j++)
			listed = strcmp(rules[j].name, t.name) == 0 && rules[j].arg < 0;
		if (!listed)
			all[(*n)++] = t;
	}
	return all;
}

int lnch_filter_build(const struct lnch_filter_rule *rules, size_t nrules, bool notify,
		      struct sock_fprog *prog, struct repro_err **err)
{
	size_t n;
	cleanup_free struct lnch_filter_rule *all = with_taint_rules(rules, nrules, notify, &n);
	cleanup_free bool *seen = repro_xcalloc(n + 1, sizeof(bool));
	cleanup_seccomp scmp_filter_ctx merged = NULL;
	uint32_t arches[4];
	size_t narches = lnch_arch_filter_arches(arches, 4);
	int rc;

	for (size_t a = 0; a < narches; a++) {
		scmp_filter_ctx ctx = build_arch_ctx(arches[a], all, n, notify, seen, err);

		if (ctx == NULL)
			return -1;
		if (merged == NULL) {
			merged = ctx;
		} else if ((rc = seccomp_merge(merged, ctx)) < 0) {
			seccomp_release(ctx);
			return repro_err_set(err, -rc, "seccomp_merge");
		}
	}
	for (size_t i = 0; i < nrules; i++)
		if (!seen[i])
			return repro_err_set(err, EINVAL, "unknown syscall '%s'", rules[i].name);
	return export_bpf(merged, prog, err);
}

void lnch_filter_release(struct sock_fprog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}

void lnch_filter_view_init(struct lnch_filter_view *v, const struct lnch_filter_rule *rules,
			   size_t nrules, bool notify)
{
	memset(v, 0, sizeof(*v));
	v->all = with_taint_rules(rules, nrules, notify, &v->nall);
	v->notify = notify;
	v->narch = lnch_arch_filter_arches(v->arch, LNCH_VIEW_ABIS);
	for (size_t a = 0; a < v->narch; a++) {
		for (size_t i = 0; i < v->nall && i < UINT16_MAX; i++) {
			int nr = seccomp_syscall_resolve_name_arch(v->arch[a], v->all[i].name);
			uint16_t *slot;

			if (nr < 0 || nr >= LNCH_VIEW_NRS)
				continue;
			slot = &v->rule[a][nr];
			/* a rule without a condition covers one with a condition (libseccomp ORs them) */
			if (*slot == 0 || v->all[i].arg < 0)
				*slot = (uint16_t)(i + 1);
		}
	}
}

void lnch_filter_view_release(struct lnch_filter_view *v)
{
	free(v->all);
	v->all = NULL;
	v->nall = 0;
}

static bool condition_holds(const struct lnch_filter_rule *r, const uint64_t args[6])
{
	if (r->arg < 0 || r->arg > 5)
		return true;
	if (r->is_ne)
		return args[r->arg] != r->value;
	if (r->is_le)
		return args[r->arg] <= r->value;
	return (args[r->arg] & r->mask) == r->value;
}

enum lnch_filter_action lnch_filter_view_action(const struct lnch_filter_view *v, uint32_t arch,
						int nr, const uint64_t args[6])
{
	bool native = arch == lnch_arch_audit_token(), notified;

	for (size_t a = 0; a < v->narch; a++) {
		const struct lnch_filter_rule *r;

		if (v->arch[a] != arch)
			continue;
		if (nr < 0 || nr >= LNCH_VIEW_NRS || v->rule[a][nr] == 0)
			return LNCH_FILTER_ALLOW;
		r = &v->all[v->rule[a][nr] - 1];
		notified = v->notify && native && is_notified(r->name);
		/* as add_rule(): a ptrace-only condition is not applied to a notified call */
		if (native && !(r->is_ptrace_only_cond && notified) && !condition_holds(r, args))
			return LNCH_FILTER_ALLOW;
		return notified ? LNCH_FILTER_NOTIFY : LNCH_FILTER_TRACE;
	}
	return LNCH_FILTER_ALLOW;
}
