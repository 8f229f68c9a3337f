/*
 * Redaction policy: which environment values and which parts of argv are
 * replaced by "<redacted>" (recorder/redact.h).  Everything is table-driven:
 * the secret words, the harmless environment names and the argument rules
 * below are the whole policy.
 */
#include "recorder/redact.h"
#include "recorder/jsonstr.h"
#include "recorder/redact_internal.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A name holding one of these (any case) always names a secret; lower case. */
#define WORD(w)                  \
	{                        \
		w, sizeof(w) - 1 \
	}
static const struct {
	const char *text;
	size_t len; /* bytes */
} secret_words[] = {
	WORD("token"),	    WORD("secret"),  WORD("password"),	 WORD("passwd"),
	WORD("passphrase"), WORD("key"),     WORD("credential"), WORD("auth"),
	WORD("cookie"),	    WORD("session"), WORD("signature"),
};
#undef WORD
#define SHORTEST_WORD 3 /* "key" */

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

#define N_SECRET_WORDS (sizeof(secret_words) / sizeof(secret_words[0]))
#define N_HARMLESS_ENV (sizeof(harmless_env) / sizeof(harmless_env[0]))

/*
 * Longest stretch of an argument that one regexec(3) call of a --redact
 * regex sees (bytes).  POSIX regexec is leftmost-longest: glibc tries every
 * start position and may run each attempt to the end of the string, which is
 * quadratic in the length of what it is given; pieces of at most this size
 * keep it linear in the argument (redact.h, rec_redact_arg).
 */
#define PIECE_MAX 4096u

struct rec_redact {
	regex_t *extra;
	size_t n_extra; /* compiled so far */
	/* owned: secret values learned (environments, argv), redacted wherever they appear */
	struct rec_known *known;
	char **keep_env;
	size_t n_keep;
	bool is_hostname_hidden; /* rec_redact_hide_hostname() */
};

/*
 * Character classes of the built-in rules, ASCII only (the recorder runs in
 * the C locale): bytes >= 0x80 are in none of them.
 */
static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(unsigned char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

/* [[:alnum:]_.-]: the characters of an option or variable name */
static bool is_name_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '.' || c == '-';
}

/* [[:alnum:]_-]: the characters of an HTTP header name */
static bool is_header_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '-';
}

/* [[:alnum:]+.-]: the characters of a URL scheme after its first letter (RFC 3986 3.1) */
static bool is_scheme_char(unsigned char c)
{
	return is_alnum(c) || c == '+' || c == '.' || c == '-';
}

/* [[:space:]] in the C locale */
static bool is_blank(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_quote(unsigned char c)
{
	return c == '\'' || c == '"';
}

static unsigned char ascii_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* The first letters of secret_words and of the credential header names. */
static bool is_word_initial(unsigned char lower)
{
	switch (lower) {
	case 'a':
	case 'c':
	case 'k':
	case 'p':
	case 's':
	case 't': return true;
	default: return false;
	}
}

/*
 * True when s[0..n) holds one of secret_words, in any case.  O(n): a
 * position is compared only with the words that start with its letter.
 */
static bool span_has_secret_word(const char *s, size_t n)
{
	if (n < SHORTEST_WORD)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = ascii_lower((unsigned char)s[i]);

		if (!is_word_initial(c))
			continue;
		for (size_t w = 0; w < N_SECRET_WORDS; w++) {
			size_t len = secret_words[w].len;

			if ((unsigned char)secret_words[w].text[0] == c && len <= n - i &&
			    strncasecmp(s + i, secret_words[w].text, len) == 0)
				return true;
		}
	}
	return false;
}

/* Whether s[0..n) is one of the parts of a name that say "password" or "signature" alone. */
static bool is_secret_part(const char *s, size_t n)
{
	static const char *const parts[] = { "pass", "pw", "pat", "sig" };

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strlen(parts[i]) == n && strncasecmp(s, parts[i], n) == 0)
			return true;
	return false;
}

/*
 * Names that hold credentials without a secret word: MYSQL_PWD, DBPASS,
 * GH_PAT …; upper case only, as environment names are written (so that
 * --bypass is no secret option).
 */
static bool has_secret_suffix(const char *name, size_t len)
{
	static const char *const suffixes[] = { "_PWD", "PASS", "_PAT" };

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t n = strlen(suffixes[i]);

		if (len > n && strncmp(name + len - n, suffixes[i], n) == 0)
			return true;
	}
	return false;
}

bool rec_redact_is_secret_name(const char *s, size_t n)
{
	size_t start = 0;

	while (start < n && s[start] == '-')
		start++;
	if (span_has_secret_word(s + start, n - start) || has_secret_suffix(s + start, n - start))
		return true;
	for (size_t i = start, part = start; i <= n; i++) {
		if (i < n && s[i] != '-' && s[i] != '_' && s[i] != '.')
			continue;
		if (is_secret_part(s + part, i - part))
			return true;
		part = i + 1;
	}
	return false;
}

bool rec_redact_is_setting_name(const char *s, size_t n)
{
	const char *dot = memrchr(s, '.', n);
	size_t last = dot != NULL ? (size_t)(dot - s) + 1 : 0;

	return n > last && rec_redact_is_secret_name(s + last, n - last);
}

/*
 * One pass of one rule over a string: s is read once from left to right,
 * and the output is built from the spans between the redacted ones.
 */
struct pass {
	const char *s; /* borrowed: the input of the pass, NUL-terminated */
	size_t len; /* bytes */
	size_t copied; /* s[0..copied) is in out already */
	struct repro_sbuf out;
	bool changed;
	struct rec_known *learn; /* borrowed, may be NULL: where what is redacted is learned */
};

/*
 * Learn the secret S[0..N): the pieces between the REC_REDACTED an earlier
 * rule left in it, each when long enough (rec_known_add()).  O(N).
 */
static void learn_span(struct rec_known *k, const char *s, size_t n)
{
	const size_t rlen = sizeof(REC_REDACTED) - 1;

	while (n > 0) {
		const char *r = memmem(s, n, REC_REDACTED, rlen);
		size_t piece = r != NULL ? (size_t)(r - s) : n;

		rec_known_add(k, s, piece);
		if (r == NULL)
			return;
		s += piece + rlen;
		n -= piece + rlen;
	}
}

/* Replace s[from..to) by REC_REDACTED; spans come in increasing order. */
static void pass_redact(struct pass *p, size_t from, size_t to)
{
	if (p->learn != NULL)
		learn_span(p->learn, p->s + from, to - from);
	repro_sbuf_add(&p->out, p->s + p->copied, from - p->copied);
	repro_sbuf_adds(&p->out, REC_REDACTED);
	p->copied = to;
	p->changed = true;
}

/*
 * The first quote (' or ") at or after FROM, or len.  FROM never decreases
 * during a pass, so *memo (the last answer; SIZE_MAX at first) makes all calls
 * of a pass together read each byte at most once.
 */
static size_t next_quote(const struct pass *p, size_t from, size_t *memo)
{
	if (*memo == SIZE_MAX || *memo < from) {
		size_t i = from;

		while (i < p->len && !is_quote((unsigned char)p->s[i]))
			i++;
		*memo = i;
	}
	return *memo;
}

/*
 * The built-in rules.  Each is one pass, O(len(s) + len(prev)): it keeps
 * the start of the current name or scheme run and looks at each run once,
 * where it ends; what the pass redacts it skips.  Each comment gives the
 * POSIX extended regex (REG_ICASE; W is any secret word) whose leftmost
 * matches, taken one after the other, the pass replaces: subexpression V.
 */

/* after PREV ^-+[[:alnum:]_.-]*W[[:alnum:]_.-]*$ (--password VALUE): ^(V:-?[^-].*|-)$ */
static void rule_after_secret_option(struct pass *p, const char *prev)
{
	size_t n = prev != NULL ? strlen(prev) : 0;

	if (n == 0 || prev[0] != '-' || p->len == 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (!is_name_char((unsigned char)prev[i]))
			return;
	if (!rec_redact_is_secret_name(prev, n))
		return;
	if (p->len > 1 && p->s[0] == '-' && p->s[1] == '-')
		return; /* the next long option, not a value */
	pass_redact(p, 0, p->len);
}

/* The password of "user:password" from s[from]: ^[^:]*:(V:.+)$ */
static void redact_user_password(struct pass *p, size_t from)
{
	const char *colon = memchr(p->s + from, ':', p->len - from);

	if (colon != NULL && (size_t)(colon - p->s) + 1 < p->len)
		pass_redact(p, (size_t)(colon - p->s) + 1, p->len);
}

/* after PREV ^(-u|--user|--proxy-user)$ (curl): ^[^:]*:(V:.+)$ */
static void rule_user_after_option(struct pass *p, const char *prev)
{
	if (prev != NULL && (strcasecmp(prev, "-u") == 0 || strcasecmp(prev, "--user") == 0 ||
			     strcasecmp(prev, "--proxy-user") == 0))
		redact_user_password(p, 0);
}

/* ^--(proxy-)?user=[^:]*:(V:.+)$, and ^-u[^:]*:(V:.+)$ (curl -ubob:VALUE, glued) */
static void rule_user_option(struct pass *p, const char *prev)
{
	(void)prev;
	if (strncasecmp(p->s, "--user=", 7) == 0)
		redact_user_password(p, 7);
	else if (strncasecmp(p->s, "--proxy-user=", 13) == 0)
		redact_user_password(p, 13);
	else if (p->len > 2 && strncasecmp(p->s, "-u", 2) == 0)
		redact_user_password(p, 2);
}

/* Whether s[0..n) is a secret option word: ^-+[[:alnum:]_.-]*W[[:alnum:]_.-]*$ */
static bool is_secret_option(const char *s, size_t n)
{
	if (n < 2 || s[0] != '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_name_char((unsigned char)s[i]))
			return false;
	return rec_redact_is_secret_name(s, n);
}

/*
 * after PREV ^[[:alnum:]]+[_.][[:alnum:]_.]*W…$ without a dash (a setting
 * named as a word, `aws configure set aws_secret_access_key VALUE`,
 * `git config db.password VALUE`): ^(V:[^-].*)$
 */
static void rule_after_secret_name(struct pass *p, const char *prev)
{
	size_t n = prev != NULL ? strlen(prev) : 0;
	bool joined = false;

	if (n == 0 || prev[0] == '-' || p->len == 0 || p->s[0] == '-')
		return;
	for (size_t i = 0; i < n; i++) {
		if (!is_name_char((unsigned char)prev[i]))
			return;
		joined |= prev[i] == '_' || prev[i] == '.';
	}
	if (joined && rec_redact_is_setting_name(prev, n))
		pass_redact(p, 0, p->len);
}

/*
 * (^|[[:space:]'"=])pass:(V:[^[:space:]'"]+) (openssl's -pass pass:VALUE,
 * -passin pass:VALUE, also inside a command line); a whole argument
 * "pass:VALUE" goes to its end.
 */
static void rule_pass_source(struct pass *p, const char *prev)
{
	(void)prev;
	if (p->len > 5 && strncmp(p->s, "pass:", 5) == 0) {
		pass_redact(p, 5, p->len);
		return;
	}
	for (size_t i = 1; i + 5 < p->len; i++) {
		unsigned char before = (unsigned char)p->s[i - 1];
		size_t end = i + 5;

		if (!(is_blank(before) || is_quote(before) || before == '=') ||
		    strncmp(p->s + i, "pass:", 5) != 0)
			continue;
		while (end < p->len && !is_blank((unsigned char)p->s[end]) &&
		       !is_quote((unsigned char)p->s[end]))
			end++;
		if (end > i + 5) {
			pass_redact(p, i + 5, end);
			i = end;
		}
	}
}

/*
 * The quote at s[k]: ' or " (ESC false), or \' or \" (ESC true: JSON
 * written inside a double-quoted shell string, "{\"token\": \"V\"}");
 * 0 when there is none.  *WIDTH: its bytes.
 */
static char quote_at(const struct pass *p, size_t k, bool esc, size_t *width)
{
	*width = esc ? 2 : 1;
	if (esc)
		return k + 1 < p->len && p->s[k] == '\\' && is_quote((unsigned char)p->s[k + 1])
			       ? p->s[k + 1]
			       : 0;
	return k < p->len && is_quote((unsigned char)p->s[k]) ? p->s[k] : 0;
}

/*
 * The end of a quoted value that starts at s[v], closed by QUOTE (after
 * a backslash when ESC); a backslash escapes the byte after it otherwise.
 * len when it does not end.
 */
static size_t quoted_end(const struct pass *p, size_t v, char quote, bool esc)
{
	for (size_t i = v; i < p->len; i++) {
		if (p->s[i] == '\\' && esc && i + 1 < p->len && p->s[i + 1] == quote)
			return i;
		if (p->s[i] == '\\')
			i++;
		else if (p->s[i] == quote && !esc)
			return i;
	}
	return p->len;
}

/* After the name's closing quote at s[j]: blanks, ':' or '=', blanks; where the value's quote is, or len. */
static size_t field_separator(const struct pass *p, size_t j)
{
	size_t k = j;

	while (k < p->len && is_blank((unsigned char)p->s[k]))
		k++;
	if (k >= p->len || (p->s[k] != ':' && p->s[k] != '='))
		return p->len;
	for (k++; k < p->len && is_blank((unsigned char)p->s[k]);)
		k++;
	return k;
}

/*
 * Q([[:alnum:]_.-]+)Q[[:space:]]*[:=][[:space:]]*R(V:[^R]*)R with Q and R
 * each ' or " (or each \' or \"), the name a secret one: a field of JSON
 * or of a Python or Ruby dict ({"password": "V"}, {'api_key': 'V'}), in
 * program output or an argument (curl -d '{"token":"V"}').  A value that
 * does not end ends the rule for its kind of quote: no later one can end
 * either, so each byte is read a bounded number of times.
 */
static void rule_json_field(struct pass *p, const char *prev)
{
	bool is_open[2][2] = { { false, false }, { false, false } }; /* [esc][is "] */

	(void)prev;
	for (size_t i = 0; i < p->len;) {
		bool esc = p->s[i] == '\\';
		size_t w, j, k, v, end;
		char q = quote_at(p, i, esc, &w), qv;

		if (q == 0) {
			i++;
			continue;
		}
		for (j = i + w; j < p->len && is_name_char((unsigned char)p->s[j]);)
			j++;
		if (quote_at(p, j, esc, &w) != q ||
		    !rec_redact_is_secret_name(p->s + i + w, j - i - w)) {
			i = j > i + 1 ? j : i + 1;
			continue;
		}
		k = field_separator(p, j + w);
		qv = quote_at(p, k, esc, &w);
		if (qv == 0 || is_open[esc][qv == '"']) {
			i = j + 1;
			continue;
		}
		v = k + w;
		end = quoted_end(p, v, qv, esc);
		if (end == p->len) {
			is_open[esc][qv == '"'] = true;
			i = j + 1;
			continue;
		}
		if (end > v)
			pass_redact(p, v, end);
		i = end + w;
	}
}

/* The words after which prose names a secret ("using api key V", "token: V"). */
static bool is_prose_word(const char *s, size_t n)
{
	static const char *const words[] = { "token",	   "secret", "password", "passwd",
					     "passphrase", "key",    "apikey",	 "pw" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && strncasecmp(s, words[i], n) == 0)
			return true;
	return false;
}

/* [0-9a-fA-F]{8}-…-[0-9a-fA-F]{12}: an RFC 9562 UUID, an identifier that is no secret */
static bool is_uuid(const char *s, size_t n)
{
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool is_dash = i == 8 || i == 13 || i == 18 || i == 23;
		char c = s[i];

		if (is_dash ? c != '-'
			    : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
				(c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

/* The characters of a credential written in prose: [[:alnum:]_+/=.~-] */
static bool is_credential_char(unsigned char c)
{
	return is_alnum(c) || c == '_' || c == '+' || c == '/' || c == '=' || c == '.' ||
	       c == '~' || c == '-';
}

/*
 * Whether s[0..n) has the alphabet and mix of a credential: 8 bytes or more
 * of [[:alnum:]_+/=.~-] with a digit and a letter, and not a UUID.  Words,
 * numbers and paths of words ("/etc/ssl/key.pem") do not.
 */
static bool looks_like_credential(const char *s, size_t n)
{
	bool has_digit = false, has_alpha = false;

	if (n < REC_REDACT_KNOWN_MIN || is_uuid(s, n))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_credential_char(c))
			return false;
		has_digit |= c >= '0' && c <= '9';
		has_alpha |= is_alpha(c);
	}
	return has_digit && has_alpha;
}

/*
 * (^|[^[:alnum:]])P[[:space:]]*(:|=|is)?[[:space:]]+(V:C) where P is a
 * prose word (is_prose_word()) and C a word that looks like a credential
 * (looks_like_credential(); a '.' or ',' that ends a sentence is not part of
 * it): "using api key V", "the token is V".  Each word is looked at once,
 * with the next one: O(len(s)).
 */
static void rule_prose(struct pass *p, const char *prev)
{
	(void)prev;
	for (size_t i = 0; i < p->len;) {
		size_t w = i, k, v, end;

		if (!is_alpha((unsigned char)p->s[i]) ||
		    (i > 0 && is_alnum((unsigned char)p->s[i - 1]))) {
			i++;
			continue;
		}
		while (i < p->len && is_alpha((unsigned char)p->s[i]))
			i++;
		if (!is_prose_word(p->s + w, i - w) ||
		    (i < p->len && is_alnum((unsigned char)p->s[i])))
			continue;
		k = i;
		if (k < p->len && (p->s[k] == ':' || p->s[k] == '='))
			k++;
		for (v = k; v < p->len && is_blank((unsigned char)p->s[v]);)
			v++;
		if (v + 2 < p->len && strncasecmp(p->s + v, "is", 2) == 0 &&
		    is_blank((unsigned char)p->s[v + 2]))
			for (v += 2; v < p->len && is_blank((unsigned char)p->s[v]);)
				v++;
		if (v == k)
			continue;
		for (end = v; end < p->len && is_credential_char((unsigned char)p->s[end]);)
			end++;
		while (end > v && (p->s[end - 1] == '.' || p->s[end - 1] == ','))
			end--;
		if (end < p->len && !is_blank((unsigned char)p->s[end]) &&
		    !is_quote((unsigned char)p->s[end]) && strchr(".,;)]}", p->s[end]) == NULL)
			continue;
		if (looks_like_credential(p->s + v, end - v)) {
			pass_redact(p, v, end);
			i = end;
		}
	}
}

/*
 * The end of the word of a command line that starts at s[i]: the first
 * blank outside quotes ('…', "…") and not after a backslash, or len.  A
 * quote left open takes the word to the end of the string.
 */
static size_t inline_word_end(const struct pass *p, size_t i)
{
	char quote = 0;

	for (; i < p->len; i++) {
		unsigned char c = (unsigned char)p->s[i];

		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
		} else if (c == '\\') {
			if (i + 1 < p->len)
				i++;
		} else if (quote == '"') {
			if (c == '"')
				quote = 0;
		} else if (is_quote(c)) {
			quote = (char)c;
		} else if (is_blank(c)) {
			break;
		}
	}
	return i;
}

/* Whether the word s[w..w+n) is -u, --user or --proxy-user (curl's user:password next). */
static bool is_user_option(const struct pass *p, size_t w, size_t n)
{
	return (n == 2 && strncasecmp(p->s + w, "-u", 2) == 0) ||
	       (n == 6 && strncasecmp(p->s + w, "--user", 6) == 0) ||
	       (n == 12 && strncasecmp(p->s + w, "--proxy-user", 12) == 0);
}

/* The length of the option glued to a user:password word (-u, --user=, --proxy-user=), or 0. */
static size_t user_glued_len(const struct pass *p, size_t w, size_t n)
{
	if (n > 7 && strncasecmp(p->s + w, "--user=", 7) == 0)
		return 7;
	if (n > 13 && strncasecmp(p->s + w, "--proxy-user=", 13) == 0)
		return 13;
	if (n > 2 && strncasecmp(p->s + w, "-u", 2) == 0)
		return 2;
	return 0;
}

/* The password of the user:password in the word s[from..to), if any. */
static void inline_user_password(struct pass *p, size_t from, size_t to)
{
	const char *colon = memchr(p->s + from, ':', to - from);

	if (colon != NULL && colon + 1 < p->s + to)
		pass_redact(p, (size_t)(colon - p->s) + 1, to);
}

/*
 * Words of a command line inside one argument (`bash -c 'curl -u bob:X
 * --password Y …'`): the word after a secret option (a quoted value whole:
 * `--password 'A B'`), and the password of the word after -u/--user/
 * --proxy-user or glued to them (-ubob:X, --user=bob:X).  Words are split at blanks
 * outside quotes; each is looked at once: O(len(s)).
 */
static void rule_inline_words(struct pass *p, const char *prev)
{
	size_t pw = 0, pn = 0; /* the previous word */

	(void)prev;
	for (size_t i = 0; i < p->len;) {
		size_t w, n = 0;

		while (i < p->len && is_blank((unsigned char)p->s[i]))
			i++;
		w = i;
		i = inline_word_end(p, i);
		n = i - w;
		if (n == 0)
			break;
		if (pn > 0 && w > 0 && is_secret_option(p->s + pw, pn) &&
		    !(n > 1 && p->s[w] == '-' && p->s[w + 1] == '-'))
			pass_redact(p, w, i);
		else if (pn > 0 && is_user_option(p, pw, pn))
			inline_user_password(p, w, i);
		else if (user_glued_len(p, w, n) > 0)
			inline_user_password(p, w + user_glued_len(p, w, n), i);
		pw = w;
		pn = n;
	}
}

/* ^[[:alnum:]_.-]*W[[:alnum:]_.-]*=(V:.+)$ (--api-key=VALUE, DB_PASSWORD=VALUE) */
static void rule_assignment(struct pass *p, const char *prev)
{
	size_t i = 0;

	(void)prev;
	while (i < p->len && is_name_char((unsigned char)p->s[i]))
		i++;
	if (i + 1 < p->len && p->s[i] == '=' && rec_redact_is_secret_name(p->s, i))
		pass_redact(p, i + 1, p->len);
}

/*
 * The value after the '=' at s[eq] of an inline assignment, quoted with
 * QUOTE or bare (QUOTE 0).  Returns where the pass goes on: past the
 * redacted value, or eq + 1.  *memo serves next_quote() (quoted forms).
 */
static size_t inline_value(struct pass *p, size_t eq, char quote, size_t *memo)
{
	size_t v = eq + 1, end;

	if (quote == 0) {
		/* [^[:space:]&;'"]+ */
		for (end = v; end < p->len; end++) {
			unsigned char c = (unsigned char)p->s[end];

			if (is_blank(c) || c == '&' || c == ';' || is_quote(c))
				break;
		}
	} else {
		/* 'V:[^']*' (or with "); the closing quote stays */
		if (v >= p->len || p->s[v] != quote)
			return eq + 1;
		v++;
		end = memo[0] >= v ? memo[0] : v;
		while (end < p->len && p->s[end] != quote)
			end++;
		memo[0] = end;
		if (end == p->len)
			return eq + 1;
	}
	if (end == v)
		return eq + 1;
	pass_redact(p, v, end);
	return end;
}

/*
 * [[:alnum:]_.-]*W[[:alnum:]_.-]*=QUOTE(V:[^QUOTE]*)QUOTE, or with QUOTE 0
 * [[:alnum:]_.-]*W[[:alnum:]_.-]*=(V:[^[:space:]&;'"]+): an assignment inside a
 * longer string ("sh -c" text, a URL query).  The name is the run of name
 * characters before the '='.
 */
static void inline_assignments(struct pass *p, char quote)
{
	size_t run = 0, memo = 0;

	for (size_t i = 0; i < p->len;) {
		unsigned char c = (unsigned char)p->s[i];

		if (is_name_char(c)) {
			i++;
			continue;
		}
		if (c == '=' && i > run && rec_redact_is_secret_name(p->s + run, i - run))
			i = inline_value(p, i, quote, &memo);
		else
			i++;
		run = i;
	}
}

static void rule_inline_single(struct pass *p, const char *prev)
{
	(void)prev;
	inline_assignments(p, '\'');
}

static void rule_inline_double(struct pass *p, const char *prev)
{
	(void)prev;
	inline_assignments(p, '"');
}

static void rule_inline_bare(struct pass *p, const char *prev)
{
	(void)prev;
	inline_assignments(p, 0);
}

/*
 * A header value from s[from], after the blanks: [[:space:]]*(V:[^'"]+)
 * with at least MIN_BLANKS blanks.  Returns where the pass goes on: past the
 * redacted value, or FALLBACK.
 */
static size_t header_value(struct pass *p, size_t from, size_t min_blanks, size_t fallback,
			   size_t *memo)
{
	size_t v = from, end;

	while (v < p->len && is_blank((unsigned char)p->s[v]))
		v++;
	if (v - from < min_blanks)
		return fallback;
	end = next_quote(p, v, memo);
	if (end == v)
		return fallback;
	pass_redact(p, v, end);
	return end;
}

/* The length of the credential header name at s[i] (any case), or 0. */
static size_t credential_header_len(const struct pass *p, size_t i)
{
	static const char *const names[] = { "proxy-authorization", "authorization", "set-cookie",
					     "cookie" };

	unsigned char c = ascii_lower((unsigned char)p->s[i]);

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		size_t n = strlen(names[k]);

		if ((unsigned char)names[k][0] == c && n <= p->len - i &&
		    strncasecmp(p->s + i, names[k], n) == 0)
			return n;
	}
	return 0;
}

/*
 * (^|[[:space:]'"=])((proxy-)?authorization|(set-)?cookie)[[:space:]]*:
 * [[:space:]]*(V:[^'"]+): curl -H, wget --header.
 */
static void rule_credential_header(struct pass *p, const char *prev)
{
	size_t memo = SIZE_MAX;

	(void)prev;
	for (size_t i = 0; i < p->len;) {
		unsigned char before = i > 0 ? (unsigned char)p->s[i - 1] : ' ';
		size_t n = 0, j;

		if (is_blank(before) || is_quote(before) || before == '=')
			n = credential_header_len(p, i);
		if (n == 0) {
			i++;
			continue;
		}
		for (j = i + n; j < p->len && is_blank((unsigned char)p->s[j]);)
			j++;
		if (j < p->len && p->s[j] == ':')
			i = header_value(p, j + 1, 0, i + 1, &memo);
		else
			i = j > i + 1 ? j : i + 1;
	}
}

/*
 * (^|[[:space:]'"])[[:alnum:]_-]*W[[:alnum:]_-]*:[[:space:]]+(V:[^'"]+):
 * "X-Api-Key: VALUE".  The name is a run of header characters that starts
 * the string or follows a blank or a quote.
 */
static void rule_secret_header(struct pass *p, const char *prev)
{
	size_t run = SIZE_MAX, memo = SIZE_MAX;

	(void)prev;
	for (size_t i = 0; i < p->len;) {
		unsigned char c = (unsigned char)p->s[i];
		unsigned char before = i > 0 ? (unsigned char)p->s[i - 1] : ' ';

		if (is_header_char(c)) {
			if (is_blank(before) || is_quote(before))
				run = i;
			i++;
			continue;
		}
		if (c == ':' && run != SIZE_MAX && rec_redact_is_secret_name(p->s + run, i - run))
			i = header_value(p, i + 1, 1, i + 1, &memo);
		else
			i++;
		run = SIZE_MAX;
	}
}

/* The shortest user of a URL that is taken for a token (bytes). */
#define TOKEN_USER_MIN 20

/*
 * Whether the user s[0..n) of a URL without a password is a token
 * (https://TOKEN@host/, as GitHub and GitLab accept): TOKEN_USER_MIN bytes
 * or more of [[:alnum:]_-] with a digit and a letter; user names
 * (git, deploy, first.last) are not.
 */
static bool is_token_user(const char *s, size_t n)
{
	bool has_digit = false, has_alpha = false;

	if (n < TOKEN_USER_MIN)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_alnum(c) && c != '_' && c != '-')
			return false;
		has_digit |= c >= '0' && c <= '9';
		has_alpha |= is_alpha(c);
	}
	return has_digit && has_alpha;
}

/*
 * [[:alpha:]][[:alnum:]+.-]*://[^/?#:[:space:]]*:(V:[^/?#[:space:]]+)@[^/?#@[:space:]]*:
 * the password of a URL's userinfo (RFC 3986 3.2.1); the user stays, unless
 * there is no password and the user is a token (is_token_user()).  The
 * authority runs from "://" to the first '/', '?', '#' or blank; the
 * userinfo ends at its last '@' (a password may hold an '@' that was not
 * escaped: http://bob:p1@p2@host/), the user at the first ':'.  SEP is the
 * index of a "://"; returns where the pass goes on.  The scheme is the run
 * before SEP and the authority cannot hold a '/', so the scans from one
 * "://" never reach past the next one.
 */
static size_t url_password(struct pass *p, size_t sep)
{
	size_t k = sep, u = sep + 3, end, at = SIZE_MAX;
	bool has_alpha = false;
	const char *colon;

	while (k > p->copied && is_scheme_char((unsigned char)p->s[k - 1]))
		has_alpha |= is_alpha((unsigned char)p->s[--k]);
	if (!has_alpha)
		return sep + 1;
	for (end = u; end < p->len && strchr("/?#", p->s[end]) == NULL; end++) {
		if (is_blank((unsigned char)p->s[end]))
			break;
		if (p->s[end] == '@')
			at = end;
	}
	if (at == SIZE_MAX)
		return sep + 1;
	colon = memchr(p->s + u, ':', at - u);
	if (colon == NULL && is_token_user(p->s + u, at - u)) {
		pass_redact(p, u, at);
		return at;
	}
	if (colon == NULL || (size_t)(colon - p->s) + 1 == at)
		return sep + 1;
	pass_redact(p, (size_t)(colon - p->s) + 1, at);
	return at;
}

static void rule_url_password(struct pass *p, const char *prev)
{
	(void)prev;
	for (size_t i = 0; i + 2 < p->len;) {
		if (p->s[i] == ':' && p->s[i + 1] == '/' && p->s[i + 2] == '/')
			i = url_password(p, i);
		else
			i++;
	}
}

/*
 * Well-known token shapes, wherever they stand, also glued to other
 * characters of a word (xghp_…): a prefix, then at least MIN characters of
 * the token's alphabet (GitHub, GitLab, Slack, AWS access keys,
 * OpenAI-style keys).  "sk-" ends ordinary words too (desk-top, task-1), so
 * it counts where no token character comes before it, and glued to one only
 * with at least SK_GLUED_MIN characters after it.  JWTs are below.
 */
static const struct {
	const char *prefix;
	size_t min; /* token characters after the prefix */
	bool is_upper; /* [A-Z0-9] only (AWS key ids) */
} token_shapes[] = {
	{ "ghp_", 20, false },	 { "gho_", 20, false },	 { "ghu_", 20, false },
	{ "ghs_", 20, false },	 { "ghr_", 20, false },	 { "github_pat_", 20, false },
	{ "glpat-", 16, false }, { "xoxb-", 10, false }, { "xoxp-", 10, false },
	{ "xoxa-", 10, false },	 { "xoxs-", 10, false }, { "AKIA", 16, true },
	{ "ASIA", 16, true },	 { "sk-", 20, false },
};
#define N_TOKEN_SHAPES (sizeof(token_shapes) / sizeof(token_shapes[0]))
#define SK_GLUED_MIN 32 /* token characters after a glued "sk-" */

static bool is_token_char(unsigned char c, bool is_upper)
{
	if (is_upper)
		return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
	return is_alnum(c) || c == '_' || c == '-';
}

/*
 * The length of the token of shape t at s[i], or 0.  IS_GLUED: a token
 * character comes before s[i].  A miss reads at most prefix + min bytes
 * (SK_GLUED_MIN for a glued "sk-").
 */
static size_t token_at(const struct pass *p, size_t i, size_t t, bool is_glued)
{
	size_t plen = strlen(token_shapes[t].prefix), n = 0, min = token_shapes[t].min;

	if (p->len - i < plen + token_shapes[t].min ||
	    strncmp(p->s + i, token_shapes[t].prefix, plen) != 0)
		return 0;
	if (is_glued && strcmp(token_shapes[t].prefix, "sk-") == 0)
		min = SK_GLUED_MIN;
	if (p->len - i < plen + min)
		return 0;
	while (i + plen + n < p->len &&
	       is_token_char((unsigned char)p->s[i + plen + n], token_shapes[t].is_upper))
		n++;
	return n >= min ? plen + n : 0;
}

/*
 * A JWT: eyJ… "." … "." …, three base64url parts (RFC 7519), at s[i]; its
 * length or 0.  *STOP: where the scan stopped.  After a miss no JWT starts
 * before *STOP either (a later start sees the same end and no more dots),
 * so the caller skips to it and each byte is read once.
 */
static size_t jwt_at(const struct pass *p, size_t i, size_t *stop)
{
	size_t j = i, dots = 0, part = 0;

	*stop = i + 1;
	if (p->len - i < 20 || strncmp(p->s + i, "eyJ", 3) != 0)
		return 0;
	for (; j < p->len; j++) {
		unsigned char c = (unsigned char)p->s[j];

		if (c == '.' && part > 0 && dots < 2) {
			dots++;
			part = 0;
		} else if (is_alnum(c) || c == '_' || c == '-' || c == '=') {
			part++;
		} else {
			break;
		}
	}
	*stop = j > i + 1 ? j : i + 1;
	return dots == 2 && part > 0 ? j - i : 0;
}

/*
 * Token shapes anywhere in s: O(len(s)).  At each position a constant
 * number of prefixes is compared, and a miss reads a bounded number of
 * bytes (token_at()); JWT scans never read a byte twice (jwt_at()).
 */
static void rule_token_shapes(struct pass *p, const char *prev)
{
	size_t jwt_from = 0; /* no JWT starts before this */

	(void)prev;
	for (size_t i = 0; i < p->len;) {
		bool is_glued = i > 0 && is_token_char((unsigned char)p->s[i - 1], false);
		size_t n = 0;

		for (size_t t = 0; t < N_TOKEN_SHAPES && !n; t++)
			if (token_shapes[t].prefix[0] == p->s[i])
				n = token_at(p, i, t, is_glued);
		if (n == 0 && i >= jwt_from)
			n = jwt_at(p, i, &jwt_from);
		if (n > 0) {
			pass_redact(p, i, i + n);
			i += n;
		} else {
			i++;
		}
	}
}

/*
 * Program-specific secret options in a command line inside one argument
 * (`bash -c 'mysql -pX'`, `ssh HOST 'sshpass -p X …'`): the spans
 * rec_redact_cmd_string() finds, O(len(s)).
 */
static void rule_inline_programs(struct pass *p, const char *prev)
{
	cleanup_free struct rec_cmd_span *v = NULL;
	size_t n = rec_redact_cmd_string(p->s, p->len, &v);

	(void)prev;
	for (size_t i = 0; i < n; i++)
		pass_redact(p, v[i].from, v[i].to);
}

typedef void (*rule_fn)(struct pass *p, const char *prev);

/*
 * What a string holds that a rule needs to match at all: a rule whose
 * NEEDS has no bit in common with the string's (string_traits()) is
 * skipped, so a path or a word without '=', ':' or a blank costs one scan
 * and the token shapes.
 */
enum trait {
	T_PREV = 1u << 0, /* there is an argument before it */
	T_EQ = 1u << 1, /* '=' */
	T_COLON = 1u << 2, /* ':' */
	T_BLANK = 1u << 3, /* a blank or a command separator (; & | ( ) ` newline) */
	T_DASH0 = 1u << 4, /* it starts with '-' */
	T_QUOTE = 1u << 5, /* ' or " */
	T_ALPHA = 1u << 6, /* a letter */
	T_ANY = ~0u,
};

static unsigned string_traits(const char *s, size_t len, const char *prev)
{
	unsigned t = prev != NULL ? T_PREV : 0;

	if (len > 0 && s[0] == '-')
		t |= T_DASH0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (is_alpha(c))
			t |= T_ALPHA;
		else if (c == '=')
			t |= T_EQ;
		else if (c == ':')
			t |= T_COLON;
		else if (is_quote(c))
			t |= T_QUOTE;
		else if (is_blank(c) || strchr(";&|()`", c) != NULL)
			t |= T_BLANK;
	}
	return t;
}

/* Applied to every argument in this order, each to the output of the one before. */
static const struct {
	rule_fn fn;
	unsigned needs; /* enum trait: any of them */
} arg_rules[] = {
	{ rule_after_secret_option, T_PREV },
	{ rule_user_after_option, T_PREV },
	{ rule_user_option, T_DASH0 },
	{ rule_json_field, T_QUOTE },
	{ rule_assignment, T_EQ },
	{ rule_inline_single, T_EQ },
	{ rule_inline_double, T_EQ },
	{ rule_inline_bare, T_EQ },
	{ rule_credential_header, T_COLON },
	{ rule_secret_header, T_COLON },
	{ rule_url_password, T_COLON },
	{ rule_token_shapes, T_ANY },
	{ rule_after_secret_name, T_PREV },
	{ rule_pass_source, T_COLON },
	{ rule_inline_words, T_BLANK | T_DASH0 },
	{ rule_inline_programs, T_BLANK },
	{ rule_prose, T_BLANK },
};

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

	r->known = rec_known_new();
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
	for (size_t i = 0; i < r->n_extra; i++)
		regfree(&r->extra[i]);
	free(r->extra);
	for (size_t i = 0; i < r->n_keep; i++)
		free(r->keep_env[i]);
	free(r->keep_env);
	rec_known_free(r->known);
	free(r);
}

static bool has_secret_word(const char *name)
{
	return rec_redact_is_secret_name(name, strlen(name));
}

static bool matches_any(const char *name, const char *const *globs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

void rec_redact_hide_hostname(struct rec_redact *r)
{
	r->is_hostname_hidden = true;
}

bool rec_redact_env_value(const struct rec_redact *r, const char *name)
{
	if (has_secret_word(name))
		return true;
	if (r->is_hostname_hidden && strcmp(name, "HOSTNAME") == 0)
		return true;
	if (matches_any(name, harmless_env, N_HARMLESS_ENV))
		return false;
	return !matches_any(name, (const char *const *)r->keep_env, r->n_keep);
}

/*
 * The end of the piece of s[from..len) that one regexec(3) call of a
 * --redact regex sees: all the rest when it fits in PIECE_MAX bytes, else the
 * end of the last blank within them, else PIECE_MAX bytes (*is_cut: the piece
 * ends inside a word).  O(PIECE_MAX); a piece that ends early at a blank is
 * followed by one that reaches past the bytes looked at, so all pieces of an
 * argument together cost O(len).
 */
static size_t piece_end(const struct pass *p, size_t from, bool *is_cut)
{
	size_t end = from + PIECE_MAX;

	*is_cut = false;
	if (p->len - from <= PIECE_MAX)
		return p->len;
	for (size_t i = end; i > from; i--)
		if (is_blank((unsigned char)p->s[i - 1]))
			return i;
	*is_cut = true;
	return end;
}

/*
 * Redact every non-empty match of RE within the piece s[from..to), searched
 * one after the other with REG_STARTEND (glibc), so that '^' still means the
 * start of the argument and the piece is not copied; '$' matches only where
 * the argument ends.  A match that reaches the end of a piece cut inside a
 * word (IS_CUT) is taken to the end of that word.  Returns where the next
 * piece starts.
 */
static size_t redact_piece(struct pass *p, const regex_t *re, size_t from, size_t to, bool is_cut)
{
	int flags = REG_STARTEND | (to < p->len ? REG_NOTEOL : 0);
	size_t off = from;

	while (off < to) {
		regmatch_t m = { .rm_so = (regoff_t)off, .rm_eo = (regoff_t)to };
		size_t so, eo;

		if (regexec(re, p->s, 1, &m, flags) != 0)
			break;
		so = (size_t)m.rm_so;
		eo = (size_t)m.rm_eo;
		if (eo == so) {
			off = eo > off ? eo : off + 1;
			continue;
		}
		if (is_cut && eo == to) {
			while (eo < p->len && !is_blank((unsigned char)p->s[eo]))
				eo++;
			pass_redact(p, so, eo);
			return eo;
		}
		pass_redact(p, so, eo);
		off = eo;
	}
	return to;
}

/* A --redact regex over the whole argument, piece by piece. */
static void redact_extra(struct pass *p, const regex_t *re)
{
	size_t from = 0;

	while (from < p->len) {
		bool is_cut;
		size_t to = piece_end(p, from, &is_cut);

		from = redact_piece(p, re, from, to, is_cut);
	}
}

/* Start a pass over *CUR. */
static void pass_begin(struct pass *p, const char *cur)
{
	*p = (struct pass){ .s = cur, .len = strlen(cur) };
}

/* End a pass: *CUR becomes its output when it changed anything. */
static void pass_end(struct pass *p, char **cur)
{
	if (!p->changed)
		return;
	repro_sbuf_adds(&p->out, p->s + p->copied);
	free(*cur);
	*cur = p->out.buf;
}

/*
 * Every occurrence of a learned secret value in s (`cmd "$GITHUB_TOKEN"`
 * puts one in a child's argv, git stats a URL with a token as a path): one
 * scan, O(len(s)) whatever the number of values (rec_known_find()).
 */
static void redact_known(struct pass *p, struct rec_known *k)
{
	cleanup_free struct rec_cmd_span *v = NULL;
	size_t n = rec_known_find(k, p->s, p->len, &v);

	for (size_t i = 0; i < n; i++)
		pass_redact(p, v[i].from, v[i].to);
}

/* Learn the value of one "NAME=value" whose NAME is secret; true when it was new. */
static bool learn_env_entry(struct rec_redact *r, const char *entry, size_t len)
{
	const char *eq = memchr(entry, '=', len);
	size_t vlen;

	if (eq == NULL)
		return false;
	vlen = len - (size_t)(eq + 1 - entry);
	if (vlen < REC_REDACT_KNOWN_MIN || !rec_redact_is_secret_name(entry, (size_t)(eq - entry)))
		return false;
	return rec_known_add(r->known, eq + 1, vlen);
}

void rec_redact_learn_env(struct rec_redact *r, const char *const *envp)
{
	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
		(void)learn_env_entry(r, envp[i], strlen(envp[i]));
}

/*
 * The rules of rec_redact_arg() over CUR (owned; freed or returned), what
 * they redact learned into LEARN (may be NULL).
 */
static char *redact_learning(const struct rec_redact *r, char *cur, const char *prev_arg,
			     struct rec_known *learn)
{
	unsigned traits = string_traits(cur, strlen(cur), prev_arg);
	struct pass p;

	pass_begin(&p, cur);
	redact_known(&p, r->known);
	pass_end(&p, &cur);
	for (size_t i = 0; i < sizeof(arg_rules) / sizeof(arg_rules[0]); i++) {
		if (!(arg_rules[i].needs & traits))
			continue;
		pass_begin(&p, cur);
		p.learn = learn;
		arg_rules[i].fn(&p, prev_arg);
		pass_end(&p, &cur);
	}
	for (size_t i = 0; i < r->n_extra; i++) {
		pass_begin(&p, cur);
		p.learn = learn;
		redact_extra(&p, &r->extra[i]);
		pass_end(&p, &cur);
	}
	return cur;
}

static char *redact_owned(const struct rec_redact *r, char *cur, const char *prev_arg)
{
	return redact_learning(r, cur, prev_arg, NULL);
}

char *rec_redact_arg(const struct rec_redact *r, const char *arg, const char *prev_arg)
{
	return redact_owned(r, repro_xstrdup(arg), prev_arg);
}

/* A copy of ARG with SP (a program-specific secret) replaced by REC_REDACTED. */
static char *with_span(const char *arg, const struct rec_cmd_span *sp)
{
	struct repro_sbuf b = { 0 };

	if (sp->to == 0)
		return repro_xstrdup(arg);
	repro_sbuf_add(&b, arg, sp->from);
	repro_sbuf_adds(&b, REC_REDACTED);
	repro_sbuf_adds(&b, arg + sp->to);
	return b.buf;
}

/* rec_redact_argv(), learning what it redacts into LEARN (may be NULL). */
static char **redact_argv_learning(const struct rec_redact *r, const char *const *argv, size_t argc,
				   struct rec_known *learn)
{
	cleanup_free struct rec_cmd_span *spans = repro_xcalloc(argc + 1, sizeof(*spans));
	char **out = repro_xcalloc(argc + 1, sizeof(*out));

	rec_redact_cmd_argv(argv, argc, spans);
	for (size_t i = 0; i < argc; i++) {
		if (learn != NULL && spans[i].to > spans[i].from)
			learn_span(learn, argv[i] + spans[i].from, spans[i].to - spans[i].from);
		out[i] = redact_learning(r, with_span(argv[i], &spans[i]),
					 i > 0 ? argv[i - 1] : NULL, learn);
	}
	return out;
}

char **rec_redact_argv(const struct rec_redact *r, const char *const *argv, size_t argc)
{
	return redact_argv_learning(r, argv, argc, NULL);
}

/* The NUL-separated strings of DATA[0..LEN) as a new NULL-terminated array of new strings. */
static char **strings_split(const char *data, size_t len, size_t *count)
{
	size_t n = 0, cap = 8;
	char **v = repro_xcalloc(cap + 1, sizeof(*v));

	for (size_t off = 0; off < len;) {
		const char *nul = memchr(data + off, '\0', len - off);
		size_t k = nul != NULL ? (size_t)(nul - data) - off : len - off;

		if (n == cap) {
			cap *= 2;
			v = repro_xrealloc(v, (cap + 1) * sizeof(*v));
		}
		v[n++] = repro_xstrndup(data + off, k);
		v[n] = NULL;
		off += k + 1;
	}
	*count = n;
	return v;
}

size_t rec_redact_learn_exec(struct rec_redact *r, const char *argv, size_t argv_len,
			     const char *envp, size_t envp_len)
{
	size_t before = rec_known_count(r->known), n;
	char **v;

	if (argv != NULL) {
		v = strings_split(argv, argv_len, &n);
		rec_redact_argv_free(redact_argv_learning(r, (const char *const *)v, n, r->known));
		rec_redact_argv_free(v);
	}
	for (size_t off = 0; envp != NULL && off < envp_len;) {
		const char *nul = memchr(envp + off, '\0', envp_len - off);
		size_t k = nul != NULL ? (size_t)(nul - envp) - off : envp_len - off;

		if (!learn_env_entry(r, envp + off, k)) {
			/* a kept value (http_proxy) still loses what the argument rules find */
			cleanup_free char *value = NULL;
			const char *eq = memchr(envp + off, '=', k);

			if (eq != NULL) {
				value = repro_xstrndup(eq + 1, k - (size_t)(eq + 1 - (envp + off)));
				free(redact_learning(r, steal_ptr(&value), NULL, r->known));
			}
		}
		off += k + 1;
	}
	return rec_known_count(r->known) - before;
}

size_t rec_redact_known_count(const struct rec_redact *r)
{
	return rec_known_count(r->known);
}

char *rec_redact_text(const struct rec_redact *r, const char *s, size_t len, size_t *out_len)
{
	struct repro_sbuf b = { 0 };

	/* a NUL cannot be in a C string: the pieces between NULs are redacted one by one */
	for (size_t off = 0;;) {
		const char *nul = memchr(s + off, '\0', len - off);
		size_t k = nul != NULL ? (size_t)(nul - s) - off : len - off;
		cleanup_free char *piece = redact_owned(r, repro_xstrndup(s + off, k), NULL);

		repro_sbuf_adds(&b, piece);
		if (nul == NULL)
			break;
		repro_sbuf_add(&b, "", 1);
		off += k + 1;
	}
	if (b.buf == NULL)
		repro_sbuf_adds(&b, "");
	if (out_len != NULL)
		*out_len = b.len;
	return b.buf;
}

void rec_redact_argv_free(char **argv)
{
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
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

void rec_redact_notes_init(struct rec_redact_notes *n, json_t *names)
{
	json_t *v;
	size_t i;

	*n = (struct rec_redact_notes){ .names = names };
	if (names == NULL)
		return;
	n->index = json_object();
	json_array_foreach (names, i, v)
		if (json_is_string(v))
			json_object_set(n->index, json_string_value(v), json_true());
}

void rec_redact_notes_release(struct rec_redact_notes *n)
{
	json_decref(n->index);
	n->index = NULL;
}

void rec_redact_notes_add(struct rec_redact_notes *n, const char *name)
{
	json_t *s;

	if (n == NULL || n->names == NULL)
		return;
	s = rec_json_str(name, strlen(name));
	if (json_object_get(n->index, json_string_value(s)) != NULL) {
		json_decref(s);
		return;
	}
	json_object_set(n->index, json_string_value(s), json_true());
	json_array_append_new(n->names, s);
}

char *rec_redact_env_entry(const struct rec_redact *r, const char *entry, size_t len,
			   struct rec_redact_notes *notes)
{
	const char *eq = memchr(entry, '=', len);
	cleanup_free char *name = NULL;
	cleanup_free char *value = NULL;
	char *out;

	if (eq == NULL) {
		rec_redact_notes_add(notes, "env");
		return repro_xstrdup(REC_REDACTED);
	}
	name = repro_xstrndup(entry, (size_t)(eq - entry));
	if (rec_redact_env_value(r, name)) {
		value = repro_xstrdup(REC_REDACTED);
	} else {
		cleanup_free char *raw = repro_xstrndup(eq + 1, len - (size_t)(eq + 1 - entry));

		value = rec_redact_arg(r, raw, NULL);
	}
	out = repro_xasprintf("%s=%s", name, value);
	if (strlen(out) != len || memcmp(out, entry, len) != 0)
		rec_redact_notes_add(notes, name);
	return out;
}

json_t *rec_redact_env_json(const struct rec_redact *r, const char *const *envp, json_t *names)
{
	struct rec_redact_notes notes;
	json_t *obj = json_object();

	rec_redact_notes_init(&notes, names);
	for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
		const char *eq = strchr(envp[i], '=');
		cleanup_free char *name = NULL;
		cleanup_free char *entry = NULL;
		const char *value;

		if (eq == NULL || eq == envp[i])
			continue;
		name = repro_xstrndup(envp[i], (size_t)(eq - envp[i]));
		entry = rec_redact_env_entry(r, envp[i], strlen(envp[i]), &notes);
		value = entry + (eq - envp[i]) + 1;
		/* jansson keys must be UTF-8: an odd name is escaped like a value */
		if (json_object_set_new(obj, name, rec_json_str(value, strlen(value))) < 0) {
			json_t *key = rec_json_str(name, strlen(name));

			json_object_set_new(obj, json_string_value(key),
					    rec_json_str(value, strlen(value)));
			json_decref(key);
		}
	}
	rec_redact_notes_release(&notes);
	return obj;
}

json_t *rec_redact_argv_json(const struct rec_redact *r, const char *const *argv, size_t argc,
			     const char *label, json_t *names)
{
	struct rec_redact_notes notes;
	json_t *arr = json_array();
	char **v = rec_redact_argv(r, argv, argc);

	rec_redact_notes_init(&notes, names);
	for (size_t i = 0; i < argc; i++) {
		if (strcmp(v[i], argv[i]) != 0) {
			cleanup_free char *what = repro_xasprintf("%s[%zu]", label, i);

			rec_redact_notes_add(&notes, what);
		}
		json_array_append_new(arr, rec_json_str(v[i], strlen(v[i])));
	}
	rec_redact_notes_release(&notes);
	rec_redact_argv_free(v);
	return arr;
}
