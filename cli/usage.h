#ifndef REPRO_CLI_USAGE_H
#define REPRO_CLI_USAGE_H

/*
 * cli_usage - the --help text of command ("record", "sweep" …), static,
 * never NULL ("" for a word that is not a command).  O(number of commands).
 */
const char *cli_usage(const char *command);

#endif
