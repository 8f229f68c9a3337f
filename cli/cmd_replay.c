/*
 * `repro replay BUNDLE` (docs/replay.md): the recorded command re-run here
 * with the recorded failures that matter imposed again (replayer/replay/),
 * itself recorded, then a summary: reproduced or not, which failures were
 * imposed and which never came up.
 */
#include "bundles/reader.h"
#include "common/names.h"
#include "cli/commands.h"
#include "cli/run.h"
#include "cli/signals.h"
#include "common/fdutil.h"
#include "replayer/sweep/sweep.h"
#include "common/cleanup.h"
#include "common/term.h"
#include "common/xalloc.h"
#include "replayer/policies/inject.h"
#include "replayer/policies/rules.h"
#include "replayer/readers/diff.h"
#include "replayer/readers/normalize.h"
#include "replayer/replay/replay.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LIST 64

static const char usage_text[] =
	"usage: repro replay [OPTIONS] BUNDLE [-- CMD [ARG...]]\n"
	"       repro replay --simulate [--probe-network] [--json] [--cwd DIR] [--map OLD=NEW] BUNDLE\n"
	"\n"
	"Re-run the command BUNDLE recorded, here, with the recorded failures that\n"
	"matter (those repro explain reports, probes aside) imposed again: the same\n"
	"call on the same path fails with the same errno at the same occurrences,\n"
	"the same connect is refused or times out after the recorded time, the same\n"
	"name does not resolve.  Everything else runs for real.  The replay is\n"
	"recorded, and a summary says whether it reproduced the recorded exit.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE     the replay's bundle (default: BUNDLE's name with\n"
	"                        .replay.repro, next to it)\n"
	"      --cwd DIR         run in DIR (default: the recorded working directory,\n"
	"                        where --map puts it)\n"
	"      --map OLD=NEW     the recorded paths under OLD are under NEW here\n"
	"                        (repeatable)\n"
	"      --fast            recorded delays (a connect that timed out after 30 s)\n"
	"                        last at most 100 ms\n"
	"      --only KINDS      impose only these: file, exec, network, dns (comma list)\n"
	"      --inject RULE     also this fault rule (repro record --inject's syntax;\n"
	"                        repeatable)\n"
	"      --no-impose       impose nothing recorded: only the --inject rules\n"
	"      --no-overlay      let the replay write to this machine (by default its\n"
	"                        writes under the working directory and $HOME go to a\n"
	"                        throwaway overlay, as repro record --overlay)\n"
	"      --keep-overlay DIR  keep the overlay's upper layers in DIR\n"
	"      --strict          stop at the first divergence (a call that worked in the\n"
	"                        recording fails here, or one it never made), with the\n"
	"                        last calls of that process here and in the recording\n"
	"  -q, --quiet           no environment block, impositions or divergences as\n"
	"                        they happen; the summary only\n"
	"      --minimize        find the fewest recorded failures that still give the\n"
	"                        recorded exit (one replay per failure, each in an\n"
	"                        overlay): a failure dropped that keeps the exit is not\n"
	"                        needed; exit 0 when the full set reproduces, 1 when not\n"
	"      --simulate        run nothing: check the bundle's facts against this host\n"
	"                        (each path of the program's: exists, type, mode, owner,\n"
	"                        size, content; each name: resolves); exit 0 when they\n"
	"                        match, 1 when they differ\n"
	"      --probe-network   with --simulate: also connect to each recorded TCP\n"
	"                        destination (at most 1 s each)\n"
	"      --include-system  with --simulate: the system's paths too (/usr, /etc …)\n"
	"      --json            with --simulate: the differences as JSON\n"
	"  -h, --help            this text\n"
	"\n"
	"CMD, when given, runs instead of the recorded command.  The exit status is\n"
	"the program's, as for repro record.\n"
	"The manual: man repro-replay (repro-replay(1)).\n";

struct replay_opts {
	const char *bundle, *output, *cwd;
	const char *map_from[MAX_LIST], *map_to[MAX_LIST];
	size_t nmaps;
	char *map_text[MAX_LIST]; /* owned */
	unsigned kinds;
	bool fast, no_impose, quiet, no_overlay, simulate, probe_network, json, include_system,
		minimize, strict;
	const char *keep_overlay; /* --keep-overlay DIR, or NULL */
	struct rpl_rules *extra; /* owned: --inject rules, or NULL */
	char *const *cmd; /* the CMD given, or NULL */
};

static void replay_opts_release(struct replay_opts *o)
{
	for (size_t i = 0; i < o->nmaps; i++)
		free(o->map_text[i]);
	rpl_rules_free(o->extra);
}
#define cleanup_replay_opts __attribute__((cleanup(replay_opts_release)))

static int parse_kinds(const char *text, unsigned *out, struct repro_err **err)
{
	cleanup_free char *copy = repro_xstrdup(text);
	char *save = NULL;

	*out = 0;
	for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
		if (strcmp(w, "file") == 0)
			*out |= RPL_REPLAY_FILE;
		else if (strcmp(w, "exec") == 0)
			*out |= RPL_REPLAY_EXEC;
		else if (strcmp(w, "network") == 0)
			*out |= RPL_REPLAY_NETWORK;
		else if (strcmp(w, "dns") == 0)
			*out |= RPL_REPLAY_DNS;
		else
			return repro_err_set(err, EINVAL,
					     "replay --only: unknown kind '%s' (want file, exec, "
					     "network or dns)",
					     w);
	}
	return *out != 0 ? 0 : repro_err_set(err, EINVAL, "replay --only: nothing given");
}

static int add_map(struct replay_opts *o, const char *text, struct repro_err **err)
{
	char *copy;

	if (o->nmaps >= MAX_LIST)
		return repro_err_set(err, EINVAL, "replay --map: at most %d", MAX_LIST);
	copy = o->map_text[o->nmaps] = repro_xstrdup(text);
	if (rpl_norm_map_parse(copy, &o->map_from[o->nmaps], &o->map_to[o->nmaps]) < 0) {
		free(copy);
		return repro_err_set(
			err, EINVAL,
			"replay --map: expected OLD=NEW, both absolute paths, got '%s'", text);
	}
	o->nmaps++;
	return 0;
}

static int parse_opt(struct replay_opts *o, int c, struct repro_err **err)
{
	switch (c) {
	case 'o': o->output = optarg; return 0;
	case 'c': o->cwd = optarg; return 0;
	case 'm': return add_map(o, optarg, err);
	case 'f': o->fast = true; return 0;
	case 'O': return parse_kinds(optarg, &o->kinds, err);
	case 'I':
		if (o->extra == NULL)
			o->extra = rpl_rules_new();
		if (rpl_rules_add(o->extra, optarg, err) < 0 || rpl_inject_check(o->extra, err) < 0)
			return repro_err_wrap(err, "replay --inject");
		return 0;
	case 'n': o->no_impose = true; return 0;
	case 'q': o->quiet = true; return 0;
	case 'W': o->no_overlay = true; return 0;
	case 'S': o->simulate = true; return 0;
	case 'M': o->minimize = true; return 0;
	case 'P': o->probe_network = true; return 0;
	case 'J': o->json = true; return 0;
	case 'Y': o->include_system = true; return 0;
	case 'K': o->keep_overlay = optarg; return 0;
	case 's': o->strict = true; return 0;
	default: return repro_err_set(err, EINVAL, "replay: unexpected option");
	}
}

/* Returns 1 when --help was given, 0 to go on, -1 on a bad option. */
static int parse_args(int argc, char **argv, struct replay_opts *o, struct repro_err **err)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cwd", required_argument, NULL, 'c' },
		{ "map", required_argument, NULL, 'm' },
		{ "fast", no_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'O' },
		{ "inject", required_argument, NULL, 'I' },
		{ "no-impose", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-overlay", no_argument, NULL, 'W' },
		{ "simulate", no_argument, NULL, 'S' },
		{ "minimize", no_argument, NULL, 'M' },
		{ "probe-network", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'J' },
		{ "include-system", no_argument, NULL, 'Y' },
		{ "keep-overlay", required_argument, NULL, 'K' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:qh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 1;
		}
		if (c == '?')
			return repro_err_set(err, EINVAL,
					     "replay: unknown option '%s' (repro replay --help)",
					     argv[optind - 1]);
		if (c == ':')
			return repro_err_set(err, EINVAL, "replay: option '%s' needs a value",
					     argv[optind - 1]);
		if (parse_opt(o, c, err) < 0)
			return -1;
	}
	if (optind >= argc)
		return repro_err_set(err, EINVAL,
				     "replay: no bundle given; usage: repro replay [OPTIONS] "
				     "BUNDLE [-- CMD [ARG...]]");
	o->bundle = argv[optind++];
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0 && strcmp(argv[optind], "--") == 0)
		optind++;
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->no_impose && o->extra == NULL)
		return repro_err_set(
			err, EINVAL,
			"replay --no-impose: give the faults to run with (--inject RULE)");
	return 0;
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Whether argv0 would be found here: a path that exists, or a name in PATH. */
static bool found_here(const char *argv0, const char *cwd)
{
	const char *path = getenv("PATH");
	cleanup_free char *copy = NULL;
	char *save = NULL;

	if (strchr(argv0, '/') != NULL) {
		cleanup_free char *p = argv0[0] == '/' ? repro_xstrdup(argv0)
						       : repro_xasprintf("%s/%s", cwd, argv0);

		return access(p, F_OK) == 0;
	}
	copy = repro_xstrdup(path != NULL ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(copy, ":", &save); d != NULL; d = strtok_r(NULL, ":", &save)) {
		cleanup_free char *p = repro_xasprintf("%s/%s", *d ? d : ".", argv0);

		if (access(p, X_OK) == 0)
			return true;
	}
	return false;
}

/* The differences that matter between the recording's machine and this one, in one block. */
static void environment_block(const struct rpl_replay_plan *p, const char *cwd, char *const *argv)
{
	json_t *h = p->host;
	struct utsname u;
	long long uid = json_integer_value(json_object_get(h, "uid"));
	const char *rel = jstr(json_object_get(h, "kernel"), "release");

	if (h != NULL && json_object_get(h, "uid") != NULL && uid != (long long)getuid()) {
		fprintf(stderr, "repro: replay: recorded as uid %lld, replayed as uid %d\n", uid,
			(int)getuid());
	}
	if (strcmp(cwd, p->cwd) != 0) {
		fputs("repro: replay: recorded in ", stderr);
		repro_term_write(stderr, p->cwd, strlen(p->cwd), false, false);
		fputs(", replayed in ", stderr);
		repro_term_write(stderr, cwd, strlen(cwd), false, false);
		fputc('\n', stderr);
	}
	if (rel != NULL && uname(&u) == 0 && strcmp(rel, u.release) != 0) {
		fputs("repro: replay: recorded on kernel ", stderr);
		repro_term_write(stderr, rel, strlen(rel), false, false);
		fprintf(stderr, ", replayed on %s\n", u.release);
	}
}

/* The recorded working directory as --map names it here, or as it was (a new string). */
static char *mapped_cwd(const struct replay_opts *o, const char *recorded)
{
	struct rpl_norm n = { .nmaps = 0 };
	char *mapped;

	for (size_t k = 0; k < o->nmaps && k < RPL_NORM_MAX_MAPS; k++) {
		n.map_from[k] = o->map_from[k];
		n.map_to[k] = o->map_to[k];
		n.nmaps++;
	}
	mapped = rpl_norm_map(&n, recorded);
	return mapped != NULL ? mapped : repro_xstrdup(recorded);
}

/* Where the replay's bundle goes by default: BUNDLE without .repro, then .replay.repro. */
static char *default_output(const char *bundle)
{
	size_t n = strlen(bundle);

	if (n > 6 && strcmp(bundle + n - 6, ".repro") == 0)
		n -= 6;
	return repro_xasprintf("%.*s.replay.repro", (int)n, bundle);
}

/* The rules of the replay: each imposition's (origin: its recorded event), then --inject's. */
static int build_rules(const struct replay_opts *o, const struct rpl_replay_plan *p,
		       struct rpl_rules **out, size_t **first_rule, struct repro_err **err)
{
	struct rpl_rules *r = rpl_rules_new();

	*first_rule = repro_xcalloc(p->n + 1, sizeof(**first_rule));
	for (size_t i = 0; i < p->n && !o->no_impose; i++) {
		(*first_rule)[i] = rpl_rules_count(r);
		for (size_t k = 0; k < p->v[i].nrules; k++) {
			if (rpl_rules_add(r, p->v[i].rules[k], err) < 0) {
				rpl_rules_free(r);
				return repro_err_wrap(err, "replay: imposing '%s'", p->v[i].what);
			}
			rpl_rules_set_origins(r, rpl_rules_count(r) - 1, p->v[i].origins[k],
					      p->v[i].norigins[k]);
		}
	}
	(*first_rule)[p->n] = rpl_rules_count(r);
	for (size_t i = 0; o->extra != NULL && i < rpl_rules_count(o->extra); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		rpl_rules_describe(o->extra, i, f);
		fclose(f);
		if (rpl_rules_add(r, text, err) < 0) {
			free(text);
			rpl_rules_free(r);
			return -1;
		}
		free(text);
	}
	*out = r;
	return 0;
}

/* "exit 1", "killed by SIGKILL" of a manifest's exit (a hostile bundle's words checked). */
static void exit_words(json_t *e, char *buf, size_t cap)
{
	const char *sig = jstr(e, "signal");

	if (json_object_get(e, "code") != NULL)
		snprintf(buf, cap, "exit %lld",
			 (long long)json_integer_value(json_object_get(e, "code")));
	else if (sig != NULL && sig[0] != '\0' &&
		 strspn(sig, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-") == strlen(sig) &&
		 strlen(sig) < 24)
		snprintf(buf, cap, "killed by %s", sig);
	else if (sig != NULL)
		snprintf(buf, cap, "killed by a signal");
	else
		snprintf(buf, cap, "no exit seen");
}

/*
 * The summary: reproduced (the recorded exit, every failure imposed, none
 * other), or how it went otherwise; which recorded failures never came up.
 */
static void summary(const struct replay_opts *o, const struct rpl_replay_plan *p,
		    const struct rpl_rules *r, const size_t *first_rule,
		    const struct sess_result *res, size_t ndiv)
{
	json_t *here = NULL;
	char rec[64], now[64];
	size_t imposed = 0;
	bool same;

	if (res->has_exit && WIFSIGNALED(res->wait_status)) {
		char sig[32];

		here = json_pack("{s:s}", "signal",
				 repro_signal_name(WTERMSIG(res->wait_status), sig, sizeof(sig)));
	} else if (res->has_exit) {
		here = json_pack("{s:i}", "code", WEXITSTATUS(res->wait_status));
	} else {
		here = json_null();
	}
	exit_words(p->exit, rec, sizeof(rec));
	exit_words(here, now, sizeof(now));
	same = json_equal(here, p->exit);
	for (size_t i = 0; i < p->n && !o->no_impose; i++) {
		uint64_t fired = 0;

		for (size_t k = first_rule[i]; k < first_rule[i + 1]; k++)
			fired += rpl_rules_fired(r, k);
		imposed += fired > 0;
		if (fired == 0 && !o->quiet) {
			fputs("repro: replay: not imposed, the call never came here: ", stderr);
			repro_term_puts(stderr, p->v[i].what);
			fputc('\n', stderr);
		}
	}
	if (res->ended_by_policy)
		fputs("repro: replay: stopped at the first divergence (--strict)", stderr);
	else if (same && (o->no_impose || imposed == p->n) && ndiv == 0)
		fprintf(stderr, "repro: replay: reproduced: %s as recorded", now);
	else if (same)
		fprintf(stderr, "repro: replay: %s as recorded, but another way", now);
	else
		fprintf(stderr, "repro: replay: not reproduced: %s (recorded: %s)", now, rec);
	if (o->no_impose)
		fputs(", nothing recorded imposed", stderr);
	else
		fprintf(stderr, ", %zu of %zu failure%s imposed", imposed, p->n,
			p->n == 1 ? "" : "s");
	if (ndiv > 0)
		fprintf(stderr, ", %zu divergence%s", ndiv, ndiv == 1 ? "" : "s");
	fputc('\n', stderr);
	json_decref(here);
}

/*
 * The failures of the replay that the recording did not have, one line
 * each (not with -q), but those the watch said as they happened.
 */
static size_t say_divergences(const struct replay_opts *o, const struct rpl_replay_opts *ro,
			      const struct rpl_watch *w, const char *recorded, const char *replayed,
			      size_t *shown)
{
	struct repro_err *err = NULL;
	json_t *d = NULL, *e;
	size_t i, n;

	if (rpl_replay_divergences(recorded, replayed, ro, &d, &err) < 0) {
		char *msg = repro_err_format(err);

		fprintf(stderr, "repro: replay: divergences not known: %s\n", msg);
		free(msg);
		repro_err_free(&err);
		return 0;
	}
	n = 0;
	json_array_foreach (d, i, e) {
		const char *what = json_string_value(json_object_get(e, "what"));
		const char *proc = json_string_value(json_object_get(e, "process"));

		if (rpl_watch_reported(w, jstr(e, "syscall"), jstr(e, "path"), jstr(e, "errno")))
			continue;
		n++;
		if (o->quiet)
			continue;
		(*shown)++;
		fputs("repro: replay: diverged: failed here, not in the recording: ", stderr);
		repro_term_write(stderr, what, strlen(what), false, false);
		if (proc != NULL) {
			fputs(" (", stderr);
			repro_term_write(stderr, proc, strlen(proc), false, false);
			fputc(')', stderr);
		}
		fputc('\n', stderr);
	}
	json_decref(d);
	return n;
}

/* Most process differences said after a replay. */
#define PROCESS_DIVERGENCES_MAX 5

/*
 * The processes of the replay against the recording's, aligned by exec
 * lineage as repro diff aligns them (docs/diff.md): one that ran on one
 * side only, one whose exec lineage went on otherwise, a child that ended
 * otherwise (score 50 and up; the first process's own exit is the
 * summary's).  One line each, at most PROCESS_DIVERGENCES_MAX (not with
 * -q, counted in *shown); returns how many there are.
 */
static size_t say_process_divergences(const struct replay_opts *o, const char *recorded,
				      const char *replayed, size_t *shown)
{
	struct rpl_diff_opts d = { .a_path = recorded, .b_path = replayed, .json = true };
	struct repro_err *err = NULL;
	cleanup_free char *text = NULL;
	size_t len = 0, i, n = 0;
	json_t *doc, *e;
	FILE *f;
	bool differ = false;

	for (size_t k = 0; k < o->nmaps && k < RPL_NORM_MAX_MAPS; k++) {
		d.map_from[k] = o->map_from[k];
		d.map_to[k] = o->map_to[k];
		d.nmaps++;
	}
	f = open_memstream(&text, &len);
	if (f == NULL)
		return 0;
	if (rpl_diff_run(&d, f, &differ, &err) < 0) {
		char *msg = repro_err_format(err);

		fprintf(stderr, "repro: replay: processes not compared: %s\n", msg);
		free(msg);
		repro_err_free(&err);
	}
	fclose(f);
	doc = text != NULL ? json_loads(text, 0, NULL) : NULL;
	json_array_foreach (json_object_get(doc, "differences"), i, e) {
		if (jstr(e, "section") == NULL || strcmp(jstr(e, "section"), "process") != 0 ||
		    json_number_value(json_object_get(e, "score")) < 50)
			continue;
		if (n++ < PROCESS_DIVERGENCES_MAX && !o->quiet) {
			(*shown)++;
			fputs("repro: replay: diverged: ", stderr);
			repro_term_puts(stderr, jstr(e, "text"));
			fputs(" (A: the recording, B: the replay)\n", stderr);
		}
	}
	json_decref(doc);
	return n;
}

/* A divergence as it happens (replayer/replay/watch.c), not with -q. */
static void say_live(void *ctx, const char *line)
{
	const struct replay_opts *o = ctx;

	if (o->quiet)
		return;
	fputs("repro: replay: ", stderr);
	repro_term_puts(stderr, line);
	fputc('\n', stderr);
}

/* --strict ended the run: where, and the calls before it on both sides. */
static void say_strict_stop(struct rpl_watch *w, const char *bundle)
{
	struct repro_err *err = NULL;

	fputs("repro: replay: --strict: stopped at the first divergence: ", stderr);
	repro_term_puts(stderr, rpl_watch_stop_what(w) + strlen("diverged: "));
	fputc('\n', stderr);
	if (rpl_watch_context(w, bundle, stderr, &err) < 0) {
		char *msg = repro_err_format(err);

		fprintf(stderr, "repro: replay: the recording's side not known: %s\n", msg);
		free(msg);
		repro_err_free(&err);
	}
}

/* The options of the replay's run: the recorded command (or CMD) as repro record runs it. */
static struct sess_options run_options(const struct replay_opts *o, const struct rpl_replay_plan *p,
				       char **argv, const char *output)
{
	return (struct sess_options){
		.argv = o->cmd != NULL ? o->cmd : argv,
		.output = output,
		.classes = SESS_CLASS_ALL,
		.net_none = p->net_none,
		.sandbox = SESS_SANDBOX_AUTO,
		.wait_all = true,
		.hash_max = 64ull << 20,
		/* the replayed failure must not clobber this machine's files */
		.is_overlay = !o->no_overlay,
		.keep_overlay = o->keep_overlay
	};
}

/* One trial of --minimize, in a child (sweep/sweep.h's runner): the replay with these rules. */
struct trial_ctx {
	char *const *argv;
	const struct rpl_replay_plan *plan;
	const struct replay_opts *o;
	const bool *keep; /* which impositions the trial keeps */
};

static void quiet_notice(void *ctx, const char *line)
{
	(void)ctx;
	(void)line;
}

static int trial_child(void *vctx, const struct swp_run_req *req)
{
	const struct trial_ctx *t = vctx;
	struct sess_options sess = run_options(t->o, t->plan, (char **)t->argv, req->bundle);
	struct rpl_rules *rules = rpl_rules_new();
	struct sess_result res = { 0 };
	struct repro_err *err = NULL;
	char *msg = NULL;

	sess.is_overlay = true; /* a trial never writes to this machine */
	sess.spool_parent = req->dir;
	sess.time_limit_ns = req->time_limit_ns;
	sess.notice = quiet_notice;
	for (size_t i = 0; i < t->plan->n; i++)
		for (size_t k = 0; t->keep[i] && k < t->plan->v[i].nrules; k++)
			if (rpl_rules_add(rules, t->plan->v[i].rules[k], &err) < 0)
				goto out;
	for (size_t i = 0; t->o->extra != NULL && i < rpl_rules_count(t->o->extra); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		rpl_rules_describe(t->o->extra, i, f);
		fclose(f);
		if (rpl_rules_add(rules, text, &err) < 0) {
			free(text);
			goto out;
		}
		free(text);
	}
	if (cli_run(&sess, NULL, rpl_rules_count(rules) > 0 ? rules : NULL, false, &res, &err) == 0)
		(void)swp_write_result(req->dir, res.has_exit, res.wait_status, res.timed_out,
				       res.duration_ns, res.bundle_path, NULL);
out:
	if (err != NULL) {
		msg = repro_err_format(err);
		(void)swp_write_result(req->dir, false, 0, false, 0, NULL, msg);
	}
	free(msg);
	repro_err_free(&err);
	rpl_rules_free(rules);
	sess_result_release(&res);
	return 0;
}

/* Whether a trial ended with the recorded exit. */
static bool same_exit(const struct swp_outcome *out, json_t *recorded)
{
	json_t *code = json_object_get(recorded, "code");
	const char *sig = json_string_value(json_object_get(recorded, "signal"));

	if (!out->ran || out->error != NULL || !out->has_exit || out->timed_out)
		return false;
	if (code != NULL)
		return WIFEXITED(out->wait_status) &&
		       WEXITSTATUS(out->wait_status) == json_integer_value(code);
	if (sig != NULL && WIFSIGNALED(out->wait_status)) {
		return repro_signal_parse(sig) == WTERMSIG(out->wait_status);
	}
	return false;
}

/* One trial with the impositions keep says; whether it gave the recorded exit. */
static int try_set(struct trial_ctx *t, const char *work, size_t step, bool *same,
		   struct repro_err **err)
{
	struct swp_runner runner = { .run = trial_child, .ctx = t };
	cleanup_free char *dir = repro_xasprintf("%s/%03zu", work, step);
	cleanup_free char *bundle = repro_xasprintf("%s/trial.repro", dir);
	uint64_t limit = 3 * t->plan->duration_ns;
	struct swp_run_req req = { .rule = "",
				   .dir = dir,
				   .bundle = bundle,
				   .time_limit_ns = limit > 10000000000ull ? limit
									   : 10000000000ull };
	struct swp_outcome out;

	if (swp_run_one(&runner, &req, &out, cli_signals_stop_requested, NULL, err) < 0)
		return -1;
	*same = same_exit(&out, t->plan->exit);
	swp_outcome_release(&out);
	repro_remove_tree(dir);
	return 0;
}

/*
 * --minimize: the full set of impositions, then each one left out in turn
 * and dropped when the recorded exit stays (a 1-minimal set in n + 1
 * trials, each a replay in an overlay).  0 when the full set reproduces,
 * 1 when it does not, -1 with *err.
 */
static int minimize(const struct replay_opts *o, const struct rpl_replay_plan *plan,
		    char *const *argv, struct repro_err **err)
{
	cleanup_free bool *keep = repro_xcalloc(plan->n + 1, sizeof(*keep));
	struct trial_ctx t = { .argv = argv, .plan = plan, .o = o, .keep = keep };
	const char *tmp = getenv("TMPDIR");
	cleanup_free char *work =
		repro_xasprintf("%s/repro-minimize.XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
	char rec[64];
	bool same = false;
	size_t kept = plan->n;
	int rc = -1;

	exit_words(plan->exit, rec, sizeof(rec));
	if (plan->n == 0 || o->no_impose) {
		fputs("repro: replay: minimize: no recorded failure to impose\n", stderr);
		return 1;
	}
	if (mkdtemp(work) == NULL)
		return repro_err_set(err, errno, "replay --minimize: cannot make '%s'", work);
	cli_signals_install();
	for (size_t i = 0; i < plan->n; i++)
		keep[i] = true;
	if (try_set(&t, work, 0, &same, err) < 0)
		goto done;
	if (!same) {
		fprintf(stderr,
			"repro: replay: minimize: the %zu recorded failure%s together do not give "
			"%s here: nothing to minimize\n",
			plan->n, plan->n == 1 ? "" : "s", rec);
		rc = 1;
		goto done;
	}
	for (size_t i = 0; i < plan->n; i++) {
		keep[i] = false;
		if (try_set(&t, work, i + 1, &same, err) < 0)
			goto done;
		keep[i] = !same;
		kept -= same;
		fprintf(stderr, "repro: replay: minimize: without ");
		repro_term_write(stderr, plan->v[i].what, strlen(plan->v[i].what), false, false);
		fprintf(stderr, same ? ": still %s, not needed\n" : ": another exit, needed\n",
			rec);
	}
	fprintf(stderr, "repro: replay: minimize: %zu of %zu recorded failure%s give %s:", kept,
		plan->n, plan->n == 1 ? "" : "s", rec);
	for (size_t i = 0, shown = 0; i < plan->n; i++)
		if (keep[i]) {
			fputs(shown++ > 0 ? "; " : " ", stderr);
			repro_term_write(stderr, plan->v[i].what, strlen(plan->v[i].what), false,
					 false);
		}
	fputc('\n', stderr);
	rc = 0;
done:
	repro_remove_tree(work);
	return rc;
}

static int replay(struct replay_opts *o, struct repro_err **err)
{
	struct rpl_replay_plan plan;
	struct rpl_replay_opts ro = { .kinds = o->kinds,
				      .fast = o->fast,
				      .home_here = getenv("HOME"),
				      .map_from = o->map_from,
				      .map_to = o->map_to,
				      .nmaps = o->nmaps };
	cleanup_free char *output = NULL, *cwd = NULL, *bundle = NULL;
	char here[PATH_MAX];
	cleanup_free size_t *first_rule = NULL;
	struct rpl_rules *rules = NULL;
	struct rpl_watch *watch = NULL;
	struct sess_policy watch_pol;
	struct sess_result res = { 0 };
	struct sess_options sess;
	size_t ndiv, shown;
	char **argv = NULL;
	size_t i;
	json_t *a;
	int rc = -1;

	/* the bundle and the output are named from where repro was started, not from cwd */
	bundle = realpath(o->bundle, NULL);
	if (bundle == NULL)
		return repro_err_set(err, errno, "cannot open bundle '%s'", o->bundle);
	if (o->output != NULL)
		output = o->output[0] == '/' || getcwd(here, sizeof(here)) == NULL
				 ? repro_xstrdup(o->output)
				 : repro_xasprintf("%s/%s", here, o->output);
	else
		output = default_output(bundle);
	ro.cwd_here = o->cwd; /* NULL: the recorded one */
	if (rpl_replay_plan_read(bundle, &ro, &plan, err) < 0)
		return -1;
	if (o->cwd == NULL && !plan.has_cwd) {
		repro_err_set(err, EPROTO,
			      "replay: the bundle records no working directory (give --cwd DIR)");
		goto out;
	}
	cwd = o->cwd != NULL ? repro_xstrdup(o->cwd) : mapped_cwd(o, plan.cwd);
	if (chdir(cwd) < 0) {
		repro_err_set(err, errno,
			      o->cwd != NULL ? "replay --cwd: cannot enter '%s'"
					     : "replay: the recorded working directory '%s' is not "
					       "here (give --cwd DIR)",
			      cwd);
		goto out;
	}
	argv = repro_xcalloc(json_array_size(plan.argv) + 1, sizeof(*argv));
	json_array_foreach (plan.argv, i, a)
		argv[i] = (char *)json_string_value(a);
	if (!found_here(o->cmd != NULL ? o->cmd[0] : argv[0], cwd)) {
		repro_err_set(err, ENOENT,
			      "replay: the command '%s' is not here (install it, or give -- CMD "
			      "to run instead)",
			      o->cmd != NULL ? o->cmd[0] : argv[0]);
		goto out;
	}
	if (o->minimize) {
		rc = minimize(o, &plan, o->cmd != NULL ? o->cmd : argv, err);
		goto out;
	}
	if (build_rules(o, &plan, &rules, &first_rule, err) < 0)
		goto out;
	if (!o->quiet) {
		environment_block(&plan, cwd, o->cmd != NULL ? o->cmd : argv);
		for (size_t k = 0; k < plan.n && !o->no_impose; k++) {
			fputs("repro: replay: imposing ", stderr);
			repro_term_puts(stderr, plan.v[k].what);
			fputc('\n', stderr);
		}
	}
	ro.cwd_here = cwd;
	watch = rpl_watch_new(bundle, &ro, o->strict, say_live, o, err);
	if (watch == NULL)
		goto out;
	watch_pol = (struct sess_policy){ .ops = rpl_watch_ops(), .ctx = watch };
	sess = run_options(o, &plan, argv, output);
	sess.ptrace_only = true; /* the watch sees results on the ptrace path only */
	if (cli_run(&sess, &watch_pol, rpl_rules_count(rules) > 0 ? rules : NULL, false, &res,
		    err) < 0)
		goto out;
	if (res.exec_errnum != 0)
		fprintf(stderr, "repro: cannot execute '%s': %s\n", sess.argv[0],
			strerror(res.exec_errnum));
	if (rpl_watch_stopped(watch))
		say_strict_stop(watch, bundle);
	shown = o->quiet ? 0 : rpl_watch_said(watch);
	ndiv = res.bundle_path != NULL
		       ? say_divergences(o, &ro, watch, bundle, res.bundle_path, &shown)
		       : 0;
	ndiv += rpl_watch_divergences(watch);
	if (res.bundle_path != NULL && !res.ended_by_policy) /* --strict cut the run short */
		ndiv += say_process_divergences(o, bundle, res.bundle_path, &shown);
	if (!o->quiet && ndiv > shown && res.bundle_path != NULL) {
		fprintf(stderr, "repro: replay: %zu more divergence%s not shown: repro diff ",
			ndiv - shown, ndiv - shown == 1 ? "" : "s");
		repro_term_puts(stderr, bundle);
		fputc(' ', stderr);
		repro_term_puts(stderr, res.bundle_path);
		fputs(" lists them\n", stderr);
	}
	summary(o, &plan, rules, first_rule, &res, ndiv);
	if (res.bundle_path != NULL && !o->quiet)
		fprintf(stderr, "repro: replay: recorded into '%s'\n", res.bundle_path);
	rc = !res.has_exit		    ? 1
	     : WIFSIGNALED(res.wait_status) ? 128 + WTERMSIG(res.wait_status)
					    : WEXITSTATUS(res.wait_status);
out:
	sess_result_release(&res);
	rpl_watch_free(watch);
	rpl_rules_free(rules);
	free(argv);
	rpl_replay_plan_release(&plan);
	return rc;
}

/* --simulate: the differences between the bundle's facts and this host; 0, 1 or -1. */
static int simulate(const struct replay_opts *o, struct repro_err **err)
{
	struct rpl_replay_opts ro = { .cwd_here = o->cwd,
				      .home_here = getenv("HOME"),
				      .map_from = o->map_from,
				      .map_to = o->map_to,
				      .nmaps = o->nmaps,
				      .include_system = o->include_system };
	json_t *d = NULL, *e;
	size_t i;
	int rc;

	if (rpl_replay_simulate(o->bundle, &ro, o->probe_network, &d, err) < 0)
		return -1;
	if (o->json) {
		json_t *doc = json_pack("{s:O}", "differences", d);

		json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', stdout);
		json_decref(doc);
	} else if (json_array_size(d) == 0) {
		puts("this host matches the recording (its paths, names and, probed, destinations)");
	} else {
		printf("%zu difference%s between the recording and this host, most important first:\n",
		       json_array_size(d), json_array_size(d) == 1 ? "" : "s");
		json_array_foreach (d, i, e) {
			const char *t = json_string_value(json_object_get(e, "target"));

			printf("  %s: ", json_string_value(json_object_get(e, "what")));
			repro_term_write(stdout, t, strlen(t), false, false);
			fputs(" (recorded: ", stdout);
			repro_term_puts(stdout, json_string_value(json_object_get(e, "recorded")));
			fputs("; here: ", stdout);
			repro_term_puts(stdout, json_string_value(json_object_get(e, "here")));
			fputs(")\n", stdout);
		}
	}
	rc = json_array_size(d) > 0 ? 1 : 0;
	json_decref(d);
	if (fflush(stdout) != 0)
		return repro_err_set(err, errno, "replay --simulate: cannot write the report");
	return rc;
}

int cmd_replay(int argc, char **argv, struct repro_err **err)
{
	cleanup_replay_opts struct replay_opts o = { 0 };
	int rc = parse_args(argc, argv, &o, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (!o.simulate && (o.probe_network || o.json || o.include_system))
		return repro_err_set(err, EINVAL,
				     "replay: --probe-network, --json and --include-system go with "
				     "--simulate");
	return o.simulate ? simulate(&o, err) : replay(&o, err);
}
