/*
 * Fuzz target: `repro show` (replayer/readers/show.h).  The input is a bundle file;
 * rpl_show_run() reads it in every view: the summary (text and --json, with
 * and without --all), --files, --net and --host (text and --json) and
 * --trace, colour on for some of the text runs.  The output is discarded.
 */
#include "fuzz_input.h"
#include "common/cleanup.h"
#include "replayer/readers/show.h"

static const struct rpl_show_opts runs[] = {
	{ .view = RPL_VIEW_SUMMARY },
	{ .view = RPL_VIEW_SUMMARY, .all = true, .color = true },
	{ .view = RPL_VIEW_SUMMARY, .json = true },
	{ .view = RPL_VIEW_SUMMARY, .json = true, .all = true },
	{ .view = RPL_VIEW_FILES, .color = true },
	{ .view = RPL_VIEW_FILES, .json = true },
	{ .view = RPL_VIEW_NET, .color = true },
	{ .view = RPL_VIEW_NET, .json = true },
	{ .view = RPL_VIEW_HOST },
	{ .view = RPL_VIEW_HOST, .json = true },
	{ .trace = true },
};

const int fuzz_input_bundles = 1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_bundle fb;

	fuzz_bundle_open(&fb, data, size);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		cleanup_err struct repro_err *err = NULL;
		struct rpl_show_opts opts = runs[i];

		opts.bundle_path = fb.path;
		(void)rpl_show_run(&opts, fuzz_sink(), &err);
	}
	fuzz_bundle_close(&fb);
	return 0;
}
