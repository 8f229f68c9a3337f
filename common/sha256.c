#include "common/sha256.h"
#include "common/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <unistd.h>

int repro_sha256_file(const char *path, char hex[REPRO_SHA256_HEX + 1], struct repro_err **err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	char buf[65536];
	ssize_t n;

	if (fd < 0)
		return repro_err_set(err, errno, "cannot open '%s'", path);
	sha256_init(&ctx);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(&ctx, (size_t)n, (const uint8_t *)buf);
	if (n < 0)
		return repro_err_set(err, errno, "cannot read '%s'", path);
	sha256_digest(&ctx, sizeof(digest), digest);
	for (size_t i = 0; i < sizeof(digest); i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	return 0;
}
