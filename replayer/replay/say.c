/*
 * What `repro replay` says (replayer/replay/replay.h, docs/replay.md):
 * before the run, as divergences happen, the verdict after it,
 * --minimize's trials and set, --simulate's differences.  Every string
 * from the bundle or the run goes through the one terminal sanitiser
 * (common/term.h).
 */
#include "replayer/replay/replay.h"
#include "bundles/json_util.h"
#include "common/term.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The differences that matter between the recording's machine and this one, in one block. */
static void environment_block(FILE *out, const struct rpl_replay_result *r)
{
	json_t *h = r->plan.host;
	struct utsname u;
	long long uid = json_integer_value(json_object_get(h, "uid"));
	const char *rel = jstr(json_object_get(h, "kernel"), "release");

	if (h != NULL && json_object_get(h, "uid") != NULL && uid != (long long)getuid()) {
		fprintf(out, "repro: replay: recorded as uid %lld, replayed as uid %d\n", uid,
			(int)getuid());
	}
	if (strcmp(r->cwd, r->plan.cwd) != 0) {
		fputs("repro: replay: recorded in ", out);
		repro_term_write(out, r->plan.cwd, strlen(r->plan.cwd), false, false);
		fputs(", replayed in ", out);
		repro_term_write(out, r->cwd, strlen(r->cwd), false, false);
		fputc('\n', out);
	}
	if (rel != NULL && uname(&u) == 0 && strcmp(rel, u.release) != 0) {
		fputs("repro: replay: recorded on kernel ", out);
		repro_term_write(out, rel, strlen(rel), false, false);
		fprintf(out, ", replayed on %s\n", u.release);
	}
}

void rpl_replay_say_before(FILE *out, const struct rpl_replay_result *r, bool no_impose)
{
	environment_block(out, r);
	for (size_t k = 0; k < r->plan.n && !no_impose; k++) {
		fputs(r->plan.v[k].cannot != NULL ? "repro: replay: cannot impose "
						  : "repro: replay: imposing ",
		      out);
		repro_term_puts(out, r->plan.v[k].what);
		if (r->plan.v[k].cannot != NULL) {
			fputs(": ", out);
			repro_term_puts(out, r->plan.v[k].cannot);
		}
		fputc('\n', out);
	}
}

/* "uid 1000 (bob), gid 1000 (bob)": who the run is here. */
static void say_identity(FILE *out)
{
	struct passwd *pw = getpwuid(getuid());
	struct group *gr = getgrgid(getgid());

	fprintf(out, "uid %d", (int)getuid());
	if (pw != NULL) {
		fputs(" (", out);
		repro_term_puts(out, pw->pw_name);
		fputc(')', out);
	}
	fprintf(out, ", gid %d", (int)getgid());
	if (gr != NULL) {
		fputs(" (", out);
		repro_term_puts(out, gr->gr_name);
		fputc(')', out);
	}
	fputs(", no privilege gained (no_new_privs: set-user-ID programs do not raise it)\n", out);
}

/* Where the run's writes go. */
static void say_writes(FILE *out, const struct rpl_replay_run_opts *o,
		       const struct rpl_replay_result *r)
{
	if (o->no_overlay) {
		fputs("  writes:      reach this machine (--no-overlay)\n", out);
		return;
	}
	fputs("  writes:      into throwaway overlays of", out);
	for (size_t i = 0; i < r->noverlay; i++) {
		fputs(i > 0 ? ", " : " ", out);
		repro_term_quote(out, r->overlay[i]);
	}
	if (o->keep_overlay != NULL) {
		fputs(" (kept in ", out);
		repro_term_quote(out, o->keep_overlay);
		fputc(')', out);
	}
	fputs("; everywhere else read-only", out);
	if (r->overlay_left_out > 0)
		fprintf(out, " (%zu more places the recording wrote among them)",
			r->overlay_left_out);
	fputc('\n', out);
}

void rpl_replay_say_run(FILE *out, const struct rpl_replay_run_opts *o,
			const struct rpl_replay_result *r, const char *sha256)
{
	fputs("repro: replay: a bundle is data from elsewhere until you run it; this runs here:\n",
	      out);
	fputs("  command:    ", out);
	for (size_t i = 0; r->argv[i] != NULL; i++) {
		fputc(' ', out);
		repro_term_quote(out, r->argv[i]);
	}
	fputs(o->cmd != NULL ? "   (yours: -- CMD)\n" : "\n", out);
	fputs("  directory:   ", out);
	repro_term_quote(out, r->cwd);
	fputs("\n  as:          ", out);
	say_identity(out);
	fputs("  environment: yours, as it is here (the recording's is not applied)\n", out);
	say_writes(out, o, r);
	fputs(o->net_host
		      ? "  network:     this machine's (--net=host)\n"
		      : "  network:     none but loopback (--net=host gives it this machine's)\n",
	      out);
	if (sha256 != NULL)
		fprintf(out, "  bundle:      sha256 %s\n", sha256);
}

void rpl_replay_say_live(FILE *out, const char *line)
{
	fputs("repro: replay: ", out);
	repro_term_puts(out, line);
	fputc('\n', out);
}

/* Most process differences said after a replay. */
#define PROCESS_DIVERGENCES_MAX 5

/* The divergences found after the run, one line each (not with -q); how many were said. */
static size_t say_divergences(FILE *out, const struct rpl_replay_result *r, bool quiet)
{
	size_t i, shown = 0;
	json_t *e;

	if (r->failed_here_error != NULL)
		fprintf(out, "repro: replay: divergences not known: %s\n", r->failed_here_error);
	if (r->process_diffs_error != NULL)
		fprintf(out, "repro: replay: processes not compared: %s\n", r->process_diffs_error);
	if (quiet)
		return 0;
	json_array_foreach (r->failed_here, i, e) {
		const char *what = jstr(e, "what"), *proc = jstr(e, "process");

		shown++;
		fputs("repro: replay: diverged: failed here, not in the recording: ", out);
		repro_term_write(out, what, strlen(what), false, false);
		if (proc != NULL) {
			fputs(" (", out);
			repro_term_write(out, proc, strlen(proc), false, false);
			fputc(')', out);
		}
		fputc('\n', out);
	}
	json_array_foreach (r->process_diffs, i, e) {
		if (i >= PROCESS_DIVERGENCES_MAX)
			break;
		shown++;
		fputs("repro: replay: diverged: ", out);
		repro_term_puts(out, json_string_value(e));
		fputs(" (A: the recording, B: the replay)\n", out);
	}
	return shown;
}

/* The summary: the verdict, the failures imposed, the divergences. */
static void summary(FILE *out, const struct rpl_replay_result *r, bool quiet, bool no_impose)
{
	for (size_t i = 0; i < r->plan.n && !no_impose && !quiet; i++)
		if (r->fired[i] == 0 && r->plan.v[i].cannot != NULL) {
			fputs("repro: replay: not imposed, ", out);
			repro_term_puts(out, r->plan.v[i].cannot);
			fputs(": ", out);
			repro_term_puts(out, r->plan.v[i].what);
			fputc('\n', out);
		} else if (r->fired[i] == 0) {
			fputs("repro: replay: not imposed, the call never came here: ", out);
			repro_term_puts(out, r->plan.v[i].what);
			fputc('\n', out);
		}
	if (r->verdict == RPL_REPLAY_STOPPED)
		fputs("repro: replay: stopped at the first divergence (--strict)", out);
	else if (r->verdict == RPL_REPLAY_REPRODUCED)
		fprintf(out, "repro: replay: reproduced: %s as recorded", r->exit_here);
	else if (r->verdict == RPL_REPLAY_OTHER_WAY)
		fprintf(out, "repro: replay: %s as recorded, but another way", r->exit_here);
	else
		fprintf(out, "repro: replay: not reproduced: %s (recorded: %s)", r->exit_here,
			r->exit_recorded);
	if (no_impose)
		fputs(", nothing recorded imposed", out);
	else
		fprintf(out, ", %zu of %zu failure%s imposed", r->imposed, r->plan.n,
			r->plan.n == 1 ? "" : "s");
	if (r->ndivergences > 0)
		fprintf(out, ", %zu divergence%s", r->ndivergences,
			r->ndivergences == 1 ? "" : "s");
	fputc('\n', out);
}

void rpl_replay_say_result(FILE *out, const struct rpl_replay_result *r, bool quiet, bool no_impose)
{
	size_t shown;

	if (r->res.exec_errnum != 0)
		fprintf(out, "repro: cannot execute '%s': %s\n", r->argv[0],
			strerror(r->res.exec_errnum));
	if (r->strict_what != NULL) {
		fputs("repro: replay: --strict: stopped at the first divergence: ", out);
		repro_term_puts(out, r->strict_what);
		fputc('\n', out);
		fputs(r->strict_context != NULL ? r->strict_context : "", out);
		if (r->strict_context_error != NULL)
			fprintf(out, "repro: replay: the recording's side not known: %s\n",
				r->strict_context_error);
	}
	shown = (quiet ? 0 : r->live_said) + say_divergences(out, r, quiet);
	if (!quiet && r->ndivergences > shown && r->res.bundle_path != NULL) {
		fprintf(out, "repro: replay: %zu more divergence%s not shown: repro diff ",
			r->ndivergences - shown, r->ndivergences - shown == 1 ? "" : "s");
		repro_term_puts(out, r->bundle);
		fputc(' ', out);
		repro_term_puts(out, r->res.bundle_path);
		fputs(" lists them\n", out);
	}
	summary(out, r, quiet, no_impose);
	if (r->res.bundle_path != NULL && !quiet)
		fprintf(out, "repro: replay: recorded into '%s'\n", r->res.bundle_path);
}

void rpl_replay_say_step(FILE *out, const struct rpl_replay_result *r, size_t i, bool needed)
{
	fputs("repro: replay: minimize: without ", out);
	repro_term_write(out, r->plan.v[i].what, strlen(r->plan.v[i].what), false, false);
	fprintf(out, needed ? ": another exit, needed\n" : ": still %s, not needed\n",
		r->exit_recorded);
}

int rpl_replay_say_minimized(FILE *out, const struct rpl_replay_result *r,
			     const struct rpl_replay_minimized *m, bool no_impose)
{
	const char *s = r->plan.n == 1 ? "" : "s";

	if (r->plan.n == 0 || no_impose) {
		fputs("repro: replay: minimize: no recorded failure to impose\n", out);
		return 1;
	}
	if (m->full_set_differs) {
		fprintf(out,
			"repro: replay: minimize: the %zu recorded failure%s together do not give "
			"%s here: nothing to minimize\n",
			r->plan.n, s, r->exit_recorded);
		return 1;
	}
	fprintf(out, "repro: replay: minimize: %zu of %zu recorded failure%s give %s:", m->kept,
		r->plan.n, s, r->exit_recorded);
	for (size_t i = 0, shown = 0; i < r->plan.n; i++)
		if (m->needed[i]) {
			fputs(shown++ > 0 ? "; " : " ", out);
			repro_term_write(out, r->plan.v[i].what, strlen(r->plan.v[i].what), false,
					 false);
		}
	fputc('\n', out);
	return 0;
}

int rpl_replay_say_simulated(FILE *out, json_t *differences, bool as_json)
{
	size_t i, n = json_array_size(differences);
	json_t *e;

	if (as_json) {
		json_t *doc = json_pack("{s:O}", "differences", differences);

		bndl_json_write(doc, out, JSON_INDENT(1) | JSON_ENSURE_ASCII);
		fputc('\n', out);
		json_decref(doc);
	} else if (n == 0) {
		fputs("this host matches the recording (its paths, names and, probed, "
		      "destinations)\n",
		      out);
	} else {
		fprintf(out,
			"%zu difference%s between the recording and this host, most important "
			"first:\n",
			n, n == 1 ? "" : "s");
		json_array_foreach (differences, i, e) {
			const char *t = jstr(e, "target");

			fprintf(out, "  %s: ", jstr(e, "what"));
			repro_term_write(out, t, strlen(t), false, false);
			fputs(" (recorded: ", out);
			repro_term_puts(out, jstr(e, "recorded"));
			fputs("; here: ", out);
			repro_term_puts(out, jstr(e, "here"));
			fputs(")\n", out);
		}
	}
	return n > 0 ? 1 : 0;
}
