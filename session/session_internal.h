#ifndef REPRO_SESSION_SESSION_INTERNAL_H
#define REPRO_SESSION_SESSION_INTERNAL_H

/*
 * The state of one run, shared by the files of session/: session.c (the
 * steps), place.c (bundle path and spool), host_thread.c (host.json) and
 * pack.c (deriving and packing).
 */

#include "bundles/pack.h"
#include "bundles/spool.h"
#include "common/err.h"
#include "launcher/launcher.h"
#include "recorder/recorder.h"
#include "recorder/redact.h"
#include "recorder/systab.h"
#include "session/session.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

/* One overlaid directory of --overlay (session/overlay.c). */
struct sess_overlay {
	char *path; /* owned: canonical */
	char *tmp; /* owned: the temporary directory (0700) holding upper/ and work/ */
	char *upper; /* owned: the upper layer, where it is now (moved by --keep-overlay) */
	char *work; /* owned */
	char *kept_name; /* owned: its name in --keep-overlay's directory, or NULL */
};

/* Everything a recording holds, released in one place (sess_state_release()). */
struct sess_state {
	const struct sess_options *o; /* borrowed */
	struct sess_timing timing; /* filled phase by phase */
	char *spool_dir;
	struct bndl_spool *spool;
	struct rec_systab *tab;
	struct rec_recorder *rec;
	struct lnch_filter_rule *rules; /* the filter's, borrowed by child and loop */
	char **trap_names; /* owned: the names of the policies' trapped calls, the rules borrow them */
	const struct sess_policy *policies; /* borrowed from sess_run() */
	size_t npolicies;
	json_t *injections; /* owned: what the policies reported (struct sess_policy.report), or NULL */
	size_t ntrap_names;
	struct lnch_child child;
	struct lnch_loop *loop;
	struct bndl_run_info info;
	char classes[64];
	char cwd[4096];
	char warnings[1024];
	struct lnch_result res;
	bool made_spool;
	int output_lock; /* sess_output_lock()'s fd, or -1 */
	bool was_stop_requested;
	struct rec_redact *redact;
	json_t *redacted; /* names of what was redacted */
	char **argv_shown; /* argv as it may leave the machine */
	/* host.json is gathered by a thread while the program runs */
	pthread_t host_thread;
	bool host_started;
	int host_rc;
	struct repro_err *host_err;
	json_t *host_json; /* the facts, kept for a work directory other than the spool */
	char *host_text; /* host.json as packed: the facts and the filesystems used */
	/* after the run */
	struct bndl_spool_drops drops; /* what the full spool left out */
	struct bndl_event *lost; /* the process records it had no room for (fixed parts) */
	size_t nlost;
	bool lost_end; /* nor for its END record */
	char *written; /* the bundle's path; NULL when the spool was kept */
	char *full_output; /* -o, when its filesystem had no room for the bundle */
	char tried[512]; /* the other places tried for it, ", "-separated */
	/* --overlay */
	struct sess_overlay *ovl; /* owned, novl of them */
	size_t novl;
	struct lnch_overlay *lovl; /* owned array; its strings borrowed from ovl */
	json_t *overlay_json; /* owned: the manifest's "overlay", or NULL */
};

/* session.c */
/* sess_notice - format a line for the user and give it to opts->notice (dropped when NULL). */
void sess_notice(const struct sess_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* sess_add_warning - append note (borrowed) to the manifest's warnings, "; "-separated. */
void sess_add_warning(struct sess_state *s, const char *note);

/* place.c */
/* sess_tmp_parent - where temporary directories go: opts->spool_parent, $TMPDIR if absolute, /tmp. */
const char *sess_tmp_parent(const struct sess_options *o);
/* sess_same_fs - true when paths a and b are on one filesystem (both exist). */
bool sess_same_fs(const char *a, const char *b);
/*
 * sess_check_output - refuse a bundle path that is empty, names something
 * other than a regular file, or lies in a directory that cannot be written
 * (a full one passes: the bundle will go elsewhere).  Returns 0 or -1 with *err.
 */
int sess_check_output(const char *out, struct repro_err **err);
/*
 * sess_output_lock - hold the bundle path out for as long as the returned
 * fd is open, so that a second run (or `repro pack`) writing the same path
 * is refused instead of replacing the first one's bundle, or being replaced
 * by it.  The lock is an abstract unix(7) socket named after out's
 * canonical path: no file in the program's sight (the default -o is in its
 * working directory), released by the kernel however repro ends, SIGKILL
 * included.  Runs in other network namespaces do not see each other's.
 * Returns the fd (O_CLOEXEC); -1 when no lock can be had (no AF_UNIX, out's
 * directory missing: the run goes on without it, *err untouched); -2 with
 * *err (errnum 0) when another run holds out.
 */
int sess_output_lock(const char *out, struct repro_err **err);
/*
 * sess_make_spool - make s->spool_dir with run.json and open s->spool, in
 * the spool parent or, when that is full, another scratch directory (one
 * notice).  Returns 0 or -1 with *err (nothing left behind).
 */
int sess_make_spool(struct sess_state *s, struct repro_err **err);

/* overlay.c */
/*
 * sess_overlay_prepare - for --overlay: the canonical directories to
 * overlay (those inside another dropped: it covers them), each with a
 * temporary directory holding upper/ and work/ (s->ovl, s->lovl), and the
 * --keep-overlay directory made.  Returns 0 (also without --overlay) or -1
 * with *err naming the path (missing, not a directory, holding the
 * temporary directory, a name taken in the keep directory).
 */
int sess_overlay_prepare(struct sess_state *s, struct repro_err **err);
/*
 * sess_overlay_settle - after the run: move the upper layers into
 * --keep-overlay's directory (one notice saying where; a layer that
 * cannot be moved stays where it is, said too).
 */
void sess_overlay_settle(struct sess_state *s);
/*
 * sess_overlay_derive - overlay.jsonl in dir from the upper layers, and
 * s->info.overlay for the manifest (a warning when the walk stopped at its
 * limit).  Returns 0 (nothing to do without --overlay) or -1 with *err.
 */
int sess_overlay_derive(struct sess_state *s, const char *dir, struct repro_err **err);
/* sess_overlay_release - remove the temporary directories and free s->ovl; idempotent. */
void sess_overlay_release(struct sess_state *s);

/* host_thread.c */
/* sess_host_start - gather host.json in a thread (or at once when none can be made). */
void sess_host_start(struct sess_state *s);
/*
 * sess_host_join - wait for the thread; its error moves to *err (-1), or is
 * dropped when err is NULL.  Returns 0 otherwise; safe to call twice.
 */
int sess_host_join(struct sess_state *s, struct repro_err **err);

/* pack.c */
/*
 * sess_pack - derive and pack the ended spool into opts->output or, on a
 * full disk, elsewhere (s->written, s->full_output, s->tried); with room
 * nowhere the spool is kept (s->written NULL, no error).  Returns 0 or -1
 * with *err.
 */
int sess_pack(struct sess_state *s, struct repro_err **err);
/* sess_report_full_disk - one notice when a full filesystem cost events or moved the bundle. */
void sess_report_full_disk(const struct sess_state *s);

#endif
