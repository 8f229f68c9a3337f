#include "replayer/policies/rules_internal.h"
#include "common/sysent.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* What a filter needs the syscalls of its rule to carry. */
enum need {
	NEED_NONE,
	NEED_PATH, /* a path: strace's %file, or the file of a descriptor bytes move through */
	NEED_SOCK, /* a socket: %network, or moves bytes through a descriptor */
	NEED_IO, /* moves bytes through a descriptor */
	NEED_CONNECT, /* is connect */
	NEED_COUNT
};

struct parse {
	struct rpl_rule *rule;
	size_t number; /* from 1, for messages */
	bool is_fault; /* written as fault=: error= and when= only, error=ENOSYS by default */
	const char *lacks[NEED_COUNT]; /* borrowed: first syscall named outright that lacks it */
	unsigned any_bits; /* class_bits() of any syscall of the set */
	unsigned seen; /* bit i: keys[i] was given */
	const char *outcome; /* the key that set error=, retval= or blackhole */
	const char *delay_exit; /* the key that set the delay at exit */
};

typedef int (*key_parse_fn)(struct parse *ps, const char *key, const char *val,
			    struct repro_err **err);

/* Flags of a key (struct key.flags). */
enum {
	K_FAULT = 1u << 0, /* allowed in a fault= rule */
	K_DNS = 1u << 1, /* allowed in a dns: rule */
	K_REPEAT = 1u << 2, /* may be given again: the last one wins (strace's when=) */
};

static bool syscall_known(const char *name)
{
	return seccomp_syscall_resolve_name(name) >= 0;
}

/* The native syscall name nearest to name within two edits, or NULL: for "did you mean". */
static char *nearest_syscall(const char *name)
{
	char *best = NULL;
	size_t best_d = 3; /* suggest only within two edits */

	for (int nr = 0; nr < RPL_RULES_NR_MAX; nr++) {
		cleanup_free char *cand = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		size_t d;

		if (cand == NULL || (d = rpl_rules_edit_distance(name, cand)) >= best_d)
			continue;
		free(best);
		best = steal_ptr(&cand);
		best_d = d;
	}
	return best;
}

/* The nearest of the NULL-terminated words to name within two edits, or NULL. */
static const char *nearest_word(const char *name, const char *const *words)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; words[i] != NULL; i++) {
		size_t d = rpl_rules_edit_distance(name, words[i]);

		if (d < best_d)
			best = words[i], best_d = d;
	}
	return best;
}

/* A row moves bytes through a descriptor (after=): a bit beside enum repro_sys_class's. */
#define MOVES_BYTES (1u << 8)

/* REPRO_SYS_* classes of the row called name, plus MOVES_BYTES; 0 for a call without a row. */
static unsigned class_bits(const char *name)
{
	const struct repro_sysent *s = repro_sysent_find(name);

	if (s == NULL)
		return 0;
	return s->classes | (s->bytes != REPRO_BYTES_NONE ? MOVES_BYTES : 0u);
}

static void set_bit(struct rpl_rule *rule, int nr)
{
	if (nr >= 0 && nr < RPL_RULES_NR_MAX)
		rule->set[nr / 64] |= 1ull << (nr % 64);
}

static bool has_bit(const struct rpl_rule *rule, int nr)
{
	return nr >= 0 && nr < RPL_RULES_NR_MAX && (rule->set[nr / 64] >> (nr % 64)) & 1;
}

/* Note for each need whether name, a syscall named outright, lacks it. */
static void note_named(struct parse *ps, const char *name, unsigned bits)
{
	bool has[NEED_COUNT] = {
		[NEED_NONE] = true,
		[NEED_PATH] = bits & (REPRO_SYS_FILE | MOVES_BYTES),
		[NEED_SOCK] = bits & (REPRO_SYS_NETWORK | MOVES_BYTES),
		[NEED_IO] = bits & MOVES_BYTES,
		[NEED_CONNECT] = repro_sysent_find(name) != NULL &&
				 repro_sysent_find(name)->net == REPRO_NET_CONNECT,
	};

	for (int n = 0; n < NEED_COUNT; n++)
		if (!has[n] && ps->lacks[n] == NULL)
			ps->lacks[n] = name;
}

static void add_class(struct parse *ps, unsigned bits)
{
	size_t n;
	const struct repro_sysent *t = repro_sysent_all(&n);

	for (size_t i = 0; i < n; i++)
		if (t[i].classes & bits)
			/* calls this libseccomp does not know are left out */
			set_bit(ps->rule, seccomp_syscall_resolve_name(t[i].name));
}

static int unknown_class(struct parse *ps, const char *name, struct repro_err **err)
{
	const char *words[16] = { 0 };
	const char *best;

	for (size_t i = 0; i < 15 && repro_sys_class_word(i) != NULL; i++)
		words[i] = repro_sys_class_word(i);
	best = nearest_word(name, words);
	if (best != NULL)
		return repro_err_set(err, EINVAL,
				     "unknown class '%s' in rule %zu (did you mean '%s'?)", name,
				     ps->number, best);
	return repro_err_set(
		err, EINVAL,
		"unknown class '%s' in rule %zu (want %%file, %%network, %%process or %%desc)",
		name, ps->number);
}

static int unknown_syscall(struct parse *ps, const char *name, struct repro_err **err)
{
	cleanup_free char *best = NULL;

	if (name[0] == '/')
		return repro_err_set(
			err, EINVAL,
			"syscall regular expressions ('%s') are not supported in rule %zu", name,
			ps->number);
	best = nearest_syscall(name);
	if (best != NULL)
		return repro_err_set(err, EINVAL,
				     "unknown syscall '%s' in rule %zu (did you mean '%s'?)", name,
				     ps->number, best);
	return repro_err_set(err, EINVAL, "unknown syscall '%s' in rule %zu", name, ps->number);
}

/* Add one element of a comma list: a class, "all", an alias or a syscall name. */
static int add_element(struct parse *ps, const char *name, bool negated, struct repro_err **err)
{
	unsigned bits = repro_sys_class_lookup(name);
	const char *kernel = repro_sys_alias(name);

	if (bits != 0) {
		add_class(ps, bits);
		return 0;
	}
	if (strcmp(name, "all") == 0) {
		memset(ps->rule->set, 0xff, sizeof(ps->rule->set));
		return 0;
	}
	if (strcmp(name, "dns") == 0)
		return repro_err_set(err, EINVAL, "'dns' must stand alone in rule %zu", ps->number);
	if (name[0] == '%')
		return unknown_class(ps, name, err);
	if (kernel == NULL)
		kernel = name;
	if (!syscall_known(kernel))
		return unknown_syscall(ps, name, err);
	set_bit(ps->rule, seccomp_syscall_resolve_name(kernel));
	if (!negated)
		note_named(ps, name, class_bits(kernel));
	return 0;
}

/*
 * Keep only the numbers this libseccomp names (a negation must not reach
 * non-calls).  One libseccomp look-up per number in the set: a rule that
 * names one call costs one, a negation up to RPL_RULES_NR_MAX.
 */
static void clip_to_known(struct parse *ps, bool invert)
{
	for (int nr = 0; nr < RPL_RULES_NR_MAX; nr++) {
		bool in = has_bit(ps->rule, nr) != invert;
		char *name;

		ps->rule->set[nr / 64] &= ~(1ull << (nr % 64));
		if (!in || (name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr)) == NULL)
			continue;
		set_bit(ps->rule, nr);
		ps->any_bits |= class_bits(name);
		free(name);
	}
}

static bool set_is_empty(const struct rpl_rule *rule)
{
	for (size_t i = 0; i < RPL_RULES_NR_MAX / 64; i++)
		if (rule->set[i] != 0)
			return false;
	return true;
}

/* The set holds one call, and its network role is role.  Linear in RPL_RULES_NR_MAX. */
static bool set_is_only(const struct rpl_rule *rule, enum repro_sys_net role)
{
	cleanup_free char *name = NULL;
	const struct repro_sysent *s;
	int nr = -1;

	for (int i = 0; i < RPL_RULES_NR_MAX; i++) {
		if (!has_bit(rule, i))
			continue;
		if (nr >= 0)
			return false;
		nr = i;
	}
	if (nr < 0 || (name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr)) == NULL)
		return false;
	s = repro_sysent_find(name);
	return s != NULL && s->net == role;
}

/*
 * SET: "!"* then a comma list (strace's qualify_syscall_tokens(): each
 * leading '!' inverts the whole list).  text is modified (split at commas).
 */
static int parse_set(struct parse *ps, char *text, struct repro_err **err)
{
	bool negated = false;
	char *save = NULL;

	while (*text == '!')
		negated = !negated, text++;
	for (char *name = strtok_r(text, ",", &save); name != NULL;
	     name = strtok_r(NULL, ",", &save))
		if (add_element(ps, name, negated, err) < 0)
			return -1;
	clip_to_known(ps, negated);
	if (set_is_empty(ps->rule))
		return repro_err_set(err, EINVAL, "rule %zu names no syscall", ps->number);
	return 0;
}

/*
 * Refuse a filter the rule's syscalls cannot carry: one named outright
 * lacks it, or no call of a class or negation has it.
 */
static int check_need(struct parse *ps, const char *key, enum need need, struct repro_err **err)
{
	static const unsigned need_bits[NEED_COUNT] = {
		[NEED_PATH] = REPRO_SYS_FILE | MOVES_BYTES,
		[NEED_SOCK] = REPRO_SYS_NETWORK | MOVES_BYTES,
		[NEED_IO] = MOVES_BYTES,
	};
	const char *what = ps->lacks[need];

	if (need == NEED_NONE || ps->rule->is_dns) /* apply_key() checked the keys of dns: */
		return 0;
	if (need == NEED_CONNECT && what == NULL && !set_is_only(ps->rule, REPRO_NET_CONNECT))
		what = ps->rule->set_text;
	else if (need != NEED_CONNECT && what == NULL && !(ps->any_bits & need_bits[need]))
		what = ps->rule->set_text;
	if (what == NULL)
		return 0;
	return repro_err_set(err, EINVAL, "'%s' makes no sense for %s in rule %zu", key, what,
			     ps->number);
}

/* error=, retval= and blackhole decide the result: one of them at most. */
static int claim_outcome(struct parse *ps, const char *key, struct repro_err **err)
{
	if (ps->outcome != NULL)
		return repro_err_set(err, EINVAL, "'%s' and '%s' exclude each other in rule %zu",
				     ps->outcome, key, ps->number);
	ps->outcome = key;
	return 0;
}

static const char *nearest_errno(const char *val)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (int e = 1; e < 4096; e++) {
		const char *name = strerrorname_np(e);
		size_t d;

		if (name != NULL && (d = rpl_rules_edit_distance(val, name)) < best_d)
			best = name, best_d = d;
	}
	return best;
}

static int dns_error(struct parse *ps, const char *val, struct repro_err **err)
{
	static const char *const names[] = {
		[RPL_DNS_NXDOMAIN] = "NXDOMAIN",
		[RPL_DNS_SERVFAIL] = "SERVFAIL",
		[RPL_DNS_TIMEOUT] = "TIMEOUT",
	};

	for (int d = RPL_DNS_NXDOMAIN; d <= RPL_DNS_TIMEOUT; d++)
		if (strcmp(val, names[d]) == 0) {
			ps->rule->dns = (enum rpl_dns_fail)d;
			return 0;
		}
	return repro_err_set(
		err, EINVAL,
		"unknown dns error '%s' in rule %zu (want NXDOMAIN, SERVFAIL or TIMEOUT)", val,
		ps->number);
}

static int key_error(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	const char *best;

	if (claim_outcome(ps, key, err) < 0)
		return -1;
	if (ps->rule->is_dns)
		return dns_error(ps, val, err);
	ps->rule->errnum = rpl_rules_parse_errno(val);
	if (ps->rule->errnum > 0)
		return 0;
	best = nearest_errno(val);
	if (best != NULL)
		return repro_err_set(err, EINVAL,
				     "unknown errno '%s' in rule %zu (did you mean '%s'?)", val,
				     ps->number, best);
	return repro_err_set(err, EINVAL, "unknown errno '%s' in rule %zu", val, ps->number);
}

static int key_retval(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	char *end = NULL;
	long long v;

	if (claim_outcome(ps, key, err) < 0)
		return -1;
	errno = 0;
	v = strtoll(val, &end, 0);
	if (errno != 0 || end == val || *end != '\0')
		return repro_err_set(err, EINVAL, "malformed retval '%s' in rule %zu", val,
				     ps->number);
	/* -4095..-1 is how the kernel returns an error (include/linux/err.h) */
	if (v < 0 && v >= -4095)
		return repro_err_set(err, EINVAL,
				     "retval=%s in rule %zu would read as an error (use error=)",
				     val, ps->number);
	ps->rule->has_retval = true;
	ps->rule->retval = v;
	return 0;
}

static int key_signal(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	ps->rule->signo = rpl_rules_parse_signal(val);
	if (ps->rule->signo < 0)
		return repro_err_set(err, EINVAL, "unknown signal '%s' in rule %zu", val,
				     ps->number);
	return 0;
}

static int bad_duration(struct parse *ps, const char *val, struct repro_err **err)
{
	return repro_err_set(
		err, EINVAL,
		"malformed duration '%s' in rule %zu (want e.g. 250ms, 1.5s, 100us, 2m)", val,
		ps->number);
}

static int key_delay_enter(struct parse *ps, const char *key, const char *val,
			   struct repro_err **err)
{
	if (rpl_rules_parse_duration(val, true, &ps->rule->delay_enter_ns) < 0)
		return bad_duration(ps, val, err);
	ps->rule->has_delay_enter = true;
	return 0;
}

/* delay_exit= (strace's, a bare number is microseconds) and delay= (a unit is required). */
static int key_delay_exit(struct parse *ps, const char *key, const char *val,
			  struct repro_err **err)
{
	bool is_strace = strcmp(key, "delay_exit=") == 0;

	if (ps->delay_exit != NULL)
		return repro_err_set(err, EINVAL, "'%s' and '%s' exclude each other in rule %zu",
				     ps->delay_exit, key, ps->number);
	if (rpl_rules_parse_duration(val, is_strace, &ps->rule->delay_exit_ns) < 0)
		return bad_duration(ps, val, err);
	ps->delay_exit = key;
	ps->rule->has_delay_exit = true;
	return 0;
}

/* A whole number 1..UINT64_MAX - 1 at s; *end is where it stops.  0 when none. */
static uint64_t count_at(const char *s, const char **end)
{
	char *e = NULL;
	unsigned long long v;

	*end = s;
	if (!isdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno != 0 || v == RPL_RULES_WHEN_INF)
		return 0;
	*end = e;
	return v;
}

static int bad_when(struct parse *ps, const char *val, struct repro_err **err)
{
	return repro_err_set(
		err, EINVAL,
		"malformed when '%s' in rule %zu (want N, N+, N+STEP, N..M or N..M+STEP)", val,
		ps->number);
}

/* when=FIRST[..LAST][+[STEP]], strace's parse_inject_token(). */
static int key_when(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	const char *p = val;
	uint64_t first, last = RPL_RULES_WHEN_INF, step;

	if (val[0] == '0' && !isdigit((unsigned char)val[1]))
		return repro_err_set(err, EINVAL, "when=%s in rule %zu: calls are counted from 1",
				     val, ps->number);
	if ((first = count_at(p, &p)) == 0)
		return bad_when(ps, val, err);
	if (p[0] == '.' && p[1] == '.' && (last = count_at(p + 2, &p)) == 0)
		return bad_when(ps, val, err);
	if (last < first)
		return repro_err_set(err, EINVAL, "when=%s in rule %zu ends before it starts", val,
				     ps->number);
	step = last == RPL_RULES_WHEN_INF ? 0 : 1; /* N: the Nth only; N..M: each of them */
	if (p[0] == '+' && p[1] == '\0')
		step = 1, p++;
	else if (p[0] == '+' && (step = count_at(p + 1, &p)) == 0)
		return bad_when(ps, val, err);
	if (*p != '\0')
		return bad_when(ps, val, err);
	ps->rule->first = first, ps->rule->last = last, ps->rule->step = step;
	return 0;
}

static int key_path(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	ps->rule->path = repro_xstrdup(val);
	return 0;
}

static int key_exe(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	ps->rule->exe = repro_xstrdup(val);
	return 0;
}

static int key_host(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	ps->rule->host = repro_xstrdup(val);
	return 0;
}

static int bad_addr(struct parse *ps, const char *val, struct repro_err **err)
{
	return repro_err_set(
		err, EINVAL,
		"malformed address '%s' in rule %zu (want IPv4[:PORT], [IPv6] or [IPv6]:PORT)", val,
		ps->number);
}

/* A port 1..65535 written in decimal, or 0. */
static int port_of(const char *s)
{
	char *end = NULL;
	long v;

	if (!isdigit((unsigned char)*s))
		return 0;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= 1 && v <= 65535 ? (int)v : 0;
}

/* addr=1.2.3.4, 1.2.3.4:80, [::1] or [::1]:443 */
static int key_addr(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	cleanup_free char *ip = NULL;
	const char *port = NULL;
	struct rpl_rule *r = ps->rule;

	if (val[0] == '[') {
		const char *close = strchr(val, ']');

		if (close == NULL || (close[1] != '\0' && close[1] != ':'))
			return bad_addr(ps, val, err);
		ip = repro_xstrndup(val + 1, (size_t)(close - val - 1));
		port = close[1] == ':' ? close + 2 : NULL;
		r->addr_family = AF_INET6;
	} else {
		size_t n = strcspn(val, ":");

		ip = repro_xstrndup(val, n);
		port = val[n] == ':' ? val + n + 1 : NULL;
		r->addr_family = AF_INET;
	}
	if (inet_pton(r->addr_family, ip, r->addr) != 1)
		return bad_addr(ps, val, err);
	if (port != NULL && (r->addr_port = port_of(port)) == 0)
		return bad_addr(ps, val, err);
	return 0;
}

static int key_port(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	ps->rule->port = port_of(val);
	if (ps->rule->port == 0)
		return repro_err_set(err, EINVAL, "malformed port '%s' in rule %zu (want 1..65535)",
				     val, ps->number);
	return 0;
}

static int key_type(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	if (strcmp(val, "stream") == 0)
		ps->rule->sock_type = SOCK_STREAM;
	else if (strcmp(val, "dgram") == 0)
		ps->rule->sock_type = SOCK_DGRAM;
	else
		return repro_err_set(err, EINVAL,
				     "unknown socket type '%s' in rule %zu (want stream or dgram)",
				     val, ps->number);
	return 0;
}

static int key_prob(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	char *end = NULL;
	double p;

	errno = 0;
	p = strtod(val, &end);
	if (errno != 0 || end == val || *end != '\0' || isnan(p) ||
	    !(isdigit((unsigned char)val[0]) || val[0] == '.'))
		return repro_err_set(err, EINVAL,
				     "malformed prob '%s' in rule %zu (want a number in 0..1)", val,
				     ps->number);
	if (p > 1)
		return repro_err_set(err, EINVAL, "prob=%s is outside 0..1 in rule %zu", val,
				     ps->number);
	ps->rule->has_prob = true;
	ps->rule->prob = p;
	return 0;
}

static int key_after(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	if (rpl_rules_parse_size(val, &ps->rule->after) < 0)
		return repro_err_set(err, EINVAL,
				     "malformed size '%s' in rule %zu (want e.g. 4096, 4k, 1M)",
				     val, ps->number);
	ps->rule->has_after = true;
	return 0;
}

static int key_blackhole(struct parse *ps, const char *key, const char *val, struct repro_err **err)
{
	if (claim_outcome(ps, key, err) < 0)
		return -1;
	ps->rule->is_blackhole = true;
	return 0;
}

/* Keys, with '=' when they take a value; strace's first, then repro's. */
static const struct key {
	const char *name;
	key_parse_fn parse;
	enum need need;
	unsigned flags;
} keys[] = {
	{ "error=", key_error, NEED_NONE, K_FAULT | K_DNS },
	{ "retval=", key_retval, NEED_NONE, 0 },
	{ "signal=", key_signal, NEED_NONE, 0 },
	{ "when=", key_when, NEED_NONE, K_FAULT | K_DNS | K_REPEAT },
	{ "delay_enter=", key_delay_enter, NEED_NONE, K_DNS },
	{ "delay_exit=", key_delay_exit, NEED_NONE, K_DNS },
	{ "delay=", key_delay_exit, NEED_NONE, K_DNS },
	{ "path=", key_path, NEED_PATH, K_FAULT },
	{ "addr=", key_addr, NEED_SOCK, K_FAULT },
	{ "port=", key_port, NEED_SOCK, K_FAULT },
	{ "host=", key_host, NEED_SOCK, K_FAULT | K_DNS },
	{ "type=", key_type, NEED_SOCK, K_FAULT },
	{ "exe=", key_exe, NEED_NONE, K_FAULT | K_DNS },
	{ "prob=", key_prob, NEED_NONE, K_FAULT | K_DNS },
	{ "after=", key_after, NEED_IO, K_FAULT },
	{ "blackhole", key_blackhole, NEED_CONNECT, 0 },
};

/* strace keys repro does not take. */
static const char *const strace_only[] = { "syscall=", "poke_enter=", "poke_exit=" };

static int unknown_key(struct parse *ps, const char *key, struct repro_err **err)
{
	cleanup_free char *bare = repro_xstrndup(key, strcspn(key, "="));
	const char *words[sizeof(keys) / sizeof(keys[0]) + 1] = { 0 };
	cleanup_free char *names = NULL;
	const char *best;

	for (size_t i = 0; i < sizeof(strace_only) / sizeof(strace_only[0]); i++)
		if (strcmp(key, strace_only[i]) == 0)
			return repro_err_set(err, EINVAL,
					     "strace's '%s' is not supported in rule %zu", key,
					     ps->number);
	/* compare without the '=': "errno" is near "error" */
	names = repro_xmalloc(sizeof(keys) / sizeof(keys[0]) * 16);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *w = names + i * 16;

		snprintf(w, 16, "%.*s", (int)strcspn(keys[i].name, "="), keys[i].name);
		words[i] = w;
	}
	best = nearest_word(bare, words);
	if (best != NULL && strcmp(best, bare) == 0)
		return repro_err_set(err, EINVAL, "'%s' %s in rule %zu", bare,
				     strchr(key, '=') != NULL ? "takes no value" : "needs a value",
				     ps->number);
	if (best != NULL)
		return repro_err_set(err, EINVAL,
				     "unknown key '%s' in rule %zu (did you mean '%s'?)", bare,
				     ps->number, best);
	return repro_err_set(err, EINVAL, "unknown key '%s' in rule %zu", bare, ps->number);
}

/* Check that key k may appear here, then parse its value. */
static int apply_key(struct parse *ps, size_t k, const char *val, struct repro_err **err)
{
	const struct key *key = &keys[k];

	if ((ps->seen >> k) & 1 && !(key->flags & K_REPEAT))
		return repro_err_set(err, EINVAL, "duplicate '%s' in rule %zu", key->name,
				     ps->number);
	ps->seen |= 1u << k;
	if (ps->is_fault && !(key->flags & K_FAULT))
		return repro_err_set(err, EINVAL,
				     "'%s' is not allowed with fault= in rule %zu (use inject=)",
				     key->name, ps->number);
	if (ps->rule->is_dns && !(key->flags & K_DNS))
		return repro_err_set(err, EINVAL, "'%s' makes no sense for dns in rule %zu",
				     key->name, ps->number);
	if (check_need(ps, key->name, key->need, err) < 0)
		return -1;
	if (val != NULL && val[0] == '\0')
		return repro_err_set(err, EINVAL, "empty '%s' in rule %zu", key->name, ps->number);
	return key->parse(ps, key->name, val, err);
}

/*
 * The length of a value up to the next ':' that no backslash escapes
 * ("a\:b" is one value, the backslash kept: path=, exe= and host= are
 * fnmatch(3) globs, where "\:" matches a ':').  Linear in the value.
 */
static size_t escaped_len(const char *val)
{
	size_t n = 0;

	while (val[n] != '\0' && val[n] != ':')
		n += val[n] == '\\' && val[n + 1] != '\0' ? 2 : 1;
	return n;
}

/*
 * The length of the value at val of key: up to the next ':' not escaped
 * by a backslash, except that addr= keeps its port ("10.0.0.1:80",
 * "[::1]:443").
 */
static size_t value_len(const char *key, size_t key_len, const char *val)
{
	size_t n;

	if (key_len != 5 || strncmp(key, "addr=", 5) != 0)
		return escaped_len(val);
	if (val[0] == '[') {
		n = strcspn(val, "]");
		n += val[n] == ']';
	} else {
		n = strcspn(val, ":");
	}
	if (val[n] == ':' && isdigit((unsigned char)val[n + 1])) {
		size_t digits = strspn(val + n + 1, "0123456789");

		if (val[n + 1 + digits] == '\0' || val[n + 1 + digits] == ':')
			n += 1 + digits;
	}
	return n;
}

/* One token "key=value" or "keyword" of length len at tok. */
static int parse_token(struct parse *ps, const char *tok, size_t key_len, size_t len,
		       struct repro_err **err)
{
	cleanup_free char *key = repro_xstrndup(tok, key_len);
	cleanup_free char *val = NULL;

	if (key_len > 0 && tok[key_len - 1] == '=')
		val = repro_xstrndup(tok + key_len, len - key_len);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strcmp(key, keys[k].name) == 0)
			return apply_key(ps, k, val, err);
	return unknown_key(ps, key, err);
}

/* The tokens after SET, split at ':' (empty ones are skipped, as strace's strtok_r() does). */
static int parse_tokens(struct parse *ps, const char *p, struct repro_err **err)
{
	while (*p != '\0') {
		size_t key_len = strcspn(p, "=:"), len = key_len;

		if (p[key_len] == '=') {
			key_len++;
			len = key_len + value_len(p, key_len, p + key_len);
		}
		if (len > 0 && parse_token(ps, p, key_len, len, err) < 0)
			return -1;
		p += len;
		p += *p == ':';
	}
	return 0;
}

/*
 * Strip strace's spelling: "-e inject=", "-e fault=", "--inject=",
 * "--fault=", "inject=", "fault=".  Returns the rest, or NULL when an
 * option is not one of those.
 */
static const char *strip_prefix(const char *text, bool *is_fault)
{
	const char *p = text;
	bool is_option = false;

	if (strncmp(p, "--", 2) == 0)
		p += 2, is_option = true;
	else if (strncmp(p, "-e", 2) == 0)
		p += 2 + strspn(p + 2, " "), is_option = true;
	*is_fault = strncmp(p, "fault=", 6) == 0;
	if (*is_fault)
		return p + 6;
	if (strncmp(p, "inject=", 7) == 0)
		return p + 7;
	return is_option ? NULL : p;
}

/* The checks that need the whole rule; fault= gets its default error. */
static int finish(struct parse *ps, struct repro_err **err)
{
	struct rpl_rule *r = ps->rule;
	bool has_action = ps->outcome != NULL || r->signo > 0 || r->has_delay_enter ||
			  r->has_delay_exit;

	if (r->is_dns && r->dns == RPL_DNS_NONE)
		return repro_err_set(
			err, EINVAL,
			"rule %zu has no action (want error=NXDOMAIN, SERVFAIL or TIMEOUT)",
			ps->number);
	if (!has_action && ps->is_fault) {
		r->errnum = ENOSYS; /* strace(1) --fault: "a default errno of ENOSYS" */
		return 0;
	}
	if (!has_action)
		return repro_err_set(
			err, EINVAL,
			"rule %zu has no action (want error=, retval=, signal=, delay=, delay_enter=, delay_exit= or blackhole)",
			ps->number);
	return 0;
}

int rpl_rule_parse(struct rpl_rule *rule, const char *text, size_t number, struct repro_err **err)
{
	struct parse ps = { .rule = rule, .number = number };
	const char *body = strip_prefix(text, &ps.is_fault);
	cleanup_free char *set = NULL;

	if (body == NULL)
		return repro_err_set(err, EINVAL, "rule %zu is not an inject= or fault= expression",
				     number);
	set = repro_xstrndup(body, strcspn(body, ":"));
	rule->set_text = repro_xstrdup(set);
	rule->first = 1, rule->last = RPL_RULES_WHEN_INF, rule->step = 1;
	rule->is_dns = strcmp(set, "dns") == 0;
	if (!rule->is_dns && parse_set(&ps, set, err) < 0)
		return -1;
	if (parse_tokens(&ps, body + strlen(rule->set_text), err) < 0)
		return -1;
	return finish(&ps, err);
}

void rpl_rule_release(struct rpl_rule *rule)
{
	free(rule->set_text);
	free(rule->path);
	free(rule->exe);
	free(rule->host);
	free(rule->origins);
	*rule = (struct rpl_rule){ 0 };
}
