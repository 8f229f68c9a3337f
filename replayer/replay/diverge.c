/* Where a replay went another way than its recording (replayer/replay/replay.h). */
#include "replayer/replay/replay.h"
#include "bundles/members.h"
#include "bundles/json_util.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "replayer/readers/normalize.h"
#include "replayer/replay/replay_internal.h"

#include <string.h>

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A bundle's cwd (manifest) and HOME (host.json), for normalising its paths. */
struct side {
	json_t *findings; /* owned */
	char *cwd, *home; /* owned */
};

static int side_read(const char *bundle, struct side *s, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = bndl_reader_open(bundle, err);
	json_t *host = NULL, *run = NULL;

	memset(s, 0, sizeof(*s));
	if (r == NULL)
		return -1;
	s->cwd = repro_xstrdup(
		str(bndl_reader_manifest(r), "cwd") ? str(bndl_reader_manifest(r), "cwd") : "/");
	if (bndl_reader_load_opt(r, BNDL_HOST_JSON, &host, err) < 0)
		return -1;
	if (str(json_object_get(host, "environment"), "HOME") != NULL)
		s->home = repro_xstrdup(str(json_object_get(host, "environment"), "HOME"));
	json_decref(host);
	s->findings = rpl_replay_findings(bundle, &run, err);
	json_decref(run);
	return s->findings != NULL ? 0 : -1;
}

static void side_release(struct side *s)
{
	json_decref(s->findings);
	free(s->cwd);
	free(s->home);
}

/*
 * A finding as something comparable across the two runs ("file|openat|
 * <cwd>/app.json|ENOENT") and as words ("openat <cwd>/app.json ENOENT"),
 * its paths normalised as repro diff does.  NULL for probe noise, for
 * what a fault rule imposed and for a finding without a path, address or
 * name (a long wait: the replay's own timing).
 */
static char *key_of(json_t *f, const struct rpl_norm *n, char **words)
{
	json_t *reason = json_object_get(f, "reason");
	const char *kind = str(f, "kind"), *sc = str(f, "syscall");
	const char *res = str(f, "errno") != NULL ? str(f, "errno") : str(f, "outcome");
	cleanup_free char *target = NULL;
	char *key;

	if (kind == NULL || json_is_true(json_object_get(f, "noise")) ||
	    (str(reason, "what") != NULL && strcmp(str(reason, "what"), "injected") == 0))
		return NULL;
	if (str(f, "path") != NULL) {
		target = rpl_norm_path(n, str(f, "path"));
	} else if (json_object_get(reason, "attempt") != NULL) {
		json_t *a = json_object_get(reason, "attempt");

		target = repro_xasprintf("%s:%lld", str(a, "ip") ? str(a, "ip") : "?",
					 (long long)json_integer_value(json_object_get(a, "port")));
	} else if (json_object_get(reason, "lookup") != NULL) {
		target = repro_xstrdup(str(json_object_get(reason, "lookup"), "name")
					       ? str(json_object_get(reason, "lookup"), "name")
					       : "?");
	} else {
		return NULL; /* a wait, a signal …: no call and target to name */
	}
	key = repro_xasprintf("%s|%s|%s|%s", kind, sc ? sc : "?", target, res ? res : "?");
	*words = repro_xasprintf("%s %s %s", sc ? sc : kind,
				 str(f, "path") != NULL ? str(f, "path") : target,
				 res ? res : "failed");
	return key;
}

/* The findings of rep whose keys rec lacks, into a new array (at most RPL_REPLAY_DIVERGENCES_MAX). */
static json_t *unmatched(const struct side *rec, const struct side *rep,
			 const struct rpl_replay_opts *o)
{
	struct rpl_norm nr = { .nmaps = o->nmaps }, np = { 0 };
	cleanup_json json_t *seen = json_object();
	json_t *out = json_array(), *f;
	size_t i;

	for (size_t k = 0; k < o->nmaps && k < RPL_NORM_MAX_MAPS; k++) {
		nr.map_from[k] = o->map_from[k];
		nr.map_to[k] = o->map_to[k];
	}
	nr.cwd = rec->cwd;
	nr.home = rec->home;
	np.cwd = rep->cwd;
	np.home = rep->home;
	json_array_foreach (rec->findings, i, f) {
		char *words = NULL;
		cleanup_free char *key = key_of(f, &nr, &words);

		free(words);
		if (key != NULL)
			json_object_set_new(seen, key, json_true());
	}
	json_array_foreach (rep->findings, i, f) {
		char *words = NULL;
		cleanup_free char *key = key_of(f, &np, &words);

		if (key != NULL && json_object_get(seen, key) == NULL &&
		    json_array_size(out) < RPL_REPLAY_DIVERGENCES_MAX)
			json_array_append_new(out,
					      json_pack("{s:s,s:s?,s:s?,s:s?,s:s?}", "what", words,
							"process", str(f, "process"), "syscall",
							str(f, "syscall"), "path", str(f, "path"),
							"errno", str(f, "errno")));
		free(words);
	}
	return out;
}

int rpl_replay_divergences(const char *recorded, const char *replayed,
			   const struct rpl_replay_opts *o, json_t **out, struct repro_err **err)
{
	struct side rec, rep;
	int rc = -1;

	*out = NULL;
	if (side_read(recorded, &rec, err) < 0) {
		side_release(&rec);
		return -1;
	}
	if (side_read(replayed, &rep, err) == 0) {
		*out = unmatched(&rec, &rep, o);
		rc = 0;
	}
	side_release(&rec);
	side_release(&rep);
	return rc;
}
