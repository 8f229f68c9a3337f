#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/reading.h"
#include "common/progress.h"
#include "common/err.h"
#include "replayer/readers/diff.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const struct option diff_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "map", required_argument, NULL, 'm' },
	{ "help", no_argument, NULL, 'h' },
	CLI_READING_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* Fill *opts from argv.  1: --help printed; 0: go on; -1 with *err: bad usage. */
static int parse_diff_args(int argc, char **argv, struct rpl_diff_opts *opts,
			   struct bndl_limits *lim, enum cli_color *color, struct repro_err **err)
{
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", diff_options, NULL)) != -1) {
		switch (c) {
		case 'j': opts->json = true; break;
		case 'm':
			if (opts->nmaps >= RPL_NORM_MAX_MAPS)
				return repro_err_set(err, 0, "diff: more than %d --map options",
						     RPL_NORM_MAX_MAPS);
			if (rpl_norm_map_parse(optarg, &opts->map_from[opts->nmaps],
					       &opts->map_to[opts->nmaps]) < 0)
				return repro_err_set(
					err, 0,
					"diff --map: expected OLD=NEW with two absolute "
					"paths, got '%s'",
					optarg);
			opts->nmaps++;
			break;
		case ':':
			return repro_err_set(err, EINVAL, "diff: option '%s' needs a value",
					     argv[optind - 1]);
		case 'h': fputs(cli_usage("diff"), stdout); return 1;
		default:
			if ((rc = cli_reading_option(lim, "diff", c, optarg, err)) < 0 ||
			    (rc == 0 && (rc = cli_color_option(color, "diff", c, optarg, err)) < 0))
				return -1;
			if (rc > 0)
				break;
			return repro_err_set(
				err, 0,
				"diff: unknown option or missing value '%s' (see 'repro "
				"diff --help')",
				argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return repro_err_set(err, 0, "diff: expected two bundles, got %d", argc - optind);
	opts->a_path = argv[optind];
	opts->b_path = argv[optind + 1];
	return 0;
}

/* "repro: diff: reading B: 45% (450000 of 1000000 events)" on a terminal (common/progress.h). */
static void reading_progress(void *ctx, const char *side, uint64_t done, uint64_t total)
{
	struct repro_progress *p = ctx;

	if (total > 0)
		repro_progress_text(p, false,
				    "repro: diff: reading %s: %llu%% (%llu of %llu events)", side,
				    (unsigned long long)(done >= total ? 100 : done * 100 / total),
				    (unsigned long long)done, (unsigned long long)total);
	else
		repro_progress_text(p, false, "repro: diff: reading %s: %llu events", side,
				    (unsigned long long)done);
}

int cmd_diff(int argc, char **argv, struct repro_err **err)
{
	struct rpl_diff_opts opts = { .a_path = NULL };
	struct repro_progress line;
	struct bndl_limits lim;
	enum cli_color color = CLI_COLOR_AUTO;
	bool differ = false;
	int rc;

	cli_reading_init(&lim);
	opts.limits = &lim;
	rc = parse_diff_args(argc, argv, &opts, &lim, &color, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	opts.color = cli_color_on(color);
	repro_progress_init(&line, stderr);
	opts.progress = reading_progress;
	opts.progress_ctx = &line;
	rc = rpl_diff_run(&opts, stdout, &differ, err);
	repro_progress_clear(&line);
	if (rc < 0)
		return -1;
	return differ ? 1 : 0;
}
