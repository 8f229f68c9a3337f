#ifndef REPRO_LAUNCHER_NETFAULT_H
#define REPRO_LAUNCHER_NETFAULT_H

/*
 * Network faults the kernel itself plays out (a policy's net_fault,
 * launcher/policy.h): a TCP connect that a policy refuses, times out or
 * blackholes is not skipped but sent to an endpoint of the tracer's on the
 * program's loopback, in the program's network namespace:
 *
 *   - refused: a bound socket that does not listen, so the SYN gets a RST:
 *     ECONNREFUSED, at once for a blocking connect, through poll(2) and
 *     getsockopt(SO_ERROR) after EINPROGRESS for a non-blocking one;
 *   - blackhole: a listener (backlog 0) whose accept queue the tracer
 *     filled, so the kernel drops every further SYN: the connect never
 *     completes and the program's own timeout decides;
 *   - timed out: the blackhole, with TCP_USER_TIMEOUT set on the program's
 *     socket (through a pidfd_getfd(2) copy) to the policy's delay, after
 *     which the kernel fails the connect with ETIMEDOUT, as a firewall that
 *     drops SYNs would.
 *
 * The program's sockaddr is not touched: the substitute address is written
 * below its stack pointer (past the 128-byte red zone) and the call's
 * argument pointed at it.  Endpoints are made once, before the loop
 * handles the program's first call and only when a policy may ask for such
 * a fault (lnch_policy_ops.may_net_fault), by a short-lived child that
 * joins the first process's user and network namespaces when they are not
 * the tracer's: never while the loop's mutex is held or a stop waits.  A
 * connect from another network namespace (the program made its own) is
 * not redirected: the policy's errno is imposed as usual.  Internal to
 * launcher/.
 */

#include "launcher/policy.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Most fds a set of endpoints holds (2 families x refuser, listener, 3 fillers). */
#define LNCH_NETFAULT_FDS 10

struct lnch_netfault {
	bool has4, has6; /* the endpoints of that family were made */
	dev_t ns_dev; /* the network namespace they are in (stat(2) of /proc/PID/ns/net) */
	ino_t ns_ino;
	struct sockaddr_in refuse4, hole4;
	struct sockaddr_in6 refuse6, hole6;
	int fds[LNCH_NETFAULT_FDS]; /* owned */
	int nfds;
};

/* lnch_netfault_init - no endpoints (every redirect refused); nothing to fail. */
void lnch_netfault_init(struct lnch_netfault *nf);

/* lnch_netfault_release - close the endpoints nf owns; nf is as after init. */
void lnch_netfault_release(struct lnch_netfault *nf);

/*
 * lnch_netfault_prepare - make the endpoints in the network namespace of
 * pid (a traced process, not yet reaped: the loop's first one) and keep
 * their fds in nf, which must be as after init.  Forks a helper that
 * joins pid's user and network namespaces (setns(2)) unless they are the
 * tracer's, makes 2 x 5 loopback sockets and sends them back (SCM_RIGHTS),
 * and reaps it: blocks for about a fork, a few syscalls and at most
 * 200 ms of poll(2) in the helper (a loopback connect completes at once).
 * The caller must be the thread that reaps the tracer's children and must
 * not hold the loop's mutex.  Failures are not errors: a family whose
 * endpoints could not be made is never redirected (has4, has6 false).
 */
void lnch_netfault_prepare(struct lnch_netfault *nf, pid_t pid);

/*
 * lnch_netfault_redirect - at the seccomp stop of tid's connect(fd, addr,
 * len) (args as the stop has them; pid its process): send it to the
 * endpoint for fault, family AF_INET or AF_INET6 of the program's address;
 * for LNCH_NET_TIMEOUT with timeout_ms > 0 also set TCP_USER_TIMEOUT.
 * Never makes endpoints (lnch_netfault_prepare() did, or none exist).
 * Cost: a stat(2) of /proc/PID/ns/net, register reads and writes and a
 * write of the sockaddr (at most 28 bytes).  Returns true when the call
 * now goes there, false when it cannot (no endpoint for the family, pid
 * in another network namespace than the endpoints, registers or memory
 * refused): the caller then skips the call with its errno as before.
 */
bool lnch_netfault_redirect(struct lnch_netfault *nf, pid_t tid, pid_t pid, int family,
			    enum lnch_net_fault fault, uint32_t timeout_ms, const uint64_t args[6]);

#endif
