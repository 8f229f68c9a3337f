#ifndef REPRO_RECORDER_DESCRIBE_H
#define REPRO_RECORDER_DESCRIBE_H

/*
 * A call as policies see it (struct lnch_call, launcher/policy.h), filled
 * from what the recorder captured at its entry stop: the syscall's name,
 * the first path argument canonical and as written, the sockaddr
 * (family, ip, port) and, for a connect, the socket's type, and the
 * process's executable.  Fault rules match on it (replayer/policies/).
 */

#include "launcher/policy.h"
#include "recorder/capture.h"

#include <netinet/in.h>
#include <limits.h>
#include <sys/types.h>

/* Buffers the strings of a struct lnch_call point into, and a one-process exe cache. */
struct rec_describe {
	char ip[INET6_ADDRSTRLEN];
	pid_t exe_pid; /* whose exe is in exe, 0: none */
	char exe[PATH_MAX];
};

/*
 * rec_describe_call - fill *call from capture c (the entry just captured
 * for st; borrowed), its strings pointing into c and d (valid until the
 * task's next stop).  Costs: a scan of c's blobs; one readlink(2) of
 * /proc/PID/exe when the process differs from the last one described; for
 * a connect, pidfd_open(2) + pidfd_getfd(2) + getsockopt(SO_TYPE).
 */
void rec_describe_call(struct rec_describe *d, const struct rec_capture *c,
		       const struct lnch_stop *st, struct lnch_call *call);

/* rec_describe_forget - pid exec'd (or ended): its executable is read again. */
void rec_describe_forget(struct rec_describe *d, pid_t pid);

#endif
