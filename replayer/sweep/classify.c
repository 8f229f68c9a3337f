/* How a run behaved under its fault (replayer/sweep/sweep.h, docs/sweep.md "Classes"). */
#include "replayer/sweep/sweep.h"
#include "common/term.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *const names[SWP_NCLASSES] = { "clean", "vague",	"silent",      "crashed",
						 "hung",  "carried-on", "not-reached", "error" };

const char *swp_class_name(enum swp_class c)
{
	return c < SWP_NCLASSES ? names[c] : "?";
}

int swp_class_parse(const char *name)
{
	for (int i = 0; i < SWP_NCLASSES; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

void swp_outcome_release(struct swp_outcome *o)
{
	free(o->stderr_text);
	free(o->error);
	free(o->bundle);
	memset(o, 0, sizeof(*o));
}

/* Whether needle (at least 3 bytes) occurs in hay, without regard to ASCII case.  O(|hay| x |needle|). */
static bool has_word(const char *hay, const char *needle)
{
	size_t n = needle != NULL ? strlen(needle) : 0;

	if (hay == NULL || n < 3)
		return false;
	for (const char *h = hay; *h != '\0'; h++)
		if (strncasecmp(h, needle, n) == 0)
			return true;
	return false;
}

static bool is_blank(const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/* The words a message naming the cause of f may use: its target, its parts, its errno's message. */
static bool names_cause(const struct swp_fault *f, const char *text)
{
	/* what resolvers and the programs on them say for a name that fails */
	static const char *const dns_words[] = { "Name or service not known",
						 "Temporary failure in name resolution",
						 "Could not resolve",
						 "nodename nor servname",
						 "resolve host",
						 "getaddrinfo" };
	char *copy;
	bool yes;

	if (has_word(text, f->target) || has_word(text, f->host))
		return true;
	if (f->errnum != 0 && has_word(text, strerror(f->errnum)))
		return true;
	if (f->area == SWP_NETWORK) {
		char ip[64];
		const char *t = f->target, *end;

		if (t[0] == '[')
			t++;
		end = strrchr(t, t == f->target ? ':' : ']');
		if (end != NULL && (size_t)(end - t) < sizeof(ip)) {
			memcpy(ip, t, (size_t)(end - t));
			ip[end - t] = '\0';
			if (has_word(text, ip))
				return true;
		}
		return has_word(text, "timed out") || has_word(text, "timeout");
	}
	if (f->area == SWP_DNS) {
		for (size_t i = 0; i < sizeof(dns_words) / sizeof(dns_words[0]); i++)
			if (has_word(text, dns_words[i]))
				return true;
		return false;
	}
	copy = repro_xstrdup(f->target);
	yes = has_word(text, basename(copy));
	free(copy);
	return yes;
}

enum swp_class swp_classify(const struct swp_fault *f, const struct swp_outcome *o)
{
	if (!o->ran || o->error != NULL)
		return SWP_ERROR;
	if (o->fired == 0)
		return SWP_NOT_REACHED;
	if (o->timed_out)
		return SWP_HUNG;
	if (!o->has_exit)
		return SWP_ERROR;
	if (WIFSIGNALED(o->wait_status))
		return SWP_CRASHED;
	if (WEXITSTATUS(o->wait_status) == 0)
		return SWP_CARRIED_ON;
	if (is_blank(o->stderr_text))
		return SWP_SILENT;
	return names_cause(f, o->stderr_text) ? SWP_CLEAN : SWP_VAGUE;
}

/*
 * n bytes of s as text that is valid UTF-8 and safe on a terminal (common/term.h:
 * invalid bytes and controls as \xNN), cut to 200 bytes first.  A new string.
 */
static char *line_text(const char *s, size_t n)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return repro_xstrdup("");
	repro_term_write(f, s, n > 200 ? 200 : n, false, false);
	fclose(f);
	return out != NULL ? out : repro_xstrdup("");
}

/* The last non-blank line of text (a Python traceback's exception), or NULL. */
static char *last_line(const char *text)
{
	const char *end = text + strlen(text), *start;

	while (end > text && isspace((unsigned char)end[-1]))
		end--;
	if (end == text)
		return NULL;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	return line_text(start, (size_t)(end - start));
}

char *swp_first_line(const char *text)
{
	const char *p = text;

	/* a traceback's first line says nothing; its last names the exception */
	while (p != NULL && isspace((unsigned char)*p))
		p++;
	if (p != NULL && strncmp(p, "Traceback (most recent call last):", 34) == 0)
		return last_line(p);

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, '\n');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		bool blank = true;

		for (size_t i = 0; i < n; i++)
			blank = blank && isspace((unsigned char)p[i]);
		if (!blank)
			return line_text(p, n);
		if (end == NULL)
			break;
		p = end + 1;
	}
	return repro_xstrdup("");
}
