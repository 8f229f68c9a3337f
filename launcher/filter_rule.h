#ifndef REPRO_LAUNCHER_FILTER_RULE_H
#define REPRO_LAUNCHER_FILTER_RULE_H

/* What the seccomp filter traps, as data: the recorder says which calls, the launcher builds the filter. */

#include <stdbool.h>
#include <stdint.h>

/* One syscall the seccomp filter sends to the tracer, by name. */
struct lnch_filter_rule {
	const char *name; /* borrowed: libseccomp name ("openat") */
	/*
	 * Optional argument condition: stop only when
	 * (args[arg] & mask) == value, or when is_ne, args[arg] != value,
	 * or when is_le, args[arg] <= value (unsigned, 64 bits);
	 * arg < 0 means "always".
	 */
	int arg;
	bool is_ne;
	bool is_le;
	/*
	 * The condition is for ptrace stops only: with a notification
	 * listener for the call, every call goes to it (cheap), and the
	 * observers decide at its entry.
	 */
	bool is_ptrace_only_cond;
	uint64_t mask;
	uint64_t value;
};

#endif
