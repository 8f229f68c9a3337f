/*
 * The run of a replay and its verdict, and --minimize's trials
 * (replayer/replay/replay.h, docs/replay.md "The summary").
 */
#include "replayer/replay/replay.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/names.h"
#include "common/xalloc.h"
#include "replayer/readers/diff.h"
#include "replayer/readers/normalize.h"
#include "replayer/sweep/sweep.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The shortest time limit of a --minimize trial (ns); else 3 x the recorded run's. */
#define TRIAL_MIN_LIMIT_NS 10000000000ull

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

void rpl_replay_result_release(struct rpl_replay_result *r)
{
	free(r->bundle);
	free(r->output);
	rpl_replay_plan_release(&r->plan);
	free(r->cwd);
	for (size_t i = 0; i < r->noverlay; i++)
		free(r->overlay[i]);
	free(r->overlay);
	free(r->argv);
	rpl_rules_free(r->rules);
	free(r->first_rule);
	free(r->fired);
	if (r->ran)
		sess_result_release(&r->res);
	json_decref(r->failed_here);
	free(r->failed_here_error);
	json_decref(r->process_diffs);
	free(r->process_diffs_error);
	free(r->strict_what);
	free(r->strict_context);
	free(r->strict_context_error);
	memset(r, 0, sizeof(*r));
}

void rpl_replay_minimized_release(struct rpl_replay_minimized *m)
{
	free(m->needed);
	memset(m, 0, sizeof(*m));
}

/* Whether argv0 would be found here: a path that exists, or a name in PATH. */
static bool found_here(const char *argv0, const char *cwd)
{
	const char *path = getenv("PATH");
	cleanup_free char *copy = NULL;
	char *save = NULL;

	if (strchr(argv0, '/') != NULL) {
		cleanup_free char *p = argv0[0] == '/' ? repro_xstrdup(argv0)
						       : repro_xasprintf("%s/%s", cwd, argv0);

		return access(p, F_OK) == 0;
	}
	copy = repro_xstrdup(path != NULL ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(copy, ":", &save); d != NULL; d = strtok_r(NULL, ":", &save)) {
		cleanup_free char *p = repro_xasprintf("%s/%s", *d ? d : ".", argv0);

		if (access(p, X_OK) == 0)
			return true;
	}
	return false;
}

/* The recorded working directory as --map names it here, or as it was (a new string). */
static char *mapped_cwd(const struct rpl_replay_run_opts *o, const char *recorded)
{
	struct rpl_norm n = { .nmaps = 0 };
	char *mapped;

	for (size_t k = 0; k < o->nmaps && k < RPL_NORM_MAX_MAPS; k++) {
		n.map_from[k] = o->map_from[k];
		n.map_to[k] = o->map_to[k];
		n.nmaps++;
	}
	mapped = rpl_norm_map(&n, recorded);
	return mapped != NULL ? mapped : repro_xstrdup(recorded);
}

/* Where the replay's bundle goes by default: BUNDLE without .repro, then .replay.repro. */
static char *default_output(const char *bundle)
{
	size_t n = strlen(bundle);

	if (n > 6 && strcmp(bundle + n - 6, ".repro") == 0)
		n -= 6;
	return repro_xasprintf("%.*s.replay.repro", (int)n, bundle);
}

/* The options of the plan and the watch, as o gives them (borrowing o). */
static struct rpl_replay_opts plan_opts(const struct rpl_replay_run_opts *o, const char *cwd)
{
	return (struct rpl_replay_opts){ .kinds = o->kinds,
					 .fast = o->fast,
					 .cwd_here = cwd,
					 .home_here = o->home_here,
					 .map_from = o->map_from,
					 .map_to = o->map_to,
					 .nmaps = o->nmaps };
}

/*
 * The replay made ready: the bundle's and output's absolute paths (named
 * from where repro was started, before the chdir), the plan, the working
 * directory entered, the command found here.
 */
static int prepare(const struct rpl_replay_run_opts *o, struct rpl_replay_result *r,
		   struct repro_err **err)
{
	struct rpl_replay_opts ro = plan_opts(o, o->cwd);
	char here[PATH_MAX];
	size_t i;
	json_t *a;

	memset(r, 0, sizeof(*r));
	r->bundle = realpath(o->bundle, NULL);
	if (r->bundle == NULL)
		return repro_err_set(err, errno, "cannot open bundle '%s'", o->bundle);
	if (o->output != NULL)
		r->output = o->output[0] == '/' || getcwd(here, sizeof(here)) == NULL
				    ? repro_xstrdup(o->output)
				    : repro_xasprintf("%s/%s", here, o->output);
	else
		r->output = default_output(r->bundle);
	if (rpl_replay_plan_read(r->bundle, &ro, &r->plan, err) < 0)
		return -1;
	if (o->cwd == NULL && !r->plan.has_cwd)
		return repro_err_set(
			err, EPROTO,
			"replay: the bundle records no working directory (give --cwd DIR)");
	r->cwd = o->cwd != NULL ? repro_xstrdup(o->cwd) : mapped_cwd(o, r->plan.cwd);
	if (chdir(r->cwd) < 0)
		return repro_err_set(err, errno,
				     o->cwd != NULL ? "replay --cwd: cannot enter '%s'"
						    : "replay: the recorded working directory '%s' "
						      "is not here (give --cwd DIR)",
				     r->cwd);
	if (o->cmd != NULL) {
		for (i = 0; o->cmd[i] != NULL; i++)
			;
		r->argv = repro_xcalloc(i + 1, sizeof(*r->argv));
		memcpy(r->argv, o->cmd, i * sizeof(*r->argv));
	} else {
		r->argv = repro_xcalloc(json_array_size(r->plan.argv) + 1, sizeof(*r->argv));
		json_array_foreach (r->plan.argv, i, a)
			r->argv[i] = (char *)json_string_value(a);
	}
	if (r->argv[0] == NULL || !found_here(r->argv[0], r->cwd))
		return repro_err_set(err, ENOENT,
				     "replay: the command '%s' is not here (install it, or give -- "
				     "CMD to run instead)",
				     r->argv[0] != NULL ? r->argv[0] : "");
	return o->no_overlay ? 0 : rpl_replay_overlays(o, r, err);
}

/*
 * The rules of impositions where keep (NULL: all) says, each with its
 * origin (the recorded events), then --inject's; *first_rule (may be NULL)
 * gets where each imposition's rules begin.
 */
static struct rpl_rules *rules_for(const struct rpl_replay_run_opts *o,
				   const struct rpl_replay_plan *p, const bool *keep,
				   size_t **first_rule, struct repro_err **err)
{
	struct rpl_rules *r = rpl_rules_new();

	if (first_rule != NULL)
		*first_rule = repro_xcalloc(p->n + 1, sizeof(**first_rule));
	for (size_t i = 0; i < p->n; i++) {
		if (first_rule != NULL)
			(*first_rule)[i] = rpl_rules_count(r);
		for (size_t k = 0; !o->no_impose && (keep == NULL || keep[i]) && k < p->v[i].nrules;
		     k++) {
			if (rpl_rules_add(r, p->v[i].rules[k], err) < 0) {
				rpl_rules_free(r);
				return repro_err_wrap(err, "replay: imposing '%s'", p->v[i].what),
				       NULL;
			}
			rpl_rules_set_origins(r, rpl_rules_count(r) - 1, p->v[i].origins[k],
					      p->v[i].norigins[k]);
		}
	}
	if (first_rule != NULL)
		(*first_rule)[p->n] = rpl_rules_count(r);
	if (rpl_rules_append(r, o->extra, err) < 0) {
		rpl_rules_free(r);
		return NULL;
	}
	return r;
}

/* The session of a replay's run: the command as repro record runs it, o's hooks. */
static struct sess_options run_options(const struct rpl_replay_run_opts *o,
				       const struct rpl_replay_result *r, const char *output)
{
	struct sess_options s = {
		.argv = r->argv,
		.output = output,
		.classes = SESS_CLASS_ALL,
		/* a received bundle's run: loopback only, unless the user allows more */
		.net_none = !o->net_host,
		.sandbox = SESS_SANDBOX_AUTO,
		.wait_all = true,
		.hash_max = 64ull << 20,
		/* writes only into overlays, every other mount read-only, no privilege gained */
		.is_overlay = !o->no_overlay,
		.overlay_paths = (const char *const *)r->overlay,
		.noverlay_paths = r->noverlay,
		.read_only = !o->no_overlay,
		.no_new_privs = true,
		.keep_overlay = o->keep_overlay,
	};

	if (o->hooks != NULL) {
		s.should_stop = o->hooks->should_stop;
		s.on_program = o->hooks->on_program;
		s.progress = o->hooks->progress;
		s.notice = o->hooks->notice;
		s.cb_ctx = o->hooks->cb_ctx;
		s.inherited = o->hooks->inherited;
	}
	return s;
}

/* "exit 1", "killed by SIGKILL" of a manifest's exit (a hostile bundle's words checked). */
static void exit_words(json_t *e, char *buf, size_t cap)
{
	const char *sig = jstr(e, "signal");

	if (json_object_get(e, "code") != NULL)
		snprintf(buf, cap, "exit %lld",
			 (long long)json_integer_value(json_object_get(e, "code")));
	else if (sig != NULL && sig[0] != '\0' &&
		 strspn(sig, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-") == strlen(sig) &&
		 strlen(sig) < 24)
		snprintf(buf, cap, "killed by %s", sig);
	else if (sig != NULL)
		snprintf(buf, cap, "killed by a signal");
	else
		snprintf(buf, cap, "no exit seen");
}

/* The run's exit as a manifest says it (a new value). */
static json_t *exit_json(const struct sess_result *res)
{
	char sig[32];

	if (res->has_exit && WIFSIGNALED(res->wait_status))
		return json_pack("{s:s}", "signal",
				 repro_signal_name(WTERMSIG(res->wait_status), sig, sizeof(sig)));
	if (res->has_exit)
		return json_pack("{s:i}", "code", WEXITSTATUS(res->wait_status));
	return json_null();
}

/* The failures of the replay the recording did not have, those the watch said aside. */
static void failed_here(const struct rpl_replay_run_opts *o, struct rpl_replay_result *r,
			const struct rpl_watch *w)
{
	struct rpl_replay_opts ro = plan_opts(o, r->cwd);
	struct repro_err *err = NULL;
	json_t *d = NULL, *e;
	size_t i;

	r->failed_here = json_array();
	if (rpl_replay_divergences(r->bundle, r->res.bundle_path, &ro, &d, &err) < 0) {
		r->failed_here_error = repro_err_format(err);
		repro_err_free(&err);
		return;
	}
	json_array_foreach (d, i, e) {
		if (jstr(e, "what") == NULL ||
		    rpl_watch_reported(w, jstr(e, "syscall"), jstr(e, "path"), jstr(e, "errno")))
			continue;
		json_array_append_new(r->failed_here,
				      json_pack("{s:s,s:s?}", "what", jstr(e, "what"), "process",
						jstr(e, "process")));
	}
	json_decref(d);
}

/*
 * The processes of the replay against the recording's, aligned by exec
 * lineage as repro diff aligns them (docs/diff.md): one that ran on one
 * side only, one whose lineage went on otherwise, a child that ended
 * otherwise (score 50 and up; the first process's own exit is the
 * verdict's).
 */
static void process_diffs(const struct rpl_replay_run_opts *o, struct rpl_replay_result *r)
{
	struct rpl_diff_opts d = { .a_path = r->bundle, .b_path = r->res.bundle_path };
	struct repro_err *err = NULL;
	json_t *doc = NULL, *e;
	bool differ = false;
	size_t i;

	r->process_diffs = json_array();
	for (size_t k = 0; k < o->nmaps && k < RPL_NORM_MAX_MAPS; k++) {
		d.map_from[k] = o->map_from[k];
		d.map_to[k] = o->map_to[k];
		d.nmaps++;
	}
	if (rpl_diff_doc(&d, &doc, &differ, &err) < 0) {
		r->process_diffs_error = repro_err_format(err);
		repro_err_free(&err);
		return;
	}
	json_array_foreach (json_object_get(doc, "differences"), i, e) {
		if (jstr(e, "section") == NULL || strcmp(jstr(e, "section"), "process") != 0 ||
		    json_number_value(json_object_get(e, "score")) < 50 || jstr(e, "text") == NULL)
			continue;
		json_array_append_new(r->process_diffs, json_string(jstr(e, "text")));
	}
	json_decref(doc);
}

/* --strict ended the run: where, and the calls before it on both sides (made safe). */
static void strict_stop(struct rpl_replay_result *r, struct rpl_watch *w)
{
	struct repro_err *err = NULL;
	size_t len = 0;
	FILE *f;

	r->strict_what = repro_xstrdup(rpl_watch_stop_what(w) + strlen("diverged: "));
	f = open_memstream(&r->strict_context, &len);
	if (f == NULL)
		return;
	if (rpl_watch_context(w, r->bundle, f, &err) < 0) {
		r->strict_context_error = repro_err_format(err);
		repro_err_free(&err);
	}
	fclose(f);
}

/* The verdict: reproduced (the recorded exit, every failure imposed, none other), or not. */
static void judge(const struct rpl_replay_run_opts *o, struct rpl_replay_result *r)
{
	json_t *here = exit_json(&r->res);
	bool same = json_equal(here, r->plan.exit);

	r->fired = repro_xcalloc(r->plan.n + 1, sizeof(*r->fired));
	for (size_t i = 0; i < r->plan.n && !o->no_impose; i++) {
		for (size_t k = r->first_rule[i]; k < r->first_rule[i + 1]; k++)
			r->fired[i] += rpl_rules_fired(r->rules, k);
		r->imposed += r->fired[i] > 0;
	}
	exit_words(r->plan.exit, r->exit_recorded, sizeof(r->exit_recorded));
	exit_words(here, r->exit_here, sizeof(r->exit_here));
	r->ndivergences =
		r->live + json_array_size(r->failed_here) + json_array_size(r->process_diffs);
	if (r->res.ended_by_policy)
		r->verdict = RPL_REPLAY_STOPPED;
	else if (same && (o->no_impose || r->imposed == r->plan.n) && r->ndivergences == 0)
		r->verdict = RPL_REPLAY_REPRODUCED;
	else if (same)
		r->verdict = RPL_REPLAY_OTHER_WAY;
	else
		r->verdict = RPL_REPLAY_NOT_REPRODUCED;
	r->status = !r->res.has_exit		      ? 1
		    : WIFSIGNALED(r->res.wait_status) ? 128 + WTERMSIG(r->res.wait_status)
						      : WEXITSTATUS(r->res.wait_status);
	json_decref(here);
}

int rpl_replay_run(const struct rpl_replay_run_opts *o, struct rpl_replay_result *out,
		   struct repro_err **err)
{
	struct rpl_replay_opts ro;
	struct rpl_watch *watch;
	struct sess_policy watch_pol;
	struct sess_options sess;
	int rc;

	if (prepare(o, out, err) < 0)
		return -1;
	out->rules = rules_for(o, &out->plan, NULL, &out->first_rule, err);
	if (out->rules == NULL)
		return -1;
	if (o->before != NULL && (rc = o->before(o->ctx, out, err)) != 0)
		return rc;
	ro = plan_opts(o, out->cwd);
	watch = rpl_watch_new(out->bundle, &ro, o->strict, o->say, o->ctx, err);
	if (watch == NULL)
		return -1;
	watch_pol = (struct sess_policy){ .ops = rpl_watch_ops(), .ctx = watch };
	sess = run_options(o, out, out->output);
	sess.ptrace_only = true; /* the watch sees results on the ptrace path only */
	rc = rpl_runner_run(
		o->runner,
		&(struct rpl_run_opts){ .sess = &sess, .first = &watch_pol, .rules = out->rules },
		&out->res, err);
	if (rc < 0) {
		rpl_watch_free(watch);
		return -1;
	}
	out->ran = true;
	if (rpl_watch_stopped(watch))
		strict_stop(out, watch);
	out->live = rpl_watch_divergences(watch);
	out->live_said = rpl_watch_said(watch);
	if (out->res.bundle_path != NULL)
		failed_here(o, out, watch);
	if (out->res.bundle_path != NULL && !out->res.ended_by_policy) /* --strict cut it short */
		process_diffs(o, out);
	judge(o, out);
	rpl_watch_free(watch);
	return 0;
}

/* One trial of --minimize: the replay with the impositions keep says. */
struct trial {
	const struct rpl_replay_run_opts *o;
	const struct rpl_replay_result *r;
	const bool *keep;
};

static void quiet_notice(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

/* In a child of the scheduler (replayer/sweep/sweep.h's runner): the trial's run. */
static int trial_child(void *vctx, const struct swp_run_req *req)
{
	const struct trial *t = vctx;
	struct sess_options sess = run_options(t->o, t->r, req->bundle);
	struct repro_err *err = NULL;
	struct rpl_rules *rules = rules_for(t->o, &t->r->plan, t->keep, NULL, &err);
	int rc;

	sess.is_overlay = true; /* a trial never writes to this machine */
	sess.spool_parent = req->dir;
	sess.time_limit_ns = req->time_limit_ns;
	sess.notice = quiet_notice; /* repro's own notices are not the program's words */
	sess.progress = (struct sess_progress){ 0 };
	if (rules == NULL) {
		cleanup_free char *msg = repro_err_format(err);

		repro_err_free(&err);
		return swp_write_result(req->dir, false, 0, false, 0, NULL, msg) < 0 ? 1 : 0;
	}
	rc = swp_record_run(
		t->o->runner,
		&(struct rpl_run_opts){ .sess = &sess,
					.rules = rpl_rules_count(rules) > 0 ? rules : NULL },
		req);
	rpl_rules_free(rules);
	return rc;
}

/* Whether a trial ended with the recorded exit. */
static bool same_exit(const struct swp_outcome *out, json_t *recorded)
{
	json_t *code = json_object_get(recorded, "code");
	const char *sig = json_string_value(json_object_get(recorded, "signal"));

	if (!out->ran || out->error != NULL || !out->has_exit || out->timed_out)
		return false;
	if (code != NULL)
		return WIFEXITED(out->wait_status) &&
		       WEXITSTATUS(out->wait_status) == json_integer_value(code);
	if (sig != NULL && WIFSIGNALED(out->wait_status))
		return repro_signal_parse(sig) == WTERMSIG(out->wait_status);
	return false;
}

/* One trial with the impositions keep says; whether it gave the recorded exit. */
static int try_set(const struct trial *t, const char *work, size_t step, bool *same,
		   struct repro_err **err)
{
	struct swp_runner runner = { .run = trial_child, .ctx = (void *)t };
	cleanup_free char *dir = repro_xasprintf("%s/%03zu", work, step);
	cleanup_free char *bundle = repro_xasprintf("%s/trial.repro", dir);
	uint64_t limit = 3 * t->r->plan.duration_ns;
	struct swp_run_req req = { .rule = "",
				   .dir = dir,
				   .bundle = bundle,
				   .time_limit_ns = limit > TRIAL_MIN_LIMIT_NS
							    ? limit
							    : TRIAL_MIN_LIMIT_NS };
	struct swp_outcome out;
	bool (*should_stop)(void *) = t->o->hooks != NULL ? t->o->hooks->should_stop : NULL;

	if (swp_run_one(&runner, &req, &out, should_stop,
			t->o->hooks != NULL ? t->o->hooks->cb_ctx : NULL, err) < 0)
		return -1;
	*same = same_exit(&out, t->r->plan.exit);
	swp_outcome_release(&out);
	repro_remove_tree(dir);
	return 0;
}

/* The trials, in work: the full set first, then each imposition left out in turn. */
static int trials(const struct rpl_replay_run_opts *o,
		  void (*step)(void *ctx, const struct rpl_replay_result *r, size_t i, bool needed),
		  struct rpl_replay_result *r, struct rpl_replay_minimized *m, const char *work,
		  struct repro_err **err)
{
	struct trial t = { .o = o, .r = r, .keep = m->needed };
	bool same = false;

	for (size_t i = 0; i < r->plan.n; i++)
		m->needed[i] = true;
	m->kept = r->plan.n;
	if (try_set(&t, work, 0, &same, err) < 0)
		return -1;
	m->full_set_differs = !same;
	for (size_t i = 0; i < r->plan.n && !m->full_set_differs; i++) {
		m->needed[i] = false;
		same = r->plan.v[i].nrules == 0; /* nothing to leave out: no trial */
		if (!same && try_set(&t, work, i + 1, &same, err) < 0)
			return -1;
		m->needed[i] = !same;
		m->kept -= same;
		if (step != NULL)
			step(o->ctx, r, i, !same);
	}
	return 0;
}

int rpl_replay_minimize(const struct rpl_replay_run_opts *o,
			void (*step)(void *ctx, const struct rpl_replay_result *r, size_t i,
				     bool needed),
			struct rpl_replay_result *r, struct rpl_replay_minimized *m,
			struct repro_err **err)
{
	const char *tmp = getenv("TMPDIR");
	cleanup_free char *work =
		repro_xasprintf("%s/repro-minimize.XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
	int rc;

	memset(m, 0, sizeof(*m));
	if (prepare(o, r, err) < 0)
		return -1;
	exit_words(r->plan.exit, r->exit_recorded, sizeof(r->exit_recorded));
	m->needed = repro_xcalloc(r->plan.n + 1, sizeof(*m->needed));
	if (r->plan.n == 0 || o->no_impose)
		return 0;
	if (o->before != NULL && (rc = o->before(o->ctx, r, err)) != 0)
		return rc;
	if (mkdtemp(work) == NULL)
		return repro_err_set(err, errno, "replay --minimize: cannot make '%s'", work);
	rc = trials(o, step, r, m, work, err);
	repro_remove_tree(work);
	return rc;
}
