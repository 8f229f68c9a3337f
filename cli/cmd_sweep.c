/*
 * `repro sweep` (docs/sweep.md): options, then a working run (or --from
 * BUNDLE), the plan of faults, one run per fault in child processes
 * (replayer/sweep/sweep.h), and the table, --json or --junit.  --merge
 * reads shards' --json instead.
 */
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/signals.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/term.h"
#include "common/xalloc.h"
#include "replayer/policies/rules.h"
#include "replayer/sweep/sweep.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sweep_opts {
	const char *from, *junit, *keep, *shard_text;
	FILE *junit_f; /* owned: --junit's file, opened before the runs */
	unsigned areas, fail_on, jobs, shard_k, shard_n;
	bool include_system, json, merge, net_none, net_given;
	uint64_t timeout_ns;
	char **faults; /* owned, NULL-terminated, or NULL */
	char **overlay; /* owned, NULL-terminated, or NULL: --overlay's directories */
	char *const *argv; /* the command, or --merge's files */
	int argc;
};

static void sweep_opts_release(struct sweep_opts *o)
{
	for (char **f = o->faults; f != NULL && *f != NULL; f++)
		free(*f);
	free(o->faults);
	for (char **f = o->overlay; f != NULL && *f != NULL; f++)
		free(*f);
	free(o->overlay);
	if (o->junit_f != NULL)
		fclose(o->junit_f);
}
#define cleanup_sweep_opts __attribute__((cleanup(sweep_opts_release)))

static char **split_list(const char *text)
{
	cleanup_free char *copy = repro_xstrdup(text);
	char **v = repro_xcalloc(strlen(text) / 2 + 2, sizeof(*v)), *save = NULL;
	size_t n = 0;

	for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save))
		v[n++] = repro_xstrdup(w);
	return v;
}

static int parse_uint(const char *what, const char *text, unsigned lo, unsigned *out,
		      struct repro_err **err)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < lo || v > 4096 ||
	    !(text[0] >= '0' && text[0] <= '9'))
		return repro_err_set(err, EINVAL,
				     "sweep %s: expected a number from %u to 4096, "
				     "got '%s'",
				     what, lo, text);
	*out = (unsigned)v;
	return 0;
}

static int parse_opt(struct sweep_opts *o, int c, struct repro_err **err)
{
	switch (c) {
	case 'f': o->from = optarg; return 0;
	case 'o': return swp_areas_parse(optarg, &o->areas, err);
	case 'y': o->include_system = true; return 0;
	case 'F':
		o->faults = split_list(optarg);
		return o->faults[0] != NULL
			       ? 0
			       : repro_err_set(err, EINVAL, "sweep --faults: no fault given");
	case 't':
		if (rpl_rules_parse_duration(optarg, false, &o->timeout_ns) < 0 ||
		    o->timeout_ns == 0)
			return repro_err_set(err, EINVAL,
					     "sweep --timeout: expected a duration such as 30s or "
					     "2m, got '%s'",
					     optarg);
		return 0;
	case 'j': return parse_uint("--jobs", optarg, 1, &o->jobs, err);
	case 's':
		o->shard_text = optarg;
		return swp_shard_parse(optarg, &o->shard_k, &o->shard_n, err);
	case 'n':
		if (strcmp(optarg, "none") != 0 && strcmp(optarg, "host") != 0)
			return repro_err_set(err, EINVAL,
					     "sweep --net: expected none or host, got '%s'",
					     optarg);
		o->net_none = strcmp(optarg, "none") == 0;
		o->net_given = true;
		return 0;
	case 'O':
		o->overlay = split_list(optarg);
		return o->overlay[0] != NULL
			       ? 0
			       : repro_err_set(err, EINVAL, "sweep --overlay: no directory given");
	case 'J': o->json = true; return 0;
	case 'u': o->junit = optarg; return 0;
	case 'k': o->keep = optarg; return 0;
	case 'x': return swp_classes_parse(optarg, &o->fail_on, err);
	case 'm': o->merge = true; return 0;
	default: return repro_err_set(err, EINVAL, "sweep: unexpected option");
	}
}

/* Returns 1 when --help was given, 0 to go on, -1 on a bad option. */
static int parse_args(int argc, char **argv, struct sweep_opts *o, struct repro_err **err)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'o' },
		{ "include-system", no_argument, NULL, 'y' },
		{ "faults", required_argument, NULL, 'F' },
		{ "timeout", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "shard", required_argument, NULL, 's' },
		{ "net", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "overlay", required_argument, NULL, 'O' },
		{ "junit", required_argument, NULL, 'u' },
		{ "keep", required_argument, NULL, 'k' },
		{ "fail-on", required_argument, NULL, 'x' },
		{ "merge", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool permute = false;
	int c;

	o->fail_on = 1u << SWP_CRASHED | 1u << SWP_HUNG;
	opterr = 0;
	/* --merge FILE... takes options after its files too; a sweep's CMD follows its options */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--merge") == 0)
			permute = true;
	while ((c = getopt_long(argc, argv, permute ? ":h" : "+:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cli_usage("sweep"), stdout);
			return 1;
		}
		if (c == '?')
			return repro_err_set(err, EINVAL,
					     "sweep: unknown option '%s' (repro sweep --help)",
					     argv[optind - 1]);
		if (c == ':')
			return repro_err_set(err, EINVAL, "sweep: option '%s' needs a value",
					     argv[optind - 1]);
		if (parse_opt(o, c, err) < 0)
			return -1;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	if (o->argc == 0)
		return repro_err_set(err, EINVAL,
				     o->merge ? "sweep --merge: no files given"
					      : "sweep: no command given; usage: repro sweep "
						"[OPTIONS] -- CMD [ARG...]");
	if (o->jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		o->jobs = n > 0 ? (unsigned)n : 1;
	}
	return 0;
}

/* The report: the table or --json on stdout, --junit to its file; the exit status. */
static int report(const struct sweep_opts *o, json_t *command, size_t npoints, json_t *runs,
		  struct repro_err **err)
{
	json_t *doc = swp_report_json(command, o->shard_text, npoints, runs);

	if (o->json) {
		bndl_json_write(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
	} else {
		swp_report_text(runs, stdout);
	}
	json_decref(doc);
	if (o->junit_f != NULL &&
	    (swp_report_junit(runs, o->fail_on, o->junit_f) < 0 || fflush(o->junit_f) != 0))
		return repro_err_set(err, errno, "sweep --junit: cannot write '%s'", o->junit);
	if (fflush(stdout) != 0)
		return repro_err_set(err, errno, "sweep: cannot write the report");
	if (swp_fails(runs, 1u << SWP_ERROR)) /* repro's trouble, said in the table */
		return 2;
	return swp_fails(runs, o->fail_on) ? 1 : 0;
}

static int merge(const struct sweep_opts *o, struct repro_err **err)
{
	json_t *command = NULL;
	size_t npoints = 0;
	json_t *runs =
		swp_merge((const char *const *)o->argv, (size_t)o->argc, &command, &npoints, err);
	int rc;

	if (runs == NULL)
		return -1;
	rc = report(o, command, npoints, runs, err);
	json_decref(runs);
	json_decref(command);
	return rc;
}

/* What the sweep says before its first run (struct swp_sweep_notices), on stderr. */
static void say_notices(void *ctx, const struct swp_sweep_notices *n)
{
	(void)ctx;
	if (n->outside > 0) {
		fputs("repro: sweep: the working run wrote outside the overlay (", stderr);
		repro_term_puts(stderr, n->first_outside);
		if (n->outside > 1)
			fprintf(stderr, " and %zu more", n->outside - 1);
		fputs("), and so will every run; give its directory with --overlay\n", stderr);
	}
	if (n->skipped > 0)
		fprintf(stderr,
			"repro: sweep: %zu path%s left out: a rule cannot name a path with ':', "
			"'\\' or a newline\n",
			n->skipped, n->skipped == 1 ? "" : "s");
	if (n->unstable > 0)
		fprintf(stderr,
			"repro: sweep: %zu path%s left out: named anew each run (a temporary "
			"name, a pid)\n",
			n->unstable, n->unstable == 1 ? "" : "s");
	if (n->one_at_a_time != NULL) {
		fputs("repro: sweep: the working run binds ", stderr);
		repro_term_puts(stderr, n->one_at_a_time);
		fputs(" on the host's network: one run at a time, so that runs do not take each "
		      "other's port (--net none gives each run a network of its own)\n",
		      stderr);
	}
}

static int sweep(const struct sweep_opts *o, struct repro_err **err)
{
	const char *tmp = getenv("TMPDIR");
	struct swp_sweep_request rq = {
		.argv = o->argv,
		.from = o->from,
		.net_none = o->net_none,
		.net_given = o->net_given,
		.overlay = (const char *const *)o->overlay,
		.tmp_dir = tmp != NULL && *tmp ? tmp : "/tmp",
		.keep_dir = o->keep,
		.timeout_ns = o->timeout_ns,
		.areas = o->areas,
		.include_system = o->include_system,
		.faults = (const char *const *)o->faults,
		.jobs = o->jobs,
		.shard_k = o->shard_k,
		.shard_n = o->shard_n,
		.progress = isatty(STDOUT_FILENO) && !o->json ? stdout : NULL,
		.should_stop = cli_signals_stop_requested,
		.before = say_notices,
		.inherited = cli_signals_inherited(),
	};
	struct swp_sweep_result r;
	int rc = swp_sweep(&rq, &r, err);

	if (rc == 0)
		rc = report(o, r.command, r.npoints, r.runs, err);
	swp_sweep_result_release(&r);
	return rc;
}

/* --junit's file, opened before any run so that a bad path costs nothing. */
static int open_junit(struct sweep_opts *o, struct repro_err **err)
{
	if (o->junit == NULL)
		return 0;
	if (*o->junit == '\0' || (o->junit_f = fopen(o->junit, "w")) == NULL)
		return repro_err_set(err, *o->junit ? errno : ENOENT,
				     "sweep --junit: cannot write '%s'", o->junit);
	return 0;
}

int cmd_sweep(int argc, char **argv, struct repro_err **err)
{
	cleanup_sweep_opts struct sweep_opts o = { 0 };
	int rc = parse_args(argc, argv, &o, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (open_junit(&o, err) < 0)
		return -1;
	if (o.merge)
		return merge(&o, err);
	cli_signals_install(); /* Ctrl-C, SIGTERM: every run killed, their files removed */
	rc = sweep(&o, err);
	if (rc < 0 && repro_err_is(err, EINTR)) {
		fputs("repro: sweep: interrupted; the runs were killed\n", stderr);
		repro_err_free(err);
		return 130;
	}
	return rc;
}
