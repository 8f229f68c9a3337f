/*
 * repro - record how a program meets the operating system.
 * main: global options, the command table, the one place that prints an
 * error and chooses the exit status (docs/errors.md).
 */
#include "cli/commands.h"
#include "cli/signals.h"
#include "common/cleanup.h"
#include "common/term.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct repro_err **err);
	const char *summary;
};

static const struct cmd commands[] = {
	{ "record", cmd_record, "run a program and record its syscalls into a bundle" },
	{ "show", cmd_show, "print what a bundle holds: processes, failures, trace" },
	{ "explain", cmd_explain, "say why a recorded run failed, most likely cause first" },
	{ "diff", cmd_diff, "compare a working and a broken recording, cause first" },
	{ "sweep", cmd_sweep,
	  "run a program once per fault on what it depends on, and say how it coped" },
	{ "replay", cmd_replay,
	  "re-run a recorded command here with its recorded failures imposed" },
	{ "report", cmd_report, "write a run, or two side by side, as one HTML page" },
	{ "export", cmd_export, "write a bundle as a timeline for Perfetto (chrome-trace)" },
	{ "pack", cmd_pack, "pack the spool a recording left behind (killed, or no room)" },
	{ "__complete", cmd_complete, NULL }, /* for completions/: not listed */
};

static void usage(FILE *out)
{
	fprintf(out, "usage: repro [--help] [--version] COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].summary != NULL)
			fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-8s %s\n", "help", "describe a command: repro help COMMAND");
	fprintf(out, "\n'repro help COMMAND' (or 'repro COMMAND --help') describes a command;\n"
		     "the manual: man repro (repro(1)), man repro-COMMAND, man 5 repro-bundle.\n");
}

static const struct cmd *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* 0, or 2 with a line when what went to standard output could not all be written. */
static int stdout_status(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "repro: cannot write to standard output: %s\n", strerror(errno));
		return 2;
	}
	return 0;
}

static void print_error(struct repro_err *e);

/* `repro help NAME`: NAME's own --help, as `repro NAME --help` prints it. */
static int command_help(const char *name, struct repro_err **err)
{
	char *argv[] = { (char *)name, (char *)"--help", NULL };
	const struct cmd *cmd = find_command(name);
	int status;

	if (cmd == NULL) {
		fprintf(stderr, "repro: help: '%s' is not a repro command; see 'repro --help'\n",
			name);
		return 2;
	}
	optind = 0;
	status = cmd->fn(2, argv, err);
	if (status < 0) {
		print_error(*err);
		return 2;
	}
	return status == 0 ? stdout_status() : status;
}

/* 0 to go on, or the exit status when the global options were all there was to do. */
static int parse_global(int argc, char **argv, int *status)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0; /* our own message below, prefixed repro: */
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			*status = stdout_status();
			return 1;
		}
		if (c == 'V') {
			printf("repro %s\n", REPRO_VERSION);
			*status = stdout_status();
			return 1;
		}
		fprintf(stderr, "repro: unknown option '%s'; see 'repro --help'\n",
			argv[optind - 1]);
		*status = 2;
		return 1;
	}
	return 0;
}

static void print_error(struct repro_err *e)
{
	cleanup_free char *text = NULL;

	/* our own bad-input messages say it all; strerror would only add "Invalid argument" */
	if (e->errnum == EPROTO || e->errnum == EINVAL)
		e->errnum = 0;
	text = repro_err_format(e);
	fflush(stdout);
	/* a message may quote a hostile bundle: through the one terminal sanitiser */
	fputs("repro: ", stderr);
	repro_term_puts(stderr, text);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	cleanup_err struct repro_err *err = NULL;
	const struct cmd *cmd;
	int status = 0;

	/* before any handler of repro's own: the program starts with these (cli/signals.h) */
	cli_signals_save_inherited();
	if (parse_global(argc, argv, &status))
		return status;
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[optind], "help") == 0 &&
	    (optind + 1 >= argc || strcmp(argv[optind + 1], "help") == 0 ||
	     strcmp(argv[optind + 1], "-h") == 0 || strcmp(argv[optind + 1], "--help") == 0)) {
		usage(stdout);
		return stdout_status();
	}
	if (strcmp(argv[optind], "help") == 0 && optind + 2 < argc) {
		fprintf(stderr, "repro: help: give one command (repro help COMMAND)\n");
		return 2;
	}
	if (strcmp(argv[optind], "help") == 0)
		return command_help(argv[optind + 1], &err);
	cmd = find_command(argv[optind]);
	if (cmd == NULL) {
		fprintf(stderr, "repro: '%s' is not a repro command; see 'repro --help'\n",
			argv[optind]);
		return 2;
	}
	argv += optind;
	argc -= optind;
	optind = 0; /* reset getopt for the command (glibc: 0 reinitialises) */
	status = cmd->fn(argc, argv, &err);
	if (status < 0) {
		print_error(err);
		return 2;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "repro: cannot write to standard output: %s\n", strerror(errno));
		return 2;
	}
	return status;
}
