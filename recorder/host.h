#ifndef REPRO_RECORDER_HOST_H
#define REPRO_RECORDER_HOST_H

/*
 * Host facts: the content of a bundle's host.json (DESIGN.md "The bundle";
 * issue 3 section 2), gathered in repro's own process before or after a run.
 *
 * Every fact comes from a syscall or a small file; a fact the host does not
 * offer (no /etc/os-release, no Yama, a sysctl this kernel lacks) is JSON
 * null, never an error.  Every file read is bounded.
 */

#include "recorder/redact.h"
#include "common/err.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Most mountinfo entries recorded; more are cut and "mounts_truncated" is true. */
#define REC_HOST_MAX_MOUNTS 10000

struct rec_host_opts {
	/* borrowed: the policy for "environment"; NULL redacts every value */
	const struct rec_redact *redact;
	/* borrowed: NULL-terminated "NAME=value" strings (environ); NULL: "environment" is null */
	const char *const *envp;
	/* borrowed: the sandbox used, e.g. "user+mount namespaces, --net=host"; NULL: null */
	const char *sandbox;
	/*
	 * replace the hostname by "<redacted>"; $HOSTNAME follows the policy,
	 * so a caller's policy should have rec_redact_hide_hostname() too
	 */
	bool redact_hostname;
	/* borrowed: a JSON array that gets the names of what was redacted; may be NULL */
	json_t *redacted;
};

/*
 * rec_host_collect - host.json as a new JSON object (the caller owns the
 * reference) with the keys documented in docs/bundle-format.md:
 *   kernel {sysname, release, version, machine} (uname(2)), distribution
 *   {id, version_id, pretty_name} (os-release(5): /etc/os-release, else
 *   /usr/lib/os-release), arch, hostname, uid, gid, euid, egid, groups
 *   (getgroups(2)), capabilities {effective, permitted, inheritable, bounding,
 *   ambient} (capabilities(7) via libcap), rlimits {NOFILE, NPROC, AS, CORE,
 *   FSIZE, STACK, DATA, MEMLOCK: {soft, hard}} (getrlimit(2); a number, or
 *   "unlimited"), umask ("0022", from the Umask: line of proc_pid_status(5), so
 *   the umask is never changed), environment (opts->envp through
 *   opts->redact), cwd, mounts [{mount_point, root, source, fstype, options,
 *   super_options}] (proc_pid_mountinfo(5), at most REC_HOST_MAX_MOUNTS),
 *   dns {resolv_conf {nameservers, search, options} (resolv.conf(5)),
 *   nsswitch_hosts} (nsswitch.conf(5)), kernel_settings {io_uring_disabled,
 *   yama_ptrace_scope, unprivileged_userns_clone,
 *   apparmor_restrict_unprivileged_userns, max_user_namespaces} (numbers or
 *   null), sandbox.
 * A capability set is a string: capability names as cap_to_name(3) spells
 * them, joined by ',' in bit order; "all" when it holds every capability the
 * running kernel knows (cap_max_bits(3)); "" when empty; null when unknown
 * (ambient on kernels before 4.3).  "capabilities"."text" is cap_to_text(3)
 * of the process's sets.
 * Names of what was redacted ("hostname", environment variable names) are
 * noted in opts->redacted.
 * Returns NULL with *err set only when repro itself fails (EINVAL for a
 * default redaction policy that does not compile, which is a bug); a
 * missing or unreadable file is a null fact.
 */
json_t *rec_host_collect(const struct rec_host_opts *opts, struct repro_err **err);

/*
 * rec_host_fs_usage - free space of the filesystems holding PATHS[0..N)
 * (borrowed; absolute, or relative to the current directory), as a new JSON
 * array of {mount_point, fstype, free_bytes, total_bytes, free_inodes,
 * total_inodes} (statvfs(3); bytes and inodes available to an unprivileged
 * user).  A path that does not exist counts for its nearest existing
 * ancestor; paths on one filesystem (same st_dev) give one entry, in the
 * order first met.  mount_point/fstype are null when /proc/self/mountinfo
 * does not say.  A path whose ancestors all fail stat(2) is skipped.
 * Never fails (aborts on OOM).
 */
json_t *rec_host_fs_usage(const char *const *paths, size_t n);

/*
 * rec_host_add_fs_usage - after the run: add "filesystems" (as
 * rec_host_fs_usage()) to host (a host.json object, borrowed and changed
 * in place) for every mount of its "mounts" that holds a path of
 * files.jsonl at files_path, and, when the run read /etc/hosts, its
 * entries as "hosts_file"; a second call replaces both.  Linear in the
 * size of files.jsonl.  Returns 0, or -1 with *err when files_path cannot
 * be read.
 */
int rec_host_add_fs_usage(json_t *host, const char *files_path, struct repro_err **err);

/*
 * rec_hosts_entries - the hosts(5) file at path (the host's /etc/hosts, or
 * a program's through /proc/PID/root) as a new array [{"ip","names"}], in
 * file order, at most 1,000 entries of a file of at most 1 MiB; comments
 * and blank lines left out; an unreadable file gives [].  hide: the host
 * name is redacted (--redact-hostname), so names of this machine (Debian's
 * "127.0.1.1 HOSTNAME") are too.  Linear in the file.
 */
json_t *rec_hosts_entries(const char *path, bool hide);

#endif
