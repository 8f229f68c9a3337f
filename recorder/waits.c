/* Long waits: spool records and waits.jsonl (recorder/waits.h). */
#include "recorder/waits.h"
#include "common/names.h"
#include "common/sysent.h"
#include "recorder/flags.h"
#include "recorder/sockaddr.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void add_blob(struct bndl_event *ev, uint16_t kind, uint16_t argi, const void *data,
		     uint32_t len)
{
	if (len == 0 || ev->nblobs >= BNDL_EVENT_MAX_BLOBS)
		return;
	ev->blobs[ev->nblobs++] =
		(struct bndl_blob){ .kind = kind, .argi = argi, .len = len, .data = data };
}

_Static_assert(BNDL_WAIT_INFO_V1_SIZE == 80, "older spools' wait info is 80 bytes");
_Static_assert(BNDL_WAIT_HOLDERS == LNCH_WAIT_HOLDERS, "one bound for the holders of a pipe");

/* The spool's form of what f's wait found of a pipe's other end. */
static void other_end_of(const struct lnch_wait_fd *f, struct bndl_wait_other_end *o)
{
	o->flags = (f->end_flags & LNCH_WAIT_END_LOOKED ? BNDL_WAIT_END_LOOKED : 0) |
		   (f->end_flags & LNCH_WAIT_END_WRITE ? BNDL_WAIT_END_WRITE : 0) |
		   (f->end_flags & LNCH_WAIT_END_MORE ? BNDL_WAIT_END_MORE : 0) |
		   (f->end_flags & LNCH_WAIT_END_FDS_CUT ? BNDL_WAIT_END_FDS_CUT : 0);
	o->n = f->nholders < BNDL_WAIT_HOLDERS ? f->nholders : BNDL_WAIT_HOLDERS;
	for (uint32_t i = 0; i < o->n; i++) {
		o->pid[i] = f->holders[i].pid;
		o->fd[i] = f->holders[i].fd;
	}
}

void rec_wait_event(const struct lnch_wait *w, struct bndl_wait_info *info, struct bndl_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	memset(info, 0, sizeof(*info));
	ev->type = BNDL_REC_WAIT;
	ev->pid = w->pid;
	ev->tid = w->tid;
	ev->t_ns = w->start_ns;
	ev->dur_ns = w->dur_ns;
	ev->nr = w->nr;
	ev->arch = 0; /* native: the numbers /proc/TID/syscall gives */
	memcpy(ev->args, w->args, sizeof(ev->args));
	ev->ret = w->ret;
	ev->flags = (w->has_ret ? BNDL_EV_WAIT_HAS_RET : 0) |
		    (w->start_exact ? BNDL_EV_WAIT_START_EXACT : 0) |
		    (w->at_stop ? BNDL_EV_WAIT_AT_STOP : 0);
	info->stop_ns = w->stop_ns;
	info->child = w->child;
	info->nfds = w->nfds;
	info->end = (uint32_t)w->end;
	info->status = w->status;
	memcpy(info->wchan, w->wchan, sizeof(info->wchan));
	info->wchan[sizeof(info->wchan) - 1] = '\0';
	add_blob(ev, BNDL_BLOB_STRUCT, 0, info, sizeof(*info));
	add_blob(ev, BNDL_BLOB_SOCKADDR, 1, w->addr, w->addr_len);
	for (uint16_t i = 0; i < LNCH_WAIT_FDS; i++) {
		const struct lnch_wait_fd *f = &w->fds[i];

		info->fds[i] = i < w->nfds && f->link[0] != '\0' ? f->fd : -1;
		if (info->fds[i] < 0)
			continue;
		other_end_of(f, &info->other_end[i]);
		add_blob(ev, BNDL_BLOB_STR, 10 + i, f->link, (uint32_t)strlen(f->link));
		add_blob(ev, BNDL_BLOB_SOCKADDR, 10 + i, f->local, f->local_len);
		add_blob(ev, BNDL_BLOB_SOCKADDR, 20 + i, f->peer, f->peer_len);
	}
}

/* What the call waits for (waits.jsonl "what"): connect, accept, read, poll, child, lock, sleep. */
static const char *what_of(const char *call)
{
	const struct repro_sysent *s = repro_sysent_find(call);

	switch (s != NULL ? s->wait : REPRO_WAIT_NONE) {
	case REPRO_WAIT_CONNECT: return "connect";
	case REPRO_WAIT_ACCEPT: return "accept";
	case REPRO_WAIT_READ: return "read";
	case REPRO_WAIT_POLL:
	case REPRO_WAIT_SELECT:
	case REPRO_WAIT_EPOLL: return "poll";
	case REPRO_WAIT_WAIT4:
	case REPRO_WAIT_WAITID: return "child";
	case REPRO_WAIT_LOCK:
	case REPRO_WAIT_FCNTL: return "lock";
	case REPRO_WAIT_SLEEP: return "sleep";
	case REPRO_WAIT_NONE: return "other";
	}
	return "other";
}

/* "socket", "pipe", "file", "tty", "other" from a /proc/PID/fd link. */
static const char *link_kind(const char *link, size_t len)
{
	if (len >= 7 && memcmp(link, "socket:", 7) == 0)
		return "socket";
	if (len >= 5 && memcmp(link, "pipe:", 5) == 0)
		return "pipe";
	if (len >= 9 && (memcmp(link, "/dev/pts/", 9) == 0 || memcmp(link, "/dev/tty", 8) == 0))
		return "tty";
	if (len >= 1 && link[0] == '/')
		return "file";
	return "other";
}

/* fd entry o's pipe_end, other_end, other_end_cut from oe (docs/bundle-format.md "waits.jsonl"). */
static void add_other_end(json_t *o, const struct bndl_wait_other_end *oe)
{
	json_t *holders;

	if (!(oe->flags & BNDL_WAIT_END_LOOKED))
		return;
	holders = json_array();
	json_object_set_new(o, "pipe_end",
			    json_string(oe->flags & BNDL_WAIT_END_WRITE ? "write" : "read"));
	for (uint32_t i = 0; i < oe->n && i < BNDL_WAIT_HOLDERS; i++) {
		json_t *h = json_object();

		json_object_set_new(h, "pid", json_integer(oe->pid[i]));
		json_object_set_new(h, "fd", json_integer(oe->fd[i]));
		json_array_append_new(holders, h);
	}
	json_object_set_new(o, "other_end", holders);
	if (oe->flags & (BNDL_WAIT_END_MORE | BNDL_WAIT_END_FDS_CUT))
		json_object_set_new(
			o, "other_end_cut",
			json_string(oe->flags & BNDL_WAIT_END_MORE ? "holders" : "fds"));
}

static json_t *fd_json(const struct bndl_event *ev, uint16_t i, int fd,
		       const struct bndl_wait_other_end *oe)
{
	const struct bndl_blob *link = bndl_event_blob(ev, BNDL_BLOB_STR, 10 + i);
	const struct bndl_blob *local = bndl_event_blob(ev, BNDL_BLOB_SOCKADDR, 10 + i);
	const struct bndl_blob *peer = bndl_event_blob(ev, BNDL_BLOB_SOCKADDR, 20 + i);
	json_t *o = json_object();

	json_object_set_new(o, "fd", json_integer(fd));
	if (link != NULL) {
		json_object_set_new(o, "kind", json_string(link_kind(link->data, link->len)));
		json_object_set_new(o, "link", bndl_json_bytes(link->data, link->len));
	}
	add_other_end(o, oe);
	if (local != NULL)
		json_object_set_new(o, "local", rec_sockaddr_json(local->data, local->len));
	if (peer != NULL)
		json_object_set_new(o, "peer", rec_sockaddr_json(peer->data, peer->len));
	return o;
}

static json_t *status_json(int status)
{
	char buf[32];
	json_t *o = json_object();

	if (WIFEXITED(status))
		json_object_set_new(o, "code", json_integer(WEXITSTATUS(status)));
	else if (WIFSIGNALED(status))
		json_object_set_new(
			o, "signal",
			json_string(repro_signal_name(WTERMSIG(status), buf, sizeof(buf))));
	return o;
}

static void add_end(json_t *o, const struct bndl_event *ev, const struct bndl_wait_info *info)
{
	static const char *const ends[] = { "returned", "signal", "exited", "left_running" };
	char buf[32];

	json_object_set_new(o, "end", json_string(info->end < 4 ? ends[info->end] : "returned"));
	if (info->end == BNDL_WAIT_SIGNALED)
		json_object_set_new(o, "signal",
				    json_string(repro_signal_name(info->status, buf, sizeof(buf))));
	if (info->end == BNDL_WAIT_EXITED)
		json_object_set_new(o, "exit", status_json(info->status));
	if (!(ev->flags & BNDL_EV_WAIT_HAS_RET))
		return;
	json_object_set_new(o, "ret", json_integer(ev->ret < 0 ? -1 : ev->ret));
	if (ev->ret < 0)
		json_object_set_new(o, "errno",
				    json_string(repro_errno_name((int)-ev->ret, buf, sizeof(buf))));
}

/* One waits.jsonl object (docs/bundle-format.md "waits.jsonl"). */
static json_t *wait_json(const struct bndl_event *ev)
{
	const struct bndl_blob *ib = bndl_event_blob(ev, BNDL_BLOB_STRUCT, 0);
	const struct bndl_blob *addr = bndl_event_blob(ev, BNDL_BLOB_SOCKADDR, 1);
	struct bndl_wait_info info = { .child = 0 };
	cleanup_free char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, ev->nr);
	json_t *o = json_object(), *fds = json_array();

	if (ib != NULL && ib->len >= BNDL_WAIT_INFO_V1_SIZE && ib->len <= sizeof(info))
		memcpy(&info, ib->data, ib->len); /* older spools: other_end stays zero */
	json_object_set_new(o, "pid", json_integer(ev->pid));
	json_object_set_new(o, "tid", json_integer(ev->tid));
	json_object_set_new(o, "syscall", json_string(name != NULL ? name : "unknown"));
	json_object_set_new(o, "what", json_string(what_of(name)));
	json_object_set_new(o, "t_ns", json_integer((json_int_t)ev->t_ns));
	json_object_set_new(o, "dur_ns", json_integer((json_int_t)ev->dur_ns));
	json_object_set_new(o, "start_exact", json_boolean(ev->flags & BNDL_EV_WAIT_START_EXACT));
	add_end(o, ev, &info);
	if (ev->flags & BNDL_EV_WAIT_AT_STOP) {
		json_object_set_new(o, "at_stop", json_true());
		json_object_set_new(o, "stop_ns", json_integer((json_int_t)info.stop_ns));
	}
	if (addr != NULL)
		json_object_set_new(o, "addr", rec_sockaddr_json(addr->data, addr->len));
	if (info.child != 0)
		json_object_set_new(o, "child", json_integer(info.child));
	if (info.nfds > 0)
		json_object_set_new(o, "nfds", json_integer(info.nfds));
	for (uint16_t i = 0; i < 2; i++)
		if (info.fds[i] >= 0 && i < info.nfds)
			json_array_append_new(fds, fd_json(ev, i, info.fds[i], &info.other_end[i]));
	json_object_set_new(o, "fds", fds);
	info.wchan[sizeof(info.wchan) - 1] = '\0';
	if (info.wchan[0] != '\0')
		json_object_set_new(o, "wchan", bndl_json_bytes(info.wchan, strlen(info.wchan)));
	return o;
}

static int write_all(FILE *out, const char *spool_dir, const char *out_path, struct repro_err **err)
{
	struct bndl_spool_reader *r = bndl_spool_reader_open(spool_dir, err);
	struct bndl_event ev;
	int got;

	if (r == NULL)
		return -1;
	while ((got = bndl_spool_reader_next(r, &ev, err)) == 1) {
		cleanup_json json_t *o = NULL;
		cleanup_free char *line = NULL;

		if (ev.type != BNDL_REC_WAIT)
			continue;
		o = wait_json(&ev);
		line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (line == NULL || fprintf(out, "%s\n", line) < 0) {
			bndl_spool_reader_free(r);
			return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'",
					     out_path);
		}
	}
	bndl_spool_reader_free(r);
	return got < 0 ? -1 : 0;
}

int rec_waits_write(const char *spool_dir, const char *out_path, struct repro_err **err)
{
	int fd = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	int rc;

	if (out == NULL) {
		rc = repro_err_set(err, errno, "cannot create '%s'", out_path);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	rc = write_all(out, spool_dir, out_path, err);
	if (fclose(out) != 0 && rc == 0)
		rc = repro_err_set(err, errno, "cannot write '%s'", out_path);
	return rc;
}
