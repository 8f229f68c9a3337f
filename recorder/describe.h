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
#include "recorder/dns.h"

#include <netinet/in.h>
#include <limits.h>
#include <sys/types.h>

/* Native syscall numbers whose names are cached (x86_64 has fewer than 512). */
#define REC_DESCRIBE_NAMES 1024

/* Buffers the strings of a struct lnch_call point into, and a one-process exe cache. */
struct rec_describe {
	char ip[INET6_ADDRSTRLEN];
	pid_t exe_pid; /* whose exe is in exe, 0: none */
	char exe[PATH_MAX];
	char fd_path[PATH_MAX]; /* the file a read or write goes to (/proc/PID/fd/N) */
	/* owned: libseccomp's names of native calls outside the recorder's table, by number */
	char *names[REC_DESCRIBE_NAMES];
	json_t *hosts; /* owned: address -> the name a DNS answer of the run gave it (host=) */
	json_t *etc_hosts; /* owned: address -> first name in the program's /etc/hosts, read once */
	json_t *lineage; /* owned: "PID" -> the exec lineage of each live process */
	bool read_etc_hosts;
	char qname[REC_DNS_NAME_MAX]; /* the name a DNS query being sent asks for */
};

/* Most addresses whose DNS name is kept. */
#define REC_DESCRIBE_HOSTS_MAX 100000

/*
 * rec_describe_call - fill *call from capture c (the entry just captured
 * for st; borrowed), its strings pointing into c and d (valid until the
 * task's next stop).  Costs: a scan of c's blobs; one readlink(2) of
 * /proc/PID/exe when the process differs from the last one described; for
 * a connect, pidfd_open(2) + pidfd_getfd(2) + getsockopt(SO_TYPE); for a
 * send or receive without an address, the same and getpeername(2); for a
 * call that reads or writes a descriptor (read, write, pread64, pwrite64,
 * readv, writev), a readlink(2) of /proc/PID/fd/N: path is that file; a
 * send of a DNS query is parsed for its name.
 */
void rec_describe_call(struct rec_describe *d, const struct rec_capture *c,
		       const struct lnch_stop *st, struct lnch_call *call);

/* rec_describe_release - free the names d cached. */
void rec_describe_release(struct rec_describe *d);

/*
 * rec_describe_learn - at the exit of a receive on a DNS socket (c holds
 * its payloads): remember which name each A/AAAA answer belongs to, for
 * host= of later connects.  Bounded by REC_DESCRIBE_HOSTS_MAX addresses.
 * Cost: one parse per payload.
 */
void rec_describe_learn(struct rec_describe *d, const struct rec_capture *c);

/* rec_describe_forget - pid exec'd (or ended): its executable is read again. */
void rec_describe_forget(struct rec_describe *d, pid_t pid);

/*
 * The exec lineage of processes (struct lnch_call.lineage): a new process
 * starts with its parent's; an exec appends the new executable; an ended
 * process is forgotten.  Memory: one string per live process, the length
 * of its chain of execs (each exec path at most PATH_MAX; a chain past 8
 * KiB keeps its end).
 */
void rec_describe_spawn(struct rec_describe *d, pid_t parent, pid_t child);
void rec_describe_exec(struct rec_describe *d, pid_t pid);
void rec_describe_exit(struct rec_describe *d, pid_t pid);

#endif
