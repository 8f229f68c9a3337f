/* Running a sweep's faults in child processes, a few at a time (replayer/sweep/sweep.h). */
#include "replayer/sweep/sweep.h"
#include "common/names.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/progress.h"
#include "common/xalloc.h"
#include "replayer/readers/explain.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The program's stderr read back for the classification (bytes). */
#define STDERR_KEEP (1024u * 1024u)
/* How long past its own time limit a run may take to write its bundle before it is killed. */
#define GRACE_NS (60ull * 1000000000ull)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int swp_write_result(const char *dir, bool has_exit, int wait_status, bool timed_out,
		     uint64_t duration_ns, const char *bundle, const char *error)
{
	cleanup_free char *path = repro_xasprintf("%s/result.json", dir);
	json_t *o = json_pack("{s:b,s:i,s:b,s:I,s:s?,s:s?}", "has_exit", has_exit, "wait_status",
			      wait_status, "timed_out", timed_out, "duration_ns",
			      (json_int_t)duration_ns, "bundle", bundle, "error", error);
	int rc = o != NULL ? json_dump_file(o, path, JSON_COMPACT) : -1;

	json_decref(o);
	return rc < 0 ? -1 : 0;
}

/* In the child: stdin from /dev/null, stdout and stderr into dir, then the runner. */
static void child(const struct swp_runner *runner, const struct swp_run_req *req)
{
	cleanup_free char *out = repro_xasprintf("%s/stdout", req->dir);
	cleanup_free char *errp = repro_xasprintf("%s/stderr", req->dir);
	int in = open("/dev/null", O_RDONLY);
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
		_exit(125);
	close(in);
	close(o);
	close(e);
	signal(SIGPIPE, SIG_DFL);
	_exit(runner->run(runner->ctx, req));
}

/* The first STDERR_KEEP bytes of a file, NUL-terminated, or NULL. */
static char *read_head(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = repro_xmalloc(STDERR_KEEP + 1);
	n = read(fd, buf, STDERR_KEEP);
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' '; /* a NUL does not end what the program said */
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* How often the run's rules fired, from its manifest's "injections" (-1: not known). */
static long long fired_of(const char *bundle)
{
	struct repro_err *err = NULL;
	struct bndl_reader *r = bndl_reader_open(bundle, &err);
	json_t *inj;
	long long n = -1;

	repro_err_free(&err);
	if (r == NULL)
		return -1;
	inj = json_object_get(bndl_reader_manifest(r), "injections");
	if (json_array_size(inj) >
	    0) { /* a fault of several rules (create-in) fired when one did */
		size_t i;
		json_t *e;

		n = 0;
		json_array_foreach (inj, i, e)
			n += json_integer_value(json_object_get(e, "fired"));
	}
	bndl_reader_free(r);
	return n;
}

/* Fill *out from what the run left in req->dir. */
static void read_outcome(const struct swp_run_req *req, int child_status, struct swp_outcome *out)
{
	cleanup_free char *res = repro_xasprintf("%s/result.json", req->dir);
	cleanup_free char *errp = repro_xasprintf("%s/stderr", req->dir);
	json_t *o = json_load_file(res, 0, NULL);
	const char *error = json_string_value(json_object_get(o, "error"));
	const char *bundle = json_string_value(json_object_get(o, "bundle"));

	memset(out, 0, sizeof(*out));
	out->fired = -1;
	out->ran = o != NULL;
	if (o == NULL) {
		out->error = repro_xasprintf(WIFSIGNALED(child_status)
						     ? "the run was killed by signal %d"
						     : "the run ended with status %d and no result",
					     WIFSIGNALED(child_status) ? WTERMSIG(child_status)
								       : WEXITSTATUS(child_status));
		return;
	}
	out->has_exit = json_is_true(json_object_get(o, "has_exit"));
	out->wait_status = (int)json_integer_value(json_object_get(o, "wait_status"));
	out->timed_out = json_is_true(json_object_get(o, "timed_out"));
	out->duration_ns = (uint64_t)json_integer_value(json_object_get(o, "duration_ns"));
	out->error = error != NULL ? repro_xstrdup(error) : NULL;
	out->bundle = bundle != NULL ? repro_xstrdup(bundle) : NULL;
	out->stderr_text = read_head(errp);
	if (out->bundle != NULL && req->rule != NULL)
		out->fired = fired_of(out->bundle);
	json_decref(o);
}

static pid_t start(const struct swp_runner *runner, const struct swp_run_req *req,
		   struct repro_err **err)
{
	pid_t pid;

	if (mkdir(req->dir, 0700) < 0 && errno != EEXIST)
		return repro_err_set(err, errno, "sweep: cannot make '%s'", req->dir), -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return repro_err_set(err, errno, "sweep: fork"), -1;
	if (pid == 0)
		child(runner, req);
	return pid;
}

int swp_run_one(const struct swp_runner *runner, const struct swp_run_req *req,
		struct swp_outcome *out, bool (*should_stop)(void *ctx), void *stop_ctx,
		struct repro_err **err)
{
	pid_t pid = start(runner, req, err), got;
	int st = 0;

	if (pid < 0)
		return -1;
	while ((got = waitpid(pid, &st, WNOHANG)) == 0 || (got < 0 && errno == EINTR)) {
		struct timespec ts = { 0, 50000000 };

		if (should_stop != NULL && should_stop(stop_ctx)) {
			kill(pid, SIGKILL); /* its tracees go with it (PTRACE_O_EXITKILL) */
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return repro_err_set(err, EINTR, "sweep: interrupted");
		}
		nanosleep(&ts, NULL);
	}
	read_outcome(req, st, out);
	return 0;
}

/* The run directory (its spool, result, output, bundle) gone. */
static void remove_run_dir(const char *dir)
{
	repro_remove_tree(dir);
}

/* A file name for fault i's kept bundle: its number and id, other bytes as '_'. */
static char *keep_name(const char *keep_dir, size_t i, const char *id)
{
	char name[128];
	size_t n = 0;

	for (const char *c = id; *c != '\0' && n < sizeof(name) - 1; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '-';

		if (!ok && n > 0 && name[n - 1] == '_')
			continue;
		name[n++] = ok ? *c : '_';
	}
	name[n] = '\0';
	return repro_xasprintf("%s/%03zu-%s.repro", keep_dir, i + 1, name);
}

/* explain's first finding of a bundle, as one sentence (a new string), or NULL. */
static char *first_finding(const char *bundle)
{
	struct rpl_explain_opts eo = { .bundle_path = bundle };
	struct repro_err *err = NULL;
	json_t *doc = NULL;
	const char *s;
	char *out = NULL;

	if (rpl_explain_findings(&eo, &doc, &err) < 0) {
		repro_err_free(&err);
		return NULL;
	}
	s = json_string_value(
		json_object_get(json_array_get(json_object_get(doc, "findings"), 0), "sentence"));
	if (s != NULL)
		out = repro_xstrdup(s);
	json_decref(doc);
	return out;
}

static const char *area_name(enum swp_area a)
{
	switch (a) {
	case SWP_FILE: return "file";
	case SWP_EXEC: return "exec";
	case SWP_NETWORK: return "network";
	case SWP_DNS: return "dns";
	case SWP_ALL: break;
	}
	return "?";
}

static json_t *exit_json(const struct swp_outcome *o)
{
	if (!o->has_exit || o->timed_out)
		return json_null();
	if (WIFSIGNALED(o->wait_status)) {
		char name[32];

		return json_pack("{s:s}", "signal",
				 repro_signal_name(WTERMSIG(o->wait_status), name, sizeof(name)));
	}
	return json_pack("{s:i}", "code", WEXITSTATUS(o->wait_status));
}

/* The record of one run (docs/sweep.md, "JSON"). */
static json_t *run_record(const struct swp_fault *f, const struct swp_outcome *o, const char *kept)
{
	enum swp_class c = swp_classify(f, o);
	cleanup_free char *line = swp_first_line(o->stderr_text);
	char *finding = c != SWP_CLEAN && c != SWP_ERROR && c != SWP_NOT_REACHED &&
					o->bundle != NULL
				? first_finding(o->bundle)
				: NULL;
	json_t *r = json_pack("{s:s,s:s,s:s,s:s,s:s?,s:s,s:s,s:o,s:s,s:I,s:I}", "id", f->id, "rule",
			      f->rule, "area", area_name(f->area), "target", f->target, "host",
			      f->host, "fault", f->fault, "class", swp_class_name(c), "exit",
			      exit_json(o), "stderr", line, "fired", (json_int_t)o->fired,
			      "duration_ns", (json_int_t)o->duration_ns);

	json_object_set_new(r, "explain", finding != NULL ? json_string(finding) : json_null());
	json_object_set_new(r, "bundle", kept != NULL ? json_string(kept) : json_null());
	if (o->error != NULL)
		json_object_set_new(r, "error", json_string(o->error));
	free(finding);
	return r;
}

/* One run in flight. */
struct slot {
	pid_t pid; /* 0: free */
	size_t fault; /* its index in the plan */
	uint64_t started_ns;
	char *dir, *bundle; /* owned */
};

struct sched {
	const struct swp_plan *plan;
	const struct swp_runner *runner;
	const struct swp_sweep_opts *o;
	struct slot *slots;
	json_t *records; /* one per fault, null until its run ends */
	size_t next, done;
	uint64_t t0;
	struct repro_progress line; /* on o->progress (common/progress.h) */
};

static int launch(struct sched *s, struct slot *sl, struct repro_err **err)
{
	size_t i = s->next++;
	struct swp_run_req req;

	sl->fault = i;
	sl->dir = repro_xasprintf("%s/%03zu", s->o->work_dir, i + 1);
	sl->bundle = s->o->keep_dir != NULL ? keep_name(s->o->keep_dir, i, s->plan->v[i].id)
					    : repro_xasprintf("%s/run.repro", sl->dir);
	req = (struct swp_run_req){ .rule = s->plan->v[i].rule,
				    .dir = sl->dir,
				    .bundle = sl->bundle,
				    .time_limit_ns = s->o->time_limit_ns };
	sl->started_ns = now_ns();
	sl->pid = start(s->runner, &req, err);
	if (sl->pid > 0)
		return 0;
	free(sl->dir);
	free(sl->bundle);
	*sl = (struct slot){ 0 };
	s->next--;
	return -1;
}

static void finish(struct sched *s, struct slot *sl, int status)
{
	const struct swp_fault *f = &s->plan->v[sl->fault];
	struct swp_run_req req = { .rule = f->rule, .dir = sl->dir, .bundle = sl->bundle };
	struct swp_outcome out;

	read_outcome(&req, status, &out);
	json_array_set_new(s->records, sl->fault,
			   run_record(f, &out, s->o->keep_dir != NULL ? out.bundle : NULL));
	swp_outcome_release(&out);
	remove_run_dir(sl->dir);
	free(sl->dir);
	free(sl->bundle);
	sl->dir = sl->bundle = NULL;
	sl->pid = 0;
	s->done++;
}

/* The progress line: done/total, elapsed, and an estimate of what is left. */
static void progress(struct sched *s)
{
	double el = (double)(now_ns() - s->t0) / 1e9;
	char left[48] = "";

	if (s->done > 0 && s->done < s->plan->n)
		snprintf(left, sizeof(left), ", about %.0f s left",
			 el / (double)s->done * (double)(s->plan->n - s->done));
	repro_progress_text(&s->line, true, "sweep: %zu/%zu runs, %.0f s%s", s->done, s->plan->n,
			    el, left);
}

/* Interrupted: every run killed (its tracees go with it, PTRACE_O_EXITKILL), its files removed. */
static void stop_all(struct sched *s)
{
	for (unsigned j = 0; j < s->o->jobs; j++) {
		struct slot *sl = &s->slots[j];
		int st;

		if (sl->pid <= 0)
			continue;
		kill(sl->pid, SIGKILL);
		while (waitpid(sl->pid, &st, 0) < 0 && errno == EINTR)
			;
		remove_run_dir(sl->dir);
		free(sl->dir);
		free(sl->bundle);
		*sl = (struct slot){ 0 };
	}
}

/* A run far past its time limit (repro itself stuck): killed, its record says so. */
static void reap_overdue(struct sched *s)
{
	uint64_t t = now_ns();

	for (unsigned j = 0; j < s->o->jobs; j++)
		if (s->slots[j].pid > 0 && s->o->time_limit_ns > 0 &&
		    t - s->slots[j].started_ns > s->o->time_limit_ns + GRACE_NS)
			kill(s->slots[j].pid, SIGKILL);
}

int swp_sweep_run(const struct swp_plan *plan, const struct swp_runner *runner,
		  const struct swp_sweep_opts *opts, json_t **out, struct repro_err **err)
{
	struct sched s = { .plan = plan, .runner = runner, .o = opts, .t0 = now_ns() };
	int rc = 0;

	repro_progress_init(&s.line, opts->progress);
	s.slots = repro_xcalloc(opts->jobs, sizeof(*s.slots));
	s.records = json_array();
	for (size_t i = 0; i < plan->n; i++)
		json_array_append_new(s.records, json_null());
	/* until every fault ran, or after a failed fork, until those in flight ended */
	while (s.done < s.next || (rc == 0 && s.next < plan->n)) {
		int st;
		pid_t pid;

		for (unsigned j = 0; j < opts->jobs && rc == 0 && s.next < plan->n; j++)
			if (s.slots[j].pid == 0 && launch(&s, &s.slots[j], err) < 0)
				rc = -1;
		if (s.done == s.next)
			break;
		progress(&s);
		if (opts->should_stop != NULL && opts->should_stop(opts->stop_ctx)) {
			stop_all(&s);
			rc = repro_err_set(err, EINTR, "sweep: interrupted");
			break;
		}
		pid = waitpid(-1, &st, WNOHANG);
		if (pid <= 0) {
			struct timespec ts = { 0, 100000000 };

			if (pid < 0 && errno == ECHILD)
				break;
			nanosleep(&ts, NULL);
			reap_overdue(&s);
			continue;
		}
		for (unsigned j = 0; j < opts->jobs; j++)
			if (s.slots[j].pid == pid)
				finish(&s, &s.slots[j], st);
	}
	repro_progress_clear(&s.line);
	free(s.slots);
	if (rc < 0) {
		json_decref(s.records);
		return -1;
	}
	*out = s.records;
	return 0;
}
