#ifndef REPRO_TESTS_BUNDLES_FIXTURE_H
#define REPRO_TESTS_BUNDLES_FIXTURE_H

/*
 * Shared by the bundles and replayer unit tests: temporary directories, a
 * render callback that produces real event JSON, and a recorded scenario
 * (the startup failure of docs/DESIGN.md) written into a spool.
 */

#include "bundles/pack.h"
#include "bundles/spool.h"

#include <stdbool.h>
#include <stdint.h>

/* Syscall numbers the test renderer knows (x86_64 values; only labels here). */
enum fx_nr { FX_READ = 0, FX_CONNECT = 42, FX_EXECVE = 59, FX_OPENAT = 257 };

/*
 * fx_write_bundle - a bundle at path made of members, given as name, text
 * pairs ended by NULL, in the order given (bundles/members.h's, for a
 * reader): the synthesised bundles of the judgement tests.  Aborts on
 * failure.
 */
void fx_write_bundle(const char *path, const char *const *members);

/* fx_tmpdir - a new directory under /tmp, for fx_rmtree(); aborts on failure. */
char *fx_tmpdir(void);

/* fx_rmtree - remove dir and everything under it. */
void fx_rmtree(const char *dir);

/*
 * fx_small_fs - mount a tmpfs of size (a mount(8) size, "320k") on dir, in a
 * mount namespace of this test process (unshare(2) CLONE_NEWNS; nothing
 * leaks out of the process).  Returns false when that cannot be had (not
 * root): the caller skips.  fx_small_fs_release() unmounts it.
 */
bool fx_small_fs(const char *dir, const char *size);
void fx_small_fs_release(const char *dir);

/* fx_fill - fill the filesystem of dir with a file dir/NAME until it is full (ENOSPC). */
void fx_fill(const char *dir, const char *name);

/* fx_render_ops - renders events as docs/bundle-format.md JSON plus a strace-like line. */
const struct bndl_render_ops *fx_render_ops(void);

/* fx_syscall - a syscall event; path (PATH blob argi 1) and flags (STR blob argi 2) may be NULL. */
struct bndl_event fx_syscall(uint64_t seq, uint64_t t_ns, int32_t pid, int nr, const char *path,
			     const char *flags, int64_t ret);

/* fx_append - append ev to sp, failing the test on error. */
void fx_append(struct bndl_spool *sp, const struct bndl_event *ev);

/* fx_proc - PROC_START/EXIT/LEFT records. */
void fx_proc_start(struct bndl_spool *sp, int32_t pid, int32_t ppid, uint64_t t_ns, bool is_thread);
void fx_proc_exec(struct bndl_spool *sp, int32_t pid, uint64_t t_ns, const char *path,
		  const char *argv_nul, uint32_t argv_len);
void fx_proc_exit(struct bndl_spool *sp, int32_t pid, uint64_t t_ns, int status);

/*
 * fx_write_scenario - the startup-failure scenario into DIR/events.spool:
 *   100 bash start_app.sh        exit 1    (1 failure: openat .env ENOENT)
 *   101 python3 webui.py         exit 1    (12 failed openat model_N.pth, 1 thread)
 *   102 curl                     exit 0    (1 failure: openat /etc/curlrc ENOENT)
 *   103 sh -c fetch              SIGKILL   (3 failed connects: v4, v6, unix)
 * plus 2 successful calls and one unfinished call.  Returns the number of
 * syscall events written (*nfailed gets the failed ones).
 */
uint64_t fx_write_scenario(const char *dir, uint64_t *nfailed);

/* fx_write_scenario_killed - the same without its END record, as a killed recorder leaves it. */
uint64_t fx_write_scenario_killed(const char *dir, uint64_t *nfailed);

/*
 * fx_full_spool - DIR/spool as a recording on a full disk leaves it: pid 1
 * (one failed openat, exit 3), a DROPPED record (errnum, ENOSPC or EDQUOT,
 * at 5 us) and, with has_end, the END record (exit 3, 40 events and 4000
 * bytes dropped).
 * Returns the spool's path (caller frees).
 */
char *fx_full_spool(const char *dir, bool has_end, int errnum);

/* fx_run_info - run facts matching the scenario (argv bash start_app.sh, cwd /srv/app). */
struct bndl_run_info fx_run_info(void);

/* fx_pack_scenario - write the scenario into a new spool under dir and pack it to dir/run.repro. */
char *fx_pack_scenario(const char *dir);

#endif
