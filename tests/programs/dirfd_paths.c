/*
 * dirfd_paths - relative paths resolved through dirfds, dup'd and inherited
 * dirfds, chdir(2) and fchdir(2).
 *
 * Every call prints its own oracle: the call as made, and under it the
 * canonical path(s) a recorder must report (bundle-format.md: a relative
 * path is joined to the directory named by the dirfd, or to the cwd of the
 * calling thread at the time of the call, and `..` resolved).  The base directory comes from
 * mkdtemp(3) under $TMPDIR (default /tmp) and is removed at the end.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oracle.h"

static char base[PATH_MAX];

static void note_path(const char *key, const char *rel)
{
	char abs[PATH_MAX * 2];

	snprintf(abs, sizeof(abs), "%s%s%s", base, *rel ? "/" : "", rel);
	oracle_note_canon(key, abs);
}

static int open_dir(const char *path)
{
	struct sysres r = SYS(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	oracle_call(r, "openat(AT_FDCWD, \"%s\", O_RDONLY|O_DIRECTORY|O_CLOEXEC)", path);
	oracle_note("path", "%s", path);
	return (int)r.rc;
}

static void open_missing(int dirfd, const char *dirfd_text, const char *rel, const char *expect_rel)
{
	struct sysres r = SYS(SYS_openat, dirfd, rel, O_RDONLY | O_CLOEXEC);

	oracle_call(r, "openat(%s, \"%s\", O_RDONLY|O_CLOEXEC)", dirfd_text, rel);
	note_path("path", expect_rel);
}

/* A forked child inherits the dirfd: its relative open resolves the same way. */
static void child_open(int dirfd)
{
	char text[16];
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		snprintf(text, sizeof(text), "%d", dirfd);
		open_missing(dirfd, text, "sub/child_missing", "sub/child_missing");
		exit(0);
	}
	waitpid(pid, &status, 0);
}

static void link_calls(int dirfd, const char *fd_text)
{
	char buf[PATH_MAX];
	struct sysres r;

	r = SYS(SYS_symlinkat, "target-does-not-exist", dirfd, "link");
	oracle_call(r, "symlinkat(\"target-does-not-exist\", %s, \"link\")", fd_text);
	note_path("path", "link");
	oracle_note("target", "target-does-not-exist");
	r = SYS(SYS_readlinkat, dirfd, "link", buf, sizeof(buf));
	oracle_call(r, "readlinkat(%s, \"link\", \"target-does-not-exist\", %zu)", fd_text,
		    sizeof(buf));
	note_path("path", "link");
	r = SYS(SYS_unlinkat, dirfd, "link", 0);
	oracle_call(r, "unlinkat(%s, \"link\", 0)", fd_text);
	note_path("path", "link");
}

/* Called with the cwd at base/sub. */
static void dir_calls(int dirfd, const char *fd_text)
{
	struct sysres r;

	r = SYS(SYS_mkdirat, dirfd, "newdir", 0755);
	oracle_call(r, "mkdirat(%s, \"newdir\", 0755)", fd_text);
	note_path("path", "newdir");
	r = SYS(SYS_mkdirat, AT_FDCWD, "newdir", 0755);
	oracle_call(r, "mkdirat(AT_FDCWD, \"newdir\", 0755)");
	note_path("path", "sub/newdir");
#ifdef SYS_renameat
	r = SYS(SYS_renameat, dirfd, "newdir", AT_FDCWD, "newdir");
	oracle_call(r, "renameat(%s, \"newdir\", AT_FDCWD, \"newdir\")", fd_text);
#else
	r = SYS(SYS_renameat2, dirfd, "newdir", AT_FDCWD, "newdir", 0);
	oracle_call(r, "renameat2(%s, \"newdir\", AT_FDCWD, \"newdir\", 0)", fd_text);
#endif
	note_path("path", "newdir");
	note_path("newpath", "sub/newdir");
	r = SYS(SYS_unlinkat, AT_FDCWD, "newdir", AT_REMOVEDIR);
	oracle_call(r, "unlinkat(AT_FDCWD, \"newdir\", AT_REMOVEDIR)");
	note_path("path", "sub/newdir");
	r = SYS(SYS_unlinkat, dirfd, "newdir", AT_REMOVEDIR);
	oracle_call(r, "unlinkat(%s, \"newdir\", AT_REMOVEDIR)", fd_text);
	note_path("path", "newdir");
}

static int make_base(void)
{
	const char *tmp = getenv("TMPDIR");
	char sub[PATH_MAX + 8];

	snprintf(base, sizeof(base), "%s/repro-dirfd.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		return -1;
	snprintf(sub, sizeof(sub), "%s/sub", base);
	return mkdir(sub, 0755);
}

int main(void)
{
	char fd_text[16];
	struct sysres r;
	int dirfd, dupfd, subfd;

	if (make_base() < 0) {
		perror("dirfd_paths: mkdtemp");
		return 1;
	}
	printf("dirfd_paths: base %s\n", base);
	dirfd = open_dir(base);
	dupfd = dup(dirfd);
	printf("dup(%d) = %d\n", dirfd, dupfd);
	snprintf(fd_text, sizeof(fd_text), "%d", dupfd);
	open_missing(dupfd, fd_text, "sub/missing", "sub/missing");
	child_open(dupfd);

	r = SYS(SYS_chdir, base);
	oracle_call(r, "chdir(\"%s\")", base);
	oracle_note("path", "%s", base);
	open_missing(AT_FDCWD, "AT_FDCWD", "rel_missing", "rel_missing");

	r = SYS(SYS_openat, dupfd, "sub", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	subfd = (int)r.rc;
	oracle_call(r, "openat(%s, \"sub\", O_RDONLY|O_DIRECTORY|O_CLOEXEC)", fd_text);
	note_path("path", "sub");
	r = SYS(SYS_fchdir, subfd);
	oracle_call(r, "fchdir(%d)", subfd);
	open_missing(AT_FDCWD, "AT_FDCWD", "after_fchdir_missing", "sub/after_fchdir_missing");
	open_missing(AT_FDCWD, "AT_FDCWD", "../dotdot_missing", "dotdot_missing");

	link_calls(dupfd, fd_text);
	dir_calls(dupfd, fd_text);

	/* Clean up without printing: these are not part of the oracle. */
	if (chdir("/") < 0 || unlinkat(dupfd, "sub", AT_REMOVEDIR) < 0 || rmdir(base) < 0) {
		perror("dirfd_paths: cleanup");
		return 1;
	}
	return 0;
}
