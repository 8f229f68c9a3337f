#ifndef REPRO_REPLAYER_EXPLAIN_WORDS_H
#define REPRO_REPLAYER_EXPLAIN_WORDS_H

/*
 * The files a program's own words name, for `repro explain` when no call
 * explains its exit (docs/explain.md, "When nothing failed"): every
 * files.jsonl record, kept small (its path, type, mode, owner and size),
 * found by its path or its file name in what a process said.
 */

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Most files one text is said to name (the first ones named). */
#define XP_WORDS_FILES_MAX 4

struct xp_words;

/* xp_words_new - an empty set, for xp_words_free().  Never NULL. */
struct xp_words *xp_words_new(void);
void xp_words_free(struct xp_words *w);

/*
 * xp_words_note - keep what files.jsonl record rec (borrowed) says of its
 * path: "meta" type, mode, uid, gid and size (nothing when the path did not
 * exist at the end).  A path seen again is ignored.  Returns the bytes kept
 * (for the reader's memory limit).  O(length of the path).
 */
size_t xp_words_note(struct xp_words *w, json_t *rec);

/*
 * xp_words_named - the files text[0..len) names: each word (split at
 * blanks, quotes, brackets, commas, semicolons and '='; a ':' or '.' at
 * its end dropped) of three bytes or more that is a kept path, or, when
 * it has a '/' or a '.' (a bare word such as "full" names nothing), whose
 * last component is a kept path's file name (the first path kept with
 * that name), unless a line number follows it (`File "x.py", line 3`: a
 * place in the program's own code).  Returns a new array of {"path", "meta"} objects, in the
 * order the text names them, at most XP_WORDS_FILES_MAX, without
 * repeats.  O(len) map lookups.
 */
json_t *xp_words_named(const struct xp_words *w, const char *text, size_t len);

#endif
