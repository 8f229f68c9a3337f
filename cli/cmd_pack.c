#include "bundles/json_util.h"
#include "bundles/pack.h"
#include "bundles/spool.h"
#include "cli/commands.h"
#include "common/cleanup.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "recorder/files.h"
#include "recorder/network.h"
#include "recorder/waits.h"
#include "recorder/render.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char pack_usage[] =
	"usage: repro pack SPOOLDIR -o FILE\n"
	"\n"
	"Pack the spool left behind by a recording that was interrupted, or that\n"
	"found no room for its bundle ($TMPDIR/repro-NAME.XXXXXX/), into the bundle\n"
	"FILE.  The exit status is the one the spool recorded (none when the\n"
	"program's end was not recorded); the manifest's warnings say the bundle\n"
	"was packed later, and what the spool lost.  The spool directory is\n"
	"removed once FILE is written.\n"
	"\n"
	"  -o, --output FILE   the bundle to write (required)\n"
	"  --help              show this help\n";

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
	while ((c = getopt_long(argc, argv, "o:", pack_options, NULL)) != -1) {
		switch (c) {
		case 'o': opts->out_path = optarg; break;
		case 'h': fputs(pack_usage, stdout); return 1;
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

static const char *const extra_members[] = { "host.json", "files.jsonl", "network.jsonl",
					     "waits.jsonl", NULL };

/*
 * files.jsonl and network.jsonl, as record makes them after the run.  Best
 * effort: a spool on a read-only or full mount still packs, without them
 * (a partial one is removed, so that it is not packed).
 */
static void derive(const char *spool_dir)
{
	cleanup_free char *files = repro_xasprintf("%s/files.jsonl", spool_dir);
	cleanup_free char *net = repro_xasprintf("%s/network.jsonl", spool_dir);
	cleanup_free char *waits = repro_xasprintf("%s/waits.jsonl", spool_dir);
	cleanup_err struct repro_err *tmp_err = NULL;

	if (rec_files_write(spool_dir, NULL, files, &tmp_err) < 0) {
		repro_err_free(&tmp_err);
		(void)unlink(files);
	}
	if (rec_network_write(spool_dir, net, &tmp_err) < 0) {
		repro_err_free(&tmp_err);
		(void)unlink(net);
	}
	if (rec_waits_write(spool_dir, waits, &tmp_err) < 0) {
		repro_err_free(&tmp_err);
		(void)unlink(waits);
	}
}

/* True when out's directory is the spool directory itself. */
static bool output_inside(const char *spool_dir, const char *out)
{
	cleanup_free char *copy = repro_xstrdup(out);
	char a[PATH_MAX], b[PATH_MAX];

	if (realpath(spool_dir, a) == NULL || realpath(dirname(copy), b) == NULL)
		return false;
	return strcmp(a, b) == 0;
}

int cmd_pack(int argc, char **argv, struct repro_err **err)
{
	struct pack_opts opts = { .spool_dir = NULL };
	struct bndl_run_info run;
	cleanup_free char **run_argv = NULL;
	cleanup_free char *out_copy = NULL;
	cleanup_dirs char **scratch = NULL;
	cleanup_json json_t *holder = NULL;
	cleanup_json json_t *redacted = NULL;
	cleanup_renderer struct rec_renderer *renderer = NULL;
	struct bndl_render_ops ops;
	struct bndl_pack_dest dest = { .out_path = NULL };
	int rc = parse_pack_args(argc, argv, &opts, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (output_inside(opts.spool_dir, opts.out_path))
		return repro_err_set(err, EINVAL,
				     "pack: the bundle '%s' would be written inside the spool "
				     "'%s', which is removed after packing",
				     opts.out_path, opts.spool_dir);
	if (bndl_runinfo_load(opts.spool_dir, &run, &holder, &run_argv, err) < 0)
		return repro_err_wrap(err, "cannot pack '%s'", opts.spool_dir);
	run.is_packed_later = true;
	/* run.json has no list of names: the manifest gets those the renderer redacts */
	if (run.redacted == NULL)
		run.redacted = redacted = json_array();
	renderer = rec_renderer_new(NULL, run.redacted);
	rec_renderer_ops(renderer, &ops);
	derive(opts.spool_dir);
	run.extra_members = extra_members;
	/* staged where there is room; the bundle itself goes to -o or nowhere */
	out_copy = repro_xstrdup(opts.out_path);
	scratch = bndl_scratch_dirs(dirname(out_copy));
	dest.out_path = opts.out_path;
	dest.scratch_dirs = (const char *const *)scratch;
	if (bndl_pack_to(opts.spool_dir, &run, &ops, &dest, NULL, err) < 0)
		return repro_err_wrap(err, "cannot pack '%s'", opts.spool_dir);
	if (bndl_spool_remove(opts.spool_dir, err) < 0)
		return -1;
	return 0;
}
