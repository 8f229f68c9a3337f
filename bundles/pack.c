#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sigabbrev_np, strcasestr, mkostemp, asprintf */
#endif

#include "bundles/pack.h"
#include "bundles/archive_util.h"
#include "bundles/json_util.h"
#include "bundles/pidmap.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TMP_EVENTS "events.jsonl"
#define TMP_PROCS "processes.jsonl"
#define TMP_TRACE "trace.txt"
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

/* A temporary member file in the spool directory. */
struct tmp_member {
	char *path;
	FILE *f;
};

struct pack_state {
	const struct bndl_render_ops *ops; /* borrowed */
	const char *spool_dir; /* borrowed */
	const char *const *extra; /* borrowed: run->extra_members */
	struct proc *procs;
	size_t nprocs;
	size_t cap;
	struct bndl_pidmap *pids;
	struct tmp_member events;
	struct tmp_member trace;
	struct tmp_member processes;
	uint64_t nevents;
	uint64_t nfailed;
	uint64_t last_ns;
	bool is_truncated;
	char *damage; /* why reading stopped early, or NULL */
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
	bndl_pidmap_free(st->pids);
	tmp_member_release(&st->events);
	tmp_member_release(&st->trace);
	tmp_member_release(&st->processes);
	free(st->damage);
}
#define cleanup_pack_state __attribute__((cleanup(pack_state_release)))

/*
 * A member is staged in an unnamed temporary file in $TMPDIR (open(2)
 * O_TMPFILE; else mkstemp + unlink): nothing in the spool directory is
 * created or followed, so a read-only spool packs and a symlink planted
 * there is never written through.  dir is unused but kept for messages.
 */
static int open_unnamed_tmp(void)
{
	const char *tmp = getenv("TMPDIR");
	char *templ;
	int fd;

	if (tmp == NULL || tmp[0] != '/')
		tmp = "/tmp";
	fd = open(tmp, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	templ = repro_xasprintf("%s/repro-pack-XXXXXX", tmp);
	fd = mkostemp(templ, O_CLOEXEC);
	if (fd >= 0)
		unlink(templ);
	free(templ);
	return fd;
}

static int tmp_member_open(struct tmp_member *m, const char *dir, const char *name,
			   struct repro_err **err)
{
	int fd;

	(void)dir;
	m->path = repro_xasprintf("%s (temporary)", name);
	fd = open_unnamed_tmp();
	if (fd < 0)
		return repro_err_set(err, errno, "cannot create a temporary file for '%s'", name);
	m->f = fdopen(fd, "w+");
	if (m->f == NULL) {
		close(fd);
		return repro_err_set(err, errno, "cannot create '%s'", m->path);
	}
	return 0;
}

/* Write s and a newline; a full disk (ENOSPC) is reported with the file's name. */
static int tmp_member_line(struct tmp_member *m, const char *s, struct repro_err **err)
{
	if (fputs(s, m->f) == EOF || fputc('\n', m->f) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot write '%s'", m->path);
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
	bndl_pidmap_put(st->pids, pid, st->nprocs);
	st->nprocs++;
	return p;
}

static struct proc *proc_find(struct pack_state *st, int32_t pid)
{
	size_t i;

	return bndl_pidmap_get(st->pids, pid, &i) ? &st->procs[i] : NULL;
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

static void on_proc_exec(struct pack_state *st, const struct bndl_event *ev)
{
	struct proc *p = proc_get(st, ev->pid, ev->t_ns);
	const struct bndl_blob *path = bndl_event_blob(ev, BNDL_BLOB_PATH, 0);
	const struct bndl_blob *written = bndl_event_blob(ev, BNDL_BLOB_STR, 0);
	const struct bndl_blob *env = bndl_event_blob(ev, BNDL_BLOB_ARGV, 2);
	json_t *exec = json_object();

	json_object_set_new(exec, "t_ns", json_integer((json_int_t)ev->t_ns));
	json_object_set_new(exec, "path",
			    path != NULL ? bndl_json_bytes(path->data, path->len) : json_null());
	if (path != NULL && written != NULL &&
	    (written->len != path->len || memcmp(written->data, path->data, path->len) != 0))
		json_object_set_new(exec, "path_as_written",
				    bndl_json_bytes(written->data, written->len));
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

/* "SIGSEGV", "SIGRTMIN+3", or "SIG99" for a number glibc does not name. */
static json_t *signal_json(int sig)
{
	const char *abbrev = sigabbrev_np(sig);
	char buf[32];

	if (abbrev != NULL)
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, sizeof(buf), "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, sizeof(buf), "SIG%d", sig);
	return json_string(buf);
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

static int on_syscall(struct pack_state *st, const struct bndl_event *ev, struct repro_err **err)
{
	cleanup_json json_t *obj = NULL;
	cleanup_free char *line = NULL;
	cleanup_free char *json = NULL;

	if (st->ops->render_event(st->ops->ctx, ev, &obj, &line, err) < 0)
		return -1;
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
	}
	return 0;
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

static json_t *warnings_json(const struct pack_state *st, const char *warnings)
{
	json_t *arr = json_array();
	const char *s = warnings;

	while (s != NULL && *s != '\0') {
		const char *sep = strstr(s, "; ");
		size_t n = sep != NULL ? (size_t)(sep - s) : strlen(s);

		if (n > 0)
			json_array_append_new(arr, bndl_json_bytes(s, n));
		s = sep != NULL ? sep + 2 : NULL;
	}
	if (st->is_truncated)
		json_array_append_new(arr, json_string("spool was truncated"));
	if (st->damage != NULL)
		json_array_append_new(arr, bndl_json_bytes(st->damage, strlen(st->damage)));
	return arr;
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
	json_object_set_new(
		m, "duration_ns",
		json_integer((json_int_t)(run->duration_ns ? run->duration_ns : st->last_ns)));
	json_object_set_new(
		m, "exit",
		run->has_exit ? exit_json(run->exit_signal != 0,
					  run->exit_signal ? run->exit_signal : run->exit_code,
					  run->core_dumped)
			      : json_null());
	json_object_set_new(opts, "trace", bndl_json_str_or_null(run->trace_classes));
	json_object_set_new(opts, "net", bndl_json_str_or_null(run->net_mode));
	json_object_set_new(opts, "sandbox", bndl_json_str_or_null(run->sandbox));
	json_object_set_new(m, "options", opts);
	json_object_set_new(counts, "events", json_integer((json_int_t)st->nevents));
	json_object_set_new(counts, "failed", json_integer((json_int_t)st->nfailed));
	json_object_set_new(counts, "processes", json_integer((json_int_t)st->nprocs));
	json_object_set_new(m, "counts", counts);
	json_object_set_new(m, "warnings", warnings_json(st, run->warnings));
	json_object_set_new(m, "redacted",
			    run->redacted != NULL ? json_deep_copy(run->redacted) : json_array());
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

static int member_header(struct archive *a, const char *name, int64_t size, time_t mtime,
			 const char *out_path, struct repro_err **err)
{
	cleanup_archive_entry struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, size);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_mtime(e, mtime, 0);
	if (archive_write_header(a, e) < ARCHIVE_WARN)
		return bndl_archive_err(err, a, "cannot write '%s'", out_path);
	return 0;
}

static int member_from_memory(struct archive *a, const char *name, const char *data, time_t mtime,
			      const char *out_path, struct repro_err **err)
{
	size_t len = strlen(data);

	if (member_header(a, name, (int64_t)len, mtime, out_path, err) < 0)
		return -1;
	if (archive_write_data(a, data, len) != (la_ssize_t)len)
		return bndl_archive_err(err, a, "cannot write '%s'", out_path);
	return 0;
}

static int member_from_file(struct archive *a, const char *name, struct tmp_member *src,
			    time_t mtime, const char *out_path, struct repro_err **err)
{
	char buf[64 * 1024];
	struct stat stbuf;
	size_t n;

	if (fstat(fileno(src->f), &stbuf) < 0 || fseek(src->f, 0, SEEK_SET) < 0)
		return repro_err_set(err, errno, "cannot read '%s'", src->path);
	if (member_header(a, name, stbuf.st_size, mtime, out_path, err) < 0)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), src->f)) > 0)
		if (archive_write_data(a, buf, n) != (la_ssize_t)n)
			return bndl_archive_err(err, a, "cannot write '%s'", out_path);
	if (ferror(src->f))
		return repro_err_set(err, errno ? errno : EIO, "cannot read '%s'", src->path);
	return 0;
}

/* A file of the spool directory (host.json, files.jsonl) as a member, when it exists. */
static int member_from_spool(struct archive *a, const char *spool_dir, const char *name,
			     time_t mtime, const char *out_path, struct repro_err **err)
{
	cleanup_free char *path = repro_path_join(spool_dir, name);
	struct tmp_member src = { .path = repro_xstrdup(path) };
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int rc;

	if (fd < 0) {
		tmp_member_release(&src);
		if (errno == ENOENT)
			return 0;
		return repro_err_set(err, errno, "cannot read '%s'", path);
	}
	src.f = fdopen(fd, "r");
	if (src.f == NULL) {
		close(fd);
		tmp_member_release(&src);
		return repro_err_set(err, errno, "cannot read '%s'", path);
	}
	rc = member_from_file(a, name, &src, mtime, out_path, err);
	tmp_member_release(&src);
	return rc;
}

static int write_members(struct archive *a, struct pack_state *st, const char *manifest,
			 time_t mtime, const char *out_path, struct repro_err **err)
{
	if (member_from_memory(a, "manifest.json", manifest, mtime, out_path, err) < 0 ||
	    member_from_file(a, TMP_PROCS, &st->processes, mtime, out_path, err) < 0 ||
	    member_from_file(a, TMP_EVENTS, &st->events, mtime, out_path, err) < 0 ||
	    member_from_file(a, TMP_TRACE, &st->trace, mtime, out_path, err) < 0)
		return -1;
	for (size_t i = 0; st->extra != NULL && st->extra[i] != NULL; i++)
		if (member_from_spool(a, st->spool_dir, st->extra[i], mtime, out_path, err) < 0)
			return -1;
	return 0;
}

static int open_writer(struct archive *a, int fd, const char *out_path, struct repro_err **err)
{
	if (archive_write_set_format_pax_restricted(a) < ARCHIVE_WARN ||
	    archive_write_add_filter_zstd(a) < ARCHIVE_WARN ||
	    archive_write_set_bytes_in_last_block(a, 1) < ARCHIVE_WARN ||
	    archive_write_open_fd(a, fd) < ARCHIVE_WARN)
		return bndl_archive_err(err, a, "cannot write '%s'", out_path);
	return 0;
}

static int write_bundle(struct pack_state *st, const char *manifest, time_t mtime,
			const char *out_path, struct repro_err **err)
{
	cleanup_tmp_out struct tmp_out tmp = { .path = NULL, .fd = -1 };
	cleanup_archive_write struct archive *a = NULL;

	if (tmp_out_create(&tmp, out_path, err) < 0)
		return -1;
	a = archive_write_new();
	if (open_writer(a, tmp.fd, out_path, err) < 0 ||
	    write_members(a, st, manifest, mtime, out_path, err) < 0)
		return -1;
	if (archive_write_close(a) < ARCHIVE_WARN)
		return bndl_archive_err(err, a, "cannot write '%s'", out_path);
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

int bndl_pack(const char *spool_dir, const struct bndl_run_info *run,
	      const struct bndl_render_ops *ops, const char *out_path, struct repro_err **err)
{
	cleanup_pack_state struct pack_state st = { .ops = ops,
						    .spool_dir = spool_dir,
						    .extra = run->extra_members,
						    .pids = bndl_pidmap_new() };
	cleanup_json json_t *manifest = NULL;
	cleanup_free char *manifest_text = NULL;

	if (tmp_member_open(&st.events, spool_dir, TMP_EVENTS, err) < 0 ||
	    tmp_member_open(&st.trace, spool_dir, TMP_TRACE, err) < 0)
		return -1;
	if (read_spool(&st, spool_dir, err) < 0)
		return -1;
	if (tmp_member_finish(&st.events, err) < 0 || tmp_member_finish(&st.trace, err) < 0)
		return -1;
	if (write_processes(&st, spool_dir, err) < 0)
		return -1;
	manifest = manifest_json(&st, run);
	manifest_text = json_dumps(manifest, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (manifest_text == NULL)
		return repro_err_set(err, EINVAL, "cannot encode manifest.json");
	manifest_text = repro_xrealloc(manifest_text, strlen(manifest_text) + 2);
	strcat(manifest_text, "\n");
	return write_bundle(&st, manifest_text, (time_t)run->started_at_s, out_path, err);
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
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text == NULL)
		return repro_err_set(err, EINVAL, "cannot encode '%s'", path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return repro_err_set(err, errno, "cannot create '%s'", path);
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
	};
}

int bndl_runinfo_load(const char *spool_dir, struct bndl_run_info *run, json_t **holder,
		      char ***argv_holder, struct repro_err **err)
{
	cleanup_free char *path = repro_path_join(spool_dir, BNDL_SPOOL_RUNINFO);
	cleanup_free char *text = NULL;
	cleanup_json json_t *o = NULL;
	json_error_t jerr;
	size_t len = 0;
	char **argv;

	text = repro_read_file(path, RUNINFO_MAX, &len, err);
	if (text == NULL)
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
