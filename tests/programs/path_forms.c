/*
 * path_forms - one file named in every form a program may use: relative
 * with `..`, through a dirfd, /proc/self/fd/N/..., /dev/fd/N/...,
 * /proc/self/cwd/..., a directory symlink, /proc/self/fd/N and /dev/stdin
 * as the file itself, newfstatat with AT_EMPTY_PATH and a path; then
 * openat2 with each RESOLVE_* flag.
 *
 * Every call prints its own oracle (tests/programs/oracle.h) with the
 * canonical path repro must record; checks/path_forms.py then wants one
 * files.jsonl record for the file, with its metadata, so the tree made
 * with mkdtemp(3) under $TMPDIR (default /tmp) stays after the run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oracle.h"

static char base[PATH_MAX]; /* canonical: realpath(3) of the mkdtemp(3) name */
static char file[PATH_MAX + 32]; /* base/dir/sub/f2.txt */

static void close_ok(struct sysres r)
{
	if (r.rc >= 0)
		close((int)r.rc);
}

static void open_form(int dirfd, const char *dirfd_text, const char *path)
{
	struct sysres r = SYS(SYS_openat, dirfd, path, O_RDONLY | O_CLOEXEC);

	oracle_call(r, "openat(%s, \"%s\", O_RDONLY|O_CLOEXEC)", dirfd_text, path);
	oracle_note("path", "%s", file);
	close_ok(r);
}

static void stat_form(int dirfd, const char *dirfd_text, const char *path, int flags,
		      const char *flags_text)
{
	struct stat st;
	struct sysres r = SYS(SYS_newfstatat, dirfd, path, &st, flags);

	oracle_call(r, "newfstatat(%s, \"%s\", %s)", dirfd_text, path, flags_text);
	oracle_note("path", "%s", file);
}

static void open2(int dirfd, const char *dirfd_text, const char *path, uint64_t resolve,
		  const char *resolve_text, const char *canonical)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC, .resolve = resolve };
	struct sysres r = SYS(SYS_openat2, dirfd, path, &how, sizeof(how));

	oracle_call(r, "openat2(%s, \"%s\", {flags=O_RDONLY|O_CLOEXEC, resolve=%s}, %zu)",
		    dirfd_text, path, resolve_text, sizeof(how));
	oracle_note("path", "%s", canonical);
	close_ok(r);
}

static int make_tree(void)
{
	const char *tmp = getenv("TMPDIR");
	char name[PATH_MAX], *real, sub[PATH_MAX + 16], ldir[PATH_MAX + 16];
	int fd;

	snprintf(name, sizeof(name), "%s/repro-forms.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(name) || (real = realpath(name, NULL)) == NULL)
		return -1;
	snprintf(base, sizeof(base), "%s", real);
	free(real);
	snprintf(sub, sizeof(sub), "%s/dir", base);
	if (mkdir(sub, 0755) < 0)
		return -1;
	snprintf(sub, sizeof(sub), "%s/dir/sub", base);
	snprintf(ldir, sizeof(ldir), "%s/ldir", base);
	snprintf(file, sizeof(file), "%s/dir/sub/f2.txt", base);
	if (mkdir(sub, 0755) < 0 || symlink("dir", ldir) < 0)
		return -1;
	fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "f2\n", 3) != 3)
		return -1;
	return close(fd);
}

/* Same file, many names. */
static void forms(int dirfd, int filefd)
{
	char fdt[16], p[PATH_MAX + 64];
	struct stat st;

	snprintf(fdt, sizeof(fdt), "%d", dirfd);
	open_form(AT_FDCWD, "AT_FDCWD", "./../sub/f2.txt");
	open_form(dirfd, fdt, "sub/../sub/f2.txt");
	snprintf(p, sizeof(p), "/proc/self/fd/%d/sub/f2.txt", dirfd);
	open_form(AT_FDCWD, "AT_FDCWD", p);
	snprintf(p, sizeof(p), "/dev/fd/%d/sub/f2.txt", dirfd);
	open_form(AT_FDCWD, "AT_FDCWD", p);
	open_form(AT_FDCWD, "AT_FDCWD", "/proc/self/cwd/f2.txt");
	snprintf(p, sizeof(p), "%s/ldir/sub/f2.txt", base);
	stat_form(AT_FDCWD, "AT_FDCWD", p, 0, "0");
	snprintf(p, sizeof(p), "/proc/self/fd/%d", filefd);
	open_form(AT_FDCWD, "AT_FDCWD", p);
	/* repro leaves a stat through a magic link to the kernel: its result is not seen */
	printf("# stat %s: %s\n", p, stat(p, &st) == 0 ? "ok" : strerrorname_np(errno));
	snprintf(p, sizeof(p), "/dev/fd/%d", filefd);
	open_form(AT_FDCWD, "AT_FDCWD", p);
	/* AT_EMPTY_PATH with a path is a lookup like any other (checks/path_forms.py) */
	if (fstatat(dirfd, "sub/f2.txt", &st, AT_EMPTY_PATH) == 0)
		printf("# newfstatat(%d, \"sub/f2.txt\", AT_EMPTY_PATH) = 0\n", dirfd);
	/* fstat(3): newfstatat(fd, "", AT_EMPTY_PATH) names no path and is not recorded */
	if (fstat(filefd, &st) == 0)
		printf("# fstat(%d) size %lld\n", filefd, (long long)st.st_size);
	/* /dev/stdin names the file when fd 0 is it */
	if (dup2(filefd, 0) == 0)
		open_form(AT_FDCWD, "AT_FDCWD", "/dev/stdin");
}

static void resolve_flags(int dirfd)
{
	char fdt[16], p[PATH_MAX + 64];

	snprintf(fdt, sizeof(fdt), "%d", dirfd);
	open2(dirfd, fdt, "../dir/sub/f2.txt", RESOLVE_BENEATH, "RESOLVE_BENEATH", file);
	open2(dirfd, fdt, "sub/f2.txt", RESOLVE_BENEATH, "RESOLVE_BENEATH", file);
	open2(dirfd, fdt, "/sub/f2.txt", RESOLVE_IN_ROOT, "RESOLVE_IN_ROOT", file);
	open2(dirfd, fdt, "/../../sub/f2.txt", RESOLVE_IN_ROOT, "RESOLVE_IN_ROOT", file);
	snprintf(p, sizeof(p), "%s/ldir/sub/f2.txt", base);
	open2(AT_FDCWD, "AT_FDCWD", p, RESOLVE_NO_SYMLINKS, "RESOLVE_NO_SYMLINKS", file);
	snprintf(p, sizeof(p), "/proc/self/fd/%d/sub/f2.txt", dirfd);
	open2(AT_FDCWD, "AT_FDCWD", p, RESOLVE_NO_MAGICLINKS, "RESOLVE_NO_MAGICLINKS", file);
	open2(AT_FDCWD, "AT_FDCWD", "/proc/version", RESOLVE_NO_XDEV, "RESOLVE_NO_XDEV",
	      "/proc/version");
	open2(dirfd, fdt, "sub/f2.txt", RESOLVE_NO_XDEV, "RESOLVE_NO_XDEV", file);
	/* the file was just looked up, so its dentries are cached */
	open2(dirfd, fdt, "sub/f2.txt", RESOLVE_CACHED, "RESOLVE_CACHED", file);
}

int main(void)
{
	char sub[PATH_MAX + 16], dir[PATH_MAX + 16];
	int dirfd, filefd;

	if (make_tree() < 0) {
		perror("path_forms: set-up");
		return 1;
	}
	printf("path_forms: file %s\n", file);
	snprintf(dir, sizeof(dir), "%s/dir", base);
	snprintf(sub, sizeof(sub), "%s/dir/sub", base);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	filefd = open(file, O_RDONLY | O_CLOEXEC);
	if (dirfd < 0 || filefd < 0 || chdir(sub) < 0) {
		perror("path_forms: open");
		return 1;
	}
	forms(dirfd, filefd);
	resolve_flags(dirfd);
	if (chdir("/") < 0)
		return 1;
	close(filefd);
	close(dirfd);
	return 0;
}
