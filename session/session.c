/*
 * One run: the steps of sess_run(), from the options to the result
 * (docs/architecture.md, "record, step by step").
 */
#include "session/session_internal.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "recorder/systab.h"

#include <errno.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void sess_notice(const struct sess_state *s, const char *fmt, ...)
{
	cleanup_free char *line = NULL;
	va_list ap;
	int n;

	if (s->o->notice == NULL)
		return;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		line = NULL; /* vasprintf(3): the pointer is undefined then */
		return;
	}
	s->o->notice(s->o->cb_ctx, line);
}

/* Append a note to the manifest's warnings ("; "-separated in run info). */
void sess_add_warning(struct sess_state *s, const char *note)
{
	size_t len = strlen(s->warnings);

	snprintf(s->warnings + len, sizeof(s->warnings) - len, "%s%s", len ? "; " : "", note);
	s->info.warnings = s->warnings;
}

static void state_release(struct sess_state *s)
{
	(void)sess_host_join(s, NULL);
	sess_overlay_release(s);
	rec_redact_argv_free(s->argv_shown);
	json_decref(s->redacted);
	json_decref(s->injections);
	json_decref(s->host_json);
	free(s->host_text);
	free(s->written);
	free(s->full_output);
	free(s->lost);
	rec_redact_free(s->redact);
	lnch_loop_free(s->loop);
	rec_recorder_free(s->rec);
	rec_systab_free(s->tab);
	lnch_child_release(&s->child);
	free(s->rules);
	for (size_t i = 0; i < s->ntrap_names; i++)
		free(s->trap_names[i]);
	free(s->trap_names);
	if (s->spool != NULL)
		bndl_spool_close(s->spool, NULL);
	free(s->spool_dir);
	if (s->output_lock >= 0)
		close(s->output_lock);
}
#define cleanup_state __attribute__((cleanup(state_release)))

static void fill_info(struct sess_state *s)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (getcwd(s->cwd, sizeof(s->cwd)) == NULL)
		snprintf(s->cwd, sizeof(s->cwd), "?");
	rec_classes_format(s->o->classes, s->classes, sizeof(s->classes));
	s->info = (struct bndl_run_info){
		.argv = s->argv_shown,
		.redacted = s->redacted,
		.cwd = s->cwd,
		.started_at_s = now.tv_sec,
		.started_at_ns = now.tv_nsec,
		.trace_classes = s->classes,
		.net_mode = s->o->net_none ? "none" : "host",
		.sandbox = "pending", /* set once the child exists (launcher: what it could make) */
		.tool_version = "repro " REPRO_VERSION,
	};
}

/* The redaction policy and the argv for the manifest. */
static int redact_argv(struct sess_state *s, struct repro_err **err)
{
	size_t n = 0;

	s->redact = rec_redact_new(s->o->keep_env, s->o->redact, err);
	if (s->redact == NULL)
		return repro_err_wrap(err, "record");
	rec_redact_learn_env(s->redact, (const char *const *)environ);
	if (s->o->redact_hostname)
		rec_redact_hide_hostname(s->redact);
	s->redacted = json_array();
	while (s->o->argv[n] != NULL)
		n++;
	s->argv_shown = rec_redact_argv(s->redact, (const char *const *)s->o->argv, n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(s->argv_shown[i], s->o->argv[i]) != 0)
			rec_redact_note(s->redacted, "argv");
	return 0;
}

/* The caller's stop request, remembered for the result. */
static bool should_stop(void *ctx)
{
	struct sess_state *s = ctx;
	bool stop = s->o->should_stop != NULL && s->o->should_stop(s->o->cb_ctx);

	if (stop)
		s->was_stop_requested = true;
	return stop;
}

/* --wait=all: the command ended a second ago and left processes running. */
static void waiting_notice(void *ctx, const pid_t *pids, size_t shown, size_t n)
{
	const struct sess_state *s = ctx;
	cleanup_free char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (f == NULL)
		return;
	fprintf(f, "%s has ended; still recording %zu process%s it left running (pid",
		s->o->argv[0], n, n == 1 ? "" : "es");
	for (size_t i = 0; i < shown; i++)
		fprintf(f, "%s %d", i ? "," : "", (int)pids[i]);
	fprintf(f, "%s): --wait=main stops when the command ends", shown < n ? ", ..." : "");
	if (fclose(f) == 0)
		sess_notice(s, "%s", line);
}

/*
 * The child under the filter of the trace classes (the rules stay with the
 * state: the child and the loop borrow them); the sandbox it got goes to
 * run.json.
 */
/* The libseccomp names of the calls the policies act on (struct sess_policy.trap_nrs). */
static void trap_names(struct sess_state *s, const struct sess_policy *policies, size_t npolicies)
{
	for (size_t p = 0; p < npolicies; p++) {
		for (size_t i = 0; i < policies[p].ntrap; i++) {
			char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
								      policies[p].trap_nrs[i]);

			if (name == NULL)
				continue;
			s->trap_names = repro_xreallocarray(s->trap_names, s->ntrap_names + 1,
							    sizeof(*s->trap_names));
			s->trap_names[s->ntrap_names++] = name;
		}
	}
}

/* The launcher's mode for the session's. */
static enum lnch_sandbox_mode sandbox_mode(enum sess_sandbox m)
{
	switch (m) {
	case SESS_SANDBOX_NONE: return LNCH_SANDBOX_NONE;
	case SESS_SANDBOX_AUTO: return LNCH_SANDBOX_AUTO;
	case SESS_SANDBOX_REQUIRE: return LNCH_SANDBOX_REQUIRE;
	}
	return LNCH_SANDBOX_AUTO;
}

/* The session's class bits are the recorder's (recorder/systab.h). */
_Static_assert((unsigned)SESS_CLASS_FILE == (unsigned)REC_CLASS_FILE &&
		       (unsigned)SESS_CLASS_NETWORK == (unsigned)REC_CLASS_NETWORK &&
		       (unsigned)SESS_CLASS_PROCESS == (unsigned)REC_CLASS_PROCESS &&
		       (unsigned)SESS_CLASS_ALL == (unsigned)REC_CLASS_ALL,
	       "--trace classes");

int sess_classes_parse(const char *text, unsigned *classes, struct repro_err **err)
{
	return rec_classes_parse(text, classes, err);
}

static int spawn(struct sess_state *s, const struct sess_policy *policies, size_t npolicies,
		 struct repro_err **err)
{
	struct lnch_spawn_opts so = { .argv = s->o->argv,
				      .sandbox = sandbox_mode(s->o->sandbox),
				      .net_none = s->o->net_none,
				      /*
				       * the tracer would answer path calls from the host's
				       * view, not the overlays' (launcher/behalf.h)
				       */
				      .notify = !s->o->ptrace_only && s->novl == 0,
				      .overlays = s->lovl,
				      .noverlays = s->novl,
				      .cwd = s->cwd,
				      .read_only = s->o->read_only && s->novl > 0,
				      .no_new_privs = s->o->no_new_privs };

	if (s->o->inherited != NULL) {
		so.sig_ignored = &s->o->inherited->ignored;
		so.sig_blocked = &s->o->inherited->blocked;
	}
	s->tab = rec_systab_new();
	trap_names(s, policies, npolicies);
	s->rules = rec_filter_rules_with(s->o->classes, (const char *const *)s->trap_names,
					 s->ntrap_names, &so.nrules);
	so.rules = s->rules;
	if (lnch_child_spawn(&so, &s->child, err) < 0)
		return -1;
	s->info.sandbox = s->child.sandbox;
	if (s->child.fallback[0] != '\0') {
		sess_notice(s, "%s", s->child.fallback);
		sess_add_warning(s, s->child.fallback);
	}
	return bndl_runinfo_save(s->spool_dir, &s->info, err);
}

/* The loop with the recorder, the given observers and the policies. */
static void make_loop(struct sess_state *s, const struct sess_policy *policies, size_t npolicies)
{
	s->rec = rec_recorder_new(s->spool, s->tab, s->child.pid);
	s->loop = lnch_loop_new(&s->child, s->o->wait_all, should_stop, s);
	lnch_loop_add_observer(s->loop, rec_recorder_ops(), s->rec);
	for (size_t i = 0; i < s->o->nobservers; i++)
		lnch_loop_add_observer(s->loop, s->o->observers[i].ops, s->o->observers[i].ctx);
	if (s->o->wait_all)
		lnch_loop_set_waiting_notice(s->loop, 1000000000u, waiting_notice, s);
	lnch_loop_set_time_limit(s->loop, s->o->time_limit_ns);
	for (size_t i = 0; i < npolicies; i++)
		lnch_loop_add_policy(s->loop, policies[i].ops, policies[i].ctx);
}

static int start(struct sess_state *s, const struct sess_policy *policies, size_t npolicies,
		 struct repro_err **err)
{
	uint64_t t0 = lnch_now_ns(), t1;

	if (redact_argv(s, err) < 0)
		return -1;
	fill_info(s);
	if (sess_check_output(s->o->output, err) < 0)
		return -1;
	s->output_lock = sess_output_lock(s->o->output, err);
	if (s->output_lock == -2 || sess_make_spool(s, err) < 0 || sess_overlay_prepare(s, err) < 0)
		return -1;
	t1 = lnch_now_ns();
	s->timing.setup_ns = t1 - t0;
	if (spawn(s, policies, npolicies, err) < 0)
		return -1;
	s->timing.spawn_ns = lnch_now_ns() - t1;
	sess_host_start(s);
	s->policies = policies;
	s->npolicies = npolicies;
	make_loop(s, policies, npolicies);
	return 0;
}

/* What the policies did, for the manifest (and run.json, for a later `repro pack`). */
static void collect_reports(struct sess_state *s)
{
	for (size_t i = 0; i < s->npolicies; i++) {
		json_t *arr;

		if (s->policies[i].report == NULL ||
		    (arr = s->policies[i].report(s->policies[i].ctx)) == NULL)
			continue;
		if (s->injections == NULL)
			s->injections = json_array();
		json_array_extend(s->injections, arr);
		json_decref(arr);
	}
	s->info.injections = s->injections;
	if (s->injections != NULL)
		(void)bndl_runinfo_save(s->spool_dir, &s->info, NULL);
}

static void finish_info(struct sess_state *s)
{
	int st = s->res.main_status;
	char note[160];

	collect_reports(s);
	s->info.duration_ns = s->res.end_ns;
	s->info.has_exit = s->res.main_seen;
	s->info.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	s->info.exit_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	s->info.core_dumped = WIFSIGNALED(st) && WCOREDUMP(st);
	if (s->res.left_running > 0) {
		snprintf(
			note, sizeof(note),
			"%u process(es) were still running when the recording stopped and were killed",
			s->res.left_running);
		sess_add_warning(s, note);
		/* the one way a run differs from one without repro: they would have lived on */
		if (!s->res.ended_by_policy) /* else the policy's caller says why (replay --strict) */
			sess_notice(
				s,
				"%u process(es) the program left running were killed when the "
				"recording stopped (a traced process cannot outlive repro; 'repro show' "
				"names them)",
				s->res.left_running);
	}
}

/*
 * The spool's last record says how the run ended and what a full disk cost,
 * so that a spool kept for a later `repro pack` packs as this one would;
 * then the spool is closed, which frees what its reserve did not need for
 * what is derived next.  What a full filesystem kept out of the spool (the
 * drops, the process records, the END record itself) goes to the pack
 * through the run info: this recording saw it all.
 */
static int end_spool(struct sess_state *s, struct repro_err **err)
{
	struct bndl_spool *sp = steal_ptr(&s->spool);

	if (bndl_spool_end(sp, s->res.main_seen, s->res.main_status, s->res.end_ns, err) < 0) {
		bndl_spool_close(sp, NULL);
		return -1;
	}
	s->drops = *bndl_spool_drops(sp);
	s->lost = bndl_spool_take_lost(sp, &s->nlost);
	s->lost_end = bndl_spool_lost_end(sp);
	s->info.drops = &s->drops;
	s->info.lost_procs = s->lost;
	s->info.nlost_procs = s->nlost;
	return bndl_spool_close(sp, err);
}

/* Loop, flush, host.json, END record, pack: the run after its start. */
static int run_and_pack(struct sess_state *s, struct repro_err **err)
{
	uint64_t t0 = lnch_now_ns(), t1, t2;
	int rc;

	if (s->o->on_program != NULL)
		s->o->on_program(s->o->cb_ctx, s->child.pid);
	rc = lnch_loop_run(s->loop, &s->res, err);
	if (s->o->on_program != NULL)
		s->o->on_program(s->o->cb_ctx, 0);
	t1 = lnch_now_ns();
	s->timing.program_ns = t1 - t0;
	if (rc == 0)
		rc = rec_recorder_finish(s->rec, err);
	if (rc == 0)
		rc = sess_host_join(s, err);
	finish_info(s);
	sess_overlay_settle(s);
	if (rc == 0)
		rc = end_spool(s, err);
	t2 = lnch_now_ns();
	s->timing.after_ns = t2 - t1;
	if (rc == 0)
		rc = sess_pack(s, err);
	s->timing.pack_ns = lnch_now_ns() - t2;
	return rc;
}

/*
 * How the child ended up: a failure before exec is an error (naming the
 * step and where the run was recorded); a failed exec is the program's
 * outcome, as a shell's 127 or 126.
 */
static int check_setup(struct sess_state *s, struct sess_result *r, struct repro_err **err)
{
	const char *where = s->written != NULL ? s->written : s->spool_dir;
	enum lnch_step step;
	int errnum;

	if (!lnch_child_setup_error(&s->child, &step, &errnum))
		return 0;
	if (step != LNCH_STEP_EXEC || !WIFEXITED(s->res.main_status))
		return repro_err_set(err, errnum, "%s '%s' (recorded in '%s')",
				     lnch_step_name(step), s->o->argv[0], where);
	r->exec_errnum = errnum;
	r->is_not_in_path = s->child.not_in_path;
	return 0;
}

static void fill_result(struct sess_state *s, struct sess_result *r)
{
	struct rec_recorder_counts c;

	rec_recorder_counts(s->rec, &c);
	r->has_exit = s->res.main_seen;
	r->wait_status = s->res.main_status;
	r->bundle_path = steal_ptr(&s->written);
	r->spool_dir = r->bundle_path == NULL ? repro_xstrdup(s->spool_dir) : NULL;
	r->warnings = repro_xstrdup(s->warnings);
	r->nevents = c.events - s->drops.events;
	r->nfailed = c.failed;
	r->nprocesses = c.processes;
	r->left_running = s->res.left_running;
	r->was_stop_requested = s->was_stop_requested;
	r->timed_out = s->res.timed_out;
	r->ended_by_policy = s->res.ended_by_policy;
	r->duration_ns = s->res.end_ns;
	r->timing = s->timing;
}

int sess_run(const struct sess_options *opts, const struct sess_policy *policies, size_t npolicies,
	     struct sess_result *out, struct repro_err **err)
{
	cleanup_state struct sess_state s = {
		.o = opts,
		.child = { .pid = -1, .err_fd = -1, .notify_sock = -1 },
		.output_lock = -1,
	};
	struct sess_result r = { 0 };

	if (start(&s, policies, npolicies, err) < 0) {
		if (s.made_spool)
			(void)bndl_spool_remove(s.spool_dir, NULL);
		return -1;
	}
	if (run_and_pack(&s, err) < 0)
		return -1;
	sess_report_full_disk(&s);
	if (check_setup(&s, &r, err) < 0)
		return -1;
	fill_result(&s, &r);
	*out = r;
	return 0;
}

void sess_result_release(struct sess_result *res)
{
	if (res == NULL)
		return;
	free(res->bundle_path);
	free(res->spool_dir);
	free(res->warnings);
	*res = (struct sess_result){ 0 };
}
