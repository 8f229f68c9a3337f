/*
 * The set of secret values a recording has learned (recorder/redact_internal.h):
 * an Aho-Corasick automaton (Aho and Corasick, "Efficient string matching",
 * CACM 18(6), 1975), so that one left-to-right scan finds every occurrence
 * of every value whatever their number.  Transitions live in one
 * open-addressing hash table keyed by (state, byte), so memory is linear in
 * the bytes of the values and each step costs O(1) on average.
 */
#include "recorder/redact_internal.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct node {
	uint32_t fail; /* the longest proper suffix that is a trie state */
	uint32_t depth; /* bytes from the root */
	bool is_value; /* a learned value ends here */
	/* the deepest state on the fail chain (this one included) where a value ends, or 0 */
	uint32_t out;
	uint32_t first_child; /* 0: none (for build()'s walk; lookups use the table) */
	uint32_t next_sibling;
	unsigned char byte; /* the byte from the parent */
};

struct edge {
	uint64_t key; /* state << 8 | byte, + 1 (0: an empty slot) */
	uint32_t to;
};

struct rec_known {
	struct node *nodes; /* [0] is the root */
	size_t n_nodes;
	struct edge *edges; /* open addressing, a power of two */
	size_t cap_edges;
	size_t n_edges;
	size_t n_values;
	size_t bytes; /* of all values */
	bool is_dirty; /* values came since the fail links were computed */
};

struct rec_known *rec_known_new(void)
{
	struct rec_known *k = repro_xcalloc(1, sizeof(*k));

	k->nodes = repro_xgrow(NULL, 0, sizeof(*k->nodes));
	k->nodes[0] = (struct node){ 0 };
	k->n_nodes = 1;
	k->cap_edges = 64;
	k->edges = repro_xcalloc(k->cap_edges, sizeof(*k->edges));
	return k;
}

void rec_known_free(struct rec_known *k)
{
	if (k == NULL)
		return;
	free(k->nodes);
	free(k->edges);
	free(k);
}

static size_t slot_of(const struct rec_known *k, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (k->cap_edges - 1);
}

/* The child of STATE by byte C, or 0 (the root is never a child). */
static uint32_t child(const struct rec_known *k, uint32_t state, unsigned char c)
{
	uint64_t key = ((uint64_t)state << 8 | c) + 1;

	for (size_t i = slot_of(k, key);; i = (i + 1) & (k->cap_edges - 1)) {
		if (k->edges[i].key == key)
			return k->edges[i].to;
		if (k->edges[i].key == 0)
			return 0;
	}
}

static void edge_put(struct edge *edges, size_t cap, uint64_t key, uint32_t to)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	for (size_t i = (size_t)(h >> 20) & (cap - 1);; i = (i + 1) & (cap - 1)) {
		if (edges[i].key == 0) {
			edges[i] = (struct edge){ .key = key, .to = to };
			return;
		}
	}
}

/* Keep the table at most half full: O(1) expected probes. */
static void edges_grow(struct rec_known *k)
{
	size_t cap = k->cap_edges * 2;
	struct edge *e = repro_xcalloc(cap, sizeof(*e));

	for (size_t i = 0; i < k->cap_edges; i++)
		if (k->edges[i].key != 0)
			edge_put(e, cap, k->edges[i].key, k->edges[i].to);
	free(k->edges);
	k->edges = e;
	k->cap_edges = cap;
}

static uint32_t child_add(struct rec_known *k, uint32_t state, unsigned char c)
{
	uint32_t to = (uint32_t)k->n_nodes;

	if (2 * (k->n_edges + 1) > k->cap_edges)
		edges_grow(k);
	k->nodes = repro_xgrow(k->nodes, k->n_nodes, sizeof(*k->nodes));
	k->nodes[k->n_nodes++] = (struct node){ .depth = k->nodes[state].depth + 1,
						.next_sibling = k->nodes[state].first_child,
						.byte = c };
	k->nodes[state].first_child = to;
	edge_put(k->edges, k->cap_edges, ((uint64_t)state << 8 | c) + 1, to);
	k->n_edges++;
	return to;
}

bool rec_known_add(struct rec_known *k, const char *s, size_t len)
{
	uint32_t state = 0;

	if (len < REC_REDACT_KNOWN_MIN)
		return false;
	for (size_t i = 0; i < len; i++) {
		uint32_t next = child(k, state, (unsigned char)s[i]);

		state = next != 0 ? next : child_add(k, state, (unsigned char)s[i]);
	}
	if (k->nodes[state].is_value)
		return false;
	k->nodes[state].is_value = true;
	k->n_values++;
	k->bytes += len;
	k->is_dirty = true;
	return true;
}

size_t rec_known_count(const struct rec_known *k)
{
	return k->n_values;
}

/*
 * The fail and out links, breadth first (states in order of depth): the
 * fail link of a child of S by C is the child by C of the first state on
 * S's fail chain that has one.  O(bytes of the values) steps.
 */
static void build(struct rec_known *k)
{
	cleanup_free uint32_t *queue = repro_xcalloc(k->n_nodes, sizeof(*queue));
	size_t head = 0, tail = 0;

	queue[tail++] = 0;
	k->nodes[0].fail = 0;
	k->nodes[0].out = 0;
	while (head < tail) {
		uint32_t s = queue[head++];

		for (uint32_t t = k->nodes[s].first_child; t != 0; t = k->nodes[t].next_sibling) {
			unsigned char c = k->nodes[t].byte;
			uint32_t f = k->nodes[s].fail;

			while (s != 0 && f != 0 && child(k, f, c) == 0)
				f = k->nodes[f].fail;
			f = s == 0 ? 0 : child(k, f, c);
			k->nodes[t].fail = f;
			k->nodes[t].out = k->nodes[t].is_value ? t : k->nodes[f].out;
			queue[tail++] = t;
		}
	}
	k->is_dirty = false;
}

/* The spans so far, sorted and disjoint; a new one absorbs those it meets. */
struct span_stack {
	struct rec_cmd_span *v;
	size_t n;
};

static void span_push(struct span_stack *st, size_t from, size_t to)
{
	while (st->n > 0 && st->v[st->n - 1].to >= from) {
		st->n--;
		if (st->v[st->n].from < from)
			from = st->v[st->n].from;
		if (st->v[st->n].to > to)
			to = st->v[st->n].to;
	}
	st->v = repro_xgrow(st->v, st->n, sizeof(*st->v));
	st->v[st->n++] = (struct rec_cmd_span){ .from = from, .to = to };
}

size_t rec_known_find(struct rec_known *k, const char *s, size_t len, struct rec_cmd_span **out)
{
	struct span_stack st = { NULL, 0 };
	uint32_t state = 0;

	*out = NULL;
	if (k->n_values == 0 || len < REC_REDACT_KNOWN_MIN)
		return 0;
	if (k->is_dirty)
		build(k);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		uint32_t next;

		while ((next = child(k, state, c)) == 0 && state != 0)
			state = k->nodes[state].fail;
		state = next;
		/* the longest value ending here covers every shorter one ending here */
		if (k->nodes[state].out != 0)
			span_push(&st, i + 1 - k->nodes[k->nodes[state].out].depth, i + 1);
	}
	*out = st.v;
	return st.n;
}
