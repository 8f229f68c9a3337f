#ifndef REPRO_LAUNCHER_ARCH_H
#define REPRO_LAUNCHER_ARCH_H

/*
 * The only place that knows registers.  One launcher/arch/<arch>.c per
 * architecture, chosen by CMake from CMAKE_SYSTEM_PROCESSOR.  Reading goes
 * through PTRACE_GET_SYSCALL_INFO everywhere; these hooks exist for what the
 * generic path cannot do.
 */

#include "common/err.h"
#include "launcher/abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * lnch_arch_set_syscall_nr - at a syscall-entry or seccomp stop, change the
 * syscall number of tid (-1 skips the call, as strace does).  Returns 0, or -1
 * with *err (errno from ptrace(2)).
 */
int lnch_arch_set_syscall_nr(pid_t tid, int nr, struct repro_err **err);

/*
 * lnch_arch_set_return - at a syscall-exit stop, set the return value of tid
 * (-errno for a failure).  Returns 0, or -1 with *err.
 */
int lnch_arch_set_return(pid_t tid, int64_t ret, struct repro_err **err);

/*
 * lnch_arch_stack_pointer - at a stop of tid, its stack pointer into *sp.
 * Returns 0, or -1 with *err.
 */
int lnch_arch_stack_pointer(pid_t tid, uint64_t *sp, struct repro_err **err);

/*
 * lnch_arch_set_arg - at a syscall-entry or seccomp stop, make argument i
 * (0..5) of tid's call val.  Returns 0, or -1 with *err.
 */
int lnch_arch_set_arg(pid_t tid, int i, uint64_t val, struct repro_err **err);

/*
 * lnch_arch_restart_interrupted - at a signal-delivery-stop of tid: when the
 * call it was in returned -ERESTARTSYS and is native syscall nrs[i] (one of
 * n), make it -ERESTARTNOINTR, so that the kernel restarts it after the
 * signal handler whatever SA_RESTART says (signal(7), "Interruption of
 * system calls and library functions by signal handlers").  A call waiting
 * for a seccomp notification ends that way when a signal comes before the
 * tracer has received it (seccomp_unotify(2)); the same call without a
 * tracer would not have been interrupted.  Calls of 32-bit processes are
 * left alone.  Returns 1 when it changed the result, 0 when not, -1 with
 * *err when the registers cannot be read or written.
 */
int lnch_arch_restart_interrupted(pid_t tid, const int *nrs, size_t n, struct repro_err **err);

/*
 * lnch_arch_interrupted_call - at a signal-delivery-stop of tid: when a
 * signal took it out of a native call (the call returned one of the
 * kernel's restart codes, -ERESTARTSYS .. -ERESTART_RESTARTBLOCK), fill *nr
 * and args[0..5] with that call and return 1; return 0 when the task was
 * not in a call (or is a 32-bit process), -1 when its registers cannot be
 * read (errno from ptrace(2)).
 */
int lnch_arch_interrupted_call(pid_t tid, int *nr, uint64_t args[6]);

#endif
