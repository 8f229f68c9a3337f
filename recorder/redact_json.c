/*
 * Redaction of every string of a JSON value and of the JSON members a
 * session derives into a directory (recorder/redact.h): the same rules as
 * for an argument (rec_redact_text()) over each string and object key.
 */
#include "recorder/redact.h"
#include "recorder/jsonstr.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The string V redacted, as a new JSON string, or NULL when nothing changed. */
static json_t *redacted_string(const struct rec_redact *r, const json_t *v)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v), n;
	cleanup_free char *red = rec_redact_text(r, s, len, &n);

	if (n == len && memcmp(red, s, len) == 0)
		return NULL;
	return rec_json_str(red, n);
}

static size_t walk(const struct rec_redact *r, json_t *v);

static size_t walk_array(const struct rec_redact *r, json_t *arr)
{
	size_t changed = 0;

	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *e = json_array_get(arr, i), *red;

		if (!json_is_string(e)) {
			changed += walk(r, e);
			continue;
		}
		red = redacted_string(r, e);
		if (red != NULL) {
			json_array_set_new(arr, i, red);
			changed++;
		}
	}
	return changed;
}

/* The keys of OBJ that change, then its values; a key that changes moves its value. */
static size_t walk_object(const struct rec_redact *r, json_t *obj)
{
	cleanup_json json_t *moved = json_array(); /* [old key, new key], … */
	size_t changed = 0;
	const char *key;
	json_t *val;

	json_object_foreach (obj, key, val) {
		cleanup_free char *red = rec_redact_text(r, key, strlen(key), NULL);

		if (strcmp(red, key) != 0)
			json_array_append_new(moved, json_pack("[ss]", key, red));
	}
	for (size_t i = 0; i < json_array_size(moved); i++) {
		json_t *pair = json_array_get(moved, i);
		const char *from = json_string_value(json_array_get(pair, 0));
		json_t *v = json_incref(json_object_get(obj, from));

		json_object_del(obj, from);
		json_object_set_new(obj, json_string_value(json_array_get(pair, 1)), v);
		changed++;
	}
	json_object_foreach (obj, key, val) {
		json_t *red;

		if (!json_is_string(val)) {
			changed += walk(r, val);
			continue;
		}
		red = redacted_string(r, val);
		if (red != NULL) {
			json_object_set_new(obj, key, red);
			changed++;
		}
	}
	return changed;
}

static size_t walk(const struct rec_redact *r, json_t *v)
{
	if (json_is_object(v))
		return walk_object(r, v);
	if (json_is_array(v))
		return walk_array(r, v);
	return 0;
}

size_t rec_redact_json(const struct rec_redact *r, json_t *v)
{
	return v != NULL ? walk(r, v) : 0;
}

/* One line of a JSON Lines member, redacted, without its newline: a new string. */
static char *redact_line(const struct rec_redact *r, const char *line, size_t len)
{
	cleanup_json json_t *v = json_loadb(line, len, 0, NULL);

	if (v == NULL)
		return rec_redact_text(r, line, len, NULL); /* not JSON: redacted as text */
	if (rec_redact_json(r, v) == 0)
		return repro_xstrndup(line, len);
	return json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
}

/* Write the redacted lines of IN to OUT; *CHANGED: some line changed. */
static int redact_lines(const struct rec_redact *r, FILE *in, FILE *out, bool *changed)
{
	cleanup_free char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	*changed = false;
	while ((n = getline(&line, &cap, in)) > 0) {
		size_t len = (size_t)n - (line[n - 1] == '\n');
		cleanup_free char *red = redact_line(r, line, len);

		*changed |= strlen(red) != len || memcmp(red, line, len) != 0;
		if (fputs(red, out) == EOF || (len < (size_t)n && fputc('\n', out) == EOF))
			return -1;
	}
	return ferror(in) ? -1 : 0;
}

/* Write the redacted JSON document of IN (host.json) to OUT, indented as it was made. */
static int redact_document(const struct rec_redact *r, FILE *in, FILE *out, bool *changed)
{
	cleanup_json json_t *v = json_loadf(in, 0, NULL);
	cleanup_free char *text = NULL;

	*changed = false;
	if (v == NULL)
		return 0; /* not JSON: packed as it is, a reader refuses it */
	if (rec_redact_json(r, v) == 0)
		return 0;
	*changed = true;
	text = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text == NULL || fputs(text, out) == EOF || fputc('\n', out) == EOF)
		return -1;
	return 0;
}

static void unlink_tmp(char **path)
{
	if (*path != NULL)
		unlink(*path);
	free(*path);
}
#define cleanup_tmp __attribute__((cleanup(unlink_tmp)))

int rec_redact_member_file(const struct rec_redact *r, const char *path, bool is_lines,
			   struct repro_err **err)
{
	cleanup_tmp char *tmp = repro_xasprintf("%s.redact-XXXXXX", path);
	cleanup_fclose FILE *in = NULL;
	cleanup_fclose FILE *out = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), tfd;
	struct stat sb;
	bool changed;

	if (fd < 0 && errno == ENOENT) {
		free(steal_ptr(&tmp));
		return 0;
	}
	if (fd < 0 || (in = fdopen(fd, "r")) == NULL) {
		if (fd >= 0)
			close(fd);
		free(steal_ptr(&tmp));
		return repro_err_set(err, errno, "cannot read '%s'", path);
	}
	tfd = mkostemp(tmp, O_CLOEXEC);
	if (tfd < 0) {
		int e = errno;

		free(steal_ptr(&tmp));
		return repro_err_set(err, e, "cannot create '%s'", path);
	}
	if (fstat(fd, &sb) < 0 || fchmod(tfd, sb.st_mode & 07777) < 0 ||
	    (out = fdopen(tfd, "w")) == NULL) {
		close(tfd);
		return repro_err_set(err, errno, "cannot write '%s'", path);
	}
	if ((is_lines ? redact_lines(r, in, out, &changed)
		      : redact_document(r, in, out, &changed)) < 0 ||
	    fflush(out) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot redact '%s'", path);
	if (!changed)
		return 0;
	if (rename(tmp, path) < 0)
		return repro_err_set(err, errno, "cannot replace '%s'", path);
	free(steal_ptr(&tmp));
	return 0;
}
