/* The decoded call for policies, from the entry's capture (recorder/describe.h). */
#include "recorder/describe.h"
#include "recorder/host.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <arpa/inet.h>
#include <seccomp.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static void pid_key(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "%d", (int)pid);
}

/* The first blob of kind, or NULL. */
static const struct bndl_blob *blob_of(const struct rec_capture *c, uint16_t kind, int argi)
{
	for (uint16_t i = 0; i < c->ev.nblobs; i++) {
		const struct bndl_blob *b = &c->ev.blobs[i];

		if ((b->kind & (uint16_t)~BNDL_BLOB_TRUNCATED) == kind &&
		    (argi < 0 || b->argi == argi))
			return b;
	}
	return NULL;
}

static const char *blob_text(const struct rec_capture *c, const struct bndl_blob *b)
{
	/* strings are NUL-terminated in the arena until the event is written (capture.c) */
	return b != NULL ? c->arena + c->blob_off[b - c->ev.blobs] : NULL;
}

/* family, ip (as text, in d) and port of a sockaddr of len bytes into call. */
static void put_sockaddr(struct rec_describe *d, const struct sockaddr_storage *ss, size_t len,
			 struct lnch_call *call)
{
	call->family = ss->ss_family;
	if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		call->ip = inet_ntop(AF_INET, &in->sin_addr, d->ip, sizeof(d->ip));
		call->port = ntohs(in->sin_port);
	} else if (ss->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		call->ip = inet_ntop(AF_INET6, &in6->sin6_addr, d->ip, sizeof(d->ip));
		call->port = ntohs(in6->sin6_port);
	}
}

static void describe_sockaddr(struct rec_describe *d, const struct rec_capture *c,
			      struct lnch_call *call)
{
	const struct bndl_blob *b = blob_of(c, BNDL_BLOB_SOCKADDR, -1);
	struct sockaddr_storage ss = { 0 };
	size_t len = b != NULL && b->len < sizeof(ss) ? b->len : sizeof(ss);

	if (b == NULL || b->len < sizeof(sa_family_t))
		return;
	memcpy(&ss, blob_text(c, b), len);
	put_sockaddr(d, &ss, len, call);
}

/* A copy of fd of pid (pidfd_getfd(2), Linux >= 5.6), or -1. */
static int copy_fd(pid_t pid, int fd)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
	cleanup_close int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	return pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0) : -1;
#else
	(void)pid;
	(void)fd;
	return -1;
#endif
}

/* SO_TYPE of fd in pid, through a copy of it; 0 unknown. */
static int socket_type(pid_t pid, int fd)
{
	cleanup_close int copy = copy_fd(pid, fd);
	int type = 0;
	socklen_t len = sizeof(type);

	if (copy < 0 || getsockopt(copy, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return 0;
	return type;
}

/*
 * A send or receive without an address of its own: the socket's peer
 * (getpeername(2) of a copy) and type, so that addr=, port= and type= see
 * the connection the bytes travel on.
 */
static void describe_peer(struct rec_describe *d, pid_t pid, int fd, struct lnch_call *call)
{
	cleanup_close int copy = copy_fd(pid, fd);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss), tlen = sizeof(call->sock_type);

	if (copy < 0 || getpeername(copy, (struct sockaddr *)&ss, &len) < 0)
		return;
	(void)getsockopt(copy, SOL_SOCKET, SO_TYPE, &call->sock_type, &tlen);
	put_sockaddr(d, &ss, len, call);
}

static const char *exe_of(struct rec_describe *d, pid_t pid)
{
	char link[64];
	ssize_t n;

	if (d->exe_pid == pid)
		return d->exe[0] != '\0' ? d->exe : NULL;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, d->exe, sizeof(d->exe) - 1);
	d->exe[n > 0 ? n : 0] = '\0';
	d->exe_pid = pid;
	return n > 0 ? d->exe : NULL;
}

/*
 * Whether sc reads or writes the descriptor of its first argument (a file,
 * as path= sees it): a call that moves bytes and is not a socket's;
 * copy_file_range's and splice's first is the file it reads (cat and cp
 * copy with it).
 */
static bool is_fd_io(const char *sc)
{
	const struct repro_sysent *s = repro_sysent_find(sc);

	return s != NULL && s->bytes != REPRO_BYTES_NONE && !(s->classes & REPRO_SYS_NETWORK);
}

/* The file descriptor fd of pid names, when it is a path ("/…"), or NULL. */
static const char *fd_path(struct rec_describe *d, pid_t pid, int fd)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, fd);
	n = readlink(link, d->fd_path, sizeof(d->fd_path) - 1);
	if (n <= 0 || d->fd_path[0] != '/')
		return NULL;
	d->fd_path[n] = '\0';
	return d->fd_path;
}

/* The name of native call nr outside the table (read, write …), from libseccomp, cached. */
static const char *name_of(struct rec_describe *d, int nr)
{
	if (nr < 0 || nr >= REC_DESCRIBE_NAMES)
		return NULL;
	if (d->names[nr] == NULL)
		d->names[nr] = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	return d->names[nr];
}

/*
 * The next DNS message of payload p (len bytes) from *off: a UDP message
 * is the whole payload; TCP's are each after a two-byte length (RFC 1035
 * 4.2.2), and a write may carry several (glibc's A and AAAA queries).  The
 * payload is TCP's when its lengths cover it exactly.  Returns false when
 * none is left.  Linear in the messages.
 */
static bool next_message(const uint8_t *p, size_t len, size_t *off, const uint8_t **msg,
			 size_t *mlen)
{
	size_t at = 0;

	while (at + 14 <= len && at + 2 + (size_t)(p[at] << 8 | p[at + 1]) <= len)
		at += 2 + (size_t)(p[at] << 8 | p[at + 1]);
	if (at != len || len == 0) { /* not length-prefixed: one UDP message */
		if (*off != 0)
			return false;
		*msg = p;
		*mlen = len;
		*off = len;
		return true;
	}
	if (*off + 2 > len)
		return false;
	*msg = p + *off + 2;
	*mlen = (size_t)(p[*off] << 8 | p[*off + 1]);
	*off += 2 + *mlen;
	return true;
}

/* The first DNS message of a payload blob, parsed. */
static bool parse_payload(const struct rec_capture *c, const struct bndl_blob *b,
			  struct rec_dns_msg *m)
{
	const uint8_t *msg;
	size_t off = 0, mlen;

	return next_message((const uint8_t *)blob_text(c, b), b->len, &off, &msg, &mlen) &&
	       rec_dns_parse(msg, mlen, m) == 0;
}

void rec_describe_learn(struct rec_describe *d, const struct rec_capture *c)
{
	for (uint16_t i = 0; i < c->ev.nblobs; i++) {
		const struct bndl_blob *b = &c->ev.blobs[i];
		struct rec_dns_msg m;
		size_t k;
		json_t *a;

		if ((b->kind & (uint16_t)~BNDL_BLOB_TRUNCATED) != BNDL_BLOB_PAYLOAD ||
		    !parse_payload(c, b, &m))
			continue;
		if (d->hosts == NULL)
			d->hosts = json_object();
		json_array_foreach (m.answers, k, a)
			if (m.response && m.has_question &&
			    json_object_size(d->hosts) < REC_DESCRIBE_HOSTS_MAX)
				json_object_set_new(d->hosts, json_string_value(a),
						    json_string(m.name));
		rec_dns_msg_release(&m);
	}
}

/*
 * The program's /etc/hosts (through /proc/PID/root, its mount namespace's
 * view): address -> the first name of its first line, as glibc's files
 * backend answers.  Read once (recorder/host.h's parser).
 */
static void read_etc_hosts(struct rec_describe *d, pid_t pid)
{
	char path[64];
	json_t *entries, *e;
	size_t i;

	d->read_etc_hosts = true;
	d->etc_hosts = json_object();
	snprintf(path, sizeof(path), "/proc/%d/root/etc/hosts", (int)pid);
	entries = rec_hosts_entries(path, false);
	json_array_foreach (entries, i, e) {
		const char *ip = json_string_value(json_object_get(e, "ip"));
		json_t *name = json_array_get(json_object_get(e, "names"), 0);

		if (ip != NULL && json_is_string(name) && json_object_get(d->etc_hosts, ip) == NULL)
			json_object_set(d->etc_hosts, ip, name);
	}
	json_decref(entries);
}

/* The name behind address ip: the run's DNS answers first, then /etc/hosts. */
static const char *host_of(struct rec_describe *d, pid_t pid, const char *ip)
{
	json_t *n = d->hosts != NULL ? json_object_get(d->hosts, ip) : NULL;

	if (n != NULL)
		return json_string_value(n);
	if (!d->read_etc_hosts)
		read_etc_hosts(d, pid);
	return json_string_value(json_object_get(d->etc_hosts, ip));
}

/* The ids of the queries in payload b (sendmmsg and a TCP write send A and AAAA together). */
static void query_ids(const struct rec_capture *c, const struct bndl_blob *b,
		      struct lnch_call *call)
{
	const uint8_t *msg;
	size_t off = 0, mlen;
	struct rec_dns_msg m;

	while (call->n_dns_ids < 4 &&
	       next_message((const uint8_t *)blob_text(c, b), b->len, &off, &msg, &mlen))
		if (rec_dns_parse(msg, mlen, &m) == 0) {
			call->dns_ids[call->n_dns_ids++] = m.id;
			rec_dns_msg_release(&m);
		}
}

/* A DNS query the call sends: its name, its ids, and what the call returns once sent. */
static void describe_query(struct rec_describe *d, const struct rec_capture *c,
			   const struct lnch_stop *st, struct lnch_call *call)
{
	const struct bndl_blob *b = blob_of(c, BNDL_BLOB_PAYLOAD, -1);
	struct rec_dns_msg m;

	if (b == NULL || !parse_payload(c, b, &m))
		return;
	if (!m.response && m.has_question) {
		snprintf(d->qname, sizeof(d->qname), "%s", m.name);
		call->is_dns_query = true;
		call->dns_name = d->qname;
		/* sendmmsg: messages; sendmsg, writev: the bytes; sendto, write: the length */
		call->dns_ret = c->sys->bytes == REPRO_BYTES_RESULT ? (int64_t)b->len
								    : (int64_t)st->args[2];
	}
	rec_dns_msg_release(&m);
	for (uint16_t i = 0; call->is_dns_query && i < c->ev.nblobs; i++)
		if ((c->ev.blobs[i].kind & (uint16_t)~BNDL_BLOB_TRUNCATED) == BNDL_BLOB_PAYLOAD)
			query_ids(c, &c->ev.blobs[i], call);
}

void rec_describe_call(struct rec_describe *d, const struct rec_capture *c,
		       const struct lnch_stop *st, struct lnch_call *call)
{
	const struct bndl_blob *path;

	call->exe = exe_of(d, st->pid);
	if (d->lineage != NULL) {
		char key[16];

		pid_key(key, sizeof(key), st->pid);
		call->lineage = json_string_value(json_object_get(d->lineage, key));
	}
	if (c == NULL || c->tid != st->tid)
		return;
	call->syscall = c->sys != NULL ? c->sys->name : name_of(d, call->nr);
	if (call->syscall == NULL)
		return;
	if (c->sys == NULL) {
		if (is_fd_io(call->syscall))
			call->path = fd_path(d, st->pid, (int)st->args[0]);
		return;
	}
	if ((path = blob_of(c, BNDL_BLOB_PATH, -1)) != NULL) {
		call->path = blob_text(c, path);
		call->path_as_written = blob_text(c, blob_of(c, BNDL_BLOB_STR, path->argi));
		for (uint16_t i = (uint16_t)(path - c->ev.blobs) + 1; i < c->ev.nblobs; i++)
			if ((c->ev.blobs[i].kind & (uint16_t)~BNDL_BLOB_TRUNCATED) ==
			    BNDL_BLOB_PATH) {
				call->path2 = blob_text(c, &c->ev.blobs[i]); /* rename's target */
				break;
			}
	}
	if (call->path == NULL && is_fd_io(call->syscall))
		call->path = fd_path(d, st->pid, (int)st->args[0]);
	describe_sockaddr(d, c, call);
	if (c->sys->net == REPRO_NET_SEND || c->sys->args[1].kind == RA_OUTBUF ||
	    c->sys->args[1].kind == RA_OUTIOV) /* a write's payload: DNS over TCP */
		describe_query(d, c, st, call);
	if (call->ip != NULL)
		call->host = host_of(d, st->pid, call->ip);
	if (c->sys->net == REPRO_NET_CONNECT ||
	    (call->family != 0 && c->sys->net == REPRO_NET_BIND))
		call->sock_type = socket_type(st->pid, (int)st->args[0]); /* connect, bind: type= */
	else if (call->family == 0 && (c->sys->flags & REPRO_SYSF_FAILURE_ONLY) &&
		 c->sys->net != REPRO_NET_NONE) /* a send or receive: the socket's peer */
		describe_peer(d, st->pid, (int)st->args[0], call);
}

void rec_describe_release(struct rec_describe *d)
{
	for (size_t i = 0; i < REC_DESCRIBE_NAMES; i++)
		free(d->names[i]);
	memset(d->names, 0, sizeof(d->names));
	json_decref(d->hosts);
	d->hosts = NULL;
	json_decref(d->etc_hosts);
	d->etc_hosts = NULL;
	json_decref(d->lineage);
	d->lineage = NULL;
}

/* Longest lineage kept (bytes); a longer one keeps its end. */
#define LINEAGE_MAX 8192

void rec_describe_spawn(struct rec_describe *d, pid_t parent, pid_t child)
{
	char pk[16], ck[16];
	json_t *l;

	if (d->lineage == NULL)
		d->lineage = json_object();
	pid_key(pk, sizeof(pk), parent);
	pid_key(ck, sizeof(ck), child);
	if ((l = json_object_get(d->lineage, pk)) != NULL)
		json_object_set(d->lineage, ck, l);
}

void rec_describe_exec(struct rec_describe *d, pid_t pid)
{
	char key[16], link[64], exe[PATH_MAX];
	const char *before;
	char *joined;
	size_t n;
	ssize_t len;

	if (d->lineage == NULL)
		d->lineage = json_object();
	pid_key(key, sizeof(key), pid);
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	len = readlink(link, exe, sizeof(exe) - 1);
	if (len <= 0)
		return;
	exe[len] = '\0';
	before = json_string_value(json_object_get(d->lineage, key));
	joined = repro_xasprintf("%s%s%s", before ? before : "", before ? " > " : "", exe);
	n = strlen(joined);
	json_object_set_new(d->lineage, key,
			    json_string(n > LINEAGE_MAX ? joined + n - LINEAGE_MAX : joined));
	free(joined);
}

void rec_describe_exit(struct rec_describe *d, pid_t pid)
{
	char key[16];

	pid_key(key, sizeof(key), pid);
	if (d->lineage != NULL)
		json_object_del(d->lineage, key);
}

void rec_describe_forget(struct rec_describe *d, pid_t pid)
{
	if (d->exe_pid == pid)
		d->exe_pid = 0;
}
