#ifndef REPRO_CLI_COMMANDS_H
#define REPRO_CLI_COMMANDS_H

#include "common/err.h"

/*
 * One entry point per subcommand (cli/cmd_NAME.c).  argv[0] is the command
 * word.  Returns the process exit status to use (0, 1, the program's status
 * for record), or -1 with *err set: main prints it and exits 2.
 */
int cmd_record(int argc, char **argv, struct repro_err **err);
int cmd_show(int argc, char **argv, struct repro_err **err);
int cmd_explain(int argc, char **argv, struct repro_err **err);
int cmd_diff(int argc, char **argv, struct repro_err **err);
int cmd_pack(int argc, char **argv, struct repro_err **err);
int cmd_export(int argc, char **argv, struct repro_err **err);
int cmd_report(int argc, char **argv, struct repro_err **err);
/* cmd_complete - `repro __complete syscalls|errnos|signals`: words for the shell completions. */
int cmd_complete(int argc, char **argv, struct repro_err **err);
int cmd_sweep(int argc, char **argv, struct repro_err **err);
int cmd_replay(int argc, char **argv, struct repro_err **err);

#endif
