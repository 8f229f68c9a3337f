/*
 * libarchive through dlopen(3): bundles/archive_lib.h says why.
 */
#include "bundles/archive_util.h"
#include "common/xalloc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#ifndef REPRO_LIBARCHIVE_SONAME
#define REPRO_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

struct bndl_archive_lib bndl_archive_fns;

/* The outcome of the one load: NULL when it worked, else what failed (never freed). */
static char *load_failure;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Where each function's pointer goes, by name. */
static const struct {
	const char *name;
	size_t offset;
} symbols[] = {
#define BNDL_ARCHIVE_ENTRY(fn) { #fn, offsetof(struct bndl_archive_lib, fn_##fn) },
	BNDL_ARCHIVE_SYMBOLS(BNDL_ARCHIVE_ENTRY)
#undef BNDL_ARCHIVE_ENTRY
};

/* dlerror() copied, or a fallback: the message of a failed load. */
static char *failure(const char *fallback)
{
	const char *e = dlerror();

	return repro_xstrdup(e != NULL ? e : fallback);
}

/* Open the library and look every function up; the handle is kept for the process's life. */
static void load(void)
{
	void *h = dlopen(REPRO_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		load_failure = failure("dlopen failed");
		return;
	}
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *fn = dlsym(h, symbols[i].name);

		if (fn == NULL) {
			load_failure = failure(symbols[i].name);
			return;
		}
		memcpy((char *)&bndl_archive_fns + symbols[i].offset, &fn, sizeof(fn));
	}
}

int bndl_archive_load(struct repro_err **err)
{
	(void)pthread_once(&load_once, load);
	if (load_failure != NULL)
		return repro_err_set(err, 0, "cannot load libarchive '%s': %s",
				     REPRO_LIBARCHIVE_SONAME, load_failure);
	return 0;
}
