/* network.jsonl connects by (pid, fd), for the waits on them (replayer/readers/sockidx.h). */
#include "replayer/readers/sockidx.h"
#include "common/sysent.h"
#include "bundles/json_util.h"
#include "common/map.h"
#include "common/xalloc.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys of a connect that tell what a wait on its socket was waiting for. */
static const char *const kept_keys[] = {
	"t_ns",		 "dur_ns", "family",  "ip",    "port",	      "path", "abstract",
	"name",		 "type",   "outcome", "errno", "nonblocking", "sent", "received",
	"first_byte_ns", "end",	   "end_ns",  "proto", NULL,
};

void rpl_sockidx_init(struct rpl_sockidx *idx)
{
	*idx = (struct rpl_sockidx){ .by_fd = repro_strmap_new() };
}

void rpl_sockidx_release(struct rpl_sockidx *idx)
{
	for (size_t i = 0; idx->by_fd != NULL && i < repro_strmap_count(idx->by_fd); i++)
		json_decref(idx->conns[i]);
	free(idx->conns);
	repro_strmap_free(idx->by_fd);
	*idx = (struct rpl_sockidx){ .by_fd = NULL };
}

/* The key of (pid, fd) into buf; its length. */
static size_t key_of(char *buf, size_t len, int64_t pid, int64_t fd)
{
	return (size_t)snprintf(buf, len, "%" PRId64 "/%" PRId64, pid, fd);
}

size_t rpl_sockidx_add(struct rpl_sockidx *idx, json_t *n)
{
	const char *kind = bndl_json_str(n, "kind"), *sc = bndl_json_str(n, "syscall");
	json_t *c;
	size_t bytes = 64, klen, i;
	char key[48];
	bool is_new;

	if (idx->by_fd == NULL || idx->n >= RPL_SOCKIDX_MAX || kind == NULL ||
	    strcmp(kind, "attempt") != 0 || repro_sysent_find(sc) == NULL ||
	    repro_sysent_find(sc)->net != REPRO_NET_CONNECT ||
	    !json_is_integer(json_object_get(n, "fd")))
		return 0;
	c = json_object();
	for (const char *const *k = kept_keys; *k != NULL; k++) {
		json_t *v = json_object_get(n, *k);

		if (v == NULL)
			continue;
		json_object_set(c, *k, v);
		bytes += 48 + (json_is_string(v) ? strlen(json_string_value(v)) : 0);
	}
	klen = key_of(key, sizeof(key), bndl_json_int(n, "pid", 0), bndl_json_int(n, "fd", 0));
	i = repro_strmap_put(idx->by_fd, key, klen, &is_new);
	if (is_new) {
		idx->conns = repro_xgrow(idx->conns, i, sizeof(*idx->conns));
		idx->conns[i] = json_array();
		bytes += 64 + klen;
	}
	json_array_append_new(idx->conns[i], c);
	idx->n++;
	return bytes;
}

json_t *rpl_sockidx_find(const struct rpl_sockidx *idx, int64_t pid, int64_t fd, int64_t t_ns)
{
	char key[48];
	json_t *c, *best = NULL;
	size_t i, k, klen;

	if (idx == NULL || idx->by_fd == NULL)
		return NULL;
	klen = key_of(key, sizeof(key), pid, fd);
	if (!repro_strmap_get(idx->by_fd, key, klen, &k))
		return NULL;
	json_array_foreach (idx->conns[k], i, c) {
		int64_t t = bndl_json_int(c, "t_ns", INT64_MAX);

		if (t <= t_ns + 1000000 && (best == NULL || t >= bndl_json_int(best, "t_ns", 0)))
			best = c;
	}
	return best;
}

void rpl_sockidx_join(const struct rpl_sockidx *idx, json_t *w)
{
	json_t *fd0 = json_array_get(json_object_get(w, "fds"), 0), *c;
	const char *kind = bndl_json_str(fd0, "kind");

	if (kind == NULL || strcmp(kind, "socket") != 0)
		return;
	c = rpl_sockidx_find(idx, bndl_json_int(w, "pid", 0), bndl_json_int(fd0, "fd", -1),
			     bndl_json_int(w, "t_ns", 0));
	if (c != NULL)
		json_object_set(w, "socket", c);
}
