#ifndef REPRO_REPLAYER_POLICIES_RULES_INTERNAL_H
#define REPRO_REPLAYER_POLICIES_RULES_INTERNAL_H

/*
 * The insides of replayer/policies/rules.h, shared by rules.c (lifecycle,
 * matching, text), rules_parse.c (the rule parser) and rules_value.c (the
 * value parsers), and reached by tests/unit/replayer/test_rules.c.
 */

#include "replayer/policies/rules.h"

#include <stdbool.h>
#include <stdint.h>

#define RPL_RULES_NR_MAX 1024 /* native syscall numbers a set can hold */
#define RPL_RULES_WHEN_INF UINT64_MAX

struct rpl_rule {
	char *set_text; /* owned: the syscall set as written */
	uint64_t set[RPL_RULES_NR_MAX / 64]; /* bit nr: the set holds syscall nr */
	bool is_dns; /* dns: target, matched on rpl_call.is_dns_query */
	/* actions */
	int errnum;
	bool has_retval;
	int64_t retval;
	int signo;
	bool has_delay_enter, has_delay_exit;
	uint64_t delay_enter_ns, delay_exit_ns;
	bool is_blackhole;
	enum rpl_dns_fail dns;
	/* filters; NULL / 0 / false when absent */
	char *path, *exe, *host; /* owned: fnmatch(3) globs */
	int addr_family; /* AF_INET or AF_INET6 when addr= is given */
	unsigned char addr[16];
	int addr_port; /* 0: any */
	int port;
	int sock_type;
	bool has_prob;
	double prob;
	bool has_after;
	uint64_t after; /* bytes */
	/* when=: fire on counts first, first + step … up to last; step 0: first only */
	uint64_t first, last, step;
	/* state */
	uint64_t hits; /* calls that matched every filter */
	uint64_t fired;
	/*
	 * the recorded events a replay imposes it for, one per occurrence
	 * (owned, norigins of them; none: 0)
	 */
	uint64_t *origins;
	size_t norigins;
	uint64_t rng; /* splitmix64 state of the prob= stream */
};

struct rpl_rules {
	struct rpl_rule *v;
	size_t n;
	uint64_t seed;
};

/*
 * rpl_rule_parse - parse text (rpl_rules_add() syntax) into *rule, which the
 * caller zeroed; number is the rule's number in messages (from 1).  Returns
 * 0, or -1 with *err (EINVAL); on failure the caller releases *rule.
 */
int rpl_rule_parse(struct rpl_rule *rule, const char *text, size_t number, struct repro_err **err);

/* rpl_rule_release - free what *rule owns; a zeroed rule is fine. */
void rpl_rule_release(struct rpl_rule *rule);

/*
 * rpl_rules_parse_size - s as bytes: a decimal integer with an optional
 * binary multiple k, M or G (also K, m, g; "4k" is 4096).  Returns 0 and
 * sets *bytes, or -1.
 */
int rpl_rules_parse_size(const char *s, uint64_t *bytes);

/* rpl_rules_parse_errno - an errno name (strerrorname_np) or 1..4095; -1 when neither. */
int rpl_rules_parse_errno(const char *s);

/* rpl_rules_parse_signal - SIGNAME, NAME (any case) or 1..SIGRTMAX; -1 when none. */
int rpl_rules_parse_signal(const char *s);

/* rpl_rules_edit_distance - Levenshtein distance of a and b (each up to 63 bytes compared). */
size_t rpl_rules_edit_distance(const char *a, const char *b);

/*
 * rpl_rules_format_duration - ns in its largest exact unit ("1500ms", "2m")
 * into buf (at least 32 bytes).  Returns buf.
 */
char *rpl_rules_format_duration(uint64_t ns, char *buf, size_t len);

/* rpl_rules_format_size - bytes in its largest exact binary multiple ("4k") into buf. */
char *rpl_rules_format_size(uint64_t bytes, char *buf, size_t len);

#endif
