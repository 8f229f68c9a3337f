/*
 * `repro report [-o FILE] BUNDLE [BUNDLE-B]`: one self-contained HTML page
 * of a run, or of two side by side (replayer/readers/report.h).
 */
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/output.h"
#include "cli/reading.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/term.h"
#include "common/xalloc.h"
#include "replayer/readers/report.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const struct option report_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "max-read", required_argument, NULL, CLI_OPT_MAX_READ },
	{ "max-memory", required_argument, NULL, CLI_OPT_MAX_MEMORY },
	{ NULL, 0, NULL, 0 },
};

/* Fill *opts and *output from argv.  1: --help printed; 0: go on; -1 with *err: bad usage. */
static int parse_report_args(int argc, char **argv, struct rpl_report_opts *opts,
			     struct bndl_limits *lim, const char **output, struct repro_err **err)
{
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", report_options, NULL)) != -1) {
		switch (c) {
		case 'o': *output = optarg; break;
		case ':':
			return repro_err_set(err, EINVAL, "report: option '%s' needs a value",
					     argv[optind - 1]);
		case 'h': fputs(cli_usage("report"), stdout); return 1;
		default:
			if ((rc = cli_reading_option(lim, "report", c, optarg, err)) < 0)
				return -1;
			if (rc > 0)
				break;
			return repro_err_set(
				err, EINVAL,
				"report: unknown option '%s' (see 'repro report --help')",
				argv[optind - 1]);
		}
	}
	if (argc - optind != 1 && argc - optind != 2)
		return repro_err_set(err, EINVAL, "report: expected one bundle or two, got %d",
				     argc - optind);
	opts->a_path = argv[optind];
	opts->b_path = argc - optind == 2 ? argv[optind + 1] : NULL;
	return 0;
}

/* A bundle's base name without ".repro": the default output's part. */
static char *stem(const char *path)
{
	cleanup_free char *copy = repro_xstrdup(path);
	char *base = basename(copy);
	size_t n = strlen(base);

	if (n > 6 && strcmp(base + n - 6, ".repro") == 0)
		base[n - 6] = '\0';
	return repro_xstrdup(base[0] != '\0' && strcmp(base, "/") != 0 ? base : "report");
}

/*
 * The report reads each bundle more than once (explain, diff, the page):
 * a pipe or a FIFO would be empty the second time.
 */
static int check_input(const char *path, struct repro_err **err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return repro_err_set(err, errno, "report: cannot read '%s'", path);
	if (!S_ISREG(st.st_mode))
		return repro_err_set(err, EINVAL,
				     "report: '%s' is not a regular file; the report reads a "
				     "bundle more than once (save it to a file first)",
				     path);
	return 0;
}

static int write_report(void *ctx, FILE *out, struct repro_err **err)
{
	return rpl_report_html(ctx, out, err);
}

int cmd_report(int argc, char **argv, struct repro_err **err)
{
	struct rpl_report_opts opts = { .a_path = NULL };
	const char *output = NULL;
	const char *inputs[2];
	cleanup_free char *made = NULL;
	struct bndl_limits lim;
	int rc;

	cli_reading_init(&lim);
	opts.limits = &lim;
	rc = parse_report_args(argc, argv, &opts, &lim, &output, err);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (check_input(opts.a_path, err) < 0 ||
	    (opts.b_path != NULL && check_input(opts.b_path, err) < 0))
		return -1;
	if (output == NULL) {
		cleanup_free char *a = stem(opts.a_path);
		cleanup_free char *b = opts.b_path != NULL ? stem(opts.b_path) : NULL;

		made = b != NULL ? repro_xasprintf("%s-vs-%s.html", a, b)
				 : repro_xasprintf("%s.html", a);
		output = made;
	}
	inputs[0] = opts.a_path;
	inputs[1] = opts.b_path;
	if (cli_output_write("report", output, inputs, opts.b_path != NULL ? 2 : 1, write_report,
			     &opts, err) < 0)
		return -1;
	if (strcmp(output, "-") != 0) {
		fputs("repro: report: wrote ", stderr);
		repro_term_puts(stderr, output);
		fputc('\n', stderr);
	}
	return 0;
}
