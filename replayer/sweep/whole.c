/*
 * A whole sweep (replayer/sweep/sweep.h swp_sweep()): its directories, the
 * working run or --from's recording, the plan, the shard, every fault's
 * run; the caller reports.
 */
#include "replayer/sweep/sweep.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* --keep's directory made (or there), --from's bundle readable; 0 or -1 with *err. */
static int check_dirs(const struct swp_sweep_request *rq, struct repro_err **err)
{
	struct stat st;

	if (rq->keep_dir != NULL && mkdir(rq->keep_dir, 0755) < 0 && errno != EEXIST)
		return repro_err_set(err, errno, "sweep --keep: cannot make '%s'", rq->keep_dir);
	if (rq->keep_dir != NULL && (stat(rq->keep_dir, &st) < 0 || !S_ISDIR(st.st_mode)))
		return repro_err_set(err, ENOTDIR, "sweep --keep: '%s' is not a directory",
				     rq->keep_dir);
	if (rq->from != NULL && access(rq->from, R_OK) < 0)
		return repro_err_set(err, errno, "sweep --from: cannot read '%s'", rq->from);
	return 0;
}

/* A new directory for the runs under tmp_dir; NULL with *err. */
static char *work_dir(const char *tmp_dir, struct repro_err **err)
{
	char *dir = repro_xasprintf("%s/repro-sweep.XXXXXX", tmp_dir);

	if (mkdtemp(dir) == NULL) {
		repro_err_set(err, errno, "sweep: cannot make a directory in '%s'", tmp_dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/*
 * Runs that bind a port of the host's network would take each other's:
 * one at a time then (--net none gives each its own network instead).
 */
static unsigned jobs_for(const struct swp_sweep_request *rq, bool net_none,
			 const struct swp_plan *plan, struct swp_sweep_notices *nt)
{
	if (rq->jobs <= 1 || net_none || plan->listens == NULL)
		return rq->jobs;
	nt->one_at_a_time = plan->listens;
	return 1;
}

/* The working run's writes outside the overlay: how many, the first (owned) in nt. */
static void outside_writes(const char *bundle, struct swp_sweep_notices *nt)
{
	struct repro_err *err = NULL;
	size_t n = swp_outside_writes(bundle, &nt->first_outside, &err);

	nt->outside = n == (size_t)-1 ? 0 : n;
	repro_err_free(&err);
}

/* The plan of rq: from --from's bundle or from the working run (into work); 0 or -1 with *err. */
static int plan_of(const struct swp_sweep_request *rq, const char *work, struct swp_plan *plan,
		   struct swp_sweep_opts *so, struct swp_command *c, bool *kept,
		   struct swp_sweep_notices *nt, struct repro_err **err)
{
	struct swp_runner runner = swp_command_runner(c);
	struct swp_baseline_opts bo = { .work_dir = work,
					.keep_dir = rq->keep_dir,
					.timeout_ns = rq->timeout_ns,
					.should_stop = rq->should_stop,
					.stop_ctx = rq->stop_ctx };
	struct swp_plan_opts po = { .areas = rq->areas,
				    .include_system = rq->include_system,
				    .faults = rq->faults };
	cleanup_free char *bundle = NULL;
	uint64_t dur = 0;
	bool from_net_none = false;

	if (rq->from == NULL && swp_baseline(&runner, &bo, &bundle, &dur, kept, err) < 0)
		return -1;
	if (rq->from == NULL)
		outside_writes(bundle, nt);
	if (rq->from != NULL &&
	    (dur = swp_recorded_run(rq->from, &from_net_none, err)) == UINT64_MAX)
		return -1;
	c->net_none = rq->net_given ? rq->net_none : rq->net_none || from_net_none;
	swp_limits(rq->timeout_ns, dur, &so->time_limit_ns, &po.connect_delay_ns);
	if (swp_plan_read(rq->from != NULL ? rq->from : bundle, &po, plan, err) < 0)
		return -1;
	if (bundle != NULL && rq->keep_dir == NULL)
		(void)unlink(bundle);
	return 0;
}

/* The sweep in work: plan, notices, shard, runs. */
static int sweep_in(const struct swp_sweep_request *rq, const char *work,
		    struct swp_sweep_result *out, struct repro_err **err)
{
	struct swp_command c = { .argv = rq->argv,
				 .net_none = rq->net_none,
				 .overlay = rq->overlay,
				 .runner = rq->runner,
				 .inherited = rq->inherited };
	struct swp_runner runner = swp_command_runner(&c);
	struct swp_sweep_opts so = { .work_dir = work,
				     .keep_dir = rq->keep_dir,
				     .progress = rq->progress,
				     .should_stop = rq->should_stop,
				     .stop_ctx = rq->stop_ctx };
	struct swp_sweep_notices nt = { 0 };
	struct swp_plan plan;
	int rc;

	if (plan_of(rq, work, &plan, &so, &c, &out->kept_work, &nt, err) < 0)
		return -1;
	nt.skipped = plan.nskipped;
	nt.unstable = plan.nunstable;
	so.jobs = jobs_for(rq, c.net_none, &plan, &nt);
	if (rq->before != NULL)
		rq->before(rq->ctx, &nt);
	free(nt.first_outside);
	if (rq->shard_n > 1)
		swp_plan_shard(&plan, rq->shard_k, rq->shard_n);
	out->npoints = plan.npoints;
	rc = swp_sweep_run(&plan, &runner, &so, &out->runs, err);
	swp_plan_release(&plan);
	return rc;
}

int swp_sweep(const struct swp_sweep_request *rq, struct swp_sweep_result *out,
	      struct repro_err **err)
{
	cleanup_free char *work = NULL;
	int rc;

	*out = (struct swp_sweep_result){ 0 };
	if (check_dirs(rq, err) < 0 || (work = work_dir(rq->tmp_dir, err)) == NULL)
		return -1;
	rc = sweep_in(rq, work, out, err);
	if (!out->kept_work)
		repro_remove_tree(work);
	if (rc < 0) {
		swp_sweep_result_release(out);
		return -1;
	}
	out->command = json_array();
	for (size_t i = 0; rq->argv[i] != NULL; i++)
		json_array_append_new(out->command, json_string(rq->argv[i]));
	return 0;
}

void swp_sweep_result_release(struct swp_sweep_result *r)
{
	json_decref(r->runs);
	json_decref(r->command);
	r->runs = r->command = NULL;
}
