#ifndef REPRO_RECORDER_REDACT_H
#define REPRO_RECORDER_REDACT_H

/*
 * Redaction of secrets before they reach a bundle (DESIGN.md "No secrets
 * leave the machine"; issue 3 section 4).
 *
 * A struct rec_redact is the policy of one recording, built from
 * --keep-env and --redact, and the secret values it has learned so far
 * (rec_redact_learn_env(), rec_redact_learn_exec()), which are replaced
 * wherever they appear.  Once it stops learning it may be shared read-only
 * between threads; learning and use must not overlap.  Redaction takes time
 * linear in what it reads (rec_redact_arg()).  What was redacted is reported
 * by name only (an environment variable's name, "argv[3]"), never by value.
 *
 * One rule for every string a bundle stores: argv through rec_redact_argv(),
 * environments through rec_redact_env_entry(), every other string (paths,
 * socket addresses, DNS names, output, host facts) through
 * rec_redact_text(), JSON members through rec_redact_json() and
 * rec_redact_member_file().
 */

#include "common/err.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The text that replaces a secret. */
#define REC_REDACTED "<redacted>"

struct rec_redact;

/*
 * rec_redact_new - build a redaction policy.
 * keep_env: NULL-terminated environment variable names (fnmatch(3) globs)
 *   whose values are kept besides the built-in harmless ones (--keep-env);
 *   may be NULL.  A name containing a secret word is redacted all the same.
 * extra_regex: NULL-terminated POSIX extended regexes (regex(7)); every
 *   match inside an argument is replaced (--redact); may be NULL.
 * Both arrays are copied/compiled; the caller keeps ownership of them.
 * Returns a new policy to release with rec_redact_free(), or NULL with *err
 * set: EINVAL "invalid --redact regex 'RE': REASON" for a regex regcomp(3)
 * refuses.
 */
struct rec_redact *rec_redact_new(const char *const *keep_env, const char *const *extra_regex,
				  struct repro_err **err);

/* The shortest secret value that is learned (bytes): shorter ones would blank ordinary words. */
#define REC_REDACT_KNOWN_MIN 8

/*
 * rec_redact_learn_env - remember the values (REC_REDACT_KNOWN_MIN bytes or
 * more) of envp's variables whose names are secret (as host.json redacts
 * them), so that every later redaction replaces them wherever they appear:
 * a script that passes "$GITHUB_TOKEN" to a command puts the value in its
 * argv.  envp: NULL-terminated "NAME=value" strings (borrowed; copied).
 * Cost: O(bytes of ENVP); the values learned cost nothing per redaction but
 * one scan of what is redacted (an Aho-Corasick automaton).
 */
void rec_redact_learn_env(struct rec_redact *r, const char *const *envp);

/*
 * rec_redact_learn_exec - learn the secrets of one exec: every span that
 * the argument rules redact in ARGV (rec_redact_argv(); the token of
 * `git clone https://oauth2:TOKEN@host/x.git`, the file name of `touch
 * ghp_….txt`), the values of the secret variables of ENVP, and what the
 * argument rules redact in its other values; each REC_REDACT_KNOWN_MIN bytes
 * or more.  ARGV, ENVP: NUL-separated strings of ARGV_LEN, ENVP_LEN bytes
 * (borrowed; either may be NULL).  Returns how many values were new.
 * O(ARGV_LEN + ENVP_LEN) besides rec_redact_argv()'s cost.  Never fails.
 */
size_t rec_redact_learn_exec(struct rec_redact *r, const char *argv, size_t argv_len,
			     const char *envp, size_t envp_len);

/*
 * rec_redact_learn_spool - rec_redact_learn_exec() for every exec of the
 * spool in SPOOL_DIR: the process records' argv and environments and the
 * execve/execveat calls' (also those that failed), so that what any exec
 * hides is hidden in every member, before or after it.  One sequential read
 * of the spool, O(its bytes).  A spool that ends early (damaged, torn) is
 * learned up to there.  Returns 0, or -1 with *err when the spool cannot be
 * opened or read.
 */
int rec_redact_learn_spool(struct rec_redact *r, const char *spool_dir, struct repro_err **err);

/* rec_redact_known_count - how many secret values the policy has learned. */
size_t rec_redact_known_count(const struct rec_redact *r);

/* rec_redact_free - release a policy from rec_redact_new(); NULL-safe. */
void rec_redact_free(struct rec_redact *r);

static inline void rec_cleanup_redact_fn(struct rec_redact **r)
{
	rec_redact_free(*r);
}
#define cleanup_redact __attribute__((cleanup(rec_cleanup_redact_fn)))

/*
 * rec_redact_env_value - true when the value of the environment variable
 * NAME must be replaced by REC_REDACTED: every name is, except the built-in
 * harmless ones (PATH, HOME, LANG, LC_*, TERM, ...) and the --keep-env names;
 * a name holding a secret word (TOKEN, SECRET, PASSWORD, PASSWD, KEY,
 * PASSPHRASE, CREDENTIAL, AUTH, COOKIE, SESSION, SIGNATURE; any case) always is.
 */
bool rec_redact_env_value(const struct rec_redact *r, const char *name);

/*
 * rec_redact_arg - a copy of the command-line argument ARG with credentials
 * replaced by REC_REDACTED, in this order:
 *   - the whole ARG when PREV_ARG (the argument before it, or NULL) is an
 *     option naming a secret word without '=' ("--password VALUE") and ARG
 *     does not itself start with "--";
 *   - the password of "user:password" after -u/--user/--proxy-user (curl);
 *   - the value of NAME=VALUE, --NAME=VALUE where NAME holds a secret word
 *     (the whole rest of ARG when ARG starts with it, else up to a blank,
 *     quote, '&' or ';', which covers "sh -c" strings and URL queries);
 *   - the value of an Authorization/Proxy-Authorization/Cookie/Set-Cookie
 *     header, or of a "NAME: value" header whose NAME holds a secret word;
 *   - the password of "scheme://user:password@host" (the user stays);
 *   - the program-specific secret options of a command line inside ARG
 *     (`bash -c 'mysql -pX; sshpass -p Y ssh -p 22 h'`), as
 *     rec_redact_argv() finds them in an argv;
 *   - every non-empty match of each --redact regex.
 * Cost: the built-in rules are one left-to-right pass each, no regex, and
 * take O(len(ARG) + len(PREV_ARG)) time and memory whatever the bytes are
 * (about 10-30 ms for 1 MiB on one core).  A --redact regex is run by
 * regexec(3) on pieces of ARG of at most 4 KiB, cut after the last blank
 * that fits (or inside a word that does not), and only on ARG[from..end) of
 * each piece, never on the rest of ARG: the cost is linear in len(ARG),
 * with a factor that depends on the regex (at most about 4096 steps per byte
 * for a regex whose attempts all run to the end of a piece; a few for a
 * literal prefix and a character class).  A match of a --redact regex does
 * not span two pieces: in an ARG longer than 4 KiB, one across the blank
 * that ends a piece is not seen, and one that reaches the end of a piece cut
 * inside a word is taken to the end of that word.  '^' and '$' anchor at the
 * start and end of ARG.
 * The caller frees the result; strcmp() with ARG tells whether anything was
 * redacted.  Never fails (aborts on OOM).
 */
char *rec_redact_arg(const struct rec_redact *r, const char *arg, const char *prev_arg);

/*
 * rec_redact_text - S[0..LEN) (borrowed; may hold NUL bytes, which stay)
 * as it may leave the machine, for a string that is no argument: a path, a
 * socket address, a DNS name, a line of output, a host fact.  The rules of
 * rec_redact_arg() without an argument before it, learned values included.
 * Returns a new NUL-terminated string the caller frees, its length (NULs
 * counted) in *OUT_LEN (may be NULL).  O(LEN) besides rec_redact_arg()'s
 * factor; a string without '=', ':', quotes or blanks costs two scans.
 * Never fails.
 */
char *rec_redact_text(const struct rec_redact *r, const char *s, size_t len, size_t *out_len);

/*
 * rec_redact_json - replace, in place, every string of V (values and object
 * keys, at any depth; V may be NULL) by rec_redact_text() of it.  A key that
 * changes moves its value (a key it then equals is replaced).  Returns how
 * many strings changed.  O(bytes of V's strings).  Never fails.
 */
size_t rec_redact_json(const struct rec_redact *r, json_t *v);

/*
 * rec_redact_member_file - rec_redact_json() over the member file PATH: a
 * JSON Lines file when IS_LINES (each line; a line that is not JSON is
 * redacted as text), else one JSON document (written back indented by 2).
 * The file is replaced (rename(2) of a file made beside it, same mode) only
 * when something changed; a line that did not change keeps its bytes.
 * PATH is never followed as a symlink; a missing PATH is no error.  O(its
 * bytes), one line or document in memory at a time.  Returns 0, or -1 with
 * *err (errno of the read, write or rename).
 */
int rec_redact_member_file(const struct rec_redact *r, const char *path, bool is_lines,
			   struct repro_err **err);

/*
 * rec_redact_argv - ARGV[0..ARGC) (borrowed) as it may leave the machine: a
 * new NULL-terminated array of ARGC new strings (release it with
 * rec_redact_argv_free()).  Each element is rec_redact_arg() of the argument
 * after the one before it, once the program-specific secret options of the
 * command are redacted: by the base name of ARGV[0], or of the program a
 * wrapper runs (env, sudo, nice, timeout, xargs, ssh HOST, sshpass,
 * docker exec CONTAINER, kubectl … -- …), `mysql -pVALUE`, `sshpass -p
 * VALUE`, `docker login -p VALUE` become `-p<redacted>`, `<redacted>`
 * while `ssh -p 22`, `psql -p 5432` and `docker run -p 80:80` stay
 * (the table is recorder/redact_cmd.c; docs/bundle-format.md lists it).
 * Cost: O(total bytes of ARGV) besides rec_redact_arg()'s.  Never fails.
 * The one rule for every argv of a bundle: the manifest's, each exec's in
 * processes.jsonl and events.jsonl, and trace.txt.
 */
char **rec_redact_argv(const struct rec_redact *r, const char *const *argv, size_t argc);

/*
 * rec_redact_argv_free - free each string of the NULL-terminated array ARGV
 * and the array (what rec_redact_argv() returns); NULL-safe.
 */
void rec_redact_argv_free(char **argv);

/*
 * rec_redact_note - append the string NAME to the JSON array NAMES unless it
 * is already there (the manifest's "redacted" list).  NAMES may be NULL, then
 * nothing happens.  O(json_array_size(NAMES)) per call; struct
 * rec_redact_notes notes many names in O(1) each.
 */
void rec_redact_note(json_t *names, const char *name);

/*
 * The manifest's "redacted" list while it is being filled by many calls:
 * NAMES and an index of its strings, so that noting a name costs O(1) on
 * average however long the list is.  Nothing else may append to NAMES while
 * the notes are in use (the index would not know the new names, which could
 * then be listed twice).
 */
struct rec_redact_notes {
	json_t *names; /* borrowed, may be NULL: nothing is noted */
	json_t *index; /* owned: {name: true} for every string of names */
};

/*
 * rec_redact_notes_init - notes into NAMES (borrowed, may be NULL), indexing
 * the strings it already holds: O(json_array_size(NAMES)).  Release with
 * rec_redact_notes_release().
 */
void rec_redact_notes_init(struct rec_redact_notes *n, json_t *names);
void rec_redact_notes_release(struct rec_redact_notes *n);

/* rec_redact_notes_add - rec_redact_note() in O(1) on average (bytes of NAME aside). */
void rec_redact_notes_add(struct rec_redact_notes *n, const char *name);

/*
 * rec_redact_hide_hostname - from now on the value of $HOSTNAME is redacted
 * too (record --redact-hostname: the host name travels in $HOSTNAME, which
 * containers export).  Call it before the policy is shared.
 */
void rec_redact_hide_hostname(struct rec_redact *r);

/*
 * rec_redact_env_entry - the environment string ENTRY[0..LEN) ("NAME=value",
 * borrowed; need not be NUL-terminated) as it may leave the machine, in a new
 * NUL-terminated string the caller frees: "NAME=<redacted>" when
 * rec_redact_env_value() refuses NAME, else NAME, '=' and the value passed
 * through rec_redact_arg() (a kept http_proxy keeps no password).  NAME is
 * everything before the first '=' and is never changed; an entry without
 * '=' (execve(2) accepts any string) has no name to judge and becomes
 * REC_REDACTED whole.  When the result differs from ENTRY, NAME (for an
 * entry without '=': "env") is noted in NOTES (may be NULL).  O(LEN) time
 * and memory, with rec_redact_arg()'s factor for a kept value.  Never fails.
 * The one rule for host.json's environment and exec environments.
 */
char *rec_redact_env_entry(const struct rec_redact *r, const char *entry, size_t len,
			   struct rec_redact_notes *notes);

/*
 * rec_redact_env_json - ENVP (borrowed, NULL-terminated "NAME=value"
 * strings, e.g. environ) as a new JSON object {NAME: value}, each entry
 * through rec_redact_env_entry().  Entries without '=' or with an empty
 * name are skipped; bytes that are not UTF-8 are escaped as rec_json_str()
 * does.  The name of every variable whose value changed is noted in NAMES
 * (may be NULL).  O(total bytes of ENVP).  A new reference; never fails.
 */
json_t *rec_redact_env_json(const struct rec_redact *r, const char *const *envp, json_t *names);

/*
 * rec_redact_argv_json - ARGV[0..ARGC) (borrowed) as a new JSON array of
 * the strings of rec_redact_argv(); for
 * every changed element "LABEL[i]" (e.g. "argv[3]") is noted in NAMES (may be
 * NULL).  O(total bytes of ARGV).  A new reference; never fails.
 */
json_t *rec_redact_argv_json(const struct rec_redact *r, const char *const *argv, size_t argc,
			     const char *label, json_t *names);

#endif
