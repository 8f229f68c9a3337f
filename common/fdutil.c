#include "fdutil.h"
#include "cleanup.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

int repro_write_all(int fd, const void *buf, size_t len, const char *what, struct repro_err **err)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return repro_err_set(err, errno, "cannot write '%s'", what);
		if (n == 0)
			return repro_err_set(err, EIO, "cannot write '%s'", what);
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* At the cap: one more byte tells a file of exactly max_bytes from a larger one. */
static int at_cap_is_end(int fd)
{
	char probe;
	ssize_t n;

	while ((n = read(fd, &probe, 1)) < 0 && errno == EINTR)
		;
	return n == 0;
}

char *repro_read_file(const char *path, size_t max_bytes, size_t *len_out, struct repro_err **err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return repro_err_set(err, errno, "cannot open '%s'", path), NULL;
	return repro_read_fd(fd, max_bytes, len_out, path, err);
}

char *repro_read_fd(int fd, size_t max_bytes, size_t *len_out, const char *path,
		    struct repro_err **err)
{
	cleanup_free char *buf = NULL;
	size_t len = 0, cap = max_bytes < 4096 ? max_bytes : 4096;

	buf = repro_xmalloc(cap + 1);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= max_bytes) {
				if (at_cap_is_end(fd))
					break;
				return repro_err_set(err, EFBIG, "'%s' is larger than %zu bytes",
						     path, max_bytes),
				       NULL;
			}
			cap = cap * 2 > max_bytes ? max_bytes : cap * 2;
			buf = repro_xrealloc(buf, cap + 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return repro_err_set(err, errno, "cannot read '%s'", path), NULL;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len_out != NULL)
		*len_out = len;
	return steal_ptr(&buf);
}

const char *repro_file_kind(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFIFO: return "a FIFO";
	case S_IFLNK: return "a symbolic link";
	case S_IFDIR: return "a directory";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFREG: return "a regular file";
	default: return "not a regular file";
	}
}

/* fd (of path) is a regular file: the fd, else -1 with *err naming what it is. */
static int only_regular(int fd, const char *path, struct repro_err **err)
{
	cleanup_close int owned = fd;
	struct stat st;

	if (fstat(owned, &st) < 0)
		return repro_err_set(err, errno, "cannot open '%s'", path);
	if (!S_ISREG(st.st_mode))
		return repro_err_set(err, 0, "'%s' is %s, not a regular file", path,
				     repro_file_kind(st.st_mode));
	return steal_fd(&owned);
}

/* open(2) to verb ("open", "create") path failed with errno e (O_NOFOLLOW: ELOOP is a link). */
static int open_failed(const char *verb, const char *path, int e, struct repro_err **err)
{
	struct stat st;

	if (e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return repro_err_set(err, 0, "'%s' is a symbolic link, not a regular file", path);
	return repro_err_set(err, e, "cannot %s '%s'", verb, path);
}

int repro_file_open_regular(const char *path, struct repro_err **err)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int flags;

	if (fd < 0)
		return open_failed("open", path, errno, err);
	if ((fd = only_regular(fd, path, err)) < 0)
		return -1;
	/* a regular file ignores O_NONBLOCK; cleared all the same for the caller's reads */
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

int repro_file_create(const char *path, bool is_replace, struct repro_err **err)
{
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int fd = open(path, flags | (is_replace ? 0 : O_EXCL), 0600);

	if (fd < 0)
		return open_failed("create", path, errno, err);
	if (!is_replace)
		return fd;
	if ((fd = only_regular(fd, path, err)) < 0)
		return -1;
	if (ftruncate(fd, 0) < 0) {
		int e = errno;

		close(fd);
		return repro_err_set(err, e, "cannot write '%s'", path);
	}
	return fd;
}

char *repro_path_join(const char *dir, const char *rel)
{
	size_t dl;

	if (rel[0] == '/' || dir == NULL || dir[0] == '\0')
		return repro_xstrdup(rel);
	dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (rel[0] == '\0')
		return repro_xstrndup(dir, dl);
	if (dl == 1 && dir[0] == '/')
		return repro_xasprintf("/%s", rel);
	return repro_xasprintf("%.*s/%s", (int)dl, dir, rel);
}

/*
 * Remove name in dirfd and all below it.  A directory without search or
 * write permission (the program's chmod, overlayfs' work/work is 0000) is
 * given it first.  Best effort: what cannot be removed stays.
 */
static void remove_at(int parent, const char *name)
{
	int fd;
	DIR *d;
	struct dirent *de;

	if (unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
		return;
	(void)fchmodat(parent, name, 0700, 0);
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		(void)unlinkat(parent, name, AT_REMOVEDIR);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			remove_at(dirfd(d), de->d_name);
	closedir(d);
	(void)unlinkat(parent, name, AT_REMOVEDIR);
}

void repro_remove_tree(const char *path)
{
	remove_at(AT_FDCWD, path);
}
