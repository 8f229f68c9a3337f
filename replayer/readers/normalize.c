#include "replayer/readers/normalize.h"
#include "replayer/readers/show_internal.h"
#include "bundles/json_util.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* path starts with prefix as whole components: "/a/b" is under "/a", "/ab" is not. */
static size_t under(const char *path, const char *prefix)
{
	size_t n = prefix != NULL ? strlen(prefix) : 0;

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (n == 0 || strncmp(path, prefix, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return 0;
	return n;
}

/* Random characters of mkstemp: letters and digits, with at least two kinds among them. */
static bool looks_random(const char *s, size_t len)
{
	bool lower = false, upper = false, digit = false;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (islower(c))
			lower = true;
		else if (isupper(c))
			upper = true;
		else if (isdigit(c))
			digit = true;
		else if (c != '_')
			return false;
	}
	return (lower + upper + digit) >= 2;
}

/* Only letters, digits and '_' (any mix): a random name straight in a temp directory. */
static bool all_alnum(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/*
 * Append component c[0..len) to out, with a random temp part replaced by
 * XXXXXX.  in_tmp: the component sits straight in /tmp, /var/tmp or
 * /dev/shm, where any letters and digits after the dot are taken as random
 * (mktemp may draw only lowercase ones); elsewhere they must mix kinds, so
 * that "app.service" stays itself.
 */
/*
 * Temp suffixes that writers add to a name before renaming the file into
 * place: Python's bytecode "x.cpython-311.pyc.140221863" (the number is
 * id() of the path), "x.tmp.1234", "x.tmp1234", "x.1234.tmp": the number
 * becomes NNN.  Returns the length of the name before the number, or 0.
 */
static size_t temp_number(const char *c, size_t len, size_t *digits_end)
{
	static const char *const before[] = { ".pyc.", ".tmp.", ".tmp", ".part.", NULL };
	size_t d = len;

	while (d > 0 && c[d - 1] >= '0' && c[d - 1] <= '9')
		d--;
	if (len - d >= 2) {
		for (size_t i = 0; before[i] != NULL; i++) {
			size_t m = strlen(before[i]);

			if (d >= m && memcmp(c + d - m, before[i], m) == 0) {
				*digits_end = len;
				return d;
			}
		}
	}
	/* "x.1234.tmp" */
	if (len > 4 && memcmp(c + len - 4, ".tmp", 4) == 0) {
		size_t e = len - 4, b = e;

		while (b > 0 && c[b - 1] >= '0' && c[b - 1] <= '9')
			b--;
		if (e - b >= 2 && b > 0 && c[b - 1] == '.') {
			*digits_end = e;
			return b;
		}
	}
	return 0;
}

static void put_component(struct repro_sbuf *out, const char *c, size_t len, bool in_tmp)
{
	const char *dot = memrchr(c, '.', len);
	size_t tail = dot != NULL ? len - (size_t)(dot - c) - 1 : 0, num_end = 0;
	size_t num = temp_number(c, len, &num_end);

	if (num > 0) {
		repro_sbuf_add(out, c, num);
		repro_sbuf_adds(out, "NNN");
		repro_sbuf_add(out, c + num_end, len - num_end);
		return;
	}

	/* mktemp(1) and mkstemp(3): NAME.XXXXXX with 6 to 16 random characters */
	if (dot != NULL && dot != c && tail >= 6 && tail <= 16 &&
	    (in_tmp ? all_alnum(dot + 1, tail) : looks_random(dot + 1, tail))) {
		repro_sbuf_add(out, c, (size_t)(dot - c + 1));
		repro_sbuf_adds(out, "XXXXXX");
		return;
	}
	/* Python's tempfile: "tmp" + 8 characters of [a-z0-9_] */
	if (len == 11 && strncmp(c, "tmp", 3) == 0 &&
	    (in_tmp ? all_alnum(c + 3, 8) : looks_random(c + 3, 8))) {
		repro_sbuf_adds(out, "tmpXXXXXX");
		return;
	}
	repro_sbuf_add(out, c, len);
}

static bool is_tmp_dir(const char *start, const char *end)
{
	size_t n = (size_t)(end - start);

	return (n == 4 && memcmp(start, "/tmp", 4) == 0) ||
	       (n == 8 && memcmp(start, "/var/tmp", 8) == 0) ||
	       (n == 8 && memcmp(start, "/dev/shm", 8) == 0);
}

static void put_rest(struct repro_sbuf *out, const char *p)
{
	const char *start = p;
	bool proc = false;

	while (*p != '\0') {
		const char *slash = strchr(p, '/');
		size_t len = slash != NULL ? (size_t)(slash - p) : strlen(p);
		bool num = len > 0 && strspn(p, "0123456789") == len;

		if (proc && num)
			repro_sbuf_adds(out, "<pid>");
		else
			put_component(out, p, len, p > start && is_tmp_dir(start, p - 1));
		proc = len == 4 && strncmp(p, "proc", 4) == 0;
		p += len;
		if (*p == '/')
			repro_sbuf_add(out, p++, 1);
	}
}

char *rpl_norm_map(const struct rpl_norm *n, const char *path)
{
	size_t k;

	for (size_t i = 0; i < n->nmaps; i++)
		if ((k = under(path, n->map_from[i])) > 0)
			return repro_xasprintf("%s%s", n->map_to[i], path + k);
	return NULL;
}

char *rpl_norm_path(const struct rpl_norm *n, const char *path)
{
	char *mapped = rpl_norm_map(n, path);
	const char *p = mapped != NULL ? mapped : path;
	struct repro_sbuf out = { 0 };
	size_t k;

	repro_sbuf_adds(&out, "");
	if ((k = under(p, n->cwd)) > 0) {
		repro_sbuf_adds(&out, "<cwd>");
		p += k;
	} else if (n->home != NULL && strcmp(n->home, "/") != 0 && (k = under(p, n->home)) > 0) {
		repro_sbuf_adds(&out, "~");
		p += k;
	}
	put_rest(&out, p);
	free(mapped);
	return out.buf;
}

int rpl_norm_map_parse(char *text, const char **from, const char **to)
{
	char *eq = strchr(text, '=');

	if (eq == NULL || text[0] != '/' || eq[1] != '/')
		return -1;
	*eq = '\0';
	if (strspn(text, "/") == strlen(text) || strspn(eq + 1, "/") == strlen(eq + 1)) {
		*eq = '=';
		return -1; /* "/" would map every path: say what to map */
	}
	*from = text;
	*to = eq + 1;
	return 0;
}

char *rpl_exec_label(json_t *execs, const struct rpl_norm *n)
{
	json_t *argv = json_object_get(json_array_get(execs, json_array_size(execs) - 1), "argv");
	struct repro_sbuf out = { 0 };
	size_t i;
	json_t *a;

	repro_sbuf_adds(&out, "");
	json_array_foreach (argv, i, a) {
		const char *v = json_string_value(a);
		char *norm;

		if (i >= 3 || v == NULL) {
			repro_sbuf_adds(&out, i >= 3 ? " …" : "");
			break;
		}
		if (i == 0 && strrchr(v, '/') != NULL)
			v = strrchr(v, '/') + 1; /* argv[0] as a name */
		norm = n != NULL && v[0] == '/' ? rpl_norm_path(n, v) : repro_xstrdup(v);
		repro_sbuf_adds(&out, i ? " " : "");
		repro_sbuf_add(&out, norm, rpl_utf8_cut(norm, 60));
		free(norm);
	}
	return out.buf;
}

char *rpl_exit_words(json_t *exit)
{
	if (bndl_json_str(exit, "signal") != NULL)
		return repro_xasprintf("killed by %s", bndl_json_str(exit, "signal"));
	if (json_is_integer(json_object_get(exit, "code")))
		return repro_xasprintf("exited %" PRId64, bndl_json_int(exit, "code", 0));
	return repro_xstrdup("did not end while recorded");
}
