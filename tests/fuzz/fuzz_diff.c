/*
 * Fuzz target: `repro diff A B` (replayer/readers/diff.h).  The input holds both
 * bundles: a 4-byte little-endian length N, then A (N bytes), then B (the
 * rest).  An input too short for that, or whose N is larger than what
 * follows (any plain bundle: the zstd magic read as N is about 4 GiB), is
 * diffed against itself, so every bundle of the other targets' corpora
 * is a diff input as it is (fuzz_pair_split()).  tests/fuzz/make_corpus.py
 * writes the pairs.
 * Each input is compared as text (colour on) and as --json with one --map.
 */
#include "fuzz_input.h"
#include "common/cleanup.h"
#include "replayer/readers/diff.h"

const int fuzz_input_bundles = 2;

static void run(const char *a_path, const char *b_path, bool json)
{
	cleanup_err struct repro_err *err = NULL;
	struct rpl_diff_opts opts = {
		.a_path = a_path,
		.b_path = b_path,
		.json = json,
		.color = !json,
	};
	bool differ = false;

	if (json) {
		opts.map_from[0] = "/srv/app";
		opts.map_to[0] = "/opt/app";
		opts.nmaps = 1;
	}
	(void)rpl_diff_run(&opts, fuzz_sink(), &differ, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_bundle fa, fb;
	const uint8_t *a, *b;
	size_t alen, blen;

	if (!fuzz_pair_split(data, size, &a, &alen, &b, &blen)) {
		a = b = data;
		alen = blen = size;
	}
	fuzz_bundle_open(&fa, a, alen);
	fuzz_bundle_open(&fb, b, blen);
	run(fa.path, fb.path, false);
	run(fa.path, fb.path, true);
	fuzz_bundle_close(&fa);
	fuzz_bundle_close(&fb);
	return 0;
}
