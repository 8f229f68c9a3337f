/* Content hashes (common/content_hash.h). */
#include "common/content_hash.h"

#include <errno.h>
#include <stdlib.h>
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
