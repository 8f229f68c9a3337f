#include "recorder/output.h"
#include "launcher/abi.h"
#include "launcher/mem.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

/* pid -> ring, two levels deep as the recorder's captures: pid_max is at most 2^22 (proc(5)). */
#define PAGE_BITS 12
#define PAGES (1u << (22 - PAGE_BITS))

struct outproc {
	struct rec_outring ring;
	unsigned fds; /* enum bndl_output_fd */
	uint64_t t_ns; /* entry of the last kept write */
};

struct rec_output {
	struct outproc **pages[PAGES];
	uint32_t scan; /* where rec_output_next_pid() goes on */
	char bytes[REC_OUTPUT_KEEP]; /* a call's bytes, then a record's blob */
	struct iovec iov[REC_OUTPUT_IOV_MAX];
};

void rec_outring_append(struct rec_outring *ring, const void *data, size_t len)
{
	const char *p = data;

	ring->total += len;
	if (len > REC_OUTPUT_KEEP) {
		p += len - REC_OUTPUT_KEEP;
		len = REC_OUTPUT_KEEP;
	}
	while (len > 0) {
		size_t n = REC_OUTPUT_KEEP - ring->head;

		if (n > len)
			n = len;
		memcpy(ring->buf + ring->head, p, n);
		ring->head = (ring->head + n) % REC_OUTPUT_KEEP;
		ring->kept = ring->kept + n < REC_OUTPUT_KEEP ? ring->kept + n : REC_OUTPUT_KEEP;
		p += n;
		len -= n;
	}
}

void rec_outring_skip(struct rec_outring *ring, uint64_t len)
{
	ring->total += len;
}

bool rec_outring_is_cut(const struct rec_outring *ring)
{
	return ring->total > ring->kept;
}

size_t rec_outring_copy(const struct rec_outring *ring, char *out)
{
	size_t start = (ring->head + REC_OUTPUT_KEEP - ring->kept) % REC_OUTPUT_KEEP;
	size_t first = REC_OUTPUT_KEEP - start < ring->kept ? REC_OUTPUT_KEEP - start : ring->kept;

	memcpy(out, ring->buf + start, first);
	memcpy(out + first, ring->buf, ring->kept - first);
	return ring->kept;
}

struct rec_output *rec_output_new(void)
{
	return repro_xcalloc(1, sizeof(struct rec_output));
}

void rec_output_free(struct rec_output *o)
{
	if (o == NULL)
		return;
	for (uint32_t hi = 0; hi < PAGES; hi++) {
		for (uint32_t lo = 0; o->pages[hi] != NULL && lo < (1u << PAGE_BITS); lo++)
			free(o->pages[hi][lo]);
		free(o->pages[hi]);
	}
	free(o);
}

static struct outproc **slot_of(struct rec_output *o, pid_t pid, bool create)
{
	uint32_t p = (uint32_t)pid, hi = p >> PAGE_BITS;

	if (pid <= 0 || hi >= PAGES)
		return NULL;
	if (o->pages[hi] == NULL) {
		if (!create)
			return NULL;
		o->pages[hi] = repro_xcalloc(1u << PAGE_BITS, sizeof(struct outproc *));
	}
	return &o->pages[hi][p & ((1u << PAGE_BITS) - 1)];
}

/* The file fd of tid names, as st_dev and st_ino; false when it has none. */
static bool fd_identity(pid_t tid, int fd, struct stat *sb)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, fd);
	return stat(path, sb) == 0;
}

/*
 * /dev/null (devices.txt: char 1:3): a shell's `cmd 2>/dev/null`.  What the
 * program said there is kept all the same, marked as discarded: nobody read
 * it, but it is the program's own account of what went wrong.
 */
static bool is_dev_null(const struct stat *sb)
{
	return S_ISCHR(sb->st_mode) && major(sb->st_rdev) == 1 && minor(sb->st_rdev) == 3;
}

unsigned rec_output_wants(const struct lnch_stop *st)
{
	struct stat out, err;
	unsigned null;

	if (st->args[0] != 1 && st->args[0] != 2)
		return 0;
	/* dup2(2) is not traced: look each time (one stat for stderr, two for stdout) */
	if (!fd_identity(st->tid, 2, &err))
		return 0;
	null = is_dev_null(&err) ? BNDL_OUTPUT_DISCARDED : 0;
	if (st->args[0] == 2)
		return BNDL_OUTPUT_STDERR | null;
	if (fd_identity(st->tid, 1, &out) && out.st_dev == err.st_dev && out.st_ino == err.st_ino)
		return BNDL_OUTPUT_STDOUT | null;
	return 0;
}

/* Read [addr, addr + len) of tid into ring, or count it when it cannot be read. */
static void keep(struct rec_output *o, struct outproc *p, pid_t tid, uint64_t addr, size_t len)
{
	if (lnch_mem_read(tid, addr, o->bytes, len) == 0)
		rec_outring_append(&p->ring, o->bytes, len);
	else
		rec_outring_skip(&p->ring, len);
}

/* Bytes a writev asks to write: the sum of its iovecs' lengths (at most REC_OUTPUT_IOV_MAX). */
static bool iov_total(struct rec_output *o, pid_t tid, const uint64_t args[6], uint64_t *n,
		      uint64_t *total)
{
	*n = args[2] < REC_OUTPUT_IOV_MAX ? args[2] : REC_OUTPUT_IOV_MAX;
	*total = 0;
	if (*n == 0 || lnch_mem_read(tid, args[1], o->iov, (size_t)*n * sizeof(struct iovec)) < 0)
		return false;
	for (uint64_t i = 0; i < *n; i++)
		*total += o->iov[i].iov_len;
	return true;
}

/* The last `want` of the `done` bytes a writev asks to write, from the iovecs iov_total() read. */
static void keep_iov(struct rec_output *o, struct outproc *p, pid_t tid, uint64_t n, uint64_t done,
		     size_t want)
{
	uint64_t off = 0, from = done - want;

	rec_outring_skip(&p->ring, from);
	for (uint64_t i = 0; i < n && off < done; i++) {
		uint64_t len = o->iov[i].iov_len, lo = off, hi = off + len;

		off = hi;
		if (hi <= from)
			continue;
		if (lo < from)
			lo = from;
		keep(o, p, tid, (uint64_t)(uintptr_t)o->iov[i].iov_base + (lo - (off - len)),
		     (size_t)(hi - lo));
	}
}

void rec_output_entry(struct rec_output *o, const struct lnch_stop *st, unsigned fds,
		      bool is_writev)
{
	struct outproc **slot;
	struct outproc *p;
	uint64_t done = st->args[2], n = 0;
	size_t want;

	if (is_writev && lnch_arch_is_compat(st->arch))
		return; /* a 32-bit struct iovec: not read */
	if (is_writev && !iov_total(o, st->tid, st->args, &n, &done))
		return; /* the kernel fails it with EFAULT too */
	if (done == 0 || (slot = slot_of(o, st->pid, true)) == NULL)
		return;
	if (*slot == NULL)
		*slot = repro_xcalloc(1, sizeof(**slot));
	p = *slot;
	p->fds |= fds;
	p->t_ns = st->t_ns;
	want = done < REC_OUTPUT_KEEP ? (size_t)done : REC_OUTPUT_KEEP;
	if (is_writev) {
		keep_iov(o, p, st->tid, n, done, want);
	} else {
		rec_outring_skip(&p->ring, done - want);
		keep(o, p, st->tid, st->args[1] + (done - want), want);
	}
}

bool rec_output_take(struct rec_output *o, pid_t pid, struct bndl_event *ev)
{
	struct outproc **slot = slot_of(o, pid, false);
	struct outproc *p;
	size_t len;

	if (slot == NULL || *slot == NULL)
		return false;
	p = *slot;
	len = rec_outring_copy(&p->ring, o->bytes);
	*ev = (struct bndl_event){
		.type = BNDL_REC_OUTPUT,
		.t_ns = p->t_ns,
		.pid = pid,
		.tid = pid,
		.args = { p->fds, p->ring.total },
		.nblobs = 1,
	};
	ev->blobs[0] = (struct bndl_blob){
		.kind = (uint16_t)(BNDL_BLOB_OUT |
				   (rec_outring_is_cut(&p->ring) ? BNDL_BLOB_TRUNCATED : 0)),
		.argi = 0,
		.len = (uint32_t)len,
		.data = o->bytes,
	};
	free(p);
	*slot = NULL;
	return true;
}

pid_t rec_output_next_pid(struct rec_output *o)
{
	for (; o->scan < PAGES << PAGE_BITS; o->scan++) {
		uint32_t hi = o->scan >> PAGE_BITS;

		if (o->pages[hi] == NULL) {
			o->scan = (hi + 1) << PAGE_BITS;
			o->scan--; /* the loop's increment */
			continue;
		}
		if (o->pages[hi][o->scan & ((1u << PAGE_BITS) - 1)] != NULL)
			return (pid_t)o->scan;
	}
	return 0;
}
