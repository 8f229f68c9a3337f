#ifndef REPRO_REPLAYER_DIFF_INTERNAL_H
#define REPRO_REPLAYER_DIFF_INTERNAL_H

/* Shared between the parts of `repro diff`: diff.c, diff_side.c, diff_host.c. */

#include "bundles/reader.h"
#include "common/err.h"
#include "common/map.h"
#include "replayer/readers/explain_internal.h"
#include "replayer/readers/normalize.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DF_NONE ((size_t)-1)
/* Items kept per section; further ones are only counted. */
#define DF_MAX_ITEMS 1000

/* A process of one side. */
struct df_proc {
	int32_t pid, ppid;
	char *key; /* owned: the normalised exec chain, "(fork)" without exec */
	char *label; /* owned: "python3 webui.py" */
	json_t *exit; /* owned: processes.jsonl "exit" or NULL */
	int64_t start_ns, end_ns;
	size_t parent; /* index, or DF_NONE */
	size_t first_ev, nev; /* its events in the side's arrays */
	size_t partner; /* aligned process on the other side, or DF_NONE */
};

/* One touched path's facts, by the XXH3 of its normalised path. */
struct df_file {
	uint64_t key;
	uint64_t hash; /* content XXH3 (0: none) */
	uint64_t target; /* XXH3 of the symlink target (0: none) */
	int64_t uid, gid, size;
	int64_t mtime_ns; /* -1: unknown */
	uint32_t mode; /* permission bits; type in type */
	uint8_t withheld; /* why the bundle has no hash: index for df_withheld_name(); 0: not withheld */
	char type; /* 'f','d','l','c','b','p','s', 0: missing at the end */
	bool written; /* in the write set ("before" present) */
	bool seen; /* matched by the other side */
	/* only known as a directory above a failed path (files.jsonl ancestors): no size or hash */
	bool is_ancestor;
};

/* One side of the comparison. */
struct df_side {
	const char *path; /* borrowed: the bundle file */
	const struct bndl_limits *limits; /* borrowed, may be NULL */
	struct bndl_reader *r;
	json_t *manifest; /* borrowed from r */
	json_t *host; /* owned, or NULL */
	struct rpl_norm norm;
	char *cwd_mapped, *home_mapped; /* owned: cwd and HOME through --map (side A) */
	struct df_proc *procs;
	size_t nprocs;
	/* events grouped by process, in seq order within one */
	uint64_t *keys;
	uint64_t *lines; /* each event's handle: where its record starts in text */
	char *text; /* owned: per event a compact JSON record, NUL-terminated (df_events_text) */
	size_t text_len, text_cap;
	/* called too for each files.jsonl line, after this side took it (may be NULL) */
	bndl_line_fn files_also;
	void *files_ctx;
	const struct rpl_diff_opts *opts; /* borrowed: its progress, may be NULL */
	const char *label; /* "A" or "B", for the progress line */
	uint16_t *outcome; /* 0: ok; else 1 + the name's index in errnames */
	size_t nev;
	struct repro_strmap *errnames; /* owned: the errno names met, in order (common/map.h) */
	struct df_file *files; /* owned: nfiles, in the order first met */
	size_t nfiles;
	struct repro_map *file_by_key; /* owned: key -> index in files */
	json_t *net; /* attempt/lookup key -> network.jsonl record, owned */
	struct xp_facts facts; /* for sentences: host and the files.jsonl records of failed paths */
};

/* One difference, with how likely it is the cause. */
struct df_item {
	const char *section; /* "host", "process", "call", "file", "network" */
	double score;
	char *text; /* owned: one line */
	json_t *json; /* owned */
	size_t order; /* when it was found: ties keep this order */
};

#define DF_SECTIONS 5 /* host, process, call, file, network */

struct df_items {
	struct df_item *v;
	size_t n, cap, dropped;
	size_t per_section[DF_SECTIONS]; /* items kept per section, at most DF_MAX_ITEMS each */
};

/* df_items_add - take text and json (owned) as a new item. */
void df_items_add(struct df_items *it, const char *section, double score, char *text, json_t *json);
void df_items_release(struct df_items *it);

/*
 * df_side_load - open the bundle and read everything but the events'
 * text: processes, events as keys, files, network, host.  Returns 0, or
 * -1 with *err.
 */
int df_side_load(struct df_side *s, struct repro_err **err);
void df_side_release(struct df_side *s);

/* df_side_errname - the outcome name of code (NULL for ok). */
const char *df_side_errname(const struct df_side *s, uint16_t code);

/*
 * df_withheld_name - files.jsonl's "hash_withheld" reason of code (a
 * struct df_file's withheld): "small", "owner-only", "secret-name", or
 * "withheld" for a reason this reader does not know; NULL for 0.  Static.
 */
const char *df_withheld_name(uint8_t code);

/* df_file_find - the facts of normalised path key, or NULL. */
struct df_file *df_file_find(const struct df_side *s, uint64_t key);

/*
 * df_events_text - the events at the wanted handles (want: "HANDLE" ->
 * true, HANDLE from lines[]) as "HANDLE" -> object of the fields a report
 * line uses (syscall, path, errno, flags, mode, seq, t_ns): kept while
 * the side was read, so events.jsonl is read once.  A new reference; NULL
 * with *err.  Linear in want.
 */
json_t *df_events_text(struct df_side *s, json_t *wanted, struct repro_err **err);

/* df_host_compare - host.json differences as items. */
void df_host_compare(const struct df_side *a, const struct df_side *b, struct df_items *it);

#endif
