/*
 * The runs of a sweep's command (replayer/sweep/sweep.h): each one
 * recording through replayer/run/ in a child of the scheduler, the
 * working run first, and what a sweep's words parse to.
 */
#include "replayer/sweep/sweep.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/names.h"
#include "common/xalloc.h"
#include "replayer/policies/inject.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The shortest time limit of a run: a start-up that takes 100 ms still gets 10 s. */
#define MIN_TIMEOUT_NS (10ull * 1000000000ull)
/* The longest wait of an ETIMEDOUT connect before it fails. */
#define MAX_CONNECT_DELAY_NS (10ull * 1000000000ull)

int swp_record_run(const struct rpl_runner *runner, const struct rpl_run_opts *o,
		   const struct swp_run_req *req)
{
	struct sess_result res = { 0 };
	struct repro_err *err = NULL;

	if (rpl_runner_run(runner, o, &res, &err) == 0) {
		/* what a shell says when the command cannot be run: the run's own stderr */
		if (res.exec_errnum != 0)
			fprintf(stderr, "repro: %s: %s\n", o->sess->argv[0],
				strerror(res.exec_errnum));
		(void)swp_write_result(req->dir, res.has_exit, res.wait_status, res.timed_out,
				       res.duration_ns, res.bundle_path, NULL);
	} else {
		cleanup_free char *msg = repro_err_format(err);

		(void)swp_write_result(req->dir, false, 0, false, 0, NULL, msg);
	}
	repro_err_free(&err);
	sess_result_release(&res);
	return 0;
}

/* repro's own notices of a run (processes left running …) are not the program's words. */
static void quiet_notice(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

/* '\n'-separated fault rules (struct swp_fault.rule) as a rule set, checked; NULL with *err. */
static struct rpl_rules *rules_of(const char *text, struct repro_err **err)
{
	cleanup_free char *copy = repro_xstrdup(text);
	struct rpl_rules *rules = rpl_rules_new();
	char *save = NULL;

	for (char *r = strtok_r(copy, "\n", &save); r != NULL; r = strtok_r(NULL, "\n", &save))
		if (rpl_rules_add(rules, r, err) < 0) {
			rpl_rules_free(rules);
			return NULL;
		}
	if (rpl_inject_check(rules, err) < 0) {
		rpl_rules_free(rules);
		return NULL;
	}
	return rules;
}

/* In a child of the scheduler: one recording of the command with req's rules (or none). */
static int command_run(void *vctx, const struct swp_run_req *req)
{
	const struct swp_command *c = vctx;
	struct sess_options sess = {
		.argv = c->argv,
		.output = req->bundle,
		.classes = SESS_CLASS_ALL,
		.net_none = c->net_none,
		.sandbox = SESS_SANDBOX_AUTO,
		.spool_parent = req->dir,
		/* a start-up script's exit ends the run: daemons it left are killed */
		.wait_all = false,
		.hash_max = 64ull << 20,
		.is_overlay = true,
		.overlay_paths = c->overlay,
		.time_limit_ns = req->time_limit_ns,
		.notice = quiet_notice,
		.inherited = c->inherited
	};
	struct repro_err *err = NULL;
	struct rpl_rules *rules = NULL;
	int rc;

	while (c->overlay != NULL && c->overlay[sess.noverlay_paths] != NULL)
		sess.noverlay_paths++;
	if (req->rule != NULL && (rules = rules_of(req->rule, &err)) == NULL) {
		cleanup_free char *msg = repro_err_format(err);

		repro_err_free(&err);
		return swp_write_result(req->dir, false, 0, false, 0, NULL, msg) < 0 ? 1 : 0;
	}
	rc = swp_record_run(c->runner, &(struct rpl_run_opts){ .sess = &sess, .rules = rules },
			    req);
	rpl_rules_free(rules);
	return rc;
}

struct swp_runner swp_command_runner(const struct swp_command *c)
{
	return (struct swp_runner){ .run = command_run, .ctx = (void *)c };
}

/* How a run ended, in words: "exit 3", "killed by SIGSEGV". */
static void end_words(const struct swp_outcome *out, char *buf, size_t cap)
{
	if (out->has_exit && WIFSIGNALED(out->wait_status)) {
		char sig[32];

		snprintf(buf, cap, "killed by %s",
			 repro_signal_name(WTERMSIG(out->wait_status), sig, sizeof(sig)));
	} else {
		snprintf(buf, cap, "exit %d", out->has_exit ? WEXITSTATUS(out->wait_status) : -1);
	}
}

int swp_baseline(const struct swp_runner *runner, const struct swp_baseline_opts *o, char **bundle,
		 uint64_t *duration_ns, bool *kept, struct repro_err **err)
{
	cleanup_free char *dir = repro_xasprintf("%s/baseline", o->work_dir);
	cleanup_free char *first = NULL;
	struct swp_run_req req = { .dir = dir, .time_limit_ns = o->timeout_ns };
	struct swp_outcome out;
	char how[64];
	int rc = -1;

	*kept = false;
	*bundle = o->keep_dir != NULL ? repro_xasprintf("%s/000-baseline.repro", o->keep_dir)
				      : repro_xasprintf("%s/baseline.repro", o->work_dir);
	req.bundle = *bundle;
	if (swp_run_one(runner, &req, &out, o->should_stop, o->stop_ctx, err) < 0)
		return -1;
	first = swp_first_line(out.stderr_text);
	end_words(&out, how, sizeof(how));
	if (out.error != NULL)
		repro_err_set(err, 0, "sweep: the working run could not be recorded: %s",
			      out.error);
	else if (out.timed_out)
		repro_err_set(err, 0,
			      "sweep: the working run was still running after --timeout (its "
			      "recording: %s); give a longer one",
			      *bundle);
	else if (!out.has_exit || !WIFEXITED(out.wait_status) || WEXITSTATUS(out.wait_status) != 0)
		repro_err_set(err, 0,
			      "sweep: the working run failed (%s%s%s); sweep a command that "
			      "works ('repro explain %s' says why it did not)",
			      how, *first ? ": " : "", first, *bundle);
	else
		rc = 0;
	*kept = rc < 0 && out.error == NULL;
	*duration_ns = out.duration_ns;
	swp_outcome_release(&out);
	repro_remove_tree(dir);
	return rc;
}

uint64_t swp_recorded_run(const char *bundle, bool *net_none, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = bndl_reader_open(bundle, err);
	json_t *m;
	const char *net;
	json_int_t ns;

	if (r == NULL)
		return repro_err_wrap(err, "sweep --from"), UINT64_MAX;
	m = bndl_reader_manifest(r);
	ns = json_integer_value(json_object_get(m, "duration_ns"));
	net = json_string_value(json_object_get(json_object_get(m, "options"), "net"));
	*net_none = net != NULL && strcmp(net, "none") == 0;
	return ns > 0 ? (uint64_t)ns : 0;
}

void swp_limits(uint64_t timeout_ns, uint64_t working_ns, uint64_t *time_limit_ns,
		uint64_t *connect_delay_ns)
{
	*time_limit_ns = timeout_ns != 0		   ? timeout_ns
			 : 3 * working_ns > MIN_TIMEOUT_NS ? 3 * working_ns
							   : MIN_TIMEOUT_NS;
	*connect_delay_ns = *time_limit_ns / 3 < MAX_CONNECT_DELAY_NS ? *time_limit_ns / 3
								      : MAX_CONNECT_DELAY_NS;
}

/* A comma list of words, each through one(word, bits) (-1: unknown); 0, or -1 naming it. */
static int parse_list(const char *text, unsigned *out, int (*one)(const char *w, unsigned *bits),
		      const char *what, const char *noun, const char *want, struct repro_err **err)
{
	cleanup_free char *copy = repro_xstrdup(text);
	char *save = NULL;

	*out = 0;
	for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save))
		if (one(w, out) < 0)
			return repro_err_set(err, EINVAL, "sweep %s: unknown %s '%s' (want %s)",
					     what, noun, w, want);
	return 0;
}

static int area_word(const char *w, unsigned *bits)
{
	static const struct {
		const char *name;
		unsigned bit;
	} areas[] = { { "file", SWP_FILE },
		      { "exec", SWP_EXEC },
		      { "network", SWP_NETWORK },
		      { "dns", SWP_DNS } };

	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
		if (strcmp(w, areas[i].name) == 0) {
			*bits |= areas[i].bit;
			return 0;
		}
	return -1;
}

int swp_areas_parse(const char *text, unsigned *out, struct repro_err **err)
{
	if (parse_list(text, out, area_word, "--only", "area", "file, exec, network or dns", err) <
	    0)
		return -1;
	return *out != 0 ? 0 : repro_err_set(err, EINVAL, "sweep --only: no area given");
}

static int class_word(const char *w, unsigned *bits)
{
	int c = swp_class_parse(w);

	if (c < 0)
		return -1;
	*bits |= 1u << c;
	return 0;
}

int swp_classes_parse(const char *text, unsigned *out, struct repro_err **err)
{
	return parse_list(text, out, class_word, "--fail-on", "class",
			  "clean, vague, silent, crashed, hung, carried-on, not-reached, error",
			  err);
}

int swp_shard_parse(const char *text, unsigned *k, unsigned *n, struct repro_err **err)
{
	size_t dk = strspn(text, "0123456789");
	const char *slash = text + dk;
	size_t dn = *slash == '/' ? strspn(slash + 1, "0123456789") : 0;

	if (dk == 0 || dk > 4 || *slash != '/' || dn == 0 || dn > 4 || slash[1 + dn] != '\0' ||
	    sscanf(text, "%u/%u", k, n) != 2 || *n == 0 || *k == 0 || *k > *n)
		return repro_err_set(
			err, EINVAL,
			"sweep --shard: expected K/N with 1 <= K <= N <= 9999, got '%s'", text);
	return 0;
}
