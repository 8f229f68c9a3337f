#ifndef REPRO_REPLAYER_SHOW_INTERNAL_H
#define REPRO_REPLAYER_SHOW_INTERNAL_H

/* Shared between the views of `repro show` (replayer/show.c, replayer/views.c). */

#include "bundles/reader.h"
#include "common/err.h"
#include "common/term.h"
#include "replayer/show.h"

#include <jansson.h>
#include <stdio.h>

/* ANSI attributes, only when the caller asked for colour (a terminal, no NO_COLOR). */
#define BOLD "\033[1m"
#define RED "\033[31m"
#define RESET "\033[0m"

/* rpl_utf8_cut - how many bytes of s to keep for at most max bytes without splitting a character. */
size_t rpl_utf8_cut(const char *s, size_t max);

/*
 * rpl_put_incomplete - when the manifest says "incomplete": true, one line
 * for the top of a text view: "Incomplete bundle: …", from its "dropped"
 * object (docs/bundle-format.md), else a pointer to the warnings.  Prints
 * nothing for a complete bundle.  manifest is borrowed.
 */
void rpl_put_incomplete(FILE *out, json_t *manifest);

/*
 * rpl_views_failed - the "Files" and "Network" sections of the summary: one
 * line per failed path (with the directory that explains it) and per failed
 * network attempt, at most limit lines each (0: all).  Bundles without
 * files.jsonl / network.jsonl show nothing.  Returns 0, or -1 with *err.
 */
int rpl_views_failed(struct bndl_reader *r, FILE *out, bool color, size_t limit,
		     struct repro_err **err);

/*
 * rpl_views_show - the --files, --net or --host view (text or JSON) of the
 * bundle.  Returns 0, or -1 with *err (EPROTO when the bundle has no such
 * member, naming it).
 */
int rpl_views_show(struct bndl_reader *r, enum rpl_show_view view, bool json, FILE *out,
		   struct repro_err **err);

#endif
