/*
 * Redaction policy: which environment values and which parts of argv are
 * replaced by "<redacted>" (recorder/redact.h).  Everything is table-driven:
 * the secret words, the harmless environment names and the argument rules
 * below are the whole policy.
 */
#include "recorder/redact.h"
#include "recorder/jsonstr.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

/* A name holding one of these (any case) always names a secret. */
static const char *const secret_words[] = {
	"token", "secret", "password", "passwd", "key", "credential", "auth", "cookie", "session",
};

/*
 * Environment names (fnmatch(3) globs) whose values are harmless and help to
 * explain a failure: the issue's allowlist, plus the search paths and cache
 * folders that decide where a program looks for libraries, modules and data.
 */
static const char *const harmless_env[] = {
	"PATH",
	"HOME",
	"USER",
	"LOGNAME",
	"SHELL",
	"LANG",
	"LANGUAGE",
	"LC_ALL",
	"LC_CTYPE",
	"LC_COLLATE",
	"LC_MESSAGES",
	"LC_MONETARY",
	"LC_NUMERIC",
	"LC_TIME",
	"LC_ADDRESS",
	"LC_IDENTIFICATION",
	"LC_MEASUREMENT",
	"LC_NAME",
	"LC_PAPER",
	"LC_TELEPHONE",
	"TERM",
	"TZ",
	"PWD",
	"OLDPWD",
	"SHLVL",
	"HOSTNAME",
	"TMPDIR",
	"XDG_RUNTIME_DIR",
	"DISPLAY",
	"COLORTERM",
	"EDITOR",
	"PAGER",
	"_",
	"NO_COLOR",
	"COLUMNS",
	"LINES",
	"LD_LIBRARY_PATH",
	"LD_PRELOAD",
	"PYTHONPATH",
	"PYTHONHOME",
	"VIRTUAL_ENV",
	"XDG_CACHE_HOME",
	"XDG_CONFIG_HOME",
	"XDG_DATA_HOME",
	"HF_HOME",
};

/*
 * Rules applied to every argument, in order, each to the output of the one
 * before.  "@W@" stands for the alternation of secret_words (one
 * subexpression).  All are extended regexes compiled with REG_ICASE; group is
 * the subexpression that is replaced, at every match in the argument.
 */
struct arg_rule {
	const char *prev; /* the previous argument must match this, or NULL */
	const char *pattern; /* searched in the argument */
	int group;
};

static const struct arg_rule arg_rules[] = {
	/* --password VALUE: the whole VALUE, unless it is the next long option */
	{ .prev = "^-+[[:alnum:]_.-]*@W@[[:alnum:]_.-]*$",
	  .pattern = "^(-?[^-].*|-)$",
	  .group = 1 },
	/* curl -u user:password, --proxy-user user:password */
	{ .prev = "^(-u|--user|--proxy-user)$", .pattern = "^[^:]*:(.+)$", .group = 1 },
	{ .pattern = "^--(proxy-)?user=[^:]*:(.+)$", .group = 2 },
	/* --api-key=VALUE, DB_PASSWORD=VALUE as a whole argument: all the rest */
	{ .pattern = "^[[:alnum:]_.-]*@W@[[:alnum:]_.-]*=(.+)$", .group = 2 },
	/* the same inside a longer string ("sh -c" text, a URL query), bare or quoted */
	{ .pattern = "[[:alnum:]_.-]*@W@[[:alnum:]_.-]*='([^']*)'", .group = 2 },
	{ .pattern = "[[:alnum:]_.-]*@W@[[:alnum:]_.-]*=\"([^\"]*)\"", .group = 2 },
	{ .pattern = "[[:alnum:]_.-]*@W@[[:alnum:]_.-]*=([^[:space:]&;'\"]+)", .group = 2 },
	/* HTTP headers that carry credentials (curl -H, wget --header) */
	{ .pattern =
		  "(^|[[:space:]'\"=])((proxy-)?authorization|(set-)?cookie)[[:space:]]*:[[:space:]]*"
		  "([^'\"]+)",
	  .group = 5 },
	{ .pattern = "(^|[[:space:]'\"])[[:alnum:]_-]*@W@[[:alnum:]_-]*:[[:space:]]+([^'\"]+)",
	  .group = 3 },
	/* scheme://user:password@host (RFC 3986 userinfo): the user stays */
	{ .pattern = "[[:alpha:]][[:alnum:]+.-]*://[^/@:[:space:]]*:([^/@[:space:]]+)@",
	  .group = 1 },
};

#define N_SECRET_WORDS (sizeof(secret_words) / sizeof(secret_words[0]))
#define N_HARMLESS_ENV (sizeof(harmless_env) / sizeof(harmless_env[0]))
#define N_ARG_RULES (sizeof(arg_rules) / sizeof(arg_rules[0]))
/* more than the subexpressions of any rule above */
#define MAX_GROUPS 8

struct compiled_rule {
	regex_t pattern;
	regex_t prev;
	bool has_prev;
	int group;
};

struct rec_redact {
	struct compiled_rule rules[N_ARG_RULES];
	size_t n_rules; /* compiled so far */
	regex_t *extra;
	size_t n_extra; /* compiled so far */
	char **keep_env;
	size_t n_keep;
};

/* "(token|secret|...)" */
static char *secret_alternation(void)
{
	struct repro_sbuf b = { 0 };

	repro_sbuf_adds(&b, "(");
	for (size_t i = 0; i < N_SECRET_WORDS; i++) {
		if (i > 0)
			repro_sbuf_adds(&b, "|");
		repro_sbuf_adds(&b, secret_words[i]);
	}
	repro_sbuf_adds(&b, ")");
	return b.buf;
}

/* TMPL with every "@W@" replaced by WORDS, in a new buffer. */
static char *expand_words(const char *tmpl, const char *words)
{
	struct repro_sbuf b = { 0 };
	const char *at;

	repro_sbuf_adds(&b, "");
	while ((at = strstr(tmpl, "@W@")) != NULL) {
		repro_sbuf_add(&b, tmpl, (size_t)(at - tmpl));
		repro_sbuf_adds(&b, words);
		tmpl = at + 3;
	}
	repro_sbuf_adds(&b, tmpl);
	return b.buf;
}

static int compile(regex_t *re, const char *pattern, int flags, const char *what,
		   struct repro_err **err)
{
	char msg[256];
	int rc = regcomp(re, pattern, REG_EXTENDED | flags);

	if (rc == 0)
		return 0;
	regerror(rc, re, msg, sizeof(msg));
	return repro_err_set(err, EINVAL, "invalid %s regex '%s': %s", what, pattern, msg);
}

static int compile_rule(struct compiled_rule *cr, const struct arg_rule *rule, const char *words,
			struct repro_err **err)
{
	cleanup_free char *pattern = expand_words(rule->pattern, words);
	cleanup_free char *prev = rule->prev != NULL ? expand_words(rule->prev, words) : NULL;

	if (compile(&cr->pattern, pattern, REG_ICASE, "built-in", err) < 0)
		return -1;
	if (prev != NULL && compile(&cr->prev, prev, REG_ICASE | REG_NOSUB, "built-in", err) < 0) {
		regfree(&cr->pattern);
		return -1;
	}
	cr->has_prev = prev != NULL;
	cr->group = rule->group;
	return 0;
}

static size_t strv_len(const char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

static int compile_extras(struct rec_redact *r, const char *const *extra_regex,
			  struct repro_err **err)
{
	r->extra = repro_xcalloc(strv_len(extra_regex) + 1, sizeof(*r->extra));
	for (size_t i = 0; i < strv_len(extra_regex); i++) {
		if (compile(&r->extra[i], extra_regex[i], 0, "--redact", err) < 0)
			return -1;
		r->n_extra++;
	}
	return 0;
}

struct rec_redact *rec_redact_new(const char *const *keep_env, const char *const *extra_regex,
				  struct repro_err **err)
{
	cleanup_redact struct rec_redact *r = repro_xcalloc(1, sizeof(*r));
	cleanup_free char *words = secret_alternation();

	for (size_t i = 0; i < N_ARG_RULES; i++) {
		if (compile_rule(&r->rules[i], &arg_rules[i], words, err) < 0)
			return NULL;
		r->n_rules++;
	}
	if (compile_extras(r, extra_regex, err) < 0)
		return NULL;
	r->n_keep = strv_len(keep_env);
	r->keep_env = repro_xcalloc(r->n_keep + 1, sizeof(*r->keep_env));
	for (size_t i = 0; i < r->n_keep; i++)
		r->keep_env[i] = repro_xstrdup(keep_env[i]);
	return steal_ptr(&r);
}

void rec_redact_free(struct rec_redact *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n_rules; i++) {
		regfree(&r->rules[i].pattern);
		if (r->rules[i].has_prev)
			regfree(&r->rules[i].prev);
	}
	for (size_t i = 0; i < r->n_extra; i++)
		regfree(&r->extra[i]);
	free(r->extra);
	for (size_t i = 0; i < r->n_keep; i++)
		free(r->keep_env[i]);
	free(r->keep_env);
	free(r);
}

/* Names that hold credentials without a secret word: MYSQL_PWD, PGPASS, GH_PAT … */
static bool has_secret_suffix(const char *name)
{
	static const char *const suffixes[] = { "_PWD", "PASS", "_PAT" };
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t n = strlen(suffixes[i]);

		if (len > n && strcasecmp(name + len - n, suffixes[i]) == 0)
			return true;
	}
	return false;
}

static bool has_secret_word(const char *name)
{
	for (size_t i = 0; i < N_SECRET_WORDS; i++)
		if (strcasestr(name, secret_words[i]) != NULL)
			return true;
	return has_secret_suffix(name);
}

static bool matches_any(const char *name, const char *const *globs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

bool rec_redact_env_value(const struct rec_redact *r, const char *name)
{
	if (has_secret_word(name))
		return true;
	if (matches_any(name, harmless_env, N_HARMLESS_ENV))
		return false;
	return !matches_any(name, (const char *const *)r->keep_env, r->n_keep);
}

/*
 * Replace subexpression GROUP of every match of RE in *S by REC_REDACTED
 * (*S is replaced by a new buffer).  A match whose group is empty or unused
 * is copied and searching goes on after it.
 */
static void replace_all(char **s, const regex_t *re, int group)
{
	struct repro_sbuf out = { 0 };
	const char *p = *s;
	regmatch_t m[MAX_GROUPS];
	int flags = 0;

	repro_sbuf_adds(&out, "");
	while (*p != '\0' && regexec(re, p, MAX_GROUPS, m, flags) == 0) {
		regmatch_t g = m[group];

		if (g.rm_so < 0 || g.rm_eo == g.rm_so) {
			size_t step = m[0].rm_eo > 0 ? (size_t)m[0].rm_eo : 1;

			repro_sbuf_add(&out, p, step);
			p += step;
		} else {
			repro_sbuf_add(&out, p, (size_t)g.rm_so);
			repro_sbuf_adds(&out, REC_REDACTED);
			p += g.rm_eo;
		}
		flags = REG_NOTBOL;
	}
	repro_sbuf_adds(&out, p);
	free(*s);
	*s = out.buf;
}

char *rec_redact_arg(const struct rec_redact *r, const char *arg, const char *prev_arg)
{
	char *cur = repro_xstrdup(arg);

	for (size_t i = 0; i < r->n_rules; i++) {
		const struct compiled_rule *cr = &r->rules[i];

		if (cr->has_prev &&
		    (prev_arg == NULL || regexec(&cr->prev, prev_arg, 0, NULL, 0) != 0))
			continue;
		replace_all(&cur, &cr->pattern, cr->group);
	}
	for (size_t i = 0; i < r->n_extra; i++)
		replace_all(&cur, &r->extra[i], 0);
	return cur;
}

void rec_redact_note(json_t *names, const char *name)
{
	size_t i;
	json_t *v;

	if (names == NULL)
		return;
	json_array_foreach (names, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), name) == 0)
			return;
	json_array_append_new(names, rec_json_str(name, strlen(name)));
}

/* The value to store for NAME=VALUE, in a new buffer. */
static char *env_value(const struct rec_redact *r, const char *name, const char *value)
{
	if (rec_redact_env_value(r, name))
		return repro_xstrdup(REC_REDACTED);
	return rec_redact_arg(r, value, NULL);
}

json_t *rec_redact_env_json(const struct rec_redact *r, const char *const *envp, json_t *names)
{
	json_t *obj = json_object();

	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
		const char *eq = strchr(envp[i], '=');
		cleanup_free char *name = NULL;
		cleanup_free char *value = NULL;

		if (eq == NULL || eq == envp[i])
			continue;
		name = repro_xstrndup(envp[i], (size_t)(eq - envp[i]));
		value = env_value(r, name, eq + 1);
		if (strcmp(value, eq + 1) != 0)
			rec_redact_note(names, name);
		/* jansson keys must be UTF-8: an odd name is escaped like a value */
		if (json_object_set_new(obj, name, rec_json_str(value, strlen(value))) < 0) {
			json_t *key = rec_json_str(name, strlen(name));

			json_object_set_new(obj, json_string_value(key),
					    rec_json_str(value, strlen(value)));
			json_decref(key);
		}
	}
	return obj;
}

json_t *rec_redact_argv_json(const struct rec_redact *r, const char *const *argv, size_t argc,
			     const char *label, json_t *names)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < argc; i++) {
		cleanup_free char *v = rec_redact_arg(r, argv[i], i > 0 ? argv[i - 1] : NULL);

		if (strcmp(v, argv[i]) != 0) {
			cleanup_free char *what = repro_xasprintf("%s[%zu]", label, i);

			rec_redact_note(names, what);
		}
		json_array_append_new(arr, rec_json_str(v, strlen(v)));
	}
	return arr;
}
