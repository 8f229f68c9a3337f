/*
 * `repro export --format=chrome-trace [-o FILE] BUNDLE`: the bundle as a
 * Trace Event Format timeline for Perfetto UI or chrome://tracing
 * (replayer/readers/export.h).
 */
#include "cli/commands.h"
#include "cli/reading.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "replayer/readers/export.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char export_usage[] =
	"usage: repro export [--format=chrome-trace] [-o FILE] BUNDLE\n"
	"\n"
	"Write BUNDLE as a timeline in the Trace Event Format (JSON), which Perfetto\n"
	"UI (https://ui.perfetto.dev: Open trace file) and chrome://tracing (Load)\n"
	"open: one track per process and thread, each recorded call a slice as long\n"
	"as it took (failed, injected and imposed calls in categories of their own,\n"
	"with path, address, result and errno as arguments), execs and exits as\n"
	"instants, long waits as slices.  Times are microseconds since the\n"
	"program's start.\n"
	"\n"
	"  --format FORMAT   chrome-trace (the default and, for now, the only one)\n"
	"  -o, --output FILE write to FILE (replaced whole, only once complete)\n"
	"                    instead of standard output\n"
	"  --max-read SIZE   read at most SIZE uncompressed bytes (default 4G)\n"
	"  --max-memory SIZE hold at most SIZE of parsed JSON (default 1G)\n"
	"  -h, --help        show this help\n"
	"\n"
	"The manual: man repro-export (repro-export(1)).\n";

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
		case 'h': fputs(export_usage, stdout); return 1;
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

/* The trace into path through a temporary file beside it, renamed once complete. */
static int export_replacing(const struct rpl_export_opts *opts, const char *path,
			    const char *output, struct repro_err **err)
{
	cleanup_free char *tmp = repro_xasprintf("%s.tmp-XXXXXX", path);
	int fd = mkstemp(tmp);
	FILE *f;
	int rc;

	if (fd < 0)
		return repro_err_set(err, errno, "export: cannot write '%s'", output);
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		unlink(tmp);
		return repro_err_set(err, errno, "export: cannot write '%s'", output);
	}
	rc = rpl_export_chrome_trace(opts, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = repro_err_set(err, errno, "export: cannot write '%s'", output);
	if (rc == 0) {
		mode_t mask = umask(0);

		umask(mask);
		/* mkstemp(3) made it 0600: the mode a new file gets */
		if (chmod(tmp, 0666 & ~mask) < 0 || rename(tmp, path) < 0)
			rc = repro_err_set(err, errno, "export: cannot write '%s'", output);
	}
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/* The trace written into what output already is: a device, a FIFO, a pipe of the shell's. */
static int export_through(const struct rpl_export_opts *opts, const char *output,
			  struct repro_err **err)
{
	FILE *f = fopen(output, "w");
	int rc;

	if (f == NULL)
		return repro_err_set(err, errno, "export: cannot write '%s'", output);
	rc = rpl_export_chrome_trace(opts, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = repro_err_set(err, errno, "export: cannot write '%s'", output);
	return rc;
}

/*
 * -o FILE: a regular file (or a new one) is replaced whole once the trace
 * is complete, through a symbolic link onto what it names; anything else
 * (/dev/stdout, a FIFO, the shell's >(…)) is written into.  The bundle
 * itself is never the output.
 */
static int export_to_file(const struct rpl_export_opts *opts, const char *output,
			  struct repro_err **err)
{
	struct stat out, in;
	cleanup_free char *real = NULL;

	if (stat(output, &out) < 0) {
		int why = errno;

		if (why != ENOENT)
			return repro_err_set(err, why, "export: cannot write '%s'", output);
		/* missing: made anew; a dangling link: the file it names, made through it */
		return lstat(output, &out) == 0 ? export_through(opts, output, err)
						: export_replacing(opts, output, output, err);
	}
	if (stat(opts->bundle_path, &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
		return repro_err_set(err, EINVAL,
				     "export: '%s' is the bundle itself; give another -o FILE",
				     output);
	if (!S_ISREG(out.st_mode))
		return export_through(opts, output, err);
	real = realpath(output, NULL);
	return export_replacing(opts, real != NULL ? real : output, output, err);
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
	if (output != NULL && strcmp(output, "-") != 0)
		return export_to_file(&opts, output, err) < 0 ? -1 : 0;
	return rpl_export_chrome_trace(&opts, stdout, err) < 0 ? -1 : 0;
}
