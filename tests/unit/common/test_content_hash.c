/* Unit tests of common/content_hash.h: which files' hashes are withheld, and why. */
#include "common/content_hash.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static const char *why(const char *path, unsigned mode, uint64_t size)
{
	return repro_hash_withheld(path, strlen(path), mode, size);
}

/* The order of docs/bundle-format.md "Content hashes": a secret name, owner-only, small. */
static void test_withheld_reasons(void **state)
{
	(void)state;
	assert_string_equal(why("/srv/app/server.KEY", 0100644, 4096), "secret-name");
	assert_string_equal(why("/home/u/.ssh/config", 0644, 4096), "secret-name");
	assert_string_equal(why("api_tokens.json", 0644, 4096), "secret-name");
	assert_string_equal(why("/run/secrets/db", 0600, 10), "secret-name");
	assert_string_equal(why("/srv/app/key", 0100600, 4096), "owner-only");
	assert_string_equal(why("/srv/app/run.sh", 0700, 4096), "owner-only");
	assert_string_equal(why("/srv/app/pin.txt", 0644, REPRO_HASH_MIN_SIZE - 1), "small");
	assert_null(why("/srv/app/pin.txt", 0644, REPRO_HASH_MIN_SIZE));
	assert_null(why("/srv/app/tokenizer.json", 0640, 4096));
	assert_null(why("/srv/secretary.txt", 0604, 4096));
}

/* Only path[0..len) counts: a name past it is not looked at. */
static void test_withheld_length(void **state)
{
	const char *p = "/srv/app/conf.json.pem";

	(void)state;
	assert_null(repro_hash_withheld(p, strlen("/srv/app/conf.json"), 0644, 4096));
	assert_string_equal(repro_hash_withheld(p, strlen(p), 0644, 4096), "secret-name");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_withheld_reasons),
		cmocka_unit_test(test_withheld_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
