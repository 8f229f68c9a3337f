#ifndef REPRO_LAUNCHER_MEM_H
#define REPRO_LAUNCHER_MEM_H

/*
 * Reading tracee memory: process_vm_readv(2), falling back to
 * PTRACE_PEEKDATA word by word (as strace's umoven()) when the former is
 * refused (EPERM, ENOSYS).  Hot path: no allocation, no error objects.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * lnch_mem_read - copy len bytes at addr in tid into buf.
 * Returns 0, or -1 with errno (EFAULT for an unmapped address, ESRCH when
 * the tracee is gone).
 */
int lnch_mem_read(pid_t tid, uint64_t addr, void *buf, size_t len);

/*
 * lnch_mem_read_str - copy the NUL-terminated string at addr into buf (cap
 * bytes, cap >= 1); buf is always NUL-terminated.  Returns the string length
 * in bytes (< cap), or -1 with errno.  *truncated is set when the string was
 * longer than cap - 1 bytes.
 */
/*
 * lnch_mem_write - copy len bytes from buf into tid's memory at addr
 * (process_vm_writev(2)).  Returns 0, or -1 with errno (EFAULT, ESRCH,
 * a short write as EFAULT).
 */
int lnch_mem_write(pid_t tid, uint64_t addr, const void *buf, size_t len);

ssize_t lnch_mem_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap, bool *truncated);

#endif
