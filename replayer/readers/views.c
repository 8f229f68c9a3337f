/*
 * The member views of `repro show` (--files, --net, --host) and the failed
 * paths and network attempts of the summary, each line with the facts that
 * explain it (docs/bundle-format.md: files.jsonl "ancestors" and "mount",
 * network.jsonl "outcome").
 */
#include "replayer/readers/show_internal.h"
#include "bundles/members.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* "dir 0755 0:0" for a meta object, or "missing". */
static void put_meta(FILE *out, json_t *meta)
{
	if (!json_is_object(meta)) {
		fputs("missing", out);
		return;
	}
	repro_term_puts(out, bndl_json_str(meta, "type"));
	fputc(' ', out);
	repro_term_puts(out, bndl_json_str(meta, "mode"));
	fprintf(out, " owner %" PRId64 ":%" PRId64, bndl_json_int(meta, "uid", -1),
		bndl_json_int(meta, "gid", -1));
}

static bool has_option(json_t *mount, const char *key, const char *opt)
{
	size_t i;
	json_t *v;

	json_array_foreach (json_object_get(mount, key), i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), opt) == 0)
			return true;
	return false;
}

/*
 * Why a path failed, from its own facts: the first missing component for
 * ENOENT/ENOTDIR, a read-only mount for EROFS, else the nearest existing
 * directory (whose mode and owner decide EACCES/EPERM).
 */
static void put_explanation(FILE *out, json_t *f)
{
	const char *err = bndl_json_str(f, "errno");
	json_t *anc = json_object_get(f, "ancestors"), *mount = json_object_get(f, "mount"), *a;
	json_t *missing = NULL, *nearest = NULL;
	size_t i;

	json_array_foreach (anc, i, a) {
		if (!json_is_object(json_object_get(a, "meta")))
			missing =
				a; /* ancestors go up towards /: the last missing one is the first component */
		else if (nearest == NULL)
			nearest = a;
	}
	if (err != NULL && strcmp(err, "EROFS") == 0 && json_is_object(mount) &&
	    (has_option(mount, "options", "ro") || has_option(mount, "super_options", "ro"))) {
		fputs(" - read-only mount ", out);
		repro_term_puts(out, bndl_json_str(mount, "mount_point"));
		return;
	}
	if (err != NULL && (strcmp(err, "ENOENT") == 0 || strcmp(err, "ENOTDIR") == 0) &&
	    missing != NULL) {
		fputs(" - missing: ", out);
		repro_term_puts(out, bndl_json_str(missing, "path"));
		return;
	}
	if (nearest != NULL) {
		fputs(" - ", out);
		repro_term_puts(out, bndl_json_str(nearest, "path"));
		fputs(": ", out);
		put_meta(out, json_object_get(nearest, "meta"));
	}
	if (json_is_object(mount) && has_option(mount, "options", "noexec")) {
		fputs(", noexec mount ", out);
		repro_term_puts(out, bndl_json_str(mount, "mount_point"));
	}
}

static void put_ops(FILE *out, json_t *ops)
{
	size_t i;
	json_t *v;

	json_array_foreach (ops, i, v) {
		fputs(i ? "," : "", out);
		repro_term_puts(out, json_string_value(v));
	}
}

/* An errno name from the bundle, padded to 7 columns; control bytes escaped (hostile input). */
static void put_errno(FILE *out, const char *e, bool color)
{
	size_t len = e != NULL ? strlen(e) : 1;

	fputs(color ? RED : "", out);
	repro_term_puts(out, e != NULL ? e : "-");
	fputs(color ? RESET : "", out);
	for (; len < 7; len++)
		fputc(' ', out);
}

struct lines {
	FILE *out;
	bool color;
	bool failed_only;
	size_t limit, shown, total;
	bool lookups_last; /* failed paths: what matters first, plain lookups after */
	/* the plain lookups held back, as printed (at most limit lines; all when 0) */
	char *later;
	size_t later_len, nlater, later_total;
	size_t *later_end; /* end offset of each held line (repro_xgrow) */
	FILE *later_f;
	struct rpl_sockidx *socks; /* or NULL: connects learnt for the Time section */
};

/* Whether a line (errno e, NULL when it succeeded) is shown: counted, and not past the limit. */
static bool take(struct lines *l, const char *e)
{
	if (l->failed_only && e == NULL)
		return false;
	l->total++;
	if (l->limit != 0 && l->shown >= l->limit)
		return false;
	l->shown++;
	return true;
}

/* A failure that is more than a lookup: not ENOENT, or a path it meant to create, write, run. */
static bool matters(json_t *f, const char *e)
{
	size_t i;
	json_t *op;

	if (strcmp(e, "ENOENT") != 0)
		return true;
	json_array_foreach (json_object_get(f, "ops"), i, op)
		if (json_is_string(op) && strcmp(json_string_value(op), "stat") != 0 &&
		    strcmp(json_string_value(op), "read") != 0)
			return true;
	return false;
}

static void put_file_line(FILE *out, bool color, json_t *f, const char *e)
{
	fputs("  ", out);
	put_errno(out, e != NULL ? e : "ok", color && e != NULL);
	fputc(' ', out);
	repro_term_puts(out, bndl_json_str(f, "path"));
	fputs(" (", out);
	put_ops(out, json_object_get(f, "ops"));
	fputc(')', out);
	if (e != NULL) {
		put_explanation(out, f);
	} else {
		fputs(" ", out);
		put_meta(out, json_object_get(f, "meta"));
	}
	fputc('\n', out);
}

/* Hold a plain lookup back, printed, for after what matters (one pass over files.jsonl). */
static void hold_later(struct lines *l, json_t *f, const char *e)
{
	l->later_total++;
	if (l->limit != 0 && l->nlater >= l->limit)
		return;
	if (l->later_f == NULL)
		l->later_f = open_memstream(&l->later, &l->later_len);
	if (l->later_f == NULL)
		return;
	put_file_line(l->later_f, l->color, f, e);
	(void)fflush(l->later_f);
	l->later_end = repro_xgrow(l->later_end, l->nlater, sizeof(*l->later_end));
	l->later_end[l->nlater++] = l->later_len;
}

/* Print the lookups held back (when print), under what is left of the limit. */
static void put_later(struct lines *l, bool print)
{
	size_t room = l->limit == 0 ? l->nlater : l->limit > l->shown ? l->limit - l->shown : 0;
	size_t n = room < l->nlater ? room : l->nlater;

	if (l->later_f != NULL)
		fclose(l->later_f);
	l->later_f = NULL;
	if (print && n > 0)
		fwrite(l->later, 1, l->later_end[n - 1], l->out);
	l->shown += n;
	l->total += l->later_total;
	free(l->later);
	free(l->later_end);
	l->later = NULL;
	l->later_end = NULL;
}

static int on_file(void *ctx, json_t *f, size_t lineno, struct repro_err **err)
{
	struct lines *l = ctx;
	const char *e = bndl_json_str(f, "errno");

	if (l->lookups_last && e != NULL && !matters(f, e)) {
		hold_later(l, f, e);
		return 0;
	}
	if (!take(l, e))
		return 0;
	put_file_line(l->out, l->color, f, e);
	return 0;
}

static void put_address(FILE *out, json_t *n)
{
	const char *fam = bndl_json_str(n, "family");

	if (bndl_json_str(n, "ip") != NULL) {
		bool v6 = fam != NULL && strcmp(fam, "AF_INET6") == 0;

		fputs(v6 ? "[" : "", out);
		repro_term_puts(out, bndl_json_str(n, "ip"));
		fprintf(out, "%s:%" PRId64, v6 ? "]" : "", bndl_json_int(n, "port", 0));
	} else if (bndl_json_str(n, "path") != NULL) {
		repro_term_puts(out, bndl_json_str(n, "path"));
	} else if (bndl_json_str(n, "abstract") != NULL) {
		fputc('@', out);
		repro_term_puts(out, bndl_json_str(n, "abstract"));
	} else {
		repro_term_puts(out, fam != NULL ? fam : "?");
	}
}

/* A DNS lookup: name and type, outcome, server. */
static void put_lookup(struct lines *l, json_t *n, const char *failure)
{
	json_t *answers = json_object_get(n, "answers");
	size_t i;
	json_t *a;

	fputs("  dns ", l->out);
	repro_term_puts(l->out, bndl_json_str(n, "name"));
	fputc(' ', l->out);
	repro_term_puts(l->out, bndl_json_str(n, "qtype"));
	fputs(" -> ", l->out);
	if (failure != NULL)
		fputs(l->color ? RED : "", l->out);
	repro_term_puts(l->out, bndl_json_str(n, "outcome"));
	if (failure != NULL)
		fputs(l->color ? RESET : "", l->out);
	json_array_foreach (answers, i, a) {
		fputs(i ? ", " : " ", l->out);
		repro_term_puts(l->out, json_string_value(a));
	}
	fputs(" via ", l->out);
	put_address(l->out, n);
	fputs(" (", l->out);
	repro_term_puts(l->out, bndl_json_str(n, "transport"));
	if (bndl_json_int(n, "tries", 1) > 1)
		fprintf(l->out, ", %" PRId64 " tries", bndl_json_int(n, "tries", 1));
	fputc(')', l->out);
}

static void put_attempt(struct lines *l, json_t *n, const char *e)
{
	fputs("  ", l->out);
	repro_term_puts(l->out, bndl_json_str(n, "syscall"));
	fputc(' ', l->out);
	if (bndl_json_str(n, "name") != NULL) {
		repro_term_puts(l->out, bndl_json_str(n, "name"));
		fputs(" (", l->out);
		put_address(l->out, n);
		fputc(')', l->out);
	} else {
		put_address(l->out, n);
	}
	fputs(" -> ", l->out);
	repro_term_puts(l->out, bndl_json_str(n, "outcome"));
	if (e != NULL) {
		fprintf(l->out, " (%s", l->color ? RED : "");
		repro_term_puts(l->out, e);
		fprintf(l->out, "%s)", l->color ? RESET : "");
	}
}

static int on_net(void *ctx, json_t *n, size_t lineno, struct repro_err **err)
{
	struct lines *l = ctx;
	const char *kind = bndl_json_str(n, "kind"), *outcome = bndl_json_str(n, "outcome");
	bool dns = kind != NULL && strcmp(kind, "dns") == 0;
	/* a lookup failed when it got no address: its outcome stands for an errno */
	const char *e = dns ? (outcome != NULL && strcmp(outcome, "answered") != 0 ? outcome : NULL)
			    : bndl_json_str(n, "errno");
	json_t *dur = json_object_get(n, "dur_ns");

	if (l->socks != NULL)
		(void)rpl_sockidx_add(l->socks, n);
	if (!take(l, e))
		return 0;
	if (dns)
		put_lookup(l, n, e);
	else
		put_attempt(l, n, e);
	fprintf(l->out, ", pid %" PRId64, bndl_json_int(n, "pid", 0));
	if (json_is_integer(dur))
		fprintf(l->out, ", %.1f ms", (double)json_integer_value(dur) / 1e6);
	fputc('\n', l->out);
	return 0;
}

static int section(struct bndl_reader *r, const char *member, const char *title, bndl_line_fn fn,
		   struct lines *l, struct repro_err **err)
{
	int has = bndl_reader_has(r, member, err);

	if (has <= 0)
		return has;
	fprintf(l->out, "\n%s%s%s\n", l->color ? BOLD : "", title, l->color ? RESET : "");
	if (bndl_reader_foreach(r, member, fn, l, err) < 0) {
		put_later(l, false);
		return -1;
	}
	put_later(l, true); /* then the plain lookups, under the same limit */
	if (l->total == 0)
		fputs("  none\n", l->out);
	else if (l->total > l->shown)
		fprintf(l->out, "  ... %zu more (repro show --%s)\n", l->total - l->shown,
			strcmp(member, BNDL_FILES_JSONL) == 0 ? "files" : "net");
	return 0;
}

int rpl_views_failed(struct bndl_reader *r, FILE *out, bool color, size_t limit,
		     struct rpl_time *time, struct repro_err **err)
{
	struct lines files = { .out = out,
			       .color = color,
			       .failed_only = true,
			       .limit = limit,
			       .lookups_last = true },
		     net = { .out = out, .color = color, .failed_only = true, .limit = limit };

	if (time != NULL && time->socks.by_fd == NULL)
		rpl_sockidx_init(&time->socks);
	net.socks = time != NULL ? &time->socks : NULL;
	if (section(r, BNDL_NETWORK_JSONL, "Failed network attempts", on_net, &net, err) < 0)
		return -1;
	if (time != NULL && rpl_time_load(r, time, err) < 0)
		return -1;
	return section(r, BNDL_FILES_JSONL, "Failed paths", on_file, &files, err);
}

/* ---- --host ---- */

/* Width of the names of --host's lines: the longest ("nsswitch hosts") and two spaces. */
#define HOST_KEY_WIDTH 16

/* "  umask           0022": "?" when the bundle does not say, "none" for an empty value. */
static void put_kv(FILE *out, const char *key, const char *value)
{
	fprintf(out, "  %-*s", HOST_KEY_WIDTH, key);
	repro_term_puts(out, value == NULL ? "?" : value[0] == '\0' ? "none" : value);
	fputc('\n', out);
}

static void put_list(FILE *out, const char *key, json_t *arr)
{
	size_t i;
	json_t *v;

	fprintf(out, "  %-*s", HOST_KEY_WIDTH, key);
	if (json_array_size(arr) == 0)
		fputs(json_is_array(arr) ? "none" : "?", out);
	json_array_foreach (arr, i, v) {
		fputs(i ? ", " : "", out);
		if (json_is_string(v))
			repro_term_puts(out, json_string_value(v));
		else if (json_is_integer(v))
			fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	}
	fputc('\n', out);
}

/* An rlimit value of host.json (a number or "unlimited"): its words, in buf (cap bytes). */
static const char *limit_words(json_t *v, char *buf, size_t cap)
{
	if (json_is_string(v) && strcmp(json_string_value(v), "unlimited") == 0)
		return "unlimited";
	if (!json_is_integer(v))
		return "?";
	snprintf(buf, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	return buf;
}

static void show_host(json_t *h, FILE *out)
{
	json_t *k = json_object_get(h, "kernel"), *d = json_object_get(h, "distribution");
	json_t *caps = json_object_get(h, "capabilities"), *dns = json_object_get(h, "dns");
	json_t *nofile = json_object_get(json_object_get(h, "rlimits"), "NOFILE");
	char ids[128];

	put_kv(out, "kernel", bndl_json_str(k, "release"));
	put_kv(out, "distribution", bndl_json_str(d, "pretty_name"));
	put_kv(out, "arch", bndl_json_str(h, "arch"));
	put_kv(out, "hostname", bndl_json_str(h, "hostname"));
	snprintf(ids, sizeof(ids), "uid %" PRId64 " gid %" PRId64, bndl_json_int(h, "uid", -1),
		 bndl_json_int(h, "gid", -1));
	put_kv(out, "ids", ids);
	put_list(out, "groups", json_object_get(h, "groups"));
	put_kv(out, "umask", bndl_json_str(h, "umask"));
	put_kv(out, "capabilities", bndl_json_str(caps, "effective"));
	if (json_is_object(nofile)) {
		char text[96];

		snprintf(text, sizeof(text), "soft %s, hard %s",
			 limit_words(json_object_get(nofile, "soft"), (char[24]){ 0 }, 24),
			 limit_words(json_object_get(nofile, "hard"), (char[24]){ 0 }, 24));
		put_kv(out, "open files", text);
	}
	put_kv(out, "cwd", bndl_json_str(h, "cwd"));
	put_list(out, "nameservers",
		 json_object_get(json_object_get(dns, "resolv_conf"), "nameservers"));
	put_kv(out, "nsswitch hosts", bndl_json_str(dns, "nsswitch_hosts"));
	fprintf(out, "  %-*s%zu\n", HOST_KEY_WIDTH, "mounts",
		json_array_size(json_object_get(h, "mounts")));
	fprintf(out, "  %-*s%zu variables\n", HOST_KEY_WIDTH, "environment",
		json_object_size(json_object_get(h, "environment")));
	put_kv(out, "sandbox", bndl_json_str(h, "sandbox"));
}

/* ---- whole views ---- */

/* One line of a .jsonl member as an element of a JSON array written as it streams. */
struct dump {
	FILE *out;
	size_t n; /* elements written */
};

static int dump_line(void *ctx, json_t *o, size_t lineno, struct repro_err **err)
{
	struct dump *d = ctx;

	if (fputs(d->n++ > 0 ? ",\n" : "\n", d->out) == EOF ||
	    bndl_json_write(o, d->out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) < 0)
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	return 0;
}

/*
 * --json of a .jsonl view: one JSON array written line by line as it
 * streams (memory bounded by one line, not by the member).
 */
static int view_json(struct bndl_reader *r, const char *member, FILE *out, struct repro_err **err)
{
	struct dump d = { out, 0 };

	if (fputc('[', out) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	if (bndl_reader_foreach(r, member, dump_line, &d, err) < 0)
		return -1;
	if (fputs(d.n > 0 ? "\n]\n" : "]\n", out) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	return 0;
}

int rpl_views_show(struct bndl_reader *r, enum rpl_show_view view, bool json, FILE *out,
		   struct repro_err **err)
{
	const char *member = view == RPL_VIEW_FILES ? BNDL_FILES_JSONL
			     : view == RPL_VIEW_NET ? BNDL_NETWORK_JSONL
						    : BNDL_HOST_JSON;
	struct lines l = { .out = out };
	cleanup_json json_t *host = NULL;
	int has = bndl_reader_has(r, member, err);

	if (has < 0)
		return -1;
	if (has == 0)
		return repro_err_set(err, EPROTO,
				     "the bundle has no %s (written by an older repro?)", member);
	if (view == RPL_VIEW_HOST) {
		/* host.json comes before processes.jsonl: the command is checked before printing */
		host = bndl_reader_load(r, member, err);
		if (host == NULL || bndl_reader_check_command(r, err) < 0)
			return -1;
		if (!json) {
			show_host(host, out);
			return 0;
		}
		if (bndl_json_write(host, out,
				    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) < 0 ||
		    fputc('\n', out) == EOF)
			return repro_err_set(err, errno ? errno : EIO, "cannot write output");
		return 0;
	}
	if (json)
		return view_json(r, member, out, err);
	return bndl_reader_foreach(r, member, view == RPL_VIEW_FILES ? on_file : on_net, &l, err);
}
