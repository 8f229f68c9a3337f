/* The recorded failures a replay imposes, as fault rules (replayer/replay/replay.h). */
#include "replayer/replay/replay.h"
#include "bundles/members.h"
#include "replayer/replay/replay_internal.h"
#include "bundles/json_util.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "replayer/readers/explain.h"
#include "replayer/readers/normalize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --fast: the longest delay a replay keeps (ns). */
#define FAST_DELAY_NS 100000000ull
/* Most when= ranges one failure gets; past them the last range is open (N+). */
#define MAX_RANGES 16

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/*
 * s with fnmatch(3)'s special characters escaped, and ':' (a rule's
 * separator: "\\:" stays in the value, docs/faults.md), into a new string.
 */
static char *glob_escape(const char *s)
{
	char *out = repro_xmalloc(2 * strlen(s) + 1), *q = out;

	for (; *s != '\0'; s++) {
		if (strchr("*?[]\\:", *s) != NULL)
			*q++ = '\\';
		*q++ = *s;
	}
	*q = '\0';
	return out;
}

/*
 * A recorded path as a glob for this machine: normalised as repro diff
 * does (--map, the cwd as "<cwd>", HOME as "~", random temp-name parts,
 * /proc pids), escaped, then "<cwd>" and "~" replaced by this replay's and
 * the placeholders by '*'.  A new string.  Linear in the path.
 */
static char *path_here(const struct rpl_replay_opts *o, const struct rpl_replay_plan *p,
		       const char *path)
{
	struct rpl_norm n = { .nmaps = o->nmaps, .cwd = p->cwd, .home = p->home };
	const char *cwd_here = o->cwd_here != NULL ? o->cwd_here : p->cwd;
	cleanup_free char *norm = NULL, *esc = NULL;
	char *out, *q;
	size_t cap;

	for (size_t i = 0; i < o->nmaps && i < RPL_NORM_MAX_MAPS; i++) {
		n.map_from[i] = o->map_from[i];
		n.map_to[i] = o->map_to[i];
	}
	norm = rpl_norm_path(&n, path);
	esc = glob_escape(norm);
	cap = strlen(esc) + 2 * strlen(cwd_here) + (o->home_here ? 2 * strlen(o->home_here) : 0) +
	      8;
	out = q = repro_xmalloc(cap);
	if (strncmp(esc, "<cwd>", 5) == 0) {
		cleanup_free char *c = glob_escape(cwd_here);

		q += sprintf(q, "%s", c);
		memmove(esc, esc + 5, strlen(esc + 5) + 1);
	} else if (esc[0] == '~' && (esc[1] == '/' || esc[1] == '\0') && o->home_here != NULL) {
		cleanup_free char *h = glob_escape(o->home_here);

		q += sprintf(q, "%s", h);
		memmove(esc, esc + 1, strlen(esc + 1) + 1);
	}
	for (const char *s = esc; *s != '\0';) {
		if (strncmp(s, "XXXXXX", 6) == 0) {
			*q++ = '*';
			s += 6;
		} else if (strncmp(s, "<pid>", 5) == 0) {
			*q++ = '*';
			s += 5;
		} else {
			*q++ = *s++;
		}
	}
	*q = '\0';
	return out;
}

/*
 * Whether s is made only of the characters in set (and not empty): what a
 * bundle's syscall name, errno name, address or host name may hold before
 * it goes into a rule's text, where a ':' would add keys of its own (a
 * path goes in escaped: glob_escape()).
 */
static bool only(const char *s, const char *set)
{
	return s != NULL && *s != '\0' && strspn(s, set) == strlen(s);
}

#define LOWER "abcdefghijklmnopqrstuvwxyz0123456789_"
#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#define HOSTCHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"
#define IPCHARS "0123456789abcdefABCDEF.:"

/* One more rule (taken) of im, imposing the recorded events seqs[from..to) again. */
static void add_rule_for(struct rpl_imposition *im, char *rule, json_t *seqs, size_t from,
			 size_t to)
{
	im->rules = repro_xreallocarray(im->rules, im->nrules + 1, sizeof(*im->rules));
	im->origins = repro_xreallocarray(im->origins, im->nrules + 1, sizeof(*im->origins));
	im->norigins = repro_xreallocarray(im->norigins, im->nrules + 1, sizeof(*im->norigins));
	im->rules[im->nrules] = rule;
	im->norigins[im->nrules] = to > from ? to - from : 1;
	im->origins[im->nrules] =
		repro_xreallocarray(NULL, im->norigins[im->nrules], sizeof(**im->origins));
	im->origins[im->nrules][0] = im->seq;
	for (size_t k = from; k < to; k++)
		im->origins[im->nrules][k - from] =
			(uint64_t)json_integer_value(json_array_get(seqs, k));
	im->nrules++;
}

/* One more rule (taken) of im, imposing its recorded event im->seq. */
static void add_rule(struct rpl_imposition *im, char *rule)
{
	add_rule_for(im, rule, NULL, 0, 0);
}

static struct rpl_imposition *add(struct rpl_replay_plan *p, enum rpl_replay_kind kind, char *what,
				  uint64_t seq)
{
	p->v = repro_xreallocarray(p->v, p->n + 1, sizeof(*p->v));
	p->v[p->n] = (struct rpl_imposition){ .kind = kind, .what = what, .seq = seq };
	return &p->v[p->n++];
}

/* A recorded failure no rule can impose (what taken), and why (copied): said, never dropped. */
static void add_unimposable(struct rpl_replay_plan *p, enum rpl_replay_kind kind, char *what,
			    const char *why)
{
	add(p, kind, what, 0)->cannot = repro_xstrdup(why);
}

/*
 * Whether im's first rule parses (the others differ from it by when= only):
 * else its rules are dropped and im->cannot says why (the parser's line).
 * One rule parsed: linear in its text, plus rpl_rules_add()'s look-ups.
 */
static void check_rules(struct rpl_imposition *im)
{
	struct rpl_rules *r = rpl_rules_new();
	struct repro_err *err = NULL;

	if (im->nrules > 0 && rpl_rules_add(r, im->rules[0], &err) < 0) {
		im->cannot = repro_xasprintf("no fault rule can say it (%s)", err->msg);
		for (size_t k = 0; k < im->nrules; k++) {
			free(im->rules[k]);
			free(im->origins[k]);
		}
		im->nrules = 0;
	}
	repro_err_free(&err);
	rpl_rules_free(r);
}

/* ---- file and exec failures: at the occurrences they failed at ---- */

/* For each (syscall, path) of a finding: the occurrences counted so far, those that failed. */
struct occ_state {
	json_t *keys; /* "syscall\x1fpath" -> {"errno":E,"n":count,"failed":[indexes]} */
};

static int on_event(void *ctx, json_t *ev, size_t lineno, struct repro_err **err)
{
	struct occ_state *s = ctx;
	const char *sc = str(ev, "syscall"), *path = str(ev, "path"), *e = str(ev, "errno");
	cleanup_free char *key = NULL;
	json_t *k;
	json_int_t n;

	(void)lineno;
	(void)err;
	if (sc == NULL || path == NULL)
		return 0;
	key = repro_xasprintf("%s\x1f%s", sc, path);
	if ((k = json_object_get(s->keys, key)) == NULL)
		return 0;
	n = json_integer_value(json_object_get(k, "n")) + 1;
	json_object_set_new(k, "n", json_integer(n));
	if (e != NULL && strcmp(e, str(k, "errno")) == 0 &&
	    json_array_size(json_object_get(k, "failed")) < 100000) {
		json_array_append_new(json_object_get(k, "failed"), json_integer(n));
		json_array_append_new(json_object_get(k, "seqs"),
				      json_integer(json_integer_value(json_object_get(ev, "seq"))));
	}
	return 0;
}

/*
 * when= ranges of the failed occurrences: "3", "5..9", at most MAX_RANGES;
 * each rule's origins the recorded events of its occurrences (seqs, in
 * the order of failed).
 */
static void occurrence_rules(struct rpl_imposition *im, const char *base, json_t *failed,
			     json_t *seqs)
{
	size_t i = 0, n = json_array_size(failed);

	if (n == 0) { /* not found again: every call of that kind on that path */
		add_rule(im, repro_xstrdup(base));
		return;
	}
	while (i < n) {
		size_t first = i;
		json_int_t from = json_integer_value(json_array_get(failed, i)), to = from;

		while (i + 1 < n && json_integer_value(json_array_get(failed, i + 1)) == to + 1)
			to = json_integer_value(json_array_get(failed, ++i));
		i++;
		if (im->nrules + 1 == MAX_RANGES && i < n) {
			add_rule_for(im, repro_xasprintf("%s:when=%lld+", base, (long long)from),
				     seqs, first, n);
			return;
		}
		add_rule_for(im,
			     from == to ? repro_xasprintf("%s:when=%lld", base, (long long)from)
					: repro_xasprintf("%s:when=%lld..%lld", base,
							  (long long)from, (long long)to),
			     seqs, first, i);
	}
}

static void plan_file(struct rpl_replay_plan *p, const struct rpl_replay_opts *o, json_t *f,
		      json_t *keys, enum rpl_replay_kind kind)
{
	const char *sc = str(f, "syscall"), *path = str(f, "path"), *e = str(f, "errno");
	cleanup_free char *glob = NULL, *key = NULL, *base = NULL;
	json_t *seqs = json_object_get(json_object_get(f, "evidence"), "events");
	struct rpl_imposition *im;

	if (path == NULL)
		return;
	if (!only(sc, LOWER) ||
	    !only(e, UPPER)) { /* a bundle's words never become keys of a rule */
		add_unimposable(p, kind,
				repro_xasprintf("%s %s %s", sc ? sc : "?", path, e ? e : "?"),
				"its syscall or errno is not a name a fault rule takes");
		return;
	}
	glob = path_here(o, p, path);
	key = repro_xasprintf("%s\x1f%s", sc, path);
	base = repro_xasprintf("%s:error=%s:path=%s", sc, e, glob);
	im = add(p, kind, repro_xasprintf("%s %s %s", sc, path, e),
		 (uint64_t)json_integer_value(json_array_get(seqs, json_array_size(seqs) - 1)));
	occurrence_rules(im, base, json_object_get(json_object_get(keys, key), "failed"),
			 json_object_get(json_object_get(keys, key), "seqs"));
	check_rules(im);
}

/* ---- connects and lookups ---- */

static void plan_connect(struct rpl_replay_plan *p, const struct rpl_replay_opts *o, json_t *f)
{
	json_t *a = json_object_get(json_object_get(f, "reason"), "attempt");
	const char *ip = str(a, "ip"), *outcome = str(a, "outcome"), *e = str(a, "errno");
	const char *fam = str(a, "family");
	json_int_t port = json_integer_value(json_object_get(a, "port"));
	uint64_t dur = (uint64_t)json_integer_value(json_object_get(a, "dur_ns"));
	cleanup_free char *addr = NULL;
	struct rpl_imposition *im;
	char *rule;

	if (ip == NULL || outcome == NULL) /* not an IP connect */
		return;
	if (!only(ip, IPCHARS) || port <= 0 || port > 65535 || (e != NULL && !only(e, UPPER))) {
		add_unimposable(
			p, RPL_REPLAY_NETWORK,
			repro_xasprintf("connect %s:%lld %s", ip, (long long)port, e ? e : outcome),
			"its address, port or errno is not one a fault rule takes");
		return;
	}
	addr = repro_xasprintf(fam != NULL && strcmp(fam, "AF_INET6") == 0 ? "[%s]:%lld"
									   : "%s:%lld",
			       ip, (long long)port);
	if (o->fast && dur > FAST_DELAY_NS)
		dur = FAST_DELAY_NS;
	if (strcmp(outcome, "timed_out") == 0)
		rule = repro_xasprintf("connect:error=ETIMEDOUT:delay=%llums:type=stream:addr=%s",
				       (unsigned long long)(dur / 1000000), addr);
	else if (strcmp(outcome, "abandoned") == 0)
		rule = repro_xasprintf("connect:blackhole:type=stream:addr=%s", addr);
	else if (e != NULL && strcmp(e, "EINPROGRESS") != 0)
		rule = repro_xasprintf("connect:error=%s:addr=%s", e, addr);
	else
		return;
	im = add(p, RPL_REPLAY_NETWORK, repro_xasprintf("connect %s %s", addr, e ? e : outcome),
		 (uint64_t)json_integer_value(json_object_get(a, "seq")));
	add_rule(im, rule);
	check_rules(im);
}

static void plan_dns(struct rpl_replay_plan *p, json_t *f)
{
	json_t *l = json_object_get(json_object_get(f, "reason"), "lookup");
	const char *name = str(l, "name"), *outcome = str(l, "outcome");
	const char *err = NULL;
	cleanup_free char *glob = NULL;
	struct rpl_imposition *im;

	if (name == NULL || outcome == NULL)
		return;
	if (strcmp(outcome, "nxdomain") == 0)
		err = "NXDOMAIN";
	else if (strcmp(outcome, "servfail") == 0)
		err = "SERVFAIL";
	else if (strcmp(outcome, "timed_out") == 0)
		err = "TIMEOUT";
	if (err == NULL)
		return;
	if (!only(name, HOSTCHARS)) {
		add_unimposable(p, RPL_REPLAY_DNS, repro_xasprintf("dns %s %s", name, err),
				"its name is not one a fault rule takes");
		return;
	}
	glob = glob_escape(name);
	im = add(p, RPL_REPLAY_DNS, repro_xasprintf("dns %s %s", name, err),
		 (uint64_t)json_integer_value(json_object_get(l, "seq")));
	add_rule(im, repro_xasprintf("dns:error=%s:host=%s", err, glob));
	check_rules(im);
}

json_t *rpl_replay_findings(const char *bundle, json_t **run, struct repro_err **err)
{
	struct rpl_explain_opts eo = { .bundle_path = bundle, .all = true };
	json_t *doc = NULL, *fs;

	if (rpl_explain_findings(&eo, &doc, err) < 0)
		return NULL;
	fs = json_incref(json_object_get(doc, "findings"));
	*run = json_incref(json_object_get(doc, "run"));
	json_decref(doc);
	return fs != NULL ? fs : json_array();
}

static enum rpl_replay_kind kind_of(const char *k)
{
	if (k == NULL)
		return 0;
	if (strcmp(k, "file") == 0)
		return RPL_REPLAY_FILE;
	if (strcmp(k, "exec") == 0)
		return RPL_REPLAY_EXEC;
	if (strcmp(k, "connect") == 0)
		return RPL_REPLAY_NETWORK;
	if (strcmp(k, "dns") == 0)
		return RPL_REPLAY_DNS;
	return 0;
}

/* The manifest's command (checked against processes.jsonl) and cwd, host.json's HOME. */
static int read_facts(struct bndl_reader *r, struct rpl_replay_plan *p, struct repro_err **err)
{
	json_t *m = bndl_reader_manifest(r), *env;
	size_t i;
	json_t *e;

	p->argv = json_incref(json_object_get(m, "argv"));
	p->has_cwd = str(m, "cwd") != NULL && str(m, "cwd")[0] == '/';
	p->cwd = repro_xstrdup(p->has_cwd ? str(m, "cwd") : "/");
	p->exit = json_incref(json_object_get(m, "exit"));
	p->duration_ns = (uint64_t)json_integer_value(json_object_get(m, "duration_ns"));
	p->net_none = str(json_object_get(m, "options"), "net") != NULL &&
		      strcmp(str(json_object_get(m, "options"), "net"), "none") == 0;
	if (!json_is_array(p->argv) || json_array_size(p->argv) == 0)
		return repro_err_set(err, EPROTO, "replay: the bundle's manifest has no argv");
	json_array_foreach (p->argv, i, e)
		if (!json_is_string(e))
			return repro_err_set(err, EPROTO,
					     "replay: the bundle's manifest argv is not strings");
	/* what runs is what explain and show name (host.json comes first: a pipe still works) */
	if (bndl_reader_load_opt(r, BNDL_HOST_JSON, &p->host, err) < 0 ||
	    bndl_reader_check_command(r, err) < 0)
		return -1;
	env = json_object_get(p->host, "environment");
	if (str(env, "HOME") != NULL)
		p->home = repro_xstrdup(str(env, "HOME"));
	return 0;
}

/* A plan read only in part is released whole: -1 for rpl_replay_plan_read() to return. */
static int plan_abandon(struct rpl_replay_plan *out)
{
	rpl_replay_plan_release(out);
	return -1;
}

int rpl_replay_plan_read(const char *bundle, const struct rpl_replay_opts *o,
			 struct rpl_replay_plan *out, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = NULL;
	cleanup_json json_t *keys = json_object(), *findings = NULL, *run = NULL;
	struct occ_state occ = { .keys = keys };
	unsigned kinds = o->kinds != 0 ? o->kinds : RPL_REPLAY_ALL;
	size_t i;
	json_t *f;

	memset(out, 0, sizeof(*out));
	if ((r = bndl_reader_open(bundle, err)) == NULL || read_facts(r, out, err) < 0)
		return plan_abandon(out);
	if ((findings = rpl_replay_findings(bundle, &run, err)) == NULL)
		return plan_abandon(out);
	json_array_foreach (findings, i, f) { /* the keys whose occurrences count */
		enum rpl_replay_kind k = kind_of(str(f, "kind"));

		if (json_is_true(json_object_get(f, "noise")) || !(k & kinds) ||
		    !(k & (RPL_REPLAY_FILE | RPL_REPLAY_EXEC)) || str(f, "path") == NULL ||
		    str(f, "errno") == NULL)
			continue;
		cleanup_free char *key =
			repro_xasprintf("%s\x1f%s", str(f, "syscall"), str(f, "path"));

		json_object_set_new(keys, key,
				    json_pack("{s:s,s:i,s:[],s:[]}", "errno", str(f, "errno"), "n",
					      0, "failed", "seqs"));
	}
	if (json_object_size(keys) > 0 &&
	    bndl_reader_foreach(r, BNDL_EVENTS_JSONL, on_event, &occ, err) < 0)
		return plan_abandon(out);
	json_array_foreach (findings, i, f) {
		enum rpl_replay_kind k = kind_of(str(f, "kind"));

		if (json_is_true(json_object_get(f, "noise")) || !(k & kinds))
			continue;
		if (k == RPL_REPLAY_FILE || k == RPL_REPLAY_EXEC)
			plan_file(out, o, f, keys, k);
		else if (k == RPL_REPLAY_NETWORK)
			plan_connect(out, o, f);
		else if (k == RPL_REPLAY_DNS)
			plan_dns(out, f);
	}
	return 0;
}

void rpl_replay_plan_release(struct rpl_replay_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].what);
		free(p->v[i].cannot);
		for (size_t k = 0; k < p->v[i].nrules; k++) {
			free(p->v[i].rules[k]);
			free(p->v[i].origins[k]);
		}
		free(p->v[i].rules);
		free(p->v[i].origins);
		free(p->v[i].norigins);
	}
	free(p->v);
	json_decref(p->argv);
	free(p->cwd);
	free(p->home);
	json_decref(p->exit);
	json_decref(p->host);
	memset(p, 0, sizeof(*p));
}

int rpl_replay_kinds_parse(const char *text, unsigned *out, struct repro_err **err)
{
	static const struct {
		const char *name;
		unsigned bit;
	} kinds[] = { { "file", RPL_REPLAY_FILE },
		      { "exec", RPL_REPLAY_EXEC },
		      { "network", RPL_REPLAY_NETWORK },
		      { "dns", RPL_REPLAY_DNS } };
	cleanup_free char *copy = repro_xstrdup(text);
	char *save = NULL;
	size_t k;

	*out = 0;
	for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (strcmp(w, kinds[k].name) == 0)
				break;
		if (k == sizeof(kinds) / sizeof(kinds[0]))
			return repro_err_set(err, EINVAL,
					     "replay --only: unknown kind '%s' (want file, exec, "
					     "network or dns)",
					     w);
		*out |= kinds[k].bit;
	}
	return *out != 0 ? 0 : repro_err_set(err, EINVAL, "replay --only: nothing given");
}
