#include "replayer/policies/rules_internal.h"
#include "common/cleanup.h"
#include "common/names.h"
#include "common/sysent.h"
#include "common/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Steele, Lea and Flood, "Fast splittable pseudorandom number generators" (2014): splitmix64. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Rule i's own stream, so that one rule's draws do not shift another's. */
static void seed_rule(struct rpl_rule *rule, uint64_t seed, size_t i)
{
	uint64_t s = seed ^ ((uint64_t)(i + 1) * 0xd1b54a32d192ed03ull);

	rule->rng = splitmix64(&s);
}

struct rpl_rules *rpl_rules_new(void)
{
	return repro_xcalloc(1, sizeof(struct rpl_rules));
}

void rpl_rules_free(struct rpl_rules *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n; i++)
		rpl_rule_release(&r->v[i]);
	free(r->v);
	free(r);
}

int rpl_rules_add(struct rpl_rules *r, const char *text, struct repro_err **err)
{
	struct rpl_rule rule = { 0 };

	if (rpl_rule_parse(&rule, text, r->n + 1, err) < 0) {
		rpl_rule_release(&rule);
		return -1;
	}
	seed_rule(&rule, r->seed, r->n);
	r->v = repro_xgrow(r->v, r->n, sizeof(r->v[0]));
	r->v[r->n++] = rule;
	return 0;
}

void rpl_rules_seed(struct rpl_rules *r, uint64_t seed)
{
	r->seed = seed;
	for (size_t i = 0; i < r->n; i++)
		seed_rule(&r->v[i], seed, i);
}

size_t rpl_rules_count(const struct rpl_rules *r)
{
	return r->n;
}

void rpl_rules_set_origins(struct rpl_rules *r, size_t i, const uint64_t *seqs, size_t n)
{
	size_t keep = n > RPL_RULES_MAX_ORIGINS ? RPL_RULES_MAX_ORIGINS : n;

	if (i >= r->n || n == 0)
		return;
	free(r->v[i].origins);
	r->v[i].origins = repro_xreallocarray(NULL, keep, sizeof(*seqs));
	memcpy(r->v[i].origins, seqs, keep * sizeof(*seqs));
	r->v[i].origins[keep - 1] = seqs[n - 1]; /* the first ones and the last */
	r->v[i].norigins = keep;
}

void rpl_rules_set_origin(struct rpl_rules *r, size_t i, uint64_t seq)
{
	rpl_rules_set_origins(r, i, &seq, 1);
}

uint64_t rpl_rules_origin(const struct rpl_rules *r, size_t i)
{
	return i < r->n && r->v[i].norigins > 0 ? r->v[i].origins[r->v[i].norigins - 1] : 0;
}

size_t rpl_rules_origins(const struct rpl_rules *r, size_t i, const uint64_t **out)
{
	*out = i < r->n ? r->v[i].origins : NULL;
	return i < r->n ? r->v[i].norigins : 0;
}

uint64_t rpl_rules_fired(const struct rpl_rules *r, size_t i)
{
	return i < r->n ? r->v[i].fired : 0;
}

static bool glob_matches(const char *glob, const char *s, int flags)
{
	return s != NULL && fnmatch(glob, s, flags) == 0;
}

/*
 * call->ip is the rule's address; an IPv4 rule also matches its IPv4-mapped
 * IPv6 form (RFC 4291 2.5.5.2), as an AF_INET6 socket reaching IPv4 shows it.
 */
static bool addr_matches(const struct rpl_rule *rule, const struct lnch_call *call)
{
	static const unsigned char v4_mapped[12] = { [10] = 0xff, [11] = 0xff };
	unsigned char a[16];

	if (call->ip == NULL)
		return false;
	if (rule->addr_port != 0 && call->port != rule->addr_port)
		return false;
	if (inet_pton(rule->addr_family, call->ip, a) == 1)
		return memcmp(a, rule->addr, rule->addr_family == AF_INET ? 4 : 16) == 0;
	return rule->addr_family == AF_INET && inet_pton(AF_INET6, call->ip, a) == 1 &&
	       memcmp(a, v4_mapped, 12) == 0 && memcmp(a + 12, rule->addr, 4) == 0;
}

/* Every filter of rule matches call; the syscall set is not looked at here. */
static bool filters_match(const struct rpl_rule *rule, const struct lnch_call *call)
{
	const char *host = rule->is_dns ? call->dns_name : call->host;

	/* the resolved path first, then the path as written, then a rename's target (docs/faults.md) */
	if (rule->path != NULL && !glob_matches(rule->path, call->path, 0) &&
	    !glob_matches(rule->path, call->path_as_written, 0) &&
	    !glob_matches(rule->path, call->path2, 0))
		return false;
	if (rule->exe != NULL && !glob_matches(rule->exe, call->exe, 0))
		return false;
	/* DNS names compare without case (RFC 4343) */
	if (rule->host != NULL && !glob_matches(rule->host, host, FNM_CASEFOLD))
		return false;
	if (rule->addr_family != 0 && !addr_matches(rule, call))
		return false;
	if (rule->port != 0 && call->port != rule->port)
		return false;
	if (rule->sock_type != 0 && call->sock_type != rule->sock_type)
		return false;
	return !rule->has_after || call->fd_bytes >= rule->after;
}

static bool in_set(const struct rpl_rule *rule, const struct lnch_call *call)
{
	if (rule->is_dns)
		return call->is_dns_query;
	return call->nr >= 0 && call->nr < RPL_RULES_NR_MAX &&
	       (rule->set[call->nr / 64] >> (call->nr % 64)) & 1;
}

/* when= selects count n (from 1): first, first + step … up to last; step 0: first only. */
static bool when_selects(const struct rpl_rule *rule, uint64_t n)
{
	if (n < rule->first || n > rule->last)
		return false;
	return rule->step == 0 ? n == rule->first : (n - rule->first) % rule->step == 0;
}

/* A draw in [0, 1) with 53 random bits is below prob. */
static bool prob_draw(struct rpl_rule *rule)
{
	return (double)(splitmix64(&rule->rng) >> 11) * 0x1.0p-53 < rule->prob;
}

static void fill_verdict(const struct rpl_rule *rule, size_t i, struct rpl_rule_verdict *out)
{
	*out = (struct rpl_rule_verdict){
		.rule = i,
		.errnum = rule->errnum,
		.has_retval = rule->has_retval,
		.retval = rule->retval,
		.signo = rule->signo,
		.delay_enter_ns = rule->delay_enter_ns,
		.delay_exit_ns = rule->delay_exit_ns,
		.is_blackhole = rule->is_blackhole,
		.dns = rule->dns,
	};
}

int rpl_rules_match(struct rpl_rules *r, const struct lnch_call *call, struct rpl_rule_verdict *out)
{
	for (size_t i = 0; i < r->n; i++) {
		struct rpl_rule *rule = &r->v[i];

		if (!in_set(rule, call) || !filters_match(rule, call))
			continue;
		if (!when_selects(rule, ++rule->hits))
			continue;
		if (rule->has_prob && !prob_draw(rule))
			continue;
		rule->fired++;
		fill_verdict(rule, i, out);
		return 1;
	}
	return 0;
}

uint64_t rpl_rules_byte_limit(const struct rpl_rules *r, const struct lnch_call *call,
			      size_t *rule_out)
{
	uint64_t limit = UINT64_MAX;

	for (size_t i = 0; i < r->n; i++) {
		const struct rpl_rule *rule = &r->v[i];
		struct lnch_call at = *call;

		if (!rule->has_after || rule->after <= call->fd_bytes || rule->after >= limit)
			continue;
		at.fd_bytes = rule->after;
		if (in_set(rule, &at) && filters_match(rule, &at)) {
			limit = rule->after;
			if (rule_out != NULL)
				*rule_out = i;
		}
	}
	return limit;
}

void rpl_rules_count_cut(struct rpl_rules *r, size_t i)
{
	if (i < r->n)
		r->v[i].fired++;
}

/*
 * The calls through which a resolver sends its query, over UDP or TCP
 * (resolv.conf(5)), and recvfrom and read, through which glibc takes an
 * answer over UDP and TCP (an NXDOMAIN or SERVFAIL rule rewrites it): the
 * rows of common/sysent.c with REPRO_SYSF_DNS_IO.  Every read of a run
 * with a dns: rule stops.
 */
#define DNS_CALLS_MAX 16

/* The native numbers of the table's rows that carry DNS (REPRO_SYSF_DNS_IO) into nrs; how many. */
static size_t dns_calls(int *nrs)
{
	size_t rows, n = 0;
	const struct repro_sysent *t = repro_sysent_all(&rows);

	for (size_t i = 0; i < rows && n < DNS_CALLS_MAX; i++)
		if (t[i].flags & REPRO_SYSF_DNS_IO)
			nrs[n++] = seccomp_syscall_resolve_name(t[i].name);
	return n;
}

static bool rules_trap(const struct rpl_rules *r, int nr, const int *dns_nrs, size_t ndns)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rpl_rule *rule = &r->v[i];

		if (!rule->is_dns && (rule->set[nr / 64] >> (nr % 64)) & 1)
			return true;
		for (size_t d = 0; rule->is_dns && d < ndns; d++)
			if (dns_nrs[d] == nr)
				return true;
	}
	return false;
}

size_t rpl_rules_syscalls(const struct rpl_rules *r, int *nrs, size_t cap)
{
	int dns_nrs[DNS_CALLS_MAX];
	size_t n = 0, ndns = dns_calls(dns_nrs);

	for (int nr = 0; nr < RPL_RULES_NR_MAX; nr++) {
		if (!rules_trap(r, nr, dns_nrs, ndns))
			continue;
		if (n < cap)
			nrs[n] = nr;
		n++;
	}
	return n;
}

static void describe_outcome(const struct rpl_rule *rule, FILE *f)
{
	static const char *const dns_names[] = {
		[RPL_DNS_NONE] = "",
		[RPL_DNS_NXDOMAIN] = "NXDOMAIN",
		[RPL_DNS_SERVFAIL] = "SERVFAIL",
		[RPL_DNS_TIMEOUT] = "TIMEOUT",
	};
	char buf[32];

	if (rule->dns != RPL_DNS_NONE)
		fprintf(f, ":error=%s", dns_names[rule->dns]);
	if (rule->errnum > 0)
		fprintf(f, ":error=%s", repro_errno_name(rule->errnum, buf, sizeof(buf)));
	if (rule->has_retval)
		fprintf(f, ":retval=%" PRId64, rule->retval);
	if (rule->signo > 0)
		fprintf(f, ":signal=%s", repro_signal_name(rule->signo, buf, sizeof(buf)));
	if (rule->is_blackhole)
		fputs(":blackhole", f);
	if (rule->has_delay_enter)
		fprintf(f, ":delay_enter=%s",
			rpl_rules_format_duration(rule->delay_enter_ns, buf, sizeof(buf)));
	if (rule->has_delay_exit)
		fprintf(f, ":delay_exit=%s",
			rpl_rules_format_duration(rule->delay_exit_ns, buf, sizeof(buf)));
}

static void describe_addr(const struct rpl_rule *rule, FILE *f)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(rule->addr_family, rule->addr, ip, sizeof(ip));
	if (rule->addr_family == AF_INET6)
		fprintf(f, ":addr=[%s]", ip);
	else
		fprintf(f, ":addr=%s", ip);
	if (rule->addr_port != 0)
		fprintf(f, ":%d", rule->addr_port);
}

static void describe_when(const struct rpl_rule *rule, FILE *f)
{
	bool is_default = rule->first == 1 && rule->last == RPL_RULES_WHEN_INF && rule->step == 1;

	if (is_default)
		return;
	fprintf(f, ":when=%" PRIu64, rule->first);
	if (rule->last != RPL_RULES_WHEN_INF)
		fprintf(f, "..%" PRIu64, rule->last);
	if (rule->last == RPL_RULES_WHEN_INF && rule->step == 1)
		fputc('+', f);
	else if (rule->step > 1)
		fprintf(f, "+%" PRIu64, rule->step);
}

static void describe_filters(const struct rpl_rule *rule, FILE *f)
{
	char buf[32];

	if (rule->path != NULL)
		fprintf(f, ":path=%s", rule->path);
	if (rule->addr_family != 0)
		describe_addr(rule, f);
	if (rule->port != 0)
		fprintf(f, ":port=%d", rule->port);
	if (rule->host != NULL)
		fprintf(f, ":host=%s", rule->host);
	if (rule->sock_type != 0)
		fprintf(f, ":type=%s", rule->sock_type == SOCK_STREAM ? "stream" : "dgram");
	if (rule->exe != NULL)
		fprintf(f, ":exe=%s", rule->exe);
	if (rule->has_after)
		fprintf(f, ":after=%s", rpl_rules_format_size(rule->after, buf, sizeof(buf)));
	if (rule->has_prob)
		fprintf(f, ":prob=%g", rule->prob);
}

void rpl_rules_describe(const struct rpl_rules *r, size_t i, FILE *f)
{
	const struct rpl_rule *rule;

	if (i >= r->n)
		return;
	rule = &r->v[i];
	fputs(rule->set_text, f);
	describe_outcome(rule, f);
	describe_filters(rule, f);
	describe_when(rule, f);
}

int rpl_rules_append(struct rpl_rules *r, const struct rpl_rules *from, struct repro_err **err)
{
	for (size_t i = 0; from != NULL && i < rpl_rules_count(from); i++) {
		cleanup_free char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		if (f == NULL)
			return repro_err_set(err, errno, "cannot copy rule %zu", i + 1);
		rpl_rules_describe(from, i, f);
		if (fclose(f) != 0)
			return repro_err_set(err, errno, "cannot copy rule %zu", i + 1);
		if (rpl_rules_add(r, text, err) < 0)
			return -1;
	}
	return 0;
}
