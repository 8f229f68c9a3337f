/*
 * Loading one side of `repro diff`: processes with their normalised exec
 * chains, events as 64-bit keys (XXH3 of the call and its normalised path or
 * endpoint) grouped by process, files.jsonl facts by normalised path, and
 * network.jsonl attempts and lookups by endpoint or name.
 */
#include "replayer/readers/diff_internal.h"
#include "bundles/members.h"
#include "common/sysent.h"
#include "replayer/readers/diff.h"
#include "replayer/readers/show_internal.h"
#include "bundles/json_util.h"
#include "common/map.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Most processes, events, paths and network keys held per side (hostile bundles). */
#define MAX_PROCS 1000000u
#define MAX_EVENTS 50000000u
#define MAX_FILES 2000000u
#define MAX_NET 200000u

struct loading {
	struct df_side *s;
	struct repro_map *by_pid;
	uint32_t *ev_proc; /* per event, its process */
	XXH3_state_t *hash; /* reused for every event key */
	size_t ev_cap;
};

static size_t section_index(const char *section)
{
	static const char *const names[DF_SECTIONS] = { "host", "process", "call", "file",
							"network" };

	for (size_t i = 0; i < DF_SECTIONS; i++)
		if (strcmp(section, names[i]) == 0)
			return i;
	return 0;
}

void df_items_add(struct df_items *it, const char *section, double score, char *text, json_t *json)
{
	size_t *kept = &it->per_section[section_index(section)];

	if (*kept >= DF_MAX_ITEMS) {
		it->dropped++;
		free(text);
		json_decref(json);
		return;
	}
	if (it->n == it->cap) {
		it->cap = it->cap ? it->cap * 2 : 32;
		it->v = repro_xreallocarray(it->v, it->cap, sizeof(*it->v));
	}
	it->v[it->n] = (struct df_item){ section, score, text, json, it->n };
	it->n++;
	(*kept)++;
}

void df_items_release(struct df_items *it)
{
	for (size_t i = 0; i < it->n; i++) {
		free(it->v[i].text);
		json_decref(it->v[i].json);
	}
	free(it->v);
	*it = (struct df_items){ 0 };
}

/* ---- processes ---- */

/* The normalised argv of every exec, the key that aligns processes across runs. */
static char *exec_chain(struct df_side *s, json_t *execs)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);
	json_t *e, *a;

	if (f == NULL)
		abort();
	json_array_foreach (execs, i, e) {
		if (ftell(f) > 8192)
			break; /* enough to tell programs apart; a hostile argv stops here */
		fputs(i ? "\x1e" : "", f);
		json_array_foreach (json_object_get(e, "argv"), j, a) {
			const char *v = json_string_value(a);
			char *n;

			if (v == NULL)
				continue;
			if (j == 0 && strrchr(v, '/') != NULL)
				v = strrchr(v, '/') + 1;
			n = v[0] == '/' ? rpl_norm_path(&s->norm, v) : repro_xstrdup(v);
			fprintf(f, "%s%s", j ? "\x1f" : "", n);
			free(n);
		}
	}
	if (fclose(f) != 0)
		abort();
	if (len == 0) {
		free(buf);
		buf = repro_xstrdup("(fork)");
	}
	return buf;
}

static int on_process(void *ctx, json_t *o, size_t lineno, struct repro_err **err)
{
	struct loading *ld = ctx;
	struct df_side *s = ld->s;
	struct df_proc *p;

	if (s->nprocs >= MAX_PROCS)
		return repro_err_set(err, EPROTO,
				     "%s: processes.jsonl line %zu: more than %u processes",
				     s->path, lineno, MAX_PROCS);
	s->procs = repro_xgrow(s->procs, s->nprocs, sizeof(*s->procs));
	p = &s->procs[s->nprocs];
	*p = (struct df_proc){
		.pid = (int32_t)bndl_json_int(o, "pid", 0),
		.ppid = (int32_t)bndl_json_int(o, "ppid", 0),
		.start_ns = bndl_json_int(o, "start_ns", 0),
		.end_ns = bndl_json_int(o, "end_ns", -1),
		.parent = DF_NONE,
		.partner = DF_NONE,
	};
	p->key = exec_chain(s, json_object_get(o, "execs"));
	p->label = rpl_exec_label(json_object_get(o, "execs"), &s->norm);
	if (json_is_object(json_object_get(o, "exit")))
		p->exit = json_deep_copy(json_object_get(o, "exit"));
	repro_map_put(ld->by_pid, (uint32_t)p->pid, s->nprocs++);
	return 0;
}

/*
 * A hostile processes.jsonl may make parents form a cycle, leaving no root to
 * align from: walk up from each process (marking the walk), and where the
 * walk meets itself, make that process a root.  O(processes).
 */
static void break_cycles(struct df_side *s)
{
	/* 0: not seen; 1 + walk number: on that walk; SIZE_MAX: leads to a root */
	size_t *mark = repro_xcalloc(s->nprocs + 1, sizeof(size_t));

	for (size_t i = 0; i < s->nprocs; i++) {
		size_t k = i, walk = i + 1;

		while (k != DF_NONE && mark[k] == 0) {
			mark[k] = walk;
			if (s->procs[k].parent != DF_NONE && mark[s->procs[k].parent] == walk)
				s->procs[k].parent = DF_NONE; /* the walk came back to itself */
			k = s->procs[k].parent;
		}
		for (k = i; k != DF_NONE && mark[k] == walk; k = s->procs[k].parent)
			mark[k] = SIZE_MAX;
	}
	free(mark);
}

/*
 * A process that never exec'd is named after its nearest ancestor that did,
 * "LABEL (fork)", looked up in the labels as loaded: naming in place would
 * make a chain of N forks grow labels of N words (quadratic memory).  The
 * walk up stops after 64 steps, so the cost is linear in the processes.
 */
static void name_forks(struct df_side *s)
{
	char **names = repro_xcalloc(s->nprocs + 1, sizeof(*names));

	for (size_t i = 0; i < s->nprocs; i++) {
		size_t k = i;

		if (s->procs[i].label[0] != '\0')
			continue;
		for (int depth = 0; depth < 64 && k != DF_NONE && s->procs[k].label[0] == '\0';
		     depth++)
			k = s->procs[k].parent;
		if (k != DF_NONE && s->procs[k].label[0] != '\0')
			names[i] = repro_xasprintf("%s (fork)", s->procs[k].label);
		else
			names[i] = repro_xasprintf("pid %d", (int)s->procs[i].pid);
	}
	for (size_t i = 0; i < s->nprocs; i++) {
		if (names[i] != NULL) {
			free(s->procs[i].label);
			s->procs[i].label = names[i];
		}
	}
	free(names);
}

/* Parents by pid; a process that never exec'd is named after its parent. */
static void link_procs(struct loading *ld)
{
	struct df_side *s = ld->s;

	for (size_t i = 0; i < s->nprocs; i++) {
		size_t k;

		if (s->procs[i].ppid != 0 &&
		    repro_map_get(ld->by_pid, (uint32_t)s->procs[i].ppid, &k) && k != i)
			s->procs[i].parent = k;
	}
	break_cycles(s);
	name_forks(s);
}

/* ---- events ---- */

/* The code of errno name: 1 + its index, at most 65535 (the names past it share that code). */
static uint16_t intern(struct df_side *s, const char *name)
{
	size_t i;

	if (repro_strmap_get(s->errnames, name, strlen(name), &i))
		return (uint16_t)(i + 1);
	if (repro_strmap_count(s->errnames) >= 65535)
		return 65535;
	return (uint16_t)(repro_strmap_put(s->errnames, name, strlen(name), NULL) + 1);
}

const char *df_side_errname(const struct df_side *s, uint16_t code)
{
	return code == 0 || code > repro_strmap_count(s->errnames)
		       ? NULL
		       : repro_strmap_key(s->errnames, code - 1u, NULL);
}

/* Calls whose presence or result depends on timing, not on the machine. */
static bool timing_only(const char *sc, const char *e)
{
	const struct repro_sysent *s = repro_sysent_find(sc);

	return (s != NULL && (s->flags & REPRO_SYSF_WAIT_CHILD)) ||
	       (e != NULL && (strcmp(e, "EAGAIN") == 0 || strcmp(e, "EINTR") == 0 ||
			      strncmp(e, "ERESTART", 8) == 0));
}

/* The normalised endpoint of an event's "addr" into f. */
static void put_addr(struct df_side *s, FILE *f, json_t *addr)
{
	const char *ip = bndl_json_str(addr, "ip"), *path = bndl_json_str(addr, "path");

	if (ip != NULL) {
		fprintf(f, "%s:%" PRId64, ip, bndl_json_int(addr, "port", 0));
	} else if (path != NULL) {
		char *n = rpl_norm_path(&s->norm, path);

		fputs(n, f);
		free(n);
	} else if (bndl_json_str(addr, "abstract") != NULL) {
		fprintf(f, "@%s", bndl_json_str(addr, "abstract"));
	}
}

static void hash_str(XXH3_state_t *h, const char *s)
{
	XXH3_64bits_update(h, s, strlen(s));
}

/*
 * Addresses the kernel returns (accept, getsockname, getpeername) carry
 * ports it chose for this run: only their ip counts.
 */
static bool is_port_random(const char *sc)
{
	const struct repro_sysent *s = repro_sysent_find(sc);

	return s != NULL && (s->net == REPRO_NET_NEWFD || s->net == REPRO_NET_NAME);
}

static uint64_t event_key(struct df_side *s, XXH3_state_t *h, json_t *ev, const char *sc)
{
	static const char *const keys[] = { "path", "newpath" };
	json_t *addr = json_object_get(ev, "addr");

	XXH3_64bits_reset(h);
	hash_str(h, sc);
	for (size_t k = 0; k < 2; k++) {
		const char *p = bndl_json_str(ev, keys[k]);

		if (p != NULL) {
			char *n = rpl_norm_path(&s->norm, p);

			XXH3_64bits_update(h, "\x1f", 1);
			hash_str(h, n);
			free(n);
		}
	}
	if (json_is_object(addr)) {
		const char *ip = bndl_json_str(addr, "ip"), *path = bndl_json_str(addr, "path");
		char port[32];

		XXH3_64bits_update(h, "\x1e", 1);
		if (ip != NULL) {
			snprintf(port, sizeof(port), ":%" PRId64,
				 is_port_random(sc) ? 0 : bndl_json_int(addr, "port", 0));
			hash_str(h, ip);
			hash_str(h, port);
		} else if (path != NULL) {
			char *n = rpl_norm_path(&s->norm, path);

			hash_str(h, n);
			free(n);
		} else if (bndl_json_str(addr, "abstract") != NULL) {
			XXH3_64bits_update(h, "@", 1);
			hash_str(h, bndl_json_str(addr, "abstract"));
		}
	}
	return XXH3_64bits_digest(h);
}

/* A process that processes.jsonl does not list: one per unknown pid, so its calls still count. */
static size_t unknown_proc(struct loading *ld, int32_t pid)
{
	struct df_side *s = ld->s;
	struct df_proc *p;

	s->procs = repro_xgrow(s->procs, s->nprocs, sizeof(*s->procs));
	p = &s->procs[s->nprocs];
	*p = (struct df_proc){ .pid = pid, .parent = DF_NONE, .partner = DF_NONE, .end_ns = -1 };
	p->key = repro_xstrdup("(not in processes.jsonl)");
	p->label = repro_xasprintf("pid %d (not in processes.jsonl)", (int)pid);
	repro_map_put(ld->by_pid, (uint32_t)pid, s->nprocs);
	return s->nprocs++;
}

/*
 * Keep what a report line may quote of ev as compact JSON in s->text;
 * returns where it starts.  Bytes: about the path's length plus 100.
 */
static uint64_t keep_record(struct df_side *s, json_t *ev)
{
	const char *path = bndl_json_str(ev, "path");
	cleanup_json json_t *o = json_pack(
		"{s:s?,s:s?,s:s?,s:s?,s:s?,s:I,s:I}", "syscall", bndl_json_str(ev, "syscall"),
		"path", path != NULL && strlen(path) <= XP_PATH_MAX ? path : NULL, "errno",
		bndl_json_str(ev, "errno"), "flags", bndl_json_str(ev, "flags"), "mode",
		bndl_json_str(ev, "mode"), "seq", (json_int_t)bndl_json_int(ev, "seq", 0), "t_ns",
		(json_int_t)bndl_json_int(ev, "t_ns", 0));

	if (o != NULL && json_is_true(json_object_get(ev, "injected")))
		json_object_set_new(o, "rule", json_integer(bndl_json_int(ev, "rule", 0)));
	size_t need = o != NULL ? json_dumpb(o, NULL, 0, JSON_COMPACT) : 0;
	uint64_t at = s->text_len;

	if (s->text_len + need + 1 > s->text_cap) {
		size_t cap = s->text_cap ? s->text_cap : 64 * 1024;

		while (cap < s->text_len + need + 1)
			cap *= 2;
		s->text = repro_xrealloc(s->text, cap);
		s->text_cap = cap;
	}
	if (need > 0)
		(void)json_dumpb(o, s->text + s->text_len, need, JSON_COMPACT);
	s->text[s->text_len + need] = '\0';
	s->text_len += need + 1;
	bndl_reader_charge(s->r, need + 1 + 3 * sizeof(uint64_t)); /* and keys, lines, outcome */
	return at;
}

static int on_event(void *ctx, json_t *ev, size_t lineno, struct repro_err **err)
{
	struct loading *ld = ctx;
	struct df_side *s = ld->s;
	const char *sc = bndl_json_str(ev, "syscall"), *e = bndl_json_str(ev, "errno");
	size_t proc;

	if (sc == NULL || timing_only(sc, e))
		return 0;
	if (!repro_map_get(ld->by_pid, (uint32_t)(int32_t)bndl_json_int(ev, "pid", 0), &proc)) {
		if (s->nprocs >= MAX_PROCS)
			return 0;
		proc = unknown_proc(ld, (int32_t)bndl_json_int(ev, "pid", 0));
	}
	if (s->nev >= MAX_EVENTS)
		return repro_err_set(err, EPROTO, "%s: events.jsonl line %zu: more than %u events",
				     s->path, lineno, MAX_EVENTS);
	if (s->nev == ld->ev_cap) {
		ld->ev_cap = ld->ev_cap ? ld->ev_cap * 2 : 4096;
		s->keys = repro_xreallocarray(s->keys, ld->ev_cap, sizeof(*s->keys));
		s->lines = repro_xreallocarray(s->lines, ld->ev_cap, sizeof(*s->lines));
		s->outcome = repro_xreallocarray(s->outcome, ld->ev_cap, sizeof(*s->outcome));
		ld->ev_proc = repro_xreallocarray(ld->ev_proc, ld->ev_cap, sizeof(*ld->ev_proc));
	}
	s->keys[s->nev] = event_key(s, ld->hash, ev, sc);
	s->lines[s->nev] = keep_record(s, ev);
	s->outcome[s->nev] = e != NULL ? intern(s, e) : 0;
	ld->ev_proc[s->nev++] = (uint32_t)proc;
	if (s->opts != NULL && s->opts->progress != NULL && lineno % 4096 == 0)
		s->opts->progress(s->opts->progress_ctx, s->label, (uint64_t)lineno,
				  (uint64_t)bndl_json_int(json_object_get(s->manifest, "counts"),
							  "events", 0));
	return 0;
}

/* Group the events by process (a stable counting sort), keeping seq order within one. */
static void group_events(struct loading *ld)
{
	struct df_side *s = ld->s;
	size_t *next = repro_xcalloc(s->nprocs + 1, sizeof(*next));
	uint64_t *keys = repro_xcalloc(s->nev + 1, sizeof(*keys));
	uint64_t *lines = repro_xcalloc(s->nev + 1, sizeof(*lines));
	uint16_t *out = repro_xcalloc(s->nev + 1, sizeof(*out));

	for (size_t i = 0; i < s->nev; i++)
		s->procs[ld->ev_proc[i]].nev++;
	for (size_t p = 0, at = 0; p < s->nprocs; p++) {
		s->procs[p].first_ev = next[p] = at;
		at += s->procs[p].nev;
	}
	for (size_t i = 0; i < s->nev; i++) {
		size_t to = next[ld->ev_proc[i]]++;

		keys[to] = s->keys[i];
		lines[to] = s->lines[i];
		out[to] = s->outcome[i];
	}
	free(s->keys);
	free(s->lines);
	free(s->outcome);
	s->keys = keys;
	s->lines = lines;
	s->outcome = out;
	free(next);
}

/* ---- files ---- */

struct df_file *df_file_find(const struct df_side *s, uint64_t key)
{
	size_t i;

	return s->file_by_key != NULL && repro_map_get(s->file_by_key, key, &i) ? &s->files[i]
										: NULL;
}

/* The entry of key, added (key set, the rest zeroed) when new.  Amortised O(1). */
static struct df_file *file_put(struct df_side *s, uint64_t key)
{
	struct df_file *f = df_file_find(s, key);

	if (f != NULL)
		return f;
	if (s->file_by_key == NULL)
		s->file_by_key = repro_map_new();
	s->files = repro_xgrow(s->files, s->nfiles, sizeof(*s->files));
	repro_map_put(s->file_by_key, key, s->nfiles);
	f = &s->files[s->nfiles++];
	*f = (struct df_file){ .key = key };
	return f;
}

static uint64_t hex_hash(const char *text)
{
	return text != NULL && strncmp(text, "xxh3:", 5) == 0 ? strtoull(text + 5, NULL, 16) : 0;
}

/* files.jsonl's reasons for "hash_withheld" (docs/bundle-format.md); the last stands for any other. */
static const char *const withheld_names[] = { NULL, "small", "owner-only", "secret-name",
					      "withheld" };

const char *df_withheld_name(uint8_t code)
{
	size_t n = sizeof(withheld_names) / sizeof(withheld_names[0]);

	return withheld_names[code < n ? code : n - 1];
}

static uint8_t withheld_code(const char *reason)
{
	size_t n = sizeof(withheld_names) / sizeof(withheld_names[0]);

	if (reason == NULL)
		return 0;
	for (size_t i = 1; i + 1 < n; i++)
		if (strcmp(reason, withheld_names[i]) == 0)
			return (uint8_t)i;
	return (uint8_t)(n - 1);
}

static char type_char(const char *t)
{
	static const char *const names[] = { "file",  "dir",  "symlink", "char",
					     "block", "fifo", "socket" };
	static const char chars[] = "fdlcbps";

	for (size_t i = 0; t != NULL && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(t, names[i]) == 0)
			return chars[i];
	return t != NULL ? '?' : 0;
}

/*
 * The directories above a failed path (files.jsonl "ancestors": type, mode
 * and owner), as entries of their own unless the run touched them (a
 * touched directory sorts before its children and keeps its full record):
 * so that a parent whose owner or mode changed is compared too.  At most
 * PATH_MAX/2 ancestors per record, each once.
 */
static void add_ancestors(struct df_side *s, json_t *anc)
{
	size_t i;
	json_t *a;

	json_array_foreach (anc, i, a) {
		const char *path = bndl_json_str(a, "path");
		json_t *meta = json_object_get(a, "meta");
		struct df_file f = { .uid = -1, .gid = -1, .size = -1, .mtime_ns = -1 };
		char *n;

		if (path == NULL || s->nfiles >= MAX_FILES || strlen(path) > XP_PATH_MAX)
			return;
		n = rpl_norm_path(&s->norm, path);
		f.key = XXH3_64bits(n, strlen(n)) | 1;
		free(n);
		if (df_file_find(s, f.key) != NULL)
			continue;
		f.type = json_is_object(meta) ? type_char(bndl_json_str(meta, "type")) : 0;
		f.mode = (uint32_t)strtoul(
			bndl_json_str(meta, "mode") ? bndl_json_str(meta, "mode") : "0", NULL, 8);
		f.uid = bndl_json_int(meta, "uid", -1);
		f.gid = bndl_json_int(meta, "gid", -1);
		f.is_ancestor = true;
		*file_put(s, f.key) = f;
	}
}

static int on_file(void *ctx, json_t *o, size_t lineno, struct repro_err **err)
{
	struct df_side *s = ((struct loading *)ctx)->s;
	const char *path = bndl_json_str(o, "path");
	json_t *meta = json_object_get(o, "meta");
	struct df_file f = { 0 };
	char *n;

	if (path == NULL || s->nfiles >= MAX_FILES || strlen(path) > XP_PATH_MAX)
		return 0;
	/* paths that failed at some point, for the sentence that says why */
	if ((bndl_json_str(o, "errno") != NULL ||
	     (bndl_json_str(o, "first") != NULL && strcmp(bndl_json_str(o, "first"), "ok") != 0)) &&
	    json_object_size(s->facts.files) < 100000)
		xp_facts_keep_file(&s->facts, path, o);
	n = rpl_norm_path(&s->norm, path);
	f.key = XXH3_64bits(n, strlen(n)) | 1;
	free(n);
	f.type = json_is_object(meta) ? type_char(bndl_json_str(meta, "type")) : 0;
	f.mode = (uint32_t)strtoul(bndl_json_str(meta, "mode") ? bndl_json_str(meta, "mode") : "0",
				   NULL, 8);
	f.uid = bndl_json_int(meta, "uid", -1);
	f.gid = bndl_json_int(meta, "gid", -1);
	f.size = bndl_json_int(meta, "size", -1);
	f.mtime_ns = bndl_json_int(meta, "mtime_ns", -1);
	f.hash = hex_hash(bndl_json_str(meta, "hash"));
	f.withheld = withheld_code(bndl_json_str(meta, "hash_withheld"));
	f.target = bndl_json_str(meta, "target") != NULL
			   ? XXH3_64bits(bndl_json_str(meta, "target"),
					 strlen(bndl_json_str(meta, "target")))
			   : 0;
	f.written = json_object_get(o, "before") != NULL;
	*file_put(s, f.key) = f; /* a later record of the same path replaces it */
	add_ancestors(s, json_object_get(o, "ancestors"));
	return s->files_also != NULL ? s->files_also(s->files_ctx, o, lineno, err) : 0;
}

/* ---- network ---- */

static int on_net(void *ctx, json_t *n, size_t lineno, struct repro_err **err)
{
	struct df_side *s = ((struct loading *)ctx)->s;
	const char *kind = bndl_json_str(n, "kind");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (kind == NULL || json_object_size(s->net) >= MAX_NET ||
	    json_dumpb(n, NULL, 0, JSON_COMPACT) > 4 * XP_PATH_MAX ||
	    (f = open_memstream(&buf, &len)) == NULL)
		return 0;
	if (strcmp(kind, "dns") == 0) {
		fprintf(f, "lookup %s %s",
			bndl_json_str(n, "name") ? bndl_json_str(n, "name") : "?",
			bndl_json_str(n, "qtype") ? bndl_json_str(n, "qtype") : "?");
	} else {
		fprintf(f, "%s ", bndl_json_str(n, "syscall") ? bndl_json_str(n, "syscall") : "?");
		if (bndl_json_str(n, "name") != NULL)
			fprintf(f, "%s:%" PRId64, bndl_json_str(n, "name"),
				bndl_json_int(n, "port", 0));
		else
			put_addr(s, f, n);
	}
	if (fclose(f) == 0 && len > 0)
		json_object_set(s->net, buf,
				n); /* the last attempt to an endpoint is its outcome */
	free(buf);
	return 0;
}

int df_side_load(struct df_side *s, struct repro_err **err)
{
	struct loading ld = { .s = s, .by_pid = repro_map_new(), .hash = XXH3_createState() };
	int rc = -1;

	s->errnames = repro_strmap_new();
	s->net = json_object();
	s->facts.files = json_object();
	s->r = bndl_reader_open_limited(s->path, s->limits, err);
	if (s->r == NULL)
		goto out;
	s->manifest = bndl_reader_manifest(s->r);
	if (bndl_reader_load_opt(s->r, BNDL_HOST_JSON, &s->host, err) < 0)
		goto out;
	s->facts.host = s->host;
	s->facts.net_mode = bndl_json_str(json_object_get(s->manifest, "options"), "net");
	s->facts.injections = json_object_get(s->manifest, "injections");
	s->norm.cwd = bndl_json_str(s->manifest, "cwd");
	s->norm.home = bndl_json_str(json_object_get(s->host, "environment"), "HOME");
	/* with --map, this side's cwd and home are compared where they map to */
	if (s->norm.cwd != NULL && (s->cwd_mapped = rpl_norm_map(&s->norm, s->norm.cwd)) != NULL)
		s->norm.cwd = s->cwd_mapped;
	if (s->norm.home != NULL && (s->home_mapped = rpl_norm_map(&s->norm, s->norm.home)) != NULL)
		s->norm.home = s->home_mapped;
	if (bndl_reader_foreach(s->r, BNDL_PROCESSES_JSONL, on_process, &ld, err) < 0)
		goto out;
	link_procs(&ld);
	/* in the order the bundle holds them: one pass */
	if (bndl_reader_foreach(s->r, BNDL_EVENTS_JSONL, on_event, &ld, err) < 0 ||
	    bndl_reader_foreach_opt(s->r, BNDL_NETWORK_JSONL, on_net, &ld, err) < 0 ||
	    bndl_reader_foreach_opt(s->r, BNDL_FILES_JSONL, on_file, &ld, err) < 0 ||
	    bndl_reader_finish(s->r, err) < 0)
		goto out;
	group_events(&ld);
	rc = 0;
out:
	free(ld.ev_proc);
	XXH3_freeState(ld.hash);
	repro_map_free(ld.by_pid);
	return rc;
}

void df_side_release(struct df_side *s)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		free(s->procs[i].key);
		free(s->procs[i].label);
		json_decref(s->procs[i].exit);
	}
	free(s->procs);
	free(s->keys);
	free(s->lines);
	free(s->text);
	free(s->outcome);
	free(s->files);
	repro_map_free(s->file_by_key);
	repro_strmap_free(s->errnames);
	json_decref(s->net);
	json_decref(s->host);
	json_decref(s->facts.files);
	free(s->cwd_mapped);
	free(s->home_mapped);
	bndl_reader_free(s->r);
}

json_t *df_events_text(struct df_side *s, json_t *want, struct repro_err **err)
{
	json_t *got = json_object();
	const char *key;
	json_t *v;

	json_object_foreach (want, key, v) {
		uint64_t at = strtoull(key, NULL, 10);
		json_t *ev;

		if (at >= s->text_len)
			continue;
		ev = json_loads(s->text + at, 0, NULL);
		if (ev == NULL) {
			json_decref(got);
			return repro_err_set(err, ENOMEM, "%s: cannot hold the events to compare",
					     s->path),
			       NULL;
		}
		json_object_set_new(got, key, ev);
	}
	return got;
}
