/* Capture of %process arguments: exec argv and envp, clone3's struct clone_args. */
#include "recorder/capture.h"
#include "launcher/abi.h"
#include "launcher/mem.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Room first reserved for an argv or envp blob (bytes); it doubles as the
 * strings need it, up to what is left of BNDL_ARGV_MAX, the most execve(2)
 * accepts for both together, so the arena of a call holds about what its
 * argv and envp need and at most twice as much.
 */
#define ARGV_ROOM_START (64u * 1024u)

/* A string list being read into the last blob reserved. */
struct list_blob {
	char *buf; /* in the capture's arena: stale after a reserve elsewhere */
	size_t room; /* bytes reserved */
	size_t max; /* bytes the blob may grow to */
};

/* Pointer number k of a NULL-terminated array in the tracee; 0 ends or fails. */
static uint64_t argv_item(const struct lnch_stop *st, uint64_t base, size_t k)
{
	if (lnch_arch_is_compat(st->arch)) {
		uint32_t p = 0;

		return lnch_mem_read(st->tid, base + k * 4, &p, sizeof(p)) < 0 ? 0 : p;
	}
	uint64_t p = 0;

	return lnch_mem_read(st->tid, base + k * 8, &p, sizeof(p)) < 0 ? 0 : p;
}

/* Double the room of the blob being written, up to its max; false when it is there. */
static bool grow_room(struct rec_capture *c, struct list_blob *lb)
{
	if (lb->room >= lb->max)
		return false;
	lb->room = lb->room * 2 < lb->max ? lb->room * 2 : lb->max;
	lb->buf = rec_capture_grow(c, lb->room);
	return true;
}

/*
 * Read the string at ADDR to LB's buffer + USED, growing the blob until it
 * fits.  Returns its length without the NUL, or -1 when nothing was
 * readable; *CUT when it does not fit in LB's max.  Each growth reads the
 * string again: the bytes read add up to at most twice the room it ends with.
 */
static ssize_t read_arg(struct rec_capture *c, pid_t tid, uint64_t addr, struct list_blob *lb,
			size_t used, bool *cut)
{
	for (;;) {
		bool truncated = false;
		ssize_t n;

		if (lb->room - used < 2) {
			if (grow_room(c, lb))
				continue;
			*cut = true;
			return -1;
		}
		n = lnch_mem_read_str(tid, addr, lb->buf + used, lb->room - used, &truncated);
		if (n < 0 || !truncated)
			return n;
		if (!grow_room(c, lb)) {
			*cut = true;
			return n;
		}
	}
}

/* Bytes of BNDL_ARGV_MAX the argv blobs captured so far for this call leave. */
static size_t list_budget(const struct rec_capture *c)
{
	size_t used = 0;

	for (uint16_t k = 0; k < c->ev.nblobs; k++)
		if ((c->ev.blobs[k].kind & (uint16_t)~BNDL_BLOB_TRUNCATED) == BNDL_BLOB_ARGV)
			used += c->ev.blobs[k].len;
	return used >= BNDL_ARGV_MAX ? 0 : BNDL_ARGV_MAX - used;
}

/*
 * argv or envp (argument i, a NULL-terminated array of string pointers) as
 * NUL-separated strings in one blob; argv and envp of a call share
 * BNDL_ARGV_MAX bytes (flagged truncated beyond that, which only an execve
 * that fails with E2BIG can pass).  One process_vm_readv(2) per pointer and
 * per page of string: time linear in the bytes of the list.
 */
static void capture_list(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	struct list_blob lb = { .max = list_budget(c) };
	size_t used = 0;
	bool cut = false;

	if (st->args[i] == 0)
		return;
	lb.room = lb.max < ARGV_ROOM_START ? lb.max : ARGV_ROOM_START;
	lb.buf = rec_capture_reserve(c, BNDL_BLOB_ARGV, (uint16_t)i, lb.room);
	if (lb.buf == NULL)
		return;
	for (size_t k = 0; !cut; k++) {
		uint64_t p = argv_item(st, st->args[i], k);
		ssize_t n;

		if (p == 0)
			break;
		n = read_arg(c, st->tid, p, &lb, used, &cut);
		if (n < 0)
			break;
		used += (size_t)n + 1;
	}
	if (cut)
		c->ev.blobs[c->ev.nblobs - 1].kind |= BNDL_BLOB_TRUNCATED;
	rec_capture_commit(c, used);
}

static void capture_clone3(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	struct clone_args ca;
	size_t len = st->args[i + 1] < sizeof(ca) ? (size_t)st->args[i + 1] : sizeof(ca);
	void *buf;

	memset(&ca, 0, sizeof(ca));
	if (len < 8 || lnch_mem_read(st->tid, st->args[i], &ca, len) < 0)
		return;
	buf = rec_capture_reserve(c, BNDL_BLOB_STRUCT, (uint16_t)i, sizeof(ca));
	if (buf != NULL)
		memcpy(buf, &ca, sizeof(ca));
}

bool rec_proc_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		      enum repro_arg_kind kind)
{
	if (kind == RA_ENVP)
		c->env_deferred = i + 1; /* read once the exec's outcome is known */
	else if (kind == RA_ARGV)
		capture_list(c, st, i);
	else if (kind == RA_CLONE3)
		capture_clone3(c, st, i);
	return true;
}

/*
 * /proc/PID/NAME ("cmdline" or "environ": the new image's argv or
 * environment area, NUL-separated) into a new argv blob of ARGI, growing it
 * up to what is left of BNDL_ARGV_MAX.  Returns false when it could not be
 * read (no blob then).
 */
static bool capture_proc_list(struct rec_capture *c, pid_t pid, const char *name, uint16_t argi)
{
	struct list_blob lb = { .max = list_budget(c) };
	size_t used = 0;
	char path[64];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	lb.room = lb.max < ARGV_ROOM_START ? lb.max : ARGV_ROOM_START;
	lb.buf = rec_capture_reserve(c, BNDL_BLOB_ARGV, argi, lb.room);
	while (lb.buf != NULL && (used < lb.room || grow_room(c, &lb)) &&
	       (n = read(fd, lb.buf + used, lb.room - used)) > 0)
		used += (size_t)n;
	close(fd);
	if (lb.buf == NULL)
		return false;
	if (used == 0 && strcmp(name, "cmdline") == 0) {
		c->ev.nblobs--;
		return false;
	}
	if (n > 0)
		c->ev.blobs[c->ev.nblobs - 1].kind |= BNDL_BLOB_TRUNCATED;
	rec_capture_commit(c, used);
	return true;
}

void rec_proc_capture_env(struct rec_capture *c, pid_t pid)
{
	int i = c->env_deferred - 1;

	if (i < 0)
		return;
	c->env_deferred = 0;
	(void)capture_proc_list(c, pid, "environ", (uint16_t)i);
}

void rec_proc_capture_exec_image(struct rec_capture *c, pid_t pid)
{
	char *buf = rec_capture_reserve(c, BNDL_BLOB_PATH, 0, PATH_MAX);
	char link[64];
	ssize_t n;

	if (buf != NULL) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		n = readlink(link, buf, PATH_MAX - 1);
		if (n > 0)
			rec_capture_commit(c, (size_t)n);
		else
			c->ev.nblobs--;
	}
	if (capture_proc_list(c, pid, "cmdline", 1))
		capture_proc_list(c, pid, "environ", 2);
}
