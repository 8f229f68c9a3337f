#include "launcher/mem.h"

#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE_GUESS 4096u

static int peek_read(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	unsigned char *out = buf;
	uint64_t word_addr = addr & ~(uint64_t)(sizeof(long) - 1);
	size_t skip = (size_t)(addr - word_addr);

	while (len > 0) {
		long word;
		size_t n;

		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, tid, (void *)word_addr, NULL);
		if (errno != 0)
			return -1;
		n = sizeof(long) - skip;
		if (n > len)
			n = len;
		memcpy(out, (unsigned char *)&word + skip, n);
		out += n;
		len -= n;
		word_addr += sizeof(long);
		skip = 0;
	}
	return 0;
}

int lnch_mem_read(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n;

	if (len == 0)
		return 0;
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0) {
		errno = EFAULT;
		return -1;
	}
	if (errno == EPERM || errno == ENOSYS)
		return peek_read(tid, addr, buf, len);
	return -1;
}

int lnch_mem_write(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec local = { .iov_base = (void *)buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_writev(tid, &local, 1, &remote, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		errno = EFAULT;
	return -1;
}

/* Read up to the end of the page holding addr, so a string that ends just before an unmapped page still reads. */
static ssize_t read_chunk(pid_t tid, uint64_t addr, char *buf, size_t want)
{
	size_t to_page = PAGE_GUESS - (size_t)(addr % PAGE_GUESS);

	if (want > to_page)
		want = to_page;
	if (lnch_mem_read(tid, addr, buf, want) < 0)
		return -1;
	return (ssize_t)want;
}

ssize_t lnch_mem_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap, bool *truncated)
{
	size_t len = 0;

	*truncated = false;
	if (addr == 0) {
		errno = EFAULT;
		return -1;
	}
	/* read up to cap bytes: a string of cap - 1 bytes has its NUL in the last one */
	while (len < cap) {
		ssize_t n = read_chunk(tid, addr + len, buf + len, cap - len);
		char *nul;

		if (n < 0) {
			/* what was readable before an unmapped page, or nothing */
			len = len < cap ? len : cap - 1;
			buf[len] = '\0';
			return len > 0 ? (ssize_t)len : -1;
		}
		nul = memchr(buf + len, '\0', (size_t)n);
		if (nul != NULL)
			return nul - buf;
		len += (size_t)n;
	}
	buf[cap - 1] = '\0';
	*truncated = true;
	return (ssize_t)(cap - 1);
}
