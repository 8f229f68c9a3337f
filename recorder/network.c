#include "recorder/network.h"
#include "recorder/flags.h"
#include "recorder/jsonstr.h"
#include "recorder/sockaddr.h"
#include "recorder/systab.h"
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

/* A socket the program made: (pid, fd) -> what socket(2) said, and a pending connect. */
struct sock {
	int32_t pid, fd;
	int32_t domain, type;
	json_t *pending; /* a connect that returned EINPROGRESS, owned */
	uint64_t pending_t0;
};

struct net_state {
	struct rec_systab *tab;
	struct sock *socks;
	size_t n, cap;
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
	const char *call = json_string_value(json_object_get(o, "syscall"));
	const char *ok = "connected";
	char buf[32];

	if (call != NULL && strcmp(call, "bind") == 0)
		ok = "bound";
	else if (call != NULL && strcmp(call, "listen") == 0)
		ok = "listening";
	else if (call != NULL && (strcmp(call, "sendto") == 0 || strcmp(call, "sendmsg") == 0))
		ok = "sent";
	json_object_set_new(o, "outcome", json_string(ret < 0 ? outcome_of(ret) : ok));
	if (ret < 0)
		json_object_set_new(o, "errno",
				    json_string(rec_errno_name((int)-ret, buf, sizeof(buf))));
}

static int emit(struct net_state *ns, json_t *o, struct repro_err **err)
{
	cleanup_free char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	if (line == NULL || fprintf(ns->out, "%s\n", line) < 0)
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", ns->out_path);
	return 0;
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
	return emit(ns, o, err);
}

static int on_socket(struct net_state *ns, const struct bndl_event *ev, struct repro_err **err)
{
	struct sock *s;

	if (ev->ret < 0)
		return 0;
	s = sock_find(ns, ev->pid, (int32_t)ev->ret, true);
	if (settle(ns, s, -EINPROGRESS, ev->t_ns, err) < 0) /* the fd was closed and reused */
		return -1;
	s->domain = (int32_t)ev->args[0];
	s->type = (int32_t)ev->args[1];
	return 0;
}

static int on_connect(struct net_state *ns, const struct bndl_event *ev, const char *name,
		      struct repro_err **err)
{
	struct sock *s = sock_find(ns, ev->pid, (int32_t)ev->args[0], true);
	json_t *o;

	if (s->pending != NULL && strcmp(name, "connect") == 0) {
		/* connect again on a non-blocking socket: EALREADY while pending, then 0 or EISCONN */
		if (ev->ret == -EALREADY || ev->ret == -EINPROGRESS)
			return 0;
		return settle(ns, s, ev->ret == -EISCONN ? 0 : ev->ret, ev->t_ns + ev->dur_ns, err);
	}
	if (settle(ns, s, -EINPROGRESS, ev->t_ns, err) < 0)
		return -1;
	o = attempt(ev, name, s);
	set_result(o, ev->ret);
	if (ev->ret == -EINPROGRESS && strcmp(name, "connect") == 0) {
		s->pending = o;
		s->pending_t0 = ev->t_ns;
		return 0;
	}
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

static int on_event(struct net_state *ns, const struct bndl_event *ev, struct repro_err **err)
{
	const char *name = rec_systab_name(ns->tab, ev->arch, ev->nr);

	if (name == NULL || (ev->flags & BNDL_EV_UNFINISHED))
		return 0;
	if (strcmp(name, "socket") == 0)
		return on_socket(ns, ev, err);
	if (strcmp(name, "connect") == 0 || strcmp(name, "bind") == 0 ||
	    strcmp(name, "sendto") == 0 || strcmp(name, "sendmsg") == 0)
		return on_connect(ns, ev, name, err);
	if (strcmp(name, "listen") == 0) {
		json_t *o = attempt(ev, name, sock_find(ns, ev->pid, (int32_t)ev->args[0], false));

		set_result(o, ev->ret);
		return emit(ns, o, err);
	}
	if (strcmp(name, "getsockopt") == 0)
		return on_so_error(ns, ev, err);
	return 0;
}

static int read_all(struct net_state *ns, const char *spool_dir, struct repro_err **err)
{
	struct bndl_spool_reader *r = bndl_spool_reader_open(spool_dir, err);
	struct bndl_event ev;
	int rc = 0, got;

	if (r == NULL)
		return -1;
	while (rc == 0 && (got = bndl_spool_reader_next(r, &ev, err)) == 1)
		if (ev.type == BNDL_REC_SYSCALL)
			rc = on_event(ns, &ev, err);
	bndl_spool_reader_free(r);
	return rc < 0 || got < 0 ? -1 : 0;
}

int rec_network_write(const char *spool_dir, const char *out_path, struct repro_err **err)
{
	struct net_state ns = { .tab = rec_systab_new(), .out_path = out_path };
	int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = -1;

	if (fd < 0 || (ns.out = fdopen(fd, "w")) == NULL) {
		repro_err_set(err, errno, "cannot create '%s'", out_path);
		if (fd >= 0)
			close(fd);
	} else {
		rc = read_all(&ns, spool_dir, err);
		/* connects still in progress when the program ended: abandoned */
		for (size_t i = 0; rc == 0 && i < ns.n; i++)
			rc = settle(&ns, &ns.socks[i], -EINPROGRESS, ns.socks[i].pending_t0, err);
		if (fclose(ns.out) != 0 && rc == 0)
			rc = repro_err_set(err, errno, "cannot write '%s'", out_path);
	}
	for (size_t i = 0; i < ns.n; i++)
		json_decref(ns.socks[i].pending);
	free(ns.socks);
	rec_systab_free(ns.tab);
	return rc;
}
