/*
 * The custom mutator of the libFuzzer builds (-DREPRO_FUZZ=ON only).
 *
 * A bundle is a zstd-compressed tar: a byte flipped in it almost always
 * breaks the zstd frame, so libFuzzer's own mutations would test little
 * beyond the decompressor.  This mutator opens the archive (zstd or plain
 * tar, with libarchive), changes one thing about its members -- one value
 * of one JSON line (replaced by a value of another type, a boundary
 * integer, a string the readers compare with, or another part of the
 * line; a key added or removed), so that the line still parses; the bytes
 * of one member through LLVMFuzzerMutate() (which uses the -dict= words);
 * a member's name; a member dropped, doubled or moved -- and packs them
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
#include <jansson.h>
#include <stdint.h>
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

/* ---- JSON-aware mutation: one value of one line changed, the line still JSON ---- */

/* clang-format off */
/* Keys the readers look up (replayer/), for keys added to an object. */
static const char *const keys[] = {
	"pid", "ppid", "execs", "argv", "env", "exit", "code", "signal", "core_dumped",
	"left_running", "t_ns", "start_ns", "end_ns", "dur_ns", "seq", "syscall", "path",
	"newpath", "ret", "errno", "addr", "family", "ip", "port", "abstract", "fd", "flags",
	"mode", "target", "meta", "type", "uid", "gid", "size", "hash", "before", "ancestors",
	"mount", "mount_point", "fstype", "options", "super_options", "ops", "first", "last",
	"calls", "kind", "outcome", "name", "qtype", "answers", "tries", "transport", "server",
	"injected", "result_unseen", "unseen_reason", "denied_by_filter", "truncated",
	"unfinished", "euid", "egid", "fsuid", "fsgid", "groups", "capabilities", "effective",
	"environment", "HOME", "cwd", "counts", "events", "failed", "processes", "warnings",
	"format", "version", "argv", "filesystems", "free_bytes", "free_inodes", "resolv_conf",
	"nameservers", "rlimits",
};

/* Strings the readers compare values with. */
static const char *const strings[] = {
	"openat", "execve", "connect", "setresuid", "setuid", "chdir", "newfstatat", "access",
	"mkdir", "unlink", "rename", "socket", "bind", "sendto", "recvfrom", "clone", "wait4",
	"seccomp", "prctl", "ENOENT", "EACCES", "EPERM", "ENOTDIR", "ELOOP", "EROFS", "ENOSPC",
	"ENOEXEC", "ECONNREFUSED", "ENETUNREACH", "ETIMEDOUT", "EINPROGRESS", "EAGAIN",
	"ERESTARTSYS", "SIGSEGV", "SIGKILL", "AF_INET", "AF_INET6", "AF_UNIX", "dns", "connect",
	"bind", "ok", "refused", "timed_out", "nxdomain", "answered", "abandoned", "file", "dir",
	"symlink", "0755", "04755", "0000", "xxh3:ffffffffffffffff", "/", "", "/a/../b",
	"relative", "/proc/self/fd/3", "/tmp/tmpabcdefgh", "127.0.0.1", "::1",
	"x\033[2J\302\233\x7f", "ro", "noexec", "kernel_walk",
};

static const json_int_t ints[] = {
	0, -1, 1, 2, 53, 443, 65535, 65536, INT32_MAX, INT32_MIN, (json_int_t)INT32_MAX + 1,
	INT64_MAX, INT64_MIN, INT64_MAX - 1, 1000000000,
};
/* clang-format on */

#define PICK(arr) (arr)[next(state) % (sizeof(arr) / sizeof((arr)[0]))]

static json_t *random_value(json_t *root, unsigned int *state);

/* A node of root: a walk down that stops at each level with odds 1 in 3. */
static json_t *random_node(json_t *root, unsigned int *state)
{
	json_t *n = root;

	for (int depth = 0; depth < 16; depth++) {
		size_t size = json_is_object(n)	 ? json_object_size(n)
			      : json_is_array(n) ? json_array_size(n)
						 : 0;
		size_t i;
		void *it;

		if (size == 0 || next(state) % 3 == 0)
			break;
		i = next(state) % size;
		if (json_is_array(n)) {
			n = json_array_get(n, i);
			continue;
		}
		for (it = json_object_iter(n); i > 0 && it != NULL; i--)
			it = json_object_iter_next(n, it);
		n = json_object_iter_value(it);
	}
	return n;
}

static json_t *random_value(json_t *root, unsigned int *state)
{
	switch (next(state) % 10) {
	case 0:
	case 1: return json_string(PICK(strings));
	case 2:
	case 3: return json_integer(PICK(ints));
	case 4: return json_integer((json_int_t)(int32_t)next(state));
	case 5: return json_deep_copy(random_node(root, state)); /* another part of the line */
	case 6: return json_object();
	case 7: return json_array();
	case 8: return next(state) % 2 ? json_null() : json_true();
	default: return json_real(-1.5);
	}
}

/* One change in the container c: a value replaced, a key added or removed, an element added. */
static void mutate_container(json_t *root, json_t *c, unsigned int *state)
{
	size_t size = json_is_object(c) ? json_object_size(c) : json_array_size(c);
	size_t i = size ? next(state) % size : 0;
	unsigned int what = next(state) % 4;
	void *it;

	if (json_is_array(c)) {
		if (size == 0 || what == 0)
			json_array_append_new(c, random_value(root, state));
		else if (what == 1)
			json_array_remove(c, i);
		else
			json_array_set_new(c, i, random_value(root, state));
		return;
	}
	if (size == 0 || what == 0) {
		json_object_set_new(c, PICK(keys), random_value(root, state));
		return;
	}
	for (it = json_object_iter(c); i > 0 && it != NULL; i--)
		it = json_object_iter_next(c, it);
	if (what == 1)
		json_object_del(c, json_object_iter_key(it));
	else
		json_object_iter_set_new(c, it, random_value(root, state));
}

/* Find line k (from 0) of data: its start and length; false when there are fewer lines. */
static bool find_line(const uint8_t *data, size_t len, size_t k, size_t *start, size_t *n)
{
	size_t at = 0;

	for (;;) {
		const uint8_t *nl = memchr(data + at, '\n', len - at);
		size_t end = nl != NULL ? (size_t)(nl - data) : len;

		if (k-- == 0) {
			*start = at;
			*n = end - at;
			return true;
		}
		if (nl == NULL)
			return false;
		at = end + 1;
	}
}

static size_t count_lines(const uint8_t *data, size_t len)
{
	size_t n = 1;

	for (const uint8_t *p = data; (p = memchr(p, '\n', len - (size_t)(p - data))) != NULL; p++)
		n++;
	return n;
}

/*
 * Change one value of one line of m (a .jsonl member; a .json member is one
 * line).  Returns false when that line is not JSON: the caller mutates bytes.
 */
static bool mutate_json(struct member *m, unsigned int *state)
{
	size_t start = 0, n = m->len, k;
	json_t *root, *c;
	char *text;
	size_t tlen;
	uint8_t *out;

	if (m->len == 0)
		return false;
	k = next(state) % count_lines(m->data, m->len);
	if (strstr(m->name, ".jsonl") != NULL && !find_line(m->data, m->len, k, &start, &n))
		return false;
	root = json_loadb((const char *)m->data + start, n, 0, NULL);
	if (root == NULL)
		return false;
	c = random_node(root, state);
	if (!json_is_object(c) && !json_is_array(c))
		c = root;
	if (json_is_object(c) || json_is_array(c))
		mutate_container(root, c, state);
	text = json_dumps(root, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(root);
	if (text == NULL)
		return false;
	tlen = strlen(text);
	out = repro_xmalloc(m->len - n + tlen + 1);
	memcpy(out, m->data, start);
	memcpy(out + start, text, tlen);
	memcpy(out + start + tlen, m->data + start + n, m->len - start - n);
	free(text);
	free(m->data);
	m->data = out;
	m->len = m->len - n + tlen;
	return true;
}

/* One change to the members, chosen by state. */
static void mutate_members(struct members *ms, unsigned int *state)
{
	unsigned int what = next(state) % 100;
	size_t i = next(state) % ms->n, j = next(state) % ms->n;
	struct member tmp;

	if (what < 45 && mutate_json(&ms->m[i], state)) {
		return;
	} else if (what < 75) {
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
