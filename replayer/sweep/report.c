/* What a sweep reports: the table, the JSON document, JUnit XML, merged shards (replayer/sweep/sweep.h). */
#include "replayer/sweep/sweep.h"
#include "common/cleanup.h"
#include "common/term.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A run's first stderr line with numbers and absolute paths made alike, for grouping (new string). */
static char *normalised(const char *line)
{
	size_t n = strlen(line);
	char *out = repro_xmalloc(n * 6 + 1), *q = out;

	for (const char *p = line; *p != '\0';) {
		if (isdigit((unsigned char)*p)) {
			while (isdigit((unsigned char)*p))
				p++;
			*q++ = 'N';
		} else if (*p == '/' && (p == line || isspace((unsigned char)p[-1]) ||
					 strchr("'\"`(=:", p[-1]) != NULL)) {
			while (*p != '\0' && !isspace((unsigned char)*p) &&
			       strchr("'\"`),:", *p) == NULL)
				p++;
			memcpy(q, "<path>", 6);
			q += 6;
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	return out;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

static void exit_text(json_t *r, char *buf, size_t cap)
{
	json_t *e = json_object_get(r, "exit");

	if (json_object_get(e, "code") != NULL)
		snprintf(buf, cap, "%lld",
			 (long long)json_integer_value(json_object_get(e, "code")));
	else if (json_object_get(e, "signal") != NULL)
		snprintf(buf, cap, "%s", str(e, "signal"));
	else
		snprintf(buf, cap, "-");
}

/* Number the distinct behaviours (class, exit, normalised first line) in order: "group". */
static size_t group_runs(json_t *runs)
{
	json_t *seen = json_object(), *r;
	size_t i, groups = 0;

	json_array_foreach (runs, i, r) {
		char ex[32];
		cleanup_free char *norm = normalised(str(r, "stderr"));
		cleanup_free char *key = NULL;
		json_t *g;

		exit_text(r, ex, sizeof(ex));
		key = repro_xasprintf("%s\x1f%s\x1f%s", str(r, "class"), ex, norm);
		if ((g = json_object_get(seen, key)) == NULL) {
			g = json_integer((json_int_t)++groups);
			json_object_set_new(seen, key, g);
		}
		json_object_set(r, "group", g);
	}
	json_decref(seen);
	return groups;
}

static void counts(json_t *runs, size_t *by_class)
{
	size_t i;
	json_t *r;

	memset(by_class, 0, SWP_NCLASSES * sizeof(*by_class));
	json_array_foreach (runs, i, r) {
		int c = swp_class_parse(str(r, "class"));

		if (c >= 0)
			by_class[c]++;
	}
}

/* One cell: the text sanitised (common/term.h), padded to width when it is shorter. */
static void cell(FILE *out, const char *s, int width)
{
	size_t n = strlen(s);

	repro_term_write(out, s, n, false, false);
	for (int k = (int)n; k < width; k++)
		fputc(' ', out);
}

void swp_report_text(json_t *runs, FILE *out)
{
	size_t by_class[SWP_NCLASSES], i, groups = group_runs(runs);
	int w = 5;
	json_t *r;
	bool first = true;

	json_array_foreach (runs, i, r)
		if ((int)strlen(str(r, "id")) > w)
			w = (int)strlen(str(r, "id")) > 72 ? 72 : (int)strlen(str(r, "id"));
	fprintf(out, "%-*s  %-11s  %-7s  %s\n", w, "FAULT", "CLASS", "EXIT", "FIRST STDERR LINE");
	json_array_foreach (runs, i, r) {
		char ex[32];
		const char *why = str(r, "explain");

		exit_text(r, ex, sizeof(ex));
		cell(out, str(r, "id"), w);
		fputs("  ", out);
		cell(out, str(r, "class"), 11);
		fputs("  ", out);
		cell(out, ex, 7);
		fputs("  ", out);
		repro_term_puts(out, str(r, "stderr"));
		fputc('\n', out);
		if (*why != '\0') {
			fprintf(out, "%*s  explain: ", w, "");
			repro_term_puts(out, why);
			fputc('\n', out);
		}
		if (json_object_get(r, "error") != NULL) {
			fprintf(out, "%*s  repro: ", w, "");
			repro_term_puts(out, str(r, "error"));
			fputc('\n', out);
		}
	}
	counts(runs, by_class);
	fputc('\n', out);
	for (int c = 0; c < SWP_NCLASSES; c++) {
		if (by_class[c] == 0)
			continue;
		fprintf(out, "%s%s %zu", first ? "" : ", ", swp_class_name((enum swp_class)c),
			by_class[c]);
		first = false;
	}
	fprintf(out, "%s%zu fault%s, %zu distinct behaviour%s\n", first ? "" : "; ",
		json_array_size(runs), json_array_size(runs) == 1 ? "" : "s", groups,
		groups == 1 ? "" : "s");
}

/* s as XML text: the one sanitiser's markup variant (common/term.h). */
static void xml_text(FILE *out, const char *s)
{
	repro_term_puts_markup(out, s != NULL ? s : "");
}

int swp_report_junit(json_t *runs, unsigned fail_on, FILE *out)
{
	size_t i, failures = 0;
	json_t *r;

	json_array_foreach (runs, i, r) {
		int c = swp_class_parse(str(r, "class"));

		failures += c >= 0 && (fail_on & (1u << c)) ? 1 : 0;
	}
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"repro sweep\" tests=\"%zu\" failures=\"%zu\">\n"
		"  <testsuite name=\"repro sweep\" tests=\"%zu\" failures=\"%zu\">\n",
		json_array_size(runs), failures, json_array_size(runs), failures);
	json_array_foreach (runs, i, r) {
		int c = swp_class_parse(str(r, "class"));
		char ex[32];

		exit_text(r, ex, sizeof(ex));
		fputs("    <testcase classname=\"repro.sweep.", out);
		xml_text(out, str(r, "area"));
		fputs("\" name=\"", out);
		xml_text(out, str(r, "id"));
		fprintf(out, "\" time=\"%.3f\">\n",
			(double)json_integer_value(json_object_get(r, "duration_ns")) / 1e9);
		if (c >= 0 && (fail_on & (1u << c))) {
			fputs("      <failure type=\"", out);
			xml_text(out, str(r, "class"));
			fputs("\" message=\"", out);
			xml_text(out, str(r, "class"));
			fprintf(out, " (exit %s)\">", ex);
			xml_text(out, str(r, "rule"));
			fputc('\n', out);
			xml_text(out, str(r, "stderr"));
			if (*str(r, "explain") != '\0') {
				fputc('\n', out);
				xml_text(out, str(r, "explain"));
			}
			fputs("</failure>\n", out);
		}
		fputs("      <system-err>", out);
		xml_text(out, str(r, "stderr"));
		fputs("</system-err>\n    </testcase>\n", out);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	return ferror(out) ? -1 : 0;
}

json_t *swp_report_json(json_t *command, const char *shard, size_t npoints, json_t *runs)
{
	size_t by_class[SWP_NCLASSES];
	json_t *summary = json_object();

	group_runs(runs);
	counts(runs, by_class);
	for (int c = 0; c < SWP_NCLASSES; c++)
		json_object_set_new(summary, swp_class_name((enum swp_class)c),
				    json_integer((json_int_t)by_class[c]));
	return json_pack("{s:s,s:i,s:O,s:s?,s:I,s:O,s:o}", "format", "repro-sweep", "version", 1,
			 "command", command, "shard", shard, "points", (json_int_t)npoints, "runs",
			 runs, "summary", summary);
}

static int by_id(const void *a, const void *b)
{
	return strcmp(str(*(json_t *const *)a, "id"), str(*(json_t *const *)b, "id"));
}

json_t *swp_merge(const char *const *paths, size_t n, json_t **command, size_t *npoints,
		  struct repro_err **err)
{
	json_t *byid = json_object(), *all = json_array(), *v;
	const char *key;
	json_t **sorted;
	size_t k = 0;

	*command = NULL;
	*npoints = 0;
	for (size_t i = 0; i < n; i++) {
		json_error_t je;
		json_t *doc = json_load_file(paths[i], 0, &je), *r;
		size_t j;

		if (doc == NULL || strcmp(str(doc, "format"), "repro-sweep") != 0 ||
		    json_integer_value(json_object_get(doc, "version")) != 1 ||
		    !json_is_array(json_object_get(doc, "runs"))) {
			repro_err_set(
				err, EINVAL,
				"sweep --merge: '%s' is not a sweep's --json of version 1 (%s)",
				paths[i],
				doc == NULL ? je.text : "no \"runs\", or another version");
			json_decref(doc);
			json_decref(byid);
			json_decref(all);
			if (*command != NULL)
				json_decref(*command);
			*command = NULL;
			return NULL;
		}
		if (*command == NULL)
			*command = json_incref(json_object_get(doc, "command"));
		if ((size_t)json_integer_value(json_object_get(doc, "points")) > *npoints)
			*npoints = (size_t)json_integer_value(json_object_get(doc, "points"));
		json_array_foreach (json_object_get(doc, "runs"), j, r)
			if (json_is_string(json_object_get(r, "id")))
				json_object_set(byid, str(r, "id"), r);
		json_decref(doc);
	}
	sorted = repro_xcalloc(json_object_size(byid) + 1, sizeof(*sorted));
	json_object_foreach (byid, key, v)
		sorted[k++] = v;
	qsort(sorted, k, sizeof(*sorted), by_id);
	for (size_t i = 0; i < k; i++)
		json_array_append(all, sorted[i]);
	free(sorted);
	json_decref(byid);
	if (*command == NULL)
		*command = json_array();
	return all;
}

bool swp_fails(json_t *runs, unsigned fail_on)
{
	size_t i;
	json_t *r;

	json_array_foreach (runs, i, r) {
		int c = swp_class_parse(str(r, "class"));

		if (c >= 0 && (fail_on & (1u << c)))
			return true;
	}
	return false;
}
