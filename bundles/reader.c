#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sigabbrev_np, strcasestr, mkostemp, asprintf */
#endif

#include "bundles/reader.h"
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
};

/* One member opened for reading: its own fd and archive handle, positioned at its data. */
struct member {
	int fd;
	struct archive *a;
	const char *name; /* borrowed */
};

static void member_release(struct member *m)
{
	if (m->a != NULL)
		archive_read_free(m->a);
	if (m->fd >= 0)
		close(m->fd);
}
#define cleanup_member __attribute__((cleanup(member_release)))

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

/*
 * A libarchive failure while reading: a stream that ends early is
 * "truncated", anything else means the file is not a (valid) bundle.
 */
static int archive_fail(const struct bndl_reader *r, const struct member *m, struct repro_err **err)
{
	const char *what = archive_error_string(m->a);

	if (what == NULL)
		what = "unreadable archive";
	if (strcasestr(what, "truncat") != NULL || strcasestr(what, "premature") != NULL ||
	    strcasestr(what, "unexpected end") != NULL)
		return repro_err_set(err, EPROTO, "'%s' is truncated: %s", r->path, what);
	return repro_err_set(err, EPROTO, "'%s' is not a repro bundle: %s", r->path, what);
}

static int check_total(const struct bndl_reader *r, struct member *m, int64_t more,
		       struct repro_err **err)
{
	int64_t pos = archive_filter_bytes(m->a, 0);

	if (more < 0 || pos < 0 || (uint64_t)pos + (uint64_t)more > BNDL_TOTAL_MAX)
		return repro_err_set(err, EPROTO, "'%s' is larger than %llu bytes uncompressed",
				     r->path, (unsigned long long)BNDL_TOTAL_MAX);
	return 0;
}

static int member_start(const struct bndl_reader *r, struct member *m, struct repro_err **err)
{
	struct stat st;

	/* O_NONBLOCK: the open of a FIFO nobody writes to would block for ever (fifo(7)) */
	m->fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (m->fd < 0)
		return repro_err_set(err, errno, "cannot open bundle '%s'", r->path);
	if (fstat(m->fd, &st) < 0)
		return repro_err_set(err, errno, "cannot open bundle '%s'", r->path);
	if (S_ISDIR(st.st_mode))
		return repro_err_set(err, EISDIR, "cannot open bundle '%s'", r->path);
	/* members are found by reading the archive again: a pipe cannot be read twice */
	if (!S_ISREG(st.st_mode))
		return repro_err_set(err, EINVAL,
				     "cannot read a bundle from a pipe or device ('%s'): save it "
				     "to a file first",
				     r->path);
	if (fcntl(m->fd, F_SETFL, 0) < 0)
		return repro_err_set(err, errno, "cannot open bundle '%s'", r->path);
	m->a = archive_read_new();
	/*
	 * zstd only (and none): filter_all would let a hostile file make
	 * libarchive run external programs (lrzip, lzop) found in PATH.
	 */
	if (archive_read_support_filter_zstd(m->a) < ARCHIVE_WARN ||
	    archive_read_support_format_tar(m->a) < ARCHIVE_WARN ||
	    archive_read_open_fd(m->a, m->fd, CHUNK_SIZE) < ARCHIVE_WARN)
		return archive_fail(r, m, err);
	return 0;
}

/*
 * Open the bundle afresh and move to the regular-file member named exactly
 * name.  Returns 1 when found, 0 when the archive has no such member, -1
 * with *err.
 */
static int member_open(const struct bndl_reader *r, const char *name, struct member *m,
		       struct repro_err **err)
{
	struct archive_entry *e;
	int rc;

	m->name = name;
	if (member_start(r, m, err) < 0)
		return -1;
	/* ARCHIVE_RETRY (-10) is above ARCHIVE_WARN too: only OK and WARN go on */
	while ((rc = archive_read_next_header(m->a, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN ||
	       rc == ARCHIVE_EOF) {
		if (rc == ARCHIVE_EOF)
			return 0;
		if (check_total(r, m, archive_entry_size(e), err) < 0)
			return -1;
		if (archive_entry_filetype(e) == AE_IFREG && archive_entry_pathname(e) != NULL &&
		    strcmp(archive_entry_pathname(e), name) == 0)
			return 1;
		if (archive_read_data_skip(m->a) < ARCHIVE_WARN)
			return archive_fail(r, m, err);
	}
	if (rc == ARCHIVE_EOF)
		return 0;
	return archive_fail(r, m, err);
}

/* member_open() for a member the bundle must have: its absence is EPROTO. */
static int member_require(const struct bndl_reader *r, const char *name, struct member *m,
			  struct repro_err **err)
{
	int rc = member_open(r, name, m, err);

	if (rc == 0)
		return repro_err_set(err, EPROTO, "'%s' is not a repro bundle: no member '%s'",
				     r->path, name);
	return rc < 0 ? -1 : 0;
}

/* Next block of member data: returns its size, 0 at the end, -1 with *err. */
static la_ssize_t member_read(const struct bndl_reader *r, struct member *m, void *buf, size_t len,
			      struct repro_err **err)
{
	la_ssize_t n = archive_read_data(m->a, buf, len);

	if (n < 0)
		return archive_fail(r, m, err);
	if (check_total(r, m, 0, err) < 0)
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
static char *read_small_member(const struct bndl_reader *r, const char *name, size_t max,
			       size_t *len_out, struct repro_err **err)
{
	cleanup_member struct member m = { .fd = -1 };
	cleanup_free char *buf = NULL;
	size_t len = 0, cap = 0;
	la_ssize_t n;

	if (member_require(r, name, &m, err) < 0)
		return NULL;
	do {
		if (len == cap) {
			cap = cap == 0 ? CHUNK_SIZE : cap > (max + 1) / 2 ? max + 1 : 2 * cap;
			buf = repro_xrealloc(buf, cap);
		}
		n = member_read(r, &m, buf + len, cap - len, err);
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

static char *read_manifest_text(const struct bndl_reader *r, size_t *len_out,
				struct repro_err **err)
{
	return read_small_member(r, "manifest.json", BNDL_MANIFEST_MAX, len_out, err);
}

int bndl_reader_has(struct bndl_reader *r, const char *member, struct repro_err **err)
{
	cleanup_member struct member m = { .fd = -1 };

	return member_open(r, member, &m, err);
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
	o = json_loadb(text, len, 0, &jerr);
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

static int load_manifest(struct bndl_reader *r, struct repro_err **err)
{
	cleanup_free char *text = NULL;
	cleanup_json json_t *m = NULL;
	json_error_t jerr;
	size_t len = 0;

	text = read_manifest_text(r, &len, err);
	if (text == NULL)
		return -1;
	m = json_loadb(text, len, 0, &jerr);
	if (m == NULL)
		return repro_err_set(err, EPROTO,
				     "'%s' is not a repro bundle: manifest.json line %d: %s",
				     r->path, jerr.line, jerr.text);
	if (!json_is_object(m))
		return repro_err_set(
			err, EPROTO,
			"'%s' is not a repro bundle: manifest.json is not a JSON object", r->path);
	if (check_manifest(r, m, err) < 0)
		return -1;
	r->manifest = steal_ptr(&m);
	return 0;
}

void bndl_reader_free(struct bndl_reader *r)
{
	if (r == NULL)
		return;
	json_decref(r->manifest);
	free(r->path);
	free(r);
}

struct bndl_reader *bndl_reader_open(const char *path, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = repro_xcalloc(1, sizeof(*r));

	r->path = repro_xstrdup(path);
	if (load_manifest(r, err) < 0)
		return NULL;
	return steal_ptr(&r);
}

json_t *bndl_reader_manifest(const struct bndl_reader *r)
{
	return r->manifest;
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

/* Parse one complete line and hand it to the sink; an empty line is skipped. */
static int line_emit(const struct bndl_reader *r, const char *member, struct line_buf *lb,
		     size_t lineno, const struct line_sink *sink, struct repro_err **err)
{
	cleanup_json json_t *obj = NULL;
	json_error_t jerr;
	size_t len = lb->len;
	int want;

	lb->len = 0;
	if (len == 0)
		return 0;
	if (sink->filter != NULL && (want = sink->filter(sink->ctx, lb->buf, len, lineno)) <= 0)
		return want < 0 ? 1 : 0;
	obj = json_loadb(lb->buf, len, 0, &jerr);
	if (obj == NULL)
		return line_error(r, member, lineno, jerr.text, err);
	if (!json_is_object(obj))
		return line_error(r, member, lineno, "not a JSON object", err);
	return sink->fn(sink->ctx, obj, lineno, err);
}

/* Split one block of data into lines; *lineno counts the lines completed so far. */
static int feed_block(const struct bndl_reader *r, const char *member, struct line_buf *lb,
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
	cleanup_member struct member m = { .fd = -1 };
	cleanup_free char *chunk = repro_xmalloc(CHUNK_SIZE);
	cleanup_line_buf struct line_buf lb = { 0 };
	size_t lineno = 0;
	la_ssize_t n;
	int rc;

	if (member_require(r, member, &m, err) < 0)
		return -1;
	while ((n = member_read(r, &m, chunk, CHUNK_SIZE, err)) > 0) {
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

int bndl_reader_foreach_filtered(struct bndl_reader *r, const char *member, bndl_raw_fn filter,
				 bndl_line_fn fn, void *ctx, struct repro_err **err)
{
	struct line_sink sink = { .fn = fn, .filter = filter, .ctx = ctx };

	return foreach_sink(r, member, &sink, err);
}

int bndl_reader_copy(struct bndl_reader *r, const char *member, FILE *out, struct repro_err **err)
{
	cleanup_member struct member m = { .fd = -1 };
	cleanup_free char *chunk = repro_xmalloc(CHUNK_SIZE);
	la_ssize_t n;

	if (member_require(r, member, &m, err) < 0)
		return -1;
	size_t carry = 0; /* bytes of a UTF-8 sequence cut by the chunk, kept at its start */

	while ((n = member_read(r, &m, chunk + carry, CHUNK_SIZE - carry, err)) > 0) {
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
