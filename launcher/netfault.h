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
 * argument pointed at it.  Endpoints are made at the first such connect,
 * by a short-lived child that joins the program's user and network
 * namespaces when they are not the tracer's.  Internal to launcher/.
 */

#include "launcher/policy.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Most fds a set of endpoints holds (2 families x refuser, listener, 3 fillers). */
#define LNCH_NETFAULT_FDS 10

struct lnch_netfault {
	bool tried; /* endpoints were made (or failed to be) */
	bool has4, has6;
	struct sockaddr_in refuse4, hole4;
	struct sockaddr_in6 refuse6, hole6;
	int fds[LNCH_NETFAULT_FDS]; /* owned */
	int nfds;
};

void lnch_netfault_init(struct lnch_netfault *nf);
void lnch_netfault_release(struct lnch_netfault *nf);

/*
 * lnch_netfault_redirect - at the seccomp stop of tid's connect(fd, addr,
 * len) (args as the stop has them; pid its process): send it to the
 * endpoint for fault, family AF_INET or AF_INET6 of the program's address;
 * for LNCH_NET_TIMEOUT with timeout_ms > 0 also set TCP_USER_TIMEOUT.
 * Makes the endpoints on first use (a fork, setns(2) and a few sockets).
 * Returns true when the call now goes there, false when it cannot (no
 * endpoint for the family, registers or memory refused): the caller then
 * skips the call with its errno as before.
 */
bool lnch_netfault_redirect(struct lnch_netfault *nf, pid_t tid, pid_t pid, int family,
			    enum lnch_net_fault fault, uint32_t timeout_ms, const uint64_t args[6]);

#endif
