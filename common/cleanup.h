#ifndef REPRO_COMMON_CLEANUP_H
#define REPRO_COMMON_CLEANUP_H

/*
 * Cleanup attributes for owned resources (GCC/Clang `cleanup`), after
 * bubblewrap and crun.  Every owning local is initialised where declared
 * (NULL, -1) and handed on only through steal_ptr()/steal_fd().
 * Library-handle helpers (archive, seccomp, jansson, io_uring) live next to the
 * code that uses those libraries, so that common/ depends on nothing.
 */

#include "err.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void repro_cleanup_free(void *p)
{
	free(*(void **)p);
}

static inline void repro_cleanup_close(const int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void repro_cleanup_fclose(FILE **f)
{
	if (*f != NULL)
		fclose(*f);
}

static inline void repro_cleanup_closedir(DIR **d)
{
	if (*d != NULL)
		closedir(*d);
}

static inline void repro_cleanup_err(struct repro_err **e)
{
	repro_err_free(e);
}

#define cleanup_free __attribute__((cleanup(repro_cleanup_free)))
#define cleanup_close __attribute__((cleanup(repro_cleanup_close)))
#define cleanup_fclose __attribute__((cleanup(repro_cleanup_fclose)))
#define cleanup_closedir __attribute__((cleanup(repro_cleanup_closedir)))
#define cleanup_err __attribute__((cleanup(repro_cleanup_err)))

/* steal_ptr - return *pp and set it to NULL (ownership moves to the caller). */
static inline void *repro_steal_ptr(void *pp)
{
	void **p = (void **)pp;
	void *v = *p;

	*p = NULL;
	return v;
}
#define steal_ptr(pp) repro_steal_ptr(pp)

/* steal_fd - return *fd and set it to -1. */
static inline int steal_fd(int *fd)
{
	int v = *fd;

	*fd = -1;
	return v;
}

#endif
