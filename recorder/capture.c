#include "recorder/capture.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

void rec_capture_reset(struct rec_capture *c)
{
	pid_t tid = c->tid;
	char *arena = c->arena;
	size_t cap = c->cap;
	struct repro_map *seen = c->seen;
	struct rec_socks *socks = c->socks;
	struct rec_pathcache *paths = c->paths;

	if (cap > REC_CAPTURE_KEEP) {
		free(arena);
		arena = NULL;
		cap = 0;
	}
	memset(c, 0, sizeof(*c));
	c->tid = tid;
	c->arena = arena;
	c->cap = cap;
	c->seen = seen;
	c->socks = socks;
	c->paths = paths;
}

void *rec_capture_reserve(struct rec_capture *c, uint16_t kind, uint16_t argi, size_t len)
{
	size_t need = ALIGN8(c->used) + len + 1;
	struct bndl_blob *b;

	if (c->ev.nblobs >= BNDL_EVENT_MAX_BLOBS)
		return NULL;
	if (need > c->cap) {
		c->cap = need < 16384 ? 16384 : need * 2;
		c->arena = repro_xrealloc(c->arena, c->cap);
	}
	c->used = ALIGN8(c->used);
	b = &c->ev.blobs[c->ev.nblobs];
	b->kind = kind;
	b->argi = argi;
	b->len = (uint32_t)len;
	c->blob_off[c->ev.nblobs] = (uint32_t)c->used;
	c->ev.nblobs++;
	return c->arena + c->used;
}

void *rec_capture_grow(struct rec_capture *c, size_t len)
{
	uint16_t last = (uint16_t)(c->ev.nblobs - 1);
	size_t need = c->blob_off[last] + len + 1;

	if (need > c->cap) {
		c->cap = need;
		c->arena = repro_xrealloc(c->arena, c->cap);
	}
	c->ev.blobs[last].len = (uint32_t)len;
	return c->arena + c->blob_off[last];
}

void rec_capture_commit(struct rec_capture *c, size_t len)
{
	struct bndl_blob *b = &c->ev.blobs[c->ev.nblobs - 1];

	b->len = (uint32_t)len;
	/* keep the byte after the data: strings are read as C strings until the event is written */
	c->used = c->blob_off[c->ev.nblobs - 1] + len + 1;
}

void rec_capture_finish(struct rec_capture *c)
{
	for (uint16_t i = 0; i < c->ev.nblobs; i++)
		c->ev.blobs[i].data = c->arena + c->blob_off[i];
}

void rec_capture_release(struct rec_capture *c)
{
	free(c->arena);
	c->arena = NULL;
	c->cap = 0;
}
