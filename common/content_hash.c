/* Content hashes (common/content_hash.h). */
#include "common/content_hash.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <xxhash.h>

int repro_hash_fd(int fd, uint64_t max, char *buf, size_t bufsz, uint64_t *out)
{
	XXH3_state_t *s = XXH3_createState();
	uint64_t total = 0;
	ssize_t n;

	if (s == NULL)
		abort();
	XXH3_64bits_reset(s);
	while ((n = read(fd, buf, bufsz)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (total += (uint64_t)n) > max)
			break;
		XXH3_64bits_update(s, buf, (size_t)n);
	}
	if (n == 0)
		*out = XXH3_64bits_digest(s);
	else if (total > max)
		errno = EFBIG;
	XXH3_freeState(s);
	return n == 0 ? 0 : -1;
}

/*
 * Names of key, token and credential files, matched without regard to case
 * against the last component of a path (a directory component for
 * NAME_DIR): their hash is withheld whatever their size and mode.
 */
enum name_match {
	NAME_EXACT,
	NAME_PREFIX,
	NAME_SUFFIX,
	/* the text and, but for a plural 's', no letter after it: "api_token", not "tokenizer.json" */
	NAME_WORD,
	NAME_DIR, /* any directory on the way: ~/.ssh/config, /run/secrets/db */
};

static const struct {
	enum name_match how;
	const char *text;
} secret_names[] = {
	{ NAME_SUFFIX, ".key" },       { NAME_SUFFIX, ".pem" },
	{ NAME_SUFFIX, ".p12" },       { NAME_SUFFIX, ".pfx" },
	{ NAME_SUFFIX, ".jks" },       { NAME_SUFFIX, ".keystore" },
	{ NAME_SUFFIX, ".kdbx" },      { NAME_SUFFIX, ".ppk" },
	{ NAME_SUFFIX, ".env" },       { NAME_PREFIX, "id_rsa" },
	{ NAME_PREFIX, "id_dsa" },     { NAME_PREFIX, "id_ecdsa" },
	{ NAME_PREFIX, "id_ed25519" }, { NAME_PREFIX, ".env." },
	{ NAME_EXACT, ".netrc" },      { NAME_EXACT, "_netrc" },
	{ NAME_EXACT, ".pgpass" },     { NAME_EXACT, ".my.cnf" },
	{ NAME_EXACT, ".htpasswd" },   { NAME_EXACT, ".pypirc" },
	{ NAME_EXACT, ".npmrc" },      { NAME_EXACT, "shadow" },
	{ NAME_EXACT, "gshadow" },     { NAME_EXACT, "shadow-" },
	{ NAME_EXACT, "gshadow-" },    { NAME_WORD, "token" },
	{ NAME_WORD, "secret" },       { NAME_WORD, "credential" },
	{ NAME_WORD, "password" },     { NAME_DIR, ".ssh" },
	{ NAME_DIR, ".gnupg" },	       { NAME_DIR, ".password-store" },
	{ NAME_DIR, ".docker" },       { NAME_DIR, ".kube" },
	{ NAME_DIR, "secrets" },       { NAME_DIR, "private" },
};

/* No letter at c[j] (past a plural 's'): a word of a file name ends there. */
static bool ends_word(const char *c, size_t n, size_t j)
{
	if (j < n && (c[j] == 's' || c[j] == 'S'))
		j++;
	return j == n || !((c[j] >= 'a' && c[j] <= 'z') || (c[j] >= 'A' && c[j] <= 'Z'));
}

/* Whether the component c[0..n) matches entry k of secret_names. */
static bool name_matches(size_t k, const char *c, size_t n, bool is_dir)
{
	const char *t = secret_names[k].text;
	size_t len = strlen(t);

	if ((secret_names[k].how == NAME_DIR) != is_dir || n < len)
		return false;
	switch (secret_names[k].how) {
	case NAME_EXACT:
	case NAME_DIR: return n == len && strncasecmp(c, t, n) == 0;
	case NAME_PREFIX: return strncasecmp(c, t, len) == 0;
	case NAME_SUFFIX: return strncasecmp(c + n - len, t, len) == 0;
	case NAME_WORD:
		for (size_t i = 0; i + len <= n; i++)
			if (strncasecmp(c + i, t, len) == 0 && ends_word(c, n, i + len))
				return true;
		return false;
	}
	return false;
}

/*
 * A secret-looking name in PATH[0..LEN): each component against each entry,
 * O(LEN) times the table's size and the length of its texts.
 */
static bool has_secret_name(const char *path, size_t len)
{
	size_t start = 0;

	while (start < len) {
		const char *slash = memchr(path + start, '/', len - start);
		size_t end = slash != NULL ? (size_t)(slash - path) : len;

		for (size_t k = 0; k < sizeof(secret_names) / sizeof(secret_names[0]); k++)
			if (end > start &&
			    name_matches(k, path + start, end - start, slash != NULL))
				return true;
		start = end + 1;
	}
	return false;
}

const char *repro_hash_withheld(const char *path, size_t len, unsigned mode, uint64_t size)
{
	if (has_secret_name(path, len))
		return "secret-name";
	if ((mode & 077) == 0)
		return "owner-only";
	if (size < REPRO_HASH_MIN_SIZE)
		return "small";
	return NULL;
}
