/*
 * `repro replay BUNDLE` (docs/replay.md): the recorded command re-run here
 * with the recorded failures that matter imposed again (replayer/replay/),
 * itself recorded, then a summary: reproduced or not, which failures were
 * imposed and which never came up.
 */
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/run.h"
#include "cli/reading.h"
#include "common/cleanup.h"
#include "common/sha256.h"
#include "common/xalloc.h"
#include "replayer/policies/inject.h"
#include "replayer/policies/rules.h"
#include "replayer/readers/normalize.h"
#include "replayer/replay/replay.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MAX_LIST 64

struct replay_opts {
	const char *bundle, *output, *cwd;
	const char *map_from[MAX_LIST], *map_to[MAX_LIST];
	size_t nmaps;
	char *map_text[MAX_LIST]; /* owned */
	unsigned kinds;
	bool fast, no_impose, quiet, no_overlay, simulate, probe_network, json, include_system,
		minimize, strict, yes, net_host;
	const char *trust; /* --trust SHA256, or NULL */
	const char *keep_overlay; /* --keep-overlay DIR, or NULL */
	const struct rpl_replay_run_opts *run; /* the run's options, for the question before it */
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
	case 'y': o->yes = true; return 0;
	case 'T': o->trust = optarg; return 0;
	case 'N':
		if (strcmp(optarg, "none") != 0 && strcmp(optarg, "host") != 0)
			return repro_err_set(err, EINVAL,
					     "replay --net: expected none or host, got '%s'",
					     optarg);
		o->net_host = strcmp(optarg, "host") == 0;
		return 0;
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
		{ "yes", no_argument, NULL, 'y' },
		{ "trust", required_argument, NULL, 'T' },
		{ "net", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:qyh", longopts, NULL)) != -1) {
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

/* A yes on the terminal to run it: 0, or -1 with *err (nothing runs). */
static int ask(struct repro_err **err)
{
	cleanup_free char *line = NULL;
	size_t cap = 0;

	fputs("Run it? [y/N] ", stderr);
	fflush(stderr);
	if (getline(&line, &cap, stdin) > 0 &&
	    (strcasecmp(line, "y\n") == 0 || strcasecmp(line, "yes\n") == 0))
		return 0;
	return repro_err_set(err, 0, "replay: not run: the answer was not yes");
}

/*
 * Whether a received bundle may run (docs/replay.md, "Replaying a bundle
 * you received"): --trust of its SHA-256, --yes, or a yes on a terminal;
 * without any, nothing runs.  0, or -1 with *err.
 */
static int may_run(const struct replay_opts *o, const char *sha, struct repro_err **err)
{
	if (o->trust != NULL)
		return strcasecmp(o->trust, sha) == 0
			       ? 0
			       : repro_err_set(
					 err, EPERM,
					 "replay --trust: this bundle's SHA-256 is %s, not '%s'; "
					 "nothing was run",
					 sha, o->trust);
	if (o->yes)
		return 0;
	if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO))
		return ask(err);
	return repro_err_set(err, 0,
			     "replay: a received bundle runs only when you say so: on a terminal, "
			     "or with --yes or --trust %s; nothing was run",
			     sha);
}

/* Before the run: what will run, the question, how this machine differs, what is imposed. */
static int before_run(void *ctx, const struct rpl_replay_result *r, struct repro_err **err)
{
	const struct replay_opts *o = ctx;
	char sha[REPRO_SHA256_HEX + 1];

	if (repro_sha256_file(r->bundle, sha, err) < 0)
		return -1;
	if (!o->quiet || (o->trust == NULL && !o->yes))
		rpl_replay_say_run(stderr, o->run, r, sha);
	if (may_run(o, sha, err) < 0)
		return -1;
	if (!o->quiet)
		rpl_replay_say_before(stderr, r, o->no_impose);
	return 0;
}

/* A divergence as it happens (replayer/replay/watch.c), not with -q. */
static void say_live(void *ctx, const char *line)
{
	const struct replay_opts *o = ctx;

	if (!o->quiet)
		rpl_replay_say_live(stderr, line);
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
					     .net_host = o->net_host,
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
	int rc;

	o->run = &ro;
	rc = rpl_replay_run(&ro, &r, err);

	cli_pack_progress_end();
	if (rc == 0) {
		rpl_replay_say_result(stderr, &r, o->quiet, o->no_impose);
		rc = r.status;
	}
	rpl_replay_result_release(&r);
	return rc;
}

/* A trial of --minimize done: whether failure i is needed. */
static void say_step(void *ctx, const struct rpl_replay_result *r, size_t i, bool needed)
{
	(void)ctx;
	rpl_replay_say_step(stderr, r, i, needed);
}

/* --minimize: 0 when the full set reproduces (the needed ones said), 1 when not, -1. */
static int minimize(struct replay_opts *o, struct repro_err **err)
{
	struct sess_options hooks = cli_session_hooks();
	struct rpl_replay_run_opts ro = run_opts(o, &hooks);
	struct rpl_replay_minimized m;
	struct rpl_replay_result r;
	int rc;

	o->run = &ro;
	rc = rpl_replay_minimize(&ro, say_step, &r, &m, err);

	if (rc == 0)
		rc = rpl_replay_say_minimized(stderr, &r, &m, o->no_impose);
	rpl_replay_minimized_release(&m);
	rpl_replay_result_release(&r);
	return rc;
}

/*
 * --simulate: the differences between the bundle's facts and this host,
 * the bundle read under show's default limits (cli/reading.h); 0, 1 or -1.
 */
static int simulate(const struct replay_opts *o, struct repro_err **err)
{
	struct bndl_limits lim;
	struct rpl_replay_opts ro = { .cwd_here = o->cwd,
				      .home_here = getenv("HOME"),
				      .map_from = o->map_from,
				      .map_to = o->map_to,
				      .nmaps = o->nmaps,
				      .include_system = o->include_system,
				      .limits = &lim };
	json_t *d = NULL;
	int rc;

	cli_reading_init(&lim); /* the readers' default limits, the JSON held counted */
	if (rpl_replay_simulate(o->bundle, &ro, o->probe_network, &d, err) < 0)
		return -1;
	rc = rpl_replay_say_simulated(stdout, d, o->json);
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
