#ifndef REPRO_REPLAYER_POLICIES_RULES_H
#define REPRO_REPLAYER_POLICIES_RULES_H

/*
 * Fault rules (`repro record --inject RULE`, docs/faults.md): a parser of
 * strace-compatible injection rules with repro's own filters, and a matcher
 * that gives the verdict of the first rule that fires for a decoded call
 * (struct lnch_call).  A rule set owns its counters (when=, prob=, fired);
 * nothing is global.
 */

#include "common/err.h"
#include "launcher/policy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rpl_rules;

/* What a dns: rule makes the resolver see instead of an answer. */
enum rpl_dns_fail {
	RPL_DNS_NONE = 0,
	RPL_DNS_NXDOMAIN, /* rcode 3, the name does not exist (RFC 1035 4.1.1) */
	RPL_DNS_SERVFAIL, /* rcode 2, the server failed */
	RPL_DNS_TIMEOUT, /* no reply at all */
};

/* The outcome a fired rule imposes on one call. */
struct rpl_rule_verdict {
	size_t rule; /* index of the rule that fired, from 0 (messages say rule + 1) */
	int errnum; /* > 0: skip the call and return -errnum; 0: none */
	bool has_retval; /* skip the call and return retval */
	int64_t retval;
	int signo; /* deliver this signal at entry; 0: none */
	uint64_t delay_enter_ns; /* wait before the call runs (or is skipped), ns */
	uint64_t delay_exit_ns; /* wait before its result returns, ns */
	bool is_blackhole; /* connect: the peer never answers */
	enum rpl_dns_fail dns; /* dns: rules */
};

/* rpl_rules_new - an empty rule set (seed 0) for rpl_rules_free(); never fails. */
struct rpl_rules *rpl_rules_new(void);

/* rpl_rules_free - free r and its rules; NULL-safe. */
void rpl_rules_free(struct rpl_rules *r);

/*
 * rpl_rules_add - parse text and append it as the last rule of r; it is
 * rule rpl_rules_count(r) + 1 in messages.  text is what follows
 * `--inject`, with or without strace's own prefix: `inject=`, `fault=`,
 * `-e inject=`, `-e fault=`, `--inject=`, `--fault=` (fault= takes only
 * error= and when= as actions and defaults to error=ENOSYS, as strace(1)
 * --fault does).  Syntax and semantics: docs/faults.md.
 * Returns 0, or -1 with *err (EINVAL) holding one line that names the bad
 * part, e.g. "unknown syscall 'opnat' in rule 1 (did you mean 'openat'?)";
 * r is then unchanged.  text is borrowed (copied).  Cost: O(length of text
 * + syscalls named) plus a pass over the native syscall numbers (1024
 * libseccomp look-ups), and one more to suggest a name.
 */
int rpl_rules_add(struct rpl_rules *r, const char *text, struct repro_err **err);

/* Most recorded events one rule keeps as its origins. */
#define RPL_RULES_MAX_ORIGINS 1000

/*
 * rpl_rules_set_origins - rule i imposes again the recorded events seqs
 * (borrowed, copied; n of them, one per occurrence in order: repro
 * replay): its k-th firing imposes seqs[k], firings past the last the
 * last.  Of more than RPL_RULES_MAX_ORIGINS the first ones and the last
 * are kept.
 * The manifest's "injections" name them as "origins" (docs/bundle-
 * format.md) and the last as "origin".  rpl_rules_set_origin: one seq.
 * rpl_rules_origin: the last, 0 for none; rpl_rules_origins: all of them
 * in *out (borrowed until the rules are freed), their count returned.
 */
void rpl_rules_set_origins(struct rpl_rules *r, size_t i, const uint64_t *seqs, size_t n);
void rpl_rules_set_origin(struct rpl_rules *r, size_t i, uint64_t seq);
uint64_t rpl_rules_origin(const struct rpl_rules *r, size_t i);
size_t rpl_rules_origins(const struct rpl_rules *r, size_t i, const uint64_t **out);

/*
 * rpl_rules_seed - seed every prob= draw of r, now and of rules added
 * later: rule i draws from its own splitmix64 stream seeded from seed and i,
 * so the same seed and the same calls give the same faults.  Restarts the
 * streams; counters are kept.  O(number of rules).
 */
void rpl_rules_seed(struct rpl_rules *r, uint64_t seed);

/* rpl_rules_count - the number of rules in r. */
size_t rpl_rules_count(const struct rpl_rules *r);

/*
 * rpl_rules_match - evaluate the rules of r in order for call and stop at
 * the first that fires: its syscall set holds call->nr (a dns: rule: call
 * is a DNS query) and all its filters match, which counts the call for
 * when=; then when= selects that count and the prob= draw succeeds.  Only a
 * rule whose filters all matched advances its when= count and its prob=
 * stream.  Returns 1 and fills *out, or 0 (no rule fired; *out untouched).
 * call is borrowed for the duration of the call.  Cost: linear in the number
 * of rules times the cost of their filters (fnmatch(3) of the globs,
 * inet_pton(3) of call->ip); allocates nothing.
 */
int rpl_rules_match(struct rpl_rules *r, const struct lnch_call *call,
		    struct rpl_rule_verdict *out);

/*
 * rpl_rules_byte_limit - for a call that moves bytes through a descriptor
 * (call->fd_bytes of them moved before it): the smallest after= limit,
 * above fd_bytes, of the rules that would fire on it once the limit is
 * reached (their set holds it and every other filter matches), so that
 * the caller can cut the call short at the limit; UINT64_MAX when none.
 * *rule (may be NULL) is then the index of the rule that set it.  Counts
 * nothing.  Linear in the rules.
 */
uint64_t rpl_rules_byte_limit(const struct rpl_rules *r, const struct lnch_call *call,
			      size_t *rule);

/*
 * rpl_rules_count_cut - rule i cut a call short at its after= limit: that
 * is a firing (rpl_rules_fired()), as the short read or write is the
 * first thing the program sees of the fault.
 */
void rpl_rules_count_cut(struct rpl_rules *r, size_t i);

/*
 * rpl_rules_syscalls - the native syscall numbers the rules of r can fire
 * on, ascending and each once, so that the seccomp filter traps only those:
 * the sets the rules name, and for dns: rules the calls that carry a query
 * (sendto, sendmsg, sendmmsg, write, writev) and recvfrom (its answer).  Writes at most cap of them to
 * nrs (NULL when cap is 0) and returns how many there are, so a caller may
 * ask with cap 0 first.  Cost: O(rules * syscall numbers).
 */
size_t rpl_rules_syscalls(const struct rpl_rules *r, int *nrs, size_t cap);

/*
 * rpl_rules_fired - how many times rule i (from 0) has fired so far, for
 * the manifest and the "rule never fired" warning; 0 for i out of range.
 */
uint64_t rpl_rules_fired(const struct rpl_rules *r, size_t i);

/*
 * rpl_rules_describe - write rule i (from 0) to f as normalised text,
 * without a newline: the syscall set as written, then the actions and
 * filters in a fixed order with canonical values (errno and signal names,
 * durations and sizes in their largest exact unit, when= in strace's
 * form), e.g. "openat:error=ENOENT:path=/etc/passwd:when=2..5".  A fault= rule
 * is written with its error=.  Writes nothing for i out of range; stdio
 * errors are left in f for the caller's ferror().
 */
void rpl_rules_describe(const struct rpl_rules *r, size_t i, FILE *f);

/*
 * rpl_rules_append - add the rules of from (borrowed) to r, each as
 * rpl_rules_describe() writes it.  Returns 0, or -1 with *err (as
 * rpl_rules_add(); never for rules from rpl_rules_add()).  Linear in from.
 */
int rpl_rules_append(struct rpl_rules *r, const struct rpl_rules *from, struct repro_err **err);

/*
 * rpl_rules_parse_duration - s as nanoseconds: a decimal number ("1.5",
 * "250") and a unit: ns, us, ms, s, m (minutes) or h.  With bare_is_us a
 * number without unit is microseconds, as strace's delay_enter= takes it.
 * Returns 0 and sets *ns, or -1 (malformed or over UINT64_MAX ns).
 */
int rpl_rules_parse_duration(const char *s, bool bare_is_us, uint64_t *ns);

#endif
