#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sigabbrev_np, strcasestr, mkostemp, asprintf */
#endif

#include "bundles/reader.h"
#include "bundles/members.h"
#include "common/term.h"
#include "bundles/archive_util.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK_SIZE (64u * 1024u)

struct bndl_reader {
	char *path;
	json_t *manifest;
	struct bndl_limits lim;
	/* the archive stream, read forward */
	int fd;
	struct archive *a;
	bool pipe; /* not a regular file: it can be read only once */
	uint64_t raw_bytes; /* bytes read from the file in this pass */
	char *raw; /* owned: the read buffer, CHUNK_SIZE bytes */
	unsigned passes;
	uint64_t passed_bytes; /* uncompressed bytes of the passes before this one */
	uint64_t kept; /* bytes the command keeps outside JSON (bndl_reader_charge()) */
	/* processes.jsonl's first record was compared with manifest.json "argv" (or has none) */
	bool command_checked;
	/* this pass */
	char *cur; /* name of the member whose header was read last (owned), or NULL */
	bool cur_reg; /* it is a regular file */
	bool cur_unread; /* its data is still ahead */
	bool eof;
	json_t *seen; /* names of the headers of this pass -> true */
	/* what is known of the whole archive */
	json_t *listed; /* manifest.json "members", borrowed; NULL for an older bundle */
	json_t *all; /* every name, once a pass reached the end; NULL before */
};

/* Growing line buffer, capped at BNDL_LINE_MAX. */
struct line_buf {
	char *buf;
	size_t len;
	size_t cap;
};

static void line_buf_release(struct line_buf *lb)
{
	free(lb->buf);
}
#define cleanup_line_buf __attribute__((cleanup(line_buf_release)))

/* "4 GiB", "512 MiB", or bytes: a limit for a message. */
static void size_text(char *buf, size_t len, uint64_t n)
{
	if (n >= (1ull << 30) && n % (1ull << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(n >> 30));
	else if (n >= (1ull << 20) && n % (1ull << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(n >> 20));
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(n >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
}

/*
 * A libarchive failure while reading: a stream that ends early is
 * "truncated", anything else means the file is not a (valid) bundle.
 */
static int archive_fail(const struct bndl_reader *r, struct repro_err **err)
{
	const char *what = archive_error_string(r->a);

	if (what == NULL)
		what = "unreadable archive";
	if (r->raw_bytes == 0) /* a pipe nobody wrote to, an empty file */
		return repro_err_set(err, EPROTO, "'%s' is empty: not a repro bundle", r->path);
	if (strcasestr(what, "truncat") != NULL || strcasestr(what, "premature") != NULL ||
	    strcasestr(what, "unexpected end") != NULL)
		return repro_err_set(err, EPROTO, "'%s' is truncated: %s", r->path, what);
	return repro_err_set(err, EPROTO, "'%s' is not a repro bundle: %s", r->path, what);
}

/* Uncompressed bytes read so far over every pass. */
static uint64_t bytes_read(const struct bndl_reader *r)
{
	int64_t pos = r->a != NULL ? archive_filter_bytes(r->a, 0) : 0;

	return r->passed_bytes + (pos > 0 ? (uint64_t)pos : 0);
}

/* Would reading more bytes (a member's size; hostile, maybe negative) pass the limit? */
static int check_total(const struct bndl_reader *r, int64_t more, struct repro_err **err)
{
	uint64_t done = bytes_read(r);
	char lim[32];

	if (more >= 0 && done <= r->lim.max_read && (uint64_t)more <= r->lim.max_read - done)
		return 0;
	size_text(lim, sizeof(lim), r->lim.max_read);
	return repro_err_set(err, EPROTO,
			     "'%s' holds more than the read limit of %s uncompressed "
			     "(--max-read=SIZE raises it)",
			     r->path, lim);
}

static void stream_close(struct bndl_reader *r)
{
	r->passed_bytes = bytes_read(r);
	if (r->a != NULL)
		archive_read_free(r->a);
	r->a = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->cur);
	r->cur = NULL;
	json_decref(r->seen);
	r->seen = NULL;
}

/* Open the file (non-blocking first: the open of a FIFO nobody writes to would block). */
static int file_open(struct bndl_reader *r, struct repro_err **err)
{
	struct stat st;

	r->fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (r->fd < 0 && errno == ENXIO && stat(r->path, &st) == 0 && S_ISSOCK(st.st_mode))
		return repro_err_set(err, EINVAL,
				     "cannot read a bundle from a device or socket ('%s'): save "
				     "it to a file first",
				     r->path);
	if (r->fd < 0)
		return repro_err_set(err, errno, "cannot open bundle '%s'", r->path);
	if (fstat(r->fd, &st) < 0)
		return repro_err_set(err, errno, "cannot open bundle '%s'", r->path);
	if (S_ISDIR(st.st_mode))
		return repro_err_set(err, EISDIR, "cannot open bundle '%s'", r->path);
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return repro_err_set(err, EINVAL,
				     "cannot read a bundle from a device or socket ('%s'): save "
				     "it to a file first",
				     r->path);
	r->pipe = S_ISFIFO(st.st_mode);
	if (fcntl(r->fd, F_SETFL, 0) < 0)
		return repro_err_set(err, errno, "cannot open bundle '%s'", r->path);
	return 0;
}

/* libarchive's read callback: the next block of the file. */
static la_ssize_t raw_read(struct archive *a, void *ctx, const void **buf)
{
	struct bndl_reader *r = ctx;
	ssize_t n;

	do
		n = read(r->fd, r->raw, CHUNK_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		archive_set_error(a, errno, "cannot read: %s", strerror(errno));
		return -1;
	}
	r->raw_bytes += (uint64_t)n;
	*buf = r->raw;
	return n;
}

/* Start a pass: open the archive from its first byte. */
static int stream_open(struct bndl_reader *r, struct repro_err **err)
{
	if (r->passes > 0 && r->pipe)
		return repro_err_set(err, EINVAL,
				     "cannot read '%s' from a pipe: its members are not in the "
				     "order this command reads them; save it to a file first",
				     r->path);
	stream_close(r);
	if (bndl_archive_load(err) < 0 || file_open(r, err) < 0)
		return -1;
	r->passes++;
	r->raw_bytes = 0;
	r->eof = false;
	r->seen = json_object();
	r->a = archive_read_new();
	/*
	 * zstd only (and none): filter_all would let a hostile file make
	 * libarchive run external programs (lrzip, lzop) found in PATH.
	 */
	if (archive_read_support_filter_zstd(r->a) < ARCHIVE_WARN ||
	    archive_read_support_format_tar(r->a) < ARCHIVE_WARN ||
	    archive_read_open(r->a, r, NULL, raw_read, NULL) < ARCHIVE_WARN)
		return archive_fail(r, err);
	return 0;
}

static bool name_in(json_t *set, const char *name, size_t len)
{
	return set != NULL && json_object_getn(set, name, len) != NULL;
}

/* name is in manifest.json's "members"; linear in the list (at most BNDL_MEMBERS_MAX). */
static bool listed_has(json_t *listed, const char *name)
{
	for (size_t i = 0; i < json_array_size(listed); i++)
		if (strcmp(json_string_value(json_array_get(listed, i)), name) == 0)
			return true;
	return false;
}

/* The checks on a header: the members limit, a name seen twice, the manifest's list. */
static int header_check(struct bndl_reader *r, const char *name, size_t len, struct repro_err **err)
{
	size_t index = json_object_size(r->seen);
	const char *want;

	if (index >= BNDL_MEMBERS_MAX)
		return repro_err_set(err, EPROTO,
				     "'%s' is not a repro bundle: more than %u members", r->path,
				     BNDL_MEMBERS_MAX);
	if (name_in(r->seen, name, len))
		return repro_err_set(err, EPROTO,
				     "'%s' is not a repro bundle: two members are named '%s' "
				     "(tar -x would keep the last one)",
				     r->path, name);
	want = r->listed != NULL ? json_string_value(json_array_get(r->listed, index)) : NULL;
	if (r->listed != NULL && (want == NULL || strlen(want) != len || memcmp(want, name, len)))
		return repro_err_set(
			err, EPROTO,
			"'%s' is not a repro bundle: member %zu is '%s', manifest.json "
			"\"members\" says '%s'",
			r->path, index + 1, name, want != NULL ? want : "(none)");
	json_object_setn_new_nocheck(r->seen, name, len, json_true());
	return 0;
}

static int command_check_member(struct bndl_reader *r, struct repro_err **err);

/* Move to the next header: 1 with r->cur set, 0 at the end of the archive, -1 with *err. */
static int next_header(struct bndl_reader *r, struct repro_err **err)
{
	struct archive_entry *e;
	const char *name;
	int rc;

	if (r->eof)
		return 0;
	/* no walk goes past processes.jsonl without its first record checked */
	if (r->cur != NULL && r->cur_unread && r->cur_reg && !r->command_checked &&
	    strcmp(r->cur, BNDL_PROCESSES_JSONL) == 0 && command_check_member(r, err) < 0)
		return -1;
	free(r->cur);
	r->cur = NULL;
	/* the data of the member before is skipped (decompressed, hence counted) */
	rc = archive_read_next_header(r->a, &e);
	if (check_total(r, 0, err) < 0)
		return -1;
	if (rc == ARCHIVE_EOF) {
		r->eof = true;
		json_decref(r->all);
		r->all = json_incref(r->seen);
		return 0;
	}
	/* ARCHIVE_RETRY (-10) is above ARCHIVE_WARN too: only OK and WARN go on */
	if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
		return archive_fail(r, err);
	name = archive_entry_pathname(e) != NULL ? archive_entry_pathname(e) : "";
	if (header_check(r, name, strlen(name), err) < 0 ||
	    check_total(r, archive_entry_size(e), err) < 0)
		return -1;
	r->cur = repro_xstrdup(name);
	r->cur_reg = archive_entry_filetype(e) == AE_IFREG;
	r->cur_unread = true;
	return 1;
}

/*
 * Move to the data of the regular-file member named exactly name: forward
 * when it is ahead, from the start again when it was passed.  Returns 1
 * when found (its data is next), 0 when the archive has no such member,
 * -1 with *err.
 */
static int member_seek(struct bndl_reader *r, const char *name, struct repro_err **err)
{
	size_t len = strlen(name);
	int rc;

	if (r->cur != NULL && r->cur_unread && strcmp(r->cur, name) == 0)
		goto found;
	if (r->listed != NULL && !listed_has(r->listed, name))
		return 0; /* the manifest says what there is */
	if (r->all != NULL && !name_in(r->all, name, len))
		return 0;
	if (name_in(r->seen, name, len) && stream_open(r, err) < 0)
		return -1;
	while ((rc = next_header(r, err)) > 0)
		if (strcmp(r->cur, name) == 0)
			goto found;
	return rc;
found:
	if (!r->cur_reg)
		return 0;
	r->cur_unread = false;
	return 1;
}

/* member_seek() for a member the bundle must have: its absence is EPROTO. */
static int member_require(struct bndl_reader *r, const char *name, struct repro_err **err)
{
	int rc = member_seek(r, name, err);

	if (rc == 0)
		return repro_err_set(err, EPROTO, "'%s' is not a repro bundle: no member '%s'",
				     r->path, name);
	return rc < 0 ? -1 : 0;
}

/* Next block of the current member's data: its size, 0 at the end, -1 with *err. */
static la_ssize_t member_read(struct bndl_reader *r, void *buf, size_t len, struct repro_err **err)
{
	la_ssize_t n = archive_read_data(r->a, buf, len);

	if (n < 0)
		return archive_fail(r, err);
	if (check_total(r, 0, err) < 0)
		return -1;
	return n;
}

/*
 * The whole of a small member (at most max bytes) in a buffer the caller
 * frees.  The buffer grows as the member is read, rather than being max + 1
 * bytes from the start: every open reads manifest.json, whose limit is
 * 64 MiB, and under AddressSanitizer each such allocation costs its
 * shadow's page faults.
 */
static char *read_small_member(struct bndl_reader *r, const char *name, size_t max, size_t *len_out,
			       struct repro_err **err)
{
	cleanup_free char *buf = NULL;
	size_t len = 0, cap = 0;
	la_ssize_t n;

	if (member_require(r, name, err) < 0)
		return NULL;
	do {
		if (len == cap) {
			cap = cap == 0 ? CHUNK_SIZE : cap > (max + 1) / 2 ? max + 1 : 2 * cap;
			buf = repro_xrealloc(buf, cap);
		}
		n = member_read(r, buf + len, cap - len, err);
		if (n > 0)
			len += (size_t)n;
		if (len > max)
			return repro_err_set(err, EPROTO, "'%s': %s is larger than %zu bytes",
					     r->path, name, max),
			       NULL;
	} while (n > 0);
	if (n < 0)
		return NULL;
	*len_out = len;
	return steal_ptr(&buf);
}

/* ---- memory ---- */

/*
 * What parsing text (len bytes) may allocate, at most about: jansson takes
 * some 150 bytes for an empty object or array and 50 for each further
 * value or key, on top of the text, so a 64 MiB line of [{},{},...] needs
 * 5 GB.  An upper bound, counted in one pass over the text.
 */
static uint64_t parse_estimate(const char *text, size_t len)
{
	uint64_t est = len;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == '{' || c == '[')
			est += 192;
		else if (c == ',' || c == ':')
			est += 64;
	}
	return est;
}

/* Bytes held now: parsed JSON (when counted) and what the command keeps. */
static uint64_t held_now(const struct bndl_reader *r)
{
	return (r->lim.mem != NULL ? r->lim.mem->held() : 0) + r->kept;
}

static int memory_limit_error(const struct bndl_reader *r, const char *member, size_t lineno,
			      struct repro_err **err)
{
	char lim[32], where[64] = "";

	if (lineno > 0)
		snprintf(where, sizeof(where), " line %zu", lineno);
	size_text(lim, sizeof(lim), r->lim.max_memory);
	return repro_err_set(err, EPROTO,
			     "'%s': %s%s: reading it needs more than the memory limit of %s "
			     "(--max-memory=SIZE raises it)",
			     r->path, member, where, lim);
}

/*
 * Before parsing text: would it pass the memory limit?  No allocation is
 * made to fail instead (jansson asserts when one fails while it lexes a
 * string).  Returns 0 or -1 with *err.
 */
static int check_parse(const struct bndl_reader *r, const char *member, size_t lineno,
		       const char *text, size_t len, struct repro_err **err)
{
	uint64_t held = held_now(r), est = parse_estimate(text, len);

	if (held > r->lim.max_memory || est > r->lim.max_memory - held)
		return memory_limit_error(r, member, lineno, err);
	return 0;
}

/*
 * After a parse of member's line lineno (0: the whole member): did the
 * machine's memory run out (jerr: the failed parse's error, NULL after a
 * success), or does what is held now pass the limit?
 */
static int check_memory(const struct bndl_reader *r, const char *member, size_t lineno,
			const json_error_t *jerr, struct repro_err **err)
{
	char where[64] = "";

	if (held_now(r) > r->lim.max_memory)
		return memory_limit_error(r, member, lineno, err);
	if (jerr == NULL || (json_error_code(jerr) != json_error_out_of_memory &&
			     strstr(jerr->text, "out of memory") == NULL))
		return 0;
	if (lineno > 0)
		snprintf(where, sizeof(where), " line %zu", lineno);
	return repro_err_set(err, ENOMEM, "'%s': %s%s: out of memory while parsing it", r->path,
			     member, where);
}

/* ---- opening ---- */

int bndl_reader_has(struct bndl_reader *r, const char *member, struct repro_err **err)
{
	int rc = member_seek(r, member, err);

	if (rc > 0)
		r->cur_unread = true; /* still ahead for the read that follows */
	return rc;
}

json_t *bndl_reader_load(struct bndl_reader *r, const char *member, struct repro_err **err)
{
	cleanup_free char *text = NULL;
	json_error_t jerr;
	size_t len = 0;
	json_t *o;

	text = read_small_member(r, member, BNDL_OBJECT_MAX, &len, err);
	if (text == NULL)
		return NULL;
	if (check_parse(r, member, 0, text, len, err) < 0)
		return NULL;
	o = json_loadb(text, len, 0, &jerr);
	if (check_memory(r, member, 0, o == NULL ? &jerr : NULL, err) < 0) {
		json_decref(o);
		return NULL;
	}
	if (o == NULL)
		return repro_err_set(err, EPROTO, "'%s': %s line %d: %s", r->path, member,
				     jerr.line, jerr.text),
		       NULL;
	if (!json_is_object(o)) {
		json_decref(o);
		return repro_err_set(err, EPROTO, "'%s': %s is not a JSON object", r->path, member),
		       NULL;
	}
	return o;
}

static int check_manifest(const struct bndl_reader *r, json_t *m, struct repro_err **err)
{
	const char *format = bndl_json_str(m, "format");
	json_t *version = json_object_get(m, "version");
	json_int_t v;

	if (format == NULL || strcmp(format, BNDL_FORMAT_NAME) != 0)
		return repro_err_set(
			err, EPROTO,
			"'%s' is not a repro bundle: manifest.json \"format\" is not \"%s\"",
			r->path, BNDL_FORMAT_NAME);
	if (!json_is_integer(version))
		return repro_err_set(
			err, EPROTO,
			"'%s' is not a repro bundle: manifest.json has no integer \"version\"",
			r->path);
	v = json_integer_value(version);
	if (v > BNDL_FMT_MAJOR)
		return repro_err_set(err, EPROTO,
				     "'%s' was written by a newer repro (bundle format %lld; this "
				     "reader knows %d)",
				     r->path, (long long)v, BNDL_FMT_MAJOR);
	if (v < 1)
		return repro_err_set(err, EPROTO,
				     "'%s' is not a repro bundle: manifest.json version %lld",
				     r->path, (long long)v);
	return 0;
}

/*
 * manifest.json "members" (absent in bundles of repro 0.1): the names in
 * archive order, manifest.json first and read first, no name twice.
 */
static int check_members(struct bndl_reader *r, json_t *list, struct repro_err **err)
{
	size_t n = json_array_size(list);

	if (list == NULL)
		return 0;
	if (!json_is_array(list) || n == 0 || n > BNDL_MEMBERS_MAX ||
	    !json_is_string(json_array_get(list, 0)) ||
	    strcmp(json_string_value(json_array_get(list, 0)), BNDL_MANIFEST_JSON) != 0 ||
	    json_object_size(r->seen) != 1)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(list, i);

		if (!json_is_string(v))
			goto bad;
		for (size_t j = 0; j < i; j++)
			if (strcmp(json_string_value(json_array_get(list, j)),
				   json_string_value(v)) == 0)
				goto bad;
	}
	r->listed = list;
	return 0;
bad:
	return repro_err_set(err, EPROTO,
			     "'%s' is not a repro bundle: manifest.json \"members\" is not the "
			     "list of its members, manifest.json first",
			     r->path);
}

static int load_manifest(struct bndl_reader *r, struct repro_err **err)
{
	cleanup_free char *text = NULL;
	cleanup_json json_t *m = NULL;
	json_error_t jerr;
	size_t len = 0;

	text = read_small_member(r, BNDL_MANIFEST_JSON, BNDL_MANIFEST_MAX, &len, err);
	if (text == NULL)
		return -1;
	if (check_parse(r, BNDL_MANIFEST_JSON, 0, text, len, err) < 0)
		return -1;
	m = json_loadb(text, len, 0, &jerr);
	if (check_memory(r, BNDL_MANIFEST_JSON, 0, m == NULL ? &jerr : NULL, err) < 0)
		return -1;
	if (m == NULL)
		return repro_err_set(err, EPROTO,
				     "'%s' is not a repro bundle: manifest.json line %d: %s",
				     r->path, jerr.line, jerr.text);
	if (!json_is_object(m))
		return repro_err_set(
			err, EPROTO,
			"'%s' is not a repro bundle: manifest.json is not a JSON object", r->path);
	if (check_manifest(r, m, err) < 0 ||
	    check_members(r, json_object_get(m, "members"), err) < 0)
		return -1;
	r->manifest = steal_ptr(&m);
	return 0;
}

void bndl_reader_free(struct bndl_reader *r)
{
	if (r == NULL)
		return;
	stream_close(r);
	json_decref(r->all);
	json_decref(r->manifest);
	free(r->raw);
	free(r->path);
	free(r);
}

struct bndl_reader *bndl_reader_open_limited(const char *path, const struct bndl_limits *lim,
					     struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = repro_xcalloc(1, sizeof(*r));

	r->fd = -1;
	r->raw = repro_xmalloc(CHUNK_SIZE);
	r->path = repro_xstrdup(path);
	if (lim != NULL)
		r->lim = *lim;
	if (r->lim.max_read == 0)
		r->lim.max_read = BNDL_READ_DEFAULT;
	if (r->lim.max_memory == 0)
		r->lim.max_memory = BNDL_MEMORY_DEFAULT;
	if (stream_open(r, err) < 0 || load_manifest(r, err) < 0)
		return NULL;
	return steal_ptr(&r);
}

struct bndl_reader *bndl_reader_open(const char *path, struct repro_err **err)
{
	return bndl_reader_open_limited(path, NULL, err);
}

json_t *bndl_reader_manifest(const struct bndl_reader *r)
{
	return r->manifest;
}

void bndl_reader_charge(struct bndl_reader *r, size_t bytes)
{
	if (r != NULL)
		r->kept += bytes;
}

unsigned bndl_reader_passes(const struct bndl_reader *r)
{
	return r->passes;
}

int bndl_reader_finish(struct bndl_reader *r, struct repro_err **err)
{
	int rc;

	while ((rc = next_header(r, err)) > 0)
		;
	if (rc < 0)
		return -1;
	if (r->listed != NULL && json_object_size(r->seen) != json_array_size(r->listed))
		return repro_err_set(err, EPROTO,
				     "'%s' is truncated: manifest.json lists %zu members, the "
				     "archive has %zu",
				     r->path, json_array_size(r->listed),
				     json_object_size(r->seen));
	return 0;
}

/* ---- .jsonl streaming ---- */

static int line_error(const struct bndl_reader *r, const char *member, size_t lineno,
		      const char *what, struct repro_err **err)
{
	return repro_err_set(err, EPROTO, "cannot read bundle '%s': %s line %zu: %s", r->path,
			     member, lineno, what);
}

static int line_append(struct line_buf *lb, const char *data, size_t len)
{
	if (len > BNDL_LINE_MAX - lb->len)
		return -1;
	if (lb->len + len > lb->cap) {
		size_t cap = lb->cap ? lb->cap : 4096;

		while (cap < lb->len + len)
			cap *= 2;
		if (cap > BNDL_LINE_MAX)
			cap = BNDL_LINE_MAX;
		lb->buf = repro_xrealloc(lb->buf, cap);
		lb->cap = cap;
	}
	if (len > 0)
		memcpy(lb->buf + lb->len, data, len);
	lb->len += len;
	return 0;
}

/* Who gets each line: fn with the parsed object, or filter first with the raw bytes. */
struct line_sink {
	bndl_line_fn fn;
	bndl_raw_fn filter; /* NULL: every line is parsed */
	void *ctx;
};

static int command_check(struct bndl_reader *r, json_t *first, size_t lineno,
			 struct repro_err **err);

/*
 * Parse one complete line and hand it to the sink; an empty line is
 * skipped.  The first record of processes.jsonl is parsed and checked
 * against the manifest whatever the filter says.
 */
static int line_emit(struct bndl_reader *r, const char *member, struct line_buf *lb, size_t lineno,
		     const struct line_sink *sink, struct repro_err **err)
{
	cleanup_json json_t *obj = NULL;
	json_error_t jerr;
	size_t len = lb->len;
	bool is_first = !r->command_checked && strcmp(member, BNDL_PROCESSES_JSONL) == 0;
	int want;

	lb->len = 0;
	if (len == 0)
		return 0;
	want = sink->filter != NULL ? sink->filter(sink->ctx, lb->buf, len, lineno) : 1;
	if (want <= 0 && !is_first)
		return want < 0 ? 1 : 0;
	if (check_parse(r, member, lineno, lb->buf, len, err) < 0)
		return -1;
	obj = json_loadb(lb->buf, len, 0, &jerr);
	if (check_memory(r, member, lineno, obj == NULL ? &jerr : NULL, err) < 0)
		return -1;
	if (obj == NULL)
		return line_error(r, member, lineno, jerr.text, err);
	if (!json_is_object(obj))
		return line_error(r, member, lineno, "not a JSON object", err);
	if (is_first && command_check(r, obj, lineno, err) < 0)
		return -1;
	if (want <= 0)
		return want < 0 ? 1 : 0;
	if (sink->fn(sink->ctx, obj, lineno, err) < 0)
		return -1;
	json_decref(steal_ptr(&obj));
	/* what the command keeps of the line counts too */
	return check_memory(r, member, lineno, NULL, err);
}

/* Split one block of data into lines; *lineno counts the lines completed so far. */
static int feed_block(struct bndl_reader *r, const char *member, struct line_buf *lb,
		      const char *data, size_t len, size_t *lineno, const struct line_sink *sink,
		      struct repro_err **err)
{
	while (len > 0) {
		const char *nl = memchr(data, '\n', len);
		size_t n = nl != NULL ? (size_t)(nl - data) : len;
		int rc;

		if (line_append(lb, data, n) < 0)
			return line_error(r, member, *lineno + 1, "line longer than 64 MiB", err);
		if (nl == NULL)
			return 0;
		++*lineno;
		if ((rc = line_emit(r, member, lb, *lineno, sink, err)) != 0)
			return rc;
		data += n + 1;
		len -= n + 1;
	}
	return 0;
}

static int foreach_sink(struct bndl_reader *r, const char *member, const struct line_sink *sink,
			struct repro_err **err)
{
	cleanup_free char *chunk = repro_xmalloc(CHUNK_SIZE);
	cleanup_line_buf struct line_buf lb = { 0 };
	size_t lineno = 0;
	la_ssize_t n;
	int rc;

	if (member_require(r, member, err) < 0)
		return -1;
	while ((n = member_read(r, chunk, CHUNK_SIZE, err)) > 0) {
		if ((rc = feed_block(r, member, &lb, chunk, (size_t)n, &lineno, sink, err)) != 0)
			return rc < 0 ? -1 : 0;
	}
	if (n < 0)
		return -1;
	/* a last line without its newline */
	return line_emit(r, member, &lb, lineno + 1, sink, err) < 0 ? -1 : 0;
}

int bndl_reader_foreach(struct bndl_reader *r, const char *member, bndl_line_fn fn, void *ctx,
			struct repro_err **err)
{
	struct line_sink sink = { .fn = fn, .ctx = ctx };

	return foreach_sink(r, member, &sink, err);
}

int bndl_reader_foreach_opt(struct bndl_reader *r, const char *member, bndl_line_fn fn, void *ctx,
			    struct repro_err **err)
{
	int has = bndl_reader_has(r, member, err);

	if (has <= 0)
		return has;
	return bndl_reader_foreach(r, member, fn, ctx, err) < 0 ? -1 : 1;
}

int bndl_reader_load_opt(struct bndl_reader *r, const char *member, json_t **out,
			 struct repro_err **err)
{
	int has = bndl_reader_has(r, member, err);
	json_t *obj = NULL;

	if (has < 0)
		return -1;
	if (has > 0 && (obj = bndl_reader_load(r, member, err)) == NULL)
		return -1;
	*out = obj;
	return 0;
}

int bndl_reader_foreach_filtered(struct bndl_reader *r, const char *member, bndl_raw_fn filter,
				 bndl_line_fn fn, void *ctx, struct repro_err **err)
{
	struct line_sink sink = { .fn = fn, .filter = filter, .ctx = ctx };

	return foreach_sink(r, member, &sink, err);
}

int bndl_reader_copy(struct bndl_reader *r, const char *member, FILE *out, struct repro_err **err)
{
	cleanup_free char *chunk = repro_xmalloc(CHUNK_SIZE);
	la_ssize_t n;

	if (member_require(r, member, err) < 0)
		return -1;
	size_t carry = 0; /* bytes of a UTF-8 sequence cut by the chunk, kept at its start */

	while ((n = member_read(r, chunk + carry, CHUNK_SIZE - carry, err)) > 0) {
		size_t have = carry + (size_t)n;
		/* a hostile bundle must not drive the terminal (common/term.h) */
		size_t done = repro_term_write(out, chunk, have, true, true);

		carry = have - done;
		memmove(chunk, chunk + done, carry);
		if (ferror(out))
			return repro_err_set(err, errno ? errno : EIO, "cannot write %s", member);
	}
	if (n == 0 && carry > 0)
		(void)repro_term_write(out, chunk, carry, true, false);
	return n < 0 ? -1 : 0;
}

/* ---- the command (docs/bundle-format.md "manifest.json") ---- */

/*
 * word names the program argv0 names: it is argv0, or, for an argv0
 * without '/', the path a PATH search found ("DIR/argv0").
 */
static bool names_program(const char *word, const char *argv0)
{
	size_t wl = strlen(word), al = strlen(argv0);

	if (strcmp(word, argv0) == 0)
		return true;
	return al > 0 && strchr(argv0, '/') == NULL && wl > al && word[wl - al - 1] == '/' &&
	       strcmp(word + wl - al, argv0) == 0;
}

/*
 * exec_argv (an exec's "argv") is argv as run: the same words, or an
 * interpreter and at most one argument of it before the program's path
 * and argv[1..].  That is how the kernel runs a "#!" script (what
 * /proc/PID/cmdline shows when the execve entry was not traced:
 * execve(2) "Interpreter scripts") and how the launcher runs a file
 * that execve refused with ENOEXEC ("/bin/sh" PATH ARG..., as execvp(3)).
 */
static bool same_command(json_t *argv, json_t *exec_argv)
{
	size_t n = json_array_size(argv), m = json_array_size(exec_argv);
	const char *argv0 = json_string_value(json_array_get(argv, 0));

	if (json_equal(argv, exec_argv))
		return true;
	if (argv0 == NULL || !json_is_array(exec_argv))
		return false;
	for (size_t skip = 1; skip <= 2; skip++) {
		const char *prog = json_string_value(json_array_get(exec_argv, skip));
		size_t i = 0;

		if (m != n + skip || prog == NULL || !names_program(prog, argv0))
			continue;
		while (i < skip && json_is_string(json_array_get(exec_argv, i)))
			i++;
		if (i < skip)
			continue;
		for (i = 1; i < n; i++)
			if (!json_equal(json_array_get(argv, i),
					json_array_get(exec_argv, i + skip)))
				break;
		if (i == n)
			return true;
	}
	return false;
}

/*
 * The first record of processes.jsonl (line lineno) against manifest.json
 * "argv": replay runs the one, explain and show name the other, so they
 * must be one command.  Either side absent (a command that could not be
 * executed has no exec) passes.
 */
static int command_check(struct bndl_reader *r, json_t *first, size_t lineno,
			 struct repro_err **err)
{
	json_t *argv = json_object_get(r->manifest, "argv");
	json_t *exec = json_array_get(json_object_get(first, "execs"), 0);
	json_t *exec_argv = json_object_get(exec, "argv");

	r->command_checked = true;
	if (argv == NULL || json_is_null(argv) || exec_argv == NULL || json_is_null(exec_argv) ||
	    same_command(argv, exec_argv))
		return 0;
	return repro_err_set(err, EPROTO,
			     "'%s' is not a consistent repro bundle: manifest.json \"argv\" is not "
			     "the first process's first exec (processes.jsonl line %zu)",
			     r->path, lineno);
}

/* Filter and line function of command_check_member(): line_emit() checks, then it stops. */
static int stop_at_first(void *ctx, const char *line, size_t len, size_t lineno)
{
	(void)ctx;
	(void)line;
	(void)len;
	(void)lineno;
	return -1;
}

static int no_line(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	(void)ctx;
	(void)obj;
	(void)lineno;
	(void)err;
	return 0;
}

/* Read processes.jsonl (the current member or ahead) up to its first record, to check it. */
static int command_check_member(struct bndl_reader *r, struct repro_err **err)
{
	struct line_sink sink = { .fn = no_line, .filter = stop_at_first };

	if (foreach_sink(r, BNDL_PROCESSES_JSONL, &sink, err) < 0)
		return -1;
	r->command_checked = true; /* also when it holds no record */
	return 0;
}

int bndl_reader_check_command(struct bndl_reader *r, struct repro_err **err)
{
	int has;

	if (r->command_checked)
		return 0;
	if ((has = bndl_reader_has(r, BNDL_PROCESSES_JSONL, err)) <= 0)
		return has;
	return command_check_member(r, err);
}
