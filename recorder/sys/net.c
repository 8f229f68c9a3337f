/*
 * Capture of %network arguments: sockaddrs given (connect, bind, sendto,
 * sendmsg) and filled by the kernel (accept, getsockname, getpeername, at
 * exit), socket options, socketpair's fds, and the payloads of DNS sockets
 * (sends at entry, receives at exit), deciding with the watched-socket set
 * (recorder/socks.h) which sends and receives are recorded whatever their
 * outcome, which only when they fail, and which closes are recorded at all.
 */
#include "recorder/capture.h"
#include "launcher/abi.h"
#include "launcher/mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* Bytes of one DNS message kept; longer ones are cut and flagged. */
#define DNS_PAYLOAD_MAX 4096u
/* Messages of one sendmmsg/recvmmsg kept (glibc sends A and AAAA together). */
#define MMSG_MAX 4u
#define IOV_MAX_READ 8u

/* A struct msghdr / struct iovec as the tracee's ABI lays them out. */
struct tmsg {
	uint64_t name, namelen, iov, iovlen;
};

static bool is_dns_addr(const void *sa, size_t len)
{
	const struct sockaddr_in *in = sa;
	const struct sockaddr_in6 *in6 = sa;
	sa_family_t fam;

	if (len < sizeof(fam))
		return false;
	memcpy(&fam, sa, sizeof(fam));
	if (fam == AF_INET && len >= sizeof(*in))
		return in->sin_port == htons(53);
	if (fam == AF_INET6 && len >= sizeof(*in6))
		return in6->sin6_port == htons(53);
	return false;
}

static unsigned watched(const struct rec_capture *c, const struct lnch_stop *st)
{
	return c->socks != NULL ? rec_socks_get(c->socks, st->pid, (int32_t)st->args[0]) : 0;
}

/* Capture the sockaddr at addr; returns its blob's data or NULL. */
static const void *capture_sockaddr_at(struct rec_capture *c, pid_t tid, int i, uint64_t addr,
				       uint64_t len)
{
	void *buf;

	if (addr == 0 || len == 0)
		return NULL;
	if (len > sizeof(struct sockaddr_storage))
		len = sizeof(struct sockaddr_storage);
	buf = rec_capture_reserve(c, BNDL_BLOB_SOCKADDR, (uint16_t)i, (size_t)len);
	if (buf == NULL)
		return NULL;
	if (lnch_mem_read(tid, addr, buf, (size_t)len) < 0) {
		c->ev.nblobs--;
		return NULL;
	}
	rec_capture_commit(c, (size_t)len);
	return buf;
}

static bool read_msg(const struct lnch_stop *st, uint64_t addr, struct tmsg *m)
{
	if (lnch_arch_is_compat(st->arch)) {
		uint32_t w[4];

		if (lnch_mem_read(st->tid, addr, w, sizeof(w)) < 0)
			return false;
		*m = (struct tmsg){ w[0], w[1], w[2], w[3] };
		return true;
	}
	struct msghdr h;

	if (lnch_mem_read(st->tid, addr, &h, sizeof(h)) < 0)
		return false;
	*m = (struct tmsg){ (uint64_t)(uintptr_t)h.msg_name, h.msg_namelen,
			    (uint64_t)(uintptr_t)h.msg_iov, h.msg_iovlen };
	return true;
}

/* Size of struct mmsghdr in the tracee's ABI (sendmmsg(2)). */
static size_t mmsg_size(const struct lnch_stop *st)
{
	return lnch_arch_is_compat(st->arch) ? 32 : sizeof(struct mmsghdr);
}

static size_t msghdr_size(const struct lnch_stop *st)
{
	return lnch_arch_is_compat(st->arch) ? 28 : sizeof(struct msghdr);
}

/* One payload blob of at most max bytes from a flat buffer. */
static void capture_payload(struct rec_capture *c, pid_t tid, int i, uint64_t addr, uint64_t len)
{
	size_t n = len > DNS_PAYLOAD_MAX ? DNS_PAYLOAD_MAX : (size_t)len;
	void *buf = rec_capture_reserve(c, BNDL_BLOB_PAYLOAD, (uint16_t)i, n);

	if (buf == NULL)
		return;
	if (n > 0 && lnch_mem_read(tid, addr, buf, n) < 0) {
		c->ev.nblobs--;
		return;
	}
	rec_capture_commit(c, n);
	if (n < len)
		c->ev.blobs[c->ev.nblobs - 1].kind |= BNDL_BLOB_TRUNCATED;
}

/*
 * One payload blob gathered from an iovec array, at most len bytes in all
 * (the bytes a receive got; DNS_PAYLOAD_MAX for a send, which moves what
 * its iovecs hold).  Marked truncated when the iovecs held more than it
 * keeps.  Linear in the iovecs (at most IOV_MAX_READ) and the bytes.
 */
static void capture_iov(struct rec_capture *c, const struct lnch_stop *st, int i, uint64_t iov,
			uint64_t iovlen, uint64_t len)
{
	size_t want = len > DNS_PAYLOAD_MAX ? DNS_PAYLOAD_MAX : (size_t)len, got = 0;
	uint64_t held = 0;
	bool compat = lnch_arch_is_compat(st->arch);
	char *buf = rec_capture_reserve(c, BNDL_BLOB_PAYLOAD, (uint16_t)i, want);

	if (buf == NULL)
		return;
	for (uint64_t k = 0; k < iovlen && k < IOV_MAX_READ; k++) {
		uint64_t base, blen;

		if (compat) {
			uint32_t v[2];

			if (lnch_mem_read(st->tid, iov + k * sizeof(v), v, sizeof(v)) < 0)
				break;
			base = v[0];
			blen = v[1];
		} else {
			struct iovec v;

			if (lnch_mem_read(st->tid, iov + k * sizeof(v), &v, sizeof(v)) < 0)
				break;
			base = (uint64_t)(uintptr_t)v.iov_base;
			blen = v.iov_len;
		}
		held += blen;
		if (blen > want - got)
			blen = want - got;
		if (blen > 0 && lnch_mem_read(st->tid, base, buf + got, (size_t)blen) < 0)
			break;
		got += (size_t)blen;
	}
	rec_capture_commit(c, got);
	if (got < (held < len ? held : len) || iovlen > IOV_MAX_READ)
		c->ev.blobs[c->ev.nblobs - 1].kind |= BNDL_BLOB_TRUNCATED;
}

/* What the first bytes a program sends look like (enum bndl_sock_proto); nothing is kept. */
static uint8_t proto_of(const uint8_t *p, size_t n)
{
	static const char *const methods[] = { "GET ",	 "POST ",    "PUT ",	 "HEAD ", "DELETE ",
					       "PATCH ", "OPTIONS ", "CONNECT ", NULL };

	if (n >= 14 && memcmp(p, "PRI * HTTP/2.0", 14) == 0)
		return BNDL_PROTO_HTTP2;
	for (const char *const *m = methods; *m != NULL; m++)
		if (n >= strlen(*m) && memcmp(p, *m, strlen(*m)) == 0)
			return BNDL_PROTO_HTTP;
	if (n >= 3 && p[0] == 0x16 && p[1] == 0x03 && p[2] <= 0x04)
		return BNDL_PROTO_TLS;
	if (n >= 4 && memcmp(p, "SSH-", 4) == 0)
		return BNDL_PROTO_SSH;
	if (n >= 4 && p[0] == '*' && p[1] >= '1' && p[1] <= '9' && memchr(p, '\r', n) != NULL)
		return BNDL_PROTO_REDIS;
	return BNDL_PROTO_UNKNOWN;
}

/*
 * At the first send on a counted socket: what its first bytes (at addr,
 * len of them) look like, read from the tracee (16 bytes at most).  O(1).
 */
static void sniff(struct rec_capture *c, const struct lnch_stop *st, uint64_t addr, uint64_t len)
{
	struct rec_sockstat *ss =
		c->socks != NULL ? rec_socks_data(c->socks, st->pid, (int32_t)st->args[0]) : NULL;
	uint8_t buf[16];
	size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);

	if (ss == NULL || ss->sniffed || n == 0)
		return;
	ss->sniffed = true;
	if (lnch_mem_read(st->tid, addr, buf, n) == 0)
		ss->proto = proto_of(buf, n);
}

/* The first iovec's base and length of a msghdr's iov array at iov. */
static bool first_iov(const struct lnch_stop *st, uint64_t iov, uint64_t iovlen, uint64_t *base,
		      uint64_t *len)
{
	if (iovlen == 0)
		return false;
	if (lnch_arch_is_compat(st->arch)) {
		uint32_t v[2];

		if (lnch_mem_read(st->tid, iov, v, sizeof(v)) < 0)
			return false;
		*base = v[0];
		*len = v[1];
		return true;
	}
	struct iovec v;

	if (lnch_mem_read(st->tid, iov, &v, sizeof(v)) < 0)
		return false;
	*base = (uint64_t)(uintptr_t)v.iov_base;
	*len = v.iov_len;
	return true;
}

/* sendto: the address when there is one; the payload when it goes to a DNS server. */
static bool capture_sendto(struct rec_capture *c, const struct lnch_stop *st)
{
	const void *sa = capture_sockaddr_at(c, st->tid, 4, st->args[4], st->args[5]);
	bool dns = (watched(c, st) & REC_SOCK_DNS) ||
		   (sa != NULL && is_dns_addr(sa, c->ev.blobs[c->ev.nblobs - 1].len));

	if (dns)
		capture_payload(c, st->tid, 1, st->args[1], st->args[2]);
	else
		sniff(c, st, st->args[1], st->args[2]);
	/* a send on a connected socket teaches nothing unless it is DNS */
	return dns || sa != NULL;
}

static bool capture_sendmsg(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	struct tmsg m;
	const void *sa;
	bool dns;

	if (!read_msg(st, st->args[i], &m))
		return false;
	sa = capture_sockaddr_at(c, st->tid, i, m.name, m.namelen);
	dns = (watched(c, st) & REC_SOCK_DNS) ||
	      (sa != NULL && is_dns_addr(sa, c->ev.blobs[c->ev.nblobs - 1].len));
	if (dns) {
		capture_iov(c, st, i, m.iov, m.iovlen, DNS_PAYLOAD_MAX);
	} else if (c->socks != NULL && rec_socks_data(c->socks, st->pid, (int32_t)st->args[0])) {
		uint64_t base, len;

		if (first_iov(st, m.iov, m.iovlen, &base, &len))
			sniff(c, st, base, len);
	}
	return dns || sa != NULL;
}

/*
 * sendmmsg, or recvmmsg at exit: the payload of each of the first messages
 * (at exit, msg_len says how many bytes each received).
 */
static void capture_mmsg(struct rec_capture *c, const struct lnch_stop *st, int i, uint64_t count,
			 bool at_exit)
{
	size_t sz = mmsg_size(st);

	for (uint64_t k = 0; k < count && k < MMSG_MAX; k++) {
		uint64_t at = st->args[i] + k * sz;
		uint32_t msg_len = DNS_PAYLOAD_MAX;
		struct tmsg m;

		if (!read_msg(st, at, &m))
			return;
		if (at_exit &&
		    lnch_mem_read(st->tid, at + msghdr_size(st), &msg_len, sizeof(msg_len)) < 0)
			return;
		if (!at_exit && k == 0 && m.name != 0)
			(void)capture_sockaddr_at(c, st->tid, i, m.name, m.namelen);
		capture_iov(c, st, i, m.iov, m.iovlen, msg_len);
	}
}

static bool capture_sendmmsg(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	uint16_t before = c->ev.nblobs;

	if (!(watched(c, st) & REC_SOCK_DNS)) {
		/* unconnected: the first message's destination decides */
		struct tmsg m;
		const void *sa;

		if (!read_msg(st, st->args[i], &m))
			return false;
		sa = capture_sockaddr_at(c, st->tid, i, m.name, m.namelen);
		if (sa == NULL || !is_dns_addr(sa, c->ev.blobs[c->ev.nblobs - 1].len))
			return false;
		c->ev.nblobs = before; /* captured again with the payloads */
	}
	capture_mmsg(c, st, i, st->args[2], false);
	return true;
}

/* setsockopt's value, when it is an int (optlen 4, as for nearly every option). */
static void capture_sockopt_in(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	int32_t val;
	void *buf;

	if (st->args[i + 1] != sizeof(val) ||
	    lnch_mem_read(st->tid, st->args[i], &val, sizeof(val)) < 0)
		return;
	buf = rec_capture_reserve(c, BNDL_BLOB_STRUCT, (uint16_t)i, sizeof(val));
	if (buf != NULL)
		memcpy(buf, &val, sizeof(val));
}

bool rec_net_capture_stream(struct rec_capture *c, const struct lnch_stop *st)
{
	if (!(watched(c, st) & REC_SOCK_DNS))
		return false;
	c->failure_only = false;
	if (c->sys->args[1].kind == RA_OUTBUF)
		capture_payload(c, st->tid, 1, st->args[1], st->args[2]);
	else if (c->sys->args[1].kind == RA_OUTIOV)
		capture_iov(c, st, 1, st->args[1], st->args[2], DNS_PAYLOAD_MAX);
	return true;
}

/* Whether a send or receive is kept whatever its outcome (it named a destination, or DNS). */
static void keep_if(struct rec_capture *c, bool keep)
{
	if (keep)
		c->failure_only = false;
}

bool rec_net_capture(struct rec_capture *c, const struct lnch_stop *st, int i,
		     enum repro_arg_kind kind)
{
	switch ((int)kind) {
	case RA_SOCKADDR:
		if (c->sys != NULL && c->sys->net != REPRO_NET_SEND)
			(void)capture_sockaddr_at(c, st->tid, i, st->args[i], st->args[i + 1]);
		return true;
	case RA_SENDBUF: keep_if(c, capture_sendto(c, st)); return true;
	case RA_MSGHDR: keep_if(c, capture_sendmsg(c, st, i)); return true;
	case RA_MMSGHDR: keep_if(c, capture_sendmmsg(c, st, i)); return true;
	case RA_RECVBUF:
	case RA_RMSGHDR:
	case RA_RMMSGHDR: keep_if(c, (watched(c, st) & REC_SOCK_DNS) != 0); return true;
	case RA_CLOSEFD: return (watched(c, st) & (REC_SOCK_DNS | REC_SOCK_PENDING)) != 0;
	case RA_SOCKOPTIN: capture_sockopt_in(c, st, i); return true;
	default: return true;
	}
}

/* count ints (at most 2) already read, as a BNDL_BLOB_OUT of argument i. */
static void store_out_int(struct rec_capture *c, int i, const int32_t *val, size_t count)
{
	void *buf = rec_capture_reserve(c, BNDL_BLOB_OUT, (uint16_t)i, count * sizeof(val[0]));

	if (buf != NULL)
		memcpy(buf, val, count * sizeof(val[0]));
}

/* One int the kernel wrote at addr, as a BNDL_BLOB_OUT of argument i. */
static void capture_out_int(struct rec_capture *c, const struct lnch_stop *st, int i, uint64_t addr,
			    size_t count)
{
	int32_t val[2];

	if (addr == 0 || count > 2 || lnch_mem_read(st->tid, addr, val, count * sizeof(val[0])) < 0)
		return;
	store_out_int(c, i, val, count);
}

/*
 * accept, getsockname, getpeername at exit: the length the kernel left in
 * *addrlen (the caller's size when the call failed), and on success the
 * address itself, at most that many bytes.  Two reads of the tracee: the
 * length, read once, is also what is kept of *addrlen.
 */
static void capture_sockaddr_out(struct rec_capture *c, const struct lnch_stop *st, int i)
{
	uint64_t addr = c->ev.args[i], lenp = c->ev.args[i + 1];
	int32_t len;

	if (lenp == 0 || lnch_mem_read(st->tid, lenp, &len, sizeof(len)) < 0)
		return;
	if (st->ret >= 0)
		(void)capture_sockaddr_at(c, st->tid, i, addr, (uint32_t)len);
	store_out_int(c, i + 1, &len, 1);
}

void rec_net_capture_exit(struct rec_capture *c, const struct lnch_stop *st, int i,
			  enum repro_arg_kind kind)
{
	struct tmsg m;

	switch ((int)kind) {
	case RA_SOCKOPTVAL:
		if (st->ret == 0)
			capture_out_int(c, st, i, c->ev.args[i], 1);
		return;
	case RA_SOCKADDR_OUT: capture_sockaddr_out(c, st, i); return;
	case RA_FDPAIR:
		if (st->ret == 0)
			capture_out_int(c, st, i, c->ev.args[i], 2);
		return;
	case RA_RECVBUF:
		if (st->ret > 0)
			capture_payload(c, st->tid, i, c->ev.args[i], (uint64_t)st->ret);
		return;
	case RA_RMSGHDR:
		if (st->ret > 0 && read_msg(st, c->ev.args[i], &m))
			capture_iov(c, st, i, m.iov, m.iovlen, (uint64_t)st->ret);
		return;
	case RA_RMMSGHDR:
		if (st->ret > 0) {
			struct lnch_stop at = *st;

			memcpy(at.args, c->ev.args, sizeof(at.args));
			capture_mmsg(c, &at, i, (uint64_t)st->ret, true);
		}
		return;
	default: return;
	}
}

/* The first sockaddr blob of the event, or NULL. */
static const struct bndl_blob *sockaddr_blob(const struct rec_capture *c)
{
	for (uint16_t k = 0; k < c->ev.nblobs; k++)
		if ((c->ev.blobs[k].kind & (uint16_t)~BNDL_BLOB_TRUNCATED) == BNDL_BLOB_SOCKADDR)
			return &c->ev.blobs[k];
	return NULL;
}

void rec_net_after(struct rec_capture *c, const struct lnch_stop *st)
{
	const struct bndl_blob *sa;
	int32_t fd = (int32_t)c->ev.args[0];
	bool dns;

	if (c->socks == NULL || c->sys == NULL)
		return;
	switch ((int)c->sys->net) {
	case REPRO_NET_SOCKET:
	case REPRO_NET_NEWFD:
		if (st->ret >= 0) /* a new socket on an fd number that may have been watched */
			rec_socks_set(c->socks, st->pid, (int32_t)st->ret, 0);
		return;
	case REPRO_NET_NEWPAIR:
		for (uint16_t k = 0; k < c->ev.nblobs; k++) {
			const struct bndl_blob *b = &c->ev.blobs[k];
			int32_t fds[2];

			if (b->kind != BNDL_BLOB_OUT || b->len != sizeof(fds))
				continue;
			memcpy(fds, c->arena + c->blob_off[k], sizeof(fds));
			rec_socks_set(c->socks, st->pid, fds[0], 0);
			rec_socks_set(c->socks, st->pid, fds[1], 0);
		}
		return;
	case REPRO_NET_CLOSE: rec_socks_set(c->socks, st->pid, fd, 0); return;
	case REPRO_NET_CONNECT:
		if (st->ret != 0 && st->ret != -EINPROGRESS)
			return;
		sa = sockaddr_blob(c);
		dns = sa != NULL && is_dns_addr(c->arena + c->blob_off[sa - c->ev.blobs], sa->len);
		rec_socks_set(c->socks, st->pid, fd,
			      (dns ? REC_SOCK_DNS : 0u) |
				      (st->ret == -EINPROGRESS ? REC_SOCK_PENDING : 0u));
		return;
	case REPRO_NET_SEND:
		sa = sockaddr_blob(c);
		if (st->ret >= 0 && sa != NULL &&
		    is_dns_addr(c->arena + c->blob_off[sa - c->ev.blobs], sa->len))
			rec_socks_set(c->socks, st->pid, fd,
				      rec_socks_get(c->socks, st->pid, fd) | REC_SOCK_DNS);
		return;
	default: return;
	}
}

void rec_net_count(struct rec_capture *c, const struct lnch_stop *st)
{
	enum repro_arg_kind k = c->sys->args[1].kind;
	bool rx = k == RA_RECVBUF || k == RA_RMSGHDR;
	bool tx = k == RA_SENDBUF || k == RA_MSGHDR || k == RA_OUTBUF || k == RA_OUTIOV;
	struct rec_sockstat *ss;
	uint8_t end = 0;

	if (c->socks == NULL || (!rx && !tx) ||
	    (ss = rec_socks_data(c->socks, c->ev.pid, (int32_t)c->ev.args[0])) == NULL)
		return;
	if (st->ret > 0 && tx) {
		ss->sent += (uint64_t)st->ret;
	} else if (st->ret > 0) {
		ss->received += (uint64_t)st->ret;
		if (ss->first_rx_ns == 0)
			ss->first_rx_ns = st->t_ns;
	} else if (st->ret == 0 && rx) {
		end = BNDL_SOCK_PEER_CLOSED; /* an orderly shutdown (a datagram of 0 bytes is rare) */
	} else if (st->ret == -EPIPE) {
		end = BNDL_SOCK_PEER_CLOSED;
	} else if (st->ret == -ECONNRESET) {
		end = BNDL_SOCK_RESET;
	} else if (st->ret == -ETIMEDOUT) {
		end = BNDL_SOCK_TIMED_OUT;
	}
	if (end != 0 && ss->end_ns == 0) {
		ss->end = end;
		ss->end_ns = st->t_ns;
	}
}
