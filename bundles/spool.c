#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sigabbrev_np, strcasestr, mkostemp, asprintf */
#endif

#include "bundles/spool.h"
#include "bundles/members.h"
#include "bundles/spool_internal.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SPOOL_BUF_SIZE (256u * 1024u)
#define SPOOL_FLUSH_NS (100ull * 1000 * 1000)

struct bndl_spool {
	int fd;
	char *path;
	char *reserve_path; /* DIR/reserve */
	int reserve_fd; /* -1: no reserve (none could be had, or it is closed) */
	off_t reserve_used; /* bytes of the reserve written, its file header included */
	bool in_reserve; /* the filesystem filled: records go into the reserve */
	unsigned char *buf; /* SPOOL_BUF_SIZE bytes */
	size_t used;
	uint64_t count;
	off_t committed; /* file size up to the last whole record written */
	uint64_t last_flush_ns;
	struct bndl_spool_drops drops; /* drops.errnum != 0: the filesystem filled */
	bool needs_marker; /* the BNDL_REC_DROPPED record is still to be buffered */
	bool lost_end; /* the BNDL_REC_END record did not fit either */
	struct bndl_event *lost; /* the process records dropped (fixed part only) */
	size_t nlost, lost_cap;
};

struct bndl_spool_reader {
	FILE *f;
	char *path;
	char *reserve_path; /* DIR/reserve, where a spool that filled goes on */
	bool in_reserve;
	unsigned char *rec; /* body of the current record */
	size_t rec_cap;
	uint64_t nread;
	bool is_truncated;
	uint64_t main_size; /* bytes of events.spool when opened */
};

static const unsigned char zero_pad[8];

static void event_from_fixed(const struct bndl_event_fixed *fx, uint16_t type,
			     struct bndl_event *ev);

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool bndl_is_disk_full(int errnum)
{
	return errnum == ENOSPC || errnum == EDQUOT;
}

/*
 * Done with the reserve: cut it to the records it holds (the rest of its
 * room is freed), or remove it when the filesystem never filled.
 */
static void reserve_close(struct bndl_spool *sp)
{
	if (sp->reserve_fd < 0)
		return;
	if (sp->in_reserve)
		(void)ftruncate(sp->reserve_fd, sp->reserve_used);
	else
		(void)unlink(sp->reserve_path);
	close(sp->reserve_fd);
	sp->reserve_fd = -1;
}

static void spool_free(struct bndl_spool *sp)
{
	if (sp == NULL)
		return;
	if (sp->fd >= 0)
		close(sp->fd);
	reserve_close(sp);
	free(sp->path);
	free(sp->reserve_path);
	free(sp->buf);
	free(sp->lost);
	free(sp);
}

static inline void cleanup_spool_fn(struct bndl_spool **sp)
{
	spool_free(*sp);
}
#define cleanup_spool __attribute__((cleanup(cleanup_spool_fn)))

/*
 * DIR/reserve of BNDL_SPOOL_RESERVE_SIZE allocated bytes, open for writing,
 * or -1 when it cannot be had (a filesystem already too full: then there is
 * no reserve).  Writing into blocks already allocated needs no more room,
 * so what the program does to the disk later cannot take it (posix_fallocate(3)
 * writes the blocks itself where the filesystem has no fallocate(2); a
 * copy-on-write filesystem does not promise even that).
 */
static int reserve_create(const char *path)
{
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (posix_fallocate(fd, 0, BNDL_SPOOL_RESERVE_SIZE) != 0) {
		(void)unlink(path);
		return -1;
	}
	return steal_fd(&fd);
}

static void file_hdr(struct bndl_spool_file_hdr *hdr)
{
	*hdr = (struct bndl_spool_file_hdr){ .version = BNDL_SPOOL_VERSION };
	memcpy(hdr->magic, BNDL_SPOOL_MAGIC, sizeof(hdr->magic));
}

struct bndl_spool *bndl_spool_open(const char *dir, struct repro_err **err)
{
	cleanup_spool struct bndl_spool *sp = repro_xcalloc(1, sizeof(*sp));
	struct bndl_spool_file_hdr hdr;

	sp->fd = -1;
	sp->reserve_fd = -1;
	sp->path = repro_path_join(dir, BNDL_SPOOL_FILE);
	sp->reserve_path = repro_path_join(dir, BNDL_SPOOL_RESERVE);
	sp->fd = open(sp->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (sp->fd < 0)
		return repro_err_set(err, errno, "cannot create spool '%s'", sp->path), NULL;
	file_hdr(&hdr);
	/* The header goes out at once, so that even an empty spool is recognisable. */
	if (repro_write_all(sp->fd, &hdr, sizeof(hdr), sp->path, err) < 0)
		return NULL;
	sp->committed = sizeof(hdr);
	sp->reserve_fd = reserve_create(sp->reserve_path);
	sp->buf = repro_xmalloc(SPOOL_BUF_SIZE);
	sp->last_flush_ns = monotonic_ns();
	return steal_ptr(&sp);
}

/*
 * Undo a partly written record or buffer: a short write (ENOSPC half way)
 * would otherwise leave a torn record that hides every later one.
 */
static void spool_rollback(struct bndl_spool *sp)
{
	int saved = errno;

	if (ftruncate(sp->fd, sp->committed) < 0) {
		/* nothing better to do: the reader treats a torn tail as truncation */
	}
	errno = saved;
}

static uint16_t blob_kind(const struct bndl_blob *b)
{
	return b->kind & (uint16_t)~BNDL_BLOB_TRUNCATED;
}

/*
 * The most bytes blob I of EV may keep: BNDL_BLOB_MAX for a blob that is
 * not an argv list; the argv lists of a record (an exec's argv and envp)
 * share BNDL_ARGV_MAX, as execve(2) counts them together, so blob I gets
 * what the ones before it left.  No record exceeds BNDL_SPOOL_REC_MAX.
 * O(I).
 */
static size_t blob_cap(const struct bndl_event *ev, uint16_t i)
{
	size_t before = 0;

	if (blob_kind(&ev->blobs[i]) != BNDL_BLOB_ARGV)
		return BNDL_BLOB_MAX;
	/* the blobs before I keep min(their lengths, BNDL_ARGV_MAX) together */
	for (uint16_t k = 0; k < i && before < BNDL_ARGV_MAX; k++)
		if (blob_kind(&ev->blobs[k]) == BNDL_BLOB_ARGV && ev->blobs[k].data != NULL)
			before += ev->blobs[k].len;
	return before >= BNDL_ARGV_MAX ? 0 : BNDL_ARGV_MAX - before;
}

static size_t blob_len(const struct bndl_event *ev, uint16_t i)
{
	const struct bndl_blob *b = &ev->blobs[i];
	size_t cap = blob_cap(ev, i);

	if (b->data == NULL)
		return 0;
	return b->len > cap ? cap : b->len;
}

static size_t record_size(const struct bndl_event *ev)
{
	size_t n = sizeof(struct bndl_spool_rec_hdr) + sizeof(struct bndl_event_fixed);

	for (uint16_t i = 0; i < ev->nblobs; i++)
		n += sizeof(struct bndl_blob_hdr) + BNDL_SPOOL_ALIGN(blob_len(ev, i));
	return n;
}

/* Emit len bytes either into the buffer (direct == false) or straight to the file. */
static int emit(struct bndl_spool *sp, bool direct, const void *data, size_t len,
		struct repro_err **err)
{
	if (len == 0)
		return 0;
	if (direct)
		return repro_write_all(sp->fd, data, len, sp->path, err);
	memcpy(sp->buf + sp->used, data, len);
	sp->used += len;
	return 0;
}

static void fixed_from_event(const struct bndl_event *ev, struct bndl_event_fixed *fx)
{
	*fx = (struct bndl_event_fixed){
		.flags = ev->flags,
		.pid = ev->pid,
		.tid = ev->tid,
		.ppid = ev->ppid,
		.status = ev->status,
		.nr = ev->nr,
		.arch = ev->arch,
		.seq = ev->seq,
		.t_ns = ev->t_ns,
		.dur_ns = ev->dur_ns,
		.ret = ev->ret,
	};
	memcpy(fx->args, ev->args, sizeof(fx->args));
}

static int emit_blob(struct bndl_spool *sp, bool direct, const struct bndl_event *ev, uint16_t i,
		     struct repro_err **err)
{
	const struct bndl_blob *b = &ev->blobs[i];
	size_t len = blob_len(ev, i);
	struct bndl_blob_hdr bh = { .kind = b->kind, .argi = b->argi, .len = (uint32_t)len };

	if (b->data != NULL && b->len > len)
		bh.kind |= BNDL_BLOB_TRUNCATED;
	if (emit(sp, direct, &bh, sizeof(bh), err) < 0 || emit(sp, direct, b->data, len, err) < 0)
		return -1;
	return emit(sp, direct, zero_pad, BNDL_SPOOL_ALIGN(len) - len, err);
}

static int emit_record(struct bndl_spool *sp, bool direct, const struct bndl_event *ev, size_t size,
		       struct repro_err **err)
{
	struct bndl_spool_rec_hdr rh = { .len = (uint32_t)size,
					 .type = ev->type,
					 .nblobs = ev->nblobs };
	struct bndl_event_fixed fx;

	fixed_from_event(ev, &fx);
	if (emit(sp, direct, &rh, sizeof(rh), err) < 0 ||
	    emit(sp, direct, &fx, sizeof(fx), err) < 0)
		return -1;
	for (uint16_t i = 0; i < ev->nblobs; i++)
		if (emit_blob(sp, direct, ev, i, err) < 0)
			return -1;
	return 0;
}

/* Write buf[0..len); returns the bytes written: len, or fewer with errno saying why. */
static size_t write_some(int fd, const unsigned char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

static struct bndl_spool_rec_hdr rec_hdr_at(const unsigned char *p)
{
	struct bndl_spool_rec_hdr rh;

	memcpy(&rh, p, sizeof(rh));
	return rh;
}

/* Bytes of the whole records at the start of buf[0..n). */
static size_t whole_records(const unsigned char *buf, size_t n)
{
	size_t off = 0;

	while (n - off >= sizeof(struct bndl_spool_rec_hdr)) {
		struct bndl_spool_rec_hdr rh = rec_hdr_at(buf + off);

		if (rh.len == 0 || rh.len > n - off)
			break;
		off += rh.len;
	}
	return off;
}

static void note_drop(struct bndl_spool *sp, uint64_t end_ns, size_t bytes)
{
	if (sp->drops.events == 0)
		sp->drops.since_ns = end_ns;
	sp->drops.events++;
	sp->drops.bytes += bytes;
}

/* Completion time of the buffered record at p (t_ns + dur_ns of its fixed part). */
static uint64_t rec_end_ns(const unsigned char *p)
{
	struct bndl_event_fixed fx;

	memcpy(&fx, p + sizeof(struct bndl_spool_rec_hdr), sizeof(fx));
	return fx.t_ns + fx.dur_ns;
}

/* The filesystem is full: drop the buffered syscall records, keep the others in order. */
static void drop_buffered_events(struct bndl_spool *sp)
{
	size_t src = 0, dst = 0;

	while (src < sp->used) {
		struct bndl_spool_rec_hdr rh = rec_hdr_at(sp->buf + src);

		if (rh.type == BNDL_REC_SYSCALL || rh.type == BNDL_REC_OUTPUT) {
			note_drop(sp, rec_end_ns(sp->buf + src), rh.len);
		} else {
			memmove(sp->buf + dst, sp->buf + src, rh.len);
			dst += rh.len;
		}
		src += rh.len;
	}
	sp->used = dst;
}

/*
 * A process record that found no room: counted, and its fixed part kept in
 * memory (bndl_spool_take_lost()) so that the caller can still pack what it
 * said.  The DROPPED and END records are no process records: their loss is
 * noted (bndl_spool_lost_end()), what they carry the caller knows.
 */
static void drop_record(struct bndl_spool *sp, const unsigned char *p)
{
	struct bndl_spool_rec_hdr rh = rec_hdr_at(p);
	struct bndl_event_fixed fx;

	sp->drops.bytes += rh.len;
	if (rh.type == BNDL_REC_DROPPED)
		return;
	if (rh.type == BNDL_REC_END) {
		sp->lost_end = true;
		return;
	}
	sp->drops.procs++;
	if (sp->nlost == sp->lost_cap) {
		sp->lost_cap = sp->lost_cap ? sp->lost_cap * 2 : 64;
		sp->lost = repro_xreallocarray(sp->lost, sp->lost_cap, sizeof(*sp->lost));
	}
	memcpy(&fx, p + sizeof(rh), sizeof(fx));
	event_from_fixed(&fx, rh.type, &sp->lost[sp->nlost++]);
}

/* No room for them: the process records still buffered are lost (counted, kept in memory). */
static void drop_buffered_all(struct bndl_spool *sp)
{
	for (size_t off = 0; off < sp->used; off += rec_hdr_at(sp->buf + off).len)
		drop_record(sp, sp->buf + off);
	sp->used = 0;
}

/* pwrite(2) all of buf[0..len) at off; false when it could not. */
static bool pwrite_all(int fd, const unsigned char *buf, size_t len, off_t off)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n, len -= (size_t)n, off += n;
	}
	return true;
}

/*
 * The first time the filesystem is full: from now on the records go into
 * the reserve, which starts with a file header of its own (the reader goes
 * on there after events.spool).  Without a reserve they go on to
 * events.spool as long as it takes them.
 */
static void spool_fill(struct bndl_spool *sp, int errnum)
{
	struct bndl_spool_file_hdr hdr;

	if (sp->drops.errnum != 0)
		return;
	sp->drops.errnum = errnum;
	sp->needs_marker = true;
	file_hdr(&hdr);
	if (sp->reserve_fd >= 0 &&
	    pwrite_all(sp->reserve_fd, (const unsigned char *)&hdr, sizeof(hdr), 0)) {
		sp->in_reserve = true;
		sp->reserve_used = sizeof(hdr);
	}
}

/* Full: the buffered process records go into the reserve as far as its room takes whole ones. */
static void write_reserve(struct bndl_spool *sp)
{
	size_t room = BNDL_SPOOL_RESERVE_SIZE - (size_t)sp->reserve_used;
	size_t fit = whole_records(sp->buf, sp->used < room ? sp->used : room);

	if (fit > 0 && pwrite_all(sp->reserve_fd, sp->buf, fit, sp->reserve_used)) {
		sp->reserve_used += (off_t)fit;
		memmove(sp->buf, sp->buf + fit, sp->used - fit);
		sp->used -= fit;
	}
	drop_buffered_all(sp);
}

/*
 * A write of the buffer stopped after n bytes on a full filesystem: cut the
 * file back to the last whole record written, keep the rest buffered.
 */
static int keep_whole(struct bndl_spool *sp, size_t n, struct repro_err **err)
{
	size_t keep = whole_records(sp->buf, n);

	if (ftruncate(sp->fd, sp->committed + (off_t)keep) < 0)
		return repro_err_set(err, errno, "cannot cut '%s' back to its last whole record",
				     sp->path);
	sp->committed += (off_t)keep;
	memmove(sp->buf, sp->buf + keep, sp->used - keep);
	sp->used -= keep;
	return 0;
}

/*
 * Write the buffer to events.spool.  Returns 0 when all of it went out;
 * ENOSPC or EDQUOT when the filesystem is full (the whole records that went
 * out stay, the rest stays buffered); -1 with *err on another write error
 * (nothing of the buffer stays in the file).
 */
static int write_main(struct bndl_spool *sp, struct repro_err **err)
{
	size_t n = write_some(sp->fd, sp->buf, sp->used);
	int e = errno;

	if (n == sp->used) {
		sp->committed += (off_t)n;
		sp->used = 0;
		return 0;
	}
	if (!bndl_is_disk_full(e)) {
		spool_rollback(sp);
		return repro_err_set(err, e, "cannot write '%s'", sp->path);
	}
	if (keep_whole(sp, n, err) < 0)
		return -1;
	return e;
}

/*
 * Buffer the BNDL_REC_DROPPED record once the filesystem filled and the
 * buffer has room for it (after an append, so that a flush leaves the buffer
 * empty).
 */
static void buffer_marker(struct bndl_spool *sp)
{
	struct bndl_event ev = { .type = BNDL_REC_DROPPED,
				 .t_ns = sp->drops.since_ns,
				 .ret = -(int64_t)sp->drops.errnum };
	size_t size = record_size(&ev);

	if (!sp->needs_marker || size > SPOOL_BUF_SIZE - sp->used)
		return;
	(void)emit_record(sp, false, &ev, size, NULL);
	sp->needs_marker = false;
}

int bndl_spool_flush(struct bndl_spool *sp, struct repro_err **err)
{
	int rc;

	sp->last_flush_ns = monotonic_ns();
	if (sp->used == 0)
		return 0;
	if (sp->in_reserve) {
		write_reserve(sp);
		return 0;
	}
	rc = write_main(sp, err);
	if (rc <= 0)
		return rc;
	spool_fill(sp, rc);
	drop_buffered_events(sp);
	if (sp->in_reserve) {
		write_reserve(sp);
		return 0;
	}
	/* no reserve: what events.spool still takes (the torn record's room, say) */
	rc = write_main(sp, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		drop_buffered_all(sp);
	return 0;
}

/*
 * Once the filesystem is full, an exec record keeps its paths and the start
 * of its argv, not its environment: *slim is ev so cut (blobs borrowed from
 * ev).  Returns slim.
 */
static const struct bndl_event *slim_exec(const struct bndl_event *ev, struct bndl_event *slim)
{
	*slim = *ev;
	slim->nblobs = 0;
	for (uint16_t i = 0; i < ev->nblobs; i++) {
		struct bndl_blob b = ev->blobs[i];

		if (blob_kind(&b) == BNDL_BLOB_ARGV && b.argi == 2)
			continue; /* envp */
		if (blob_kind(&b) == BNDL_BLOB_ARGV && b.len > BNDL_SPOOL_SLIM_ARGV) {
			b.len = BNDL_SPOOL_SLIM_ARGV;
			b.kind |= BNDL_BLOB_TRUNCATED;
		}
		slim->blobs[slim->nblobs++] = b;
	}
	return slim;
}

/*
 * Append ev under the rules of the moment.  Returns 0 when it was buffered,
 * written or dropped, -1 with *err, or 1 when the filesystem filled on the
 * way: the caller tries again under the rules of a full spool.
 *
 * A record that does not fit the buffer (several large blobs) bypasses it;
 * the buffer is flushed first so that records stay in order.
 */
static int try_append(struct bndl_spool *sp, const struct bndl_event *ev, struct repro_err **err)
{
	cleanup_err struct repro_err *werr = NULL;
	bool was_full = sp->drops.errnum != 0;
	struct bndl_event slim;
	size_t size;

	if (was_full && (ev->type == BNDL_REC_SYSCALL || ev->type == BNDL_REC_OUTPUT)) {
		note_drop(sp, ev->t_ns + ev->dur_ns, record_size(ev));
		return 0;
	}
	if (was_full && ev->type == BNDL_REC_PROC_EXEC) {
		ev = slim_exec(ev, &slim);
		sp->drops.slim_execs++;
	}
	size = record_size(ev);
	if (was_full && size > SPOOL_BUF_SIZE) {
		/* not through the buffer, so not into the reserve: none is that large once slimmed */
		struct bndl_spool_rec_hdr rh = { .len = (uint32_t)size, .type = ev->type };
		unsigned char rec[sizeof(rh) + sizeof(struct bndl_event_fixed)];
		struct bndl_event_fixed fx;

		fixed_from_event(ev, &fx);
		memcpy(rec, &rh, sizeof(rh));
		memcpy(rec + sizeof(rh), &fx, sizeof(fx));
		drop_record(sp, rec);
		return 0;
	}
	if (size > SPOOL_BUF_SIZE - sp->used && bndl_spool_flush(sp, err) < 0)
		return -1;
	if (!was_full && sp->drops.errnum != 0)
		return 1;
	if (size <= SPOOL_BUF_SIZE)
		return emit_record(sp, false, ev, size, NULL);
	if (emit_record(sp, true, ev, size, &werr) == 0) {
		sp->committed += (off_t)size;
		return 0;
	}
	spool_rollback(sp);
	if (!bndl_is_disk_full(werr->errnum)) {
		*err = steal_ptr(&werr);
		return -1;
	}
	spool_fill(sp, werr->errnum);
	return 1;
}

/* A failed periodic flush is reported, but the records stay buffered for the next try. */
int bndl_spool_append(struct bndl_spool *sp, const struct bndl_event *ev, struct repro_err **err)
{
	int rc;

	if (ev->nblobs > BNDL_EVENT_MAX_BLOBS)
		return repro_err_set(err, EINVAL, "spool '%s': event %llu has %u blobs", sp->path,
				     (unsigned long long)ev->seq, (unsigned)ev->nblobs);
	while ((rc = try_append(sp, ev, err)) == 1)
		;
	if (rc < 0)
		return -1;
	sp->count++;
	buffer_marker(sp);
	if (monotonic_ns() - sp->last_flush_ns >= SPOOL_FLUSH_NS)
		return bndl_spool_flush(sp, err);
	return 0;
}

uint64_t bndl_spool_count(const struct bndl_spool *sp)
{
	return sp->count;
}

const struct bndl_spool_drops *bndl_spool_drops(const struct bndl_spool *sp)
{
	return &sp->drops;
}

bool bndl_spool_lost_end(const struct bndl_spool *sp)
{
	return sp->lost_end;
}

struct bndl_event *bndl_spool_take_lost(struct bndl_spool *sp, size_t *n)
{
	*n = sp->nlost;
	sp->nlost = sp->lost_cap = 0;
	return steal_ptr(&sp->lost);
}

int bndl_spool_end(struct bndl_spool *sp, bool has_exit, int status, uint64_t duration_ns,
		   struct repro_err **err)
{
	struct bndl_spool_drops drops;
	struct bndl_event ev = { .type = BNDL_REC_END,
				 .flags = has_exit ? BNDL_EV_HAS_EXIT : 0,
				 .t_ns = duration_ns,
				 .status = status,
				 .nblobs = 1 };

	/* what the last flush drops is counted in the record */
	if (bndl_spool_flush(sp, err) < 0)
		return -1;
	drops = sp->drops;
	ev.blobs[0] = (struct bndl_blob){ .kind = BNDL_BLOB_STRUCT,
					  .len = sizeof(drops),
					  .data = &drops };
	if (bndl_spool_append(sp, &ev, err) < 0)
		return -1;
	return bndl_spool_flush(sp, err);
}

int bndl_spool_close(struct bndl_spool *sp, struct repro_err **err)
{
	int rc = 0;

	if (sp == NULL)
		return 0;
	if (bndl_spool_flush(sp, err) < 0)
		rc = -1;
	if (close(sp->fd) < 0 && rc == 0)
		rc = repro_err_set(err, errno, "cannot write '%s'", sp->path);
	sp->fd = -1;
	spool_free(sp);
	return rc;
}

/* Remove dir/name; one that is not there is no error. */
static int remove_in(const char *dir, const char *name, struct repro_err **err)
{
	cleanup_free char *path = repro_path_join(dir, name);

	if (unlink(path) < 0 && errno != ENOENT)
		return repro_err_set(err, errno, "cannot remove '%s'", path);
	return 0;
}

int bndl_spool_remove(const char *dir, struct repro_err **err)
{
	static const char *const names[] = { BNDL_SPOOL_FILE, BNDL_SPOOL_RUNINFO,
					     BNDL_SPOOL_RESERVE };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (remove_in(dir, names[i], err) < 0)
			return -1;
	/* and the members the session derived into the spool directory after the run */
	for (size_t i = 0; bndl_members[i].name != NULL; i++)
		if (bndl_members[i].producer == BNDL_BY_SESSION &&
		    remove_in(dir, bndl_members[i].name, err) < 0)
			return -1;
	if (rmdir(dir) < 0)
		return repro_err_set(err, errno, "cannot remove spool directory '%s'", dir);
	return 0;
}

/* The spool directory (stat st) is the caller's and no one else may write in it. */
static int check_spool_owner(const struct stat *st, struct repro_err **err)
{
	if (st->st_uid != geteuid())
		return repro_err_set(err, 0,
				     "the spool belongs to another user (uid %u, not %u): "
				     "only the user who recorded it packs it",
				     (unsigned)st->st_uid, (unsigned)geteuid());
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return repro_err_set(err, 0,
				     "other users may write in the spool (mode %04o): "
				     "its files cannot be trusted",
				     (unsigned)(st->st_mode & 07777));
	return 0;
}

/* name in the spool directory dfd, when it is there, is a regular file (never followed). */
static int check_spool_file(int dfd, const char *name, struct repro_err **err)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT
			       ? 0
			       : repro_err_set(err, errno, "cannot stat the spool's '%s'", name);
	if (!S_ISREG(st.st_mode))
		return repro_err_set(err, 0, "the spool's '%s' is %s, not a regular file", name,
				     repro_file_kind(st.st_mode));
	return 0;
}

int bndl_spool_check(const char *dir, struct repro_err **err)
{
	static const char *const names[] = { BNDL_SPOOL_FILE, BNDL_SPOOL_RUNINFO,
					     BNDL_SPOOL_RESERVE };
	cleanup_close int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (dfd < 0 || fstat(dfd, &st) < 0)
		return repro_err_set(err, errno, "cannot open the spool");
	if (check_spool_owner(&st, err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (check_spool_file(dfd, names[i], err) < 0)
			return -1;
	for (size_t i = 0; bndl_members[i].name != NULL; i++)
		if (bndl_members[i].producer == BNDL_BY_SESSION &&
		    check_spool_file(dfd, bndl_members[i].name, err) < 0)
			return -1;
	return 0;
}

/* ---- reading ---- */

void bndl_spool_reader_free(struct bndl_spool_reader *r)
{
	if (r == NULL)
		return;
	if (r->f != NULL)
		fclose(r->f);
	free(r->path);
	free(r->reserve_path);
	free(r->rec);
	free(r);
}

static inline void cleanup_spool_reader_fn(struct bndl_spool_reader **r)
{
	bndl_spool_reader_free(*r);
}
#define cleanup_spool_reader __attribute__((cleanup(cleanup_spool_reader_fn)))

static bool is_file_hdr(const struct bndl_spool_file_hdr *hdr)
{
	return memcmp(hdr->magic, BNDL_SPOOL_MAGIC, sizeof(hdr->magic)) == 0 &&
	       hdr->version == BNDL_SPOOL_VERSION;
}

static int check_file_hdr(const struct bndl_spool_reader *r, struct repro_err **err)
{
	struct bndl_spool_file_hdr hdr;

	if (fread(&hdr, 1, sizeof(hdr), r->f) != sizeof(hdr)) {
		if (ferror(r->f))
			return repro_err_set(err, errno, "cannot read '%s'", r->path);
		return repro_err_set(err, EPROTO, "'%s' is not a repro spool: file too short",
				     r->path);
	}
	if (memcmp(hdr.magic, BNDL_SPOOL_MAGIC, sizeof(hdr.magic)) != 0)
		return repro_err_set(err, EPROTO, "'%s' is not a repro spool", r->path);
	if (hdr.version != BNDL_SPOOL_VERSION)
		return repro_err_set(err, EPROTO, "'%s' has spool version %u; this reader knows %u",
				     r->path, hdr.version, BNDL_SPOOL_VERSION);
	return 0;
}

struct bndl_spool_reader *bndl_spool_reader_open(const char *dir, struct repro_err **err)
{
	cleanup_spool_reader struct bndl_spool_reader *r = repro_xcalloc(1, sizeof(*r));
	cleanup_err struct repro_err *oerr = NULL;
	int fd;

	r->path = repro_path_join(dir, BNDL_SPOOL_FILE);
	r->reserve_path = repro_path_join(dir, BNDL_SPOOL_RESERVE);
	/* a FIFO planted in a spool would block open(2) and read(2) for ever */
	fd = repro_file_open_regular(r->path, &oerr);
	if (fd < 0 && oerr->errnum != 0)
		return repro_err_set(err, oerr->errnum, "cannot open spool '%s'", r->path), NULL;
	if (fd < 0)
		return repro_err_set(err, 0, "cannot open spool: %s", oerr->msg), NULL;
	r->f = fdopen(fd, "rb");
	if (r->f == NULL) {
		close(fd);
		return repro_err_set(err, errno, "cannot open spool '%s'", r->path), NULL;
	}
	if (check_file_hdr(r, err) < 0)
		return NULL;
	{
		struct stat st;

		r->main_size = fstat(fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
	}
	return steal_ptr(&r);
}

void bndl_spool_reader_position(const struct bndl_spool_reader *r, uint64_t *done, uint64_t *total)
{
	off_t at = ftello(r->f);
	uint64_t here = at > 0 ? (uint64_t)at : 0;

	*done = r->in_reserve ? r->main_size + here : here;
	*total = r->main_size > *done ? r->main_size : *done;
}

/*
 * Read exactly len bytes.  Returns 1 when read, 0 at the end of the file
 * (clean when nothing was read and *partial is false), -1 with *err.
 */
static int read_exact(struct bndl_spool_reader *r, void *dst, size_t len, bool *partial,
		      struct repro_err **err)
{
	size_t n = fread(dst, 1, len, r->f);

	*partial = false;
	if (n == len)
		return 1;
	if (ferror(r->f))
		return repro_err_set(err, errno ? errno : EIO, "cannot read '%s'", r->path);
	*partial = n > 0;
	return 0;
}

static int check_rec_hdr(const struct bndl_spool_reader *r, const struct bndl_spool_rec_hdr *rh,
			 struct repro_err **err)
{
	size_t min = sizeof(*rh) + sizeof(struct bndl_event_fixed);
	uint64_t recno = r->nread + 1;

	if (rh->len < min || rh->len > BNDL_SPOOL_REC_MAX || rh->len % 8 != 0)
		return repro_err_set(err, EPROTO, "'%s' record %llu: bad length %u", r->path,
				     (unsigned long long)recno, rh->len);
	if (rh->type < BNDL_REC_SYSCALL || rh->type > BNDL_REC_SOCK)
		return repro_err_set(err, EPROTO, "'%s' record %llu: unknown type %u", r->path,
				     (unsigned long long)recno, (unsigned)rh->type);
	if (rh->nblobs > BNDL_EVENT_MAX_BLOBS)
		return repro_err_set(err, EPROTO, "'%s' record %llu: %u blobs", r->path,
				     (unsigned long long)recno, (unsigned)rh->nblobs);
	return 0;
}

static void event_from_fixed(const struct bndl_event_fixed *fx, uint16_t type,
			     struct bndl_event *ev)
{
	*ev = (struct bndl_event){
		.type = type,
		.flags = fx->flags,
		.seq = fx->seq,
		.t_ns = fx->t_ns,
		.dur_ns = fx->dur_ns,
		.pid = fx->pid,
		.tid = fx->tid,
		.ppid = fx->ppid,
		.status = fx->status,
		.nr = fx->nr,
		.arch = fx->arch,
		.ret = fx->ret,
	};
	memcpy(ev->args, fx->args, sizeof(ev->args));
}

/* Decode the blobs of body[0..len), checking each length against what is left. */
static int parse_blobs(const struct bndl_spool_reader *r, size_t len, uint16_t nblobs,
		       struct bndl_event *ev, struct repro_err **err)
{
	size_t off = sizeof(struct bndl_event_fixed);
	unsigned long long recno = (unsigned long long)r->nread + 1;

	for (uint16_t i = 0; i < nblobs; i++) {
		struct bndl_blob_hdr bh;
		uint16_t kind;

		if (len - off < sizeof(bh))
			return repro_err_set(err, EPROTO,
					     "'%s' record %llu: blob %u overruns the record",
					     r->path, recno, (unsigned)i);
		memcpy(&bh, r->rec + off, sizeof(bh));
		off += sizeof(bh);
		kind = bh.kind & (uint16_t)~BNDL_BLOB_TRUNCATED;
		if (kind < BNDL_BLOB_STR || kind > BNDL_BLOB_PAYLOAD ||
		    bh.len > (kind == BNDL_BLOB_ARGV ? BNDL_ARGV_MAX : BNDL_BLOB_MAX) ||
		    BNDL_SPOOL_ALIGN(bh.len) > len - off)
			return repro_err_set(err, EPROTO, "'%s' record %llu: bad blob %u", r->path,
					     recno, (unsigned)i);
		ev->blobs[i] = (struct bndl_blob){
			.kind = bh.kind, .argi = bh.argi, .len = bh.len, .data = r->rec + off
		};
		off += BNDL_SPOOL_ALIGN(bh.len);
	}
	if (off != len)
		return repro_err_set(err, EPROTO, "'%s' record %llu: %zu stray bytes", r->path,
				     recno, len - off);
	ev->nblobs = nblobs;
	return 0;
}

/*
 * events.spool ended cleanly: a spool whose filesystem filled goes on in
 * DIR/reserve when that starts with a file header (an unused reserve holds
 * zeros).  True when reading goes on there.
 */
static bool reader_enter_reserve(struct bndl_spool_reader *r)
{
	cleanup_err struct repro_err *oerr = NULL; /* no reserve: the spool ends here */
	struct bndl_spool_file_hdr hdr;
	FILE *f;
	int fd;

	if (r->in_reserve)
		return false;
	r->in_reserve = true;
	fd = repro_file_open_regular(r->reserve_path, &oerr);
	if (fd < 0)
		return false;
	f = fdopen(fd, "rb");
	if (f == NULL) {
		close(fd);
		return false;
	}
	if (fread(&hdr, 1, sizeof(hdr), f) != sizeof(hdr) || !is_file_hdr(&hdr)) {
		fclose(f);
		return false;
	}
	fclose(r->f);
	r->f = f;
	return true;
}

/* The next record's header: 1, or 0 at the end (*partial: cut short), -1 with *err. */
static int read_rec_hdr(struct bndl_spool_reader *r, struct bndl_spool_rec_hdr *rh, bool *partial,
			struct repro_err **err)
{
	int rc = read_exact(r, rh, sizeof(*rh), partial, err);

	if (rc == 0 && !*partial && reader_enter_reserve(r))
		rc = read_exact(r, rh, sizeof(*rh), partial, err);
	/* the reserve's room past its last record holds zeros */
	if (rc == 1 && r->in_reserve && rh->len == 0)
		return 0;
	return rc;
}

int bndl_spool_reader_next(struct bndl_spool_reader *r, struct bndl_event *ev,
			   struct repro_err **err)
{
	struct bndl_spool_rec_hdr rh;
	struct bndl_event_fixed fx;
	bool partial;
	size_t body;
	int rc;

	if (r->is_truncated)
		return 0;
	rc = read_rec_hdr(r, &rh, &partial, err);
	if (rc <= 0) {
		r->is_truncated = partial;
		return rc;
	}
	if (check_rec_hdr(r, &rh, err) < 0)
		return -1;
	body = rh.len - sizeof(rh);
	if (body > r->rec_cap) {
		r->rec = repro_xrealloc(r->rec, body);
		r->rec_cap = body;
	}
	rc = read_exact(r, r->rec, body, &partial, err);
	if (rc <= 0) {
		/* a header without its body: the recorder died half way through a write */
		r->is_truncated = rc == 0;
		return rc;
	}
	memcpy(&fx, r->rec, sizeof(fx));
	event_from_fixed(&fx, rh.type, ev);
	if (parse_blobs(r, body, rh.nblobs, ev, err) < 0)
		return -1;
	r->nread++;
	return 1;
}

bool bndl_spool_reader_was_truncated(const struct bndl_spool_reader *r)
{
	return r->is_truncated;
}

const struct bndl_blob *bndl_event_blob(const struct bndl_event *ev, uint16_t kind, uint16_t argi)
{
	uint16_t n = ev->nblobs > BNDL_EVENT_MAX_BLOBS ? BNDL_EVENT_MAX_BLOBS : ev->nblobs;

	for (uint16_t i = 0; i < n; i++) {
		const struct bndl_blob *b = &ev->blobs[i];

		if ((b->kind & (uint16_t)~BNDL_BLOB_TRUNCATED) == kind && b->argi == argi)
			return b;
	}
	return NULL;
}
