#ifndef REPRO_LAUNCHER_POLICY_H
#define REPRO_LAUNCHER_POLICY_H

/*
 * The policy seam of the ptrace loop (docs/architecture.md): at every
 * syscall entry each registered policy may let the call run or impose an
 * outcome, deciding on the call as the recorder decoded it (struct
 * lnch_call: what an observer's describe() filled in), the same on the
 * ptrace path and the seccomp-notification path.  Fault rules and replay
 * are policies; adding one never touches the loop.
 */

#include "launcher/stop.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * A decoded syscall, as policies see it.  Every pointer is borrowed for the
 * duration of one decide() call; NULL (or 0) means "this call has no such
 * datum", and a filter on an absent datum does not match.
 */
struct lnch_call {
	const char *syscall; /* libseccomp name, e.g. "openat"; NULL when unknown */
	int nr; /* native syscall number; -1 for a call through another ABI (int $0x80) */
	/* resolved absolute path of the first path argument (docs/bundle-format.md "Paths"), or NULL */
	const char *path;
	const char *path_as_written; /* the path argument as the program gave it, or NULL */
	/* a second path (rename's, link's target, canonical), or NULL: path= matches either */
	const char *path2;
	int family; /* socket family (AF_INET, AF_INET6, AF_UNIX …), 0 when not a socket */
	const char *ip; /* peer or target address as text ("10.0.0.1", "::1"), or NULL */
	int port; /* peer or target port, 1..65535; 0 when none */
	int sock_type; /* SOCK_STREAM or SOCK_DGRAM; 0 when not known */
	const char *host; /* the DNS name the address came from, or NULL */
	const char *exe; /* absolute path of the calling process's executable, or NULL */
	/*
	 * the programs the process and its ancestors exec'd, the first
	 * process's first, as "/bin/bash > /usr/bin/python3" (exes as
	 * /proc/PID/exe gives them), or NULL
	 */
	const char *lineage;
	uint64_t fd_bytes; /* bytes moved through this descriptor before this call (after=) */
	bool is_dns_query; /* the call sends a DNS query */
	const char *dns_name; /* the name the query asks for, when is_dns_query */
	int64_t dns_ret; /* with is_dns_query: what the call returns once sent (bytes, or messages) */
	uint16_t dns_ids
		[4]; /* with is_dns_query: the ids of the queries it sends (sendmmsg: several) */
	int n_dns_ids;
};

/*
 * A connect outcome the kernel itself plays out (launcher/netfault.h), for
 * a TCP connect to an IPv4 or IPv6 address: the call is sent to an endpoint
 * of the tracer's on the program's loopback, so blocking and non-blocking
 * sockets see it as they would on a real network.
 */
enum lnch_net_fault {
	LNCH_NET_NONE = 0,
	LNCH_NET_REFUSE, /* a RST: ECONNREFUSED */
	LNCH_NET_BLACKHOLE, /* SYNs dropped: the connect never completes */
	LNCH_NET_TIMEOUT, /* SYNs dropped, then ETIMEDOUT after delay_exit_ns (TCP_USER_TIMEOUT) */
};

/* What a policy decides for one call. */
struct lnch_verdict {
	int errnum; /* > 0: skip the call and return -errnum */
	bool has_retval; /* skip the call and return retval (errnum 0) */
	int64_t retval;
	/*
	 * Hold the calling thread this long (ns) before the call runs or is
	 * skipped, and before its result returns.  Only that thread waits: the
	 * loop serves every other tracee meanwhile (docs/architecture.md,
	 * "Policies").  A verdict with delays and neither errnum nor retval
	 * lets the call run after its delay_enter_ns.
	 */
	uint64_t delay_enter_ns;
	uint64_t delay_exit_ns;
	int origin; /* the policy's own number for what decided (a rule, from 1), 0: none */
	/*
	 * a connect: play errnum out in the kernel (LNCH_NET_REFUSE with
	 * ECONNREFUSED …); where that cannot be done (not TCP over IPv4/IPv6,
	 * no loopback, no endpoints: may_net_fault said no, or the caller is
	 * in a network namespace of its own), errnum is imposed as usual
	 */
	enum lnch_net_fault net_fault;
	/*
	 * let the call run with argument arg_i set to arg_val (a count cut
	 * short: a write that stops at a disk's last byte)
	 */
	bool has_arg;
	int arg_i;
	uint64_t arg_val;
	/* give this policy the call's result (its on_exit), whatever else it decided */
	bool observe_exit;
	/* > 0: send the calling thread this signal at the call's entry (strace's signal=) */
	int signo;
	/*
	 * a receive (buffer args[1], args[2] bytes): at its exit, give the
	 * bytes it got to this policy's rewrite(), which may replace them
	 */
	bool rewrite_result;
};

struct lnch_policy_ops {
	/*
	 * decide - called at a call's entry, after observers saw it (st and
	 * call borrowed).  Fill *v and return 1 to impose it, or return 0 to
	 * let the call run.  The first policy that returns 1 wins.
	 */
	int (*decide)(void *ctx, const struct lnch_stop *st, const struct lnch_call *call,
		      struct lnch_verdict *v);
	/*
	 * on_exit - the result of a call whose verdict had observe_exit (st
	 * borrowed: ret, injected); may be NULL.  Every policy that asked is
	 * told, whichever decided.  Returns true to end the run now: every
	 * traced process is killed, as at a time limit (lnch_result
	 * .ended_by_policy).  On the ptrace path only: the calls the
	 * notification path answers are path lookups.
	 */
	bool (*on_exit)(void *ctx, const struct lnch_stop *st);
	/*
	 * rewrite - the exit of a call whose verdict had rewrite_result: in
	 * (len bytes, borrowed) is what the call received, or its first len
	 * bytes when it received more (st->ret); write at most cap bytes to
	 * out and return their count to make the call return those instead
	 * (the event is then marked injected), or 0 to leave it.  Setting
	 * *in_place instead overwrites only the first bytes and keeps the
	 * call's count (a stream, whose next bytes stay in order).  May be
	 * NULL.  Ptrace path only.
	 */
	size_t (*rewrite)(void *ctx, const struct lnch_stop *st, const uint8_t *in, size_t len,
			  uint8_t *out, size_t cap, bool *in_place);
	/*
	 * may_net_fault - whether decide() may ever give a verdict with a
	 * net_fault; asked once, when the loop starts (lnch_loop_run()).
	 * When one policy says so, the loop makes the fault endpoints then
	 * (launcher/netfault.h: a fork, in the program's network namespace);
	 * otherwise nothing is made and a net_fault is imposed as its errnum
	 * only.  Must not err towards false; may be NULL: never.
	 */
	bool (*may_net_fault)(void *ctx);
};

/* lnch_verdict_is_active - whether v changes anything (an outcome or a delay). */
static inline bool lnch_verdict_is_active(const struct lnch_verdict *v)
{
	return v->errnum != 0 || v->has_retval || v->delay_enter_ns != 0 || v->delay_exit_ns != 0 ||
	       v->net_fault != LNCH_NET_NONE || v->has_arg || v->signo > 0 || v->rewrite_result;
}

/* lnch_verdict_skips - whether v skips the call (imposes its result). */
static inline bool lnch_verdict_skips(const struct lnch_verdict *v)
{
	return v->errnum != 0 || v->has_retval;
}

#endif
