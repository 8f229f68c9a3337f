#include "cli/reading.h"

#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <sys/resource.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The memory jansson holds: each block carries its size in a header of
 * one max_align_t, so a free knows what it gives back.
 */
static size_t json_held;

#define HEADER (sizeof(max_align_t))

static void *counted_malloc(size_t n)
{
	unsigned char *p;

	if (n > SIZE_MAX - HEADER)
		return NULL;
	p = malloc(n + HEADER);
	if (p == NULL)
		return NULL;
	/* what the block really takes: its usable size and malloc's own header */
	n = malloc_usable_size(p) + sizeof(size_t);
	*(size_t *)(void *)p = n;
	json_held += n;
	return p + HEADER;
}

static void counted_free(void *q)
{
	unsigned char *p = q;

	if (p == NULL)
		return;
	p -= HEADER;
	json_held -= *(size_t *)(void *)p;
	free(p);
}

static size_t held(void)
{
	return json_held;
}

static const struct bndl_memory_ops counted = { .held = held };

/* Under an address-space limit (ulimit -v, prlimit --as), at most half of it. */
static void as_cap(struct bndl_limits *lim)
{
	struct rlimit as;

	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
	    as.rlim_cur / 2 < lim->max_memory)
		lim->max_memory = as.rlim_cur / 2;
}

void cli_reading_init(struct bndl_limits *lim)
{
	json_set_alloc_funcs(counted_malloc, counted_free);
	*lim = (struct bndl_limits){ .max_read = BNDL_READ_DEFAULT,
				     .max_memory = BNDL_MEMORY_DEFAULT,
				     .mem = &counted };
	as_cap(lim);
}

int cli_parse_size(const char *what, const char *text, uint64_t *out, struct repro_err **err)
{
	char *end = NULL;
	unsigned long long v;
	int shift = 0;

	if (text[0] < '0' || text[0] > '9')
		return repro_err_set(err, EINVAL, "%s: expected a size such as 64M, got '%s'", what,
				     text);
	errno = 0;
	v = strtoull(text, &end, 10);
	if (end != NULL && (*end == 'K' || *end == 'k'))
		shift = 10, end++;
	else if (end != NULL && (*end == 'M' || *end == 'm'))
		shift = 20, end++;
	else if (end != NULL && (*end == 'G' || *end == 'g'))
		shift = 30, end++;
	if (errno != 0 || end == text || *end != '\0' || v > (UINT64_MAX >> shift))
		return repro_err_set(err, EINVAL, "%s: expected a size such as 64M, got '%s'", what,
				     text);
	*out = (uint64_t)v << shift;
	return 0;
}

int cli_reading_option(struct bndl_limits *lim, const char *cmd, int c, const char *arg,
		       struct repro_err **err)
{
	char what[64];
	uint64_t v;

	if (c != CLI_OPT_MAX_READ && c != CLI_OPT_MAX_MEMORY)
		return 0;
	snprintf(what, sizeof(what), "%s --%s", cmd,
		 c == CLI_OPT_MAX_READ ? "max-read" : "max-memory");
	if (cli_parse_size(what, arg, &v, err) < 0)
		return -1;
	if (v == 0 || (c == CLI_OPT_MAX_MEMORY && v > SIZE_MAX))
		return repro_err_set(err, EINVAL, "%s: expected a size above 0, got '%s'", what,
				     arg);
	if (c == CLI_OPT_MAX_READ)
		lim->max_read = v;
	else
		lim->max_memory = v;
	as_cap(lim);
	return 1;
}

int cli_color_option(enum cli_color *when, const char *cmd, int c, const char *arg,
		     struct repro_err **err)
{
	if (c != CLI_OPT_COLOR)
		return 0;
	if (strcmp(arg, "auto") == 0)
		*when = CLI_COLOR_AUTO;
	else if (strcmp(arg, "always") == 0)
		*when = CLI_COLOR_ALWAYS;
	else if (strcmp(arg, "never") == 0)
		*when = CLI_COLOR_NEVER;
	else
		return repro_err_set(err, EINVAL,
				     "%s --color: expected auto, always or never, got '%s'", cmd,
				     arg);
	return 1;
}

bool cli_color_on(enum cli_color when)
{
	if (when != CLI_COLOR_AUTO)
		return when == CLI_COLOR_ALWAYS;
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	/* no-color.org: set and not empty; and a terminal that says it has no colours */
	return isatty(STDOUT_FILENO) && (no == NULL || no[0] == '\0') &&
	       (term == NULL || strcmp(term, "dumb") != 0);
}
