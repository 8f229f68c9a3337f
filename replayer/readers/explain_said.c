#include "replayer/readers/explain_said.h"
#include "replayer/readers/show_internal.h"
#include "bundles/json_util.h"
#include "common/map.h"
#include "common/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What one process said: the text as output.jsonl holds it, and its last line. */
struct said {
	char *text; /* owned */
	size_t len;
	char *line; /* owned: the quote, or NULL */
	bool discarded; /* output.jsonl "discarded": said to /dev/null */
};

struct xp_said_set {
	struct said *v;
	size_t n;
	struct repro_map *by_pid;
};

/* output.jsonl keeps 8 KiB of bytes; escaped as \xNN each is 4 characters. */
#define TEXT_MAX (32u * 1024u)

struct xp_said_set *xp_said_new(void)
{
	struct xp_said_set *s = repro_xcalloc(1, sizeof(*s));

	s->by_pid = repro_map_new();
	return s;
}

void xp_said_free(struct xp_said_set *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].text);
		free(s->v[i].line);
	}
	free(s->v);
	repro_map_free(s->by_pid);
	free(s);
}

/* Cut at most max bytes of s[0..len) at a UTF-8 character boundary; the length kept. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/* The last line of text[0..len) with something other than blanks in it, as a new string; NULL: none. */
static char *last_line(const char *text, size_t len)
{
	size_t end = len;

	while (end > 0) {
		size_t start = end, keep, lo;
		bool blank = true;

		while (start > 0 && text[start - 1] != '\n')
			start--;
		for (size_t i = start; i < end && blank; i++)
			blank = text[i] == ' ' || text[i] == '\t' || text[i] == '\r';
		if (!blank) {
			lo = start;
			while (lo < end && (text[lo] == ' ' || text[lo] == '\t'))
				lo++;
			while (end > lo && (text[end - 1] == '\r' || text[end - 1] == ' '))
				end--;
			keep = utf8_cut(text + lo, end - lo, XP_SAID_QUOTE_MAX);
			return keep < end - lo ? repro_xasprintf("%.*s…", (int)keep, text + lo)
					       : repro_xasprintf("%.*s", (int)keep, text + lo);
		}
		end = start > 0 ? start - 1 : 0;
	}
	return NULL;
}

int xp_said_on_line(void *ctx, json_t *o, size_t lineno, struct repro_err **err)
{
	struct xp_said_set *s = ctx;
	json_t *text = json_object_get(o, "text");
	int32_t pid = (int32_t)bndl_json_int(o, "pid", 0);
	size_t len, at;
	struct said *d;

	if (!json_is_string(text) || pid <= 0)
		return 0;
	if (s->n >= RPL_SHOW_MAX_PROCS)
		return repro_err_set(err, EPROTO, "output.jsonl line %zu: more than %u processes",
				     lineno, RPL_SHOW_MAX_PROCS);
	len = json_string_length(text);
	if (len > TEXT_MAX)
		len = TEXT_MAX; /* a hostile bundle: the end is what matters */
	if (repro_map_get(s->by_pid, (uint32_t)pid, &at))
		return 0; /* one line per process; a second is hostile and ignored */
	s->v = repro_xgrow(s->v, s->n, sizeof(*s->v));
	d = &s->v[s->n];
	d->len = len;
	d->text = repro_xmalloc(len + 1);
	memcpy(d->text, json_string_value(text) + json_string_length(text) - len, len);
	d->text[len] = '\0';
	d->line = last_line(d->text, len);
	d->discarded = json_is_true(json_object_get(o, "discarded"));
	repro_map_put(s->by_pid, (uint32_t)pid, s->n++);
	return 0;
}

static const struct said *said_of(const struct xp_said_set *s, int32_t pid)
{
	size_t i;

	return repro_map_get(s->by_pid, (uint32_t)pid, &i) ? &s->v[i] : NULL;
}

bool xp_said_seen(const struct xp_said_set *s, int32_t pid)
{
	const struct said *d = said_of(s, pid);

	return d != NULL && d->line != NULL && !d->discarded;
}

const char *xp_said_line(const struct xp_said_set *s, int32_t pid)
{
	const struct said *d = said_of(s, pid);

	return d != NULL ? d->line : NULL;
}

/* strerror(3) of an errno name ("EACCES" -> "Permission denied"), or NULL. */
static const char *errno_message(const char *name)
{
	if (name == NULL || name[0] != 'E')
		return NULL;
	for (int e = 1; e < 134; e++) {
		const char *n = strerrorname_np(e);

		if (n != NULL && strcmp(n, name) == 0)
			return strerror(e);
	}
	return NULL;
}

static bool mentions(const struct said *d, const char *needle, size_t min)
{
	size_t n = needle != NULL ? strlen(needle) : 0;

	return n >= min && memmem(d->text, d->len, needle, n) != NULL;
}

/* The needles of f: path, its file name, host name, address, errno message (a network finding's too). */
static bool said_names(const struct said *d, const struct xp_finding *f)
{
	const char *base = f->path != NULL ? strrchr(f->path, '/') : NULL;
	const char *host = f->net != NULL ? bndl_json_str(f->net, "name") : NULL;
	const char *ip = f->net != NULL ? bndl_json_str(f->net, "ip") : NULL;

	const char *net_errno = f->net != NULL ? bndl_json_str(f->net, "errno") : NULL;

	return mentions(d, f->path, 2) || (base != NULL && mentions(d, base + 1, 3)) ||
	       mentions(d, host, 3) || mentions(d, ip, 7) ||
	       mentions(d, errno_message(f->errname), 6) ||
	       mentions(d, errno_message(net_errno), 6);
}

double xp_said_bonus(const struct xp_said_set *s, const struct xp_finding *f, const int32_t *chain,
		     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct said *d = said_of(s, chain[i]);

		if (d != NULL && said_names(d, f))
			return XP_SAID_BONUS;
	}
	return 0;
}

const char *xp_said_text(const struct xp_said_set *s, int32_t pid, size_t *len)
{
	const struct said *d = said_of(s, pid);

	*len = d != NULL ? d->len : 0;
	return d != NULL ? d->text : NULL;
}

/* ", a file of 411 bytes, mode 0644, owner uid 0 gid 0" of a files.jsonl meta (borrowed). */
static void put_meta(FILE *f, json_t *meta)
{
	const char *type = bndl_json_str(meta, "type"), *mode = bndl_json_str(meta, "mode");
	json_t *size = json_object_get(meta, "size");

	if (!json_is_object(meta)) {
		fputs(" (gone at the end of the run)", f);
		return;
	}
	if (type != NULL && strcmp(type, "file") == 0 && json_is_integer(size) &&
	    json_integer_value(size) == 0)
		fputs(" (an empty file", f);
	else if (type != NULL && strcmp(type, "file") == 0 && json_is_integer(size))
		fprintf(f, " (a file of %" JSON_INTEGER_FORMAT " bytes", json_integer_value(size));
	else
		fprintf(f, " (a %s", type != NULL ? type : "file");
	if (mode != NULL)
		fprintf(f, ", mode %s", mode);
	if (json_is_integer(json_object_get(meta, "uid")))
		fprintf(f, ", owner uid %" PRId64 " gid %" PRId64, bndl_json_int(meta, "uid", 0),
			bndl_json_int(meta, "gid", 0));
	fputc(')', f);
}

void xp_said_explain(FILE *f, json_t *reason, const struct xp_finding *x, const struct xp_proc *p)
{
	size_t i;
	json_t *file;

	if (p != NULL)
		fprintf(f, "%s (pid %d)", p->label, (int)x->pid);
	else
		fprintf(f, "pid %d", (int)x->pid);
	if (p != NULL && p->exit_signal != NULL)
		fprintf(f, " was killed by %s", p->exit_signal);
	else if (p != NULL && p->has_exit)
		fprintf(f, " exited with status %d", p->exit_code);
	else
		fputs(" failed", f);
	fputs(" and said why; no call it made failed in a way that explains it", f);
	json_array_foreach (x->named, i, file) {
		fputs(i == 0 ? "; it named " : ", ", f);
		fputs(bndl_json_str(file, "path"), f);
		put_meta(f, json_object_get(file, "meta"));
	}
	json_object_set_new(reason, "what", json_string("program_said"));
	json_object_set_new(reason, "files",
			    x->named != NULL ? json_incref(x->named) : json_array());
}
