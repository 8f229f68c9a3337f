#ifndef REPRO_COMMON_ERR_H
#define REPRO_COMMON_ERR_H

#include <stdbool.h>

/*
 * The error value of repro (see docs/errors.md).
 *
 * A function that can fail takes `struct repro_err **err` as its last
 * parameter and returns -1 (or NULL) on failure, 0 (or a pointer) on success.
 * On failure *err is always set; on success it is left untouched.
 */
struct repro_err {
	int errnum; /* an errno value, or 0 when none applies */
	char *msg; /* owned; lower-case, no trailing full stop */
};

/*
 * repro_err_set - allocate an error into *err (err may be NULL: then the error
 * is dropped).  errnum: errno value or 0.  Returns -1 so that a call site can
 * `return repro_err_set(...)`.  If *err is already set, it is replaced.
 */
int repro_err_set(struct repro_err **err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * repro_err_wrap - prepend "CONTEXT: " to the message of *err (which must be
 * set).  Returns -1.
 */
int repro_err_wrap(struct repro_err **err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* repro_err_is - true when *err is set and carries errnum. */
bool repro_err_is(struct repro_err *const *err, int errnum);

/* repro_err_free - free *err and set it to NULL; NULL-safe. */
void repro_err_free(struct repro_err **err);

/*
 * repro_err_format - the one-line text "MSG[: strerror(errnum)]" in a buffer
 * the caller frees.  Never fails (aborts on OOM).
 */
char *repro_err_format(const struct repro_err *e);

#endif
