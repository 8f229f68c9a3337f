/*
 * stat_paths - the path-only calls repro answers itself through seccomp
 * user notification (launcher/behalf.h): stat, lstat, newfstatat, statx,
 * access, faccessat2, readlink, readlinkat.  Relative to the cwd and to
 * dirfds, through symlinks, /proc/self and magic links, and every error the
 * kernel gives them here (ENOENT, ENOTDIR, ELOOP, EBADF, EACCES, EFAULT,
 * ENAMETOOLONG, EINVAL).
 *
 * Calls printed in strace's form are the oracle (tests/programs/oracle.h);
 * each is followed by what it returned (mode, size, link text), so that a
 * bare run and a recorded run must print the same.  Calls that only the
 * kernel can answer for the program (/dev/stdin goes through the magic link
 * /proc/self/fd/0) print a "# " line instead.  The base directory comes
 * from mkdtemp(3) under $TMPDIR (default /tmp) and is removed at the end.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oracle.h"

static char base[PATH_MAX];

static void note_rel(const char *rel)
{
	char abs[PATH_MAX * 2];

	snprintf(abs, sizeof(abs), "%s/%s", base, rel);
	oracle_note_canon("path", abs);
}

static void show_stat(struct sysres r, const struct stat *st)
{
	if (r.rc == 0)
		printf("  = type %o perm %o size %lld nlink %lu\n",
		       (unsigned)(st->st_mode & S_IFMT), (unsigned)(st->st_mode & 07777),
		       (long long)st->st_size, (unsigned long)st->st_nlink);
}

static void fstatat_rel(int dirfd, const char *dirfd_text, const char *rel, int flags,
			const char *flags_text)
{
	struct stat st;
	struct sysres r = SYS(SYS_newfstatat, dirfd, rel, &st, flags);

	oracle_call(r, "newfstatat(%s, \"%s\", %s)", dirfd_text, rel, flags_text);
	note_rel(rel);
	show_stat(r, &st);
}

static void stat_abs(const char *path)
{
	struct stat st;
	struct sysres r = SYS(SYS_newfstatat, AT_FDCWD, path, &st, 0);

	oracle_call(r, "newfstatat(AT_FDCWD, \"%s\", 0)", path);
	oracle_note_canon("path", path);
	if (r.rc == 0)
		printf("  = type %o perm %o\n", (unsigned)(st.st_mode & S_IFMT),
		       (unsigned)(st.st_mode & 07777));
}

/* Only the kernel can answer these for the program: no oracle line. */
static void stat_kernel_only(const char *path)
{
	struct stat st;
	int rc = stat(path, &st);

	printf("# stat %s: %s type %o\n", path, rc == 0 ? "ok" : strerrorname_np(errno),
	       rc == 0 ? (unsigned)(st.st_mode & S_IFMT) : 0u);
}

static void lstat_kernel_only(const char *path)
{
	char buf[64];
	struct stat st;
	int rc = lstat(path, &st);

	printf("# lstat %s: %s type %o, readlink %s\n", path,
	       rc == 0 ? "ok" : strerrorname_np(errno),
	       rc == 0 ? (unsigned)(st.st_mode & S_IFMT) : 0u,
	       readlink(path, buf, sizeof(buf)) > 0 ? "ok" : strerrorname_np(errno));
}

static void statx_rel(const char *rel)
{
	struct statx stx;
	struct sysres r = SYS(SYS_statx, AT_FDCWD, rel, 0, STATX_BASIC_STATS, &stx);

	oracle_call(r, "statx(AT_FDCWD, \"%s\", 0)", rel);
	note_rel(rel);
	if (r.rc == 0)
		printf("  = mode %o size %llu\n", (unsigned)stx.stx_mode,
		       (unsigned long long)stx.stx_size);
}

static void access_rel(const char *rel, int mode, const char *mode_text, int flags)
{
	struct sysres r = flags ? SYS(SYS_faccessat2, AT_FDCWD, rel, mode, flags)
				: SYS(SYS_faccessat, AT_FDCWD, rel, mode);

	oracle_call(r, "%s(AT_FDCWD, \"%s\", %s%s)", flags ? "faccessat2" : "faccessat", rel,
		    mode_text, flags ? ", AT_EACCESS" : "");
	note_rel(rel);
}

static void readlink_rel(int dirfd, const char *rel, size_t size)
{
	char buf[PATH_MAX];
	struct sysres r = SYS(SYS_readlinkat, dirfd, rel, buf, size);

	oracle_call(r, "readlinkat(%s, \"%s\", %zu)", dirfd == AT_FDCWD ? "AT_FDCWD" : "dirfd", rel,
		    size);
	note_rel(rel);
	if (r.rc >= 0)
		printf("  = \"%.*s\"\n", (int)r.rc, buf);
}

static void readlink_abs(const char *path)
{
	char buf[PATH_MAX];
	struct sysres r = SYS(SYS_readlinkat, AT_FDCWD, path, buf, sizeof(buf));

	oracle_call(r, "readlinkat(AT_FDCWD, \"%s\", %zu)", path, sizeof(buf));
	oracle_note_canon("path", path);
	if (r.rc >= 0)
		printf("  = \"%.*s\"\n", (int)r.rc, buf);
}

static void make_tree(void)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(base, sizeof(base), "%s/repro-stat.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(base) == NULL || chdir(base) < 0) {
		perror("stat_paths: mkdtemp");
		exit(1);
	}
	fd = open("file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "hello\n", 6) != 6)
		exit(1);
	close(fd);
	close(open("ro", O_WRONLY | O_CREAT | O_CLOEXEC, 0444));
	if (symlink("file", "link") < 0 || symlink("loop2", "loop1") < 0 ||
	    symlink("loop1", "loop2") < 0 || mkdir("sub", 0755) < 0 || mkdir("shut", 0755) < 0)
		exit(1);
	close(open("shut/inside", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	chmod("shut", 0);
}

static void remove_tree(void)
{
	const char *names[] = { "file", "ro", "link", "loop1", "loop2", "sub/deep" };

	chmod("shut", 0755);
	unlink("shut/inside");
	rmdir("shut");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(names[i]);
	rmdir("sub");
	if (chdir("/") == 0)
		rmdir(base);
}

int main(void)
{
	char longname[5000];
	struct stat st;
	struct sysres r;
	int dirfd, filefd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	make_tree();
	dirfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	filefd = open("file", O_RDONLY | O_CLOEXEC);

	fstatat_rel(AT_FDCWD, "AT_FDCWD", "file", 0, "0");
	fstatat_rel(AT_FDCWD, "AT_FDCWD", "link", 0, "0");
	fstatat_rel(AT_FDCWD, "AT_FDCWD", "link", AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW");
	fstatat_rel(dirfd, "dirfd", "sub", 0, "0");
	fstatat_rel(AT_FDCWD, "AT_FDCWD", "missing/x", 0, "0");
	fstatat_rel(AT_FDCWD, "AT_FDCWD", "file/x", 0, "0");
	fstatat_rel(AT_FDCWD, "AT_FDCWD", "loop1", 0, "0");
	fstatat_rel(AT_FDCWD, "AT_FDCWD", "shut/inside", 0, "0");
	fstatat_rel(AT_FDCWD, "AT_FDCWD", "link/", 0, "0");
	fstatat_rel(AT_FDCWD, "AT_FDCWD", "sub/../file", 0, "0");
	r = SYS(SYS_newfstatat, 999, "file", &st, 0);
	oracle_call(r, "newfstatat(999, \"file\", 0)");
	r = SYS(SYS_newfstatat, filefd, "x", &st, 0);
	oracle_call(r, "newfstatat(filefd, \"x\", 0)");
	r = SYS(SYS_newfstatat, AT_FDCWD, "", &st, 0);
	oracle_call(r, "newfstatat(AT_FDCWD, \"\", 0)");
	r = SYS(SYS_newfstatat, AT_FDCWD, "file", (void *)8, 0);
	oracle_call(r, "newfstatat(AT_FDCWD, \"file\", 0x8, 0)");
	r = SYS(SYS_newfstatat, AT_FDCWD, (void *)8, &st, 0);
	oracle_call(r, "newfstatat(AT_FDCWD, 0x8, 0)");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	r = SYS(SYS_newfstatat, AT_FDCWD, longname, &st, 0);
	oracle_call(r, "newfstatat(AT_FDCWD, \"aaa...\", 0)");
	longname[300] = '\0';
	r = SYS(SYS_newfstatat, AT_FDCWD, longname, &st, 0);
	oracle_call(r, "newfstatat(AT_FDCWD, \"a{300}\", 0)");

	/* the cwd is the calling process's, read at each call */
	if (chdir("sub") == 0) {
		r = SYS(SYS_newfstatat, AT_FDCWD, "../file", &st, 0);
		oracle_call(r, "newfstatat(AT_FDCWD, \"../file\", 0)");
		oracle_note("path", "%s/file", base); /* `..` resolved against the real directory */
		show_stat(r, &st);
	}
	if (chdir(base) < 0)
		return 1;

	statx_rel("file");
	statx_rel("missing");
	access_rel("ro", W_OK, "W_OK", 0);
	access_rel("file", X_OK, "X_OK", 0);
	access_rel("file", R_OK, "R_OK", AT_EACCESS);
	access_rel("shut/inside", F_OK, "F_OK", 0);
	readlink_rel(AT_FDCWD, "link", PATH_MAX);
	readlink_rel(dirfd, "link", 2);
	readlink_rel(AT_FDCWD, "file", PATH_MAX);

	/* /proc/self and /proc/thread-self name the program, not its tracer */
	stat_abs("/proc/self/status");
	stat_abs("/proc/thread-self/stat");
	stat_abs("/proc/self/fd");
	readlink_abs("/proc/self/cwd");
	stat_abs("/etc/passwd");
	{
		char fd0[PATH_MAX];
		ssize_t n = readlink("/proc/self/fd/0", fd0, sizeof(fd0) - 1);

		printf("# stdin is %.*s\n", n > 0 ? (int)n : 1, n > 0 ? fd0 : "?");
	}
	stat_kernel_only("/dev/stdin");
	stat_kernel_only("/proc/mounts");
	/* /proc/self itself is a symlink; through /proc/self/cwd a missing name is missing */
	lstat_kernel_only("/proc/self");
	stat_kernel_only("/proc/self/cwd/nonexistent");
	/* /proc/self/fd/77 by other names: only the program's fd 77 exists */
	if (dup2(filefd, 77) == 77 && symlink("/dev/fd/77", "lfd77") == 0 && chdir("/dev") == 0) {
		stat_kernel_only("fd/77");
		stat_kernel_only("//dev/fd/77");
		stat_kernel_only("/proc/./self/fd/77");
		if (chdir(base) == 0)
			stat_kernel_only("lfd77");
		unlink("lfd77");
		close(77);
	}

	close(filefd);
	close(dirfd);
	remove_tree();
	return 0;
}
