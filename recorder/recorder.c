#include "recorder/waits.h"
#include "recorder/recorder.h"
#include "recorder/capture.h"
#include "recorder/describe.h"
#include "recorder/output.h"
#include "launcher/abi.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* tid -> capture, two levels deep: pid_max is at most 2^22 (proc(5)). */
#define PAGE_BITS 12
#define PAGES (1u << (22 - PAGE_BITS))

struct rec_recorder {
	struct bndl_spool *spool; /* borrowed */
	const struct rec_systab *tab; /* borrowed */
	struct rec_capture **pages[PAGES];
	struct repro_map *seen; /* paths whose state before the first change was taken */
	struct rec_socks socks; /* sockets whose payloads or close are recorded */
	struct rec_pathcache paths; /* canonical directories (recorder/pathres.h) */
	struct rec_output *out; /* owned: what each process said */
	struct rec_describe describe; /* what policies are told of a call (recorder/describe.h) */
	uint64_t count;
	uint64_t failed; /* of count, the calls that failed with an errno */
	uint64_t processes; /* process starts (threads not) */
	bool stopping;
	struct repro_err *first_err;
};

/* The slot for tid; with create, its page is allocated.  NULL for an impossible tid. */
static struct rec_capture **capture_slot(struct rec_recorder *r, pid_t tid, bool create)
{
	uint32_t t = (uint32_t)tid, hi = t >> PAGE_BITS;

	if (hi >= PAGES)
		return NULL;
	if (r->pages[hi] == NULL) {
		if (!create)
			return NULL;
		r->pages[hi] = repro_xcalloc(1u << PAGE_BITS, sizeof(struct rec_capture *));
	}
	return &r->pages[hi][t & ((1u << PAGE_BITS) - 1)];
}

static struct rec_capture *capture_get(struct rec_recorder *r, pid_t tid, bool create)
{
	struct rec_capture **slot = capture_slot(r, tid, create);

	if (slot == NULL)
		return NULL;
	if (*slot == NULL && create) {
		*slot = repro_xcalloc(1, sizeof(**slot));
		(*slot)->tid = tid;
		(*slot)->seen = r->seen;
		(*slot)->socks = &r->socks;
		(*slot)->paths = &r->paths;
	}
	return *slot;
}

static void capture_drop(struct rec_recorder *r, pid_t tid)
{
	struct rec_capture **slot = capture_slot(r, tid, false);

	if (slot == NULL || *slot == NULL)
		return;
	rec_capture_release(*slot);
	free(*slot);
	*slot = NULL;
}

static void append(struct rec_recorder *r, const struct bndl_event *ev)
{
	if (r->first_err != NULL)
		return; /* keep the first error; the program runs on */
	(void)bndl_spool_append(r->spool, ev, &r->first_err);
}

/* A call that returned -errno where the tracer saw it (as events.jsonl's "errno"). */
static bool is_failed(const struct bndl_event *ev)
{
	return ev->ret < 0 && ev->ret >= -4095 &&
	       !(ev->flags & (BNDL_EV_UNFINISHED | BNDL_EV_RESULT_UNSEEN));
}

static void append_syscall(struct rec_recorder *r, struct rec_capture *c)
{
	rec_capture_finish(c);
	c->ev.seq = ++r->count;
	if (is_failed(&c->ev))
		r->failed++;
	append(r, &c->ev);
	c->active = false;
}

/*
 * A call whose exit was not seen (restarted, or its task vanished): written
 * as unfinished, except a send or receive kept only for a failure, which
 * had none.
 */
static void append_unfinished(struct rec_recorder *r, struct rec_capture *c)
{
	if (c->failure_only) {
		c->active = false;
		return;
	}
	c->ev.flags |= BNDL_EV_UNFINISHED;
	append_syscall(r, c);
}

/*
 * The program let go of a counted socket (recorder/socks.h) at t_ns (0:
 * unknown), as how says unless a send or receive already told how the
 * connection ended: its data phase as a BNDL_REC_SOCK record.  O(1).
 */
static void sock_release(struct rec_recorder *r, pid_t pid, int32_t fd, uint64_t t_ns,
			 enum bndl_sock_end how)
{
	struct rec_sockstat ss;
	struct bndl_sock_info info;
	struct bndl_event ev = { .type = BNDL_REC_SOCK, .t_ns = t_ns, .pid = pid, .tid = pid };

	if (!rec_socks_data_end(&r->socks, pid, fd, &ss))
		return;
	info = (struct bndl_sock_info){ .sent = ss.sent,
					.received = ss.received,
					.first_rx_ns = ss.first_rx_ns,
					.end_ns = ss.end_ns != 0 ? ss.end_ns : t_ns,
					.end = ss.end_ns != 0 ? ss.end : (uint32_t)how,
					.proto = ss.proto };
	ev.args[0] = (uint64_t)(uint32_t)fd;
	ev.nblobs = 1;
	ev.blobs[0] =
		(struct bndl_blob){ .kind = BNDL_BLOB_STRUCT, .len = sizeof(info), .data = &info };
	append(r, &ev);
}

/* Every counted socket of pid, let go of at t_ns as how.  Linear in their number. */
static void socks_release_pid(struct rec_recorder *r, pid_t pid, uint64_t t_ns,
			      enum bndl_sock_end how)
{
	for (int32_t fd; (fd = rec_socks_data_first(&r->socks, pid)) >= 0;)
		sock_release(r, pid, fd, t_ns, how);
}

/*
 * At a network call's exit: a new socket on a counted fd number means the
 * old one was let go of unseen (close_range, dup2); a connect that worked
 * or is in progress starts a data phase, except to a DNS server.
 */
static void sock_track(struct rec_recorder *r, const struct rec_capture *c,
		       const struct lnch_stop *st)
{
	int32_t fd = (int32_t)c->ev.args[0];

	if ((c->sys->net == REPRO_NET_SOCKET || c->sys->net == REPRO_NET_NEWFD) && st->ret >= 0)
		sock_release(r, st->pid, (int32_t)st->ret, st->t_ns, BNDL_SOCK_CLOSED);
	if (c->sys->net != REPRO_NET_CONNECT || (st->ret != 0 && st->ret != -EINPROGRESS) ||
	    (rec_socks_get(&r->socks, st->pid, fd) & REC_SOCK_DNS))
		return;
	sock_release(r, st->pid, fd, st->t_ns, BNDL_SOCK_CLOSED); /* connected again */
	rec_socks_data_begin(&r->socks, st->pid, fd);
}

struct rec_recorder *rec_recorder_new(struct bndl_spool *spool, const struct rec_systab *tab,
				      pid_t main_pid)
{
	struct rec_recorder *r = repro_xcalloc(1, sizeof(*r));
	struct bndl_event ev = { .type = BNDL_REC_PROC_START, .pid = main_pid, .tid = main_pid };

	r->spool = spool;
	r->tab = tab;
	r->seen = repro_map_new();
	r->out = rec_output_new();
	rec_pathcache_init(&r->paths);
	r->processes = 1;
	append(r, &ev);
	return r;
}

static bool capture_args(struct rec_capture *c, const struct lnch_stop *st)
{
	if (c->sys == NULL)
		return true;
	for (int i = 0; i < repro_sysent_nargs(c->sys); i++) {
		enum repro_arg_kind k = c->sys->args[i].kind;
		bool keep = true;

		/* each family captures the kinds it owns and ignores the others */
		keep = rec_file_capture(c, st, i, k) && rec_net_capture(c, st, i, k) &&
		       rec_proc_capture(c, st, i, k);
		if (!keep)
			return false;
	}
	return true;
}

/*
 * Whether a stop of an output row (write, writev) is a write to a file
 * descriptor above 2, which is recorded when it fails (common/sysent.c);
 * a write to fds 0-2 is what the program said.
 */
static bool is_file_write(const struct repro_sysent *s, const struct lnch_stop *st)
{
	return (s->flags & REPRO_SYSF_FAILURE_ONLY) && (int32_t)st->args[0] > 2;
}

static unsigned on_entry(void *ctx, const struct lnch_stop *st)
{
	struct rec_recorder *r = ctx;
	struct rec_capture *c = capture_get(r, st->tid, true);

	if (c == NULL)
		return LNCH_WANT_NOTHING;
	if (c->active && c->failure_only)
		c->active = false; /* a restarted send or receive: its restart decides */
	else if (c->active)
		append_syscall(r, c); /* a restarted call whose exit we never saw */
	rec_capture_reset(c);
	c->sys = rec_systab_lookup(r->tab, st->arch, st->nr);
	c->ev.type = BNDL_REC_SYSCALL;
	c->ev.t_ns = st->t_ns;
	c->ev.pid = st->pid;
	c->ev.tid = st->tid;
	c->ev.nr = st->nr;
	c->ev.arch = st->arch;
	memcpy(c->ev.args, st->args, sizeof(c->ev.args));
	if (lnch_arch_is_compat(st->arch))
		c->ev.flags |= BNDL_EV_COMPAT;
	if (c->sys != NULL && (c->sys->trace & (REC_CLASS_OUTPUT | REC_CLASS_ON_DEMAND)) &&
	    rec_net_capture_stream(c, st)) {
		c->active = true; /* DNS over TCP: a query written, an answer read */
		return LNCH_WANT_EXIT;
	}
	if (c->sys == NULL || ((c->sys->trace & (REC_CLASS_OUTPUT | REC_CLASS_ON_DEMAND)) &&
			       !is_file_write(c->sys, st))) {
		/* what the program said is no event: its bytes go to a ring, now */
		unsigned fds = c->sys != NULL ? rec_output_wants(st) : 0;

		if (fds != 0)
			rec_output_entry(r->out, st, fds, c->sys->args[1].kind == RA_OUTIOV);
		c->only_if_injected = true; /* a fault rule may still fail it */
		return LNCH_WANT_NOTHING;
	}
	if (c->sys->net == REPRO_NET_CLOSE)
		sock_release(r, st->pid, (int32_t)st->args[0], st->t_ns, BNDL_SOCK_CLOSED);
	c->failure_only = c->sys->flags & REPRO_SYSF_FAILURE_ONLY;
	if (!capture_args(c, st))
		return LNCH_WANT_NOTHING;
	if (c->sys != NULL && (c->sys->flags & REPRO_SYSF_NO_RETURN)) {
		c->ev.flags |= BNDL_EV_NO_RETURN;
		append_syscall(r, c);
		return LNCH_WANT_NOTHING;
	}
	c->active = true;
	return LNCH_WANT_EXIT;
}

static uint32_t unseen_flag(enum lnch_unseen_reason why)
{
	switch (why) {
	case LNCH_UNSEEN_KERNEL_WALK: return BNDL_EV_UNSEEN_KERNEL_WALK;
	case LNCH_UNSEEN_CREDENTIALS: return BNDL_EV_UNSEEN_CREDENTIALS;
	case LNCH_UNSEEN_ENTRY_ONLY: return BNDL_EV_UNSEEN_ENTRY_ONLY;
	case LNCH_UNSEEN_NONE: break;
	}
	return 0;
}

static void on_exit_stop(void *ctx, const struct lnch_stop *st)
{
	struct rec_recorder *r = ctx;
	struct rec_capture *c = capture_get(r, st->tid, false);

	if (c != NULL && !c->active && c->only_if_injected && (st->injected || st->inject_failed))
		c->active = true; /* a write or unrecorded call a fault rule failed: an event */
	if (c == NULL || !c->active)
		return;
	c->only_if_injected = false;
	if (c->sys != NULL && (c->sys->flags & REPRO_SYSF_FAILURE_ONLY))
		rec_net_count(c, st);
	if (c->failure_only && !(st->ret < 0 && st->ret >= -4095)) {
		c->active = false; /* a send or receive that worked: nothing to keep */
		return;
	}
	if (c->failure_only && !st->injected && rec_file_routine_failure(c, st)) {
		c->active = false; /* a write to a full pipe, interrupted: it is tried again */
		return;
	}
	c->ev.ret = st->ret;
	c->ev.dur_ns = st->t_ns - c->ev.t_ns;
	if (st->injected)
		c->ev.flags |= BNDL_EV_INJECTED;
	if (st->inject_failed)
		c->ev.flags |= BNDL_EV_INJECT_FAILED;
	if (st->injected || st->inject_failed)
		c->ev.status = st->inject_origin;
	if (st->result_unseen)
		c->ev.flags |= BNDL_EV_RESULT_UNSEEN | unseen_flag(st->unseen_reason);
	if (st->denied_by_filter)
		c->ev.flags |= BNDL_EV_FILTER_DENIED;
	if (st->filter_sigsys)
		c->ev.flags |= BNDL_EV_FILTER_SIGSYS;
	for (int i = 0; c->sys != NULL && i < repro_sysent_nargs(c->sys); i++) {
		rec_net_capture_exit(c, st, i, c->sys->args[i].kind);
		rec_file_capture_exit(c, st, i, c->sys->args[i].kind);
	}
	if (c->sys != NULL && c->sys->net == REPRO_NET_RECV && st->ret > 0)
		rec_describe_learn(&r->describe, c); /* names for host= of fault rules */
	if (c->sys != NULL && c->sys->net != REPRO_NET_NONE) {
		rec_net_after(c, st);
		sock_track(r, c, st);
	}
	/* a directory may now name something else: resolve afresh */
	if (c->sys != NULL && (c->sys->flags & REPRO_SYSF_RESHAPES) &&
	    (st->ret >= 0 || st->result_unseen))
		rec_pathcache_clear(&r->paths);
	append_syscall(r, c);
}

static void on_spawn(void *ctx, pid_t parent_pid, pid_t child_tid, pid_t child_pid, bool is_thread,
		     uint64_t t_ns)
{
	struct rec_recorder *r = ctx;
	struct bndl_event ev = {
		.type = BNDL_REC_PROC_START,
		.t_ns = t_ns,
		.pid = child_pid,
		.tid = child_tid,
		.ppid = parent_pid,
		.flags = is_thread ? BNDL_EV_THREAD : 0,
	};

	if (!is_thread) {
		r->processes++;
		rec_describe_spawn(&r->describe, parent_pid, child_pid);
	}
	append(r, &ev);
}

/*
 * Where blob B of capture C goes in an exec record: argi 0 for the path
 * (canonical and as written), 1 for argv, 2 for envp; -1 when it stays out.
 * A capture of the new image (no syscall entry) has those argi already.
 */
static int exec_argi(const struct rec_capture *c, const struct bndl_blob *b)
{
	uint16_t kind = b->kind & (uint16_t)~BNDL_BLOB_TRUNCATED;
	enum repro_arg_kind ak;

	if (c->sys == NULL)
		return kind == BNDL_BLOB_PATH || kind == BNDL_BLOB_ARGV ? b->argi : -1;
	ak = c->sys->args[b->argi].kind;
	if (kind == BNDL_BLOB_ARGV)
		return ak == RA_ENVP ? 2 : 1;
	if (kind == BNDL_BLOB_PATH ||
	    (kind == BNDL_BLOB_STR && (ak == RA_PATH || ak == RA_PATH_AT)))
		return 0;
	return -1;
}

/*
 * The exec record carries the path (canonical and as written), argv and envp captured at the
 * execve entry, or, when that entry was not traced, those of the new image from /proc.
 */
static void append_exec(struct rec_recorder *r, pid_t pid, struct rec_capture *c, uint64_t t_ns)
{
	struct bndl_event ev = { .type = BNDL_REC_PROC_EXEC, .t_ns = t_ns, .pid = pid, .tid = pid };
	struct rec_capture img = { .tid = pid };

	if (c == NULL || !c->active) {
		rec_proc_capture_exec_image(&img, pid);
		c = &img;
	}
	rec_proc_capture_env(c, pid);
	rec_capture_finish(c);
	for (uint16_t i = 0; i < c->ev.nblobs && ev.nblobs < 4; i++) {
		int argi = exec_argi(c, &c->ev.blobs[i]);

		if (argi < 0)
			continue;
		ev.blobs[ev.nblobs] = c->ev.blobs[i];
		ev.blobs[ev.nblobs++].argi = (uint16_t)argi;
	}
	append(r, &ev);
	rec_capture_release(&img);
}

static void on_exec(void *ctx, pid_t pid, pid_t former_tid, uint64_t t_ns)
{
	struct rec_recorder *r = ctx;
	struct rec_capture *c = capture_get(r, former_tid, false);

	rec_describe_forget(&r->describe, pid);
	rec_describe_exec(&r->describe, pid);
	append_exec(r, pid, c, t_ns);
	if (former_tid == pid)
		return;
	/* the old leader vanished in the exec; the caller now has the leader's tid (ptrace(2)) */
	struct rec_capture *leader = capture_get(r, pid, false);

	if (leader != NULL && leader->active)
		append_unfinished(r, leader);
	capture_drop(r, pid);
	if (c != NULL) {
		*capture_slot(r, former_tid, false) = NULL;
		c->tid = pid;
		*capture_slot(r, pid, true) = c;
	}
}

/* What pid said, once it ended or the recording did. */
static void append_output(struct rec_recorder *r, pid_t pid)
{
	struct bndl_event ev;

	if (rec_output_take(r->out, pid, &ev))
		append(r, &ev);
}

static void on_task_exit(void *ctx, pid_t tid, pid_t pid, int status, uint64_t t_ns)
{
	struct rec_recorder *r = ctx;
	struct rec_capture *c = capture_get(r, tid, false);
	struct bndl_event ev = {
		.type = BNDL_REC_PROC_EXIT, .t_ns = t_ns, .pid = pid, .tid = tid, .status = status
	};

	if (c != NULL && c->active) {
		c->ev.dur_ns = t_ns - c->ev.t_ns;
		append_unfinished(r, c);
	}
	capture_drop(r, tid);
	if (tid == pid)
		rec_describe_exit(&r->describe, pid);
	if (tid == pid)
		append_output(r, pid);
	if (tid == pid)
		socks_release_pid(r, pid, t_ns, BNDL_SOCK_OPEN_AT_EXIT);
	if (tid == pid && !r->stopping)
		append(r, &ev);
}

static void on_left_running(void *ctx, pid_t tid, pid_t pid, uint64_t t_ns)
{
	struct rec_recorder *r = ctx;
	struct bndl_event ev = { .type = BNDL_REC_PROC_LEFT, .t_ns = t_ns, .pid = pid, .tid = tid };

	r->stopping = true;
	if (tid == pid)
		socks_release_pid(r, pid, t_ns, BNDL_SOCK_LEFT_OPEN);
	if (tid == pid)
		append(r, &ev);
}

/* A quiet program: write out what is buffered, so a killed repro loses nothing. */
static void on_idle(void *ctx)
{
	struct rec_recorder *r = ctx;

	if (r->first_err == NULL)
		(void)bndl_spool_flush(r->spool, &r->first_err);
}

/* A long wait ended (launcher/waits.h): one spool record. */
static void on_wait(void *ctx, const struct lnch_wait *w)
{
	struct rec_recorder *r = ctx;
	struct bndl_wait_info info;
	struct bndl_event ev;

	rec_wait_event(w, &info, &ev);
	append(r, &ev);
}

/* What a policy is told of the call st just entered (recorder/describe.h). */
static void on_describe(void *ctx, const struct lnch_stop *st, struct lnch_call *call)
{
	struct rec_recorder *r = ctx;

	rec_describe_call(&r->describe, capture_get(r, st->tid, false), st, call);
}

static const struct lnch_observer_ops ops = {
	.describe = on_describe,
	.on_idle = on_idle,
	.on_wait = on_wait,
	.on_entry = on_entry,
	.on_exit = on_exit_stop,
	.on_spawn = on_spawn,
	.on_exec = on_exec,
	.on_task_exit = on_task_exit,
	.on_left_running = on_left_running,
};

const struct lnch_observer_ops *rec_recorder_ops(void)
{
	return &ops;
}

uint64_t rec_recorder_count(const struct rec_recorder *r)
{
	return r->count;
}

void rec_recorder_counts(const struct rec_recorder *r, struct rec_recorder_counts *out)
{
	*out = (struct rec_recorder_counts){ .events = r->count,
					     .failed = r->failed,
					     .processes = r->processes };
}

/* Sockets still counted when the recording ends: left open, when unknown.  O(table). */
static void release_all_socks(struct rec_recorder *r)
{
	size_t n;
	uint64_t *keys = rec_socks_data_list(&r->socks, &n);

	for (size_t i = 0; i < n; i++)
		sock_release(r, (pid_t)(keys[i] >> 32), (int32_t)(uint32_t)keys[i], 0,
			     BNDL_SOCK_LEFT_OPEN);
	free(keys);
}

int rec_recorder_finish(struct rec_recorder *r, struct repro_err **err)
{
	for (uint32_t hi = 0; hi < PAGES; hi++) {
		for (uint32_t lo = 0; r->pages[hi] != NULL && lo < (1u << PAGE_BITS); lo++) {
			struct rec_capture *c = r->pages[hi][lo];

			if (c != NULL && c->active)
				append_unfinished(r, c);
		}
	}
	for (pid_t pid; (pid = rec_output_next_pid(r->out)) != 0;)
		append_output(r, pid);
	release_all_socks(r);
	if (r->first_err == NULL)
		(void)bndl_spool_flush(r->spool, &r->first_err);
	if (r->first_err != NULL) {
		*err = r->first_err;
		r->first_err = NULL;
		return repro_err_wrap(err, "recording stopped early");
	}
	return 0;
}

void rec_recorder_free(struct rec_recorder *r)
{
	if (r == NULL)
		return;
	for (uint32_t hi = 0; hi < PAGES; hi++) {
		for (uint32_t lo = 0; r->pages[hi] != NULL && lo < (1u << PAGE_BITS); lo++) {
			if (r->pages[hi][lo] != NULL) {
				rec_capture_release(r->pages[hi][lo]);
				free(r->pages[hi][lo]);
			}
		}
		free(r->pages[hi]);
	}
	repro_err_free(&r->first_err);
	rec_output_free(r->out);
	rec_describe_release(&r->describe);
	repro_map_free(r->seen);
	rec_socks_release(&r->socks);
	rec_pathcache_release(&r->paths);
	free(r);
}
