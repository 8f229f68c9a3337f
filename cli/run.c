/* One recording with the cli's policies and callbacks (cli/run.h). */
#include "cli/run.h"
#include "cli/signals.h"
#include "common/cleanup.h"
#include "common/progress.h"
#include "replayer/run/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* A line of the run for the user, on stderr as repro's own. */
static void print_notice(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "repro: %s\n", line);
}

/* The progress line of packing, on stderr when it is a terminal (common/progress.h). */
static struct repro_progress pack_line;

static void pack_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	repro_progress_bytes(&pack_line, "packing the bundle", done, total);
}

struct sess_progress cli_pack_progress(void)
{
	repro_progress_init(&pack_line, stderr);
	return (struct sess_progress){ .fn = pack_progress };
}

void cli_pack_progress_end(void)
{
	repro_progress_clear(&pack_line);
}

/* Signals sent to repro go to the program while it runs (cli/signals.h). */
static void forward_signals(void *ctx, pid_t pid)
{
	(void)ctx;
	cli_signals_forward_to(pid);
}

struct sess_options cli_session_hooks(void)
{
	cli_signals_install();
	return (struct sess_options){ .should_stop = cli_signals_stop_requested,
				      .on_program = forward_signals,
				      .notice = print_notice,
				      .progress = cli_pack_progress(),
				      .inherited = cli_signals_inherited() };
}

int cli_run(struct sess_options *sess, const struct sess_policy *first, struct rpl_rules *rules,
	    bool deny_io_uring, struct sess_result *res, struct repro_err **err)
{
	struct sess_options hooks = cli_session_hooks();
	struct rpl_run_opts o = {
		.sess = sess, .first = first, .rules = rules, .deny_io_uring = deny_io_uring
	};
	int rc;

	sess->should_stop = hooks.should_stop;
	sess->on_program = hooks.on_program;
	if (sess->inherited == NULL)
		sess->inherited = hooks.inherited;
	/* a caller with notices of its own (a sweep's quiet runs) gets no progress line either */
	if (sess->notice == NULL) {
		sess->notice = hooks.notice;
		if (sess->progress.fn == NULL)
			sess->progress = hooks.progress;
	}
	rc = rpl_run(&o, res, err);
	cli_pack_progress_end();
	return rc;
}
