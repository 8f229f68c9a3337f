#ifndef REPRO_RECORDER_REDACT_INTERNAL_H
#define REPRO_RECORDER_REDACT_INTERNAL_H

/*
 * Inside recorder/redact.c: the program-specific secret options
 * (recorder/redact_cmd.c), reached by unit tests through rec_redact_argv()
 * and rec_redact_arg().
 */

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

#endif
