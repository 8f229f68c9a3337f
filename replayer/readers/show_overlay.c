/*
 * The "Overlay" section of `repro show`: what a run under `record
 * --overlay` wrote (docs/bundle-format.md "overlay.jsonl").
 */
#include "replayer/readers/show_internal.h"
#include "bundles/members.h"
#include "bundles/json_util.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

struct overlay_show {
	FILE *out; /* borrowed */
	size_t n; /* lines read */
};

/* One change, of the first RPL_OVERLAY_SHOWN: "  deleted   /path  (file, 2 bytes)". */
static int on_change(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	struct overlay_show *os = ctx;
	const char *change = bndl_json_str(obj, "change");
	const char *type = bndl_json_str(obj, "type");

	(void)lineno;
	(void)err;
	if (os->n++ >= RPL_OVERLAY_SHOWN)
		return 0;
	fputs("  ", os->out);
	repro_term_puts(os->out, change != NULL ? change : "?");
	fprintf(os->out, "%*s",
		change != NULL && strlen(change) < 10 ? (int)(10 - strlen(change)) : 1, "");
	repro_term_puts(os->out, bndl_json_str(obj, "path") ? bndl_json_str(obj, "path") : "?");
	fputs("  (", os->out);
	repro_term_puts(os->out, type != NULL ? type : "?");
	if (type != NULL && (strcmp(type, "file") == 0 || strcmp(type, "symlink") == 0))
		fprintf(os->out, ", %" PRId64 " bytes", bndl_json_int(obj, "size", 0));
	fputs(")\n", os->out);
	return 0;
}

/* "  under /a, /b: 7 changes, kept in 'DIR'", from the manifest's "overlay". */
static void put_summary(FILE *out, json_t *ov)
{
	json_t *paths = json_object_get(ov, "paths");
	int64_t changes = bndl_json_int(ov, "changes", 0);
	size_t i;
	json_t *p;

	fputs("  under ", out);
	json_array_foreach (paths, i, p) {
		fputs(i ? ", " : "", out);
		repro_term_puts(out, json_is_string(p) ? json_string_value(p) : "?");
	}
	fprintf(out, ": %" PRId64 " change%s", changes, changes == 1 ? "" : "s");
	if (json_is_true(json_object_get(ov, "truncated")))
		fputs(" (the listing stopped at its limit)", out);
	if (bndl_json_str(ov, "kept") != NULL) {
		fputs(", kept in '", out);
		repro_term_puts(out, bndl_json_str(ov, "kept"));
		fputc('\'', out);
	}
	fputs("; the host is unchanged\n", out);
}

int rpl_overlay_put(struct bndl_reader *r, FILE *out, bool color, struct repro_err **err)
{
	json_t *ov = json_object_get(bndl_reader_manifest(r), "overlay");
	struct overlay_show os = { .out = out };
	int has;

	if (!json_is_object(ov))
		return 0;
	has = bndl_reader_has(r, BNDL_OVERLAY_JSONL, err);
	if (has < 0)
		return -1;
	fprintf(out, color ? "\n" BOLD "Overlay" RESET "\n" : "\nOverlay\n");
	put_summary(out, ov);
	if (has == 1 && bndl_reader_foreach(r, BNDL_OVERLAY_JSONL, on_change, &os, err) < 0)
		return -1;
	if (os.n > RPL_OVERLAY_SHOWN)
		fprintf(out, "  ... %zu more\n", os.n - RPL_OVERLAY_SHOWN);
	return 0;
}
