/*
 * Fuzz target: `repro explain` (replayer/readers/explain.h).  The input is a bundle
 * file; rpl_explain_run() reads it as text and as --json, each with and
 * without --all (colour on for one text run).  The output is discarded.
 */
#include "fuzz_input.h"
#include "common/cleanup.h"
#include "replayer/readers/explain.h"

static const struct rpl_explain_opts runs[] = {
	{ .json = false },
	{ .all = true, .color = true },
	{ .json = true },
	{ .json = true, .all = true },
};

const int fuzz_input_bundles = 1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_bundle fb;

	fuzz_bundle_open(&fb, data, size);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		cleanup_err struct repro_err *err = NULL;
		struct rpl_explain_opts opts = runs[i];

		opts.bundle_path = fb.path;
		(void)rpl_explain_run(&opts, fuzz_sink(), &err);
	}
	fuzz_bundle_close(&fb);
	return 0;
}
