/*
 * Unit tests of recorder/redact.h (issue 26 "A secret stays home wherever it
 * shows up"): planted secrets in argv shapes that general rules cover,
 * values learned from execs and found in any string (paths, JSON members),
 * and the look-alikes that must survive (paths, hashes, UUIDs, words).
 */
#include "recorder/redact.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* An argv as a program gets it, and the secret planted in it. */
struct shape {
	const char *argv[10]; /* NULL-terminated */
	const char *secret;
};

static const struct shape shapes[] = {
	{ { "git", "clone", "https://oauth2:S3kOauth01@github.com/o/x.git" }, "S3kOauth01" },
	{ { "git", "clone", "https://a1b2c3d4e5f6g7h8i9j0k1l2@github.com/o/x.git" },
	  "a1b2c3d4e5f6g7h8i9j0k1l2" },
	{ { "touch", "ghp_S3kTouch0123456789abcdefABCDEF012345.txt" },
	  "ghp_S3kTouch0123456789abcdefABCDEF012345" },
	{ { "migrate", "--db-pass", "S3kDbPass04", "up" }, "S3kDbPass04" },
	{ { "tool", "--pw=S3kPwEq05" }, "S3kPwEq05" },
	{ { "tool", "--pw", "S3kPwNext06" }, "S3kPwNext06" },
	{ { "ansible-playbook", "-e", "ansible_become_pass=S3kAnsible07", "site.yml" },
	  "S3kAnsible07" },
	{ { "docker", "run", "-e", "DBPASS=S3kDocker08", "img" }, "S3kDocker08" },
	{ { "curl",
	    "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sig=S3kSasSig09%3D&se=2030" },
	  "S3kSasSig09" },
	{ { "sqlplus", "scott/S3kSqlPw10@orcl" }, "S3kSqlPw10" },
	{ { "sqlplus", "-S", "scott/S3kSqlPw11@//db:1521/orcl", "@x.sql" }, "S3kSqlPw11" },
	{ { "openssl", "enc", "-aes256", "-pass", "pass:S3kOpenssl12", "-in", "f" },
	  "S3kOpenssl12" },
	{ { "vault", "login", "S3kVault13" }, "S3kVault13" },
	{ { "az", "login", "-u", "bob", "-p", "S3kAzLogin14" }, "S3kAzLogin14" },
	{ { "twine", "upload", "-p", "S3kTwine15", "dist/x.whl" }, "S3kTwine15" },
	{ { "ssh-keygen", "-N", "S3kKeygen16", "-f", "k" }, "S3kKeygen16" },
	{ { "ssh-keygen", "-p", "-P", "S3kKeygen17", "-N", "", "-f", "k" }, "S3kKeygen17" },
	{ { "htpasswd", "-b", "-c", "/etc/ht", "bob", "S3kHtpass18" }, "S3kHtpass18" },
	{ { "htpasswd", "-bB", "/etc/ht", "bob", "S3kHtpass19" }, "S3kHtpass19" },
	{ { "aws", "configure", "set", "aws_secret_access_key", "S3kAws20" }, "S3kAws20" },
	{ { "bash", "-c", "cd /x\nopenssl enc -pass pass:S3kScript21 -in f\nls" }, "S3kScript21" },
	{ { "bash", "-c", "echo a\nbash -c \"curl -u user:S3kNested22 http://x\"\necho b" },
	  "S3kNested22" },
	{ { "bash", "-c", "ls\naws configure set aws_secret_access_key S3kScript23" },
	  "S3kScript23" },
	{ { "bash", "-c", "set -e\nvault login S3kScript24" }, "S3kScript24" },
	{ { "bash", "-c", "sqlplus scott/S3kScript25@orcl @a.sql" }, "S3kScript25" },
	{ { "bash", "-c", "htpasswd -b f bob S3kScript26" }, "S3kScript26" },
	{ { "bash", "-c", "tool --db-pass S3kScript27 --x" }, "S3kScript27" },
	{ { "curl", "-d", "{\"token\":\"S3kJson28\"}", "http://x" }, "S3kJson28" },
	{ { "curl", "-d", "{'api_key': 'S3kDict29'}", "http://x" }, "S3kDict29" },
	{ { "python3", "app.py", "--api-key", "S3kApiKey30" }, "S3kApiKey30" },
	{ { "bash", "-c", "echo \"{\\\"password\\\": \\\"S3kEscJson31\\\"}\"" }, "S3kEscJson31" },
	{ { "app", "--client-secret=S3kClient32" }, "S3kClient32" },
	{ { "psql", "postgresql://app:S3kPg33@db/app" }, "S3kPg33" },
	{ { "twine", "upload", "--password", "S3kTwine34" }, "S3kTwine34" },
	{ { "az", "login", "--service-principal", "-u", "id", "-p", "S3kAzSp35", "--tenant", "t" },
	  "S3kAzSp35" },
	{ { "env", "DB_PASS=S3kEnvArg36", "./run" }, "S3kEnvArg36" },
	{ { "curl", "-H", "X-Api-Key: S3kHdr37", "http://x" }, "S3kHdr37" },
	{ { "bash", "-c", "cd /tmp && mysql -uroot -pS3kMy38 db" }, "S3kMy38" },
	{ { "ssh", "host", "bash -c 'vault login S3kSshVault39'" }, "S3kSshVault39" },
	{ { "kubectl", "create", "secret", "generic", "x", "--from-literal=password=S3kK8s40" },
	  "S3kK8s40" },
	{ { "terraform", "apply", "-var", "db_password=S3kTf41" }, "S3kTf41" },
	{ { "bash", "-c", "export INNER_TOKEN=S3kExport42; cmd \"$INNER_TOKEN\"" }, "S3kExport42" },
	{ { "helm", "install", "x", "--set", "auth.password=S3kHelm43" }, "S3kHelm43" },
	{ { "bash", "-c", "echo x | twine upload -p S3kPipe44 d" }, "S3kPipe44" },
	{ { "sudo", "-u", "db", "sqlplus", "sys/S3kSudo45@db" }, "S3kSudo45" },
	{ { "bao", "login", "-method=token", "S3kBao46" }, "S3kBao46" },
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

static size_t argv_len(const char *const *argv)
{
	size_t n = 0;

	while (argv[n] != NULL)
		n++;
	return n;
}

/* Every shape: the secret is in no word; every word without it is kept as it was. */
static void test_shapes_planted(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	assert_true(N_SHAPES >= 40);
	for (size_t i = 0; i < N_SHAPES; i++) {
		size_t n = argv_len(shapes[i].argv);
		char **got = rec_redact_argv(r, shapes[i].argv, n);

		for (size_t k = 0; k < n; k++) {
			if (strstr(got[k], shapes[i].secret) != NULL)
				fail_msg("shape %zu: '%s' survived in '%s'", i, shapes[i].secret,
					 got[k]);
			if (strstr(shapes[i].argv[k], shapes[i].secret) == NULL &&
			    strcmp(got[k], shapes[i].argv[k]) != 0)
				fail_msg("shape %zu: '%s' became '%s'", i, shapes[i].argv[k],
					 got[k]);
		}
		rec_redact_argv_free(got);
	}
}

/* rec_redact_text(S) must give WANT. */
static void check_text(const struct rec_redact *r, const char *s, const char *want)
{
	size_t n;
	cleanup_free char *got = rec_redact_text(r, s, strlen(s), &n);

	assert_string_equal(got, want);
	assert_int_equal(n, strlen(want));
}

/* The forms around a secret stay: the user, the host, the query, the words. */
static void test_shapes_keep_their_form(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);
	static const char *const sql[] = { "sqlplus", "scott/S3k@orcl", "@a.sql", NULL };
	static const char *const nolog[] = { "sqlplus", "/nolog", NULL };
	char **got;

	(void)state;
	got = rec_redact_argv(r, sql, 3);
	assert_string_equal(got[1], "scott/<redacted>@orcl");
	assert_string_equal(got[2], "@a.sql");
	rec_redact_argv_free(got);
	got = rec_redact_argv(r, nolog, 2);
	assert_string_equal(got[1], "/nolog");
	rec_redact_argv_free(got);
	check_text(r, "https://a.blob.core.windows.net/c?sv=2022&sig=AbC%3D&se=1",
		   "https://a.blob.core.windows.net/c?sv=2022&sig=<redacted>&se=1");
	check_text(r, "https://a1b2c3d4e5f6g7h8i9j0k1l2@github.com/x",
		   "https://<redacted>@github.com/x");
	check_text(r, "{\"password\": \"hunter22x\", \"user\": \"bob\"}",
		   "{\"password\": \"<redacted>\", \"user\": \"bob\"}");
	check_text(r, "{'api_key': 'k1', 'n': 1}", "{'api_key': '<redacted>', 'n': 1}");
	check_text(r, "using api key Ab12Cd34Ef.", "using api key <redacted>.");
	check_text(r, "the token is 9f8e7d6c5b4a", "the token is <redacted>");
}

/* Look-alikes in paths, hashes, identifiers and prose survive rec_redact_text() whole. */
static void test_non_secrets_survive(void **state)
{
	static const char *const kept[] = {
		"/usr/lib/x86_64-linux-gnu/libssl.so.3",
		"/home/user/.ssh/known_hosts",
		"/etc/passwd",
		"/usr/share/tokenizers/tokenizer.json",
		"/tmp/repro-test-sweep.a1B2c3/app.conf",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"550e8400-e29b-41d4-a716-446655440000",
		"key 550e8400-e29b-41d4-a716-446655440000 not found",
		"the password is required",
		"api key rotation scheduled for tomorrow",
		"https://git@github.com/org/repo.git",
		"ssh://deploy-user@host/x",
		"https://first.last2024@example.com/x",
		"model load failed: cache_hub/model.pth",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"ENOENT (No such file or directory)",
		"/proc/self/fd/3",
		"bypass-cache",
		"monkeypatch.py",
	};
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		check_text(r, kept[i], kept[i]);
}

/* Words after options and settings that only look secret stay. */
static void test_non_secret_argv_survives(void **state)
{
	static const char *const keep[][6] = {
		{ "gcc", "-O2", "-o", "key.o", "main.c", NULL },
		{ "cat", "secret_key.txt", "notes.txt", NULL },
		{ "tool", "--bypass", "/tmp/file", NULL },
		{ "ssh", "-p", "2222", "host", NULL },
		{ "sqlplus", "/", "as", "sysdba", NULL },
		{ "vault", "login", "-method=userpass", "username=bob", NULL },
		{ "htpasswd", "-c", "/etc/ht", "bob", NULL },
		{ "bash", "-c", "ls -la /srv\nmake -j2 key.o main.o", NULL },
		{ "docker", "run", "-p", "80:80", "-e", "MODE=prod" },
	};
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		size_t n = 0;
		char **got;

		while (n < 6 && keep[i][n] != NULL)
			n++;
		got = rec_redact_argv(r, keep[i], n);
		for (size_t k = 0; k < n; k++)
			assert_string_equal(got[k], keep[i][k]);
		rec_redact_argv_free(got);
	}
}

/* What one exec's argv hides is hidden in any later string: git stats its URL as a path. */
static void test_learn_exec_argv(void **state)
{
	static const char argv[] = "git\0clone\0https://oauth2:TOKENVALUE8x8@127.0.0.1:1/x.git\0"
				   "touch\0ghp_S3kTouch0123456789abcdefABCDEF012345.txt";
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	assert_int_equal(rec_redact_learn_exec(r, argv, sizeof(argv) - 1, NULL, 0), 2);
	assert_int_equal(rec_redact_learn_exec(r, argv, sizeof(argv) - 1, NULL, 0), 0);
	check_text(r, "/w/https:/oauth2:TOKENVALUE8x8@127.0.0.1:1/x.git",
		   "/w/https:/oauth2:<redacted>@127.0.0.1:1/x.git");
	check_text(r, "stat TOKENVALUE8x8TOKENVALUE8x8", "stat <redacted>");
	check_text(r, "/srv/ghp_S3kTouch0123456789abcdefABCDEF012345.txt", "/srv/<redacted>.txt");
}

/* A script's own export: learned from the exec's environment, short values not. */
static void test_learn_exec_env(void **state)
{
	static const char envp[] = "INNER_TOKEN=Zq9innerTok3nValue\0SHORT_KEY=abc\0"
				   "PLAIN=Zq9notSecret00\0http_proxy=http://u:Zq9proxyPw1@p:3128";
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);

	(void)state;
	assert_int_equal(rec_redact_learn_exec(r, NULL, 0, envp, sizeof(envp) - 1), 2);
	assert_int_equal(rec_redact_known_count(r), 2);
	check_text(r, "ls: cannot access 'Zq9innerTok3nValue'", "ls: cannot access '<redacted>'");
	check_text(r, "/tmp/Zq9proxyPw1", "/tmp/<redacted>");
	check_text(r, "abc Zq9notSecret00", "abc Zq9notSecret00");
}

/*
 * Many values, overlapping and nested: every occurrence of each is found in
 * one scan, and overlapping ones are joined.
 */
static void test_learn_many_values(void **state)
{
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);
	struct repro_sbuf envp = { 0 };
	struct repro_sbuf text = { 0 };
	char entry[64];
	size_t n;
	cleanup_free char *got = NULL;

	(void)state;
	for (unsigned i = 0; i < 2000; i++) {
		int len = snprintf(entry, sizeof(entry), "K%u_TOKEN=v%07uXq", i, i * 7919u);

		repro_sbuf_add(&envp, entry, (size_t)len + 1);
	}
	repro_sbuf_add(&envp, "A_TOKEN=abcdefgh12\0B_TOKEN=gh12345678\0C_TOKEN=abcdefgh1", 56);
	assert_int_equal(rec_redact_learn_exec(r, NULL, 0, envp.buf, envp.len), 2003);
	for (unsigned i = 0; i < 2000; i += 97) {
		int len = snprintf(entry, sizeof(entry), "[v%07uXq]", i * 7919u);

		repro_sbuf_add(&text, entry, (size_t)len);
	}
	repro_sbuf_adds(&text, " abcdefgh12345678 abcdefgh1 v0000000X");
	got = rec_redact_text(r, text.buf, text.len, &n);
	assert_null(strstr(got, "Xq]"));
	assert_non_null(strstr(got, "[<redacted>]"));
	assert_non_null(strstr(got, " <redacted> <redacted> v0000000X"));
	free(envp.buf);
	free(text.buf);
}

/* Keys and values at any depth; a string with a NUL keeps it (as \x00, rec_json_str()). */
static void test_redact_json_tree(void **state)
{
	static const char envp[] = "INNER_TOKEN=Zq9innerTok3nValue";
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);
	cleanup_json json_t *v = json_pack(
		"{s:s, s:[s, {s:i}], s:s#}", "path", "/tmp/Zq9innerTok3nValue/x", "list", "ok",
		"/k/Zq9innerTok3nValue", 1, "nul", "a\0Zq9innerTok3nValue", (size_t)20);
	cleanup_free char *text = NULL;

	(void)state;
	rec_redact_learn_exec(r, NULL, 0, envp, sizeof(envp) - 1);
	assert_int_equal(rec_redact_json(r, v), 3);
	text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(
		text, "{\"list\":[\"ok\",{\"/k/<redacted>\":1}],\"nul\":\"a\\\\x00<redacted>\","
		      "\"path\":\"/tmp/<redacted>/x\"}");
}

/* A member file: changed lines rewritten, others byte for byte, a missing file no error. */
static void test_redact_member_file(void **state)
{
	static const char envp[] = "INNER_TOKEN=Zq9innerTok3nValue";
	static const char before[] = "{\"path\": \"/a\",  \"n\":1}\n"
				     "{\"path\":\"/tmp/Zq9innerTok3nValue\"}\n"
				     "not json Zq9innerTok3nValue\n";
	static const char after[] = "{\"path\": \"/a\",  \"n\":1}\n"
				    "{\"path\":\"/tmp/<redacted>\"}\n"
				    "not json <redacted>\n";
	cleanup_redact struct rec_redact *r = rec_redact_new(NULL, NULL, NULL);
	char dir[] = "/tmp/repro-test-redact.XXXXXX", path[64], buf[256];
	struct repro_err *err = NULL;
	FILE *f;
	size_t n;

	(void)state;
	rec_redact_learn_exec(r, NULL, 0, envp, sizeof(envp) - 1);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/files.jsonl", dir);
	assert_int_equal(rec_redact_member_file(r, path, true, &err), 0); /* missing */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(before, f);
	fclose(f);
	assert_int_equal(rec_redact_member_file(r, path, true, &err), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, after);
	unlink(path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes_planted),
		cmocka_unit_test(test_shapes_keep_their_form),
		cmocka_unit_test(test_non_secrets_survive),
		cmocka_unit_test(test_non_secret_argv_survives),
		cmocka_unit_test(test_learn_exec_argv),
		cmocka_unit_test(test_learn_exec_env),
		cmocka_unit_test(test_learn_many_values),
		cmocka_unit_test(test_redact_json_tree),
		cmocka_unit_test(test_redact_member_file),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
