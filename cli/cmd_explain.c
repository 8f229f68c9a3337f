#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/reading.h"
#include "common/err.h"
#include "replayer/readers/explain.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const struct option explain_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "all", no_argument, NULL, 'a' },
	{ "help", no_argument, NULL, 'h' },
	CLI_READING_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/* Fill *opts from argv.  1: --help printed; 0: go on; -1 with *err: bad usage. */
static int parse_explain_args(int argc, char **argv, struct rpl_explain_opts *opts,
			      struct bndl_limits *lim, enum cli_color *color,
			      struct repro_err **err)
{
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", explain_options, NULL)) != -1) {
		switch (c) {
		case 'j': opts->json = true; break;
		case 'a': opts->all = true; break;
		case ':':
			return repro_err_set(err, EINVAL, "explain: option '%s' needs a value",
					     argv[optind - 1]);
		case 'h': fputs(cli_usage("explain"), stdout); return 1;
		default:
			if ((rc = cli_reading_option(lim, "explain", c, optarg, err)) < 0 ||
			    (rc == 0 &&
			     (rc = cli_color_option(color, "explain", c, optarg, err)) < 0))
				return -1;
			if (rc > 0)
				break;
			return repro_err_set(
				err, 0, "explain: unknown option '%s' (see 'repro explain --help')",
				argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return repro_err_set(err, 0, "explain: expected one bundle, got %d", argc - optind);
	opts->bundle_path = argv[optind];
	return 0;
}

int cmd_explain(int argc, char **argv, struct repro_err **err)
{
	struct rpl_explain_opts opts = { .bundle_path = NULL };
	struct bndl_limits lim;
	enum cli_color color = CLI_COLOR_AUTO;
	int rc;

	cli_reading_init(&lim);
	opts.limits = &lim;
	rc = parse_explain_args(argc, argv, &opts, &lim, &color, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	opts.color = cli_color_on(color);
	return rpl_explain_run(&opts, stdout, err) < 0 ? -1 : 0;
}
