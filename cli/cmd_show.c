#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/reading.h"
#include "common/err.h"
#include "replayer/readers/show.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const struct option show_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "trace", no_argument, NULL, 't' },
	{ "all", no_argument, NULL, 'a' },
	{ "files", no_argument, NULL, 'f' },
	{ "net", no_argument, NULL, 'n' },
	{ "host", no_argument, NULL, 'H' },
	{ "help", no_argument, NULL, 'h' },
	CLI_READING_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

/*
 * Fill *opts from argv.  Returns 1 when --help was printed, 0 to go on, -1
 * with *err on bad usage.
 */
static int parse_show_args(int argc, char **argv, struct rpl_show_opts *opts,
			   struct bndl_limits *lim, enum cli_color *color, struct repro_err **err)
{
	int c, rc;

	optind = 0; /* glibc: full re-initialisation, main() has run getopt already */
	opterr = 0; /* only main prints errors */
	while ((c = getopt_long(argc, argv, ":h", show_options, NULL)) != -1) {
		switch (c) {
		case 'j': opts->json = true; break;
		case 't': opts->trace = true; break;
		case 'a': opts->all = true; break;
		case 'f': opts->view = RPL_VIEW_FILES; break;
		case 'n': opts->view = RPL_VIEW_NET; break;
		case 'H': opts->view = RPL_VIEW_HOST; break;
		case ':':
			return repro_err_set(err, EINVAL, "show: option '%s' needs a value",
					     argv[optind - 1]);
		case 'h': fputs(cli_usage("show"), stdout); return 1;
		default:
			if ((rc = cli_reading_option(lim, "show", c, optarg, err)) < 0 ||
			    (rc == 0 && (rc = cli_color_option(color, "show", c, optarg, err)) < 0))
				return -1;
			if (rc > 0)
				break;
			return repro_err_set(err, 0,
					     "show: unknown option '%s' (see 'repro show --help')",
					     argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return repro_err_set(err, 0, "show: expected one bundle, got %d", argc - optind);
	opts->bundle_path = argv[optind];
	return 0;
}

int cmd_show(int argc, char **argv, struct repro_err **err)
{
	struct rpl_show_opts opts = { .bundle_path = NULL };
	struct bndl_limits lim;
	enum cli_color color = CLI_COLOR_AUTO;
	int rc;

	cli_reading_init(&lim);
	opts.limits = &lim;
	rc = parse_show_args(argc, argv, &opts, &lim, &color, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	opts.color = cli_color_on(color);
	if (rpl_show_run(&opts, stdout, err) < 0)
		return -1;
	return 0;
}
