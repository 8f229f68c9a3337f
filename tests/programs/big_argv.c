/*
 * big_argv - execve(2) with an argv as large as build tools pass: ten
 * arguments of 100,000 bytes (1 MB), one of MAX_ARG_STRLEN - 1 bytes
 * (131,071: the longest string the kernel takes, fs/exec.c copy_strings())
 * and a secret option of 100,000 bytes, all from the pattern below.
 *
 *	big_argv          builds that argv and re-executes itself with "child"
 *	big_argv child …  prints what it received
 *
 * Output (the child's; the content of each argument is checked against the
 * bundle by tests/integration/checks/big_argv.py, which rebuilds it):
 *	big_argv: argc=14
 *	big_argv: argv[2] len=100000 fnv1a=0123456789abcdef
 *	…
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_BIG 10
#define BIG_LEN 100000
#define LONGEST (128 * 1024 - 1)
#define SECRET_OPT "--password="

/*
 * Bytes that the old regex-based redaction took quadratic time over: '=',
 * '@', ':' and '/' among letters, but no secret word.
 */
static const char pattern[] = "qwerty=uiop@asdf:ghjl/zxcvbnm";
/* The secret's value: a text found nowhere else. */
static const char secret[] = "S3CR3T.";

/* LEN bytes of PAT (PLEN bytes) starting at offset K. */
static char *make_text(const char *pat, size_t plen, size_t len, size_t k)
{
	char *s = malloc(len + 1);

	if (s == NULL) {
		perror("malloc");
		exit(1);
	}
	for (size_t i = 0; i < len; i++)
		s[i] = pat[(i + k) % plen];
	s[len] = '\0';
	return s;
}

/* Argument K: LEN bytes of the pattern starting at offset K. */
static char *make_arg(size_t len, size_t k)
{
	return make_text(pattern, sizeof(pattern) - 1, len, k);
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int child(int argc, char **argv)
{
	printf("big_argv: argc=%d\n", argc);
	for (int i = 2; i < argc; i++)
		printf("big_argv: argv[%d] len=%zu fnv1a=%016llx\n", i, strlen(argv[i]),
		       (unsigned long long)fnv1a(argv[i]));
	return 0;
}

int main(int argc, char **argv)
{
	char *args[N_BIG + 5];
	int n = 0;

	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child(argc, argv);
	args[n++] = "/proc/self/exe";
	args[n++] = "child";
	for (size_t k = 0; k < N_BIG; k++)
		args[n++] = make_arg(BIG_LEN, k);
	args[n++] = make_arg(LONGEST, N_BIG);
	args[n] = make_text(secret, sizeof(secret) - 1, strlen(SECRET_OPT) + BIG_LEN, 0);
	memcpy(args[n++], SECRET_OPT, strlen(SECRET_OPT));
	args[n] = NULL;
	fflush(stdout);
	execv("/proc/self/exe", args);
	perror("execv");
	return 127;
}
