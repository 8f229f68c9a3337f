/*
 * Overlays mounted over directories of the host in the program's mount
 * namespace (launcher/overlay.h).
 */
#include "launcher/overlay.h"
#include "common/xalloc.h"

#include <errno.h>
#include "launcher/syscalls.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mount.h>

/* Append s to b with the characters overlayfs' option parser treats specially escaped. */
static void add_escaped(struct repro_sbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == ',' || *s == ':')
			repro_sbuf_add(b, "\\", 1);
		repro_sbuf_add(b, s, 1);
	}
}

/* Append /proc/self/fd/FD: the directory fd names, wherever it now is in the mount tree. */
static void add_fd(struct repro_sbuf *b, int fd)
{
	char name[32];

	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	repro_sbuf_adds(b, name);
}

char *lnch_overlay_data(const struct lnch_overlay *o, bool userns, int upper_fd, int work_fd)
{
	struct repro_sbuf b = { 0 };

	repro_sbuf_adds(&b, "lowerdir=");
	add_escaped(&b, o->path);
	repro_sbuf_adds(&b, ",upperdir=");
	add_fd(&b, upper_fd);
	repro_sbuf_adds(&b, ",workdir=");
	add_fd(&b, work_fd);
	if (userns)
		repro_sbuf_adds(&b, ",userxattr");
	return b.buf;
}

/* dir opened (O_PATH) at fd; -1 with errno. */
static int open_at_fd(const char *dir, int fd)
{
	int got = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (got < 0)
		return -1;
	if (got != fd && dup3(got, fd, O_CLOEXEC) < 0) {
		close(got);
		return -1;
	}
	if (got != fd)
		close(got);
	return 0;
}

int lnch_overlay_mount_all(const struct lnch_overlay *ovl, char *const *data, size_t n, int fd_top,
			   size_t *failed)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		*failed = i;
		if (open_at_fd(ovl[i].upper, LNCH_OVERLAY_UPPER_FD(fd_top, i)) < 0 ||
		    open_at_fd(ovl[i].work, LNCH_OVERLAY_WORK_FD(fd_top, i)) < 0)
			rc = -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		*failed = i;
		if (mount("overlay", ovl[i].path, "overlay", 0, data[i]) < 0)
			rc = -1;
	}
	for (size_t i = 0; i < 2 * n; i++)
		close(fd_top -
		      (int)i); /* errno of a failure above kept: close of an fd not open only */
	return rc;
}

int lnch_overlay_rest_read_only(const struct lnch_overlay *ovl, size_t n)
{
	if (lnch_sys_mount_setattr("/", AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (lnch_sys_mount_setattr(ovl[i].path, 0, 0, MOUNT_ATTR_RDONLY) < 0)
			return -1;
	return 0;
}
