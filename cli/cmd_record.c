/*
 * repro record [-o FILE] [--trace=CLASSES] [--net=host|none] [--sandbox=MODE] [--ptrace-only]
 *              [--wait=all|main] [--overlay[=PATH,...]] [--keep-overlay DIR] -- CMD [ARG...]
 * Runs CMD under the tracer and writes a bundle (docs/bundle-format.md):
 * the options go to one sess_run() (session/session.h), whose result
 * becomes repro's exit status.
 */
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/reading.h"
#include "cli/run.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "replayer/policies/inject.h"
#include "session/session.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_LIST 64

struct record_opts {
	struct sess_options sess; /* what sess_run() is given */
	const char *keep_env[MAX_LIST + 1]; /* NULL-terminated */
	const char *redact[MAX_LIST + 1]; /* NULL-terminated */
	size_t nkeep, nredact;
	bool deny_io_uring;
	bool verbose;
	struct rpl_rules *rules; /* owned: --inject rules, or NULL */
	uint64_t seed; /* --seed: prob= draws */
	const char *overlay[MAX_LIST + 1]; /* --overlay=PATH,...: NULL-terminated, into ovl_text */
	size_t noverlay;
	char *ovl_text[MAX_LIST]; /* owned: copies of the --overlay values, split at ',' */
	size_t novl_text;
};

/* --inject RULE, or strace's -e inject=RULE / -e fault=RULE: one more rule, parsed now. */
static int add_rule(struct record_opts *o, int c, const char *text, struct repro_err **err)
{
	if (c == 'e' && strncmp(text, "inject=", 7) != 0 && strncmp(text, "fault=", 6) != 0)
		return repro_err_set(err, EINVAL,
				     "record -e: only inject=RULE and fault=RULE are understood, "
				     "got '%s'",
				     text);
	if (o->rules == NULL)
		o->rules = rpl_rules_new();
	if (rpl_rules_add(o->rules, text, err) < 0)
		return repro_err_wrap(err, "record --inject");
	return rpl_inject_check(o->rules, err) < 0 ? repro_err_wrap(err, "record --inject") : 0;
}

static int parse_seed(struct record_opts *o, const char *text, struct repro_err **err)
{
	char *end;

	errno = 0;
	o->seed = strtoull(text, &end, 0);
	if (errno != 0 || end == text || *end != '\0' || text[0] == '-')
		return repro_err_set(err, EINVAL, "record --seed: expected a number, got '%s'",
				     text);
	return 0;
}

/* --overlay[=PATH,...]: the paths, split at ','; without a value, the defaults. */
static int add_overlay(struct record_opts *o, const char *value, struct repro_err **err)
{
	char *text, *save = NULL;

	o->sess.is_overlay = true;
	if (value == NULL)
		return 0;
	if (o->novl_text >= MAX_LIST)
		return repro_err_set(err, E2BIG, "record: at most %d --overlay", MAX_LIST);
	text = o->ovl_text[o->novl_text++] = repro_xstrdup(value);
	for (char *p = strtok_r(text, ",", &save); p != NULL; p = strtok_r(NULL, ",", &save)) {
		if (o->noverlay >= MAX_LIST)
			return repro_err_set(err, E2BIG, "record --overlay: at most %d paths",
					     MAX_LIST);
		o->overlay[o->noverlay++] = p;
	}
	if (o->noverlay == 0)
		return repro_err_set(err, EINVAL, "record --overlay: no path in '%s'", value);
	return 0;
}

static int parse_opt(struct record_opts *o, int c, struct repro_err **err)
{
	switch (c) {
	case 'o': o->sess.output = optarg; return 0;
	case 't':
		return sess_classes_parse(optarg, &o->sess.classes, err) < 0
			       ? repro_err_wrap(err, "record --trace")
			       : 0;
	case 'n':
		if (strcmp(optarg, "none") != 0 && strcmp(optarg, "host") != 0)
			return repro_err_set(err, EINVAL,
					     "record --net: expected 'host' or 'none', got '%s'",
					     optarg);
		o->sess.net_none = strcmp(optarg, "none") == 0;
		return 0;
	case 'S': o->sess.sandbox = SESS_SANDBOX_NONE; return 0;
	case 's':
		if (strcmp(optarg, "auto") == 0)
			o->sess.sandbox = SESS_SANDBOX_AUTO;
		else if (strcmp(optarg, "require") == 0)
			o->sess.sandbox = SESS_SANDBOX_REQUIRE;
		else if (strcmp(optarg, "none") == 0)
			o->sess.sandbox = SESS_SANDBOX_NONE;
		else
			return repro_err_set(
				err, EINVAL,
				"record --sandbox: expected 'auto', 'require' or 'none', got '%s'",
				optarg);
		return 0;
	case 'P': o->sess.ptrace_only = true; return 0;
	case 'w':
		if (strcmp(optarg, "all") != 0 && strcmp(optarg, "main") != 0)
			return repro_err_set(err, EINVAL,
					     "record --wait: expected 'all' or 'main', got '%s'",
					     optarg);
		o->sess.wait_all = strcmp(optarg, "all") == 0;
		return 0;
	case 'v': o->verbose = true; return 0;
	case 'k':
	case 'r':
		if ((c == 'k' ? o->nkeep : o->nredact) >= MAX_LIST)
			return repro_err_set(err, E2BIG, "record: at most %d --keep-env / --redact",
					     MAX_LIST);
		if (c == 'k')
			o->keep_env[o->nkeep++] = optarg;
		else
			o->redact[o->nredact++] = optarg;
		return 0;
	case 'H': o->sess.redact_hostname = true; return 0;
	case 'M': return cli_parse_size("record --hash-max", optarg, &o->sess.hash_max, err);
	case 'X': o->sess.hash_secrets = true; return 0;
	case 'U':
		if (strcmp(optarg, "allow") != 0 && strcmp(optarg, "deny") != 0)
			return repro_err_set(
				err, EINVAL,
				"record --io-uring: expected 'allow' or 'deny', got '%s'", optarg);
		o->deny_io_uring = strcmp(optarg, "deny") == 0;
		return 0;
	case 'I':
	case 'e': return add_rule(o, c, optarg, err);
	case 'D': return parse_seed(o, optarg, err);
	case 'O': return add_overlay(o, optarg, err);
	case 'K': o->sess.keep_overlay = optarg; return 0;
	default: return repro_err_set(err, EINVAL, "record: bad option; see 'repro record --help'");
	}
}

/* --overlay needs the mount namespace of the sandbox; --keep-overlay needs --overlay. */
static int check_overlay(struct record_opts *o, struct repro_err **err)
{
	if (o->sess.keep_overlay != NULL && !o->sess.is_overlay)
		return repro_err_set(err, EINVAL, "record: --keep-overlay needs --overlay");
	if (o->sess.is_overlay && o->sess.sandbox == SESS_SANDBOX_NONE)
		return repro_err_set(err, EINVAL,
				     "record: --overlay needs a mount namespace, which "
				     "--sandbox=none (--no-sandbox) does not make");
	o->sess.overlay_paths = o->overlay;
	o->sess.noverlay_paths = o->noverlay;
	return 0;
}

/* Returns 1 when --help was given, 0 to go on, -1 on a bad option. */
static int parse_record_args(int argc, char **argv, struct record_opts *o, struct repro_err **err)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "trace", required_argument, NULL, 't' },
		{ "net", required_argument, NULL, 'n' },
		{ "no-sandbox", no_argument, NULL, 'S' },
		{ "sandbox", required_argument, NULL, 's' },
		{ "ptrace-only", no_argument, NULL, 'P' },
		{ "wait", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "keep-env", required_argument, NULL, 'k' },
		{ "redact", required_argument, NULL, 'r' },
		{ "redact-hostname", no_argument, NULL, 'H' },
		{ "hash-max", required_argument, NULL, 'M' },
		{ "hash-secrets", no_argument, NULL, 'X' },
		{ "io-uring", required_argument, NULL, 'U' },
		{ "inject", required_argument, NULL, 'I' },
		{ "seed", required_argument, NULL, 'D' },
		{ "overlay", optional_argument, NULL, 'O' },
		{ "keep-overlay", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct record_opts){ .sess = { .classes = SESS_CLASS_ALL,
					     .sandbox = SESS_SANDBOX_AUTO,
					     .wait_all = true,
					     .hash_max = 64ull << 20 } };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:e:vh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cli_usage("record"), stdout);
			return 1;
		}
		if (c == '?')
			return repro_err_set(
				err, EINVAL,
				"record: unknown option '%s'; see 'repro record --help'",
				argv[optind - 1]);
		if (c == ':')
			return repro_err_set(err, EINVAL, "record: option '%s' needs a value",
					     argv[optind - 1]);
		if (parse_opt(o, c, err) < 0)
			return -1;
	}
	if (o->sess.net_none && o->sess.sandbox == SESS_SANDBOX_NONE)
		return repro_err_set(err, EINVAL,
				     "record: --net=none needs a network namespace, which "
				     "--sandbox=none (--no-sandbox) does not make");
	if (check_overlay(o, err) < 0)
		return -1;
	if (optind >= argc)
		return repro_err_set(
			err, EINVAL,
			"record: no command given; usage: repro record [OPTIONS] -- CMD [ARG...]");
	o->sess.argv = argv + optind;
	if (o->rules != NULL)
		rpl_rules_seed(o->rules, o->seed);
	o->sess.keep_env = o->keep_env;
	o->sess.redact = o->redact;
	return 0;
}

static char *default_output(const char *cmd)
{
	cleanup_free char *copy = repro_xstrdup(cmd);
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
	return repro_xasprintf("%s-%s.repro", basename(copy), stamp);
}

/* The exit status: the program's, 128+N for a signal; as a shell says a failed exec. */
static int mirror(const struct record_opts *o, const struct sess_result *r)
{
	const char *where = r->bundle_path != NULL ? r->bundle_path : r->spool_dir;
	const char *cmd = o->sess.argv[0];
	int st = r->wait_status;

	if (r->exec_errnum != 0) {
		/* as a shell says it, with the shell's status: 127 not found, 126 not executable */
		if (r->is_not_in_path && r->exec_errnum == ENOENT)
			fprintf(stderr, "repro: %s: command not found (recorded in '%s')\n", cmd,
				where);
		else
			fprintf(stderr, "repro: cannot execute '%s': %s (recorded in '%s')\n", cmd,
				strerror(r->exec_errnum), where);
		return WEXITSTATUS(st);
	}
	if (r->bundle_path != NULL && (o->verbose || isatty(STDERR_FILENO)))
		fprintf(stderr, "repro: recorded %llu events into '%s'\n",
			(unsigned long long)r->nevents, r->bundle_path);
	if (o->verbose)
		fprintf(stderr,
			"repro: time: setup %.1f ms, spawn %.1f ms, program %.1f ms, after %.1f ms, "
			"pack %.1f ms\n",
			(double)r->timing.setup_ns / 1e6, (double)r->timing.spawn_ns / 1e6,
			(double)r->timing.program_ns / 1e6, (double)r->timing.after_ns / 1e6,
			(double)r->timing.pack_ns / 1e6);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* A rule that never fired is named: the run took another path, or the rule is wrong. */
static void name_unfired(const struct rpl_rules *rules)
{
	for (size_t i = 0; rules != NULL && i < rpl_rules_count(rules); i++) {
		if (rpl_rules_fired(rules, i) > 0)
			continue;
		fprintf(stderr, "repro: rule %zu (", i + 1);
		rpl_rules_describe(rules, i, stderr);
		fputs(") never fired\n", stderr);
	}
}

/* The run (cli/run.h), then the rules that never fired named. */
static int record(struct record_opts *o, struct sess_result *res, struct repro_err **err)
{
	if (cli_run(&o->sess, NULL, o->rules, o->deny_io_uring, res, err) < 0)
		return -1;
	name_unfired(o->rules);
	return 0;
}

static void record_opts_release(struct record_opts *o)
{
	rpl_rules_free(o->rules);
	for (size_t i = 0; i < o->novl_text; i++)
		free(o->ovl_text[i]);
}
#define cleanup_record_opts __attribute__((cleanup(record_opts_release)))

int cmd_record(int argc, char **argv, struct repro_err **err)
{
	cleanup_record_opts struct record_opts o = { 0 };
	cleanup_free char *output = NULL;
	struct sess_result res = { 0 };
	int rc = parse_record_args(argc, argv, &o, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (o.sess.output == NULL)
		o.sess.output = output = default_output(o.sess.argv[0]);
	if (record(&o, &res, err) < 0)
		return -1;
	rc = mirror(&o, &res);
	sess_result_release(&res);
	return rc;
}
