#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sigabbrev_np, strcasestr, mkostemp, asprintf */
#endif

#include "bundles/pack.h"
#include "bundles/members.h"
#include "common/names.h"
#include "bundles/tarzst.h"
#include "bundles/json_util.h"
#include "common/map.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TMP_EVENTS BNDL_EVENTS_JSONL
#define TMP_PROCS BNDL_PROCESSES_JSONL
#define TMP_TRACE BNDL_TRACE_TXT
#define TMP_OUTPUT BNDL_OUTPUT_JSONL
/* run.json holds the command's argv: up to BNDL_ARGV_MAX, escaped as JSON */
#define RUNINFO_MAX (64u * 1024u * 1024u)

/* One process (thread group) of the run, in start order. */
struct proc {
	int32_t pid;
	int32_t ppid;
	int32_t status; /* wait status, when has_status */
	bool has_start;
	bool has_status;
	bool is_left;
	uint64_t threads;
	uint64_t start_ns;
	uint64_t end_ns;
	json_t *execs; /* owned: array of {"t_ns","path","argv"} */
};

/*
 * A member being staged: in memory (memfd_create(2)) up to
 * TMP_MEMORY_MAX bytes, then in an unnamed file in dir.  A small run then
 * creates no file for its members: on ext4 each new inode cost 0.1-0.5 ms
 * (__ext4_new_inode's scan past recently deleted inodes), most of the pack
 * of a short run (docs/performance.md).
 */
struct tmp_member {
	char *path;
	FILE *f;
	const char *dir; /* borrowed: where it moves past TMP_MEMORY_MAX */
	uint64_t size; /* bytes written (ftello(3) would cost an lseek(2) a line) */
	bool in_memory;
};

/* What a member may hold in memory before it moves to a file (bytes). */
#define TMP_MEMORY_MAX (8u * 1024u * 1024u)

struct pack_state {
	const struct bndl_run_info *run; /* borrowed */
	const struct bndl_render_ops *ops; /* borrowed */
	const char *spool_dir; /* borrowed */
	const char *const *extra; /* borrowed: run->extra_members */
	json_t *members; /* owned: the members in archive order (member_list()) */
	const char *extra_dir; /* borrowed: where they are */
	struct proc *procs;
	size_t nprocs;
	size_t cap;
	struct repro_map *pids;
	struct tmp_member events;
	struct tmp_member trace;
	struct tmp_member processes;
	struct tmp_member output; /* what each process said (BNDL_REC_OUTPUT) */
	uint64_t nevents;
	uint64_t nfailed;
	uint64_t last_ns;
	bool is_truncated;
	char *damage; /* why reading stopped early, or NULL */
	/* BNDL_REC_DROPPED: the spool's filesystem filled */
	bool is_filled;
	int fill_errnum;
	uint64_t fill_ns;
	/* BNDL_REC_END: the recording ended */
	bool has_end;
	bool end_has_exit;
	int end_status;
	uint64_t end_ns;
	struct bndl_spool_drops drops; /* from the END record, or the run's */
	bool drops_known; /* the END record or the run said them */
	uint64_t *fired; /* owned: events so far of rule N at [N-1] (mark_imposed()) */
	size_t nfired;
};

static void tmp_member_release(struct tmp_member *m)
{
	if (m->f != NULL)
		fclose(m->f);
	free(m->path); /* a name for messages only: the file itself has none */
	*m = (struct tmp_member){ 0 };
}

static void pack_state_release(struct pack_state *st)
{
	for (size_t i = 0; i < st->nprocs; i++)
		json_decref(st->procs[i].execs);
	free(st->procs);
	repro_map_free(st->pids);
	tmp_member_release(&st->events);
	tmp_member_release(&st->trace);
	tmp_member_release(&st->processes);
	tmp_member_release(&st->output);
	json_decref(st->members);
	free(st->damage);
	free(st->fired);
}
#define cleanup_pack_state __attribute__((cleanup(pack_state_release)))

/* $TMPDIR when it is an absolute path, else /tmp; borrowed from the environment. */
static const char *tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp != NULL && tmp[0] == '/' ? tmp : "/tmp";
}

/*
 * A member is staged in an unnamed temporary file in dir ($TMPDIR unless
 * the caller chose others; open(2) O_TMPFILE, else mkstemp + unlink):
 * nothing in the spool directory is created or followed, so a read-only
 * spool packs and a symlink planted there is never written through.
 */
static int open_unnamed_tmp(const char *dir)
{
	char *templ;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	templ = repro_xasprintf("%s/repro-pack-XXXXXX", dir);
	fd = mkostemp(templ, O_CLOEXEC);
	if (fd >= 0)
		unlink(templ);
	free(templ);
	return fd;
}

/* fd as the member's stream, read and written; fd is closed on failure. */
static int tmp_member_adopt(struct tmp_member *m, int fd, struct repro_err **err)
{
	m->f = fdopen(fd, "w+");
	if (m->f == NULL) {
		close(fd);
		return repro_err_set(err, errno, "cannot create '%s'", m->path);
	}
	return 0;
}

/*
 * A member staged in memory, or in dir where no memfd can be made; its
 * name is for messages ("events.jsonl (temporary in /tmp)").
 */
static int tmp_member_open(struct tmp_member *m, const char *dir, const char *name,
			   struct repro_err **err)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	m->path = repro_xasprintf("%s (temporary in %s)", name, dir);
	m->dir = dir;
	m->in_memory = fd >= 0;
	if (fd < 0)
		fd = open_unnamed_tmp(dir);
	if (fd < 0)
		return repro_err_set(err, errno, "cannot create a temporary file for '%s' in '%s'",
				     name, dir);
	return tmp_member_adopt(m, fd, err);
}

/* Move a member past TMP_MEMORY_MAX from memory to a file in its dir (a copy: linear in its size). */
static int tmp_member_spill(struct tmp_member *m, struct repro_err **err)
{
	cleanup_close int fd = -1;
	off_t off = 0;
	struct stat sb;

	if (fflush(m->f) == EOF || fstat(fileno(m->f), &sb) < 0)
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", m->path);
	fd = open_unnamed_tmp(m->dir);
	if (fd < 0)
		return repro_err_set(err, errno, "cannot create '%s'", m->path);
	while (off < sb.st_size) {
		ssize_t n = sendfile(fd, fileno(m->f), &off, (size_t)(sb.st_size - off));

		if (n <= 0)
			return repro_err_set(err, n < 0 ? errno : EIO, "cannot write '%s'",
					     m->path);
	}
	fclose(m->f);
	m->f = NULL;
	m->in_memory = false;
	if (tmp_member_adopt(m, steal_fd(&fd), err) < 0)
		return -1;
	if (fseeko(m->f, 0, SEEK_END) < 0)
		return repro_err_set(err, errno, "cannot write '%s'", m->path);
	return 0;
}

/* Write s and a newline; a full disk (ENOSPC) is reported with the file's name. */
static int tmp_member_line(struct tmp_member *m, const char *s, struct repro_err **err)
{
	size_t len = strlen(s);

	if (fwrite(s, 1, len, m->f) != len || fputc('\n', m->f) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", m->path);
	m->size += len + 1;
	if (m->in_memory && m->size > TMP_MEMORY_MAX)
		return tmp_member_spill(m, err);
	return 0;
}

static int tmp_member_finish(struct tmp_member *m, struct repro_err **err)
{
	if (fflush(m->f) == EOF || ferror(m->f))
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", m->path);
	return 0;
}

/* ---- processes ---- */

static struct proc *proc_add(struct pack_state *st, int32_t pid, uint64_t t_ns)
{
	struct proc *p;

	if (st->nprocs == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 16;
		st->procs = repro_xreallocarray(st->procs, st->cap, sizeof(*st->procs));
	}
	p = &st->procs[st->nprocs];
	*p = (struct proc){ .pid = pid, .start_ns = t_ns, .execs = json_array() };
	repro_map_put(st->pids, (uint32_t)pid, st->nprocs);
	st->nprocs++;
	return p;
}

static struct proc *proc_find(struct pack_state *st, int32_t pid)
{
	size_t i;

	return repro_map_get(st->pids, (uint32_t)pid, &i) ? &st->procs[i] : NULL;
}

/* The process a record names; one first seen without its PROC_START is added. */
static struct proc *proc_get(struct pack_state *st, int32_t pid, uint64_t t_ns)
{
	struct proc *p = proc_find(st, pid);

	return p != NULL ? p : proc_add(st, pid, t_ns);
}

/*
 * PROC_START.  A thread (BNDL_EV_THREAD: pid is its thread group) counts
 * towards its process; a pid seen again after its process ended is a new
 * process (pid reuse).
 */
static void on_proc_start(struct pack_state *st, const struct bndl_event *ev)
{
	struct proc *p = proc_find(st, ev->pid);

	if (ev->flags & BNDL_EV_THREAD) {
		if (p == NULL)
			p = proc_find(st, ev->ppid);
		if (p != NULL)
			p->threads++;
		return;
	}
	if (p == NULL || p->has_start || p->has_status || p->is_left)
		p = proc_add(st, ev->pid, ev->t_ns);
	p->has_start = true;
	p->ppid = ev->ppid;
	p->start_ns = ev->t_ns;
}

/*
 * An exec's NUL-separated argv blob as JSON: through the redaction callback
 * when there is one; a final NUL does not start another argument.
 */
static json_t *argv_json(const struct bndl_render_ops *ops, const struct bndl_blob *b)
{
	json_t *arr;
	const char *s, *end;

	if (b == NULL || b->data == NULL)
		return json_array();
	if (ops != NULL && ops->argv_json != NULL)
		return ops->argv_json(ops->ctx, b->data, b->len);
	arr = json_array();
	s = b->data;
	end = s + b->len;
	while (s < end) {
		const char *nul = memchr(s, '\0', (size_t)(end - s));
		size_t n = nul != NULL ? (size_t)(nul - s) : (size_t)(end - s);

		json_array_append_new(arr, bndl_json_bytes(s, n));
		s += n + 1;
	}
	return arr;
}

/* A string of the spool as JSON: through the redaction callback when there is one. */
static json_t *str_json(const struct bndl_render_ops *ops, const char *data, size_t len)
{
	if (ops != NULL && ops->str_json != NULL)
		return ops->str_json(ops->ctx, data, len);
	return bndl_json_bytes(data, len);
}

static void on_proc_exec(struct pack_state *st, const struct bndl_event *ev)
{
	struct proc *p = proc_get(st, ev->pid, ev->t_ns);
	const struct bndl_blob *path = bndl_event_blob(ev, BNDL_BLOB_PATH, 0);
	const struct bndl_blob *written = bndl_event_blob(ev, BNDL_BLOB_STR, 0);
	const struct bndl_blob *env = bndl_event_blob(ev, BNDL_BLOB_ARGV, 2);
	json_t *exec = json_object();

	json_object_set_new(exec, "t_ns", json_integer((json_int_t)ev->t_ns));
	json_object_set_new(exec, "path",
			    path != NULL ? str_json(st->ops, path->data, path->len) : json_null());
	if (path != NULL && written != NULL &&
	    (written->len != path->len || memcmp(written->data, path->data, path->len) != 0))
		json_object_set_new(exec, "path_as_written",
				    str_json(st->ops, written->data, written->len));
	json_object_set_new(exec, "argv",
			    argv_json(st->ops, bndl_event_blob(ev, BNDL_BLOB_ARGV, 1)));
	if (env != NULL && env->data != NULL && st->ops != NULL && st->ops->env_json != NULL)
		json_object_set_new(exec, "env",
				    st->ops->env_json(st->ops->ctx, env->data, env->len));
	json_array_append_new(p->execs, exec);
}

static void on_proc_end(struct pack_state *st, const struct bndl_event *ev)
{
	struct proc *p = proc_get(st, ev->pid, ev->t_ns);

	if (ev->type == BNDL_REC_PROC_LEFT) {
		p->is_left = true;
		return;
	}
	p->has_status = true;
	p->status = ev->status;
	p->end_ns = ev->t_ns;
}

/* "SIGSEGV", "SIGRTMIN+3", or "SIG99" for a number glibc does not name (common/names.h). */
static json_t *signal_json(int sig)
{
	char buf[32];

	return json_string(repro_signal_name(sig, buf, sizeof(buf)));
}

static json_t *exit_json(bool is_signal, int code_or_sig, bool core_dumped)
{
	json_t *o = json_object();

	if (!is_signal) {
		json_object_set_new(o, "code", json_integer(code_or_sig));
		return o;
	}
	json_object_set_new(o, "signal", signal_json(code_or_sig));
	if (core_dumped)
		json_object_set_new(o, "core_dumped", json_true());
	return o;
}

/* {"code":N} or {"signal":…} from a waitpid(2) status; null for a stop status. */
static json_t *status_json(int status)
{
	if (WIFEXITED(status))
		return exit_json(false, WEXITSTATUS(status), false);
	if (WIFSIGNALED(status))
		return exit_json(true, WTERMSIG(status), WCOREDUMP(status));
	return json_null();
}

static json_t *proc_json(const struct proc *p)
{
	json_t *o = json_object();

	json_object_set_new(o, "pid", json_integer(p->pid));
	json_object_set_new(o, "ppid", json_integer(p->ppid));
	json_object_set(o, "execs", p->execs);
	json_object_set_new(o, "threads", json_integer((json_int_t)p->threads));
	json_object_set_new(o, "start_ns", json_integer((json_int_t)p->start_ns));
	json_object_set_new(o, "end_ns",
			    p->has_status ? json_integer((json_int_t)p->end_ns) : json_null());
	json_object_set_new(o, "exit", p->has_status ? status_json(p->status) : json_null());
	/* no exit seen: PROC_LEFT, or a recorder killed before the end */
	if (!p->has_status)
		json_object_set_new(o, "left_running", json_true());
	return o;
}

static int write_processes(struct pack_state *st, const char *dir, struct repro_err **err)
{
	if (tmp_member_open(&st->processes, dir, TMP_PROCS, err) < 0)
		return -1;
	for (size_t i = 0; i < st->nprocs; i++) {
		cleanup_json json_t *o = proc_json(&st->procs[i]);
		cleanup_free char *line = json_dumps(o, JSON_COMPACT);

		if (line == NULL)
			return repro_err_set(err, ENOMEM, "cannot encode process %d",
					     st->procs[i].pid);
		if (tmp_member_line(&st->processes, line, err) < 0)
			return -1;
	}
	return tmp_member_finish(&st->processes, err);
}

/* ---- events ---- */

/*
 * The element of the run's injections for rule (from 1), or NULL.  Rule N
 * is element N-1 when the list is in order, else found by its number:
 * linear in the rules.
 */
static json_t *injection_of(const struct pack_state *st, json_int_t rule)
{
	json_t *inj = st->run != NULL ? st->run->injections : NULL, *e;
	size_t i;

	e = rule >= 1 ? json_array_get(inj, (size_t)(rule - 1)) : NULL;
	if (e != NULL && json_integer_value(json_object_get(e, "rule")) == rule)
		return e;
	json_array_foreach (inj, i, e)
		if (json_integer_value(json_object_get(e, "rule")) == rule)
			return e;
	return NULL;
}

/*
 * The recorded event the k-th firing (from 0) of a rule imposes again
 * (repro replay): the k-th of its "origins", past them or without them its
 * "origin"; 0 for none.
 */
static json_int_t origin_of(json_t *inj, uint64_t k)
{
	json_t *all = json_object_get(inj, "origins");

	if (k < json_array_size(all))
		return json_integer_value(json_array_get(all, (size_t)k));
	return json_integer_value(json_object_get(inj, "origin"));
}

/*
 * An injected event whose rule imposes a recorded failure again:
 * "imposed" and its "origin", the events of each rule counted in order
 * (st->fired, one counter per rule number up to the rules' count).
 */
static void mark_imposed(struct pack_state *st, json_t *obj)
{
	json_t *rule = json_object_get(obj, "rule"), *inj;
	json_int_t origin, n;

	if (!json_is_true(json_object_get(obj, "injected")) || !json_is_integer(rule))
		return;
	n = json_integer_value(rule);
	inj = injection_of(st, n);
	if (inj == NULL || n < 1) /* n is then a rule of the run's: at most the rules' count */
		return;
	if ((size_t)n > st->nfired) {
		st->fired = repro_xreallocarray(st->fired, (size_t)n, sizeof(*st->fired));
		memset(st->fired + st->nfired, 0, ((size_t)n - st->nfired) * sizeof(*st->fired));
		st->nfired = (size_t)n;
	}
	origin = origin_of(inj, st->fired[n - 1]++);
	if (origin <= 0)
		return;
	json_object_set_new(obj, "imposed", json_true());
	json_object_set_new(obj, "origin", json_integer(origin));
}

static int on_syscall(struct pack_state *st, const struct bndl_event *ev, struct repro_err **err)
{
	cleanup_json json_t *obj = NULL;
	cleanup_free char *line = NULL;
	cleanup_free char *json = NULL;

	if (st->ops->render_event(st->ops->ctx, ev, &obj, &line, err) < 0)
		return -1;
	mark_imposed(st, obj);
	json = json_dumps(obj, JSON_COMPACT);
	if (json == NULL)
		return repro_err_set(err, EINVAL, "cannot encode event %llu",
				     (unsigned long long)ev->seq);
	if (tmp_member_line(&st->events, json, err) < 0)
		return -1;
	if (tmp_member_line(&st->trace, line != NULL ? line : "", err) < 0)
		return -1;
	st->nevents++;
	if (ev->ret < 0 &&
	    !(ev->flags & (BNDL_EV_UNFINISHED | BNDL_EV_NO_RETURN | BNDL_EV_RESULT_UNSEEN)))
		st->nfailed++;
	return 0;
}

/* What a process said: one line of output.jsonl (docs/bundle-format.md). */
static int on_output(struct pack_state *st, const struct bndl_event *ev, struct repro_err **err)
{
	const struct bndl_blob *b = bndl_event_blob(ev, BNDL_BLOB_OUT, 0);
	cleanup_json json_t *obj = json_object();
	cleanup_free char *line = NULL;
	json_t *fds = json_array();
	const char *data = b != NULL ? b->data : "";
	size_t len = b != NULL ? b->len : 0;

	if (ev->args[0] & BNDL_OUTPUT_STDOUT)
		json_array_append_new(fds, json_integer(1));
	if (ev->args[0] & BNDL_OUTPUT_STDERR)
		json_array_append_new(fds, json_integer(2));
	json_object_set_new(obj, "pid", json_integer(ev->pid));
	json_object_set_new(obj, "fds", fds);
	json_object_set_new(obj, "t_ns", json_integer((json_int_t)ev->t_ns));
	json_object_set_new(obj, "bytes_written", json_integer((json_int_t)ev->args[1]));
	json_object_set_new(obj, "truncated",
			    json_boolean(b != NULL && (b->kind & BNDL_BLOB_TRUNCATED)));
	if (ev->args[0] & BNDL_OUTPUT_DISCARDED)
		json_object_set_new(obj, "discarded", json_true());
	json_object_set_new(obj, "text",
			    st->ops->output_json != NULL
				    ? st->ops->output_json(st->ops->ctx, data, len)
				    : bndl_json_bytes(data, len));
	line = json_dumps(obj, JSON_COMPACT);
	if (line == NULL)
		return repro_err_set(err, ENOMEM, "cannot encode the output of process %d",
				     ev->pid);
	return tmp_member_line(&st->output, line, err);
}

/* The last record of a recording that ended: its exit, duration and drops. */
static void on_end(struct pack_state *st, const struct bndl_event *ev)
{
	const struct bndl_blob *b = bndl_event_blob(ev, BNDL_BLOB_STRUCT, 0);

	st->has_end = true;
	st->end_has_exit = (ev->flags & BNDL_EV_HAS_EXIT) != 0;
	st->end_status = ev->status;
	st->end_ns = ev->t_ns;
	if (b != NULL && b->len == sizeof(st->drops))
		memcpy(&st->drops, b->data, sizeof(st->drops));
	if (st->drops.errnum != 0) {
		st->is_filled = true;
		st->fill_errnum = st->drops.errnum;
		st->fill_ns = st->drops.since_ns;
	}
}

static int on_record(struct pack_state *st, const struct bndl_event *ev, struct repro_err **err)
{
	if (ev->t_ns + ev->dur_ns > st->last_ns)
		st->last_ns = ev->t_ns + ev->dur_ns;
	switch ((enum bndl_rec_type)ev->type) {
	case BNDL_REC_SYSCALL: return on_syscall(st, ev, err);
	case BNDL_REC_PROC_START: on_proc_start(st, ev); return 0;
	case BNDL_REC_PROC_EXEC: on_proc_exec(st, ev); return 0;
	case BNDL_REC_PROC_EXIT:
	case BNDL_REC_PROC_LEFT: on_proc_end(st, ev); return 0;
	case BNDL_REC_DROPPED:
		st->is_filled = true;
		st->fill_errnum = (int)-ev->ret;
		st->fill_ns = ev->t_ns;
		return 0;
	case BNDL_REC_END: on_end(st, ev); return 0;
	case BNDL_REC_OUTPUT: return on_output(st, ev, err);
	case BNDL_REC_WAIT: return 0; /* waits.jsonl is derived from the spool (recorder/waits.c) */
	case BNDL_REC_SOCK: return 0; /* so is network.jsonl (recorder/network.c) */
	}
	return 0;
}

/*
 * What the recording knew beyond the spool (bndl_run_info.drops,
 * lost_procs): a spool whose filesystem had no room for its process, DROPPED
 * or END records still packs with the run's drops and every exit.  A lost
 * exec, without its path and argv, stays out.
 */
static void add_run_facts(struct pack_state *st)
{
	const struct bndl_run_info *run = st->run;

	for (size_t i = 0; run->lost_procs != NULL && i < run->nlost_procs; i++)
		if (run->lost_procs[i].type != BNDL_REC_PROC_EXEC)
			(void)on_record(st, &run->lost_procs[i], NULL);
	if (run->drops == NULL) {
		st->drops_known = st->has_end;
		return;
	}
	st->drops = *run->drops;
	st->drops_known = true;
	if (run->drops->errnum != 0) {
		st->is_filled = true;
		st->fill_errnum = run->drops->errnum;
		st->fill_ns = run->drops->since_ns;
	}
}

/*
 * Read every record of the spool.  A torn tail (killed recorder) or a
 * damaged record ends the reading with a warning rather than losing the
 * whole run; read errors fail.
 */
static int read_spool(struct pack_state *st, const char *dir, struct repro_err **err)
{
	struct bndl_spool_reader *r = bndl_spool_reader_open(dir, err);
	struct bndl_event ev;
	uint64_t nrec = 0;
	int rc = 0;

	if (r == NULL)
		return -1;
	for (;;) {
		cleanup_err struct repro_err *rerr = NULL;

		rc = bndl_spool_reader_next(r, &ev, &rerr);
		if (rc == 0)
			break;
		if (rc < 0 && rerr->errnum == EPROTO) {
			st->damage = repro_xasprintf("spool is damaged, later events are lost: %s",
						     rerr->msg);
			rc = 0;
			break;
		}
		if (rc < 0) {
			repro_err_set(err, rerr->errnum, "%s", rerr->msg);
			break;
		}
		rc = on_record(st, &ev, err);
		if (rc < 0)
			break;
		if (st->ops->progress != NULL && ++nrec % 4096 == 0) {
			uint64_t done, total;

			bndl_spool_reader_position(r, &done, &total);
			st->ops->progress(st->ops->progress_ctx, done, total);
		}
	}
	st->is_truncated = bndl_spool_reader_was_truncated(r);
	bndl_spool_reader_free(r);
	return rc;
}

/* ---- manifest ---- */

static json_t *argv_array(char *const *argv)
{
	json_t *arr = json_array();

	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		json_array_append_new(arr, bndl_json_bytes(argv[i], strlen(argv[i])));
	return arr;
}

/* "5.8 MiB", "312 KiB", "900 bytes". */
static void format_bytes(uint64_t n, char *buf, size_t len)
{
	if (n >= 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", (double)n / (1024.0 * 1024.0));
	else if (n >= 1024)
		snprintf(buf, len, "%.0f KiB", (double)n / 1024.0);
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
}

/* "no space left on the spool's filesystem (ENOSPC)" and the EDQUOT phrase. */
static const char *full_reason(int errnum)
{
	if (errnum == EDQUOT)
		return "the disk quota was exceeded on the spool's filesystem (EDQUOT)";
	return "no space left on the spool's filesystem (ENOSPC)";
}

/* Of the lost process records, the execs (which stay out of processes.jsonl). */
static size_t lost_execs(const struct bndl_event *lost, size_t nlost)
{
	size_t n = 0;

	for (size_t i = 0; lost != NULL && i < nlost; i++)
		n += lost[i].type == BNDL_REC_PROC_EXEC;
	return n;
}

char *bndl_drops_note(const struct bndl_spool_drops *d, bool is_known,
		      const struct bndl_event *lost, size_t nlost)
{
	char size[32], procs[192] = "", execs[128] = "";
	size_t nexecs = lost_execs(lost, nlost);
	double since = (double)d->since_ns / 1e9;

	if (!is_known)
		return repro_xasprintf("%s %.2f s into the run: later events were not recorded "
				       "(how many is not known: the recording did not end)",
				       full_reason(d->errnum), since);
	format_bytes(d->bytes, size, sizeof(size));
	if (d->procs > 0 && lost == NULL)
		snprintf(procs, sizeof(procs),
			 "; %llu process records were lost as well, so processes or exit "
			 "statuses may be missing",
			 (unsigned long long)d->procs);
	else if (d->procs > 0 && nexecs == 0)
		snprintf(procs, sizeof(procs),
			 "; %llu process records found no room either: the process tree and exit "
			 "statuses are complete from what repro saw",
			 (unsigned long long)d->procs);
	else if (d->procs > 0)
		snprintf(procs, sizeof(procs),
			 "; %llu process records found no room either: the process tree and exit "
			 "statuses are complete from what repro saw, %zu exec%s missing",
			 (unsigned long long)d->procs, nexecs, nexecs == 1 ? " is" : "s are");
	if (d->slim_execs > 0)
		snprintf(execs, sizeof(execs), "; %llu later exec%s kept without %s environment",
			 (unsigned long long)d->slim_execs, d->slim_execs == 1 ? " is" : "s are",
			 d->slim_execs == 1 ? "its" : "their");
	return repro_xasprintf(
		"%s: %llu event%s after %.2f s %s not recorded (nor %s trace.txt "
		"line%s; %s of records)%s%s",
		full_reason(d->errnum), (unsigned long long)d->events, d->events == 1 ? "" : "s",
		since, d->events == 1 ? "was" : "were", d->events == 1 ? "its" : "their",
		d->events == 1 ? "" : "s", size,
		d->procs > 0 ? procs : "; the process tree and exit statuses are complete", execs);
}

/* The drops as the spool tells them: the END record's, or only when it filled. */
static struct bndl_spool_drops drops_of(const struct pack_state *st)
{
	struct bndl_spool_drops d = st->drops;

	d.errnum = st->fill_errnum;
	d.since_ns = st->fill_ns;
	return d;
}

/*
 * A spool without its END record is a recording that never ended (its
 * recorder was killed, SIGKILL or a crash): what came after its last
 * record written out is lost, though every record read is whole.
 */
static bool is_incomplete(const struct pack_state *st)
{
	return st->is_filled || st->drops.procs > 0 || st->is_truncated || st->damage != NULL ||
	       !st->has_end;
}

static void append_note(json_t *arr, char *note_take)
{
	json_array_append_new(arr, bndl_json_bytes(note_take, strlen(note_take)));
	free(note_take);
}

static json_t *warnings_json(const struct pack_state *st, const struct bndl_run_info *run)
{
	json_t *arr = json_array();
	const char *s = run->warnings;

	while (s != NULL && *s != '\0') {
		const char *sep = strstr(s, "; ");
		size_t n = sep != NULL ? (size_t)(sep - s) : strlen(s);

		if (n > 0)
			json_array_append_new(arr, bndl_json_bytes(s, n));
		s = sep != NULL ? sep + 2 : NULL;
	}
	if (st->is_filled) {
		struct bndl_spool_drops d = drops_of(st);

		append_note(arr, bndl_drops_note(&d, st->drops_known, run->lost_procs,
						 run->nlost_procs));
	}
	if (st->is_truncated)
		json_array_append_new(arr,
				      json_string("spool was truncated: its last record is cut "
						  "short, so what came after it is lost"));
	if (st->damage != NULL)
		json_array_append_new(arr, bndl_json_bytes(st->damage, strlen(st->damage)));
	if (run->is_packed_later)
		json_array_append_new(
			arr, json_string(st->has_end ? "the recording ended without its bundle, "
						       "which 'repro pack' made later"
						     : "recording was interrupted and packed later "
						       "by 'repro pack'"));
	return arr;
}

/* "dropped": null, or what the full filesystem cost (docs/bundle-format.md). */
static json_t *dropped_json(const struct pack_state *st)
{
	const char *name = strerrorname_np(st->fill_errnum);
	json_t *o;

	if (!st->is_filled)
		return json_null();
	o = json_object();
	json_object_set_new(o, "errno", json_string(name != NULL ? name : "ENOSPC"));
	json_object_set_new(o, "since_ns", json_integer((json_int_t)st->fill_ns));
	/* a spool without its END record cannot tell how many */
	json_object_set_new(o, "events",
			    st->drops_known ? json_integer((json_int_t)st->drops.events)
					    : json_null());
	json_object_set_new(o, "bytes",
			    st->drops_known ? json_integer((json_int_t)st->drops.bytes)
					    : json_null());
	json_object_set_new(o, "process_records", json_integer((json_int_t)st->drops.procs));
	json_object_set_new(o, "execs_without_env", json_integer((json_int_t)st->drops.slim_execs));
	return o;
}

/* The first process: recorded first, with ppid 0 (rec_recorder_new()). */
static const struct proc *main_proc(const struct pack_state *st)
{
	for (size_t i = 0; i < st->nprocs; i++)
		if (st->procs[i].ppid == 0 && st->procs[i].has_start)
			return &st->procs[i];
	return NULL;
}

/*
 * "exit": the run's when the caller saw it, else what the spool says: the
 * END record's, else the first process's exit record (a recording that did
 * not end normally, packed later).
 */
static json_t *manifest_exit(const struct pack_state *st, const struct bndl_run_info *run)
{
	const struct proc *p = main_proc(st);

	if (run->has_exit)
		return exit_json(run->exit_signal != 0,
				 run->exit_signal ? run->exit_signal : run->exit_code,
				 run->core_dumped);
	if (st->end_has_exit)
		return status_json(st->end_status);
	if (p != NULL && p->has_status)
		return status_json(p->status);
	return json_null();
}

static uint64_t manifest_duration(const struct pack_state *st, const struct bndl_run_info *run)
{
	if (run->duration_ns != 0)
		return run->duration_ns;
	return st->has_end && st->end_ns != 0 ? st->end_ns : st->last_ns;
}

/* RFC 3339 UTC, to the second: "2026-11-29T14:41:44Z". */
static json_t *rfc3339_json(int64_t epoch_s)
{
	time_t t = (time_t)epoch_s;
	struct tm tm;
	char buf[64];

	if (gmtime_r(&t, &tm) == NULL || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return json_null();
	return json_string(buf);
}

static json_t *manifest_json(const struct pack_state *st, const struct bndl_run_info *run)
{
	json_t *m = json_object();
	json_t *opts = json_object();
	json_t *counts = json_object();

	json_object_set_new(m, "format", json_string(BNDL_FORMAT_NAME));
	json_object_set_new(m, "version", json_integer(BNDL_FMT_MAJOR));
	json_object_set_new(m, "tool",
			    run->tool_version != NULL ? bndl_json_str_or_null(run->tool_version)
						      : json_string("repro " REPRO_VERSION));
	json_object_set_new(m, "argv", argv_array(run->argv));
	json_object_set_new(m, "cwd",
			    run->cwd != NULL ? bndl_json_bytes(run->cwd, strlen(run->cwd))
					     : json_null());
	json_object_set_new(m, "started_at", rfc3339_json(run->started_at_s));
	json_object_set_new(m, "duration_ns", json_integer((json_int_t)manifest_duration(st, run)));
	json_object_set_new(m, "exit", manifest_exit(st, run));
	json_object_set_new(opts, "trace", bndl_json_str_or_null(run->trace_classes));
	json_object_set_new(opts, "net", bndl_json_str_or_null(run->net_mode));
	json_object_set_new(opts, "sandbox", bndl_json_str_or_null(run->sandbox));
	json_object_set_new(m, "options", opts);
	json_object_set_new(counts, "events", json_integer((json_int_t)st->nevents));
	json_object_set_new(counts, "failed", json_integer((json_int_t)st->nfailed));
	json_object_set_new(counts, "processes", json_integer((json_int_t)st->nprocs));
	json_object_set_new(m, "counts", counts);
	json_object_set_new(m, "incomplete", json_boolean(is_incomplete(st)));
	json_object_set_new(m, "dropped", dropped_json(st));
	json_object_set_new(m, "warnings", warnings_json(st, run));
	json_object_set_new(m, "redacted",
			    run->redacted != NULL ? json_deep_copy(run->redacted) : json_array());
	if (json_is_array(run->injections))
		json_object_set_new(m, "injections", json_deep_copy(run->injections));
	if (json_is_object(run->overlay))
		json_object_set_new(m, "overlay", json_deep_copy(run->overlay));
	return m;
}

/* ---- the archive ---- */

/* A temporary output file, unlinked unless committed. */
struct tmp_out {
	char *path;
	int fd;
};

static void tmp_out_release(struct tmp_out *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->path != NULL)
		unlink(t->path);
	free(t->path);
}
#define cleanup_tmp_out __attribute__((cleanup(tmp_out_release)))

/* The bundle gets the usual mode of a new file (0666 & ~umask), not mkostemp's 0600. */
static int tmp_out_create(struct tmp_out *t, const char *out_path, struct repro_err **err)
{
	mode_t mask = umask(022);

	umask(mask);
	t->path = repro_xasprintf("%s.tmp-XXXXXX", out_path);
	t->fd = mkostemp(t->path, O_CLOEXEC);
	if (t->fd < 0) {
		int e = errno;

		free(steal_ptr(&t->path));
		return repro_err_set(err, e, "cannot create '%s'", out_path);
	}
	if (fchmod(t->fd, 0666 & ~mask) < 0)
		return repro_err_set(err, errno, "cannot create '%s'", out_path);
	return 0;
}

static int member_from_memory(struct bndl_tarzst *w, const char *name, const char *data,
			      time_t mtime, struct repro_err **err)
{
	size_t len = strlen(data);

	if (bndl_tarzst_member(w, name, len, mtime, err) < 0)
		return -1;
	return bndl_tarzst_write(w, data, len, err);
}

/* A staged member, read from its start; its size is what fstat(2) says now. */
static int member_from_file(struct bndl_tarzst *w, const char *name, struct tmp_member *src,
			    time_t mtime, struct repro_err **err)
{
	char buf[64 * 1024];
	struct stat stbuf;
	uint64_t left;
	size_t n;

	if (fflush(src->f) == EOF || fstat(fileno(src->f), &stbuf) < 0 ||
	    fseek(src->f, 0, SEEK_SET) < 0)
		return repro_err_set(err, errno, "cannot read '%s'", src->path);
	left = (uint64_t)stbuf.st_size;
	if (bndl_tarzst_member(w, name, left, mtime, err) < 0)
		return -1;
	while (left > 0 &&
	       (n = fread(buf, 1, sizeof(buf) < left ? sizeof(buf) : left, src->f)) > 0) {
		if (bndl_tarzst_write(w, buf, n, err) < 0)
			return -1;
		left -= n;
	}
	if (ferror(src->f))
		return repro_err_set(err, errno ? errno : EIO, "cannot read '%s'", src->path);
	if (left > 0)
		return repro_err_set(err, EIO, "cannot read '%s': it shrank while being packed",
				     src->path);
	return 0;
}

/* A file of the spool directory (host.json, files.jsonl) as a member, when it exists. */
static int member_from_spool(struct bndl_tarzst *w, const char *spool_dir, const char *name,
			     time_t mtime, struct repro_err **err)
{
	cleanup_free char *path = repro_path_join(spool_dir, name);
	struct tmp_member src = { .path = repro_xstrdup(path) };
	cleanup_err struct repro_err *oerr = NULL;
	int fd = repro_file_open_regular(path, &oerr);
	int rc;

	if (fd < 0) {
		tmp_member_release(&src);
		if (repro_err_is(&oerr, ENOENT))
			return 0;
		*err = steal_ptr(&oerr);
		return -1;
	}
	src.f = fdopen(fd, "r");
	if (src.f == NULL) {
		close(fd);
		tmp_member_release(&src);
		return repro_err_set(err, errno, "cannot read '%s'", path);
	}
	rc = member_from_file(w, name, &src, mtime, err);
	tmp_member_release(&src);
	return rc;
}

/* Is name one of the members packed from the spool's temporary files? */
static struct tmp_member *own_member(struct pack_state *st, const char *name)
{
	return strcmp(name, TMP_PROCS) == 0    ? &st->processes
	       : strcmp(name, TMP_EVENTS) == 0 ? &st->events
	       : strcmp(name, TMP_TRACE) == 0  ? &st->trace
	       : strcmp(name, TMP_OUTPUT) == 0 ? &st->output
					       : NULL;
}

static bool extra_wanted(const struct pack_state *st, const char *name)
{
	for (size_t i = 0; st->extra != NULL && st->extra[i] != NULL; i++)
		if (strcmp(st->extra[i], name) == 0)
			return true;
	return false;
}

/* A file of the spool directory exists as a regular file (never followed as a symlink). */
static bool spool_has(const struct pack_state *st, const char *name)
{
	cleanup_free char *path = repro_path_join(st->extra_dir, name);
	struct stat sb;

	return lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The text given in memory for member name (host.json), or NULL: it comes from a file. */
static const char *text_member(const struct pack_state *st, const char *name)
{
	return strcmp(name, BNDL_HOST_JSON) == 0 ? st->run->host_json_text : NULL;
}

/*
 * The members this bundle will have, in archive order (manifest.json
 * "members", docs/bundle-format.md): bndl_members (bundles/members.h), then extra
 * members it does not name, each when it exists.
 */
static json_t *member_list(const struct pack_state *st)
{
	json_t *list = json_array();

	for (size_t i = 0; bndl_members[i].name != NULL; i++) {
		const char *n = bndl_members[i].name;

		if (strcmp(n, BNDL_MANIFEST_JSON) == 0 || own_member((struct pack_state *)st, n) ||
		    (extra_wanted(st, n) && (text_member(st, n) != NULL || spool_has(st, n))))
			json_array_append_new(list, json_string(n));
	}
	for (size_t i = 0; st->extra != NULL && st->extra[i] != NULL; i++) {
		bool known = false;

		for (size_t j = 0; bndl_members[j].name != NULL; j++)
			known |= strcmp(bndl_members[j].name, st->extra[i]) == 0;
		if (!known && spool_has(st, st->extra[i]))
			json_array_append_new(list, json_string(st->extra[i]));
	}
	return list;
}

static int write_members(struct bndl_tarzst *w, struct pack_state *st, json_t *members,
			 const char *manifest, time_t mtime, struct repro_err **err)
{
	for (size_t i = 0; i < json_array_size(members); i++) {
		const char *name = json_string_value(json_array_get(members, i));
		struct tmp_member *own = own_member(st, name);
		const char *text = strcmp(name, BNDL_MANIFEST_JSON) == 0 ? manifest
									 : text_member(st, name);
		int rc = text != NULL  ? member_from_memory(w, name, text, mtime, err)
			 : own != NULL ? member_from_file(w, name, own, mtime, err)
				       : member_from_spool(w, st->extra_dir, name, mtime, err);

		if (rc < 0)
			return -1;
	}
	return 0;
}

static void tarzst_free_ptr(struct bndl_tarzst **w)
{
	bndl_tarzst_free(*w);
}
#define cleanup_tarzst __attribute__((cleanup(tarzst_free_ptr)))

static int write_bundle(struct pack_state *st, const char *manifest, time_t mtime,
			const char *out_path, struct repro_err **err)
{
	cleanup_tmp_out struct tmp_out tmp = { .path = NULL, .fd = -1 };
	cleanup_tarzst struct bndl_tarzst *w = NULL;

	if (tmp_out_create(&tmp, out_path, err) < 0)
		return -1;
	w = bndl_tarzst_open(tmp.fd, out_path, err);
	if (w == NULL || write_members(w, st, st->members, manifest, mtime, err) < 0 ||
	    bndl_tarzst_close(w, err) < 0)
		return -1;
	/*
	 * No fsync(2): the rename makes OUT appear complete or not at all; that
	 * it also survives a power cut is not worth ~9 ms of every recording
	 * (the run can be recorded again).
	 */
	if (close(steal_fd(&tmp.fd)) < 0)
		return repro_err_set(err, errno, "cannot write '%s'", out_path);
	if (rename(tmp.path, out_path) < 0)
		return repro_err_set(err, errno, "cannot rename '%s' to '%s'", tmp.path, out_path);
	free(steal_ptr(&tmp.path));
	return 0;
}

static struct pack_state pack_state_make(const char *spool_dir, const struct bndl_run_info *run,
					 const struct bndl_render_ops *ops)
{
	return (struct pack_state){ .run = run,
				    .ops = ops,
				    .spool_dir = spool_dir,
				    .extra = run->extra_members,
				    .extra_dir = run->extra_dir != NULL ? run->extra_dir
									: spool_dir,
				    .pids = repro_map_new() };
}

/* Render the spool into events.jsonl, trace.txt and processes.jsonl staged in dir. */
static int stage(struct pack_state *st, const char *dir, struct repro_err **err)
{
	if (tmp_member_open(&st->events, dir, TMP_EVENTS, err) < 0 ||
	    tmp_member_open(&st->trace, dir, TMP_TRACE, err) < 0 ||
	    tmp_member_open(&st->output, dir, TMP_OUTPUT, err) < 0)
		return -1;
	if (read_spool(st, st->spool_dir, err) < 0)
		return -1;
	add_run_facts(st);
	if (tmp_member_finish(&st->events, err) < 0 || tmp_member_finish(&st->trace, err) < 0 ||
	    tmp_member_finish(&st->output, err) < 0)
		return -1;
	return write_processes(st, dir, err);
}

/* Stage in the first of dirs (NULL: $TMPDIR) whose filesystem has room, from the start each time. */
static int stage_somewhere(struct pack_state *st, const struct bndl_run_info *run,
			   const char *const *dirs, struct repro_err **err)
{
	const char *const fallback[] = { tmpdir(), NULL };

	if (dirs == NULL || dirs[0] == NULL)
		dirs = fallback;
	for (size_t i = 0;; i++) {
		cleanup_err struct repro_err *serr = NULL;

		if (stage(st, dirs[i], &serr) == 0)
			return 0;
		if (!bndl_is_disk_full(serr->errnum) || dirs[i + 1] == NULL) {
			*err = steal_ptr(&serr);
			return -1;
		}
		const char *spool_dir = st->spool_dir;
		const struct bndl_render_ops *ops = st->ops;

		pack_state_release(st);
		*st = pack_state_make(spool_dir, run, ops);
	}
}

static bool dir_dev(const char *dir, dev_t *dev)
{
	struct stat sb;

	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return false;
	*dev = sb.st_dev;
	return true;
}

/*
 * Write the bundle to dest->out_path or, when its filesystem is full, under
 * its base name in the first of dest->fallback_dirs on another filesystem
 * that takes it.  *written gets the path used.  A failed attempt leaves no
 * file behind (tmp_out_release()).  Errors: the one of out_path.
 */
static int write_bundle_somewhere(struct pack_state *st, const char *manifest, time_t mtime,
				  const struct bndl_pack_dest *dest, char **written,
				  struct repro_err **err)
{
	cleanup_err struct repro_err *first = NULL;
	cleanup_free char *copy = repro_xstrdup(dest->out_path);
	cleanup_free char *copy2 = repro_xstrdup(dest->out_path);
	const char *base = basename(copy);
	dev_t full_dev = 0;
	bool has_full_dev = dir_dev(dirname(copy2), &full_dev);

	if (write_bundle(st, manifest, mtime, dest->out_path, &first) == 0) {
		*written = repro_xstrdup(dest->out_path);
		return 0;
	}
	for (size_t i = 0; bndl_is_disk_full(first->errnum) && dest->fallback_dirs != NULL &&
			   dest->fallback_dirs[i] != NULL;
	     i++) {
		cleanup_free char *path = repro_path_join(dest->fallback_dirs[i], base);
		cleanup_err struct repro_err *ferr = NULL;
		dev_t dev;

		if (!dir_dev(dest->fallback_dirs[i], &dev) || (has_full_dev && dev == full_dev))
			continue;
		if (write_bundle(st, manifest, mtime, path, &ferr) == 0) {
			*written = steal_ptr(&path);
			return 0;
		}
	}
	*err = steal_ptr(&first);
	return -1;
}

int bndl_pack_to(const char *spool_dir, const struct bndl_run_info *run,
		 const struct bndl_render_ops *ops, const struct bndl_pack_dest *dest,
		 char **written, struct repro_err **err)
{
	cleanup_pack_state struct pack_state st = pack_state_make(spool_dir, run, ops);
	cleanup_json json_t *manifest = NULL;
	cleanup_free char *manifest_text = NULL;
	cleanup_free char *path = NULL;

	if (stage_somewhere(&st, run, dest->scratch_dirs, err) < 0)
		return -1;
	st.members = member_list(&st);
	manifest = manifest_json(&st, run);
	if (ops != NULL && ops->redact_json != NULL)
		ops->redact_json(ops->ctx, manifest);
	json_object_set(manifest, "members", st.members);
	manifest_text = json_dumps(manifest, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (manifest_text == NULL)
		return repro_err_set(err, EINVAL, "cannot encode manifest.json");
	manifest_text = repro_xrealloc(manifest_text, strlen(manifest_text) + 2);
	strcat(manifest_text, "\n");
	if (write_bundle_somewhere(&st, manifest_text, (time_t)run->started_at_s, dest, &path,
				   err) < 0)
		return -1;
	if (written != NULL)
		*written = steal_ptr(&path);
	return 0;
}

int bndl_pack(const char *spool_dir, const struct bndl_run_info *run,
	      const struct bndl_render_ops *ops, const char *out_path, struct repro_err **err)
{
	const struct bndl_pack_dest dest = { .out_path = out_path };

	return bndl_pack_to(spool_dir, run, ops, &dest, NULL, err);
}

void bndl_dirs_free(char **dirs)
{
	for (size_t i = 0; dirs != NULL && dirs[i] != NULL; i++)
		free(dirs[i]);
	free(dirs);
}

char **bndl_scratch_dirs(const char *last)
{
	const char *cands[] = { tmpdir(), "/tmp", "/var/tmp", last };
	size_t n = sizeof(cands) / sizeof(cands[0]), k = 0;
	char **dirs = repro_xcalloc(n + 1, sizeof(*dirs));
	dev_t devs[sizeof(cands) / sizeof(cands[0])];

	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		dev_t dev;

		if (cands[i] == NULL || !dir_dev(cands[i], &dev) ||
		    access(cands[i], W_OK | X_OK) < 0)
			continue;
		for (size_t j = 0; j < k; j++)
			seen = seen || devs[j] == dev;
		if (seen)
			continue;
		devs[k] = dev;
		dirs[k++] = repro_xstrdup(cands[i]);
	}
	return dirs;
}

/* ---- run.json ---- */

int bndl_runinfo_save(const char *spool_dir, const struct bndl_run_info *run,
		      struct repro_err **err)
{
	cleanup_free char *path = repro_path_join(spool_dir, BNDL_SPOOL_RUNINFO);
	cleanup_json json_t *o = json_object();
	cleanup_free char *text = NULL;
	cleanup_close int fd = -1;

	json_object_set_new(o, "argv", argv_array(run->argv));
	json_object_set_new(o, "cwd", bndl_json_str_or_null(run->cwd));
	json_object_set_new(o, "started_at_s", json_integer(run->started_at_s));
	json_object_set_new(o, "started_at_ns", json_integer(run->started_at_ns));
	json_object_set_new(o, "trace", bndl_json_str_or_null(run->trace_classes));
	json_object_set_new(o, "net", bndl_json_str_or_null(run->net_mode));
	json_object_set_new(o, "sandbox", bndl_json_str_or_null(run->sandbox));
	json_object_set_new(o, "tool", bndl_json_str_or_null(run->tool_version));
	json_object_set_new(o, "warnings", bndl_json_str_or_null(run->warnings));
	if (json_is_array(run->injections))
		json_object_set_new(o, "injections", json_deep_copy(run->injections));
	if (json_is_object(run->overlay))
		json_object_set_new(o, "overlay", json_deep_copy(run->overlay));
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text == NULL)
		return repro_err_set(err, EINVAL, "cannot encode '%s'", path);
	/* written again during the run: the file made at the start, never a link */
	fd = repro_file_create(path, true, err);
	if (fd < 0)
		return -1;
	if (repro_write_all(fd, text, strlen(text), path, err) < 0)
		return -1;
	if (close(steal_fd(&fd)) < 0)
		return repro_err_set(err, errno, "cannot write '%s'", path);
	return 0;
}

/* A NULL-terminated array of arr's strings (borrowed from arr); NULL if one is not a string. */
static char **argv_from_json(json_t *arr)
{
	size_t n = json_array_size(arr);
	cleanup_free char **argv = repro_xcalloc(n + 1, sizeof(*argv));

	for (size_t i = 0; i < n; i++) {
		argv[i] = (char *)json_string_value(json_array_get(arr, i));
		if (argv[i] == NULL)
			return NULL;
	}
	return steal_ptr(&argv);
}

static void runinfo_fill(json_t *o, struct bndl_run_info *run)
{
	*run = (struct bndl_run_info){
		.cwd = bndl_json_str(o, "cwd"),
		.started_at_s = bndl_json_int(o, "started_at_s", 0),
		.started_at_ns = bndl_json_int(o, "started_at_ns", 0),
		.trace_classes = bndl_json_str(o, "trace"),
		.net_mode = bndl_json_str(o, "net"),
		.sandbox = bndl_json_str(o, "sandbox"),
		.tool_version = bndl_json_str(o, "tool"),
		.warnings = bndl_json_str(o, "warnings"),
		.injections = json_is_array(json_object_get(o, "injections"))
				      ? json_object_get(o, "injections")
				      : NULL,
		.overlay = json_is_object(json_object_get(o, "overlay"))
				   ? json_object_get(o, "overlay")
				   : NULL,
	};
}

int bndl_runinfo_load(const char *spool_dir, struct bndl_run_info *run, json_t **holder,
		      char ***argv_holder, struct repro_err **err)
{
	cleanup_free char *path = repro_path_join(spool_dir, BNDL_SPOOL_RUNINFO);
	cleanup_free char *text = NULL;
	cleanup_json json_t *o = NULL;
	cleanup_close int fd = -1;
	json_error_t jerr;
	size_t len = 0;
	char **argv;

	fd = repro_file_open_regular(path, err);
	if (fd < 0 || (text = repro_read_fd(fd, RUNINFO_MAX, &len, path, err)) == NULL)
		return -1;
	o = json_loadb(text, len, 0, &jerr);
	if (o == NULL || !json_is_object(o))
		return repro_err_set(err, EPROTO, "'%s' is not valid: %s", path,
				     o == NULL ? jerr.text : "not a JSON object");
	argv = argv_from_json(json_object_get(o, "argv"));
	if (argv == NULL)
		return repro_err_set(err, EPROTO,
				     "'%s' is not valid: \"argv\" is not an array of strings",
				     path);
	runinfo_fill(o, run);
	run->argv = argv;
	*argv_holder = argv;
	*holder = steal_ptr(&o);
	return 0;
}
