#ifndef REPRO_RECORDER_REDACT_INTERNAL_H
#define REPRO_RECORDER_REDACT_INTERNAL_H

/*
 * Inside recorder/redact.c: the program-specific secret options
 * (recorder/redact_cmd.c), reached by unit tests through rec_redact_argv()
 * and rec_redact_arg().
 */

#include "recorder/redact.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a program-specific rule redacts in one word: bytes [from, to). */
struct rec_cmd_span {
	size_t from;
	size_t to; /* 0: nothing to redact */
};

/*
 * rec_redact_cmd_argv - for each word ARGV[i] (borrowed, i < ARGC) of one
 * command, SPANS[i] (ARGC elements, written for every i): what the
 * program-specific rules redact in it, keyed on the base name of ARGV[0],
 * or of the command a wrapper (env, sudo, timeout, ssh HOST …) runs; and
 * for `sh -c STRING NAME ARG…`, the ARGs that STRING gives to a secret
 * option as "$N".
 * O(total bytes of ARGV); never fails.
 */
void rec_redact_cmd_argv(const char *const *argv, size_t argc, struct rec_cmd_span *spans);

/*
 * rec_redact_cmd_string - the same rules over S[0..LEN) read as a shell
 * command line (`bash -c '…'`, `ssh HOST '…'`, `su -c '…'`): words split
 * at blanks outside quotes, commands at ; & | ( ) ` and newlines, quotes and
 * backslashes removed before a word is compared.  *OUT gets a new array
 * (the caller frees it; NULL when there is none) of the spans of S to
 * redact, in increasing order and disjoint; returns their number.
 * O(LEN) time and memory; never fails (aborts on OOM).
 */
size_t rec_redact_cmd_string(const char *s, size_t len, struct rec_cmd_span **out);

/*
 * rec_redact_cmd_string_pos - rec_redact_cmd_string(), and in *POS (ORed
 * in) bit N for each secret value that is sh(1)'s positional parameter
 * "$N" or "${N}" (0 < N < 64): `sh -c 'mysql -p"$1"' sh VALUE` makes VALUE a
 * secret (rec_redact_cmd_argv()).
 */
size_t rec_redact_cmd_string_pos(const char *s, size_t len, struct rec_cmd_span **out,
				 uint64_t *pos);

/*
 * rec_redact_is_secret_name - whether S[0..N) names a secret: it holds a
 * secret word (token, secret, password, key …; any case), or one of its
 * parts between '-', '_', '.' and the ends is pass, pw, pat or sig
 * (--db-pass, ansible_become_pass, --pw, sig of a SAS URL), or it ends in
 * PASS, _PWD or _PAT (DBPASS, MYSQL_PWD, GH_PAT).  Leading dashes are part of
 * no word.  O(N).
 */
bool rec_redact_is_secret_name(const char *s, size_t n);

/*
 * rec_redact_is_setting_name - whether the setting S[0..N) (a word joined
 * by '_' or '.') names a secret: its part after the last '.' does
 * (rec_redact_is_secret_name()), so `aws_secret_access_key` and
 * `db.password` do while the file names `key.o` and `secret_key.txt` do
 * not.  O(N).
 */
bool rec_redact_is_setting_name(const char *s, size_t n);

/*
 * The set of secret values a recording learned (recorder/redact_known.c):
 * every occurrence of any of them is found in one scan.
 */
struct rec_known;

/* rec_known_new - an empty set; release with rec_known_free() (NULL-safe). */
struct rec_known *rec_known_new(void);
void rec_known_free(struct rec_known *k);

/*
 * rec_known_add - add S[0..LEN) (copied) when it is REC_REDACT_KNOWN_MIN
 * bytes or longer; true when it was not in the set yet.  O(LEN) expected.
 */
bool rec_known_add(struct rec_known *k, const char *s, size_t len);

/* rec_known_count - how many values the set holds. */
size_t rec_known_count(const struct rec_known *k);

/*
 * rec_known_find - the spans of S[0..LEN) covered by occurrences of values
 * of the set (overlapping occurrences are joined), in increasing order and
 * disjoint, in a new array *OUT (the caller frees it; NULL when none);
 * returns their number.  The first call after values were added completes
 * the automaton, O(total bytes of the values); then O(LEN) expected time
 * whatever the number of values, and O(number of spans) memory.  Not safe
 * to call from two threads while values are being added.
 */
size_t rec_known_find(struct rec_known *k, const char *s, size_t len, struct rec_cmd_span **out);

#endif
