/*
 * Program-specific secret options (recorder/redact_internal.h): `-p` is a
 * password for mysql and sshpass but a port for ssh, psql and redis-cli, so
 * these rules are keyed on the program a command runs.  One table holds
 * them all, with the wrappers that run another command (env, sudo, timeout,
 * ssh HOST, sshpass …), so that `sudo -u db mysql -pX` and `bash -c
 * 'sshpass -p X ssh -p 22 h'` find the program behind them.
 *
 * Cost: every word is looked at once, against the few rows of its
 * program, so a command line costs O(its bytes) (the program's base name is
 * matched against each row's globs, at most NAME_MAX bytes each).
 */
#include "recorder/redact_internal.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <fnmatch.h>
#include <stdint.h>
#include <string.h>

/* How an option carries its value. */
enum opt_form {
	OPT_GLUED = 1u << 0, /* glued to the option: mysql -pVALUE (-p alone prompts) */
	OPT_NEXT = 1u << 1, /* the next word: docker login -p VALUE */
	OPT_EITHER = OPT_GLUED | OPT_NEXT, /* sshpass -p VALUE, sshpass -pVALUE */
	/* the option, more name characters, '=', the value: mysql --pass=VALUE, --passw=VALUE */
	OPT_ASSIGN = 1u << 2,
};

/* An option whose value is a secret. */
struct secret_opt {
	const char *opt; /* as written, case matters: "-p", "/p:" */
	unsigned form; /* enum opt_form */
	char after; /* 0: the whole value; else only what follows the first AFTER in it */
	char until; /* 0: to the end; else up to the last UNTIL in it (sqlplus u/PASS@db) */
};

#define MAX_PROGS 8
#define MAX_OPTS 4

/*
 * A program the rules know.  A word is a program when it starts a command
 * (NAME=VALUE words before it aside), or when a wrapper's options and
 * positional words end before it.
 */
struct prog_row {
	const char *progs[MAX_PROGS]; /* fnmatch(3) globs of the base name; NULL ends */
	const char *sub; /* NULL, or a word that must come first: "login" (docker login -p) */
	struct secret_opt opts[MAX_OPTS]; /* .opt NULL ends */
	/* a wrapper: after its options (and POSITIONALS words) comes another command */
	bool is_wrapper;
	bool is_after_dashdash; /* the command starts after "--" only (kubectl exec POD -- CMD) */
	/*
	 * 0: none; else the SECRET_POS-th operand (a word after the program and
	 * its subcommand that is no option, no option's value and no
	 * NAME=VALUE) is a secret: `vault login TOKEN`, `htpasswd -b F U PASS`
	 */
	unsigned secret_pos;
	struct secret_opt pos; /* .after: only what follows it; .until: up to its last one */
	char pos_flag; /* 0: always; else only once a short option holding this letter came */
	bool is_shell; /* sh -c STRING NAME ARG…: STRING's "$N" is ARG N (argv only) */
	unsigned positionals; /* words between the options and the command: timeout's DURATION */
	const char *value_opts; /* " -u -C ": the wrapper's options whose value is the next word */
};

/*
 * The table.  Secret options, by program (docs/bundle-format.md lists
 * them); the generic rules of redact.c already catch --password=VALUE and
 * --password VALUE for every program.  Then the wrappers.
 */
static const struct prog_row prog_rows[] = {
	{ .progs = { "mysql*", "mariadb*", "mariabackup", "xtrabackup" },
	  .opts = { { "-p", OPT_GLUED }, { "--pas", OPT_ASSIGN } } },
	{ .progs = { "sshpass" },
	  .opts = { { "-p", OPT_EITHER } },
	  .is_wrapper = true,
	  .value_opts = " -p -f -d -P " },
	{ .progs = { "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane" },
	  .sub = "login",
	  .opts = { { "-p", OPT_EITHER } } },
	{ .progs = { "redis-cli", "valkey-cli", "keydb-cli" },
	  .opts = { { "-a", OPT_EITHER }, { "--pass", OPT_NEXT } } },
	{ .progs = { "ldap*" }, .opts = { { "-w", OPT_EITHER } } },
	{ .progs = { "ldappasswd" }, .opts = { { "-a", OPT_EITHER }, { "-s", OPT_EITHER } } },
	{ .progs = { "mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport",
		     "mongostat", "mongotop" },
	  .opts = { { "-p", OPT_EITHER } } },
	{ .progs = { "sqlcmd", "bcp", "osql" }, .opts = { { "-P", OPT_EITHER } } },
	{ .progs = { "keytool", "jarsigner" },
	  .opts = { { "-storepass", OPT_NEXT },
		    { "-srcstorepass", OPT_NEXT },
		    { "-deststorepass", OPT_NEXT },
		    { "-new", OPT_NEXT } } },
	{ .progs = { "7z", "7za", "7zr", "7zz", "rar", "unrar" }, .opts = { { "-p", OPT_GLUED } } },
	{ .progs = { "zip", "unzip", "zipcloak" }, .opts = { { "-P", OPT_EITHER } } },
	{ .progs = { "smbclient", "rpcclient", "smbcacls", "smbget", "smbtree" },
	  .opts = { { "-U", OPT_EITHER, '%' },
		    { "--user", OPT_NEXT, '%' },
		    { "--user", OPT_ASSIGN, '%' } } },
	{ .progs = { "xfreerdp", "xfreerdp3", "wlfreerdp", "sdl-freerdp", "sdl-freerdp3" },
	  .opts = { { "/p:", OPT_GLUED } } },
	{ .progs = { "rdesktop" }, .opts = { { "-p", OPT_EITHER } } },
	{ .progs = { "lftp" }, .opts = { { "-u", OPT_EITHER, ',' } } },
	{ .progs = { "openssl" }, .opts = { { "-k", OPT_NEXT } } },
	{ .progs = { "gpg", "gpg2" },
	  .opts = { { "--passphrase", OPT_NEXT }, { "--passphrase", OPT_ASSIGN } } },
	{ .progs = { "az" }, .sub = "login", .opts = { { "-p", OPT_EITHER } } },
	{ .progs = { "twine" }, .sub = "upload", .opts = { { "-p", OPT_EITHER } } },
	{ .progs = { "ssh-keygen" }, .opts = { { "-N", OPT_EITHER }, { "-P", OPT_EITHER } } },
	{ .progs = { "vault", "bao" }, .sub = "login", .secret_pos = 1 },
	{ .progs = { "htpasswd" }, .secret_pos = 3, .pos_flag = 'b', .value_opts = " -C -r " },
	{ .progs = { "sqlplus", "rman", "expdp", "impdp", "exp", "imp", "sqlldr", "dgmgrl" },
	  .secret_pos = 1,
	  .pos = { .after = '/', .until = '@' },
	  .value_opts = " -M -R " },

	/* wrappers */
	{ .progs = { "env" }, .is_wrapper = true, .value_opts = " -u -C -S --unset --chdir " },
	{ .progs = { "sudo", "doas" },
	  .is_wrapper = true,
	  .value_opts = " -u -g -h -p -C -D -r -t -T -U -R --user --group --host --prompt "
			"--chdir --role --type --other-user --close-from --chroot " },
	{ .progs = { "nohup", "setsid", "unbuffer" }, .is_wrapper = true },
	{ .progs = { "nice" }, .is_wrapper = true, .value_opts = " -n --adjustment " },
	{ .progs = { "stdbuf" },
	  .is_wrapper = true,
	  .value_opts = " -i -o -e --input --output --error " },
	{ .progs = { "ionice" }, .is_wrapper = true, .value_opts = " -c -n --class --classdata " },
	{ .progs = { "runuser" },
	  .is_wrapper = true,
	  .value_opts = " -u -g -G --user --group --supp-group " },
	{ .progs = { "time" }, .is_wrapper = true, .value_opts = " -f -o --format --output " },
	{ .progs = { "timeout" },
	  .is_wrapper = true,
	  .positionals = 1,
	  .value_opts = " -s -k --signal --kill-after " },
	{ .progs = { "chrt", "taskset", "chroot" }, .is_wrapper = true, .positionals = 1 },
	{ .progs = { "flock" },
	  .is_wrapper = true,
	  .positionals = 1,
	  .value_opts = " -w -E --timeout --conflict-exit-code " },
	{ .progs = { "xargs" },
	  .is_wrapper = true,
	  .value_opts = " -a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs "
			"--max-chars --max-lines --replace " },
	{ .progs = { "watch" }, .is_wrapper = true, .value_opts = " -n --interval " },
	{ .progs = { "exec", "command", "builtin", "then", "else", "elif", "do", "!" },
	  .is_wrapper = true,
	  .value_opts = " -a " },
	{ .progs = { "if", "while", "until", "{" }, .is_wrapper = true },
	{ .progs = { "ssh" },
	  .is_wrapper = true,
	  .positionals = 1,
	  .value_opts = " -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B " },
	{ .progs = { "docker", "podman", "nerdctl" },
	  .sub = "exec",
	  .is_wrapper = true,
	  .positionals = 1,
	  .value_opts = " -e -u -w --env --env-file --user --workdir --detach-keys " },
	{ .progs = { "docker", "podman", "nerdctl" },
	  .sub = "run",
	  .is_wrapper = true,
	  .positionals = 1,
	  .value_opts = " -a -c -e -h -l -m -p -u -v -w --name --network --net --env --env-file "
			"--volume --publish --user --workdir --entrypoint --mount --label "
			"--hostname --memory --cpus --add-host --dns --device --restart "
			"--platform --pull --ulimit --cap-add --cap-drop --security-opt --tmpfs "
			"--gpus --log-driver --log-opt --shm-size --ipc --pid --cidfile " },
	{ .progs = { "kubectl", "oc" }, .is_wrapper = true, .is_after_dashdash = true },
	{ .progs = { "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash" }, .is_shell = true },
	/* interpreters: the script is the program (a "#!" script's argv, execve(2)) */
	{ .progs = { "python*", "perl*", "ruby*", "node", "nodejs", "php*", "lua*", "tclsh*" },
	  .is_wrapper = true,
	  .value_opts = " -W -X -c -m -e -E -I -M -r " },
};

#define N_ROWS (sizeof(prog_rows) / sizeof(prog_rows[0]))
_Static_assert(N_ROWS <= 64, "rows are bits of a uint64_t");

/* Where one command is: which rows apply, what the next word is. */
struct cmd_state {
	bool expect_prog; /* the next word that is not NAME=VALUE is a program */
	uint64_t rows; /* bit i: prog_rows[i] names the command's program */
	uint64_t active; /* of those, the rows whose subcommand came (or that have none) */
	int wrapper; /* the wrapper row in force, or -1 */
	unsigned positionals; /* the wrapper's words still to pass before the command */
	bool is_opts_done; /* the wrapper's "--" came */
	bool is_wrapper_value; /* the next word is the value of a wrapper's (or a row's) option */
	unsigned operands; /* operands of the program so far (prog_row.secret_pos) */
	uint64_t letters; /* a-z, A-Z: the letters of its short options so far */
	int generic_next; /* command lines: -1; else the next word is a secret (after this byte) */
	int secret_after; /* -1: none; else the next word is a secret (after this byte; 0: whole) */
	/* a shell's -c (argv only): */
	bool is_argv; /* words are whole arguments, not those of a command line */
	bool is_shell; /* the program is a shell, still before its command string */
	bool has_c; /* its options had a c */
	bool is_shell_value; /* the next word is the value of its -o */
	long shell_pos; /* -1; else the next word is $shell_pos of the command string */
	uint64_t secret_pos; /* bit N: $N is given to a secret option in the command string */
};

static void state_init(struct cmd_state *st, bool is_argv)
{
	*st = (struct cmd_state){ .expect_prog = true,
				  .wrapper = -1,
				  .secret_after = -1,
				  .generic_next = -1,
				  .is_argv = is_argv,
				  .shell_pos = -1 };
}

/* NAME=VALUE with a shell name: [A-Za-z_][A-Za-z0-9_]*= */
static bool is_assignment(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = w[i];

		if (c == '=')
			return i > 0;
		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (i > 0 && c >= '0' && c <= '9')))
			return false;
	}
	return false;
}

/* Whether w[0..n) is one of the blank-separated words of LIST (NULL: none). */
static bool is_listed(const char *list, const char *w, size_t n)
{
	for (const char *p = list; p != NULL && *p != '\0';) {
		size_t k;

		while (*p == ' ')
			p++;
		k = strcspn(p, " ");
		if (k == n && k > 0 && memcmp(p, w, n) == 0)
			return true;
		p += k;
	}
	return false;
}

/* Every glob of the table starts with a literal byte: fnmatch(3) only where it is base's. */
static bool row_names(const struct prog_row *r, const char *base)
{
	for (size_t g = 0; g < MAX_PROGS && r->progs[g] != NULL; g++)
		if (r->progs[g][0] == base[0] && fnmatch(r->progs[g], base, 0) == 0)
			return true;
	return false;
}

/* A wrapper row of the command takes over: its options and positionals come next. */
static void wrapper_start(struct cmd_state *st, int row)
{
	st->wrapper = row;
	st->positionals = prog_rows[row].positionals;
	st->is_opts_done = false;
}

/*
 * w[0..n) is the command's program: the rows that name its base name (after
 * the last '/', without the '-' of a login shell).  Names longer than
 * NAME_MAX match no row.
 */
static void program_start(struct cmd_state *st, const char *w, size_t n)
{
	const char *slash = memrchr(w, '/', n);
	size_t off = slash != NULL ? (size_t)(slash - w) + 1 : 0;
	char base[256];

	state_init(st, st->is_argv);
	st->expect_prog = false;
	while (off < n && w[off] == '-')
		off++;
	if (n - off == 0 || n - off >= sizeof(base))
		return;
	memcpy(base, w + off, n - off);
	base[n - off] = '\0';
	for (size_t i = 0; i < N_ROWS; i++) {
		if (!row_names(&prog_rows[i], base))
			continue;
		st->rows |= 1ull << i;
		st->is_shell |= prog_rows[i].is_shell && st->is_argv;
		if (prog_rows[i].sub != NULL)
			continue;
		st->active |= 1ull << i;
		if (prog_rows[i].is_wrapper && st->wrapper < 0)
			wrapper_start(st, (int)i);
	}
}

/* The value w[start..n), or what follows its first AFTER; false when empty. */
static bool value_span(const char *w, size_t n, size_t start, char after, struct rec_cmd_span *sp)
{
	if (after != 0) {
		const char *a = start < n ? memchr(w + start, after, n - start) : NULL;

		if (a == NULL)
			return false;
		start = (size_t)(a - w) + 1;
	}
	if (start >= n)
		return false;
	*sp = (struct rec_cmd_span){ .from = start, .to = n };
	return true;
}

/* value_span() of an operand: what follows AFTER (not at its start: `/nolog`), up to the last UNTIL. */
static bool operand_span(const char *w, size_t n, const struct secret_opt *o,
			 struct rec_cmd_span *sp)
{
	if (o->after != 0 && (n == 0 || w[0] == o->after))
		return false;
	if (!value_span(w, n, 0, o->after, sp))
		return false;
	if (o->until != 0) {
		const char *u = memrchr(w + sp->from, o->until, sp->to - sp->from);

		if (u != NULL)
			sp->to = (size_t)(u - w);
	}
	return sp->to > sp->from;
}

static unsigned letter_bit(char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned)(c - 'a') : 26u + (unsigned)(c - 'A');
}

static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * A word of the program's own (no option of a secret, no subcommand): the
 * letters of a short option cluster, the value an active row's option
 * takes next, or an operand that a row makes a secret.  O(n) plus a
 * constant per row.
 */
static bool operand_word(struct cmd_state *st, const char *w, size_t n, struct rec_cmd_span *sp)
{
	if (n > 1 && w[0] == '-') {
		for (size_t i = 1; w[1] != '-' && i < n; i++)
			if (is_letter(w[i]))
				st->letters |= 1ull << letter_bit(w[i]);
		for (uint64_t m = st->active; m != 0; m &= m - 1)
			if (prog_rows[__builtin_ctzll(m)].secret_pos > 0 &&
			    is_listed(prog_rows[__builtin_ctzll(m)].value_opts, w, n))
				st->is_wrapper_value = true;
		return false;
	}
	if (memchr(w, '=', n) != NULL)
		return false; /* vault login -method=userpass username=bob: NAME=VALUE */
	st->operands++;
	for (uint64_t m = st->active; m != 0; m &= m - 1) {
		const struct prog_row *r = &prog_rows[__builtin_ctzll(m)];

		if (r->secret_pos != st->operands ||
		    (r->pos_flag != 0 && !(st->letters >> letter_bit(r->pos_flag) & 1)))
			continue;
		if (operand_span(w, n, &r->pos, sp))
			return true;
	}
	return false;
}

/* One option of a row against the word: a span (glued, assigned) or a value to come. */
static bool match_opt(struct cmd_state *st, const struct secret_opt *o, const char *w, size_t n,
		      struct rec_cmd_span *sp)
{
	size_t len = strlen(o->opt), i;

	if (n < len || memcmp(w, o->opt, len) != 0)
		return false;
	if (n == len) {
		if (o->form & OPT_NEXT)
			st->secret_after = (unsigned char)o->after;
		return false;
	}
	if (o->form & OPT_GLUED)
		return value_span(w, n, len, o->after, sp);
	if (!(o->form & OPT_ASSIGN))
		return false;
	for (i = len; i < n && w[i] != '='; i++)
		if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= '0' && w[i] <= '9') || w[i] == '-'))
			return false;
	return i < n && value_span(w, n, i + 1, o->after, sp);
}

/* The secret options of the active rows; O(rows × MAX_OPTS) per word. */
static bool secret_option(struct cmd_state *st, const char *w, size_t n, struct rec_cmd_span *sp)
{
	for (uint64_t m = st->active; m != 0; m &= m - 1) {
		const struct prog_row *r = &prog_rows[__builtin_ctzll(m)];

		for (size_t k = 0; k < MAX_OPTS && r->opts[k].opt != NULL; k++)
			if (match_opt(st, &r->opts[k], w, n, sp))
				return true;
	}
	return false;
}

/* A row's subcommand: from now on its options apply.  True when w was one. */
static bool subcommand(struct cmd_state *st, const char *w, size_t n)
{
	bool is_sub = false;

	for (uint64_t m = st->rows & ~st->active; m != 0; m &= m - 1) {
		int i = __builtin_ctzll(m);
		const char *sub = prog_rows[i].sub;

		if (strlen(sub) != n || memcmp(sub, w, n) != 0)
			continue;
		is_sub = true;
		st->active |= 1ull << i;
		st->operands = 0; /* operands count from the subcommand */
		if (prog_rows[i].is_wrapper && st->wrapper < 0)
			wrapper_start(st, i);
	}
	return is_sub;
}

/* A word after a wrapper: one of its options, a value, a positional, or the command. */
static void wrapper_word(struct cmd_state *st, const char *w, size_t n)
{
	const struct prog_row *r = &prog_rows[st->wrapper];

	if (r->is_after_dashdash) {
		st->expect_prog = n == 2 && w[0] == '-' && w[1] == '-';
		return;
	}
	if (!st->is_opts_done && n > 0 && w[0] == '-') {
		if (n == 2 && w[1] == '-')
			st->is_opts_done = true;
		else
			st->is_wrapper_value = is_listed(r->value_opts, w, n);
		return;
	}
	if (is_assignment(w, n))
		return; /* env NAME=VALUE CMD */
	if (st->positionals > 0) {
		st->positionals--;
		return;
	}
	program_start(st, w, n);
}

/*
 * A word after a shell, in an argv: `sh -c STRING NAME ARG…` (sh(1): NAME is
 * $0, the ARGs $1 …); an ARG whose "$N" STRING gives to a secret option
 * (`sh -c 'mysql -p"$1"' sh VALUE`) is a secret.  Without -c, the first
 * word that is no option is a script, the program of the rest.  O(n), and
 * O(len(STRING)) once for STRING.
 */
static bool shell_word(struct cmd_state *st, const char *w, size_t n, struct rec_cmd_span *sp)
{
	cleanup_free struct rec_cmd_span *v = NULL;

	if (st->shell_pos >= 0) {
		long k = st->shell_pos++;

		if (k >= 64 || !(st->secret_pos >> k & 1) || n == 0)
			return false;
		*sp = (struct rec_cmd_span){ .from = 0, .to = n };
		return true;
	}
	if (st->is_shell_value) {
		st->is_shell_value = false;
		return false;
	}
	if (n > 1 && (w[0] == '-' || w[0] == '+') && w[1] != '-') {
		st->has_c |= memchr(w + 1, 'c', n - 1) != NULL;
		st->is_shell_value = n == 2 && (w[1] == 'o' || w[1] == 'O');
		return false;
	}
	if (n >= 2 && w[0] == '-' && w[1] == '-')
		return false; /* --norc, --login; "--" */
	if (!st->has_c) {
		/* sh SCRIPT ARG…, also the kernel's argv of a "#!/bin/sh" script (execve(2)) */
		program_start(st, w, n);
		return false;
	}
	rec_redact_cmd_string_pos(w, n, &v, &st->secret_pos);
	st->shell_pos = 0;
	return false;
}

/*
 * scan_word - the next word w[0..n) of the command in ST: true with *sp set
 * when part of it is a secret.  O(n) plus a constant per row.
 */
static bool scan_word(struct cmd_state *st, const char *w, size_t n, struct rec_cmd_span *sp)
{
	bool is_value = st->is_wrapper_value, has = false;

	if (st->is_shell)
		return shell_word(st, w, n, sp);

	if (st->secret_after >= 0) {
		has = value_span(w, n, 0, (char)st->secret_after, sp);
		st->secret_after = -1;
		is_value = true; /* a secret value is no option and no command */
	}
	st->is_wrapper_value = false;
	if (is_value)
		return has;
	if (st->expect_prog) {
		if (!is_assignment(w, n))
			program_start(st, w, n);
		return false;
	}
	has = secret_option(st, w, n, sp);
	if (subcommand(st, w, n))
		return has;
	if (st->wrapper >= 0)
		wrapper_word(st, w, n);
	else if (!has && st->secret_after < 0)
		has = operand_word(st, w, n, sp);
	return has;
}

/* -u, --user, --proxy-user: curl's user:password comes next */
static bool is_user_opt(const char *w, size_t n)
{
	return (n == 2 && memcmp(w, "-u", 2) == 0) || (n == 6 && memcmp(w, "--user", 6) == 0) ||
	       (n == 12 && memcmp(w, "--proxy-user", 12) == 0);
}

/*
 * What the generic option rules of redact.c say of the word after W in a
 * command line: -1 nothing; 0 it is a secret (W is an option or a setting
 * named for a secret: --password, --db-pass, aws_secret_access_key); ':'
 * what follows its first ':' is (W is -u, --user, --proxy-user).  O(n).
 */
static int generic_next(const char *w, size_t n)
{
	bool is_joined = false;

	if (is_user_opt(w, n))
		return ':';
	for (size_t i = 0; i < n; i++) {
		char c = w[i];

		if (!(is_letter(c) || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return -1;
		is_joined |= c == '_' || c == '.';
	}
	if (n < 2 || (w[0] != '-' && !is_joined))
		return -1;
	if (w[0] != '-')
		return rec_redact_is_setting_name(w, n) ? 0 : -1;
	return rec_redact_is_secret_name(w, n) ? 0 : -1;
}

/*
 * scan_cmd_word - scan_word() in a command line, with the generic rules
 * too (the word after --password, the password of -u user:password), so
 * that they hold in nested command lines (`bash -c "curl -u u:X …"` inside
 * a script) as they do in an argv.
 */
static bool scan_cmd_word(struct cmd_state *st, const char *w, size_t n, struct rec_cmd_span *sp)
{
	int g = st->generic_next;
	bool was_prog = st->expect_prog;
	bool has = scan_word(st, w, n, sp);

	st->generic_next = -1;
	if (!has && g >= 0 && !(n > 1 && w[0] == '-' && w[1] == '-'))
		return value_span(w, n, 0, (char)g, sp);
	if (!has && !was_prog)
		st->generic_next = generic_next(w, n);
	return has;
}

void rec_redact_cmd_argv(const char *const *argv, size_t argc, struct rec_cmd_span *spans)
{
	struct cmd_state st;

	state_init(&st, true);
	for (size_t i = 0; i < argc; i++) {
		spans[i] = (struct rec_cmd_span){ 0 };
		if (!scan_word(&st, argv[i], strlen(argv[i]), &spans[i]))
			spans[i] = (struct rec_cmd_span){ 0 };
	}
}

/* ---- command strings ---- */

static bool is_cmd_sep(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`' || c == '\n';
}

static bool is_word_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A word as the shell reads it: COOKED bytes and, for each, its index in the string. */
struct word {
	char *cooked; /* borrowed: a buffer of len(string) bytes */
	size_t *map; /* borrowed: as many */
	size_t n;
};

static void word_put(struct word *w, char c, size_t at)
{
	w->cooked[w->n] = c;
	w->map[w->n++] = at;
}

/*
 * One word from s[i], quotes and backslashes removed (sh(1): '…' is literal;
 * in "…" a backslash escapes \ " $ `); it ends at a blank or separator
 * outside quotes, or at the end (an unclosed quote runs to the end).
 * Returns where it ended.
 */
static size_t read_word(const char *s, size_t len, size_t i, struct word *w)
{
	char quote = 0;

	w->n = 0;
	for (; i < len; i++) {
		char c = s[i];

		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
			else
				word_put(w, c, i);
		} else if (quote == '"') {
			if (c == '"') {
				quote = 0;
			} else if (c == '\\' && i + 1 < len && s[i + 1] != '\0' &&
				   strchr("\\\"$`", s[i + 1]) != NULL) {
				i++;
				word_put(w, s[i], i);
			} else {
				word_put(w, c, i);
			}
		} else if (c == '\'' || c == '"') {
			quote = c;
		} else if (c == '\\' && i + 1 < len) {
			i++;
			word_put(w, s[i], i);
		} else if (is_word_blank(c) || is_cmd_sep(c)) {
			break;
		} else {
			word_put(w, c, i);
		}
	}
	return i;
}

/* A value that is "$N" or "${N}" (N < 64: one bit of *pos): positional parameter N of sh(1). */
static void note_positional(const char *v, size_t n, uint64_t *pos)
{
	size_t i = 1, end = n;
	unsigned k = 0;

	if (n < 2 || v[0] != '$')
		return;
	if (v[1] == '{') {
		if (n < 4 || v[n - 1] != '}')
			return;
		i = 2;
		end = n - 1;
	}
	for (; i < end; i++) {
		if (v[i] < '0' || v[i] > '9' || k >= 64)
			return;
		k = k * 10 + (unsigned)(v[i] - '0');
	}
	if (k > 0 && k < 64)
		*pos |= 1ull << k;
}

/*
 * Command lines inside command lines (`ssh h "bash -c 'mysql -pX'"`) are
 * read this deep: each level reads its words once more, so the cost is
 * O(len × MAX_DEPTH).
 */
#define MAX_DEPTH 3

/* The spans found so far in one string, in increasing order. */
struct spans {
	struct rec_cmd_span *v;
	size_t n;
};

static void spans_add(struct spans *sp, size_t from, size_t to)
{
	sp->v = repro_xgrow(sp->v, sp->n, sizeof(*sp->v));
	sp->v[sp->n++] = (struct rec_cmd_span){ .from = from, .to = to };
}

static void scan_string(const char *s, size_t len, unsigned depth, struct spans *out,
			uint64_t *pos);

/*
 * A word with a blank or a separator in it that is no secret itself: the
 * command line it may hold, one level down, its spans mapped back to S.
 */
static void scan_inner(const struct word *w, unsigned depth, struct spans *out)
{
	struct spans inner = { NULL, 0 };
	uint64_t ignored = 0;
	bool has_room = false;

	for (size_t k = 0; k < w->n && !has_room; k++)
		has_room = is_word_blank(w->cooked[k]) || is_cmd_sep(w->cooked[k]);
	if (!has_room || depth + 1 >= MAX_DEPTH)
		return;
	scan_string(w->cooked, w->n, depth + 1, &inner, &ignored);
	for (size_t k = 0; k < inner.n; k++)
		spans_add(out, w->map[inner.v[k].from], w->map[inner.v[k].to - 1] + 1);
	free(inner.v);
}

/* The spans of S[0..len) into OUT (rec_redact_cmd_string_pos()). */
static void scan_string(const char *s, size_t len, unsigned depth, struct spans *out, uint64_t *pos)
{
	cleanup_free char *cooked = repro_xmalloc(len + 1);
	cleanup_free size_t *map = repro_xcalloc(len + 1, sizeof(*map));
	struct word w = { .cooked = cooked, .map = map };
	struct cmd_state st;
	size_t i = 0;

	state_init(&st, false);
	while (i < len) {
		struct rec_cmd_span sp;

		if (is_word_blank(s[i])) {
			i++;
			continue;
		}
		if (is_cmd_sep(s[i])) {
			state_init(&st, false);
			i++;
			continue;
		}
		i = read_word(s, len, i, &w); /* consumes a byte at least; '' is a word */
		if (!scan_cmd_word(&st, w.cooked, w.n, &sp)) {
			scan_inner(&w, depth, out);
			continue;
		}
		note_positional(w.cooked + sp.from, sp.to - sp.from, pos);
		spans_add(out, w.map[sp.from], w.map[sp.to - 1] + 1);
	}
}

size_t rec_redact_cmd_string_pos(const char *s, size_t len, struct rec_cmd_span **out,
				 uint64_t *pos)
{
	struct spans sp = { NULL, 0 };

	scan_string(s, len, 0, &sp, pos);
	*out = sp.v;
	return sp.n;
}

size_t rec_redact_cmd_string(const char *s, size_t len, struct rec_cmd_span **out)
{
	uint64_t pos = 0;

	return rec_redact_cmd_string_pos(s, len, out, &pos);
}
