/* Capture of %process arguments: exec argv, clone3's struct clone_args. */
#include "recorder/capture.h"
#include "launcher/abi.h"
#include "launcher/mem.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ARGV_MAX_ITEMS 4096
#define ARGV_MAX_BYTES (60u * 1024u)

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

/* argv as NUL-separated strings in one blob, cut at ARGV_MAX_BYTES. */
static void capture_argv(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	char *buf = rec_capture_reserve(c, BNDL_BLOB_ARGV, (uint16_t)i, ARGV_MAX_BYTES);
	size_t used = 0;
	bool cut = false;

	if (buf == NULL || st->args[i] == 0) {
		if (buf != NULL)
			c->ev.nblobs--;
		return;
	}
	for (size_t k = 0;; k++) {
		uint64_t p = argv_item(st, st->args[i], k);
		bool truncated = false;
		ssize_t n;

		if (p == 0)
			break;
		if (k == ARGV_MAX_ITEMS) {
			cut = true;
			break;
		}
		if (used + 2 > ARGV_MAX_BYTES) {
			cut = true;
			break;
		}
		n = lnch_mem_read_str(st->tid, p, buf + used, ARGV_MAX_BYTES - used, &truncated);
		if (n < 0)
			break;
		used += (size_t)n + 1;
		if (truncated) {
			cut = true;
			break;
		}
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
		      enum rec_arg_kind kind)
{
	if (kind == RA_ARGV)
		capture_argv(c, st, i);
	else if (kind == RA_CLONE3)
		capture_clone3(c, st, i);
	return true;
}

/* Read up to cap bytes of a /proc file into buf; returns the length or -1. */
static ssize_t read_proc(pid_t pid, const char *name, char *buf, size_t cap)
{
	char path[64];
	ssize_t n, total = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)total < cap && (n = read(fd, buf + total, cap - (size_t)total)) > 0)
		total += n;
	close(fd);
	return total;
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
	buf = rec_capture_reserve(c, BNDL_BLOB_ARGV, 1, ARGV_MAX_BYTES);
	if (buf == NULL)
		return;
	n = read_proc(pid, "cmdline", buf, ARGV_MAX_BYTES);
	if (n > 0)
		rec_capture_commit(c, (size_t)n);
	else
		c->ev.nblobs--;
}
