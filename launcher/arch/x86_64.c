/* x86_64 register access (arch/x86/include/uapi/asm/ptrace.h, struct user_regs_struct). */
#include "launcher/arch/arch.h"

#include <errno.h>
#include <linux/audit.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <elf.h>

uint32_t lnch_arch_audit_token(void)
{
	return AUDIT_ARCH_X86_64;
}

bool lnch_arch_is_compat(uint32_t arch)
{
	return arch == AUDIT_ARCH_I386;
}

const char *lnch_arch_name(uint32_t arch)
{
	switch (arch) {
	case AUDIT_ARCH_X86_64: return "x86_64";
	case AUDIT_ARCH_I386: return "i386";
	default: return "unknown";
	}
}

size_t lnch_arch_filter_arches(uint32_t *out, size_t max)
{
	static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386 };
	size_t n = 0;

	for (; n < max && n < sizeof(arches) / sizeof(arches[0]); n++)
		out[n] = arches[n];
	return n;
}

static int get_regs(pid_t tid, struct user_regs_struct *regs, struct repro_err **err)
{
	struct iovec iov = { .iov_base = regs, .iov_len = sizeof(*regs) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return repro_err_set(err, errno, "cannot read registers of tid %d", (int)tid);
	return 0;
}

static int set_regs(pid_t tid, struct user_regs_struct *regs, struct repro_err **err)
{
	struct iovec iov = { .iov_base = regs, .iov_len = sizeof(*regs) };

	if (ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return repro_err_set(err, errno, "cannot write registers of tid %d", (int)tid);
	return 0;
}

int lnch_arch_set_syscall_nr(pid_t tid, int nr, struct repro_err **err)
{
	struct user_regs_struct regs;

	if (get_regs(tid, &regs, err) < 0)
		return -1;
	/* orig_rax holds the number the kernel dispatches on after the stop. */
	regs.orig_rax = (unsigned long long)(long long)nr;
	return set_regs(tid, &regs, err);
}

int lnch_arch_stack_pointer(pid_t tid, uint64_t *sp, struct repro_err **err)
{
	struct user_regs_struct regs;

	if (get_regs(tid, &regs, err) < 0)
		return -1;
	*sp = regs.rsp;
	return 0;
}

int lnch_arch_set_arg(pid_t tid, int i, uint64_t val, struct repro_err **err)
{
	struct user_regs_struct regs;
	unsigned long long *slot[6] = { &regs.rdi, &regs.rsi, &regs.rdx,
					&regs.r10, &regs.r8,  &regs.r9 };

	if (i < 0 || i > 5)
		return repro_err_set(err, EINVAL, "no syscall argument %d", i);
	if (get_regs(tid, &regs, err) < 0)
		return -1;
	*slot[i] = val;
	return set_regs(tid, &regs, err);
}

int lnch_arch_set_return(pid_t tid, int64_t ret, struct repro_err **err)
{
	struct user_regs_struct regs;

	if (get_regs(tid, &regs, err) < 0)
		return -1;
	regs.rax = (unsigned long long)ret;
	return set_regs(tid, &regs, err);
}

/* include/linux/errno.h: kernel-internal restart codes, never seen by programs. */
#define ERESTARTSYS_ 512
#define ERESTARTNOINTR_ 513
#define ERESTART_RESTARTBLOCK_ 516
#define USER32_CS 0x23 /* the code segment of 32-bit processes */

int lnch_arch_restart_interrupted(pid_t tid, const int *nrs, size_t n, struct repro_err **err)
{
	struct user_regs_struct regs;

	if (get_regs(tid, &regs, err) < 0)
		return -1;
	if ((long long)regs.rax != -ERESTARTSYS_ || regs.cs == USER32_CS)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if ((long long)regs.orig_rax == nrs[i]) {
			regs.rax = (unsigned long long)-ERESTARTNOINTR_;
			return set_regs(tid, &regs, err) < 0 ? -1 : 1;
		}
	}
	return 0;
}

int lnch_arch_interrupted_call(pid_t tid, int *nr, uint64_t args[6])
{
	struct user_regs_struct regs;
	long long rax;

	if (get_regs(tid, &regs, NULL) < 0)
		return -1;
	rax = (long long)regs.rax;
	if (rax > -ERESTARTSYS_ || rax < -ERESTART_RESTARTBLOCK_ || regs.cs == USER32_CS ||
	    (long long)regs.orig_rax < 0)
		return 0;
	*nr = (int)regs.orig_rax;
	args[0] = regs.rdi;
	args[1] = regs.rsi;
	args[2] = regs.rdx;
	args[3] = regs.r10;
	args[4] = regs.r8;
	args[5] = regs.r9;
	return 1;
}
