/*
 * ustar + zstd writer (bundles/tarzst.h).
 */
#include "bundles/tarzst.h"
#include "bundles/tarzst_internal.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define BLOCK 512u
/* the largest size a ustar header's 11 octal digits hold */
#define USTAR_SIZE_MAX 077777777777ull
#define ZSTD_LEVEL 1

struct bndl_tarzst {
	uint64_t ustar_max; /* sizes above this get a pax header (USTAR_SIZE_MAX; tests lower it) */
	int fd; /* borrowed */
	const char *what; /* borrowed */
	ZSTD_CCtx *cctx;
	void *out; /* the compressed bytes waiting for write(2) */
	size_t out_cap;
	uint64_t left; /* bytes of the current member still to come */
	uint64_t size; /* the current member's size, for its padding */
	unsigned pax_seq; /* pax extended headers written, for their names */
};

/* All of buf to the fd, through short writes and EINTR. */
static int write_all(struct bndl_tarzst *w, const char *buf, size_t len, struct repro_err **err)
{
	while (len > 0) {
		ssize_t n = write(w->fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return repro_err_set(err, n < 0 ? errno : EIO, "cannot write '%s'",
					     w->what);
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Compress len bytes (or end the frame with ZSTD_e_end) and write what comes out. */
static int feed(struct bndl_tarzst *w, const void *data, size_t len, ZSTD_EndDirective mode,
		struct repro_err **err)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { w->out, w->out_cap, 0 };

		left = ZSTD_compressStream2(w->cctx, &out, &in, mode);
		if (ZSTD_isError(left))
			return repro_err_set(err, EIO, "cannot write '%s': zstd: %s", w->what,
					     ZSTD_getErrorName(left));
		if (write_all(w, w->out, out.pos, err) < 0)
			return -1;
	} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

struct bndl_tarzst *bndl_tarzst_open(int fd, const char *what, struct repro_err **err)
{
	struct bndl_tarzst *w = repro_xcalloc(1, sizeof(*w));

	w->fd = fd;
	w->what = what;
	w->ustar_max = USTAR_SIZE_MAX;
	w->cctx = ZSTD_createCCtx();
	w->out_cap = ZSTD_CStreamOutSize();
	w->out = repro_xmalloc(w->out_cap);
	if (w->cctx == NULL ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1))) {
		bndl_tarzst_free(w);
		repro_err_set(err, ENOMEM, "cannot write '%s': zstd", what);
		return NULL;
	}
	return w;
}

/* An octal field of width bytes: digits, then a NUL (ustar). */
static void put_octal(char *field, size_t width, uint64_t v)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%0*" PRIo64, (int)(width - 1), v);
	memcpy(field, tmp, width - 1);
	field[width - 1] = '\0';
}

/*
 * One ustar header block (pax(1), "ustar Interchange Format"): name, mode,
 * uid, gid, size, mtime, chksum, typeflag, linkname, magic, version …;
 * the checksum is the sum of the block's bytes with its own field as spaces.
 */
static void ustar_header(char block[BLOCK], const char *name, uint64_t size, time_t mtime,
			 char type)
{
	unsigned sum = 0;

	memset(block, 0, BLOCK);
	memcpy(block, name, strlen(name));
	put_octal(block + 100, 8, 0644);
	put_octal(block + 108, 8, 0);
	put_octal(block + 116, 8, 0);
	put_octal(block + 124, 12, size);
	put_octal(block + 136, 12, mtime > 0 ? (uint64_t)mtime : 0);
	memset(block + 148, ' ', 8);
	block[156] = type;
	memcpy(block + 257, "ustar", 6);
	memcpy(block + 263, "00", 2);
	for (unsigned i = 0; i < BLOCK; i++)
		sum += (unsigned char)block[i];
	snprintf(block + 148, 8, "%06o", sum & 0777777u);
	block[155] = ' ';
}

/* Zeros up to the next block boundary after n bytes. */
static int pad(struct bndl_tarzst *w, uint64_t n, struct repro_err **err)
{
	static const char zeros[BLOCK];
	size_t rem = (size_t)(n % BLOCK);

	return rem == 0 ? 0 : feed(w, zeros, BLOCK - rem, ZSTD_e_continue, err);
}

/*
 * A pax extended header ('x') giving the size of the member after it, for
 * a size past the ustar field (8 GiB): the record "LEN size=N\n", LEN
 * counting itself.
 */
static int pax_size(struct bndl_tarzst *w, uint64_t size, time_t mtime, struct repro_err **err)
{
	char rec[64], name[32], block[BLOCK];
	int len, n = 0;

	for (len = 20;; len = n) {
		n = snprintf(rec, sizeof(rec), "%d size=%" PRIu64 "\n", len, size);
		if (n == len)
			break;
	}
	snprintf(name, sizeof(name), "PaxHeaders/%u", w->pax_seq++);
	ustar_header(block, name, (uint64_t)len, mtime, 'x');
	if (feed(w, block, BLOCK, ZSTD_e_continue, err) < 0 ||
	    feed(w, rec, (size_t)len, ZSTD_e_continue, err) < 0)
		return -1;
	return pad(w, (uint64_t)len, err);
}

int bndl_tarzst_member(struct bndl_tarzst *w, const char *name, uint64_t size, time_t mtime,
		       struct repro_err **err)
{
	char block[BLOCK];
	size_t len = strlen(name);

	if (len == 0 || len > 100 || name[0] == '/')
		return repro_err_set(err, EINVAL, "cannot write '%s': bad member name '%s'",
				     w->what, name);
	if (w->left != 0)
		return repro_err_set(err, EINVAL, "cannot write '%s': a member is incomplete",
				     w->what);
	if (pad(w, w->size, err) < 0)
		return -1;
	if (size > w->ustar_max && pax_size(w, size, mtime, err) < 0)
		return -1;
	/* past the field, the pax record's size is the one readers take */
	ustar_header(block, name, size > USTAR_SIZE_MAX ? 0 : size, mtime, '0');
	if (feed(w, block, BLOCK, ZSTD_e_continue, err) < 0)
		return -1;
	w->size = size;
	w->left = size;
	return 0;
}

int bndl_tarzst_write(struct bndl_tarzst *w, const void *data, size_t len, struct repro_err **err)
{
	if (len > w->left)
		return repro_err_set(err, EINVAL, "cannot write '%s': a member grew past its size",
				     w->what);
	w->left -= len;
	return feed(w, data, len, ZSTD_e_continue, err);
}

int bndl_tarzst_close(struct bndl_tarzst *w, struct repro_err **err)
{
	static const char end[2 * BLOCK];

	if (w->left != 0)
		return repro_err_set(err, EINVAL, "cannot write '%s': a member is incomplete",
				     w->what);
	if (pad(w, w->size, err) < 0 || feed(w, end, sizeof(end), ZSTD_e_continue, err) < 0)
		return -1;
	w->size = 0;
	return feed(w, NULL, 0, ZSTD_e_end, err);
}

void bndl_tarzst_free(struct bndl_tarzst *w)
{
	if (w == NULL)
		return;
	ZSTD_freeCCtx(w->cctx);
	free(w->out);
	free(w);
}

void bndl_tarzst_set_ustar_max(struct bndl_tarzst *w, uint64_t max)
{
	w->ustar_max = max;
}
