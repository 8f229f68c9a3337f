#ifndef REPRO_TESTS_FUZZ_INPUT_H
#define REPRO_TESTS_FUZZ_INPUT_H

/*
 * What every fuzz target of tests/fuzz/ shares (docs/fuzzing.md): one input
 * as a bundle file that the readers open by path, and an output stream that
 * discards what the readers print.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One input held in a memfd, so that nothing is written to the file system. */
struct fuzz_bundle {
	int fd; /* the memfd; -1 when closed */
	char path[32]; /* "/proc/self/fd/N": a regular file the readers can open again */
};

/*
 * fuzz_bundle_open - put data[0..size) (bytes) in a new memfd (memfd_create(2))
 * and name it in fb->path.  The readers open that path anew for every
 * member, each open with its own offset.  Aborts when the memfd cannot be
 * made or written: a target that cannot present its input tests nothing.
 * Release with fuzz_bundle_close().
 */
void fuzz_bundle_open(struct fuzz_bundle *fb, const uint8_t *data, size_t size);

/* fuzz_bundle_close - close fb's memfd; fb->fd becomes -1.  Idempotent. */
void fuzz_bundle_close(struct fuzz_bundle *fb);

/*
 * fuzz_sink - a stream opened once on /dev/null, where the readers' output
 * goes; its error state is cleared at every call.  Borrowed for the life of
 * the process.  Aborts when /dev/null cannot be opened.
 */
FILE *fuzz_sink(void);

/* The length prefix of a pair of bundles (fuzz_diff.c): 4 bytes, little-endian. */
#define FUZZ_PAIR_PREFIX 4

/*
 * fuzz_pair_split - the two bundles of a diff input: a 4-byte little-endian
 * length N, bundle A (N bytes), then bundle B (the rest).  Returns true and
 * sets *a, *alen, *b, *blen (borrowed from data) when data holds a pair;
 * false when it is too short or N is larger than what follows (any plain
 * bundle, whose zstd magic read as N is about 4 GiB).
 */
bool fuzz_pair_split(const uint8_t *data, size_t size, const uint8_t **a, size_t *alen,
		     const uint8_t **b, size_t *blen);

/*
 * fuzz_pair_join - write the pair (a, b) to out (room for max bytes) as
 * fuzz_pair_split() reads it.  Returns the size written, or 0 when it does
 * not fit.  a and b must not overlap out.
 */
size_t fuzz_pair_join(uint8_t *out, size_t max, const uint8_t *a, size_t alen, const uint8_t *b,
		      size_t blen);

/*
 * Defined by each target: 1 when its input is one bundle, 2 when it is a
 * pair (fuzz_diff.c).  The custom mutator of the libFuzzer builds
 * (fuzz_mutator.c) mutates accordingly.
 */
extern const int fuzz_input_bundles;

/*
 * LLVMFuzzerTestOneInput - libFuzzer's entry point, one per target: run the
 * readers on data[0..size) (borrowed for the call).  Always returns 0; a
 * defect shows as a crash or a sanitizer report.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
