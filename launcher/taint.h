#ifndef REPRO_LAUNCHER_TAINT_H
#define REPRO_LAUNCHER_TAINT_H

/*
 * Calls after which the tracer may no longer act for a tracee (launcher/behalf.h):
 * they change its credentials, its root or the mount tree, so a path walk
 * by the tracer could end elsewhere or be allowed differently.  Internal to
 * launcher/.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum lnch_taint_scope {
	LNCH_TAINT_NONE = 0,
	LNCH_TAINT_TASK, /* the calling thread and what it starts (unshare, setns) */
	/*
	 * the same, once the call has changed what a path walk is checked
	 * against (set*id, setgroups, capset): a call that leaves the
	 * credentials as they were (setresuid(-1, 0, -1) by root, as compilers'
	 * drivers do) changes nothing, and is compared at its exit
	 */
	LNCH_TAINT_CREDS,
	/* clone: the caller and the child when the child gets a new user or mount namespace */
	LNCH_TAINT_CLONE,
	LNCH_TAINT_CLONE3, /* the same for clone3(2), whose flags are in struct clone_args */
	/*
	 * every tracee: mount, umount2, pivot_root ... change the one mount
	 * namespace; chroot changes an fs_struct that other processes may
	 * share (clone(CLONE_FS)).
	 */
	LNCH_TAINT_ALL,
	/*
	 * seccomp(2) SECCOMP_SET_MODE_FILTER, prctl(2) PR_SET_SECCOMP with
	 * SECCOMP_MODE_FILTER: the task installs a filter of its own, which
	 * may decide calls before repro's filter sees them (and its children
	 * inherit it; SECCOMP_FILTER_FLAG_TSYNC puts it on every thread)
	 */
	LNCH_TAINT_SECCOMP,
	LNCH_TAINT_PRCTL,
};

#include "launcher/filter_rule.h"

/* lnch_taint_name - the name (libseccomp's) of entry i, or NULL past the end. */
const char *lnch_taint_name(size_t i);

/*
 * lnch_taint_rule - entry i as a filter rule (name, and the argument
 * condition: prctl(2) only with PR_SET_SECCOMP) into *out; false past the end.
 */
bool lnch_taint_rule(size_t i, struct lnch_filter_rule *out);

#define LNCH_TAINT_ABIS 4
#define LNCH_TAINT_NRS 1024 /* syscall numbers below this are looked up directly */

/*
 * The taint calls resolved to numbers for each ABI of the filter, as a
 * scope per number: the loop looks every seccomp stop up, so in O(1).
 */
struct lnch_taint_table {
	uint32_t arch[LNCH_TAINT_ABIS];
	size_t narch;
	uint8_t scope[LNCH_TAINT_ABIS][LNCH_TAINT_NRS]; /* enum lnch_taint_scope */
};

/* lnch_taint_table_init - resolve every taint call for every ABI of lnch_arch_filter_arches(). */
void lnch_taint_table_init(struct lnch_taint_table *t);

/* lnch_taint_scope_of - the scope of call nr of ABI arch, LNCH_TAINT_NONE for others. */
enum lnch_taint_scope lnch_taint_scope_of(const struct lnch_taint_table *t, uint32_t arch, int nr);

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
