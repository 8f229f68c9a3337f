#ifndef REPRO_LAUNCHER_TAINT_H
#define REPRO_LAUNCHER_TAINT_H

/*
 * Calls after which the tracer may no longer act for a tracee (launcher/behalf.h):
 * they change its credentials, its root or the mount tree, so a path walk
 * by the tracer could end elsewhere or be allowed differently.  Internal to
 * launcher/.
 */

#include "common/sysent.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/filter_rule.h"

/*
 * lnch_taint_next - the next row of the table with a taint scope at or
 * after *pos (start at 0; *pos is advanced past it) as a filter rule
 * (name, and the row's argument condition: prctl(2) only with
 * PR_SET_SECCOMP) into *out; false past the end.  A whole walk is linear
 * in the table.
 */
bool lnch_taint_next(size_t *pos, struct lnch_filter_rule *out);

#define LNCH_TAINT_ABIS 4
#define LNCH_TAINT_NRS 1024 /* syscall numbers below this are looked up directly */

/*
 * The taint calls resolved to numbers for each ABI of the filter, as a
 * scope per number: the loop looks every seccomp stop up, so in O(1).
 */
struct lnch_taint_table {
	uint32_t arch[LNCH_TAINT_ABIS];
	size_t narch;
	uint8_t scope[LNCH_TAINT_ABIS][LNCH_TAINT_NRS]; /* enum repro_sys_taint */
};

/* lnch_taint_table_init - resolve every taint call for every ABI of lnch_arch_filter_arches(). */
void lnch_taint_table_init(struct lnch_taint_table *t);

/* lnch_taint_scope_of - the scope of call nr of ABI arch, REPRO_TAINT_NONE for others. */
enum repro_sys_taint lnch_taint_scope_of(const struct lnch_taint_table *t, uint32_t arch, int nr);

/*
 * lnch_proc_read - read /proc/PID/NAME (pid 0: the caller's) into buf (cap
 * bytes, NUL-terminated, no allocation: one read(2), enough for the
 * status-like files of proc(5)).  Returns the length in bytes, or -1 with
 * errno.
 */
ssize_t lnch_proc_read(pid_t pid, const char *name, char *buf, size_t cap);

/*
 * lnch_taint_creds_text - what the kernel checks a path walk of pid against,
 * as text: the Uid, Gid, Groups and CapEff lines of /proc/PID/status
 * (proc(5)) and the LSM label of /proc/PID/attr/current when there is one;
 * pid 0 is the caller.  Written to buf (cap bytes, NUL-terminated; "" when
 * unreadable).  An exec can change them (a set-user-ID program run by
 * root, an AppArmor or SELinux domain transition): the loop compares them
 * after each exec when that is possible.
 */
void lnch_taint_creds_text(pid_t pid, char *buf, size_t cap);

/* lnch_taint_exec_may_change - whether an exec can change credentials here: repro runs as root, or an LSM labels processes. */
bool lnch_taint_exec_may_change(void);

#endif
