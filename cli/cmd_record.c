/*
 * repro record [-o FILE] [--trace=CLASSES] [--net=host|none] [--sandbox=MODE] [--ptrace-only]
 *              [--wait=all|main] -- CMD [ARG...]
 * Runs CMD under the tracer and writes a bundle (docs/bundle-format.md).
 */
#include "cli/commands.h"
#include "cli/reading.h"
#include "cli/signals.h"
#include "bundles/pack.h"
#include "bundles/spool.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"
#include "launcher/launcher.h"
#include "recorder/files.h"
#include "recorder/host.h"
#include "recorder/iouring.h"
#include "recorder/network.h"
#include "recorder/waits.h"
#include "recorder/redact.h"
#include "recorder/recorder.h"
#include "recorder/render.h"
#include "recorder/systab.h"
#include "replayer/deny.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_LIST 64

struct record_opts {
	const char *output;
	char *output_owned;
	const char *keep_env[MAX_LIST + 1]; /* NULL-terminated */
	const char *redact[MAX_LIST + 1]; /* NULL-terminated */
	size_t nkeep, nredact;
	bool redact_hostname;
	uint64_t hash_max; /* bytes */
	bool hash_secrets;
	bool deny_io_uring;
	unsigned classes;
	bool net_none;
	enum lnch_sandbox_mode sandbox;
	bool ptrace_only;
	bool wait_all;
	bool verbose;
	char **argv;
};

static const char usage_text[] =
	"usage: repro record [OPTIONS] -- CMD [ARG...]\n"
	"\n"
	"Run CMD as it would run without repro, recording its file, network and\n"
	"process syscalls into a bundle.  repro exits with CMD's exit status\n"
	"(128+N when a signal N killed it).\n"
	"\n"
	"  -o, --output FILE     bundle to write (default: CMD-YYYYmmdd-HHMMSS.repro)\n"
	"      --trace CLASSES   comma list of file, network, process (default: all)\n"
	"      --net MODE        host (default) or none: a network namespace with\n"
	"                        only loopback, so nothing leaves the machine\n"
	"      --sandbox MODE    auto (default): a private mount namespace (and a user\n"
	"                        namespace unless repro runs as root), or none where\n"
	"                        the kernel refuses them, said in one line; require:\n"
	"                        refuse to run without them; none: no namespaces\n"
	"      --no-sandbox      the same as --sandbox=none\n"
	"      --ptrace-only     stop at every traced call with ptrace, also where repro\n"
	"                        would answer stat/access/readlink calls itself through\n"
	"                        seccomp user notification (slower)\n"
	"      --wait MODE       all (default): record until every process CMD started\n"
	"                        has ended; main: stop when CMD ends, killing the rest\n"
	"      --keep-env NAME   keep the value of environment variable NAME (a glob;\n"
	"                        repeatable); names with TOKEN, SECRET, PASSWORD, KEY,\n"
	"                        AUTH, COOKIE, SESSION… are redacted all the same\n"
	"      --redact REGEX    also redact what matches REGEX in arguments (repeatable)\n"
	"      --redact-hostname replace the host name in host.json\n"
	"      --hash-max SIZE   hash touched files up to SIZE (default 64M; 0: none)\n"
	"      --hash-secrets    hash also files under 256 bytes, owner-only files and\n"
	"                        key, token and credential files (a guess at their\n"
	"                        content can be checked against the hash)\n"
	"      --io-uring MODE   allow (default; the bundle warns when a program uses it)\n"
	"                        or deny: io_uring_setup fails with ENOSYS, so programs\n"
	"                        fall back to syscalls that repro sees\n"
	"  -v, --verbose         say where the bundle went\n"
	"  -h, --help            this text\n";

static int parse_opt(struct record_opts *o, int c, struct repro_err **err)
{
	switch (c) {
	case 'o': o->output = optarg; return 0;
	case 't':
		return rec_classes_parse(optarg, &o->classes, err) < 0
			       ? repro_err_wrap(err, "record --trace")
			       : 0;
	case 'n':
		if (strcmp(optarg, "none") != 0 && strcmp(optarg, "host") != 0)
			return repro_err_set(err, EINVAL,
					     "record --net: expected 'host' or 'none', got '%s'",
					     optarg);
		o->net_none = strcmp(optarg, "none") == 0;
		return 0;
	case 'S': o->sandbox = LNCH_SANDBOX_NONE; return 0;
	case 's':
		if (strcmp(optarg, "auto") == 0)
			o->sandbox = LNCH_SANDBOX_AUTO;
		else if (strcmp(optarg, "require") == 0)
			o->sandbox = LNCH_SANDBOX_REQUIRE;
		else if (strcmp(optarg, "none") == 0)
			o->sandbox = LNCH_SANDBOX_NONE;
		else
			return repro_err_set(
				err, EINVAL,
				"record --sandbox: expected 'auto', 'require' or 'none', got '%s'",
				optarg);
		return 0;
	case 'P': o->ptrace_only = true; return 0;
	case 'w':
		if (strcmp(optarg, "all") != 0 && strcmp(optarg, "main") != 0)
			return repro_err_set(err, EINVAL,
					     "record --wait: expected 'all' or 'main', got '%s'",
					     optarg);
		o->wait_all = strcmp(optarg, "all") == 0;
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
	case 'H': o->redact_hostname = true; return 0;
	case 'M': return cli_parse_size("record --hash-max", optarg, &o->hash_max, err);
	case 'X': o->hash_secrets = true; return 0;
	case 'U':
		if (strcmp(optarg, "allow") != 0 && strcmp(optarg, "deny") != 0)
			return repro_err_set(
				err, EINVAL,
				"record --io-uring: expected 'allow' or 'deny', got '%s'", optarg);
		o->deny_io_uring = strcmp(optarg, "deny") == 0;
		return 0;
	default: return repro_err_set(err, EINVAL, "record: bad option; see 'repro record --help'");
	}
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct record_opts){ .classes = REC_CLASS_ALL,
				   .sandbox = LNCH_SANDBOX_AUTO,
				   .wait_all = true,
				   .hash_max = 64ull << 20 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:vh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
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
	if (o->net_none && o->sandbox == LNCH_SANDBOX_NONE)
		return repro_err_set(err, EINVAL,
				     "record: --net=none needs a network namespace, which "
				     "--sandbox=none (--no-sandbox) does not make");
	if (optind >= argc)
		return repro_err_set(
			err, EINVAL,
			"record: no command given; usage: repro record [OPTIONS] -- CMD [ARG...]");
	o->argv = argv + optind;
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

/* $TMPDIR when it is an absolute path, else /tmp. */
static const char *tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp != NULL && tmp[0] == '/' ? tmp : "/tmp";
}

/*
 * The spool lives in $TMPDIR (default /tmp), out of the program's sight: a
 * spool in its working directory would show in `ls -A` and could be removed
 * by `git clean`.  mkdtemp(3) makes it private (0700) and unique.
 */
static char *spool_dir_for(const char *dir, const char *output)
{
	cleanup_free char *b = repro_xstrdup(output);

	return repro_xasprintf("%s/repro-%.64s.XXXXXX", dir, basename(b));
}

static int make_spool_dir(char *dir_template, struct repro_err **err)
{
	if (mkdtemp(dir_template) == NULL)
		return repro_err_set(err, errno, "cannot create a spool directory '%s'",
				     dir_template);
	return 0;
}

static bool same_fs(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev;
}

/*
 * Check the bundle path before the program runs, so that nothing the program
 * does is lost to a bad -o: an existing non-regular file (a device, a
 * directory) is refused, and a probe file proves the directory is writable
 * and the temporary name fits (bndl_pack() writes OUT.tmp-XXXXXX there).
 */
static int check_output(const char *out, struct repro_err **err)
{
	cleanup_free char *probe = repro_xasprintf("%s.tmp-XXXXXX", out);
	struct stat st;
	int fd;

	if (out[0] == '\0')
		return repro_err_set(err, EINVAL, "record: empty output path");
	if (lstat(out, &st) == 0 && !S_ISREG(st.st_mode))
		return repro_err_set(err, 0,
				     "cannot write the bundle to '%s': it exists and is not a "
				     "regular file",
				     out);
	fd = mkostemp(probe, O_CLOEXEC);
	if (fd < 0 && bndl_is_disk_full(errno))
		return 0; /* a full disk is no bad path: the bundle will go elsewhere (pack()) */
	if (fd < 0)
		return repro_err_set(err, errno, "cannot write the bundle to '%s'", out);
	close(fd);
	unlink(probe);
	return 0;
}

/* Everything a recording holds, released in one place. */
struct session {
	struct record_opts *o;
	char *spool_dir;
	struct bndl_spool *spool;
	struct rec_systab *tab;
	struct rec_recorder *rec;
	struct lnch_child child;
	struct lnch_loop *loop;
	struct bndl_run_info info;
	char classes[64];
	char cwd[4096];
	char warnings[1024];
	struct lnch_result res;
	bool made_spool;
	struct rec_redact *redact;
	struct rpl_deny *deny; /* --io-uring=deny */
	json_t *redacted; /* names of what was redacted */
	char **argv_shown; /* argv as it may leave the machine */
	/* host.json is gathered by a thread while the program runs */
	pthread_t host_thread;
	bool host_started;
	int host_rc;
	struct repro_err *host_err;
	json_t *host_json; /* the facts, kept for a work directory other than the spool */
	bool host_in_spool; /* host.json was written into the spool directory */
	/* after the run */
	struct bndl_spool_drops drops; /* what the full spool left out */
	struct bndl_event *lost; /* the process records it had no room for (fixed parts) */
	size_t nlost;
	bool lost_end; /* nor for its END record */
	char *written; /* the bundle's path; NULL when the spool was kept */
	char *full_output; /* -o, when its filesystem had no room for the bundle */
	char tried[512]; /* the other places tried for it, ", "-separated */
};

static int host_join(struct session *s, struct repro_err **err);
static void add_warning(struct session *s, const char *note);
static void waiting_notice(void *ctx, const pid_t *pids, size_t shown, size_t n);

static void session_release(struct session *s)
{
	(void)host_join(s, NULL);
	for (size_t i = 0; s->argv_shown != NULL && s->argv_shown[i] != NULL; i++)
		free(s->argv_shown[i]);
	free(s->argv_shown);
	json_decref(s->redacted);
	json_decref(s->host_json);
	free(s->written);
	free(s->full_output);
	free(s->lost);
	rec_redact_free(s->redact);
	rpl_deny_free(s->deny);
	lnch_loop_free(s->loop);
	rec_recorder_free(s->rec);
	rec_systab_free(s->tab);
	lnch_child_release(&s->child);
	if (s->spool != NULL)
		bndl_spool_close(s->spool, NULL);
	free(s->spool_dir);
}
#define cleanup_session __attribute__((cleanup(session_release)))

static void fill_info(struct session *s)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (getcwd(s->cwd, sizeof(s->cwd)) == NULL)
		snprintf(s->cwd, sizeof(s->cwd), "?");
	rec_classes_format(s->o->classes, s->classes, sizeof(s->classes));
	s->info = (struct bndl_run_info){
		.argv = s->argv_shown,
		.redacted = s->redacted,
		.cwd = s->cwd,
		.started_at_s = now.tv_sec,
		.started_at_ns = now.tv_nsec,
		.trace_classes = s->classes,
		.net_mode = s->o->net_none ? "none" : "host",
		.sandbox = "pending", /* set once the child exists (launcher: what it could make) */
		.tool_version = "repro " REPRO_VERSION,
	};
}

/* The redaction policy, the argv for the manifest, and host.json in the spool. */
static int redact_and_host(struct session *s, struct repro_err **err)
{
	size_t n = 0;

	s->redact = rec_redact_new(s->o->keep_env, s->o->redact, err);
	if (s->redact == NULL)
		return repro_err_wrap(err, "record");
	rec_redact_learn_env(s->redact, (const char *const *)environ);
	if (s->o->redact_hostname)
		rec_redact_hide_hostname(s->redact);
	s->redacted = json_array();
	while (s->o->argv[n] != NULL)
		n++;
	s->argv_shown = rec_redact_argv(s->redact, (const char *const *)s->o->argv, n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(s->argv_shown[i], s->o->argv[i]) != 0)
			rec_redact_note(s->redacted, "argv");
	return 0;
}

/* host.json in dir from the facts gathered; a partial file is removed. */
static int dump_host(const struct session *s, const char *dir, struct repro_err **err)
{
	cleanup_free char *path = repro_xasprintf("%s/host.json", dir);

	if (json_dump_file(s->host_json, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
		int e = errno ? errno : EIO;

		(void)unlink(path);
		return repro_err_set(err, e, "cannot write '%s'", path);
	}
	return 0;
}

/*
 * Gather host.json and write it into the spool, for a `repro pack` after a
 * killed recording.  A full disk is no error: the facts stay in memory for
 * the work directory of the pack.
 */
static int write_host(struct session *s, struct repro_err **err)
{
	struct rec_host_opts ho = {
		.redact = s->redact,
		.envp = (const char *const *)environ,
		.sandbox = s->info.sandbox,
		.redact_hostname = s->o->redact_hostname,
		.redacted = s->redacted,
	};
	cleanup_err struct repro_err *werr = NULL;

	s->host_json = rec_host_collect(&ho, err);
	if (s->host_json == NULL)
		return -1;
	if (dump_host(s, s->spool_dir, &werr) == 0) {
		s->host_in_spool = true;
		return 0;
	}
	if (bndl_is_disk_full(werr->errnum))
		return 0;
	*err = steal_ptr(&werr);
	return -1;
}

static void *host_main(void *arg)
{
	struct session *s = arg;

	s->host_rc = write_host(s, &s->host_err);
	return NULL;
}

/*
 * Gather host.json in a thread while the program runs (it costs several ms
 * of reading /proc and /etc).  The thread blocks every signal, so that the
 * loop's SIGALRM tick and forwarded signals reach the main thread.  Where
 * no thread can be made, it is gathered here and now.
 */
static void host_start(struct session *s)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->host_started = pthread_create(&s->host_thread, NULL, host_main, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->host_started)
		s->host_rc = write_host(s, &s->host_err);
}

/* Wait for host.json; its error, if any, moves to *err (dropped when err is NULL). */
static int host_join(struct session *s, struct repro_err **err)
{
	if (s->host_started) {
		pthread_join(s->host_thread, NULL);
		s->host_started = false;
	}
	if (s->host_rc == 0)
		return 0;
	s->host_rc = 0;
	if (err != NULL) {
		*err = s->host_err;
		s->host_err = NULL;
		return -1;
	}
	repro_err_free(&s->host_err);
	return 0;
}

/* The spool directory in dir, with run.json and events.spool; a failed attempt leaves nothing. */
static int spool_in(struct session *s, const char *dir, struct repro_err **err)
{
	free(s->spool_dir);
	s->spool_dir = spool_dir_for(dir, s->o->output);
	if (make_spool_dir(s->spool_dir, err) < 0)
		return -1;
	if (bndl_runinfo_save(s->spool_dir, &s->info, err) == 0 &&
	    (s->spool = bndl_spool_open(s->spool_dir, err)) != NULL) {
		s->made_spool = true;
		return 0;
	}
	(void)bndl_spool_remove(s->spool_dir, NULL);
	return -1;
}

/*
 * The spool goes to $TMPDIR; where that has no room even for the spool's
 * start (ENOSPC, EDQUOT), to the first of bndl_scratch_dirs() on another
 * filesystem that has, said in one line.  Room nowhere is an error: the
 * program has not run, so nothing is lost.
 */
static int make_spool(struct session *s, struct repro_err **err)
{
	cleanup_err struct repro_err *first = NULL;
	cleanup_dirs char **dirs = NULL;
	const char *tmp = tmpdir();

	if (spool_in(s, tmp, &first) == 0)
		return 0;
	if (!bndl_is_disk_full(first->errnum)) {
		*err = steal_ptr(&first);
		return -1;
	}
	dirs = bndl_scratch_dirs(NULL);
	for (size_t i = 0; dirs[i] != NULL; i++) {
		cleanup_err struct repro_err *again = NULL;

		if (same_fs(dirs[i], tmp) || spool_in(s, dirs[i], &again) < 0)
			continue;
		fprintf(stderr, "repro: no room for the spool in '%s' (%s): it is in '%s'\n", tmp,
			strerror(first->errnum), s->spool_dir);
		return 0;
	}
	*err = steal_ptr(&first);
	return -1;
}

static int start(struct session *s, struct repro_err **err)
{
	cleanup_free struct lnch_filter_rule *rules = NULL;
	struct lnch_spawn_opts so = { .argv = s->o->argv,
				      .sandbox = s->o->sandbox,
				      .net_none = s->o->net_none,
				      .notify = !s->o->ptrace_only };

	if (redact_and_host(s, err) < 0)
		return -1;
	fill_info(s);
	if (check_output(s->o->output, err) < 0 || make_spool(s, err) < 0)
		return -1;
	s->tab = rec_systab_new();
	rules = rec_filter_rules(s->o->classes, &so.nrules);
	so.rules = rules;
	if (lnch_child_spawn(&so, &s->child, err) < 0)
		return -1;
	s->info.sandbox = s->child.sandbox;
	if (s->child.fallback[0] != '\0') {
		fprintf(stderr, "repro: %s\n", s->child.fallback);
		add_warning(s, s->child.fallback);
	}
	if (bndl_runinfo_save(s->spool_dir, &s->info, err) < 0)
		return -1;
	host_start(s);
	s->rec = rec_recorder_new(s->spool, s->tab, s->child.pid);
	s->loop = lnch_loop_new(&s->child, s->o->wait_all, cli_signals_stop_requested, NULL);
	lnch_loop_add_observer(s->loop, rec_recorder_ops(), s->rec);
	if (s->o->wait_all)
		lnch_loop_set_waiting_notice(s->loop, 1000000000u, waiting_notice, s);
	if (s->o->deny_io_uring) {
		s->deny = rpl_deny_new("io_uring_setup", ENOSYS, err);
		if (s->deny == NULL)
			return -1;
		lnch_loop_add_policy(s->loop, rpl_deny_ops(), s->deny);
	}
	return 0;
}

/* --wait=all: the command ended a second ago and left processes running. */
static void waiting_notice(void *ctx, const pid_t *pids, size_t shown, size_t n)
{
	const struct session *s = ctx;

	fprintf(stderr, "repro: %s has ended; still recording %zu process%s it left running (pid",
		s->o->argv[0], n, n == 1 ? "" : "es");
	for (size_t i = 0; i < shown; i++)
		fprintf(stderr, "%s %d", i ? "," : "", (int)pids[i]);
	fprintf(stderr, "%s): --wait=main stops when the command ends\n", shown < n ? ", ..." : "");
}

static void finish_info(struct session *s)
{
	int st = s->res.main_status;
	char note[160];

	s->info.duration_ns = s->res.end_ns;
	s->info.has_exit = s->res.main_seen;
	s->info.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	s->info.exit_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	s->info.core_dumped = WIFSIGNALED(st) && WCOREDUMP(st);
	if (s->res.left_running > 0) {
		snprintf(
			note, sizeof(note),
			"%u process(es) were still running when the recording stopped and were killed",
			s->res.left_running);
		add_warning(s, note);
		/* the one way a run differs from one without repro: they would have lived on */
		fprintf(stderr,
			"repro: %u process(es) the program left running were killed when the "
			"recording stopped (a traced process cannot outlive repro; 'repro show' "
			"names them)\n",
			s->res.left_running);
	}
}

/*
 * The spool's last record says how the run ended and what a full disk cost,
 * so that a spool kept for a later `repro pack` packs as this one would;
 * then the spool is closed, which frees what its reserve did not need for
 * what is derived next.  What a full filesystem kept out of the spool (the
 * drops, the process records, the END record itself) goes to the pack
 * through the run info: this recording saw it all.
 */
static int end_spool(struct session *s, struct repro_err **err)
{
	struct bndl_spool *sp = steal_ptr(&s->spool);

	if (bndl_spool_end(sp, s->res.main_seen, s->res.main_status, s->res.end_ns, err) < 0) {
		bndl_spool_close(sp, NULL);
		return -1;
	}
	s->drops = *bndl_spool_drops(sp);
	s->lost = bndl_spool_take_lost(sp, &s->nlost);
	s->lost_end = bndl_spool_lost_end(sp);
	s->info.drops = &s->drops;
	s->info.lost_procs = s->lost;
	s->info.nlost_procs = s->nlost;
	return bndl_spool_close(sp, err);
}

/* Members derived from the spool after the run, packed after trace.txt. */
static const char *const extra_members[] = { "host.json", "files.jsonl", "network.jsonl",
					     "waits.jsonl", NULL };

/* Append a note to the manifest's warnings ("; "-separated in run info). */
static void add_warning(struct session *s, const char *note)
{
	size_t len = strlen(s->warnings);

	snprintf(s->warnings + len, sizeof(s->warnings) - len, "%s%s", len ? "; " : "", note);
	s->info.warnings = s->warnings;
}

/* files.jsonl, network.jsonl and host.json (with the filesystems used) in the directory work. */
static int derive(struct session *s, const char *work, struct repro_err **err)
{
	cleanup_free char *net = repro_xasprintf("%s/network.jsonl", work);
	cleanup_free char *waits = repro_xasprintf("%s/waits.jsonl", work);
	cleanup_free char *files = repro_xasprintf("%s/files.jsonl", work);
	cleanup_free char *host = repro_xasprintf("%s/host.json", work);
	struct rec_files_opts fo;
	struct rec_files_stats fs = { 0 };
	char note[512];

	if ((strcmp(work, s->spool_dir) != 0 || !s->host_in_spool) && dump_host(s, work, err) < 0)
		return -1;
	rec_files_opts_init(&fo);
	fo.hash_max_bytes = s->o->hash_max;
	fo.hash_secrets = s->o->hash_secrets;
	if (rec_files_write_stats(s->spool_dir, &fo, files, &fs, err) < 0)
		return -1;
	if (fs.setid_execs > 0 && geteuid() != 0) {
		/* ptrace(2): an unprivileged tracer keeps execve from gaining privileges */
		snprintf(note, sizeof(note),
			 "%.200s is set-user-ID or set-group-ID and ran without its privileges: a "
			 "tracer that is not root cannot let it gain them",
			 fs.setid_example);
		fprintf(stderr, "repro: %s\n", note);
		add_warning(s, note);
	}
	if (fs.dropped > 0) {
		snprintf(note, sizeof(note),
			 "%llu paths past the limit of files.jsonl were left out",
			 (unsigned long long)fs.dropped);
		add_warning(s, note);
	}
	if (rec_iouring_note(s->spool_dir, note, sizeof(note), err) < 0 ||
	    rec_host_add_fs_usage(host, files, err) < 0)
		return -1;
	if (note[0] != '\0')
		add_warning(s, note);
	if (rec_waits_write(s->spool_dir, waits, err) < 0)
		return -1;
	return rec_network_write(s->spool_dir, net, err);
}

/* Derive into work, then pack: the bundle goes to -o or, when that is full, into one of dirs. */
static int pack_via(struct session *s, const char *work, char *const *dirs, struct repro_err **err)
{
	const struct bndl_pack_dest dest = { .out_path = s->o->output,
					     .fallback_dirs = (const char *const *)dirs,
					     .scratch_dirs = (const char *const *)dirs };
	cleanup_renderer struct rec_renderer *r = NULL;
	struct bndl_render_ops ops;
	int rc;

	if (derive(s, work, err) < 0)
		return -1;
	r = rec_renderer_new(s->redact, s->redacted);
	rec_renderer_ops(r, &ops);
	s->info.extra_members = extra_members;
	s->info.extra_dir = work;
	rc = bndl_pack_to(s->spool_dir, &s->info, &ops, &dest, &s->written, err);
	s->info.extra_dir = NULL; /* work may go away */
	return rc;
}

/*
 * When the spool's filesystem has no room for what is derived after the
 * run, derive into a directory of its own in each of dirs on another
 * filesystem until one takes the bundle.  Returns 0 when packed, 1 when
 * every place was full, -1 with *err on other trouble.
 */
static int pack_elsewhere(struct session *s, char *const *dirs, size_t warnings_len,
			  struct repro_err **err)
{
	for (size_t i = 0; dirs[i] != NULL; i++) {
		cleanup_free char *work = repro_xasprintf("%s/repro-work.XXXXXX", dirs[i]);
		cleanup_err struct repro_err *werr = NULL;
		int rc;

		if (same_fs(dirs[i], s->spool_dir) || mkdtemp(work) == NULL)
			continue;
		s->warnings[warnings_len] = '\0'; /* derive() adds its notes again */
		rc = pack_via(s, work, dirs, &werr);
		(void)bndl_spool_remove(work, NULL);
		if (rc == 0)
			return 0;
		if (!bndl_is_disk_full(werr->errnum)) {
			*err = steal_ptr(&werr);
			return -1;
		}
	}
	return 1;
}

/* For the message: the places other than -o's filesystem that were tried for the bundle. */
static void note_tried(struct session *s, char *const *dirs, const char *out_dir)
{
	for (size_t i = 0; dirs[i] != NULL; i++) {
		size_t len = strlen(s->tried);

		if (!same_fs(dirs[i], out_dir))
			snprintf(s->tried + len, sizeof(s->tried) - len, "%s%s", len ? ", " : "",
				 dirs[i]);
	}
}

/*
 * Pack the spool.  Where a filesystem is full (ENOSPC, EDQUOT) the bundle
 * still comes out if any of bndl_scratch_dirs() has room (s->written says
 * where); when none has, the spool stays for a later `repro pack`
 * (s->written NULL) and this is no error.
 */
static int pack(struct session *s, struct repro_err **err)
{
	cleanup_free char *copy = repro_xstrdup(s->o->output);
	const char *out_dir = dirname(copy);
	cleanup_dirs char **dirs = bndl_scratch_dirs(out_dir);
	cleanup_err struct repro_err *perr = NULL;
	size_t warnings_len = strlen(s->warnings);
	int rc = pack_via(s, s->spool_dir, dirs, &perr);

	if (rc < 0 && !bndl_is_disk_full(perr->errnum)) {
		*err = steal_ptr(&perr);
		return -1;
	}
	if (rc < 0) {
		/* what the failed attempt derived into the spool would only take room */
		cleanup_free char *files = repro_path_join(s->spool_dir, "files.jsonl");
		cleanup_free char *net = repro_path_join(s->spool_dir, "network.jsonl");
		cleanup_free char *waits = repro_path_join(s->spool_dir, "waits.jsonl");

		(void)unlink(files);
		(void)unlink(net);
		(void)unlink(waits);
		rc = pack_elsewhere(s, dirs, warnings_len, err);
		if (rc < 0)
			return -1;
	}
	note_tried(s, dirs, out_dir);
	if (s->written == NULL)
		return 0; /* kept */
	if (strcmp(s->written, s->o->output) != 0)
		s->full_output = repro_xstrdup(s->o->output);
	(void)bndl_spool_remove(s->spool_dir, NULL);
	return 0;
}

/* A word for sh(1): single-quoted unless it is made of safe characters only. */
static void put_sh_word(FILE *f, const char *w)
{
	if (w[0] != '\0' && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				      "0123456789_./-+=:,@%") == strlen(w)) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w != '\0'; w++) {
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	}
	fputc('\'', f);
}

/*
 * One line when a filesystem was full: what the spool dropped, and where
 * the bundle went, or the command that makes it later.
 */
static void report_full_disk(const struct session *s)
{
	cleanup_free char *note = NULL;

	if (s->drops.errnum == 0 && s->full_output == NULL && s->written != NULL)
		return;
	fputs("repro: ", stderr);
	if (s->drops.errnum != 0) {
		note = bndl_drops_note(&s->drops, true, s->lost, s->nlost);
		fprintf(stderr, "%s; ", note);
	}
	if (s->written == NULL) {
		fprintf(stderr, "no room for the bundle at '%s'%s%s: the spool is kept",
			s->o->output, s->tried[0] ? " nor in " : "", s->tried);
		/* a later pack knows only what the spool holds */
		if (s->lost_end)
			fputs(" without its last record (a bundle made from it will not know the "
			      "counts of what was dropped)",
			      stderr);
		if (s->nlost > 0)
			fprintf(stderr,
				" without %zu process records (a bundle made from it may lack "
				"processes or exit statuses)",
				s->nlost);
		fputs("; make the bundle later with: repro pack ", stderr);
		put_sh_word(stderr, s->spool_dir);
		fputs(" -o ", stderr);
		put_sh_word(stderr, s->o->output);
		fputc('\n', stderr);
	} else if (s->full_output != NULL) {
		fprintf(stderr, "no room for the bundle at '%s': written to '%s' instead%s\n",
			s->full_output, s->written, s->drops.errnum ? ", marked incomplete" : "");
	} else {
		fprintf(stderr, "the bundle '%s' is marked incomplete\n", s->written);
	}
}

/* The exit status: the program's, 128+N for a signal, or an error when it never ran. */
static int outcome(struct session *s, struct repro_err **err)
{
	const char *where = s->written != NULL ? s->written : s->spool_dir;
	enum lnch_step step;
	int errnum, st = s->res.main_status;

	report_full_disk(s);
	if (lnch_child_setup_error(&s->child, &step, &errnum)) {
		if (step != LNCH_STEP_EXEC || !WIFEXITED(st))
			return repro_err_set(err, errnum, "%s '%s' (recorded in '%s')",
					     lnch_step_name(step), s->o->argv[0], where);
		/* as a shell says it, with the shell's status: 127 not found, 126 not executable */
		if (s->child.not_in_path && errnum == ENOENT)
			fprintf(stderr, "repro: %s: command not found (recorded in '%s')\n",
				s->o->argv[0], where);
		else
			fprintf(stderr, "repro: cannot execute '%s': %s (recorded in '%s')\n",
				s->o->argv[0], strerror(errnum), where);
		return WEXITSTATUS(st);
	}
	if (s->written != NULL && (s->o->verbose || isatty(STDERR_FILENO)))
		fprintf(stderr, "repro: recorded %llu events into '%s'\n",
			(unsigned long long)(rec_recorder_count(s->rec) - s->drops.events),
			s->written);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

int cmd_record(int argc, char **argv, struct repro_err **err)
{
	struct record_opts o;
	cleanup_session struct session s = {
		.o = &o, .child = { .pid = -1, .err_fd = -1, .notify_sock = -1 }
	};
	int rc = parse_record_args(argc, argv, &o, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	o.output_owned = o.output ? NULL : default_output(o.argv[0]);
	if (o.output == NULL)
		o.output = o.output_owned;
	cli_signals_install();
	if (start(&s, err) < 0) {
		if (s.made_spool)
			(void)bndl_spool_remove(s.spool_dir, NULL);
		free(o.output_owned);
		return -1;
	}
	cli_signals_forward_to(s.child.pid);
	rc = lnch_loop_run(s.loop, &s.res, err);
	cli_signals_forward_to(0);
	if (rc == 0)
		rc = rec_recorder_finish(s.rec, err);
	if (rc == 0)
		rc = host_join(&s, err);
	finish_info(&s);
	if (rc == 0)
		rc = end_spool(&s, err);
	if (rc == 0)
		rc = pack(&s, err);
	if (rc == 0)
		rc = outcome(&s, err);
	free(o.output_owned);
	return rc;
}
