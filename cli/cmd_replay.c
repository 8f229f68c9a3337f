/*
 * `repro replay BUNDLE` (docs/replay.md): the recorded command re-run here
 * with the recorded failures that matter imposed again (replayer/replay/),
 * itself recorded, then a summary: reproduced or not, which failures were
 * imposed and which never came up.
 */
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/run.h"
#include "common/cleanup.h"
#include "common/term.h"
#include "common/xalloc.h"
#include "replayer/policies/inject.h"
#include "replayer/policies/rules.h"
#include "replayer/readers/normalize.h"
#include "replayer/replay/replay.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LIST 64

struct replay_opts {
	const char *bundle, *output, *cwd;
	const char *map_from[MAX_LIST], *map_to[MAX_LIST];
	size_t nmaps;
	char *map_text[MAX_LIST]; /* owned */
	unsigned kinds;
	bool fast, no_impose, quiet, no_overlay, simulate, probe_network, json, include_system,
		minimize, strict;
	const char *keep_overlay; /* --keep-overlay DIR, or NULL */
	struct rpl_rules *extra; /* owned: --inject rules, or NULL */
	char *const *cmd; /* the CMD given, or NULL */
};

static void replay_opts_release(struct replay_opts *o)
{
	for (size_t i = 0; i < o->nmaps; i++)
		free(o->map_text[i]);
	rpl_rules_free(o->extra);
}
#define cleanup_replay_opts __attribute__((cleanup(replay_opts_release)))

static int add_map(struct replay_opts *o, const char *text, struct repro_err **err)
{
	char *copy;

	if (o->nmaps >= MAX_LIST)
		return repro_err_set(err, EINVAL, "replay --map: at most %d", MAX_LIST);
	copy = o->map_text[o->nmaps] = repro_xstrdup(text);
	if (rpl_norm_map_parse(copy, &o->map_from[o->nmaps], &o->map_to[o->nmaps]) < 0) {
		free(copy);
		return repro_err_set(
			err, EINVAL,
			"replay --map: expected OLD=NEW, both absolute paths, got '%s'", text);
	}
	o->nmaps++;
	return 0;
}

static int parse_opt(struct replay_opts *o, int c, struct repro_err **err)
{
	switch (c) {
	case 'o': o->output = optarg; return 0;
	case 'c': o->cwd = optarg; return 0;
	case 'm': return add_map(o, optarg, err);
	case 'f': o->fast = true; return 0;
	case 'O': return rpl_replay_kinds_parse(optarg, &o->kinds, err);
	case 'I':
		if (o->extra == NULL)
			o->extra = rpl_rules_new();
		if (rpl_rules_add(o->extra, optarg, err) < 0 || rpl_inject_check(o->extra, err) < 0)
			return repro_err_wrap(err, "replay --inject");
		return 0;
	case 'n': o->no_impose = true; return 0;
	case 'q': o->quiet = true; return 0;
	case 'W': o->no_overlay = true; return 0;
	case 'S': o->simulate = true; return 0;
	case 'M': o->minimize = true; return 0;
	case 'P': o->probe_network = true; return 0;
	case 'J': o->json = true; return 0;
	case 'Y': o->include_system = true; return 0;
	case 'K': o->keep_overlay = optarg; return 0;
	case 's': o->strict = true; return 0;
	default: return repro_err_set(err, EINVAL, "replay: unexpected option");
	}
}

/* Returns 1 when --help was given, 0 to go on, -1 on a bad option. */
static int parse_args(int argc, char **argv, struct replay_opts *o, struct repro_err **err)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cwd", required_argument, NULL, 'c' },
		{ "map", required_argument, NULL, 'm' },
		{ "fast", no_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'O' },
		{ "inject", required_argument, NULL, 'I' },
		{ "no-impose", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-overlay", no_argument, NULL, 'W' },
		{ "simulate", no_argument, NULL, 'S' },
		{ "minimize", no_argument, NULL, 'M' },
		{ "probe-network", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'J' },
		{ "include-system", no_argument, NULL, 'Y' },
		{ "keep-overlay", required_argument, NULL, 'K' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:qh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cli_usage("replay"), stdout);
			return 1;
		}
		if (c == '?')
			return repro_err_set(err, EINVAL,
					     "replay: unknown option '%s' (repro replay --help)",
					     argv[optind - 1]);
		if (c == ':')
			return repro_err_set(err, EINVAL, "replay: option '%s' needs a value",
					     argv[optind - 1]);
		if (parse_opt(o, c, err) < 0)
			return -1;
	}
	if (optind >= argc)
		return repro_err_set(err, EINVAL,
				     "replay: no bundle given; usage: repro replay [OPTIONS] "
				     "BUNDLE [-- CMD [ARG...]]");
	o->bundle = argv[optind++];
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0 && strcmp(argv[optind], "--") == 0)
		optind++;
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->no_impose && o->extra == NULL)
		return repro_err_set(
			err, EINVAL,
			"replay --no-impose: give the faults to run with (--inject RULE)");
	return 0;
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The differences that matter between the recording's machine and this one, in one block. */
static void environment_block(const struct rpl_replay_result *r)
{
	json_t *h = r->plan.host;
	struct utsname u;
	long long uid = json_integer_value(json_object_get(h, "uid"));
	const char *rel = jstr(json_object_get(h, "kernel"), "release");

	if (h != NULL && json_object_get(h, "uid") != NULL && uid != (long long)getuid()) {
		fprintf(stderr, "repro: replay: recorded as uid %lld, replayed as uid %d\n", uid,
			(int)getuid());
	}
	if (strcmp(r->cwd, r->plan.cwd) != 0) {
		fputs("repro: replay: recorded in ", stderr);
		repro_term_write(stderr, r->plan.cwd, strlen(r->plan.cwd), false, false);
		fputs(", replayed in ", stderr);
		repro_term_write(stderr, r->cwd, strlen(r->cwd), false, false);
		fputc('\n', stderr);
	}
	if (rel != NULL && uname(&u) == 0 && strcmp(rel, u.release) != 0) {
		fputs("repro: replay: recorded on kernel ", stderr);
		repro_term_write(stderr, rel, strlen(rel), false, false);
		fprintf(stderr, ", replayed on %s\n", u.release);
	}
}

/* Before the run: how this machine differs, and what is imposed (not with -q). */
static int before_run(void *ctx, const struct rpl_replay_result *r, struct repro_err **err)
{
	const struct replay_opts *o = ctx;

	(void)err;
	if (o->quiet)
		return 0;
	environment_block(r);
	for (size_t k = 0; k < r->plan.n && !o->no_impose; k++) {
		fputs("repro: replay: imposing ", stderr);
		repro_term_puts(stderr, r->plan.v[k].what);
		fputc('\n', stderr);
	}
	return 0;
}

/* A divergence as it happens (replayer/replay/watch.c), not with -q. */
static void say_live(void *ctx, const char *line)
{
	const struct replay_opts *o = ctx;

	if (o->quiet)
		return;
	fputs("repro: replay: ", stderr);
	repro_term_puts(stderr, line);
	fputc('\n', stderr);
}

/* Most process differences said after a replay. */
#define PROCESS_DIVERGENCES_MAX 5

/* The divergences found after the run, one line each (not with -q); how many were said. */
static size_t say_divergences(const struct replay_opts *o, const struct rpl_replay_result *r)
{
	size_t i, shown = 0;
	json_t *e;

	if (r->failed_here_error != NULL)
		fprintf(stderr, "repro: replay: divergences not known: %s\n", r->failed_here_error);
	if (r->process_diffs_error != NULL)
		fprintf(stderr, "repro: replay: processes not compared: %s\n",
			r->process_diffs_error);
	if (o->quiet)
		return 0;
	json_array_foreach (r->failed_here, i, e) {
		const char *what = jstr(e, "what"), *proc = jstr(e, "process");

		shown++;
		fputs("repro: replay: diverged: failed here, not in the recording: ", stderr);
		repro_term_write(stderr, what, strlen(what), false, false);
		if (proc != NULL) {
			fputs(" (", stderr);
			repro_term_write(stderr, proc, strlen(proc), false, false);
			fputc(')', stderr);
		}
		fputc('\n', stderr);
	}
	json_array_foreach (r->process_diffs, i, e) {
		if (i >= PROCESS_DIVERGENCES_MAX)
			break;
		shown++;
		fputs("repro: replay: diverged: ", stderr);
		repro_term_puts(stderr, json_string_value(e));
		fputs(" (A: the recording, B: the replay)\n", stderr);
	}
	return shown;
}

/* The summary: the verdict, the failures imposed, the divergences. */
static void summary(const struct replay_opts *o, const struct rpl_replay_result *r)
{
	for (size_t i = 0; i < r->plan.n && !o->no_impose && !o->quiet; i++)
		if (r->fired[i] == 0) {
			fputs("repro: replay: not imposed, the call never came here: ", stderr);
			repro_term_puts(stderr, r->plan.v[i].what);
			fputc('\n', stderr);
		}
	if (r->verdict == RPL_REPLAY_STOPPED)
		fputs("repro: replay: stopped at the first divergence (--strict)", stderr);
	else if (r->verdict == RPL_REPLAY_REPRODUCED)
		fprintf(stderr, "repro: replay: reproduced: %s as recorded", r->exit_here);
	else if (r->verdict == RPL_REPLAY_OTHER_WAY)
		fprintf(stderr, "repro: replay: %s as recorded, but another way", r->exit_here);
	else
		fprintf(stderr, "repro: replay: not reproduced: %s (recorded: %s)", r->exit_here,
			r->exit_recorded);
	if (o->no_impose)
		fputs(", nothing recorded imposed", stderr);
	else
		fprintf(stderr, ", %zu of %zu failure%s imposed", r->imposed, r->plan.n,
			r->plan.n == 1 ? "" : "s");
	if (r->ndivergences > 0)
		fprintf(stderr, ", %zu divergence%s", r->ndivergences,
			r->ndivergences == 1 ? "" : "s");
	fputc('\n', stderr);
}

/* What the run came to, on stderr: the divergences, the summary, where it was recorded. */
static void say_result(const struct replay_opts *o, const struct rpl_replay_result *r)
{
	size_t shown;

	if (r->res.exec_errnum != 0)
		fprintf(stderr, "repro: cannot execute '%s': %s\n", r->argv[0],
			strerror(r->res.exec_errnum));
	if (r->strict_what != NULL) {
		fputs("repro: replay: --strict: stopped at the first divergence: ", stderr);
		repro_term_puts(stderr, r->strict_what);
		fputc('\n', stderr);
		fputs(r->strict_context != NULL ? r->strict_context : "", stderr);
		if (r->strict_context_error != NULL)
			fprintf(stderr, "repro: replay: the recording's side not known: %s\n",
				r->strict_context_error);
	}
	shown = (o->quiet ? 0 : r->live_said) + say_divergences(o, r);
	if (!o->quiet && r->ndivergences > shown && r->res.bundle_path != NULL) {
		fprintf(stderr, "repro: replay: %zu more divergence%s not shown: repro diff ",
			r->ndivergences - shown, r->ndivergences - shown == 1 ? "" : "s");
		repro_term_puts(stderr, r->bundle);
		fputc(' ', stderr);
		repro_term_puts(stderr, r->res.bundle_path);
		fputs(" lists them\n", stderr);
	}
	summary(o, r);
	if (r->res.bundle_path != NULL && !o->quiet)
		fprintf(stderr, "repro: replay: recorded into '%s'\n", r->res.bundle_path);
}

/* The library's options of the replay o asks for, with the cli's callbacks. */
static struct rpl_replay_run_opts run_opts(struct replay_opts *o, const struct sess_options *hooks)
{
	return (struct rpl_replay_run_opts){ .bundle = o->bundle,
					     .output = o->output,
					     .cwd = o->cwd,
					     .map_from = o->map_from,
					     .map_to = o->map_to,
					     .nmaps = o->nmaps,
					     .kinds = o->kinds,
					     .fast = o->fast,
					     .no_impose = o->no_impose,
					     .strict = o->strict,
					     .no_overlay = o->no_overlay,
					     .keep_overlay = o->keep_overlay,
					     .extra = o->extra,
					     .cmd = o->cmd,
					     .home_here = getenv("HOME"),
					     .hooks = hooks,
					     .say = say_live,
					     .before = before_run,
					     .ctx = o };
}

static int replay(struct replay_opts *o, struct repro_err **err)
{
	struct sess_options hooks = cli_session_hooks();
	struct rpl_replay_run_opts ro = run_opts(o, &hooks);
	struct rpl_replay_result r;
	int rc = rpl_replay_run(&ro, &r, err);

	cli_pack_progress_end();
	if (rc == 0) {
		say_result(o, &r);
		rc = r.status;
	}
	rpl_replay_result_release(&r);
	return rc;
}

/* A trial of --minimize done: whether failure i is needed. */
static void say_step(void *ctx, const struct rpl_replay_result *r, size_t i, bool needed)
{
	(void)ctx;
	fputs("repro: replay: minimize: without ", stderr);
	repro_term_write(stderr, r->plan.v[i].what, strlen(r->plan.v[i].what), false, false);
	fprintf(stderr, needed ? ": another exit, needed\n" : ": still %s, not needed\n",
		r->exit_recorded);
}

/* --minimize: 0 when the full set reproduces (the needed ones said), 1 when not, -1. */
static int minimize(struct replay_opts *o, struct repro_err **err)
{
	struct sess_options hooks = cli_session_hooks();
	struct rpl_replay_run_opts ro = run_opts(o, &hooks);
	struct rpl_replay_minimized m;
	struct rpl_replay_result r;
	int rc = rpl_replay_minimize(&ro, say_step, &r, &m, err);

	if (rc == 0 && (r.plan.n == 0 || o->no_impose)) {
		fputs("repro: replay: minimize: no recorded failure to impose\n", stderr);
		rc = 1;
	} else if (rc == 0 && m.full_set_differs) {
		fprintf(stderr,
			"repro: replay: minimize: the %zu recorded failure%s together do not give "
			"%s here: nothing to minimize\n",
			r.plan.n, r.plan.n == 1 ? "" : "s", r.exit_recorded);
		rc = 1;
	} else if (rc == 0) {
		fprintf(stderr,
			"repro: replay: minimize: %zu of %zu recorded failure%s give %s:", m.kept,
			r.plan.n, r.plan.n == 1 ? "" : "s", r.exit_recorded);
		for (size_t i = 0, shown = 0; i < r.plan.n; i++)
			if (m.needed[i]) {
				fputs(shown++ > 0 ? "; " : " ", stderr);
				repro_term_write(stderr, r.plan.v[i].what, strlen(r.plan.v[i].what),
						 false, false);
			}
		fputc('\n', stderr);
	}
	rpl_replay_minimized_release(&m);
	rpl_replay_result_release(&r);
	return rc;
}

/* --simulate: the differences between the bundle's facts and this host; 0, 1 or -1. */
static int simulate(const struct replay_opts *o, struct repro_err **err)
{
	struct rpl_replay_opts ro = { .cwd_here = o->cwd,
				      .home_here = getenv("HOME"),
				      .map_from = o->map_from,
				      .map_to = o->map_to,
				      .nmaps = o->nmaps,
				      .include_system = o->include_system };
	json_t *d = NULL, *e;
	size_t i;
	int rc;

	if (rpl_replay_simulate(o->bundle, &ro, o->probe_network, &d, err) < 0)
		return -1;
	if (o->json) {
		json_t *doc = json_pack("{s:O}", "differences", d);

		json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		json_decref(doc);
	} else if (json_array_size(d) == 0) {
		puts("this host matches the recording (its paths, names and, probed, destinations)");
	} else {
		printf("%zu difference%s between the recording and this host, most important first:\n",
		       json_array_size(d), json_array_size(d) == 1 ? "" : "s");
		json_array_foreach (d, i, e) {
			const char *t = json_string_value(json_object_get(e, "target"));

			printf("  %s: ", json_string_value(json_object_get(e, "what")));
			repro_term_write(stdout, t, strlen(t), false, false);
			fputs(" (recorded: ", stdout);
			repro_term_puts(stdout, json_string_value(json_object_get(e, "recorded")));
			fputs("; here: ", stdout);
			repro_term_puts(stdout, json_string_value(json_object_get(e, "here")));
			fputs(")\n", stdout);
		}
	}
	rc = json_array_size(d) > 0 ? 1 : 0;
	json_decref(d);
	if (fflush(stdout) != 0)
		return repro_err_set(err, errno, "replay --simulate: cannot write the report");
	return rc;
}

int cmd_replay(int argc, char **argv, struct repro_err **err)
{
	cleanup_replay_opts struct replay_opts o = { 0 };
	int rc = parse_args(argc, argv, &o, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (!o.simulate && (o.probe_network || o.json || o.include_system))
		return repro_err_set(err, EINVAL,
				     "replay: --probe-network, --json and --include-system go with "
				     "--simulate");
	if (o.simulate)
		return simulate(&o, err);
	return o.minimize ? minimize(&o, err) : replay(&o, err);
}
