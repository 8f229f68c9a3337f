/*
 * repro pack SPOOLDIR -o FILE: the bundle of a spool left behind, packed
 * as its run would have (sess_pack_spool(), session/session.h).
 */
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/run.h"
#include "common/err.h"
#include "session/session.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

static const struct option pack_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct pack_opts {
	const char *spool_dir; /* borrowed from argv */
	const char *out_path; /* borrowed from argv */
};

/* Returns 1 when --help was printed, 0 to go on, -1 with *err on bad usage. */
static int parse_pack_args(int argc, char **argv, struct pack_opts *opts, struct repro_err **err)
{
	int c;

	optind = 0; /* glibc: full re-initialisation, main() has run getopt already */
	opterr = 0; /* only main prints errors */
	while ((c = getopt_long(argc, argv, ":o:h", pack_options, NULL)) != -1) {
		switch (c) {
		case 'o': opts->out_path = optarg; break;
		case ':':
			return repro_err_set(err, EINVAL, "pack: option '%s' needs a value",
					     argv[optind - 1]);
		case 'h': fputs(cli_usage("pack"), stdout); return 1;
		default:
			return repro_err_set(err, 0,
					     "pack: bad option '%s' (see 'repro pack --help')",
					     argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return repro_err_set(err, 0, "pack: expected one spool directory, got %d",
				     argc - optind);
	if (opts->out_path == NULL)
		return repro_err_set(err, 0, "pack: missing -o FILE");
	opts->spool_dir = argv[optind];
	return 0;
}

int cmd_pack(int argc, char **argv, struct repro_err **err)
{
	struct pack_opts opts = { .spool_dir = NULL };
	struct sess_progress progress;
	int rc = parse_pack_args(argc, argv, &opts, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	progress = cli_pack_progress();
	rc = sess_pack_spool(opts.spool_dir, opts.out_path, &progress, err);
	cli_pack_progress_end();
	return rc < 0 ? -1 : 0;
}
