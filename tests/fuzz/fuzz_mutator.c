/*
 * The custom mutator of the libFuzzer builds (-DREPRO_FUZZ=ON only).
 *
 * A bundle is a zstd-compressed tar: a byte flipped in it almost always
 * breaks the zstd frame, so libFuzzer's own mutations would test little
 * beyond the decompressor.  This mutator opens the archive (zstd or plain
 * tar, with libarchive), changes one thing about its members -- the bytes
 * of one member through LLVMFuzzerMutate() (which uses the -dict= words),
 * a member's name, a member dropped, doubled or moved -- and packs them
 * again as a pax tar, zstd-compressed except now and then.  One mutation
 * in ten, and every input that is not an archive, gets LLVMFuzzerMutate()
 * on its raw bytes instead, so the archive layer is fuzzed as well.  A
 * diff input (fuzz_input_bundles == 2) has one of its two bundles mutated;
 * a single bundle given to it becomes a pair of itself and its mutant.
 */
#include "fuzz_input.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MEMBERS 64
#define MAX_UNPACKED (8u << 20) /* bytes of all members together */
#define NAME_MAX_LEN 128
#define MTIME 1700000000

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

struct member {
	char *name;
	mode_t type; /* AE_IFREG, AE_IFDIR … */
	uint8_t *data;
	size_t len;
};

struct members {
	struct member m[MAX_MEMBERS];
	size_t n;
	bool is_zstd;
};

static void members_release(struct members *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->m[i].name);
		free(ms->m[i].data);
	}
	ms->n = 0;
}
#define cleanup_members __attribute__((cleanup(members_release)))

static void cleanup_archive_fn(struct archive **a)
{
	if (*a != NULL)
		archive_free(*a);
}
#define cleanup_archive __attribute__((cleanup(cleanup_archive_fn)))

/* xorshift32: the seed libFuzzer gives decides every choice */
static unsigned int next(unsigned int *state)
{
	unsigned int x = *state ? *state : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Read one member's data (at most what is left of the budget); -1 when over it. */
static int read_member(struct archive *a, struct member *m, size_t *budget)
{
	uint8_t buf[16384];
	la_ssize_t n;

	while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
		if ((size_t)n > *budget)
			return -1;
		m->data = repro_xrealloc(m->data, m->len + (size_t)n);
		memcpy(m->data + m->len, buf, (size_t)n);
		m->len += (size_t)n;
		*budget -= (size_t)n;
	}
	return n < 0 ? -1 : 0;
}

/* The members of data when it is a whole archive; -1 when it is not. */
static int unpack(const uint8_t *data, size_t size, struct members *ms)
{
	cleanup_archive struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t budget = MAX_UNPACKED;
	int rc;

	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, data, size) != ARCHIVE_OK)
		return -1;
	while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		struct member *m = &ms->m[ms->n];
		const char *name = archive_entry_pathname(e);

		if (ms->n == MAX_MEMBERS)
			return -1;
		*m = (struct member){ .name = repro_xstrdup(name ? name : ""),
				      .type = archive_entry_filetype(e) };
		ms->n++;
		if (read_member(a, m, &budget) < 0)
			return -1;
	}
	ms->is_zstd = archive_filter_code(a, 0) == ARCHIVE_FILTER_ZSTD;
	return rc == ARCHIVE_EOF && ms->n > 0 ? 0 : -1;
}

/* Pack ms into out (room for max bytes); returns the size, 0 when it does not fit. */
static size_t pack(const struct members *ms, bool zstd, uint8_t *out, size_t max)
{
	cleanup_archive struct archive *a = archive_write_new();
	size_t used = 0;

	archive_write_set_format_pax_restricted(a);
	if (zstd &&
	    (archive_write_add_filter_zstd(a) != ARCHIVE_OK ||
	     archive_write_set_filter_option(a, "zstd", "compression-level", "1") != ARCHIVE_OK))
		return 0;
	archive_write_set_bytes_in_last_block(a, 1);
	if (archive_write_open_memory(a, out, max, &used) != ARCHIVE_OK)
		return 0;
	for (size_t i = 0; i < ms->n; i++) {
		struct archive_entry *e = archive_entry_new();
		const struct member *m = &ms->m[i];
		bool is_reg = m->type == AE_IFREG;
		int rc;

		archive_entry_set_pathname(e, m->name);
		archive_entry_set_filetype(e, m->type ? m->type : AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_mtime(e, MTIME, 0);
		archive_entry_set_size(e, is_reg ? (la_int64_t)m->len : 0);
		rc = archive_write_header(a, e);
		archive_entry_free(e);
		if (rc < ARCHIVE_WARN)
			return 0;
		if (is_reg && m->len > 0 &&
		    archive_write_data(a, m->data, m->len) != (la_ssize_t)m->len)
			return 0;
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		return 0;
	return used;
}

/* LLVMFuzzerMutate() on a member's data or name, in a buffer with room to grow. */
static void mutate_bytes(uint8_t **data, size_t *len, size_t room)
{
	uint8_t *buf = repro_xmalloc(*len + room);

	if (*len > 0)
		memcpy(buf, *data, *len);
	*len = LLVMFuzzerMutate(buf, *len, *len + room);
	free(*data);
	*data = buf;
}

static void mutate_name(struct member *m, unsigned int *state)
{
	static const char *const names[] = {
		"manifest.json", "processes.jsonl", "events.jsonl",  "trace.txt",
		"host.json",	 "files.jsonl",	    "network.jsonl", "../manifest.json",
	};
	size_t len = strlen(m->name);
	uint8_t *name;

	if (next(state) % 2 == 0) {
		free(m->name);
		m->name = repro_xstrdup(names[next(state) % (sizeof(names) / sizeof(names[0]))]);
		return;
	}
	name = (uint8_t *)m->name;
	mutate_bytes(&name, &len, NAME_MAX_LEN);
	m->name = repro_xstrndup((const char *)name, len); /* stops at a NUL the mutation put in */
	free(name);
}

/* One change to the members, chosen by state. */
static void mutate_members(struct members *ms, unsigned int *state)
{
	unsigned int what = next(state) % 100;
	size_t i = next(state) % ms->n, j = next(state) % ms->n;
	struct member tmp;

	if (what < 75) {
		mutate_bytes(&ms->m[i].data, &ms->m[i].len, ms->m[i].len / 4 + 256);
	} else if (what < 83) {
		mutate_name(&ms->m[i], state);
	} else if (what < 89 && ms->n > 1) {
		free(ms->m[i].name);
		free(ms->m[i].data);
		ms->m[i] = ms->m[--ms->n];
	} else if (what < 95 && ms->n < MAX_MEMBERS) {
		ms->m[ms->n] = (struct member){ .name = repro_xstrdup(ms->m[i].name),
						.type = ms->m[i].type,
						.data = repro_xmalloc(ms->m[i].len + 1),
						.len = ms->m[i].len };
		if (ms->m[i].len > 0)
			memcpy(ms->m[ms->n].data, ms->m[i].data, ms->m[i].len);
		ms->n++;
	} else {
		tmp = ms->m[i];
		ms->m[i] = ms->m[j];
		ms->m[j] = tmp;
	}
}

/* Mutate one bundle in place (room for max bytes); returns its new size. */
static size_t mutate_bundle(uint8_t *data, size_t size, size_t max, unsigned int *state)
{
	cleanup_members struct members ms = { .n = 0 };
	cleanup_free uint8_t *out = NULL;
	size_t n;

	if (next(state) % 10 == 0 || unpack(data, size, &ms) < 0)
		return LLVMFuzzerMutate(data, size, max);
	mutate_members(&ms, state);
	out = repro_xmalloc(max);
	n = pack(&ms, ms.is_zstd ? next(state) % 20 != 0 : next(state) % 4 == 0, out, max);
	if (n == 0)
		return LLVMFuzzerMutate(data, size, max);
	memcpy(data, out, n);
	return n;
}

/* A diff input: mutate A or B, or make a pair of a single bundle and its mutant. */
static size_t mutate_pair(uint8_t *data, size_t size, size_t max, unsigned int *state)
{
	const uint8_t *a, *b;
	size_t alen, blen, n;
	cleanup_free uint8_t *na = NULL, *nb = NULL;

	if (!fuzz_pair_split(data, size, &a, &alen, &b, &blen)) {
		a = b = data;
		alen = blen = size;
	}
	na = repro_xmalloc(max);
	nb = repro_xmalloc(max);
	memcpy(na, a, alen);
	memcpy(nb, b, blen);
	if (next(state) % 2 == 0)
		alen = mutate_bundle(na, alen, max, state);
	else
		blen = mutate_bundle(nb, blen, max, state);
	n = fuzz_pair_join(data, max, na, alen, nb, blen);
	return n > 0 ? n : LLVMFuzzerMutate(data, size, max);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	unsigned int state = seed;

	if (size == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	if (fuzz_input_bundles == 2)
		return mutate_pair(data, size, max_size, &state);
	return mutate_bundle(data, size, max_size, &state);
}
