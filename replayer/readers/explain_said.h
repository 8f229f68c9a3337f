#ifndef REPRO_REPLAYER_EXPLAIN_SAID_H
#define REPRO_REPLAYER_EXPLAIN_SAID_H

/*
 * What the program said, for `repro explain` (docs/explain.md, "What the
 * program said"): output.jsonl's kept stderr of each process, its last
 * error line to quote beside a finding, and the bonus of a failure the
 * program named (its path, file name, host or errno message).
 */

#include "common/err.h"
#include "replayer/readers/explain_internal.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest quote of a line (bytes), cut at a UTF-8 character boundary. */
#define XP_SAID_QUOTE_MAX 200
/* Score a failure gets when its process, or one it was started by, named it. */
#define XP_SAID_BONUS 30.0

struct xp_said_set;

/* xp_said_new - an empty set, for xp_said_free().  Never NULL. */
struct xp_said_set *xp_said_new(void);
void xp_said_free(struct xp_said_set *s);

/*
 * xp_said_on_line - a bndl_line_fn for output.jsonl: keep line o's
 * "text" (at most what repro kept, 8 KiB escaped: 32 KiB) for its "pid";
 * ctx is the set.  A line without pid or text is skipped; more than
 * RPL_SHOW_MAX_PROCS lines fail with EPROTO.  O(length of the text).
 */
int xp_said_on_line(void *ctx, json_t *o, size_t lineno, struct repro_err **err);

/*
 * xp_said_line - the last non-empty line of what pid said (stderr, and
 * stdout when it was the same file), without its newline, cut to
 * XP_SAID_QUOTE_MAX bytes (and "…" after it); NULL when pid said nothing.
 * Borrowed from s, valid until xp_said_free().  O(1).
 */
const char *xp_said_line(const struct xp_said_set *s, int32_t pid);

/*
 * xp_said_bonus - what finding f gains in score because its path, the
 * path's file name (three bytes or more), its host, or the message of its
 * errno (strerror(3): "Permission denied") appears in what f's process or
 * one of its ancestors said (chain: the pids from f's process up, n of
 * them; a shell that prints its child's failure): XP_SAID_BONUS, else 0.
 * Cost: O(n x bytes kept) memmem(3) per needle (four needles).
 */
/*
 * xp_said_seen - whether pid said something someone could read: a line,
 * not to /dev/null (output.jsonl "discarded").  O(1).
 */
bool xp_said_seen(const struct xp_said_set *s, int32_t pid);

/*
 * xp_said_text - all that pid said, as kept (at most 32 KiB of
 * output.jsonl's escaped text), its length in *len; NULL when pid said
 * nothing.  Borrowed from s, valid until xp_said_free().  O(1).
 */
const char *xp_said_text(const struct xp_said_set *s, int32_t pid, size_t *len);

/*
 * xp_said_explain - the sentence of an XP_SAID finding x of process p
 * (borrowed, may be NULL) into f, its facts into reason (what:
 * "program_said", files: x->named): the process ended badly and no call
 * it made explains it; the files its words name, with their type, size,
 * mode and owner at the end of the run.  O(files named).
 */
void xp_said_explain(FILE *f, json_t *reason, const struct xp_finding *x, const struct xp_proc *p);

double xp_said_bonus(const struct xp_said_set *s, const struct xp_finding *f, const int32_t *chain,
		     size_t n);

#endif
