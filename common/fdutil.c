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
	cleanup_free char *buf = NULL;
	size_t len = 0, cap = max_bytes < 4096 ? max_bytes : 4096;

	if (fd < 0)
		return repro_err_set(err, errno, "cannot open '%s'", path), NULL;
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
