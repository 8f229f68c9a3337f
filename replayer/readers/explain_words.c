#include "replayer/readers/explain_words.h"
#include "bundles/json_util.h"
#include "common/map.h"
#include "common/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* What files.jsonl says of one path at the end of the run. */
struct wfile {
	char *path; /* owned */
	json_t *meta; /* owned: {"type","mode","uid","gid","size"} or NULL */
};

struct xp_words {
	struct wfile *v;
	size_t n;
	struct repro_strmap *paths; /* path -> index in v (the map's own index) */
	struct repro_strmap *names; /* file name -> index in by_name */
	size_t *by_name; /* names' index -> the first file of that name */
	size_t nnames;
};

struct xp_words *xp_words_new(void)
{
	struct xp_words *w = repro_xcalloc(1, sizeof(*w));

	w->paths = repro_strmap_new();
	w->names = repro_strmap_new();
	return w;
}

void xp_words_free(struct xp_words *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].path);
		json_decref(w->v[i].meta);
	}
	free(w->v);
	free(w->by_name);
	repro_strmap_free(w->paths);
	repro_strmap_free(w->names);
	free(w);
}

/* The facts of a files.jsonl "meta" worth saying, as a new object; NULL for none. */
static json_t *small_meta(json_t *meta)
{
	static const char *const keys[] = { "type", "mode", "uid", "gid", "size" };
	json_t *out;

	if (!json_is_object(meta))
		return NULL;
	out = json_object();
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(meta, keys[i]);

		if (json_is_string(v) || json_is_integer(v))
			json_object_set(out, keys[i], v);
	}
	return out;
}

size_t xp_words_note(struct xp_words *w, json_t *rec)
{
	const char *path = bndl_json_str(rec, "path"), *base;
	size_t len, name_index;
	bool is_new;

	if (path == NULL || (len = strlen(path)) == 0)
		return 0;
	repro_strmap_put(w->paths, path, len, &is_new);
	if (!is_new)
		return 0;
	w->v = repro_xgrow(w->v, w->n, sizeof(*w->v));
	w->v[w->n] = (struct wfile){ .path = repro_xstrdup(path),
				     .meta = small_meta(json_object_get(rec, "meta")) };
	base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	if (strlen(base) >= 3) {
		name_index = repro_strmap_put(w->names, base, strlen(base), &is_new);
		if (is_new) {
			w->by_name = repro_xgrow(w->by_name, w->nnames, sizeof(*w->by_name));
			w->by_name[w->nnames++] = w->n;
		}
		(void)name_index;
	}
	w->n++;
	return 2 * len + 64;
}

static bool is_cut(char c)
{
	return strchr(" \t\r\n'\"`()[]{}<>,;=", c) != NULL;
}

/*
 * Whether what follows a word makes it a place in the program's own code:
 * Python's traceback frame `File "/usr/lib/python3.11/socketserver.py",
 * line 456`: the program's source, not what it was about.  O(1).
 */
static bool is_code_location(const char *after, size_t len)
{
	size_t i = 0;

	while (i < len && (after[i] == '"' || after[i] == '\'' || after[i] == ','))
		i++;
	while (i < len && after[i] == ' ')
		i++;
	return len - i > 5 && memcmp(after + i, "line ", 5) == 0 && after[i + 5] >= '0' &&
	       after[i + 5] <= '9';
}

/* The file a word names, as an index into w->v; false for none. */
static bool lookup(const struct xp_words *w, const char *word, size_t len, size_t *at)
{
	const char *base = word;
	size_t name;

	while (len > 0 && (word[len - 1] == ':' || word[len - 1] == '.'))
		len--;
	if (len < 3)
		return false;
	if (repro_strmap_get(w->paths, word, len, at))
		return true;
	for (size_t i = 0; i < len; i++)
		if (word[i] == '/')
			base = word + i + 1;
	/* a bare word ("full", "error") names no file: a name has a '.' or a directory */
	if (base == word && memchr(word, '.', len) == NULL)
		return false;
	if (word + len - base < 3 ||
	    !repro_strmap_get(w->names, base, (size_t)(word + len - base), &name))
		return false;
	*at = w->by_name[name];
	return true;
}

json_t *xp_words_named(const struct xp_words *w, const char *text, size_t len)
{
	json_t *out = json_array();
	size_t seen[XP_WORDS_FILES_MAX];
	size_t nseen = 0;

	for (size_t i = 0; i < len && nseen < XP_WORDS_FILES_MAX;) {
		size_t start, at;
		bool dup = false;

		while (i < len && is_cut(text[i]))
			i++;
		start = i;
		while (i < len && !is_cut(text[i]))
			i++;
		if (i == start || is_code_location(text + i, len - i) ||
		    !lookup(w, text + start, i - start, &at))
			continue;
		for (size_t k = 0; k < nseen; k++)
			dup = dup || seen[k] == at;
		if (dup)
			continue;
		seen[nseen++] = at;
		json_array_append_new(
			out, json_pack("{s:s,s:O?}", "path", w->v[at].path, "meta", w->v[at].meta));
	}
	return out;
}
