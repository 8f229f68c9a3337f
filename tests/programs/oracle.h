/*
 * oracle.h - shared printing helpers for the test programs.
 *
 * Each program prints the calls it made in strace's form, followed by
 * indented annotation lines that say what repro must have recorded:
 *
 *	openat(AT_FDCWD, "rel_missing", O_RDONLY) = -1 ENOENT
 *	  path /tmp/repro-dirfd.Ab12Cd/rel_missing
 *
 * Annotations are "path", "newpath", "addr", "optval", "target" and "arch".
 * tests/integration/checks/oracle.py reads this output back and looks for a
 * matching event in events.jsonl, so the program's own stdout is the oracle
 * (the strace tests/ convention) and no golden file is needed.
 */
#ifndef REPRO_TESTS_ORACLE_H
#define REPRO_TESTS_ORACLE_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A raw result: the return value and, when it is negative, errno. */
struct sysres {
	long rc;
	int err;
};

/*
 * SYS(...) calls syscall(2) and captures errno in the same expression, so that
 * the order of evaluation of a later call's arguments cannot lose it.
 */
#define SYS(...)                                                                  \
	({                                                                        \
		long sys_rc_ = syscall(__VA_ARGS__);                              \
		(struct sysres){ .rc = sys_rc_, .err = sys_rc_ < 0 ? errno : 0 }; \
	})

/* Print " = RC" or " = -1 ENAME" after a call text given as a format. */
__attribute__((format(printf, 2, 3))) static inline void oracle_call(struct sysres r,
								     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (r.rc < 0)
		printf(" = -1 %s\n", strerrorname_np(r.err));
	else
		printf(" = %ld\n", r.rc);
}

/* Print one annotation line: "  KEY VALUE". */
__attribute__((format(printf, 2, 3))) static inline void oracle_note(const char *key,
								     const char *fmt, ...)
{
	va_list ap;

	printf("  %s ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/*
 * Print "  KEY CANONICAL" for the absolute path abs: its directory through
 * realpath(3) (`..`, symlinks and /proc/self resolved), its last component
 * as written; a path whose last component is `..` is a directory, resolved
 * whole.  This is what repro records as "path" (docs/bundle-format.md).
 */
static inline void oracle_note_canon(const char *key, const char *abs)
{
	char dir[PATH_MAX * 2 + 16], *slash, *real;
	const char *name;
	size_t n;

	snprintf(dir, sizeof(dir), "%s", abs);
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	slash = strrchr(dir, '/');
	name = slash != NULL ? slash + 1 : dir;
	if (strcmp(name, "..") == 0 || strcmp(name, ".") == 0) {
		real = realpath(dir, NULL);
		name = "";
	} else if (slash != NULL) {
		*slash = '\0';
		real = realpath(dir[0] ? dir : "/", NULL);
	} else {
		real = NULL;
	}
	if (real == NULL)
		oracle_note(key, "%s", abs);
	else if (name[0] == '\0')
		oracle_note(key, "%s", real);
	else
		oracle_note(key, "%s/%s", strcmp(real, "/") == 0 ? "" : real, name);
	free(real);
}

#endif /* REPRO_TESTS_ORACLE_H */
