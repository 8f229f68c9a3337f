#include "fuzz_input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void fatal(const char *what)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, strerror(errno));
	abort();
}

void fuzz_bundle_open(struct fuzz_bundle *fb, const uint8_t *data, size_t size)
{
	size_t done = 0;

	fb->fd = memfd_create("repro-fuzz-bundle", MFD_CLOEXEC);
	if (fb->fd < 0)
		fatal("memfd_create");
	while (done < size) {
		ssize_t n = write(fb->fd, data + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fatal("write to the memfd");
		done += (size_t)n;
	}
	snprintf(fb->path, sizeof(fb->path), "/proc/self/fd/%d", fb->fd);
}

void fuzz_bundle_close(struct fuzz_bundle *fb)
{
	if (fb->fd >= 0)
		close(fb->fd);
	fb->fd = -1;
}

FILE *fuzz_sink(void)
{
	static FILE *sink;

	if (sink == NULL && (sink = fopen("/dev/null", "we")) == NULL)
		fatal("cannot open /dev/null");
	clearerr(sink);
	return sink;
}

bool fuzz_pair_split(const uint8_t *data, size_t size, const uint8_t **a, size_t *alen,
		     const uint8_t **b, size_t *blen)
{
	size_t n;

	if (size < FUZZ_PAIR_PREFIX)
		return false;
	n = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
	if (n > size - FUZZ_PAIR_PREFIX)
		return false;
	*a = data + FUZZ_PAIR_PREFIX;
	*alen = n;
	*b = data + FUZZ_PAIR_PREFIX + n;
	*blen = size - FUZZ_PAIR_PREFIX - n;
	return true;
}

size_t fuzz_pair_join(uint8_t *out, size_t max, const uint8_t *a, size_t alen, const uint8_t *b,
		      size_t blen)
{
	size_t size = FUZZ_PAIR_PREFIX + alen + blen;

	if (alen > UINT32_MAX || alen > max || blen > max || size > max)
		return 0;
	memcpy(out + FUZZ_PAIR_PREFIX, a, alen);
	memcpy(out + FUZZ_PAIR_PREFIX + alen, b, blen);
	out[0] = (uint8_t)alen;
	out[1] = (uint8_t)(alen >> 8);
	out[2] = (uint8_t)(alen >> 16);
	out[3] = (uint8_t)(alen >> 24);
	return size;
}
