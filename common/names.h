#ifndef REPRO_COMMON_NAMES_H
#define REPRO_COMMON_NAMES_H

/*
 * The one namer of errno values and signals, both ways, for every part:
 * events.jsonl, manifest.json, trace.txt, fault rules and the readers spell
 * them the same (docs/bundle-format.md, "Conventions").
 */

#include <stdbool.h>
#include <stddef.h>

/*
 * repro_errno_name - "ENOENT" (strerrorname_np(3)); the kernel's restart
 * codes that a tracer sees at a syscall's exit by their kernel names
 * (ERESTARTSYS 512, ERESTARTNOINTR, ERESTARTNOHAND, ENOIOCTLCMD,
 * ERESTART_RESTARTBLOCK 516: include/linux/errno.h); any other value
 * "E<n>" written into buf (cap bytes).  Returns a static string or buf.
 */
const char *repro_errno_name(int errnum, char *buf, size_t cap);

/*
 * repro_errno_is_restart - whether errnum is one of the kernel's restart
 * codes (512-516: ERESTARTSYS .. ERESTART_RESTARTBLOCK, as the tracer sees
 * them at a syscall's exit; 515 ENOIOCTLCMD never reaches a program): a signal
 * interrupted the call, which the kernel or libc starts again.
 */
bool repro_errno_is_restart(int errnum);

/*
 * repro_errno_parse - the value of an errno name as repro_errno_name()
 * writes it ("ENOENT", "ERESTARTSYS", "E4000"), or -1.  Linear in the
 * errno values (4095 at most).
 */
int repro_errno_parse(const char *name);

/*
 * repro_signal_name - "SIGTERM" (sigabbrev_np(3)); a real-time signal
 * "SIGRTMIN+N" (N from glibc's SIGRTMIN, as kill -l counts); any other
 * number "SIG<n>"; written into buf (cap bytes, at least 16).  Returns buf.
 */
const char *repro_signal_name(int sig, char *buf, size_t cap);

/*
 * repro_signal_parse - the number of a signal name: "SIGTERM", "TERM" or
 * "term", "SIGRTMIN+3", "RTMAX-1", "SIG37"; -1 for none.  Accepts every
 * spelling repro_signal_name() writes.
 */
int repro_signal_parse(const char *name);

#endif
