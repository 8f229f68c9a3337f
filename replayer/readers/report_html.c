/*
 * `repro report`: the HTML page (replayer/readers/report.h).  Every string
 * from a bundle goes through text() (common/term.h's sanitiser with HTML
 * escapes); markup is only ever this file's own literals and numbers.
 */
#include "replayer/readers/report_internal.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/term.h"
#include "common/xalloc.h"
#include "replayer/readers/explain.h"
#include "replayer/readers/normalize.h"
#include "replayer/readers/wait_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Timeline geometry, in the SVG's user units. */
#define TL_W 1200
#define TL_LABEL 300 /* the lane names' column */
#define TL_X0 310
#define TL_X1 1190
#define TL_TOP 28 /* the time axis */
#define TL_LANE 18 /* a lane's height */
/* Bytes of bundle text a tooltip, a table cell, an argv in the tree show at most. */
#define CUT_TIP 120
#define CUT_CELL 512
#define CUT_ARGV 120
/* Bytes of tooltips a timeline writes at most; past it, marks have none. */
#define TL_TIPS_MAX (1u << 20)

static const char page_style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#fff;"
	"overflow-wrap:anywhere}"
	"header,footer{padding:12px 24px;background:#f3f5f7}"
	"header h1{font-size:20px;margin:0}footer{color:#5a6570;font-size:12px}"
	".sides{display:grid;grid-template-columns:repeat(var(--n),minmax(0,1fr));gap:24px;"
	"padding:0 24px}"
	"h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #d7dde3}"
	"h3{font-size:15px;margin:16px 0 6px}"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0}"
	"dl.facts dt{color:#5a6570}dl.facts dd{margin:0;overflow-wrap:anywhere}"
	"code,.mono,td{font-family:ui-monospace,monospace;font-size:12.5px}"
	"ol.findings li{margin-bottom:12px}.sentence{margin:0}"
	".said{margin:2px 0;color:#5a6570}.said code{background:#f3f5f7;padding:0 4px}"
	"li.marked .sentence{border-left:4px solid #7b3fbf;padding-left:6px}"
	"details{margin:2px 0}summary{cursor:pointer;color:#35608f}"
	"ul.evidence{margin:2px 0;padding-left:18px}"
	"table{border-collapse:collapse;width:100%;margin:4px 0}"
	"th{text-align:left;font-weight:600;background:#f3f5f7;white-space:nowrap}"
	"td.w{white-space:nowrap}"
	"th,td{padding:2px 6px;border-bottom:1px solid #e5e9ed;vertical-align:top;"
	"overflow-wrap:anywhere}"
	"td.n{text-align:right;white-space:nowrap}tr.marked td{color:#7b3fbf}"
	"tr.system td{color:#7a848e}"
	".more{color:#5a6570;font-style:italic}"
	"ul.tree{list-style:none;padding:0;margin:0}ul.tree li{white-space:nowrap;"
	"overflow:hidden;text-overflow:ellipsis}.bad{color:#b3261e}"
	".cause{border:1px solid #b3261e;background:#fdf1f0;padding:8px 12px}"
	"svg.timeline{width:100%;height:auto;display:block}"
	"svg text{font:11px ui-monospace,monospace;fill:#1d232a}"
	"svg .axis{stroke:#c7ced5}svg .span{fill:#dfe5ea}svg .span.bad{fill:#f3d4d1}"
	"svg .exec{fill:#2f6fb3}svg .fail{fill:#d93025}svg .marked{fill:#7b3fbf}"
	"svg .wait{fill:#f0a030}svg .end{fill:#1d232a}svg .end.bad{fill:#b3261e}"
	".legend span{display:inline-block;margin-right:14px}"
	".legend i{display:inline-block;width:10px;height:10px;margin-right:4px}";

/* s from a bundle, as HTML text (cut past REPRO_TERM_CUT bytes). */
static void text(FILE *o, const char *s)
{
	repro_term_puts_html(o, s != NULL ? s : "", 0);
}

/* s from a bundle, as HTML text cut past max bytes. */
static void textn(FILE *o, const char *s, size_t max)
{
	repro_term_puts_html(o, s != NULL ? s : "", max);
}

/* ns as "0.042 s", "3.0 s", "12 s". */
static void secs(FILE *o, int64_t ns)
{
	rpl_wait_put_secs(o, ns);
}

/*
 * The argv words joined by spaces ("" for none), cut at a character
 * boundary past REPRO_TERM_CUT bytes with "...[N bytes]" of the whole
 * join; a new string.  Linear in what it keeps, plus the words' lengths.
 */
static char *words(json_t *argv)
{
	struct repro_sbuf b = { 0 };
	size_t total = 0;
	char *cut;
	json_t *w;
	size_t i;

	json_array_foreach (argv, i, w) {
		const char *t = json_is_string(w) ? json_string_value(w) : "?";

		total += strlen(t) + (i > 0);
		if (b.len > REPRO_TERM_CUT)
			continue; /* counted, not kept */
		if (i > 0)
			repro_sbuf_adds(&b, " ");
		repro_sbuf_adds(&b, t);
	}
	if (b.buf == NULL)
		return repro_xstrdup("");
	if (total <= REPRO_TERM_CUT)
		return b.buf;
	b.buf[rpt_cut_len(b.buf, REPRO_TERM_CUT)] = '\0';
	cut = repro_xasprintf("%s...[%zu bytes]", b.buf, total);
	free(b.buf);
	return cut;
}

/* A scalar JSON value as words; NULL for arrays and objects. */
static char *scalar(json_t *v)
{
	if (json_is_string(v))
		return repro_xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return repro_xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	if (json_is_real(v))
		return repro_xasprintf("%g", json_real_value(v));
	if (json_is_boolean(v))
		return repro_xstrdup(json_is_true(v) ? "yes" : "no");
	if (json_is_null(v))
		return repro_xstrdup("none");
	return NULL;
}

/* A dt/dd pair: the name cut past CUT_TIP bytes, the value past 2 * CUT_CELL or "none". */
static void fact(FILE *o, const char *name, const char *value)
{
	fputs("<dt>", o);
	textn(o, name, CUT_TIP);
	fputs("</dt><dd>", o);
	textn(o, value != NULL && value[0] != '\0' ? value : "none", 2 * CUT_CELL);
	fputs("</dd>", o);
}

static void run_facts(FILE *o, const struct rpt_side *s)
{
	json_t *m = s->manifest, *counts = json_object_get(m, "counts");
	json_t *opt = json_object_get(m, "options"), *w, *inj;
	cleanup_free char *cmd = words(json_object_get(m, "argv"));
	cleanup_free char *ex = rpl_exit_words(json_object_get(m, "exit"));
	size_t i;

	fputs("<dl class=\"facts\">", o);
	fact(o, "bundle", s->path);
	fact(o, "command", cmd);
	fact(o, "working directory", bndl_json_str(m, "cwd"));
	fact(o, "started", bndl_json_str(m, "started_at"));
	fputs("<dt>duration</dt><dd>", o);
	secs(o, bndl_json_int(m, "duration_ns", 0));
	fprintf(o, "</dd><dt>exit</dt><dd class=\"%s\">",
		json_is_object(json_object_get(m, "exit")) &&
				bndl_json_int(json_object_get(m, "exit"), "code", 1) == 0
			? "ok"
			: "bad");
	text(o, ex);
	fprintf(o,
		"</dd><dt>recorded</dt><dd>%" PRId64 " calls, %" PRId64 " failed, %" PRId64
		" processes</dd>",
		bndl_json_int(counts, "events", 0), bndl_json_int(counts, "failed", 0),
		bndl_json_int(counts, "processes", 0));
	if (json_is_object(opt)) {
		cleanup_free char *t = repro_xasprintf(
			"trace %s, network %s, sandbox %s",
			bndl_json_str(opt, "trace") ? bndl_json_str(opt, "trace") : "?",
			bndl_json_str(opt, "net") ? bndl_json_str(opt, "net") : "?",
			bndl_json_str(opt, "sandbox") ? bndl_json_str(opt, "sandbox") : "?");
		fact(o, "options", t);
	}
	if (json_is_true(json_object_get(m, "incomplete")))
		fact(o, "incomplete", "yes: the recording did not end cleanly");
	json_array_foreach (json_object_get(m, "warnings"), i, w) {
		if (i >= 20) {
			fprintf(o, "<dt>warning</dt><dd class=\"more\">%zu more not listed</dd>",
				json_array_size(json_object_get(m, "warnings")) - 20);
			break;
		}
		fact(o, "warning", json_is_string(w) ? json_string_value(w) : "?");
	}
	json_array_foreach (json_object_get(m, "injections"), i, inj) {
		cleanup_free char *t = NULL;

		if (i >= 50) {
			fprintf(o, "<dt>fault rule</dt><dd class=\"more\">%zu more not listed</dd>",
				json_array_size(json_object_get(m, "injections")) - 50);
			break;
		}
		t = repro_xasprintf("rule %" PRId64 ": %s (fired %" PRId64 " times)",
				    bndl_json_int(inj, "rule", 0),
				    bndl_json_str(inj, "text") ? bndl_json_str(inj, "text") : "?",
				    bndl_json_int(inj, "fired", 0));
		fact(o, "fault rule", t);
	}
	fputs("</dl>\n", o);
}

/* One event as a line of evidence: "event 278, pid 7523, 0.071 s: openat EACCES PATH". */
static void event_line(FILE *o, json_t *ev)
{
	cleanup_free char *w = rpt_call_words(ev, false);

	fprintf(o, "<li class=\"mono\">event %" PRId64 ", pid %" PRId64 ", ",
		bndl_json_int(ev, "seq", 0), bndl_json_int(ev, "pid", 0));
	secs(o, bndl_json_int(ev, "t_ns", 0));
	fputs(": ", o);
	text(o, w);
	if (bndl_json_str(ev, "path_as_written") != NULL) {
		fputs(" (as written: ", o);
		text(o, bndl_json_str(ev, "path_as_written"));
		fputs(")", o);
	}
	if (json_is_true(json_object_get(ev, "injected")))
		fprintf(o, " (injected by rule %" PRId64 ")", bndl_json_int(ev, "rule", 0));
	if (json_is_true(json_object_get(ev, "imposed")))
		fputs(" (imposed again from the recording)", o);
	fputs("</li>", o);
}

static void finding_evidence(FILE *o, const struct rpt_side *s, json_t *ev)
{
	json_t *seq, *f;
	size_t i, shown = 0;

	fputs("<details><summary>evidence</summary><ul class=\"evidence\">", o);
	json_array_foreach (json_object_get(ev, "events"), i, seq) {
		char key[24];
		json_t *e;

		if (i >= RPT_EVIDENCE || !json_is_integer(seq))
			break;
		snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT, json_integer_value(seq));
		e = json_object_get(s->evidence, key);
		if (json_is_object(e)) {
			event_line(o, e);
			shown++;
		}
	}
	json_array_foreach (json_object_get(ev, "files"), i, f) {
		if (i >= RPT_EVIDENCE)
			break;
		fputs("<li class=\"mono\">files.jsonl: ", o);
		text(o, json_is_string(f) ? json_string_value(f) : "?");
		fputs("</li>", o);
		shown++;
	}
	if (shown == 0)
		fputs("<li>the finding names no event of the bundle</li>", o);
	fputs("</ul></details>", o);
}

static bool finding_marked(json_t *f)
{
	const char *what = bndl_json_str(json_object_get(f, "reason"), "what");

	return what != NULL && (strcmp(what, "injected") == 0 || strcmp(what, "imposed") == 0);
}

static void findings(FILE *o, const struct rpt_side *s)
{
	json_t *all = json_object_get(s->explain, "findings"), *f, *said;
	size_t i;

	fputs("<h2>Findings</h2>\n", o);
	if (json_array_size(all) == 0) {
		fputs("<p>No failure that matters was found.</p>\n", o);
		return;
	}
	if (json_is_true(json_object_get(s->explain, "worked")))
		fprintf(o,
			"<p>The run worked: nothing that matters failed (%" PRId64
			" failures, each coped with).</p>\n<details><summary>what failed on the "
			"way, the %zu that explain ranks first</summary>\n",
			bndl_json_int(s->explain, "total", 0) +
				bndl_json_int(s->explain, "noise", 0),
			json_array_size(all));
	else
		fprintf(o,
			"<p>%zu shown, the most likely cause first; %" PRId64
			" probe failures set aside.</p>\n",
			json_array_size(all), bndl_json_int(s->explain, "noise", 0));
	fputs("<ol class=\"findings\">\n", o);
	json_array_foreach (all, i, f) {
		fprintf(o, "<li class=\"finding%s\"><p class=\"sentence\">",
			finding_marked(f) ? " marked" : "");
		text(o, bndl_json_str(f, "sentence"));
		fputs("</p>", o);
		said = json_object_get(f, "said");
		if (bndl_json_str(said, "line") != NULL) {
			fputs("<p class=\"said\">", o);
			text(o, bndl_json_str(said, "process"));
			fputs(" said: <code>", o);
			text(o, bndl_json_str(said, "line"));
			fputs("</code></p>", o);
		}
		finding_evidence(o, s, json_object_get(f, "evidence"));
		fputs("</li>\n", o);
	}
	fputs("</ol>\n", o);
	if (json_is_true(json_object_get(s->explain, "worked")))
		fputs("</details>\n", o);
}

/* x of time t_ns on a timeline scale_ns wide (at least the side's span_ns). */
static double tl_x(int64_t scale_ns, int64_t t_ns)
{
	if (t_ns < 0)
		t_ns = 0;
	if (t_ns > scale_ns)
		t_ns = scale_ns;
	return TL_X0 + (double)t_ns * (TL_X1 - TL_X0) / (double)scale_ns;
}

static void tl_axis(FILE *o, int64_t scale, int height)
{
	for (int k = 0; k <= 4; k++) {
		int64_t t = scale / 4 * k;
		double x = tl_x(scale, t);

		fprintf(o, "<line class=\"axis\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x,
			TL_TOP - 6, x, height);
		fprintf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">", x, TL_TOP - 10,
			k == 0	 ? "start"
			: k == 4 ? "end"
				 : "middle");
		/* one precision for the whole axis, enough to tell its ticks apart */
		fprintf(o,
			scale >= 400000000000LL ? "%.0f s"
			: scale >= 4000000000LL ? "%.1f s"
						: "%.3f s",
			(double)t / 1e9);
		fputs("</text>", o);
	}
}

/* Open a tooltip when the page's budget for them has room: true when opened. */
static bool tip_open(FILE *o, size_t *tips)
{
	if (*tips >= TL_TIPS_MAX)
		return false;
	*tips += 2 * CUT_TIP + 64; /* what one says at most */
	fputs("<title>", o);
	return true;
}

/* A lane's name: "pid 7523 python3 webui.py", cut to 40 bytes (a character boundary). */
static void lane_label(FILE *o, const struct rpt_side *s, const struct rpt_lane *l, int y)
{
	cleanup_free char *name = NULL;

	if (l->proc == RPT_SHARED)
		name = repro_xasprintf("%zu other processes", s->shared_procs);
	else
		name = repro_xasprintf("pid %" PRId64 " %s", s->procs[l->proc].pid,
				       s->procs[l->proc].label[0] != '\0' ? s->procs[l->proc].label
									  : "(fork)");
	name[rpt_cut_len(name, 40)] = '\0';
	fprintf(o, "<text x=\"4\" y=\"%d\">", y + 13);
	text(o, name);
	fputs("</text>", o);
}

/* The process's span, its exec ticks (16 at most: the tree lists them all) and its end. */
static void lane_process(FILE *o, int64_t scale, const struct rpt_proc *p, int y, size_t *tips)
{
	double x0 = tl_x(scale, p->start_ns), x1 = tl_x(scale, p->end_ns);
	json_t *e;
	size_t i;

	fprintf(o, "<rect class=\"span%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">",
		p->bad_exit ? " bad" : "", x0, y + 2, x1 - x0 > 1 ? x1 - x0 : 1, TL_LANE - 4);
	if (tip_open(o, tips)) {
		fprintf(o, "pid %" PRId64 " ", p->pid);
		textn(o, p->label, CUT_TIP);
		fputs(", from ", o);
		secs(o, p->start_ns);
		if (p->ended) {
			fputs(" to ", o);
			secs(o, p->end_ns);
			fputs(", ", o);
			text(o, p->exit);
		} else {
			fputs(", still running when the recording stopped", o);
		}
		fputs("</title>", o);
	}
	fputs("</rect>", o);
	json_array_foreach (p->execs, i, e) {
		cleanup_free char *argv = NULL;

		if (i >= 16)
			break;
		argv = words(json_object_get(e, "argv"));
		fprintf(o, "<rect class=\"exec\" x=\"%.1f\" y=\"%d\" width=\"2\" height=\"%d\">",
			tl_x(scale, bndl_json_int(e, "t_ns", p->start_ns)), y, TL_LANE);
		if (tip_open(o, tips)) {
			fputs("exec ", o);
			textn(o, argv, CUT_TIP);
			fputs("</title>", o);
		}
		fputs("</rect>", o);
	}
	if (p->ended && (json_is_object(json_object_get(p->execs, 0)) || p->bad_exit)) {
		fprintf(o, "<circle class=\"end%s\" cx=\"%.1f\" cy=\"%d\" r=\"3\">",
			p->bad_exit ? " bad" : "", x1, y + TL_LANE / 2);
		if (tip_open(o, tips)) {
			text(o, p->exit);
			fputs("</title>", o);
		}
		fputs("</circle>", o);
	}
}

static void lane_waits(FILE *o, int64_t scale, const struct rpt_lane *l, int y, size_t *tips)
{
	json_t *w;
	size_t i;

	json_array_foreach (l->waits, i, w) {
		int64_t t = bndl_json_int(w, "t_ns", 0), d = bndl_json_int(w, "dur_ns", 0);
		double x0 = tl_x(scale, t), x1 = tl_x(scale, bndl_ns_add(t, d > 0 ? d : 0));
		cleanup_free char *on = NULL;
		size_t len = 0;
		FILE *m;

		fprintf(o, "<rect class=\"wait\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"5\">",
			x0, y + TL_LANE - 6, x1 - x0 > 1 ? x1 - x0 : 1);
		if (tip_open(o, tips)) {
			if ((m = open_memstream(&on, &len)) != NULL) {
				fprintf(m, "pid %" PRId64 " waited ", bndl_json_int(w, "pid", 0));
				rpl_wait_put_secs(m, d);
				fputc(' ', m);
				rpl_wait_put_on(m, w, NULL);
				rpl_wait_put_end(m, w);
				fclose(m);
				textn(o, on, 2 * CUT_TIP);
			}
			fputs("</title>", o);
		}
		fputs("</rect>", o);
	}
}

/* The slots of l, s->span_ns wide in all, drawn on a timeline scale wide. */
static void lane_failures(FILE *o, const struct rpt_side *s, int64_t scale,
			  const struct rpt_lane *l, int y, size_t *tips)
{
	double w = (double)(TL_X1 - TL_X0) / RPL_REPORT_SLOTS * (double)s->span_ns / (double)scale;

	for (size_t k = 0; k < RPL_REPORT_SLOTS; k++) {
		if (l->fail[k] == 0 && l->marked[k] == 0)
			continue;
		fprintf(o, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">",
			l->marked[k] > 0 ? "marked" : "fail", TL_X0 + w * (double)k, y + 4,
			w > 2 ? w : 2, TL_LANE - 10);
		if (tip_open(o, tips)) {
			fprintf(o, "%" PRIu32 " failed, %" PRIu32 " injected or imposed, from ",
				l->fail[k], l->marked[k]);
			secs(o, (int64_t)((__int128)s->span_ns * (int64_t)k / RPL_REPORT_SLOTS));
			fputs("; the first: ", o);
			textn(o, l->first[k], CUT_TIP);
			fputs("</title>", o);
		}
		fputs("</rect>", o);
	}
}

static void legend(FILE *o)
{
	fputs("<p class=\"legend\"><span><i style=\"background:#dfe5ea\"></i>process</span>"
	      "<span><i style=\"background:#2f6fb3\"></i>exec</span>"
	      "<span><i style=\"background:#d93025\"></i>failed calls</span>"
	      "<span><i style=\"background:#7b3fbf\"></i>injected or imposed</span>"
	      "<span><i style=\"background:#f0a030\"></i>long wait</span>"
	      "<span>hover a mark for what it is</span></p>\n",
	      o);
}

/*
 * s's lanes on a timeline scale_ns wide (the longer run's, beside
 * another); *tips counts the bytes of tooltips written, TL_TIPS_MAX at
 * most, so the page stays bounded whatever the bundle holds.
 */
static void timeline(FILE *o, const struct rpt_side *s, int64_t scale, size_t *tips)
{
	int height = TL_TOP + (int)s->nlanes * TL_LANE + 4;

	fprintf(o,
		"<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"timeline\">",
		TL_W, height);
	tl_axis(o, scale, height);
	for (size_t i = 0; i < s->nlanes; i++) {
		const struct rpt_lane *l = &s->lanes[i];
		int y = TL_TOP + (int)i * TL_LANE;

		if (l->proc == RPT_SHARED)
			fprintf(o, "<g class=\"lane shared\">");
		else
			fprintf(o, "<g class=\"lane\" data-pid=\"%" PRId64 "\">",
				s->procs[l->proc].pid);
		lane_label(o, s, l, y);
		if (l->proc != RPT_SHARED)
			lane_process(o, scale, &s->procs[l->proc], y, tips);
		lane_waits(o, scale, l, y, tips);
		lane_failures(o, s, scale, l, y, tips);
		fputs("</g>\n", o);
	}
	fputs("</svg>\n", o);
	if (s->shared_procs > 0)
		fprintf(o, "<p class=\"more\">%zu processes share the last lane.</p>\n",
			s->shared_procs);
	if (*tips >= TL_TIPS_MAX)
		fputs("<p class=\"more\">The later marks have no tooltip (the page's budget for "
		      "them was spent).</p>\n",
		      o);
}

/*
 * The process tree in depth-first order, one row per process indented by
 * its depth (shown up to 40), RPL_REPORT_TREE rows at most.  Iterative:
 * a 40,000-deep fork chain needs no deep recursion.  Linear in the processes.
 */
static void tree(FILE *o, const struct rpt_side *s)
{
	size_t n = s->nprocs, shown = 0, top = 0;
	cleanup_free size_t *child = repro_xmalloc((n + 1) * sizeof(size_t));
	cleanup_free size_t *next = repro_xmalloc((n + 1) * sizeof(size_t));
	cleanup_free size_t *stack = repro_xmalloc((n + 1) * sizeof(size_t));
	cleanup_free size_t *depth = repro_xmalloc((n + 1) * sizeof(size_t));

	fputs("<h2>Processes</h2>\n<ul class=\"tree\">\n", o);
	for (size_t i = 0; i < n; i++)
		child[i] = next[i] = RPT_SHARED;
	/* children in their order: link them from the last */
	for (size_t i = n; i-- > 0;) {
		size_t p = s->procs[i].parent;

		if (p >= i) /* RPT_SHARED: a root; a parent always comes first */
			continue;
		next[i] = child[p];
		child[p] = i;
	}
	for (size_t i = n; i-- > 0;) {
		size_t p = s->procs[i].parent;

		if (p >= i) {
			stack[top] = i;
			depth[top++] = 0;
		}
	}
	while (top > 0 && shown < RPL_REPORT_TREE) {
		size_t i = stack[--top], d = depth[top];
		const struct rpt_proc *p = &s->procs[i];
		json_t *e;
		size_t k, n_execs;

		fprintf(o, "<li style=\"padding-left:%zuem\"%s>", d < 40 ? d : 40,
			p->bad_exit ? " class=\"bad\"" : "");
		fprintf(o, "pid %" PRId64 " ", p->pid);
		if (json_array_size(p->execs) == 0)
			fputs("(fork) ", o);
		n_execs = json_array_size(p->execs);
		json_array_foreach (p->execs, k, e) {
			cleanup_free char *argv = NULL;

			/* the first exec and the last two: what it was started as, what it became */
			if (n_execs > 3 && k > 0 && k < n_execs - 2) {
				if (k == 1)
					fprintf(o, " → … (%zu execs in all)", n_execs);
				continue;
			}
			argv = words(json_object_get(e, "argv"));
			if (k > 0)
				fputs(" → ", o);
			fputs("<code>", o);
			textn(o, argv, CUT_ARGV);
			fputs("</code>", o);
		}
		fputs(" — ", o);
		text(o, p->exit);
		if (p->failed > 0)
			fprintf(o, ", %" PRIu64 " failed call%s", p->failed,
				p->failed == 1 ? "" : "s");
		fputs("</li>\n", o);
		shown++;
		/* the children, the first on top */
		{
			size_t cnt = 0, m = 0;

			for (size_t c = child[i]; c != RPT_SHARED; c = next[c])
				cnt++;
			for (size_t c = child[i]; c != RPT_SHARED; c = next[c], m++) {
				stack[top + cnt - 1 - m] = c;
				depth[top + cnt - 1 - m] = d + 1;
			}
			top += cnt;
		}
	}
	fputs("</ul>\n", o);
	if (shown < n)
		fprintf(o, "<p class=\"more\">%zu more processes not listed.</p>\n", n - shown);
}

struct failed_row {
	const char *key; /* borrowed: "SYSCALL\tERRNO\tTARGET" */
	json_t *row; /* borrowed: [count, seq, pid, marked] */
	bool system;
};

static int cmp_failed(const void *a, const void *b)
{
	const struct failed_row *x = a, *y = b;
	json_int_t cx = json_integer_value(json_array_get(x->row, 0));
	json_int_t cy = json_integer_value(json_array_get(y->row, 0));

	if (x->system != y->system)
		return x->system ? 1 : -1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return json_integer_value(json_array_get(x->row, 1)) <
			       json_integer_value(json_array_get(y->row, 1))
		       ? -1
		       : 1;
}

/* The key's three fields, split in a copy: sc, er, target point into *copy. */
static void split_key(const char *key, char **copy, const char **sc, const char **er,
		      const char **target)
{
	char *t1, *t2;

	*copy = repro_xstrdup(key);
	*sc = *copy;
	t1 = strchr(*copy, '\t');
	t2 = t1 != NULL ? strchr(t1 + 1, '\t') : NULL;
	if (t1 == NULL || t2 == NULL) {
		*er = *target = "";
		return;
	}
	*t1 = *t2 = '\0';
	*er = t1 + 1;
	*target = t2 + 1;
}

static void failed_calls(FILE *o, const struct rpt_side *s)
{
	size_t n = json_object_size(s->failed), i = 0;
	cleanup_free struct failed_row *rows = repro_xcalloc(n + 1, sizeof(*rows));
	const char *key;
	json_t *row;

	fprintf(o, "<h2>Failed calls</h2>\n<p>%" PRIu64 " failed calls, %zu distinct",
		s->failed_events, n);
	if (s->marked_events > 0)
		fprintf(o, ", %" PRIu64 " of them injected or imposed", s->marked_events);
	if (s->marked_ok > 0)
		fprintf(o, "; and %" PRIu64 " results a rule imposed that are not errors",
			s->marked_ok);
	fputs("; the program's paths first, then the system's.</p>\n", o);
	json_object_foreach (s->failed, key, row) {
		cleanup_free char *copy = NULL;
		const char *sc, *er, *target;

		split_key(key, &copy, &sc, &er, &target);
		rows[i++] = (struct failed_row){
			.key = key,
			.row = row,
			.system = target[0] == '/' && rpl_explain_system_path(target) != NULL,
		};
	}
	qsort(rows, n, sizeof(*rows), cmp_failed);
	if (n == 0)
		return;
	fputs("<table><tr><th>calls</th><th>syscall</th><th>errno</th><th>path or address</th>"
	      "<th>first</th></tr>\n",
	      o);
	for (i = 0; i < n && i < RPL_REPORT_ROWS; i++) {
		cleanup_free char *copy = NULL;
		const char *sc, *er, *target;
		bool marked = json_is_true(json_array_get(rows[i].row, 3));

		split_key(rows[i].key, &copy, &sc, &er, &target);
		fprintf(o, "<tr class=\"%s%s\"><td class=\"n\">%" JSON_INTEGER_FORMAT "</td>",
			rows[i].system ? "system" : "program", marked ? " marked" : "",
			json_integer_value(json_array_get(rows[i].row, 0)));
		fputs("<td class=\"w\">", o);
		textn(o, sc, CUT_CELL);
		fputs("</td><td class=\"w\">", o);
		textn(o, er, CUT_CELL);
		fputs("</td><td>", o);
		textn(o, target, CUT_CELL);
		fprintf(o,
			"</td><td class=\"n\">event %" JSON_INTEGER_FORMAT
			", pid %" JSON_INTEGER_FORMAT "%s</td></tr>\n",
			json_integer_value(json_array_get(rows[i].row, 1)),
			json_integer_value(json_array_get(rows[i].row, 2)),
			marked ? " (injected)" : "");
	}
	fputs("</table>\n", o);
	if (n > RPL_REPORT_ROWS || s->failed_uncounted > 0)
		fprintf(o, "<p class=\"more\">%zu more distinct failed calls not listed%s.</p>\n",
			n > RPL_REPORT_ROWS ? n - RPL_REPORT_ROWS : 0,
			s->failed_uncounted > 0 ? ", and more past the count's limit" : "");
}

/* files.jsonl's meta as "file 0644 0:0, 4096 bytes". */
static char *meta_words(json_t *meta)
{
	if (!json_is_object(meta))
		return repro_xstrdup("");
	return repro_xasprintf("%s %s %" PRId64 ":%" PRId64 ", %" PRId64 " bytes",
			       bndl_json_str(meta, "type") ? bndl_json_str(meta, "type") : "?",
			       bndl_json_str(meta, "mode") ? bndl_json_str(meta, "mode") : "?",
			       bndl_json_int(meta, "uid", -1), bndl_json_int(meta, "gid", -1),
			       bndl_json_int(meta, "size", 0));
}

static void failed_paths(FILE *o, const struct rpt_side *s)
{
	json_t *f;
	size_t i;

	if (!s->has_files)
		return;
	fputs("<h2>Failed paths</h2>\n", o);
	if (!s->traced_file) {
		fputs("<p>Files were not traced in this recording (its --trace left them out).</p>\n",
		      o);
		return;
	}
	if (json_array_size(s->paths) == 0) {
		fputs("<p>No path failed.</p>\n", o);
		return;
	}
	fputs("<table><tr><th>path</th><th>used for</th><th>errno</th><th>calls</th>"
	      "<th>what is there</th></tr>\n",
	      o);
	json_array_foreach (s->paths, i, f) {
		cleanup_free char *ops = words(json_object_get(f, "ops"));
		cleanup_free char *meta = meta_words(json_object_get(f, "meta"));
		const char *path = bndl_json_str(f, "path");

		fprintf(o, "<tr class=\"%s\"><td>",
			rpl_explain_system_path(path) != NULL ? "system" : "program");
		textn(o, path, CUT_CELL);
		fputs("</td><td>", o);
		textn(o, ops, CUT_CELL);
		fputs("</td><td>", o);
		textn(o, bndl_json_str(f, "errno"), CUT_CELL);
		fprintf(o, "</td><td class=\"n\">%" PRId64 "</td><td>",
			bndl_json_int(f, "calls", 0));
		textn(o, meta[0] != '\0' ? meta : "nothing (missing)", CUT_CELL);
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
	if (s->paths_more > 0)
		fprintf(o, "<p class=\"more\">%" PRIu64 " more failed paths not listed.</p>\n",
			s->paths_more);
}

/* A network line's "where": "198.51.100.7:443 (cdn.example.com)", "[::1]:9", "@name", a DNS name. */
static char *net_where(json_t *l)
{
	const char *name = bndl_json_str(l, "name");
	cleanup_free char *addr = rpt_addr_words(l);

	if (strcmp(bndl_json_str(l, "kind") ? bndl_json_str(l, "kind") : "", "dns") == 0)
		return repro_xasprintf("%s %s (server %s)", name != NULL ? name : "?",
				       bndl_json_str(l, "qtype") ? bndl_json_str(l, "qtype") : "",
				       addr[0] != '\0' ? addr : "?");
	if (name != NULL)
		return repro_xasprintf("%s (%s)", addr[0] != '\0' ? addr : "?", name);
	return repro_xstrdup(addr[0] != '\0' ? addr : "?");
}

static void network_row(FILE *o, json_t *l)
{
	cleanup_free char *where = net_where(l);
	const char *er = bndl_json_str(l, "errno");
	bool dns = strcmp(bndl_json_str(l, "kind") ? bndl_json_str(l, "kind") : "", "dns") == 0;

	fprintf(o, "<tr class=\"%s\"><td class=\"n\">",
		json_is_true(json_object_get(l, "injected")) ? "marked" : "");
	secs(o, bndl_json_int(l, "t_ns", 0));
	fprintf(o, "</td><td class=\"n\">%" PRId64 "</td><td>", bndl_json_int(l, "pid", 0));
	textn(o, dns ? "DNS lookup" : bndl_json_str(l, "syscall"), CUT_CELL);
	fputs("</td><td>", o);
	textn(o, where, CUT_CELL);
	fputs("</td><td>", o);
	textn(o, bndl_json_str(l, "outcome"), CUT_CELL);
	if (er != NULL) {
		fputs(" (", o);
		textn(o, er, CUT_CELL);
		fputs(")", o);
	}
	if (json_is_true(json_object_get(l, "injected")))
		fprintf(o, ", injected by rule %" PRId64, bndl_json_int(l, "rule", 0));
	fputs("</td><td class=\"n\">", o);
	if (json_is_integer(json_object_get(l, "dur_ns")))
		secs(o, bndl_json_int(l, "dur_ns", 0));
	fputs("</td></tr>\n", o);
}

static void network(FILE *o, const struct rpt_side *s)
{
	json_t *l;
	size_t i;

	if (!s->has_network)
		return;
	fputs("<h2>Network</h2>\n", o);
	if (!s->traced_network) {
		fputs("<p>The network was not traced in this recording (its --trace left it "
		      "out).</p>\n",
		      o);
		return;
	}
	if (json_array_size(s->net_failed) + json_array_size(s->net_ok) == 0) {
		fputs("<p>No network attempt or lookup.</p>\n", o);
		return;
	}
	fputs("<table><tr><th>at</th><th>pid</th><th>call</th><th>to</th><th>outcome</th>"
	      "<th>took</th></tr>\n",
	      o);
	json_array_foreach (s->net_failed, i, l)
		network_row(o, l);
	json_array_foreach (s->net_ok, i, l)
		network_row(o, l);
	fputs("</table>\n", o);
	if (s->net_more > 0)
		fprintf(o,
			"<p class=\"more\">%" PRIu64
			" more lines of network.jsonl not listed.</p>\n",
			s->net_more);
}

static int cmp_wait(const void *a, const void *b)
{
	int64_t x = bndl_json_int(*(json_t *const *)a, "dur_ns", 0);
	int64_t y = bndl_json_int(*(json_t *const *)b, "dur_ns", 0);

	return x > y ? -1 : x < y;
}

static void waits(FILE *o, const struct rpt_side *s)
{
	size_t n = json_array_size(s->waits);
	cleanup_free json_t **w = repro_xcalloc(n + 1, sizeof(*w));

	if (!s->has_waits)
		return;
	fputs("<h2>Long waits</h2>\n", o);
	if (n == 0) {
		fputs("<p>No call waited a second or more.</p>\n", o);
		return;
	}
	for (size_t i = 0; i < n; i++)
		w[i] = json_array_get(s->waits, i);
	qsort(w, n, sizeof(*w), cmp_wait);
	fputs("<table><tr><th>at</th><th>pid</th><th>waited</th><th>on</th></tr>\n", o);
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *on = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&on, &len);

		if (m != NULL) {
			rpl_wait_put_on(m, w[i], NULL);
			rpl_wait_put_end(m, w[i]);
			fclose(m);
		}
		fputs("<tr><td class=\"n\">", o);
		secs(o, bndl_json_int(w[i], "t_ns", 0));
		fprintf(o, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">",
			bndl_json_int(w[i], "pid", 0));
		secs(o, bndl_json_int(w[i], "dur_ns", 0));
		fputs("</td><td>", o);
		textn(o, on, CUT_CELL);
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
	if (s->waits_total > n)
		fprintf(o, "<p class=\"more\">%" PRIu64 " shorter waits not listed.</p>\n",
			s->waits_total - n);
}

/* A host fact: name and value cut shorter than the run's facts (there are hundreds). */
static void host_fact(FILE *o, const char *name, const char *value)
{
	fputs("<dt>", o);
	textn(o, name, CUT_TIP);
	fputs("</dt><dd>", o);
	textn(o, value != NULL && value[0] != '\0' ? value : "none", CUT_TIP * 2);
	fputs("</dd>", o);
}

/* Most host facts listed; the rest are counted. */
#define HOST_ROWS 400u

/*
 * host.json flattened: "kernel.release", "rlimits.NOFILE.soft",
 * "mounts[3].mount_point" …; arrays of scalars joined.  *rows counts the
 * facts seen, HOST_ROWS of them written.  Depth 6 at most (deeper values
 * as JSON text).
 */
static void host_facts(FILE *o, const char *prefix, json_t *v, int depth, size_t *rows)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v) && depth < 6) {
		json_object_foreach (v, k, x) {
			cleanup_free char *name = prefix[0] != '\0'
							  ? repro_xasprintf("%s.%s", prefix, k)
							  : repro_xstrdup(k);

			host_facts(o, name, x, depth + 1, rows);
		}
		return;
	}
	if (json_is_array(v) && depth < 6 &&
	    (json_is_object(json_array_get(v, 0)) || json_is_array(json_array_get(v, 0)))) {
		json_array_foreach (v, i, x) {
			cleanup_free char *name = repro_xasprintf("%s[%zu]", prefix, i);

			host_facts(o, name, x, depth + 1, rows);
		}
		return;
	}
	if ((*rows)++ >= HOST_ROWS)
		return;
	if (json_is_array(v)) {
		struct repro_sbuf b = { 0 };

		json_array_foreach (v, i, x) {
			cleanup_free char *t = scalar(x);

			if (i >= 64 || b.len > REPRO_TERM_CUT) {
				repro_sbuf_adds(&b, ", …");
				break;
			}
			if (i > 0)
				repro_sbuf_adds(&b, ", ");
			repro_sbuf_adds(&b, t != NULL ? t : "…");
		}
		host_fact(o, prefix, b.buf);
		free(b.buf);
	} else {
		cleanup_free char *t = scalar(v);

		if (t == NULL)
			t = bndl_json_text(v, JSON_COMPACT);
		host_fact(o, prefix, t);
	}
}

static void host(FILE *o, const struct rpt_side *s)
{
	size_t rows = 0;

	fputs("<h2>Host</h2>\n", o);
	if (!json_is_object(s->host)) {
		fputs("<p>The bundle has no host.json.</p>\n", o);
		return;
	}
	fputs("<details><summary>the machine the run was recorded on</summary><dl class=\"facts\">",
	      o);
	host_facts(o, "", s->host, 0, &rows);
	if (rows > HOST_ROWS)
		fprintf(o, "<dt>…</dt><dd class=\"more\">%zu more facts not listed</dd>",
			rows - HOST_ROWS);
	fputs("</dl></details>\n", o);
}

static void side(FILE *o, const struct rpt_side *s, const char *name)
{
	if (name[0] != '\0')
		fprintf(o, "<section class=\"side\" id=\"side-%s\">\n<h2>Run %s</h2>\n", name,
			name);
	else
		fputs("<section class=\"side\" id=\"run\">\n<h2>The run</h2>\n", o);
	run_facts(o, s);
	findings(o, s);
	if (name[0] == '\0') {
		fputs("<h2>Timeline</h2>\n", o);
		legend(o);
		size_t tips = 0;

		timeline(o, s, s->span_ns, &tips);
	}
	tree(o, s);
	failed_calls(o, s);
	failed_paths(o, s);
	network(o, s);
	waits(o, s);
	host(o, s);
	fputs("</section>\n", o);
}

static void diff_section(FILE *o, json_t *diff, const char *why)
{
	json_t *d, *cause;
	size_t i;

	fputs("<section class=\"diff\" id=\"diff\" style=\"padding:0 24px\">\n<h2>What differs</h2>\n",
	      o);
	if (diff == NULL) {
		fputs("<p class=\"bad\">diff could not compare them: ", o);
		text(o, why);
		fputs("</p></section>\n", o);
		return;
	}
	if (json_is_true(json_object_get(diff, "same"))) {
		fputs("<p>Nothing differs after normalisation.</p></section>\n", o);
		return;
	}
	cause = json_object_get(diff, "cause");
	if (bndl_json_str(cause, "text") != NULL) {
		fputs("<div class=\"cause\"><strong>Most likely cause</strong> (", o);
		text(o, bndl_json_str(cause, "section"));
		fputs("): ", o);
		text(o, bndl_json_str(cause, "text"));
		fputs("</div>\n", o);
	}
	fputs("<ol class=\"differences\">\n", o);
	json_array_foreach (json_object_get(diff, "differences"), i, d) {
		if (i >= RPL_REPORT_ROWS)
			break;
		fputs("<li>", o);
		text(o, bndl_json_str(d, "section"));
		fputs(": ", o);
		text(o, bndl_json_str(d, "text"));
		fputs("</li>\n", o);
	}
	fputs("</ol>\n", o);
	if (json_array_size(json_object_get(diff, "differences")) > RPL_REPORT_ROWS ||
	    bndl_json_int(diff, "not_listed", 0) > 0)
		fprintf(o, "<p class=\"more\">%zu more differences not listed.</p>\n",
			(json_array_size(json_object_get(diff, "differences")) > RPL_REPORT_ROWS
				 ? json_array_size(json_object_get(diff, "differences")) -
					   RPL_REPORT_ROWS
				 : 0) +
				(size_t)(bndl_json_int(diff, "not_listed", 0) > 0
						 ? bndl_json_int(diff, "not_listed", 0)
						 : 0));
	fputs("</section>\n", o);
}

void rpt_html_page(FILE *o, struct rpt_side *sides, size_t n, json_t *diff, const char *diff_error)
{
	cleanup_free char *cmd = words(json_object_get(sides[n - 1].manifest, "argv"));

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"repro report\">\n<title>",
	      o);
	text(o, n == 2 ? "repro report: A against B: " : "repro report: ");
	text(o, cmd);
	fprintf(o, "</title>\n<style>%s</style>\n</head><body>\n<header><h1>", page_style);
	text(o, n == 2 ? "Two runs of " : "A run of ");
	text(o, cmd);
	fputs("</h1>", o);
	for (size_t i = 0; i < n; i++) {
		cleanup_free char *ex = rpl_exit_words(json_object_get(sides[i].manifest, "exit"));

		fprintf(o, "<div>%s", n == 2 ? (i == 0 ? "A: " : "B: ") : "");
		text(o, sides[i].path);
		fputs(" — ", o);
		text(o, ex);
		fputs(" after ", o);
		secs(o, bndl_json_int(sides[i].manifest, "duration_ns", 0));
		fputs("</div>", o);
	}
	fputs("</header>\n", o);
	if (n == 2) {
		size_t tips = 0;
		int64_t scale = sides[0].span_ns > sides[1].span_ns ? sides[0].span_ns
								    : sides[1].span_ns;

		diff_section(o, diff, diff_error);
		fputs("<section class=\"timelines\" style=\"padding:0 24px\">\n"
		      "<h2>Timelines, on one scale</h2>\n",
		      o);
		legend(o);
		for (size_t i = 0; i < n; i++) {
			fputs(i == 0 ? "<h3>A: " : "<h3>B: ", o);
			text(o, sides[i].path);
			fputs("</h3>\n", o);
			timeline(o, &sides[i], scale, &tips);
		}
		fputs("</section>\n", o);
	}
	fprintf(o, "<div class=\"sides\" style=\"--n:%zu\">\n", n);
	for (size_t i = 0; i < n; i++)
		side(o, &sides[i], n == 2 ? (i == 0 ? "A" : "B") : "");
	fputs("</div>\n<footer>Written by repro report from the bundle", o);
	fputs(n == 2 ? "s" : "", o);
	fputs(" alone; nothing on this page loads from elsewhere or runs.</footer>\n</body></html>\n",
	      o);
}
