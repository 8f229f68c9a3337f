#ifndef REPRO_LAUNCHER_ABI_H
#define REPRO_LAUNCHER_ABI_H

/*
 * Facts about the system call ABIs of this machine, for readers of stops
 * (the recorder) as well as the launcher.  Implemented per architecture in
 * launcher/arch/<arch>.c; nothing here touches registers.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* lnch_arch_audit_token - AUDIT_ARCH_* of native calls (seccomp_data.arch). */
uint32_t lnch_arch_audit_token(void);

/* lnch_arch_is_compat - true when arch is a compat (32-bit) ABI of this machine. */
bool lnch_arch_is_compat(uint32_t arch);

/* lnch_arch_name - short name of an AUDIT_ARCH_* value ("x86_64", "i386"), or "unknown". */
const char *lnch_arch_name(uint32_t arch);

/*
 * lnch_arch_filter_arches - the AUDIT_ARCH_* (equal to SCMP_ARCH_*) values (the same
 * numbers) the seccomp filter must cover: native first, then compat ABIs.
 * Returns how many were written to out (at most max).
 */
size_t lnch_arch_filter_arches(uint32_t *out, size_t max);

#endif
