/* Unit tests of recorder/redact.h: planted secrets never survive, harmless text does. */
#include "recorder/redact.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *const planted_env[] = {
	"AWS_SECRET_ACCESS_KEY=s3cr3t1",
	"GITHUB_TOKEN=s3cr3t2",
	"MY_PASSWORD=s3cr3t3",
	"PATH=/usr/bin",
	"HOME=/root",
	"RANDOM_THING=plain",
	"LC_ALL=C.UTF-8",
	NULL,
};

static const char *const planted_argv[] = {
	"curl",
	"-H",
	"Authorization: Bearer s3cr3t4",
	"https://bob:s3cr3t5@example.com/x",
	"--password=s3cr3t6",
	"--token",
	"s3cr3t7",
	"DB_PASSWORD=s3cr3t8",
	"--user=bob",
};
#define PLANTED_ARGC (sizeof(planted_argv) / sizeof(planted_argv[0]))

static void assert_no_secret(const char *text)
{
	if (strstr(text, "s3cr3t") != NULL)
		fail_msg("a secret survived: %s", text);
}

static bool has_name(const json_t *names, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach (names, i, v)
		if (strcmp(json_string_value(v), name) == 0)
			return true;
	return false;
}

/* rec_redact_arg(ARG after PREV) must give WANT. */
static void check_arg(const struct rec_redact *r, const char *prev, const char *arg,
		      const char *want)
{
	cleanup_free char *got = rec_redact_arg(r, arg, prev);

	assert_string_equal(got, want);
}

/* Token shapes wherever they stand; look-alikes too short to be tokens stay. */
static void test_redact_token_shapes(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_arg(r, NULL, "ghp_0123456789abcdefghijAB", "<redacted>");
	check_arg(r, NULL, "use github_pat_11ABCDEFG0123456789abcd y", "use <redacted> y");
	check_arg(r, NULL, "key AKIAIOSFODNN7EXAMPLE end", "key <redacted> end");
	check_arg(r, NULL, "Bearer-less eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2ln",
		  "Bearer-less <redacted>");
	check_arg(r, NULL, "glpat-abcdefghij0123456789/x", "<redacted>/x");
	check_arg(r, NULL, "sk-short ghp_x xoxb- AKIAlower1234567890ab",
		  "sk-short ghp_x xoxb- AKIAlower1234567890ab");
	check_arg(r, NULL, "mask-0123456789abcdefghijklmn", "mask-0123456789abcdefghijklmn");
}

/* Passwords given as the word after a setting's name, as pass:, and inside a command string. */
static void test_redact_more_shapes(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_arg(r, "aws_secret_access_key", "wJalrXUtnFEMI", "<redacted>");
	check_arg(r, "-passin", "pass:hunter22", "pass:<redacted>");
	check_arg(r, NULL, "curl -u bob:hunter22 --password hunter33 http://x",
		  "curl -u bob:<redacted> --password <redacted> http://x");
	/* look-alikes stay */
	check_arg(r, "secret", "generic", "generic"); /* kubectl create secret generic */
	check_arg(r, NULL, "gcc -O2 -pthread -o key.o main.c", "gcc -O2 -pthread -o key.o main.c");
	check_arg(r, "aws_secret_access_key", "--profile", "--profile");
}

/* A quoted value after a secret option in a command string goes whole. */
static void test_redact_inline_quoted_value(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_arg(r, "-c", "/bin/true --password 'aaaa1111 bbbb2222'",
		  "/bin/true --password <redacted>");
	check_arg(r, NULL, "x --token \"a b\" --verbose", "x --token <redacted> --verbose");
	check_arg(r, NULL, "x --password a\\ b c", "x --password <redacted> c");
	check_arg(r, NULL, "x --secret 'a \"b' c", "x --secret <redacted> c");
	check_arg(r, NULL, "x --password 'never closed here", "x --password <redacted>");
	/* the words around stay */
	check_arg(r, NULL, "echo 'a b' --password x 'c d'",
		  "echo 'a b' --password <redacted> 'c d'");
	check_arg(r, NULL, "ssh -p 22 'host name' --password", "ssh -p 22 'host name' --password");
}

/* curl's user:password: after -u/--user, in --user=, glued to -u; the user stays. */
static void test_redact_user_glued(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_arg(r, "curl", "-ubob:PASS123456", "-ubob:<redacted>");
	check_arg(r, "-s", "-Ubob:PASS123456", "-Ubob:<redacted>");
	check_arg(r, NULL, "--user=bob:PASS123456", "--user=bob:<redacted>");
	check_arg(r, "-u", "bob:PASS123456", "bob:<redacted>");
	check_arg(r, "--user", "bob:PASS123456", "bob:<redacted>");
	check_arg(r, NULL, "curl -s -ubob:PASS1 -u bob:PASS2 http://x",
		  "curl -s -ubob:<redacted> -u bob:<redacted> http://x");
	check_arg(r, NULL, "curl --user=bob:PASS3 --proxy-user p:PASS4 --proxy-user=q:PASS5",
		  "curl --user=bob:<redacted> --proxy-user p:<redacted> --proxy-user=q:<redacted>");
	/* no password: the word stays */
	check_arg(r, NULL, "-uroot", "-uroot");
	check_arg(r, NULL, "mysql -uroot app", "mysql -uroot app");
	check_arg(r, NULL, "-ubob:", "-ubob:");
}

/* A URL's userinfo ends at the last '@' of the authority. */
static void test_redact_url_userinfo(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_arg(r, NULL, "http://bob:p1@p2@host/", "http://bob:<redacted>@host/");
	check_arg(r, NULL, "http://bob:p1xx@p2xx@127.0.0.1:1/",
		  "http://bob:<redacted>@127.0.0.1:1/");
	check_arg(r, NULL, "https://bob:a:b@c@h?x=1", "https://bob:<redacted>@h?x=1");
	check_arg(r, NULL, "ftp://u:p@h#frag@x", "ftp://u:<redacted>@h#frag@x");
	check_arg(r, NULL, "curl http://a@b:c@h/ x", "curl http://a@b:<redacted>@h/ x");
	check_arg(r, NULL, "http://u:p@h/ http://v:q@@k/",
		  "http://u:<redacted>@h/ http://v:<redacted>@k/");
	/* an '@' after the authority is no userinfo; no password, no redaction */
	check_arg(r, NULL, "http://h:80/x@y:z@w", "http://h:80/x@y:z@w");
	check_arg(r, NULL, "http://bob@h/", "http://bob@h/");
	check_arg(r, NULL, "http://bob:@h/", "http://bob:@h/");
	check_arg(r, NULL, "ssh -p 22 git@host:repo", "ssh -p 22 git@host:repo");
}

/* Token shapes glued after other characters of a word; "sk-" only when long. */
static void test_redact_token_shapes_glued(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_arg(r, NULL, "xghp_Zs1a2b3c4d5e6f7g8h9i0jKLMNOPQRSTUV", "x<redacted>");
	check_arg(r, NULL, "a=xgithub_pat_11ABCDEFG0123456789abcd", "a=x<redacted>");
	check_arg(r, NULL, "Xglpat-abcdefghij0123456789", "X<redacted>");
	check_arg(r, NULL, "1xoxp-1234567890-abc", "1<redacted>");
	check_arg(r, NULL, "idAKIAIOSFODNN7EXAMPLE", "id<redacted>");
	check_arg(r, NULL, "zASIAIOSFODNN7EXAMPLE", "z<redacted>");
	check_arg(r, NULL, "xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2ln", "x<redacted>");
	check_arg(r, NULL, "echo xsk-0123456789abcdefghijklmnopqrstuv; true",
		  "echo x<redacted>; true");
	check_arg(r, NULL, "sk-0123456789abcdefghij", "<redacted>");
	/* ordinary words with "sk-", and glued "sk-" with fewer than 32 characters, stay */
	check_arg(r, NULL, "desk-top task-1 risk-0123456789abcdefghijklmnopqrstu",
		  "desk-top task-1 risk-0123456789abcdefghijklmnopqrstu");
	check_arg(r, NULL, "xghp_short xeyJa.b AKIAlower", "xghp_short xeyJa.b AKIAlower");
}

/* A secret environment value is redacted wherever an argument carries it. */
static void test_redact_learned_env_values(void **state)
{
	static const char *const envp[] = { "DEPLOY_TOKEN=Zx9envTokenValue42", "SHORT_KEY=abc",
					    "PLAIN=Zx9notSecret00", NULL };
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	rec_redact_learn_env(r, envp);
	check_arg(r, NULL, "--header=X:Zx9envTokenValue42;Zx9envTokenValue42",
		  "--header=X:<redacted>;<redacted>");
	check_arg(r, NULL, "abc", "abc"); /* too short to learn */
	check_arg(r, NULL, "Zx9notSecret00", "Zx9notSecret00"); /* not a secret name */
}

static void test_redact_env_planted(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);
	json_t *names = json_array();
	json_t *env = rec_redact_env_json(r, planted_env, names);
	cleanup_free char *text = json_dumps(env, 0);

	assert_no_secret(text);
	assert_string_equal(json_string_value(json_object_get(env, "PATH")), "/usr/bin");
	assert_string_equal(json_string_value(json_object_get(env, "HOME")), "/root");
	assert_string_equal(json_string_value(json_object_get(env, "LC_ALL")), "C.UTF-8");
	assert_string_equal(json_string_value(json_object_get(env, "RANDOM_THING")), REC_REDACTED);
	assert_string_equal(json_string_value(json_object_get(env, "GITHUB_TOKEN")), REC_REDACTED);
	assert_true(has_name(names, "AWS_SECRET_ACCESS_KEY"));
	assert_true(has_name(names, "GITHUB_TOKEN"));
	assert_true(has_name(names, "MY_PASSWORD"));
	assert_true(has_name(names, "RANDOM_THING"));
	assert_false(has_name(names, "PATH"));
	assert_int_equal(json_array_size(names), 4);
	json_decref(env);
	json_decref(names);
}

static void test_redact_argv_planted(void **state)
{
	static const char *const want[PLANTED_ARGC] = {
		"curl",
		"-H",
		"Authorization: <redacted>",
		"https://bob:<redacted>@example.com/x",
		"--password=<redacted>",
		"--token",
		"<redacted>",
		"DB_PASSWORD=<redacted>",
		"--user=bob",
	};
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);
	json_t *names = json_array();
	json_t *argv = rec_redact_argv_json(r, planted_argv, PLANTED_ARGC, "argv", names);
	cleanup_free char *text = json_dumps(argv, 0);

	assert_no_secret(text);
	for (size_t i = 0; i < PLANTED_ARGC; i++)
		assert_string_equal(json_string_value(json_array_get(argv, i)), want[i]);
	assert_non_null(strstr(text, "bob"));
	assert_non_null(strstr(text, "example.com"));
	assert_true(has_name(names, "argv[2]"));
	assert_true(has_name(names, "argv[6]"));
	assert_false(has_name(names, "argv[5]"));
	assert_false(has_name(names, "argv[8]"));
	assert_int_equal(json_array_size(names), 5);
	json_decref(argv);
	json_decref(names);
}

static void test_redact_keep_env(void **state)
{
	static const char *const keep[] = { "RANDOM_THING", "GITHUB_TOKEN", "APP_*", NULL };
	cleanup_redact struct rec_redact *r = rec_redact_new(keep, NULL, NULL);

	assert_false(rec_redact_env_value(r, "RANDOM_THING"));
	assert_false(rec_redact_env_value(r, "APP_MODE"));
	/* a secret word wins over --keep-env and over the built-in allowlist */
	assert_true(rec_redact_env_value(r, "GITHUB_TOKEN"));
	assert_true(rec_redact_env_value(r, "github_token"));
	assert_true(rec_redact_env_value(r, "APP_SESSION_ID"));
	assert_true(rec_redact_env_value(r, "OTHER"));
	assert_false(rec_redact_env_value(r, "PATH"));
}

static void test_redact_kept_env_value_still_filtered(void **state)
{
	static const char *const keep[] = { "http_proxy", NULL };
	static const char *const env[] = { "http_proxy=http://me:s3cr3t9@proxy:3128", NULL };
	cleanup_redact struct rec_redact *r = rec_redact_new(keep, NULL, NULL);
	json_t *names = json_array();
	json_t *obj = rec_redact_env_json(r, env, names);

	assert_string_equal(json_string_value(json_object_get(obj, "http_proxy")),
			    "http://me:<redacted>@proxy:3128");
	assert_true(has_name(names, "http_proxy"));
	json_decref(obj);
	json_decref(names);
}

static void test_redact_extra_regex(void **state)
{
	static const char *const extra[] = { "sk-[A-Za-z0-9]+", NULL };
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, extra, NULL);

	check_arg(r, NULL, "use sk-abc123 here", "use <redacted> here");
	check_arg(r, NULL, "sk-abc123,sk-def456", "<redacted>,<redacted>");
	check_arg(r, NULL, "nothing", "nothing");
}

static void test_redact_bad_regex(void **state)
{
	static const char *const extra[] = { "ok", "(unclosed", NULL };
	cleanup_err struct repro_err *err = NULL;
	struct rec_redact *r = rec_redact_new(NULL, extra, &err);

	assert_null(r);
	assert_non_null(err);
	assert_int_equal(err->errnum, EINVAL);
	assert_non_null(strstr(err->msg, "(unclosed"));
}

static void test_redact_arg_forms(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	check_arg(r, "-u", "bob:pw1", "bob:<redacted>");
	check_arg(r, NULL, "--proxy-user=bob:pw2", "--proxy-user=bob:<redacted>");
	check_arg(r, NULL, "--api-key=a b c", "--api-key=<redacted>");
	check_arg(r, NULL, "FOO_TOKEN=abc make all", "FOO_TOKEN=<redacted>");
	check_arg(r, NULL, "env X=1 FOO_TOKEN=abc make", "env X=1 FOO_TOKEN=<redacted> make");
	check_arg(r, NULL, "https://h/x?api_key=zzz&page=2",
		  "https://h/x?api_key=<redacted>&page=2");
	check_arg(r, NULL, "X-Api-Key: zzz", "X-Api-Key: <redacted>");
	check_arg(r, NULL, "cookie:a=b; c=d", "cookie:<redacted>");
	check_arg(r, NULL, "curl -H 'Proxy-Authorization: Basic eHg=' x",
		  "curl -H 'Proxy-Authorization: <redacted>' x");
	check_arg(r, "--client-secret", "abc", "<redacted>");
	/* the next long option after a secret flag is no value */
	check_arg(r, "--no-auth", "--verbose", "--verbose");
	check_arg(r, NULL, "https://bob@example.com/x", "https://bob@example.com/x");
	check_arg(r, NULL, "/usr/bin/python3", "/usr/bin/python3");
	check_arg(r, NULL, "", "");
	check_arg(r, "-p", "8080", "8080");
}

#define BIG (1024u * 1024u)

/* UNIT repeated to at least BIG bytes (whole copies), in a new buffer. */
static char *repeat(const char *unit, size_t *copies)
{
	size_t n = strlen(unit), k = (BIG + n - 1) / n;
	char *s = malloc(k * n + 1);

	assert_non_null(s);
	for (size_t i = 0; i < k; i++)
		memcpy(s + i * n, unit, n);
	s[k * n] = '\0';
	if (copies != NULL)
		*copies = k;
	return s;
}

/* 1 MiB inputs that no rule may touch: each rule meets its own worst case. */
static void test_redact_large_untouched(void **state)
{
	static const char *const units[] = {
		/* one run of letters: one long name without '=' or ':' */
		"abcdefghijklmnopqrstuvwxyz",
		/* an '=', '@' or ':' every other byte or every byte */
		"a=",
		"@",
		":",
		"a:b@",
		/* userinfo look-alikes without a password */
		"://",
		"h://u:p/",
		/* secret words and header names never followed by '=' or ':' */
		"key",
		"token",
		"cookie ",
		/* quotes that never close a value */
		"'",
		"\"",
	};
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		cleanup_free char *in = repeat(units[i], NULL);
		cleanup_free char *out = rec_redact_arg(r, in, "--verbose");

		assert_string_equal(out, in);
	}
}

/* UNIT repeated COPIES times, with every "V" of it replaced by REC_REDACTED. */
static char *expected(const char *unit, size_t copies)
{
	struct repro_sbuf b = { 0 };

	repro_sbuf_adds(&b, "");
	for (size_t i = 0; i < copies; i++)
		for (const char *c = unit; *c != '\0'; c++)
			if (*c == 'V')
				repro_sbuf_adds(&b, REC_REDACTED);
			else
				repro_sbuf_add(&b, c, 1);
	return b.buf;
}

/* 1 MiB of secrets one after the other: every one of them is redacted. */
static void test_redact_large_every_secret(void **state)
{
	static const char *const units[] = {
		" x_token=V", /* bare inline assignments */
		" a_key='V'", /* quoted */
		" b_secret=\"V\"&", /* double quoted, URL query style */
		" http://u:V@h/", /* URL passwords */
		" 'Cookie: V'", /* credential headers */
		" X-Auth-Key: V\"", /* secret-named headers */
		":a_password=V;", /* after other separators */
	};
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t copies;
		cleanup_free char *in = repeat(units[i], &copies);
		cleanup_free char *out = rec_redact_arg(r, in, NULL);
		cleanup_free char *want = expected(units[i], copies);

		assert_string_equal(out, want);
		assert_no_secret(out);
	}
}

/*
 * 1 MiB of the shapes above one after the other: none survives; and runs
 * that start a JWT again and again without being one stay, in linear time.
 */
static void test_redact_large_new_shapes(void **state)
{
	static const char *const units[] = {
		" --password 's3cr3t s3cr3t' -ubob:s3cr3t http://u:s3cr3t@s3cr3t@h/"
		" xghp_s3cr3t0123456789abcdef xsk-s3cr3t0123456789abcdefghijklmnopqrstu"
		" xeyJs3cr3t.s3cr3t.s3cr3t",
	};
	static const char *const untouched[] = { "eyJ", "eyJa-xsk-!a@'a b'" };
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		cleanup_free char *in = repeat(units[i], NULL);
		cleanup_free char *out = rec_redact_arg(r, in, NULL);

		assert_no_secret(out);
	}
	for (size_t i = 0; i < sizeof(untouched) / sizeof(untouched[0]); i++) {
		cleanup_free char *in = repeat(untouched[i], NULL);
		cleanup_free char *out = rec_redact_arg(r, in, NULL);

		assert_string_equal(out, in);
	}
}

/* One secret of the kernel's largest argument (MAX_ARG_STRLEN - 1 bytes) goes whole. */
static void test_redact_large_single_value(void **state)
{
	static const char *const prefixes[] = { "--password=", "Authorization: Bearer ",
						"DB_TOKEN=" };
	const size_t len = 128u * 1024u - 1;
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);
		cleanup_free char *in = malloc(len + 1);
		cleanup_free char *out = NULL;
		cleanup_free char *want = NULL;

		assert_non_null(in);
		memcpy(in, prefixes[i], n);
		for (size_t k = n; k < len; k++)
			in[k] = (char)('a' + k % 26);
		in[len] = '\0';
		out = rec_redact_arg(r, in, NULL);
		want = repro_xasprintf("%.*s%s", (int)(strncmp(in, "Auth", 4) == 0 ? 15 : n), in,
				       REC_REDACTED);
		assert_string_equal(out, want);
	}
	/* the value after --token VALUE, and curl's -u user:password */
	{
		cleanup_free char *in = repeat("s3cr3t", NULL);
		cleanup_free char *out = rec_redact_arg(r, in, "--token");
		cleanup_free char *up = repro_xasprintf("bob:%s", in);
		cleanup_free char *out2 = rec_redact_arg(r, up, "-u");

		assert_string_equal(out, REC_REDACTED);
		assert_string_equal(out2, "bob:" REC_REDACTED);
	}
}

/*
 * --redact regexes over 1 MiB: every match in blank-separated words, one in
 * a word far longer than a piece (no tail of it is kept), '^' and '$' at the
 * ends of the argument only.
 */
static void test_redact_large_extra_regex(void **state)
{
	static const char *const extra[] = { "sk-[a-z0-9]+", "^head", "tail$", NULL };
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, extra, NULL);
	size_t copies;
	cleanup_free char *in = repeat("use sk-abc123 head tail ", &copies);
	cleanup_free char *out = rec_redact_arg(r, in, NULL);
	cleanup_free char *want = expected("use V head tail ", copies);
	cleanup_free char *word = repeat("abcdefghijklmnopqrstuvwxyz0123456789", NULL);
	cleanup_free char *wrapped = repro_xasprintf("head sk-%s tail", word);
	cleanup_free char *out2 = rec_redact_arg(r, wrapped, NULL);

	assert_string_equal(out, want);
	assert_string_equal(out2, REC_REDACTED " " REC_REDACTED " " REC_REDACTED);
}

/* 100,000 environment variables: each redacted name is noted once, in order. */
static void test_redact_env_many_names(void **state)
{
	const size_t n = 100000;
	char **envp = calloc(n + 2, sizeof(*envp));
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);
	json_t *names = json_array();
	json_t *env;

	assert_non_null(envp);
	json_array_append_new(names, json_string("V7"));
	for (size_t i = 0; i < n; i++)
		envp[i] = repro_xasprintf("V%zu=x", i);
	envp[n] = repro_xstrdup("V7=again");
	env = rec_redact_env_json(r, (const char *const *)envp, names);
	assert_int_equal(json_array_size(names), n);
	assert_string_equal(json_string_value(json_array_get(names, 0)), "V7");
	assert_string_equal(json_string_value(json_array_get(names, 1)), "V0");
	assert_string_equal(json_string_value(json_array_get(names, n - 1)), "V99999");
	assert_int_equal(json_object_size(env), n);
	for (size_t i = 0; i <= n; i++)
		free(envp[i]);
	free(envp);
	json_decref(env);
	json_decref(names);
}

/* rec_redact_env_entry(ENTRY) under R must give WANT. */
static void check_entry(const struct rec_redact *r, const char *entry, size_t len, const char *want)
{
	cleanup_free char *got = rec_redact_env_entry(r, entry, len, NULL);

	assert_string_equal(got, want);
}

/*
 * One entry at a time, as exec environments are redacted: the length bounds
 * the entry (no NUL needed), a --keep-env glob cannot keep a secret-looking
 * name, only the first '=' ends the name, --redact-hostname covers
 * $HOSTNAME, and the names are noted once each.
 */
static void test_redact_env_entry(void **state)
{
	static const char *const keep[] = { "*", NULL };
	static const char *const extra[] = { "sk-[a-z0-9]+", NULL };
	cleanup_redact struct rec_redact *all = rec_redact_new(keep, extra, NULL);
	cleanup_redact struct rec_redact *def = rec_redact_new(NULL, NULL, NULL);
	cleanup_json json_t *names = json_array();
	struct rec_redact_notes notes;
	cleanup_free char *a = NULL, *b = NULL;

	check_entry(def, "PATH=/bin:/usr/binXXXX", 18, "PATH=/bin:/usr/bin");
	check_entry(def, "FOO=bar", 7, "FOO=" REC_REDACTED);
	check_entry(def, "FOO=", 4, "FOO=" REC_REDACTED);
	check_entry(def, "=x", 2, "=" REC_REDACTED);
	check_entry(def, "NOEQUALS", 8, REC_REDACTED);
	check_entry(def, "HOSTNAME=box", 12, "HOSTNAME=box");
	check_entry(all, "FOO=a=b", 7, "FOO=a=b");
	check_entry(all, "GH_TOKEN=s3cr3t", 15, "GH_TOKEN=" REC_REDACTED);
	check_entry(all, "PGPASS=s3cr3t", 13, "PGPASS=" REC_REDACTED);
	check_entry(all, "NOTE=use sk-abc1 now", 20, "NOTE=use " REC_REDACTED " now");
	rec_redact_hide_hostname(def);
	check_entry(def, "HOSTNAME=box", 12, "HOSTNAME=" REC_REDACTED);

	rec_redact_notes_init(&notes, names);
	a = rec_redact_env_entry(def, "FOO=1", 5, &notes);
	b = rec_redact_env_entry(def, "FOO=2", 5, &notes);
	free(rec_redact_env_entry(def, "PATH=/bin", 9, &notes));
	free(rec_redact_env_entry(def, "ODD", 3, &notes));
	rec_redact_notes_release(&notes);
	assert_string_equal(a, "FOO=" REC_REDACTED);
	assert_int_equal(json_array_size(names), 2);
	assert_true(has_name(names, "FOO"));
	assert_true(has_name(names, "env"));
	(void)state;
}

/* rec_redact_argv(ARGV) must give WANT, element by element (both NULL-terminated). */
static void check_argv(const struct rec_redact *r, const char *const *argv, const char *const *want)
{
	size_t n = 0;
	char **got;

	while (argv[n] != NULL)
		n++;
	got = rec_redact_argv(r, argv, n);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(want[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(want[n]);
	assert_null(got[n]);
	rec_redact_argv_free(got);
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Program-specific secret options in an argv: keyed on the program, also behind wrappers. */
static void test_redact_program_options(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_argv(r, ARGV("mysql", "-uroot", "-phunter22", "-h", "db", "app"),
		   ARGV("mysql", "-uroot", "-p<redacted>", "-h", "db", "app"));
	check_argv(r,
		   ARGV("/usr/bin/mysqldump", "-pX1", "--pass=X2", "--password=X3", "-P", "3306"),
		   ARGV("/usr/bin/mysqldump", "-p<redacted>", "--pass=<redacted>",
			"--password=<redacted>", "-P", "3306"));
	/* mysql's -p alone prompts: the next word is the database */
	check_argv(r, ARGV("mariadb-dump", "-p", "shop"), ARGV("mariadb-dump", "-p", "shop"));
	check_argv(r, ARGV("mariadb", "-pX4"), ARGV("mariadb", "-p<redacted>"));
	check_argv(r, ARGV("sshpass", "-p", "X5", "ssh", "-p", "22", "host"),
		   ARGV("sshpass", "-p", "<redacted>", "ssh", "-p", "22", "host"));
	check_argv(r, ARGV("sshpass", "-pX6", "scp", "-P", "2222", "f", "h:"),
		   ARGV("sshpass", "-p<redacted>", "scp", "-P", "2222", "f", "h:"));
	check_argv(r, ARGV("docker", "login", "-u", "bob", "-p", "X7", "registry.example"),
		   ARGV("docker", "login", "-u", "bob", "-p", "<redacted>", "registry.example"));
	check_argv(r, ARGV("podman", "--log-level", "info", "login", "--password", "X8", "r"),
		   ARGV("podman", "--log-level", "info", "login", "--password", "<redacted>", "r"));
	check_argv(r, ARGV("nerdctl", "login", "-pX9", "r"),
		   ARGV("nerdctl", "login", "-p<redacted>", "r"));
	check_argv(r, ARGV("redis-cli", "-h", "cache", "-p", "6379", "-a", "X10"),
		   ARGV("redis-cli", "-h", "cache", "-p", "6379", "-a", "<redacted>"));
	check_argv(r, ARGV("smbclient", "-U", "bob%X11", "//h/s"),
		   ARGV("smbclient", "-U", "bob%<redacted>", "//h/s"));
	check_argv(r, ARGV("ldapsearch", "-D", "cn=a", "-wX12"),
		   ARGV("ldapsearch", "-D", "cn=a", "-w<redacted>"));
	check_argv(r, ARGV("7z", "x", "-pX13", "a.7z"), ARGV("7z", "x", "-p<redacted>", "a.7z"));
	check_argv(r, ARGV("gpg", "--batch", "--passphrase", "X14", "-d", "f"),
		   ARGV("gpg", "--batch", "--passphrase", "<redacted>", "-d", "f"));
}

/* -p is a port or a flag elsewhere: ssh, psql, redis-cli, docker run, cp keep it. */
static void test_redact_program_options_keep(void **state)
{
	const char *const *const kept[] = {
		ARGV("ssh", "-p", "22", "host"),
		ARGV("psql", "-h", "db", "-p", "5432", "-U", "app"),
		ARGV("redis-cli", "-p", "6379", "ping"),
		ARGV("docker", "run", "-p", "8080:80", "nginx"),
		ARGV("docker", "-p", "x", "login"), /* before the subcommand: not login's -p */
		ARGV("cp", "-p", "mysql", "-pthread"),
		ARGV("gcc", "-pthread", "-o", "mysql", "m.c"),
		ARGV("mysql", "-P", "3306", "--port=3306"),
		ARGV("smbclient", "-U", "bob", "//h/s"),
		ARGV("mongo", "--port", "27017"),
		ARGV("make", "mysql", "-pX"), /* not the program */
	};
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		check_argv(r, kept[i], kept[i]);
}

/* Behind wrappers (env, sudo, timeout, ssh HOST, docker exec, kubectl --) the program is found. */
static void test_redact_program_wrappers(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_argv(r, ARGV("env", "-u", "X", "A=1", "mysql", "-pW1"),
		   ARGV("env", "-u", "X", "A=1", "mysql", "-p<redacted>"));
	check_argv(r, ARGV("sudo", "-u", "db", "-E", "--", "mysql", "-pW2"),
		   ARGV("sudo", "-u", "db", "-E", "--", "mysql", "-p<redacted>"));
	check_argv(r,
		   ARGV("timeout", "-s", "KILL", "5", "nice", "-n", "5", "sshpass", "-pW3", "ssh"),
		   ARGV("timeout", "-s", "KILL", "5", "nice", "-n", "5", "sshpass", "-p<redacted>",
			"ssh"));
	check_argv(r, ARGV("ssh", "-p", "22", "-i", "k", "db1", "mysql", "-pW4"),
		   ARGV("ssh", "-p", "22", "-i", "k", "db1", "mysql", "-p<redacted>"));
	check_argv(r, ARGV("docker", "exec", "-it", "-e", "A=1", "db", "mysql", "-pW5"),
		   ARGV("docker", "exec", "-it", "-e", "A=1", "db", "mysql", "-p<redacted>"));
	check_argv(r, ARGV("kubectl", "exec", "-n", "x", "pod", "--", "mysql", "-pW6"),
		   ARGV("kubectl", "exec", "-n", "x", "pod", "--", "mysql", "-p<redacted>"));
	/* sh -c STRING NAME ARG…: the ARG that STRING gives to a secret option as "$N" */
	check_argv(r, ARGV("sh", "-c", "mysql -p\"$1\" db", "sh", "W7"),
		   ARGV("sh", "-c", "mysql -p\"<redacted>\" db", "sh", "<redacted>"));
	check_argv(r,
		   ARGV("sudo", "bash", "-o", "pipefail", "-ec", "docker login -p ${2} r", "x", "u",
			"W8"),
		   ARGV("sudo", "bash", "-o", "pipefail", "-ec", "docker login -p <redacted> r",
			"x", "u", "<redacted>"));
	check_argv(r, ARGV("sh", "script.sh", "-p", "x"), ARGV("sh", "script.sh", "-p", "x"));
	/* a script's argv as the kernel makes it: the interpreter, the script, its arguments */
	check_argv(r, ARGV("/bin/sh", "/usr/bin/docker", "login", "-p", "W9", "r"),
		   ARGV("/bin/sh", "/usr/bin/docker", "login", "-p", "<redacted>", "r"));
	check_argv(
		r, ARGV("/usr/bin/python3", "-W", "ignore", "/usr/local/bin/mysql", "-pW10"),
		ARGV("/usr/bin/python3", "-W", "ignore", "/usr/local/bin/mysql", "-p<redacted>"));
	check_argv(r, ARGV("sh", "-c", "ssh -p \"$1\" h", "sh", "22"),
		   ARGV("sh", "-c", "ssh -p \"$1\" h", "sh", "22"));
	/* the program after a wrapper is a program like any other: ssh -p stays */
	check_argv(r, ARGV("sudo", "ssh", "-p", "22", "h"), ARGV("sudo", "ssh", "-p", "22", "h"));
	check_argv(r, ARGV("env", "psql", "-p", "5432"), ARGV("env", "psql", "-p", "5432"));
}

/* Command lines inside one argument: bash -c, ssh HOST '…', with quotes and separators. */
static void test_redact_program_strings(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	check_arg(r, "-c", "mysql -uroot -pS1 app", "mysql -uroot -p<redacted> app");
	check_arg(r, "-c", "cd /x && sudo mysqldump -p'S2 two' db > d.sql",
		  "cd /x && sudo mysqldump -p'<redacted>' db > d.sql");
	check_arg(r, "-c", "sshpass -p \"S3\" ssh -p 22 h; docker login -u u -p S4 r",
		  "sshpass -p \"<redacted>\" ssh -p 22 h; docker login -u u -p <redacted> r");
	check_arg(r, "-c", "if true; then A=1 env mysql -pS5; fi",
		  "if true; then A=1 env mysql -p<redacted>; fi");
	check_arg(r, "-c", "echo $(mysql -pS6 -e 'select 1')|cat",
		  "echo $(mysql -p<redacted> -e 'select 1')|cat");
	check_arg(r, "-c", "sshpass -p '' ssh h", "sshpass -p '' ssh h");
	/* a command line inside a command line, up to three deep */
	check_arg(r, "db1", "sudo bash -c 'mysql -pS9 -e \"select 1\"'",
		  "sudo bash -c 'mysql -p<redacted> -e \"select 1\"'");
	check_arg(r, "-c", "ssh h \"bash -c 'mysql -pS10'\"",
		  "ssh h \"bash -c 'mysql -p<redacted>'\"");
	/* kept */
	check_arg(r, "-c", "ssh -p 22 h; psql -p 5432; redis-cli -p 6379",
		  "ssh -p 22 h; psql -p 5432; redis-cli -p 6379");
	check_arg(r, "-c", "echo mysql; ls -p x", "echo mysql; ls -p x");
	check_arg(r, NULL, "'unclosed mysql -pS7", "'unclosed mysql -pS7");
	check_arg(r, NULL, "mysql 'unclosed -pS8", "mysql 'unclosed -pS8");
}

/* 1 MiB command lines: every secret redacted, in time linear in the length. */
static void test_redact_program_large(void **state)
{
	static const char *const units[] = {
		"mysql -pV; ",
		"sshpass -p V ssh -p 22 h | ",
		"sudo -u x docker login -p 'V' r && ",
		"env A=1 timeout 5 mysql -p\"V\"\n",
	};
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t copies;
		cleanup_free char *in = repeat(units[i], &copies);
		cleanup_free char *out = rec_redact_arg(r, in, NULL);
		cleanup_free char *want = expected(units[i], copies);

		assert_string_equal(out, want);
	}
	/* one argv of 100,000 words: mysql and then -pV each */
	{
		const size_t n = 100000;
		const char **argv = calloc(n + 1, sizeof(*argv));
		char **got;

		assert_non_null(argv);
		argv[0] = "mysql";
		for (size_t k = 1; k < n; k++)
			argv[k] = k % 2 ? "-pV" : "-P";
		got = rec_redact_argv(r, argv, n);
		for (size_t k = 1; k < n; k++)
			assert_string_equal(got[k], k % 2 ? "-p" REC_REDACTED : "-P");
		rec_redact_argv_free(got);
		free(argv);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact_env_planted),
		cmocka_unit_test(test_redact_token_shapes),
		cmocka_unit_test(test_redact_more_shapes),
		cmocka_unit_test(test_redact_inline_quoted_value),
		cmocka_unit_test(test_redact_user_glued),
		cmocka_unit_test(test_redact_url_userinfo),
		cmocka_unit_test(test_redact_token_shapes_glued),
		cmocka_unit_test(test_redact_large_new_shapes),
		cmocka_unit_test(test_redact_learned_env_values),
		cmocka_unit_test(test_redact_argv_planted),
		cmocka_unit_test(test_redact_keep_env),
		cmocka_unit_test(test_redact_kept_env_value_still_filtered),
		cmocka_unit_test(test_redact_extra_regex),
		cmocka_unit_test(test_redact_bad_regex),
		cmocka_unit_test(test_redact_arg_forms),
		cmocka_unit_test(test_redact_large_untouched),
		cmocka_unit_test(test_redact_large_every_secret),
		cmocka_unit_test(test_redact_large_single_value),
		cmocka_unit_test(test_redact_large_extra_regex),
		cmocka_unit_test(test_redact_env_many_names),
		cmocka_unit_test(test_redact_env_entry),
		cmocka_unit_test(test_redact_program_options),
		cmocka_unit_test(test_redact_program_options_keep),
		cmocka_unit_test(test_redact_program_wrappers),
		cmocka_unit_test(test_redact_program_strings),
		cmocka_unit_test(test_redact_program_large),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
