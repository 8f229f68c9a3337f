/* network.jsonl connects by (pid, fd), for the waits on them (replayer/readers/sockidx.h). */
#include "replayer/readers/sockidx.h"
#include "common/sysent.h"
#include "bundles/json_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The keys of a connect that tell what a wait on its socket was waiting for. */
static const char *const kept_keys[] = {
	"t_ns",		 "dur_ns", "family",  "ip",    "port",	      "path", "abstract",
	"name",		 "type",   "outcome", "errno", "nonblocking", "sent", "received",
	"first_byte_ns", "end",	   "end_ns",  "proto", NULL,
};

void rpl_sockidx_init(struct rpl_sockidx *idx)
{
	*idx = (struct rpl_sockidx){ .by_fd = json_object() };
}

void rpl_sockidx_release(struct rpl_sockidx *idx)
{
	json_decref(idx->by_fd);
	*idx = (struct rpl_sockidx){ .by_fd = NULL };
}

static void key_of(char *buf, size_t len, int64_t pid, int64_t fd)
{
	snprintf(buf, len, "%" PRId64 "/%" PRId64, pid, fd);
}

size_t rpl_sockidx_add(struct rpl_sockidx *idx, json_t *n)
{
	const char *kind = bndl_json_str(n, "kind"), *sc = bndl_json_str(n, "syscall");
	json_t *c, *arr;
	size_t bytes = 64;
	char key[48];

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
	key_of(key, sizeof(key), bndl_json_int(n, "pid", 0), bndl_json_int(n, "fd", 0));
	if ((arr = json_object_get(idx->by_fd, key)) == NULL) {
		arr = json_array();
		json_object_set_new(idx->by_fd, key, arr);
		bytes += 64 + strlen(key);
	}
	json_array_append_new(arr, c);
	idx->n++;
	return bytes;
}

json_t *rpl_sockidx_find(const struct rpl_sockidx *idx, int64_t pid, int64_t fd, int64_t t_ns)
{
	char key[48];
	json_t *arr, *c, *best = NULL;
	size_t i;

	if (idx == NULL || idx->by_fd == NULL)
		return NULL;
	key_of(key, sizeof(key), pid, fd);
	arr = json_object_get(idx->by_fd, key);
	json_array_foreach (arr, i, c) {
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
