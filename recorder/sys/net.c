/* Capture of %network arguments: sockaddrs (connect, bind, sendto, sendmsg) and SO_ERROR. */
#include "recorder/capture.h"
#include "launcher/abi.h"
#include "launcher/mem.h"

#include <string.h>
#include <sys/socket.h>

static void capture_sockaddr_at(struct rec_capture *c, pid_t tid, int i, uint64_t addr,
				uint64_t len)
{
	void *buf;

	if (addr == 0 || len == 0)
		return;
	if (len > sizeof(struct sockaddr_storage))
		len = sizeof(struct sockaddr_storage);
	buf = rec_capture_reserve(c, BNDL_BLOB_SOCKADDR, (uint16_t)i, (size_t)len);
	if (buf == NULL)
		return;
	if (lnch_mem_read(tid, addr, buf, (size_t)len) < 0) {
		c->ev.nblobs--;
		return;
	}
	rec_capture_commit(c, (size_t)len);
}

/* struct msghdr as the tracee's ABI lays it out: 64-bit here, 32-bit for compat calls. */
static bool read_msg_name(const struct lnch_stop *st, uint64_t *name, uint64_t *namelen)
{
	if (lnch_arch_is_compat(st->arch)) {
		uint32_t m[2];

		if (lnch_mem_read(st->tid, st->args[1], m, sizeof(m)) < 0)
			return false;
		*name = m[0];
		*namelen = m[1];
		return true;
	}
	struct msghdr m;

	if (lnch_mem_read(st->tid, st->args[1], &m, sizeof(m)) < 0)
		return false;
	*name = (uint64_t)(uintptr_t)m.msg_name;
	*namelen = m.msg_namelen;
	return true;
}

bool rec_net_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		     enum rec_arg_kind kind)
{
	uint64_t name = 0, namelen = 0;

	switch ((int)kind) {
	case RA_SOCKADDR:
		capture_sockaddr_at(c, st->tid, i, st->args[i], st->args[i + 1]);
		return true;
	case RA_MSGHDR:
		/* only a sendmsg with a destination says where the program tried to go */
		if (!read_msg_name(st, &name, &namelen) || name == 0)
			return false;
		capture_sockaddr_at(c, st->tid, i, name, namelen);
		return true;
	case RA_SOCKLEVEL: return (int)st->args[i] == SOL_SOCKET;
	default: return true;
	}
}

void rec_net_capture_exit(struct rec_capture *c, const struct lnch_stop *st, int i,
			  enum rec_arg_kind kind)
{
	int32_t val;
	void *buf;

	if (kind != RA_SOCKOPTVAL || st->ret != 0 || c->ev.args[i] == 0)
		return;
	if (lnch_mem_read(st->tid, c->ev.args[i], &val, sizeof(val)) < 0)
		return;
	buf = rec_capture_reserve(c, BNDL_BLOB_OUT, (uint16_t)i, sizeof(val));
	if (buf != NULL)
		memcpy(buf, &val, sizeof(val));
}
