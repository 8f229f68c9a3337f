/*
 * `repro export --format=chrome-trace [-o FILE] BUNDLE`: the bundle as a
 * Trace Event Format timeline for Perfetto UI or chrome://tracing
 * (replayer/readers/export.h).
 */
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/output.h"
#include "cli/reading.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "replayer/readers/export.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum { OPT_FORMAT = 0x300 };

static const struct option export_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "max-read", required_argument, NULL, CLI_OPT_MAX_READ },
	{ "max-memory", required_argument, NULL, CLI_OPT_MAX_MEMORY },
	{ NULL, 0, NULL, 0 },
};

/* Fill *opts and *output from argv.  1: --help printed; 0: go on; -1 with *err: bad usage. */
static int parse_export_args(int argc, char **argv, struct rpl_export_opts *opts,
			     struct bndl_limits *lim, const char **output, struct repro_err **err)
{
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", export_options, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (strcmp(optarg, "chrome-trace") != 0)
				return repro_err_set(
					err, EINVAL,
					"export --format: expected chrome-trace, got '%s'", optarg);
			break;
		case 'o': *output = optarg; break;
		case ':':
			return repro_err_set(err, EINVAL, "export: option '%s' needs a value",
					     argv[optind - 1]);
		case 'h': fputs(cli_usage("export"), stdout); return 1;
		default:
			if ((rc = cli_reading_option(lim, "export", c, optarg, err)) < 0)
				return -1;
			if (rc > 0)
				break;
			return repro_err_set(
				err, EINVAL,
				"export: unknown option '%s' (see 'repro export --help')",
				argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return repro_err_set(err, EINVAL, "export: expected one bundle, got %d",
				     argc - optind);
	opts->bundle_path = argv[optind];
	return 0;
}

static int write_trace(void *ctx, FILE *out, struct repro_err **err)
{
	return rpl_export_chrome_trace(ctx, out, err);
}

int cmd_export(int argc, char **argv, struct repro_err **err)
{
	struct rpl_export_opts opts = { .bundle_path = NULL };
	const char *output = NULL;
	struct bndl_limits lim;
	int rc;

	cli_reading_init(&lim);
	opts.limits = &lim;
	rc = parse_export_args(argc, argv, &opts, &lim, &output, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	return cli_output_write("export", output, &opts.bundle_path, 1, write_trace, &opts, err) < 0
		       ? -1
		       : 0;
}
