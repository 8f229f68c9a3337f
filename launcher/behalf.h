#ifndef REPRO_LAUNCHER_BEHALF_H
#define REPRO_LAUNCHER_BEHALF_H

/*
 * Path-only calls performed by the tracer on a tracee's behalf, for seccomp
 * user notification (seccomp_unotify(2)): stat, lstat, newfstatat, statx,
 * access, faccessat, faccessat2, readlink, readlinkat on the native ABI.
 * The tracer resolves the path from the tracee's cwd or dirfd (through
 * /proc/TID/cwd and /proc/TID/fd/N) with its own credentials, which equal
 * the tracee's as long as the tracee has changed neither credentials, root
 * nor mounts (the loop tracks that; docs/architecture.md, "Seccomp user
 * notification").  Whatever the tracer cannot answer exactly as the kernel
 * would for the tracee -- a path through a magic link or /proc/self, an
 * unknown flag -- is left to the kernel.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* lnch_behalf_supported - whether a native syscall, by libseccomp name, can be performed here. */
bool lnch_behalf_supported(const char *name);

/*
 * lnch_behalf_entry_only - whether a native syscall is notified only to be
 * seen at its entry and then run by the kernel (close(2): observers keep
 * few of them, and none needs its result).  Cheaper than a ptrace stop.
 */
bool lnch_behalf_entry_only(const char *name);

/*
 * lnch_behalf_native_nrs - the native numbers of the calls the filter sends
 * to the listener (those of lnch_behalf_supported() and
 * lnch_behalf_entry_only()), at most max of them into out.  Returns how many.
 */
size_t lnch_behalf_native_nrs(int *out, size_t max);

/* What lnch_behalf_perform() did. */
enum lnch_behalf_outcome {
	LNCH_BEHALF_DONE = 1, /* *ret holds the result; out-buffers are written */
	LNCH_BEHALF_KERNEL = 0, /* not answerable exactly here: let the kernel run the call */
};

/* Per-run constants of the tracer side (the procfs device, for the /proc/self check). */
struct lnch_behalf_ctx {
	uint64_t proc_dev; /* st_dev of /proc, 0 when unknown */
};

/* lnch_behalf_init - fill *ctx (reads /proc once). */
void lnch_behalf_init(struct lnch_behalf_ctx *ctx);

/* A call's path argument, read from the tracee as getname() reads it. */
struct lnch_behalf_path {
	int argi; /* index of the path argument, -1 for a call not performed here */
	int rc; /* 0, -EFAULT (unreadable before its NUL), -ENAMETOOLONG, -ESRCH (tracee gone) */
	char text[4096]; /* PATH_MAX bytes; NUL-terminated when rc == 0 */
};

/* lnch_behalf_read_path - fill *p for native syscall nr with args of task tid. */
void lnch_behalf_read_path(pid_t tid, int nr, const uint64_t args[6], struct lnch_behalf_path *p);

/*
 * lnch_behalf_perform - perform native syscall nr with args for task tid of
 * thread group tgid, as the kernel would for it, with its path as read by
 * lnch_behalf_read_path(): on success or failure of
 * the call itself returns LNCH_BEHALF_DONE and sets *ret (the raw return,
 * -errno on failure; stat buffers and readlink bytes are written into the
 * tracee with process_vm_writev(2)).  Before writing, still_valid(cookie)
 * must return true (SECCOMP_IOCTL_NOTIF_ID_VALID: the tracee is still
 * waiting, so its pid was not reused).  Returns LNCH_BEHALF_KERNEL when the
 * result could differ from the kernel's: nothing was written then.
 */
enum lnch_behalf_outcome lnch_behalf_perform(const struct lnch_behalf_ctx *ctx, pid_t tid,
					     pid_t tgid, int nr, const uint64_t args[6],
					     const struct lnch_behalf_path *path,
					     bool (*still_valid)(void *cookie), void *cookie,
					     int64_t *ret);

#endif
