#ifndef REPRO_SESSION_SESSION_H
#define REPRO_SESSION_SESSION_H

/*
 * One run as a library object (docs/architecture.md, "record, step by
 * step"): what to run and how in struct sess_options, the policies to
 * impose, then spawn -> ptrace loop -> spool -> pack, and the outcome in
 * struct sess_result.  Process-wide state (signal handlers, the idle
 * tick) stays with the caller, which reaches the run through the
 * callbacks of the options.  Nothing here prints: lines meant for the
 * user go to sess_options.notice.
 */

#include "common/err.h"
#include "launcher/policy.h"
#include "launcher/stop.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <signal.h>
#include <sys/types.h>

/* A policy of the loop (launcher/policy.h), borrowed for the run. */
struct sess_policy {
	const struct lnch_policy_ops *ops; /* borrowed */
	void *ctx; /* borrowed */
	/*
	 * native syscall numbers the policy may act on (borrowed, ntrap of
	 * them): the seccomp filter stops them too, whatever the trace classes
	 */
	const int *trap_nrs;
	size_t ntrap;
	/*
	 * may be NULL: after the run, what the policy did for the manifest's
	 * "injections" (docs/bundle-format.md): a new JSON array the session
	 * takes, elements appended to the run's
	 */
	json_t *(*report)(void *ctx);
};

/*
 * Where packing says how far it is: fn (NULL: nowhere) gets ctx
 * (borrowed) and done of total bytes of the spool read, every 4,096
 * records (bundles/pack.h) - for a progress line on a terminal.
 */
struct sess_progress {
	void (*fn)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
};

/* An observer of the loop besides the recorder (launcher/stop.h), borrowed for the run. */
struct sess_observer {
	const struct lnch_observer_ops *ops; /* borrowed */
	void *ctx; /* borrowed */
};

/*
 * What to run and how.  Every pointer is borrowed for the call of
 * sess_run().  The program runs in the caller's working directory with
 * the caller's environment (environ), which is also what redaction
 * learns secrets from and what host.json describes.
 */
/* Namespaces of a run (launcher/launcher.h's modes, by the session's names). */
enum sess_sandbox {
	SESS_SANDBOX_NONE = 0, /* no namespaces */
	SESS_SANDBOX_AUTO, /* namespaces where the kernel allows them, else none (said in a notice) */
	SESS_SANDBOX_REQUIRE, /* namespaces, or fail */
};

/* --trace classes: bits of sess_options.classes (the recorder's, by the session's names). */
enum sess_class {
	SESS_CLASS_FILE = 1u << 0,
	SESS_CLASS_NETWORK = 1u << 1,
	SESS_CLASS_PROCESS = 1u << 2,
	SESS_CLASS_ALL = 7u,
};

/*
 * sess_classes_parse - "file,network,process" (any subset, also "all" and
 * "%file"…) into SESS_CLASS_* bits in *classes.  Returns 0, or -1 with
 * *err (EINVAL naming the unknown word); *classes untouched then.
 */
int sess_classes_parse(const char *text, unsigned *classes, struct repro_err **err);

/*
 * The signal state the program is to start with: what the caller itself
 * was started with, read before it installed handlers of its own.  exec(2)
 * keeps ignored signals ignored and the signal mask but resets handled
 * signals to SIG_DFL (signal(7)), so without this a signal that nohup(1) or
 * a shell's background job ignores would reach the program at SIG_DFL.
 */
struct sess_signals {
	sigset_t ignored; /* signals at SIG_IGN; every other one starts at SIG_DFL */
	sigset_t blocked; /* the signal mask */
};

struct sess_options {
	char *const *argv; /* borrowed: NULL-terminated; argv[0] searched in PATH */
	const char *output; /* borrowed: the bundle path (required) */
	const char *spool_parent; /* borrowed: where the spool goes; NULL: $TMPDIR, else /tmp */
	unsigned classes; /* SESS_CLASS_* */
	bool net_none; /* a network namespace with only loopback */
	enum sess_sandbox sandbox;
	bool ptrace_only; /* no seccomp user notification */
	bool wait_all; /* until every process ends (--wait=all), else until the first does */
	const char *const *keep_env; /* borrowed: NULL-terminated globs (--keep-env), or NULL */
	const char *const *redact; /* borrowed: NULL-terminated regexes (--redact), or NULL */
	bool redact_hostname;
	uint64_t hash_max; /* bytes: hash touched files up to this size (0: none) */
	bool hash_secrets;
	/*
	 * --overlay (docs/architecture.md, "Sandbox"): the program's writes
	 * under each of overlay_paths (borrowed, noverlay_paths of them; none:
	 * its working directory and $HOME) go to an overlay whose upper layer
	 * is a temporary directory, listed in overlay.jsonl after the run and
	 * then removed, or moved into keep_overlay (borrowed, may be NULL).
	 * Needs a sandbox (not SESS_SANDBOX_NONE).
	 */
	bool is_overlay;
	const char *const *overlay_paths;
	size_t noverlay_paths;
	const char *keep_overlay;
	/*
	 * with is_overlay: every other mount read-only (writes elsewhere fail
	 * with EROFS; lnch_spawn_opts.read_only), a received bundle's replay
	 */
	bool read_only;
	bool no_new_privs; /* PR_SET_NO_NEW_PRIVS before exec (set-user-ID programs gain nothing) */
	/*
	 * 0, or ns after the program's start when every traced process is
	 * killed and the bundle written (sess_result.timed_out): a sweep's
	 * per-run timeout.  Checked at the caller's periodic signal.
	 */
	uint64_t time_limit_ns;
	/*
	 * borrowed, may be NULL: the dispositions and mask the program starts
	 * with (struct sess_signals); NULL leaves it those of the caller at
	 * spawn, its handlers reset to SIG_DFL by exec
	 */
	const struct sess_signals *inherited;
	const struct sess_observer *observers; /* borrowed: nobservers more observers, or NULL */
	size_t nobservers;
	/*
	 * Callbacks, each optional (NULL), all given cb_ctx.  should_stop:
	 * polled when waitpid is interrupted by a signal, as lnch_loop_new()
	 * says.  on_program: called with the program's pid just before the
	 * loop starts and with 0 once it has ended (the cli forwards signals to
	 * it in between).  notice: a line for the user (no "repro: " prefix,
	 * no newline; borrowed for the call), given when it happens: a spool
	 * moved by a full disk, the sandbox fallback, a --wait=all wait, killed
	 * processes, a set-user-ID program run without privileges, a full disk.
	 */
	bool (*should_stop)(void *cb_ctx);
	void (*on_program)(void *cb_ctx, pid_t pid);
	struct sess_progress progress; /* packing the bundle (its fn may be NULL) */
	void (*notice)(void *cb_ctx, const char *line);
	void *cb_ctx; /* borrowed */
};

/* What a run came to; filled by sess_run(), released with sess_result_release(). */
/*
 * Where a run's time went, in ns of CLOCK_MONOTONIC, phase after phase
 * (docs/performance.md, "The fixed cost of a run"): setup (the spool, the
 * overlays), spawn (the seccomp filter, namespaces, up to the program's
 * exec), program (the loop, from the exec to the last traced process's
 * end), after (the recorder's post-run facts of touched paths and joining
 * the host-facts thread, which ran beside the program), pack (rendering
 * JSON, zstd and the tar).  What the process spent before sess_run
 * (loading shared libraries, parsing options) is not in it.
 */
struct sess_timing {
	uint64_t setup_ns, spawn_ns, program_ns, after_ns, pack_ns;
};

struct sess_result {
	bool has_exit; /* wait_status is the first process's (waitpid(2)) */
	int wait_status;
	/*
	 * The program was never run: its execve failed (exec_errnum, e.g.
	 * ENOENT; the child exited as a shell would, 127 or 126, in
	 * wait_status).  is_not_in_path: argv[0] had no '/' and no PATH
	 * directory holds it ("command not found").
	 */
	int exec_errnum;
	bool is_not_in_path;
	char *bundle_path; /* owned: the bundle written, or NULL when the spool was kept */
	char *spool_dir; /* owned: the spool kept for `repro pack`, or NULL when removed */
	char *warnings; /* owned: the manifest's warnings, "; "-separated ("" for none) */
	uint64_t nevents; /* syscall events in the bundle (a full disk's drops left out) */
	uint64_t nfailed; /* of the calls recorded, those that failed with an errno */
	uint64_t nprocesses; /* processes started, the first included (threads not) */
	unsigned left_running; /* processes killed when the recording stopped */
	bool was_stop_requested; /* should_stop said yes at least once (Ctrl-C, SIGTERM) */
	bool timed_out; /* sess_options.time_limit_ns passed: every process was killed */
	bool ended_by_policy; /* a policy ended the run (launcher/policy.h on_exit): every process was killed */
	uint64_t duration_ns; /* the program's start to the end of the last traced process */
	struct sess_timing timing; /* where the run's own time went */
};

/*
 * sess_run - record one run: check opts->output, make the spool, spawn
 * opts->argv under the tracer with the filter of opts->classes, register
 * the recorder, opts->observers and the npolicies policies (borrowed;
 * the first that decides wins, launcher/policy.h), run the loop, end the
 * spool and pack the bundle (where a filesystem is full, into the first
 * of bndl_scratch_dirs() with room, or the spool is kept: no error).
 * Returns 0 with *out filled (the caller releases it), or -1 with *err:
 * a bad output path, no room for the spool, an overlay path that is
 * missing or not a directory (ENOENT, ENOTDIR), a failed namespace,
 * overlay or filter set-up before exec (the message names the step and where the
 * run was recorded), ptrace or spool trouble.  A program that exits
 * non-zero or cannot be executed is no error (see struct sess_result).
 * Not reentrant: the loop owns the process's children while it runs.
 */
int sess_run(const struct sess_options *opts, const struct sess_policy *policies, size_t npolicies,
	     struct sess_result *out, struct repro_err **err);

/* sess_result_release - free what *res owns and zero it; NULL-safe, idempotent. */
void sess_result_release(struct sess_result *res);

/*
 * sess_pack_spool - pack the spool spool_dir, left by a run that was
 * killed or found no room for its bundle, into the bundle out_path (saying
 * how far it is to progress, which may be NULL), as the run would have (marked as packed later; files.jsonl,
 * network.jsonl and waits.jsonl derived where they can be), then remove
 * the spool.  Both paths borrowed.  Returns 0, or -1 with *err: EINVAL
 * when out_path lies in the spool, an unreadable run.json or spool, a
 * failed pack ("cannot pack 'DIR': ...").
 */
int sess_pack_spool(const char *spool_dir, const char *out_path,
		    const struct sess_progress *progress, struct repro_err **err);

#endif
