#ifndef REPRO_REPLAYER_POLICIES_CALL_H
#define REPRO_REPLAYER_POLICIES_CALL_H

/*
 * A decoded syscall as fault rules see it (replayer/policies/rules.h): plain
 * data that whoever decodes the stop fills in.  Every pointer is borrowed
 * for the duration of one rpl_rules_match() call; NULL (or 0) means "this
 * call has no such datum", and a filter on an absent datum does not match.
 */

#include <stdbool.h>
#include <stdint.h>

struct rpl_call {
	const char *syscall; /* borrowed: libseccomp name, e.g. "openat" */
	int nr; /* native syscall number (seccomp_syscall_resolve_name) */
	/* borrowed: resolved absolute path (for read, write … the descriptor's file), or NULL */
	const char *path;
	/* borrowed: the path argument as the program gave it, or NULL */
	const char *path_as_written;
	int family; /* socket family (AF_INET, AF_INET6, AF_UNIX …), 0 when not a socket */
	const char *ip; /* borrowed: peer or target address as text ("10.0.0.1", "::1"), or NULL */
	int port; /* peer or target port, 1..65535; 0 when none */
	int sock_type; /* SOCK_STREAM or SOCK_DGRAM; 0 when not a socket */
	const char *host; /* borrowed: the DNS name the address came from, or NULL */
	const char *exe; /* borrowed: absolute path of the calling process's executable, or NULL */
	uint64_t fd_bytes; /* bytes moved through this descriptor before this call (after=) */
	bool is_dns_query; /* the call sends a DNS query */
	const char *dns_name; /* borrowed: the name the query asks for, when is_dns_query */
};

#endif
