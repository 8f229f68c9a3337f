#ifndef REPRO_RECORDER_RENDER_H
#define REPRO_RECORDER_RENDER_H

/*
 * Rendering spool events as the JSON objects of events.jsonl and the lines
 * of trace.txt (docs/bundle-format.md), for bndl_pack().  Runs after the
 * program ended, so it may allocate and format freely.
 */

#include "bundles/pack.h"
#include "common/err.h"
#include "recorder/systab.h"

struct rec_renderer;

struct rec_redact;

/*
 * rec_renderer_new - a renderer with its own syscall table, redacting exec
 * argv and envp with redact (borrowed, must outlive the renderer; NULL: the
 * default policy of recorder/redact.h).  The names of the exec environment
 * variables it redacts are noted in redacted (borrowed, may be NULL; the
 * manifest's "redacted" list, which nothing else may append to while the
 * renderer lives: struct rec_redact_notes).  Never NULL.
 */
struct rec_renderer *rec_renderer_new(const struct rec_redact *redact, json_t *redacted);
void rec_renderer_free(struct rec_renderer *r);

static inline void rec_cleanup_renderer(struct rec_renderer **r)
{
	rec_renderer_free(*r);
}
#define cleanup_renderer __attribute__((cleanup(rec_cleanup_renderer)))

/*
 * rec_renderer_ops - fill *ops so that bndl_pack() renders with r (borrowed:
 * r must outlive the pack).
 */
void rec_renderer_ops(struct rec_renderer *r, struct bndl_render_ops *ops);

/*
 * rec_event_oflags - the open flags (O_*) of event ev of call sys: its
 * RA_OFLAGS argument, openat2's struct open_how (the blob kept at the
 * stop), or those creat(2) implies; 0 for a call without them.
 */
uint64_t rec_event_oflags(const struct repro_sysent *sys, const struct bndl_event *ev);

/*
 * rec_render_event - the JSON object (new reference) and strace-style line
 * (malloc'ed, no newline) of one BNDL_REC_SYSCALL event.  Returns 0, or -1
 * with *err (EPROTO for an event that is not a syscall).
 */
int rec_render_event(struct rec_renderer *r, const struct bndl_event *ev, json_t **json,
		     char **line, struct repro_err **err);

#endif
