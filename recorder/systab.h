#ifndef REPRO_RECORDER_SYSTAB_H
#define REPRO_RECORDER_SYSTAB_H

/*
 * The syscalls repro records, by number: the rows of the one table
 * (common/sysent.h) that the filter may stop, indexed by their numbers,
 * which come from libseccomp, resolved once per architecture by
 * rec_systab_new().
 */

#include "common/err.h"
#include "common/sysent.h"
#include "launcher/filter_rule.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The classes of --trace: bits of enum repro_sys_trace (common/sysent.h),
 * named here as the recorder's options and the manifest spell them.
 */
enum rec_class {
	REC_CLASS_FILE = REPRO_TRACE_FILE,
	REC_CLASS_NETWORK = REPRO_TRACE_NETWORK,
	REC_CLASS_PROCESS = REPRO_TRACE_PROCESS,
	REC_CLASS_ALL = REPRO_TRACE_ALL,
	REC_CLASS_ALWAYS = REPRO_TRACE_ALWAYS,
	REC_CLASS_OUTPUT = REPRO_TRACE_OUTPUT,
	REC_CLASS_ON_DEMAND = REPRO_TRACE_ON_DEMAND,
};

struct rec_systab;

/*
 * rec_systab_new - resolve every row the filter may stop (trace != 0) for the native and compat ABIs
 * (lnch_arch_filter_arches()).  Returns a table for rec_systab_free(), never
 * NULL (names a libseccomp does not know are left unresolved).
 */
struct rec_systab *rec_systab_new(void);
void rec_systab_free(struct rec_systab *t);

/*
 * rec_systab_lookup - the row for (arch, nr), or NULL when repro does not
 * decode that call.  Borrowed from the static table.
 */
const struct repro_sysent *rec_systab_lookup(const struct rec_systab *t, uint32_t arch, int nr);

/*
 * rec_systab_name - the libseccomp name of (arch, nr), or NULL for an unknown
 * number.  Borrowed from t, valid until rec_systab_free().
 */
const char *rec_systab_name(const struct rec_systab *t, uint32_t arch, int nr);

/*
 * rec_classes_parse - "file,network,process" (any subset, also "all" and
 * "%file"…) into REC_CLASS_* bits.  Returns 0, or -1 with *err (EINVAL naming
 * the unknown word).
 */
int rec_classes_parse(const char *text, unsigned *classes, struct repro_err **err);

/* rec_classes_format - "file,network,process" for bits; static buffer-free: writes into buf. */
void rec_classes_format(unsigned classes, char *buf, size_t cap);

/*
 * rec_filter_rules - the seccomp rules for classes: every table entry of
 * those classes, with argument conditions so that calls that teach nothing
 * do not stop (fstat-style newfstatat/statx with AT_EMPTY_PATH).  Returns a new array
 * the caller frees; *n gets its length.
 */
struct lnch_filter_rule *rec_filter_rules(unsigned classes, size_t *n);

/*
 * rec_filter_rules_with - rec_filter_rules() plus the calls named in extra
 * (nextra libseccomp names, borrowed: they must outlive the rules), which
 * stop whatever their arguments: a policy acts on them (fault rules).  A
 * name already there loses its argument condition.  Linear in the table
 * times nextra.
 */
struct lnch_filter_rule *rec_filter_rules_with(unsigned classes, const char *const *extra,
					       size_t nextra, size_t *n);

#endif
