#include "recorder/network.h"
#include "common/names.h"
#include "common/sysent.h"
#include "recorder/dns.h"
#include "recorder/flags.h"
#include "recorder/jsonstr.h"
#include "recorder/sockaddr.h"
#include "recorder/systab.h"
#include "bundles/json_util.h"
#include "bundles/spool.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Most DNS queries waiting for an answer, and most addresses with a known name. */
#define QUERIES_MAX 100000
#define NAMES_MAX 100000

/* A socket the program made: (pid, fd) -> what socket(2) said, and a pending connect. */
struct sock {
	int32_t pid, fd;
	int32_t domain, type;
	json_t *pending; /* a connect that returned EINPROGRESS, owned */
	uint64_t pending_t0;
	json_t *peer; /* owned: the address of the last connect that succeeded or is pending */
	/*
	 * owned: a connect that worked, written once its data phase is known
	 * (a BNDL_REC_SOCK record), or when the fd or its process goes
	 */
	json_t *conn;
	/* owned: the data phase, when it came while the connect was still pending */
	json_t *data;
	/* DNS over TCP: bytes of a message not complete yet, per direction (0 sent, 1 received) */
	uint8_t *stream[2]; /* owned */
	size_t stream_len[2];
};

/* A DNS query sent and not answered yet. */
struct query {
	int32_t pid, fd;
	uint16_t id, qtype;
	uint32_t tries;
	uint64_t t0;
	json_t *rec; /* owned: the lookup record being built */
};

struct net_state {
	struct rec_systab *tab;
	struct sock *socks;
	size_t n, cap;
	struct query *qs;
	size_t nq, qcap;
	json_t *names; /* ip -> name from DNS answers seen so far, owned */
	json_t *hosts; /* ip -> name from /etc/hosts when the run read it, owned */
	FILE *out;
	const char *out_path;
};

static struct sock *sock_find(struct net_state *ns, int32_t pid, int32_t fd, bool create)
{
	for (size_t i = ns->n; i-- > 0;)
		if (ns->socks[i].pid == pid && ns->socks[i].fd == fd)
			return &ns->socks[i];
	if (!create)
		return NULL;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 64;
		ns->socks = repro_xreallocarray(ns->socks, ns->cap, sizeof(*ns->socks));
	}
	ns->socks[ns->n] = (struct sock){ .pid = pid, .fd = fd, .domain = -1, .type = -1 };
	return &ns->socks[ns->n++];
}

/* connect(2) errno -> outcome word (docs/bundle-format.md). */
static const char *outcome_of(int64_t ret)
{
	switch ((int)-ret) {
	case 0: return "connected";
	case ECONNREFUSED: return "refused";
	case ETIMEDOUT: return "timed_out";
	case ENETUNREACH:
	case EHOSTUNREACH: return "unreachable";
	case EINPROGRESS:
	case EALREADY: return "in_progress";
	case EADDRINUSE: return "address_in_use";
	case EACCES:
	case EPERM: return "denied";
	case ENOENT: return "no_such_socket";
	default: return "failed";
	}
}

static void set_result(json_t *o, int64_t ret)
{
	const struct repro_sysent *s =
		repro_sysent_find(json_string_value(json_object_get(o, "syscall")));
	enum repro_sys_net role = s != NULL ? s->net : REPRO_NET_NONE;
	const char *ok = role == REPRO_NET_BIND	    ? "bound"
			 : role == REPRO_NET_LISTEN ? "listening"
			 : role == REPRO_NET_SEND   ? "sent"
						    : "connected";
	char buf[32];

	json_object_set_new(o, "outcome", json_string(ret < 0 ? outcome_of(ret) : ok));
	if (ret < 0)
		json_object_set_new(o, "errno",
				    json_string(repro_errno_name((int)-ret, buf, sizeof(buf))));
}

static int emit(struct net_state *ns, json_t *o, struct repro_err **err)
{
	cleanup_free char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	if (line == NULL || fprintf(ns->out, "%s\n", line) < 0)
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", ns->out_path);
	return 0;
}

/* A held connect, with what is known of its data phase, is written now. */
static int flush_conn(struct net_state *ns, struct sock *s, struct repro_err **err)
{
	json_t *o = s->conn;

	s->conn = NULL;
	json_decref(s->data);
	s->data = NULL;
	return o != NULL ? emit(ns, o, err) : 0;
}

static void add_first_byte(json_t *o);

/* A connect that worked waits for its data phase, unless it came already. */
static int hold_conn(struct net_state *ns, struct sock *s, json_t *o, struct repro_err **err)
{
	json_t *data = s->data;

	s->data = NULL;
	if (flush_conn(ns, s, err) < 0) {
		json_decref(o);
		json_decref(data);
		return -1;
	}
	if (data == NULL) {
		s->conn = o;
		return 0;
	}
	json_object_update(o, data);
	json_decref(data);
	add_first_byte(o);
	return emit(ns, o, err);
}

/* The name behind o's "ip": the last DNS answer that gave it, else /etc/hosts. */
static void add_name(const struct net_state *ns, json_t *o)
{
	const char *ip = bndl_json_str(o, "ip");
	json_t *name;

	if (ip == NULL)
		return;
	/* a connect to port 53 goes to the resolver resolv.conf names, not to a looked-up name */
	if (bndl_json_int(o, "port", 0) != 53 && (name = json_object_get(ns->names, ip)) != NULL) {
		json_object_set(o, "name", name);
		json_object_set_new(o, "name_source", json_string("dns"));
	} else if ((name = json_object_get(ns->hosts, ip)) != NULL) {
		json_object_set(o, "name", name);
		json_object_set_new(o, "name_source", json_string("hosts"));
	}
}

/* The record of one attempt: who, which call, where to. */
static json_t *attempt(const struct bndl_event *ev, const char *name, const struct sock *s)
{
	const struct bndl_blob *sa = NULL;
	json_t *o = json_object();
	char buf[64];

	for (uint16_t i = 0; i < ev->nblobs && sa == NULL; i++)
		if ((ev->blobs[i].kind & (uint16_t)~BNDL_BLOB_TRUNCATED) == BNDL_BLOB_SOCKADDR)
			sa = &ev->blobs[i];
	json_object_set_new(o, "kind", json_string("attempt"));
	json_object_set_new(o, "seq", json_integer((json_int_t)ev->seq));
	json_object_set_new(o, "pid", json_integer(ev->pid));
	json_object_set_new(o, "t_ns", json_integer((json_int_t)ev->t_ns));
	json_object_set_new(o, "syscall", json_string(name));
	json_object_set_new(o, "fd", json_integer((int32_t)ev->args[0]));
	if (s != NULL && s->type >= 0)
		json_object_set_new(o, "type",
				    json_string(rec_socktype_format((uint64_t)s->type & 0xf, buf,
								    sizeof(buf))));
	if (sa != NULL)
		json_object_update_missing_new(o, rec_sockaddr_json(sa->data, sa->len));
	else if (s != NULL && s->domain >= 0)
		json_object_set_new(
			o, "family",
			json_string(rec_domain_format((uint64_t)s->domain, buf, sizeof(buf))));
	json_object_set_new(o, "dur_ns", json_integer((json_int_t)ev->dur_ns));
	if (ev->flags & BNDL_EV_INJECTED)
		json_object_set_new(o, "injected", json_true());
	if ((ev->flags & BNDL_EV_INJECTED) && ev->status > 0)
		json_object_set_new(o, "rule", json_integer(ev->status));
	return o;
}

/* A pending non-blocking connect ends: by SO_ERROR, by a new connect, or unseen at the end. */
static int settle(struct net_state *ns, struct sock *s, int64_t ret, uint64_t t_end,
		  struct repro_err **err)
{
	json_t *o = s->pending;

	if (o == NULL)
		return 0;
	s->pending = NULL;
	if (ret == -EINPROGRESS) {
		/* closed, or its process ended, before the program learnt the outcome */
		json_object_set_new(o, "outcome", json_string("abandoned"));
		json_object_set_new(o, "errno", json_string("EINPROGRESS"));
	} else {
		json_object_del(o, "errno");
		set_result(o, ret);
	}
	/* an attempt still pending when the program ended has no known duration */
	json_object_set_new(o, "dur_ns",
			    t_end > s->pending_t0
				    ? json_integer((json_int_t)(t_end - s->pending_t0))
				    : json_null());
	json_object_set_new(o, "nonblocking", json_true());
	if (ret == 0)
		return hold_conn(ns, s, o, err);
	json_decref(s->data);
	s->data = NULL;
	return emit(ns, o, err);
}

static int on_socket(struct net_state *ns, const struct bndl_event *ev, struct repro_err **err)
{
	struct sock *s;

	if (ev->ret < 0)
		return 0;
	s = sock_find(ns, ev->pid, (int32_t)ev->ret, true);
	if (settle(ns, s, -EINPROGRESS, ev->t_ns, err) < 0 || /* the fd was closed and reused */
	    flush_conn(ns, s, err) < 0)
		return -1;
	s->domain = (int32_t)ev->args[0];
	s->type = (int32_t)ev->args[1];
	json_decref(s->peer);
	s->peer = NULL;
	s->stream_len[0] = s->stream_len[1] = 0;
	return 0;
}

/* Whether name is connect(2) (its network role). */
static bool is_connect(const char *name)
{
	const struct repro_sysent *s = repro_sysent_find(name);

	return s != NULL && s->net == REPRO_NET_CONNECT;
}

static int on_connect(struct net_state *ns, const struct bndl_event *ev, const char *name,
		      struct repro_err **err)
{
	struct sock *s = sock_find(ns, ev->pid, (int32_t)ev->args[0], true);
	json_t *o;

	if (s->pending != NULL && is_connect(name)) {
		/* connect again on a non-blocking socket: EALREADY while pending, then 0 or EISCONN */
		if (ev->ret == -EALREADY || ev->ret == -EINPROGRESS)
			return 0;
		return settle(ns, s, ev->ret == -EISCONN ? 0 : ev->ret, ev->t_ns + ev->dur_ns, err);
	}
	if (settle(ns, s, -EINPROGRESS, ev->t_ns, err) < 0)
		return -1;
	o = attempt(ev, name, s);
	add_name(ns, o);
	set_result(o, ev->ret);
	if (is_connect(name) && (ev->ret == 0 || ev->ret == -EINPROGRESS)) {
		json_decref(s->peer);
		s->peer = json_deep_copy(o);
	}
	if (ev->ret == -EINPROGRESS && is_connect(name)) {
		if (flush_conn(ns, s, err) < 0) {
			json_decref(o);
			return -1;
		}
		s->pending = o;
		s->pending_t0 = ev->t_ns;
		return 0;
	}
	if (is_connect(name) && ev->ret == 0)
		return hold_conn(ns, s, o, err);
	return emit(ns, o, err);
}

static int on_so_error(struct net_state *ns, const struct bndl_event *ev, struct repro_err **err)
{
	const struct bndl_blob *b = bndl_event_blob(ev, BNDL_BLOB_OUT, 3);
	struct sock *s = sock_find(ns, ev->pid, (int32_t)ev->args[0], false);
	int32_t val;

	if (s == NULL || s->pending == NULL || b == NULL || b->len < sizeof(val) || ev->ret != 0)
		return 0;
	memcpy(&val, b->data, sizeof(val));
	return settle(ns, s, -(int64_t)val, ev->t_ns + ev->dur_ns, err);
}

/* ---- DNS (docs/bundle-format.md "network.jsonl", lookups) ---- */

static const char *dns_outcome(const struct rec_dns_msg *m)
{
	switch (m->rcode) {
	case 0:
		if (m->truncated)
			return "truncated";
		return json_array_size(m->answers) > 0 ? "answered" : "no_answer";
	case 2: return "servfail";
	case 3: return "nxdomain";
	case 5: return "refused";
	default: return "failed";
	}
}

static struct query *query_find(struct net_state *ns, int32_t pid, int32_t fd, uint16_t id)
{
	for (size_t i = 0; i < ns->nq; i++)
		if (ns->qs[i].pid == pid && ns->qs[i].fd == fd && ns->qs[i].id == id)
			return &ns->qs[i];
	return NULL;
}

/* Write q's record with outcome (a response's, or timed_out) and forget q. */
static int query_end(struct net_state *ns, struct query *q, const struct rec_dns_msg *m,
		     uint64_t t_end, struct repro_err **err)
{
	json_t *o = q->rec;
	char buf[32];

	json_object_set_new(o, "tries", json_integer(q->tries));
	if (m != NULL) {
		json_object_set_new(o, "outcome", json_string(dns_outcome(m)));
		json_object_set_new(o, "rcode",
				    json_string(rec_dns_rcode_name(m->rcode, buf, sizeof(buf))));
		json_object_set(o, "answers", m->answers);
		json_object_set(o, "cnames", m->cnames);
	} else {
		json_object_set_new(o, "outcome", json_string("timed_out"));
	}
	json_object_set_new(o, "dur_ns",
			    t_end > q->t0 ? json_integer((json_int_t)(t_end - q->t0))
					  : json_null());
	*q = ns->qs[--ns->nq];
	return emit(ns, o, err);
}

/* A query the program sent: a new lookup, or a retry of one still unanswered. */
static void dns_query(struct net_state *ns, const struct bndl_event *ev, const struct sock *s,
		      const struct rec_dns_msg *m, const struct bndl_blob *sa)
{
	int32_t fd = (int32_t)ev->args[0];
	struct query *q = query_find(ns, ev->pid, fd, m->id);
	char buf[32];
	json_t *o;

	if (q != NULL) {
		q->tries++;
		return;
	}
	if (ns->nq >= QUERIES_MAX)
		return;
	if (ns->nq == ns->qcap) {
		ns->qcap = ns->qcap ? ns->qcap * 2 : 16;
		ns->qs = repro_xreallocarray(ns->qs, ns->qcap, sizeof(*ns->qs));
	}
	o = json_object();
	json_object_set_new(o, "kind", json_string("dns"));
	if (ev->flags & BNDL_EV_INJECTED) {
		json_object_set_new(o, "injected", json_true());
		if (ev->status > 0)
			json_object_set_new(o, "rule", json_integer(ev->status));
	}
	json_object_set_new(o, "seq", json_integer((json_int_t)ev->seq));
	json_object_set_new(o, "pid", json_integer(ev->pid));
	json_object_set_new(o, "t_ns", json_integer((json_int_t)ev->t_ns));
	json_object_set_new(o, "name", m->has_question ? json_string(m->name) : json_null());
	json_object_set_new(o, "qtype", json_string(rec_dns_type_name(m->qtype, buf, sizeof(buf))));
	json_object_set_new(
		o, "transport",
		json_string(s != NULL && (s->type & 0xf) == SOCK_STREAM ? "tcp" : "udp"));
	if (sa != NULL) {
		json_object_update_missing_new(o, rec_sockaddr_json(sa->data, sa->len));
	} else if (s != NULL && s->peer != NULL) {
		static const char *const keys[] = { "family", "ip", "port" };

		for (size_t k = 0; k < 3; k++)
			if (json_object_get(s->peer, keys[k]) != NULL)
				json_object_set(o, keys[k], json_object_get(s->peer, keys[k]));
	}
	ns->qs[ns->nq++] = (struct query){ .pid = ev->pid,
					   .fd = fd,
					   .id = m->id,
					   .qtype = m->qtype,
					   .tries = 1,
					   .t0 = ev->t_ns,
					   .rec = o };
}

/* Remember which name each answered address belongs to, for later attempts. */
static void learn_names(struct net_state *ns, const struct rec_dns_msg *m)
{
	size_t i;
	json_t *a;

	json_array_foreach (m->answers, i, a)
		if (json_object_size(ns->names) < NAMES_MAX)
			json_object_set_new(ns->names, json_string_value(a), json_string(m->name));
}

/* One DNS message (a UDP datagram, or one length-prefixed TCP message). */
static int dns_message(struct net_state *ns, const struct bndl_event *ev, const struct sock *s,
		       const uint8_t *p, size_t len, const struct bndl_blob *sa,
		       struct repro_err **err)
{
	struct rec_dns_msg m;
	struct query *q;
	int rc = 0;

	if (rec_dns_parse(p, len, &m) < 0)
		return 0;
	if (!m.response) {
		dns_query(ns, ev, s, &m, sa);
	} else if ((q = query_find(ns, ev->pid, (int32_t)ev->args[0], m.id)) != NULL) {
		if (m.has_question && q->qtype == m.qtype && json_array_size(m.answers) > 0)
			learn_names(ns, &m);
		if (ev->flags & BNDL_EV_INJECTED) { /* a fault rule rewrote the answer */
			json_object_set_new(q->rec, "injected", json_true());
			if (ev->status > 0)
				json_object_set_new(q->rec, "rule", json_integer(ev->status));
		}
		rc = query_end(ns, q, &m, ev->t_ns + ev->dur_ns, err);
	}
	rec_dns_msg_release(&m);
	return rc;
}

/*
 * DNS over TCP: each message follows a two-byte length (RFC 1035 4.2.2) and
 * may arrive over several calls, so bytes are kept per socket and direction
 * until a message is complete.  A cut capture resets the stream.
 */
static int dns_stream(struct net_state *ns, const struct bndl_event *ev, struct sock *s, int dir,
		      const struct bndl_blob *b, struct repro_err **err)
{
	size_t need, have = s->stream_len[dir] + b->len;
	uint8_t *buf;
	int rc = 0;

	if ((b->kind & BNDL_BLOB_TRUNCATED) || have > 2 + 65535) {
		s->stream_len[dir] = 0;
		return 0;
	}
	buf = s->stream[dir] = repro_xrealloc(s->stream[dir], have ? have : 1);
	memcpy(buf + s->stream_len[dir], b->data, b->len);
	while (rc == 0 && have >= 2 && have >= (need = 2 + (size_t)(buf[0] << 8 | buf[1]))) {
		rc = dns_message(ns, ev, s, buf + 2, need - 2, NULL, err);
		memmove(buf, buf + need, have - need);
		have -= need;
	}
	s->stream_len[dir] = have;
	return rc;
}

/* The payloads of one send (dir 0) or receive (dir 1) on a DNS socket. */
static int on_payloads(struct net_state *ns, const struct bndl_event *ev, int dir,
		       struct repro_err **err)
{
	const struct bndl_blob *sa = NULL;
	struct sock *s = sock_find(ns, ev->pid, (int32_t)ev->args[0], false);
	bool stream = s != NULL && (s->type & 0xf) == SOCK_STREAM;

	for (uint16_t i = 0; i < ev->nblobs && sa == NULL; i++)
		if ((ev->blobs[i].kind & (uint16_t)~BNDL_BLOB_TRUNCATED) == BNDL_BLOB_SOCKADDR)
			sa = &ev->blobs[i];
	for (uint16_t i = 0; i < ev->nblobs; i++) {
		const struct bndl_blob *b = &ev->blobs[i];
		int rc;

		if ((b->kind & (uint16_t)~BNDL_BLOB_TRUNCATED) != BNDL_BLOB_PAYLOAD)
			continue;
		rc = stream ? dns_stream(ns, ev, s, dir, b, err)
			    : dns_message(ns, ev, s, b->data, b->len, sa, err);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/*
 * A socket closed (fd >= 0), or a process ended (fd < 0): connects still in
 * progress were abandoned, queries never answered timed out.
 */
static int on_gone(struct net_state *ns, int32_t pid, int32_t fd, uint64_t t,
		   struct repro_err **err)
{
	for (size_t i = 0; i < ns->n; i++)
		if (ns->socks[i].pid == pid && (fd < 0 || ns->socks[i].fd == fd) &&
		    (settle(ns, &ns->socks[i], -EINPROGRESS, t, err) < 0 ||
		     flush_conn(ns, &ns->socks[i], err) < 0))
			return -1;
	for (size_t i = ns->nq; i-- > 0;)
		if (ns->qs[i].pid == pid && (fd < 0 || ns->qs[i].fd == fd) &&
		    query_end(ns, &ns->qs[i], NULL, t, err) < 0)
			return -1;
	return 0;
}

/* Sends; write and writev are events only on a DNS socket (DNS over TCP). */
static bool is_send(const struct repro_sysent *s)
{
	return (s->flags & REPRO_SYSF_DNS_IO) && s->wait == REPRO_WAIT_NONE;
}

/* Receives: recvfrom, recvmsg, recvmmsg, and read on a DNS socket. */
static bool is_receive(const struct repro_sysent *s)
{
	return s->net == REPRO_NET_RECV ||
	       ((s->flags & REPRO_SYSF_DNS_IO) && s->wait == REPRO_WAIT_READ);
}

static bool has_blob(const struct bndl_event *ev, uint16_t kind)
{
	for (uint16_t i = 0; i < ev->nblobs; i++)
		if ((ev->blobs[i].kind & (uint16_t)~BNDL_BLOB_TRUNCATED) == kind)
			return true;
	return false;
}

static int on_event(struct net_state *ns, const struct bndl_event *ev, struct repro_err **err)
{
	const char *name = rec_systab_name(ns->tab, ev->arch, ev->nr);
	const struct repro_sysent *s = rec_systab_lookup(ns->tab, ev->arch, ev->nr);

	if (name == NULL || s == NULL || (ev->flags & BNDL_EV_UNFINISHED))
		return 0;
	if (s->net == REPRO_NET_SOCKET)
		return on_socket(ns, ev, err);
	if (s->net == REPRO_NET_CLOSE)
		return ev->ret == 0 ? on_gone(ns, ev->pid, (int32_t)ev->args[0], ev->t_ns, err) : 0;
	if (is_send(s) && ev->ret >= 0 && has_blob(ev, BNDL_BLOB_PAYLOAD) &&
	    on_payloads(ns, ev, 0, err) < 0)
		return -1;
	if (is_receive(s))
		return ev->ret > 0 ? on_payloads(ns, ev, 1, err) : 0;
	if (s->net == REPRO_NET_CONNECT || s->net == REPRO_NET_BIND ||
	    (is_send(s) && has_blob(ev, BNDL_BLOB_SOCKADDR)))
		return on_connect(ns, ev, name, err);
	if (s->net == REPRO_NET_LISTEN) {
		json_t *o = attempt(ev, name, sock_find(ns, ev->pid, (int32_t)ev->args[0], false));

		set_result(o, ev->ret);
		return emit(ns, o, err);
	}
	if (s->net == REPRO_NET_SOCKOPT)
		return on_so_error(ns, ev, err);
	return 0;
}

static const char *sock_end_word(uint32_t end)
{
	switch (end) {
	case BNDL_SOCK_CLOSED: return "closed";
	case BNDL_SOCK_PEER_CLOSED: return "peer_closed";
	case BNDL_SOCK_RESET: return "reset";
	case BNDL_SOCK_TIMED_OUT: return "timed_out";
	case BNDL_SOCK_OPEN_AT_EXIT: return "open_at_exit";
	case BNDL_SOCK_LEFT_OPEN: return "left_open";
	default: return "unknown";
	}
}

static const char *proto_word(uint32_t proto)
{
	switch (proto) {
	case BNDL_PROTO_HTTP: return "http";
	case BNDL_PROTO_TLS: return "tls";
	case BNDL_PROTO_SSH: return "ssh";
	case BNDL_PROTO_HTTP2: return "http2";
	case BNDL_PROTO_REDIS: return "redis";
	default: return NULL;
	}
}

/* The keys a data phase adds to its connect (docs/bundle-format.md "network.jsonl"). */
static json_t *data_json(const struct bndl_sock_info *in)
{
	json_t *o = json_object();

	json_object_set_new(o, "sent", json_integer((json_int_t)in->sent));
	json_object_set_new(o, "received", json_integer((json_int_t)in->received));
	if (in->first_rx_ns != 0)
		json_object_set_new(o, "first_byte_t_ns",
				    json_integer((json_int_t)in->first_rx_ns));
	json_object_set_new(o, "end", json_string(sock_end_word(in->end)));
	json_object_set_new(o, "end_ns",
			    in->end_ns != 0 ? json_integer((json_int_t)in->end_ns) : json_null());
	if (proto_word(in->proto) != NULL)
		json_object_set_new(o, "proto", json_string(proto_word(in->proto)));
	return o;
}

/* Time to first byte: from the connect's end to the first byte received. */
static void add_first_byte(json_t *o)
{
	json_t *t = json_object_get(o, "first_byte_t_ns");
	int64_t done = bndl_json_int(o, "t_ns", 0) + bndl_json_int(o, "dur_ns", 0);

	if (json_is_integer(t))
		json_object_set_new(o, "first_byte_ns",
				    json_integer(json_integer_value(t) > done
							 ? json_integer_value(t) - done
							 : 0));
	json_object_del(o, "first_byte_t_ns");
}

/* A BNDL_REC_SOCK record: the data phase of the socket's connect. */
static int on_sock(struct net_state *ns, const struct bndl_event *ev, struct repro_err **err)
{
	const struct bndl_blob *b = bndl_event_blob(ev, BNDL_BLOB_STRUCT, 0);
	struct sock *s = sock_find(ns, ev->pid, (int32_t)ev->args[0], false);
	struct bndl_sock_info in;
	json_t *o;

	if (s == NULL || b == NULL || b->len < sizeof(in) ||
	    (s->conn == NULL && s->pending == NULL))
		return 0;
	memcpy(&in, b->data, sizeof(in));
	if (s->conn == NULL) { /* still pending: kept for the connect's end */
		json_decref(s->data);
		s->data = data_json(&in);
		return 0;
	}
	o = s->conn;
	s->conn = NULL;
	json_object_update_new(o, data_json(&in));
	add_first_byte(o);
	return emit(ns, o, err);
}

static int read_all(struct net_state *ns, const char *spool_dir, struct repro_err **err)
{
	struct bndl_spool_reader *r = bndl_spool_reader_open(spool_dir, err);
	struct bndl_event ev;
	int rc = 0, got;

	if (r == NULL)
		return -1;
	while (rc == 0 && (got = bndl_spool_reader_next(r, &ev, err)) == 1) {
		if (ev.type == BNDL_REC_SYSCALL)
			rc = on_event(ns, &ev, err);
		else if (ev.type == BNDL_REC_SOCK)
			rc = on_sock(ns, &ev, err);
		else if (ev.type == BNDL_REC_PROC_EXIT && ev.tid == ev.pid)
			rc = on_gone(ns, ev.pid, -1, ev.t_ns, err);
	}
	bndl_spool_reader_free(r);
	return rc < 0 || got < 0 ? -1 : 0;
}

/* ip -> first name of the /etc/hosts entries host.json lists (the run read /etc/hosts). */
static json_t *hosts_names(const char *spool_dir)
{
	cleanup_free char *path = repro_xasprintf("%s/host.json", spool_dir);
	cleanup_json json_t *host = json_load_file(path, 0, NULL);
	json_t *map = json_object(), *e;
	size_t i;

	json_array_foreach (json_object_get(host, "hosts_file"), i, e) {
		const char *ip = bndl_json_str(e, "ip");
		json_t *first = json_array_get(json_object_get(e, "names"), 0);

		if (ip != NULL && json_is_string(first) && json_object_get(map, ip) == NULL)
			json_object_set(map, ip, first);
	}
	return map;
}

static int finish(struct net_state *ns, struct repro_err **err)
{
	/* connects still in progress when the program ended: abandoned, no known duration */
	for (size_t i = 0; i < ns->n; i++)
		if (settle(ns, &ns->socks[i], -EINPROGRESS, ns->socks[i].pending_t0, err) < 0 ||
		    flush_conn(ns, &ns->socks[i], err) < 0)
			return -1;
	while (ns->nq > 0)
		if (query_end(ns, &ns->qs[ns->nq - 1], NULL, 0, err) < 0)
			return -1;
	return 0;
}

static void state_free(struct net_state *ns)
{
	for (size_t i = 0; i < ns->n; i++) {
		json_decref(ns->socks[i].pending);
		json_decref(ns->socks[i].peer);
		json_decref(ns->socks[i].conn);
		json_decref(ns->socks[i].data);
		free(ns->socks[i].stream[0]);
		free(ns->socks[i].stream[1]);
	}
	for (size_t i = 0; i < ns->nq; i++)
		json_decref(ns->qs[i].rec);
	free(ns->socks);
	free(ns->qs);
	json_decref(ns->names);
	json_decref(ns->hosts);
	rec_systab_free(ns->tab);
}

int rec_network_write(const char *spool_dir, const char *out_path, struct repro_err **err)
{
	struct net_state ns = { .tab = rec_systab_new(),
				.out_path = out_path,
				.names = json_object(),
				.hosts = hosts_names(spool_dir) };
	int fd = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = -1;

	if (fd < 0 || (ns.out = fdopen(fd, "w")) == NULL) {
		repro_err_set(err, errno, "cannot create '%s'", out_path);
		if (fd >= 0)
			close(fd);
	} else {
		rc = read_all(&ns, spool_dir, err);
		if (rc == 0)
			rc = finish(&ns, err);
		if (fclose(ns.out) != 0 && rc == 0)
			rc = repro_err_set(err, errno, "cannot write '%s'", out_path);
	}
	state_free(&ns);
	return rc;
}
