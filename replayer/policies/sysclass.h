#ifndef REPRO_REPLAYER_POLICIES_SYSCLASS_H
#define REPRO_REPLAYER_POLICIES_SYSCLASS_H

/*
 * The syscall classes of fault rules (docs/faults.md): strace's %file,
 * %network (%net), %process and %desc, taken from the TF, TN, TP and TD
 * flags of strace's src/linux/x86_64/syscallent.h and
 * src/linux/generic/syscallent-common.h at tag v6.19 (for the calls strace
 * 6.1 knew, the same sets as tests/integration/strace_classes.txt), plus
 * the calls that move bytes through a descriptor (after=).  The table lives
 * in sysclass.c only.
 */

#include <stdbool.h>
#include <stddef.h>

enum rpl_sysclass {
	RPL_SYSCLASS_FILE = 1u << 0, /* strace TF: takes a path */
	RPL_SYSCLASS_NETWORK = 1u << 1, /* strace TN */
	RPL_SYSCLASS_PROCESS = 1u << 2, /* strace TP */
	RPL_SYSCLASS_DESC = 1u << 3, /* strace TD: takes or returns a descriptor */
	RPL_SYSCLASS_IO = 1u << 4, /* moves bytes through a descriptor (repro's own) */
};

/*
 * rpl_sysclass_of - the RPL_SYSCLASS_* bits of the syscall called name (a
 * libseccomp name); 0 for a call in no class or a name not in the table.
 * Cost: a binary search of the table, O(log n) string compares.
 */
unsigned rpl_sysclass_of(const char *name);

/*
 * rpl_sysclass_lookup - the bits of the class called name: "%file",
 * "%network", "%net", "%process", "%desc", or strace's legacy spellings
 * without the '%' ("file", "network", "process", "desc").  Returns 0 when
 * name is no class.  O(1).
 */
unsigned rpl_sysclass_lookup(const char *name);

/*
 * rpl_sysclass_name - the i-th name of the table (i from 0), or NULL past
 * its end; for walking a class.  Borrowed: static storage.
 */
const char *rpl_sysclass_name(size_t i);

/*
 * rpl_sysclass_class_name - the i-th class spelling accepted by
 * rpl_sysclass_lookup() ("%file" …), or NULL past the end; for suggesting
 * the nearest one.  Borrowed: static storage.
 */
const char *rpl_sysclass_class_name(size_t i);

/*
 * rpl_sysclass_alias - the x86_64 syscall that implements the libc call
 * called name when the kernel has no call of that name ("recv" is
 * "recvfrom", "send" is "sendto"), or NULL.  Borrowed: static storage.
 */
const char *rpl_sysclass_alias(const char *name);

#endif
