/*
 * Where a replay may write (replayer/replay/replay.h rpl_replay_overlays()):
 * the directories overlaid for a received bundle's run, everything else
 * read-only (docs/replay.md, "Replaying a bundle you received").
 */
#include "replayer/replay/replay.h"
#include "bundles/members.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "replayer/readers/normalize.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The scratch directories every program may expect to write, overlaid when they exist. */
static const char *const scratch[] = { "/tmp", "/var/tmp", "/dev/shm" };

struct places {
	const struct rpl_replay_run_opts *o;
	struct rpl_replay_result *r;
	struct rpl_norm norm; /* --map */
};

/* Whether path is dir or inside it. */
static bool is_inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strcmp(dir, "/") == 0 ||
	       (strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/'));
}

/* path with the recorded prefix from replaced by to (new string), or NULL when not under it. */
static char *rebase(const char *path, const char *from, const char *to)
{
	if (from == NULL || to == NULL || !is_inside(path, from) || strcmp(from, "/") == 0)
		return NULL;
	return repro_xasprintf("%s%s", to, path + strlen(from));
}

/* Add dir (canonical, a directory here) unless one listed covers it; at most RPL_REPLAY_OVERLAYS_MAX. */
static void add_dir(struct rpl_replay_result *r, const char *dir)
{
	char real[PATH_MAX];
	struct stat st;

	if (realpath(dir, real) == NULL || stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	for (size_t i = 0; i < r->noverlay; i++)
		if (is_inside(real, r->overlay[i]))
			return;
	for (size_t i = 0; i < r->noverlay;) /* those real covers go */
		if (is_inside(r->overlay[i], real)) {
			free(r->overlay[i]);
			memmove(&r->overlay[i], &r->overlay[i + 1],
				(r->noverlay - i) * sizeof(*r->overlay));
			r->noverlay--;
		} else {
			i++;
		}
	if (r->noverlay >= RPL_REPLAY_OVERLAYS_MAX) {
		r->overlay_left_out++;
		return;
	}
	r->overlay = repro_xreallocarray(r->overlay, r->noverlay + 2, sizeof(*r->overlay));
	r->overlay[r->noverlay++] = repro_xstrdup(real);
	r->overlay[r->noverlay] = NULL;
}

/* The nearest directory here that holds path (its own directory, or an ancestor that exists). */
static void add_holder(struct rpl_replay_result *r, const char *path)
{
	cleanup_free char *dir = repro_xstrdup(path);
	char *slash;
	struct stat st;

	while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) == 0) {
			if (strcmp(dir, "/proc") != 0 && strcmp(dir, "/sys") != 0 &&
			    !is_inside(dir, "/proc") && !is_inside(dir, "/sys") &&
			    !(is_inside(dir, "/dev") && !is_inside(dir, "/dev/shm")))
				add_dir(r, dir);
			return;
		}
	}
}

/* Whether a files.jsonl record's ops say the run changed something there. */
static bool wrote(json_t *ops)
{
	static const char *const changes[] = { "write", "create", "delete", "link" };
	size_t i;
	json_t *op;

	json_array_foreach (ops, i, op)
		for (size_t k = 0; k < 4; k++)
			if (json_is_string(op) && strcmp(json_string_value(op), changes[k]) == 0)
				return true;
	return false;
}

/* One files.jsonl record: where the recording wrote, as it is found here. */
static int on_file(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct places *p = ctx;
	const char *path = json_string_value(json_object_get(obj, "path"));
	cleanup_free char *here = NULL;

	(void)lineno;
	(void)err;
	if (path == NULL || path[0] != '/' || !wrote(json_object_get(obj, "ops")))
		return 0;
	if ((here = rebase(path, p->r->plan.cwd, p->r->cwd)) == NULL &&
	    (here = rebase(path, p->r->plan.home, p->o->home_here)) == NULL &&
	    (here = rpl_norm_map(&p->norm, path)) == NULL)
		here = repro_xstrdup(path);
	add_holder(p->r, here);
	return 0;
}

int rpl_replay_overlays(const struct rpl_replay_run_opts *o, struct rpl_replay_result *r,
			struct repro_err **err)
{
	cleanup_reader struct bndl_reader *b = NULL;
	struct places p = { .o = o, .r = r };

	add_dir(r, r->cwd);
	if (o->home_here != NULL && o->home_here[0] == '/')
		add_dir(r, o->home_here);
	for (size_t i = 0; i < sizeof(scratch) / sizeof(scratch[0]); i++)
		add_dir(r, scratch[i]);
	for (size_t k = 0; k < o->nmaps && k < RPL_NORM_MAX_MAPS; k++) {
		p.norm.map_from[k] = o->map_from[k];
		p.norm.map_to[k] = o->map_to[k];
		p.norm.nmaps++;
	}
	if ((b = bndl_reader_open(r->bundle, err)) == NULL ||
	    bndl_reader_foreach_opt(b, BNDL_FILES_JSONL, on_file, &p, err) < 0)
		return -1;
	return 0;
}
