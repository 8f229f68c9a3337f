#ifndef REPRO_CLI_READING_H
#define REPRO_CLI_READING_H

/*
 * What the commands that read bundles (show, explain, diff) share: the
 * --max-read and --max-memory options and the count of the memory parsed
 * JSON holds (jansson's allocator is process-wide state, hence in cli/).
 * The limits are defined in bundles/reader.h and documented in
 * docs/bundle-format.md "Reading a hostile bundle".
 */

#include "bundles/reader.h"
#include "common/err.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

/* getopt_long values of the options (above every short option). */
enum { CLI_OPT_MAX_READ = 0x200, CLI_OPT_MAX_MEMORY, CLI_OPT_COLOR };

#define CLI_READING_OPTIONS                                                    \
	{ "max-read", required_argument, NULL, CLI_OPT_MAX_READ },             \
		{ "max-memory", required_argument, NULL, CLI_OPT_MAX_MEMORY }, \
	{                                                                      \
		"color", required_argument, NULL, CLI_OPT_COLOR                \
	}

#define CLI_READING_USAGE                                                         \
	"  --max-read SIZE   read at most SIZE uncompressed bytes (default 4G)\n" \
	"  --max-memory SIZE hold at most SIZE of parsed JSON (default 1G)\n"     \
	"  --color WHEN      auto (default: on a terminal, unless NO_COLOR is\n"  \
	"                    set), always or never\n"

/* --color's WHEN. */
enum cli_color { CLI_COLOR_AUTO, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };

/*
 * cli_color_option - take option c (CLI_OPT_COLOR) of command cmd with
 * argument arg ("auto", "always", "never") into *when.  Returns 1 when c
 * was it, 0 when not, -1 with *err (EINVAL) for another word.
 */
int cli_color_option(enum cli_color *when, const char *cmd, int c, const char *arg,
		     struct repro_err **err);

/*
 * cli_color_on - whether to colour standard output: always, never, or
 * (auto) when it is a terminal, NO_COLOR is unset or empty (no-color.org)
 * and TERM is not "dumb".
 */
bool cli_color_on(enum cli_color when);

/*
 * cli_parse_size - "64M", "1G", "4096", "0" into *out (bytes; K, M, G are
 * powers of 1024).  what names the option for the message ("record
 * --hash-max").  Returns 0, or -1 with *err (EINVAL).
 */
int cli_parse_size(const char *what, const char *text, uint64_t *out, struct repro_err **err);

/*
 * cli_reading_init - count the memory jansson allocates from now on
 * (before any JSON value exists) and fill *lim with the defaults and that
 * count.  Call once per process.
 */
void cli_reading_init(struct bndl_limits *lim);

/*
 * cli_reading_option - take option c (CLI_OPT_MAX_READ or
 * CLI_OPT_MAX_MEMORY) of command cmd with argument arg into *lim.
 * Returns 1 when c was one of them, 0 when not, -1 with *err for a bad
 * size (0 is refused: it would mean no limit).
 */
int cli_reading_option(struct bndl_limits *lim, const char *cmd, int c, const char *arg,
		       struct repro_err **err);

#endif
