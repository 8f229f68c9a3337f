/*
 * `repro explain` (docs/explain.md): read processes.jsonl, files.jsonl,
 * network.jsonl and host.json, stream events.jsonl once, keep each distinct
 * failure, set probe noise aside, rank the rest and say why each happened.
 */
#include "replayer/readers/explain.h"
#include "bundles/members.h"
#include "common/sysent.h"
#include "replayer/readers/explain_internal.h"
#include "replayer/readers/explain_said.h"
#include "replayer/readers/explain_words.h"
#include "replayer/readers/normalize.h"
#include "replayer/readers/show_internal.h"
#include "replayer/readers/sockidx.h"
#include "bundles/json_util.h"
#include "common/map.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Distinct (process, file name) pairs remembered as found; past this, no more are learnt. */
#define OK_MAX (1u << 21)

/*
 * (pid, file name) -> the last event that found a path of that name, and
 * which path (XXH3 of it), by XXH3 of the name (a collision only hides a
 * probe): the one hash map from that key to an index in seqs and paths.
 */
struct okmap {
	struct repro_map *by_key; /* owned; NULL before the first note */
	uint64_t *seqs, *paths; /* owned: n entries, grown by repro_xgrow() */
	size_t n;
};

struct xp_state {
	const struct rpl_explain_opts *opts;
	struct xp_proc *procs;
	size_t nprocs;
	struct repro_map *by_pid;
	struct xp_finding *f;
	size_t nf, capf, dropped;
	/* owned: hash_key() of merge keys, each at the index of its finding in f */
	struct repro_strmap *index;
	struct repro_strmap
		*wanted; /* owned: hash_key() of paths whose files.jsonl records to keep */
	struct okmap ok;
	struct xp_facts facts;
	struct xp_netidx net;
	json_t *manifest; /* borrowed from the reader */
	struct bndl_reader *r; /* borrowed: what the findings keep counts against its limit */
	/* events whose result repro did not see, by unseen_reason: kernel_walk, credentials, other */
	size_t unseen[3];
	struct xp_said_set *said; /* owned: output.jsonl, what each process said */
	struct xp_words
		*words; /* owned: files.jsonl's paths, for what was said (explain_words.c) */
	struct xp_waits waits; /* waits.jsonl (explain_waits.c) */
	struct rpl_sockidx socks; /* network.jsonl connects, for the waits on their sockets */
};

/* ---- the ok map ---- */

static uint64_t name_key(int32_t pid, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base != NULL ? base + 1 : path;
	/* the pid as seed: one hash per (process, name) */
	return XXH3_64bits_withSeed(base, strlen(base), (uint64_t)(uint32_t)pid);
}

/* Note that pid found path at event seq.  Past OK_MAX names, only those known are.  O(path). */
static void ok_note(struct okmap *m, int32_t pid, const char *path, uint64_t seq)
{
	uint64_t key = name_key(pid, path);
	size_t i;

	if (m->n >= OK_MAX)
		return;
	if (m->by_key == NULL)
		m->by_key = repro_map_new();
	if (!repro_map_get(m->by_key, key, &i)) {
		m->seqs = repro_xgrow(m->seqs, m->n, sizeof(*m->seqs));
		m->paths = repro_xgrow(m->paths, m->n, sizeof(*m->paths));
		i = m->n++;
		m->seqs[i] = m->paths[i] = 0;
		repro_map_put(m->by_key, key, i);
	}
	if (seq > m->seqs[i]) {
		m->seqs[i] = seq;
		m->paths[i] = XXH3_64bits(path, strlen(path));
	}
}

/* Whether path itself was the last of its name pid used with success, after seq.  O(path). */
static bool ok_same_after(const struct okmap *m, int32_t pid, const char *path, uint64_t seq)
{
	size_t i;

	if (m->by_key == NULL || !repro_map_get(m->by_key, name_key(pid, path), &i))
		return false;
	return m->seqs[i] > seq && m->paths[i] == XXH3_64bits(path, strlen(path));
}

/* Whether a path of the same name as path, but another path, was found after seq.  O(path). */
static bool ok_elsewhere_after(const struct okmap *m, int32_t pid, const char *path, uint64_t seq)
{
	size_t i;

	if (m->by_key == NULL || !repro_map_get(m->by_key, name_key(pid, path), &i))
		return false;
	return m->seqs[i] > seq && m->paths[i] != XXH3_64bits(path, strlen(path));
}

/* ---- state ---- */

static void state_release(struct xp_state *st)
{
	for (size_t i = 0; i < st->nprocs; i++) {
		free(st->procs[i].label);
		free(st->procs[i].exe);
		free(st->procs[i].exit_signal);
	}
	free(st->procs);
	repro_map_free(st->by_pid);
	for (size_t i = 0; i < st->nf; i++) {
		struct xp_finding *x = &st->f[i];

		free(x->syscall);
		free(x->path);
		free(x->path_as_written);
		free(x->errname);
		free(x->sentence);
		json_decref(x->net);
		json_decref(x->fs);
		json_decref(x->named);
		json_decref(x->wait);
		json_decref(x->reason);
	}
	rpl_sockidx_release(&st->socks);
	json_decref(st->waits.interrupted);
	json_decref(st->waits.long_waits);
	free(st->f);
	repro_strmap_free(st->index);
	repro_strmap_free(st->wanted);
	repro_map_free(st->ok.by_key);
	free(st->ok.seqs);
	free(st->ok.paths);
	json_decref(st->facts.host);
	json_decref(st->facts.files);
	json_decref(st->facts.dns_names);
	json_decref(st->facts.url_hosts);
	json_decref(st->net.ok_conn);
	json_decref(st->net.answered);
	xp_said_free(st->said);
	xp_words_free(st->words);
}

static const struct xp_proc *proc_of(const struct xp_state *st, int32_t pid)
{
	size_t i;

	return repro_map_get(st->by_pid, (uint32_t)pid, &i) ? &st->procs[i] : NULL;
}

/* ---- processes.jsonl ---- */

/* The label of a process from its execs; NULL without exec (named after its parent later). */
static char *label_of(json_t *proc)
{
	char *label = rpl_exec_label(json_object_get(proc, "execs"), NULL);

	if (label[0] != '\0')
		return label;
	free(label);
	return NULL; /* label_inherit */
}

/*
 * The recorded command as a label, for a first process that never exec'd
 * (its program could not be started): the manifest's argv.  Never "".
 */
static char *command_label(const struct xp_state *st)
{
	json_t *execs = json_pack("[{s:O}]", "argv", json_object_get(st->manifest, "argv"));
	char *label = execs != NULL ? rpl_exec_label(execs, NULL) : NULL;

	json_decref(execs);
	if (label != NULL && label[0] != '\0')
		return label;
	free(label);
	return repro_xstrdup("the command");
}

/* A process that never exec'd runs its parent's program: "bash start.sh (fork)". */
static void label_inherit(struct xp_state *st)
{
	/* first find every name, then set them: a child must see its parent's own label */
	char **names = repro_xcalloc(st->nprocs + 1, sizeof(*names));

	for (size_t i = 0; i < st->nprocs; i++) {
		const struct xp_proc *q = &st->procs[i];

		if (q->label != NULL)
			continue;
		/* up the tree to a process with a label, at most 64 steps (a hostile cycle) */
		for (int depth = 0; depth < 64 && q != NULL && q->label == NULL; depth++)
			q = q->ppid != 0 ? proc_of(st, q->ppid) : NULL;
		if (q != NULL && q->label != NULL)
			names[i] = repro_xasprintf("%s (fork)", q->label);
		else if (st->procs[i].ppid == 0)
			names[i] = command_label(st);
		else
			names[i] = repro_xasprintf("pid %d", (int)st->procs[i].pid);
	}
	for (size_t i = 0; i < st->nprocs; i++)
		if (names[i] != NULL)
			st->procs[i].label = names[i];
	free(names);
}

/* p's exe and exec_ns from processes.jsonl "execs" (borrowed): its last one.  O(1). */
static void last_exec(struct xp_proc *p, json_t *execs)
{
	json_t *last = json_array_get(execs, json_array_size(execs) - 1);
	const char *path = bndl_json_str(last, "path");

	p->exec_ns = json_is_object(last) ? bndl_json_int(last, "t_ns", -1) : -1;
	if (path != NULL && strlen(path) <= XP_PATH_MAX)
		p->exe = repro_xstrdup(path);
}

static int on_process(void *ctx, json_t *o, size_t lineno, struct repro_err **err)
{
	struct xp_state *st = ctx;
	json_t *ex = json_object_get(o, "exit");
	int32_t pid = (int32_t)bndl_json_int(o, "pid", 0);
	struct xp_proc *p;

	if (st->nprocs >= RPL_SHOW_MAX_PROCS)
		return repro_err_set(err, EPROTO,
				     "processes.jsonl line %zu: more than %u processes", lineno,
				     RPL_SHOW_MAX_PROCS);
	st->procs = repro_xgrow(st->procs, st->nprocs, sizeof(*st->procs));
	p = &st->procs[st->nprocs];
	*p = (struct xp_proc){
		.pid = pid,
		.ppid = (int32_t)bndl_json_int(o, "ppid", 0),
		.label = label_of(o),
		.end_ns = bndl_json_int(o, "end_ns", -1),
		.start_ns = bndl_json_int(o, "start_ns", -1),
		.has_exit = json_is_object(ex),
		.exit_code = (int)bndl_json_int(ex, "code", 0),
	};
	if (bndl_json_str(ex, "signal") != NULL)
		p->exit_signal = repro_xstrdup(bndl_json_str(ex, "signal"));
	last_exec(p, json_object_get(o, "execs"));
	p->failed = p->exit_code != 0 || p->exit_signal != NULL;
	repro_map_put(st->by_pid, (uint32_t)pid, st->nprocs++);
	return 0;
}

/* ---- findings ---- */

/* The XXH3-128 of s (its HASH_KEY_LEN bytes into c), a short key for a long string. */
#define HASH_KEY_LEN sizeof(XXH128_canonical_t)
static const char *hash_key(const char *s, XXH128_canonical_t *c)
{
	XXH128_canonicalFromHash(c, XXH3_128bits(s, strlen(s)));
	return (const char *)c->digest;
}

/*
 * The finding for merge key (a new one, counted against the reader's memory
 * limit, when it is the first of its key), or NULL past
 * RPL_EXPLAIN_MAX_FINDINGS.  The index holds the key's XXH3-128, not the
 * key: a key holds a path of up to XP_PATH_MAX bytes.
 */
static struct xp_finding *finding_add(struct xp_state *st, const char *key)
{
	XXH128_canonical_t c;
	struct xp_finding *x;
	size_t i;

	key = hash_key(key, &c);
	if (repro_strmap_get(st->index, key, HASH_KEY_LEN, &i))
		return &st->f[i];
	if (st->nf >= RPL_EXPLAIN_MAX_FINDINGS) {
		st->dropped++;
		return NULL;
	}
	if (st->nf == st->capf) {
		st->capf = st->capf ? st->capf * 2 : 64;
		st->f = repro_xreallocarray(st->f, st->capf, sizeof(*st->f));
	}
	repro_strmap_put(st->index, key, HASH_KEY_LEN, NULL); /* its index: nf */
	x = &st->f[st->nf++];
	*x = (struct xp_finding){ .count = 0, .fd = -1 };
	bndl_reader_charge(st->r, sizeof(*x));
	return x;
}

static void occurrence(struct xp_finding *x, uint64_t seq, int64_t t_ns)
{
	if (x->nseqs < XP_MAX_SEQS)
		x->seqs[x->nseqs++] = seq;
	x->count++;
	x->seq = seq;
	x->t_ns = t_ns;
}

/* Whether sc runs a program (execve, execveat). */
static bool is_exec(const char *sc)
{
	const struct repro_sysent *s = repro_sysent_find(sc);

	return s != NULL && s->op == REPRO_OP_EXEC;
}

/* Whether sc binds or listens: a local address, not a peer (common/sysent.h). */
static bool is_bind_or_listen(const char *sc)
{
	const struct repro_sysent *s = repro_sysent_find(sc);

	return s != NULL && (s->net == REPRO_NET_BIND || s->net == REPRO_NET_LISTEN);
}

/*
 * The effective ids a set*id event that worked gives its process: a new
 * effective (or file-system) uid or gid, and setgroups replacing the
 * supplementary groups (its list is not recorded: counted as none).  -1
 * means "unchanged", as the calls take it.  Linear: one look per event.
 */
static void note_ids(struct xp_state *st, json_t *ev, const char *sc, int32_t pid)
{
	static const char *const uid_keys[] = { "euid", "fsuid", "uid", NULL };
	static const char *const gid_keys[] = { "egid", "fsgid", "gid", NULL };
	const struct repro_sysent *s = repro_sysent_find(sc);
	struct xp_proc *p;
	size_t i;
	bool is_u;

	if (s == NULL || !(s->flags & REPRO_SYSF_CREDS) || bndl_json_int(ev, "ret", -1) < 0 ||
	    (p = (struct xp_proc *)proc_of(st, pid)) == NULL)
		return;
	if (s->args[0].kind == RA_INT) { /* setgroups(size, list) */
		p->groups_dropped = true;
		return;
	}
	if (s->args[0].kind != RA_ID) /* capset */
		return;
	is_u = strstr(s->args[0].key, "uid") != NULL;
	for (i = 0; (is_u ? uid_keys : gid_keys)[i] != NULL; i++) {
		json_t *v = json_object_get(ev, (is_u ? uid_keys : gid_keys)[i]);

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			continue;
		if (is_u) {
			p->has_uid = true;
			p->euid = json_integer_value(v);
			p->uid_t_ns = bndl_json_int(ev, "t_ns", 0);
		} else {
			p->has_gid = true;
			p->egid = json_integer_value(v);
			p->gid_t_ns = bndl_json_int(ev, "t_ns", 0);
		}
		return;
	}
}

/*
 * A process that changed no ids of its own runs with its parent's when the
 * parent changed them before it started (fork copies credentials).  One
 * pass in processes.jsonl order (parents start before their children).
 */
static void ids_inherit(struct xp_state *st)
{
	for (size_t i = 0; i < st->nprocs; i++) {
		struct xp_proc *c = &st->procs[i];
		const struct xp_proc *p = c->ppid != 0 ? proc_of(st, c->ppid) : NULL;

		if (p == NULL || p == c || c->start_ns < 0)
			continue;
		if (!c->has_uid && p->has_uid && p->uid_t_ns <= c->start_ns) {
			c->has_uid = true;
			c->euid = p->euid;
			c->uid_t_ns = p->uid_t_ns;
		}
		if (!c->has_gid && p->has_gid && p->gid_t_ns <= c->start_ns) {
			c->has_gid = true;
			c->egid = p->egid;
			c->gid_t_ns = p->gid_t_ns;
			c->groups_dropped = p->groups_dropped;
		}
	}
}

/*
 * A lookup of a path written as a URL (the url_as_path probe): remember
 * its host as what process pid was about to resolve (explain_reason.c
 * names it when the resolver cannot be reached).  O(strlen(written)).
 */
static void note_url_host(struct xp_state *st, int32_t pid, const char *written)
{
	char host[256], key[24];

	if (xp_url_host(written, host, sizeof(host)) == NULL)
		return;
	snprintf(key, sizeof(key), "%d", (int)pid);
	if (json_object_get(st->facts.url_hosts, key) == NULL)
		bndl_reader_charge(st->r, strlen(host) + sizeof(key));
	json_object_set_new(st->facts.url_hosts, key, json_string(host));
}

/*
 * The descriptor a call without a path worked on (utimensat(fd, NULL, …)
 * has it as "dirfd", calls on an fd as "fd"), or -1.  O(1).
 */
static int32_t fd_of(json_t *ev)
{
	json_t *v = json_object_get(ev, "dirfd");

	if (!json_is_integer(v))
		v = json_object_get(ev, "fd");
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX)
		return -1;
	return (int32_t)json_integer_value(v);
}

/*
 * A failed write's filesystem at the failure (events.jsonl "fs", whose four
 * counts must be integers) with the file's "size", as a new object; NULL
 * when the event has none.  O(1).
 */
static json_t *fs_at_failure(json_t *ev)
{
	static const char *const keys[] = { "free_bytes", "total_bytes", "free_inodes",
					    "total_inodes" };
	json_t *fs = json_object_get(ev, "fs"), *out;

	if (!json_is_object(fs))
		return NULL;
	out = json_object();
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(fs, keys[i]);

		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			json_decref(out);
			return NULL;
		}
		json_object_set(out, keys[i], v);
	}
	if (json_is_integer(json_object_get(ev, "size")))
		json_object_set(out, "size", json_object_get(ev, "size"));
	return out;
}

static int on_event(void *ctx, json_t *ev, size_t lineno, struct repro_err **err)
{
	struct xp_state *st = ctx;
	const char *sc = bndl_json_str(ev, "syscall"), *path = bndl_json_str(ev, "path");
	const char *e = bndl_json_str(ev, "errno");
	int32_t pid = (int32_t)bndl_json_int(ev, "pid", 0);
	uint64_t seq = (uint64_t)bndl_json_int(ev, "seq", 0);
	struct xp_finding *x;
	enum xp_op op;
	bool denied, injected;
	const char *path_key = path, *tag;
	const char *written = path != NULL ? bndl_json_str(ev, "path_as_written") : NULL;
	char *key;

	if (sc == NULL)
		return 0;
	note_ids(st, ev, sc, pid);
	if (json_is_true(json_object_get(ev, "result_unseen"))) {
		const char *why = bndl_json_str(ev, "unseen_reason");

		st->unseen[why != NULL && strcmp(why, "kernel_walk") == 0	    ? 0
			   : why != NULL && strcmp(why, "credentials_changed") == 0 ? 1
										    : 2]++;
	}
	if (st->facts.filter_seq == 0 && bndl_json_int(ev, "ret", -1) == 0 &&
	    repro_sysent_find(sc) != NULL &&
	    (repro_sysent_find(sc)->flags & REPRO_SYSF_OWN_FILTER)) {
		st->facts.filter_seq = seq;
		st->facts.filter_pid = pid;
	}
	if (e == NULL) {
		if (path != NULL)
			ok_note(&st->ok, pid, path, seq);
		return 0;
	}
	if (xp_is_net_call(sc))
		return 0;
	if ((path != NULL && strlen(path) > XP_PATH_MAX) ||
	    (written != NULL && strlen(written) > XP_PATH_MAX)) {
		st->dropped++; /* no real path is this long (PATH_MAX): a hostile bundle */
		return 0;
	}
	op = path != NULL ? xp_op_of(ev) : XP_OP_OTHER;
	if (written != NULL && (op == XP_OP_FIND || op == XP_OP_READ) &&
	    (strcmp(e, "ENOENT") == 0 || strcmp(e, "ENOTDIR") == 0))
		note_url_host(st, pid, written);
	denied = json_is_true(json_object_get(ev, "denied_by_filter"));
	injected = json_is_true(json_object_get(ev, "injected"));
	tag = denied	 ? "\x1f"
			   "F" /* a separate finding: not the file system's answer */
	      : injected ? "\x1fI" /* nor is an injected one */
			 : "";
	/* a PATH search that finds nothing is one failure: key the exec ENOENTs by name */
	if (path != NULL && op == XP_OP_RUN && is_exec(sc) && strcmp(e, "ENOENT") == 0 &&
	    strrchr(path, '/') != NULL)
		path_key = strrchr(path, '/');
	/* one finding per (process, what it meant to do, path, errno): execve then access(X_OK) */
	key = path != NULL ? repro_xasprintf("%d\x1f%d\x1f%s\x1f%s%s", (int)pid, (int)op, path_key,
					     e, tag)
			   : repro_xasprintf("%d\x1f%s\x1f\x1f%s%s", (int)pid, sc, e, tag);
	x = finding_add(st, key);
	free(key);
	if (x == NULL)
		return 0;
	if (x->count == 0) {
		x->pid = pid;
		x->syscall = repro_xstrdup(sc);
		x->path = path != NULL ? repro_xstrdup(path) : NULL;
		x->path_as_written = written != NULL ? repro_xstrdup(written) : NULL;
		x->fd = path == NULL ? fd_of(ev) : -1;
		bndl_reader_charge(st->r, strlen(sc) + (path != NULL ? strlen(path) : 0) +
						  (written != NULL ? strlen(written) : 0) + 2);
		x->errname = repro_xstrdup(e);
		x->op = op;
		x->kind = path == NULL ? XP_OTHER : is_exec(sc) ? XP_EXEC : XP_FILE;
		x->filter_denied = denied;
		x->injected = injected;
		x->inject_rule = (int)bndl_json_int(ev, "rule", 0);
		x->fs = fs_at_failure(ev);
	} else if (path_key != path && x->path != NULL && strcmp(x->path, path) != 0) {
		x->path_search = true;
	}
	occurrence(x, seq, bndl_json_int(ev, "t_ns", 0));
	return 0;
}

static bool attempt_failed(json_t *n)
{
	const char *o = bndl_json_str(n, "outcome");

	return bndl_json_str(n, "errno") != NULL && o != NULL && strcmp(o, "in_progress") != 0;
}

static int on_net(void *ctx, json_t *n, size_t lineno, struct repro_err **err)
{
	struct xp_state *st = ctx;
	const char *kind = bndl_json_str(n, "kind"), *sc = bndl_json_str(n, "syscall");
	const char *o = bndl_json_str(n, "outcome");
	bool dns = kind != NULL && strcmp(kind, "dns") == 0;
	struct xp_finding *x;
	char *key;

	if (json_dumpb(n, NULL, 0, JSON_COMPACT) > 4 * XP_PATH_MAX) {
		st->dropped++; /* far larger than any real record */
		return 0;
	}
	xp_netidx_add(&st->net, n);
	bndl_reader_charge(st->r, rpl_sockidx_add(&st->socks, n));
	if (dns && bndl_json_str(n, "name") != NULL) {
		char pid[24];

		snprintf(pid, sizeof(pid), "%" PRId64, bndl_json_int(n, "pid", 0));
		json_object_set(st->facts.dns_names, pid, json_object_get(n, "name"));
	}
	if (dns ? (o == NULL || strcmp(o, "answered") == 0) : !attempt_failed(n))
		return 0;
	key = repro_xasprintf("net%s\x1f%" PRId64 "\x1f%s\x1f%s\x1f%s\x1f%" PRId64 "\x1f%s\x1f%s",
			      json_is_true(json_object_get(n, "injected")) ? "I" : "",
			      bndl_json_int(n, "pid", 0), sc ? sc : "dns",
			      bndl_json_str(n, "ip") ? bndl_json_str(n, "ip") : "",
			      bndl_json_str(n, "path") ? bndl_json_str(n, "path") : "",
			      bndl_json_int(n, "port", 0),
			      bndl_json_str(n, "name") ? bndl_json_str(n, "name") : "", o);
	x = finding_add(st, key);
	free(key);
	if (x == NULL)
		return 0;
	if (x->count == 0) {
		x->pid = (int32_t)bndl_json_int(n, "pid", 0);
		x->kind = dns ? XP_DNS : is_bind_or_listen(sc) ? XP_BIND : XP_CONNECT;
		x->syscall = repro_xstrdup(sc ? sc : "dns");
		x->errname = repro_xstrdup(o);
		x->op = XP_OP_OTHER;
		x->injected = json_is_true(json_object_get(n, "injected"));
		x->inject_rule = (int)bndl_json_int(n, "rule", 0);
	}
	json_decref(x->net);
	x->net = json_incref(n);
	occurrence(x, (uint64_t)bndl_json_int(n, "seq", 0), bndl_json_int(n, "t_ns", 0));
	return 0;
}

/* waits.jsonl: long waits and what the run was waiting in when it was stopped. */
static int on_wait(void *ctx, json_t *w, size_t lineno, struct repro_err **err)
{
	struct xp_state *st = ctx;

	(void)lineno;
	(void)err;
	rpl_sockidx_join(&st->socks, w);
	xp_waits_add(&st->waits, w);
	return 0;
}

static struct xp_finding *add_for_waits(void *ctx, const char *key)
{
	return finding_add(ctx, key);
}

static const struct xp_proc *proc_for_waits(const void *ctx, int32_t pid)
{
	return proc_of(ctx, pid);
}

/* The first process exited non-zero or was killed. */
static bool run_failed(const struct xp_state *st)
{
	for (size_t i = 0; i < st->nprocs; i++)
		if (st->procs[i].ppid == 0 && st->procs[i].failed)
			return true;
	return false;
}

/* files.jsonl: keep the records of the paths of findings, by path. */
static int on_file(void *ctx, json_t *o, size_t lineno, struct repro_err **err)
{
	struct xp_state *st = ctx;
	const char *path = bndl_json_str(o, "path");
	XXH128_canonical_t c;
	size_t i;

	if (path != NULL && repro_strmap_get(st->wanted, hash_key(path, &c), HASH_KEY_LEN, &i))
		xp_facts_keep_file(&st->facts, path, o);
	bndl_reader_charge(st->r, xp_words_note(st->words, o));
	return 0;
}

/*
 * A wrapper that ends with the status of a child that failed (su, runuser,
 * setpriv's exec'd shell, `sh -c`, a script waiting for its last command)
 * failed because of that child: the child's failures explain it better
 * than the wrapper's own.  One pass over the processes.
 */
static void mark_passed_on(struct xp_state *st)
{
	for (size_t i = 0; i < st->nprocs; i++) {
		const struct xp_proc *c = &st->procs[i];
		struct xp_proc *p = c->ppid != 0 ? (struct xp_proc *)proc_of(st, c->ppid) : NULL;

		if (p == NULL || p == c || !p->failed || !c->failed)
			continue;
		if (p->exit_code == c->exit_code &&
		    (p->exit_signal == NULL) == (c->exit_signal == NULL) &&
		    (p->exit_signal == NULL || strcmp(p->exit_signal, c->exit_signal) == 0))
			p->passed_on = true;
	}
}

/*
 * The files.jsonl records x's reason may need: its path's, and, for a
 * denied call that adds or removes a name, its directory's (when the
 * path's own record has no ancestors: its last call worked).  O(path).
 */
static void want_paths(struct xp_state *st, const struct xp_finding *x)
{
	size_t n = xp_parent_len(x->path);
	XXH128_canonical_t c;
	char *dir;

	repro_strmap_put(st->wanted, hash_key(x->path, &c), HASH_KEY_LEN, NULL);
	if ((x->op != XP_OP_CREATE && x->op != XP_OP_DELETE) || n == 0 ||
	    (strcmp(x->errname, "EACCES") != 0 && strcmp(x->errname, "EPERM") != 0))
		return;
	dir = repro_xstrndup(x->path, n);
	repro_strmap_put(st->wanted, hash_key(dir, &c), HASH_KEY_LEN, NULL);
	free(dir);
}

/* The members in the order the bundle holds them: one pass over the archive. */
static int load(struct xp_state *st, struct bndl_reader *r, struct repro_err **err)
{
	if (bndl_reader_load_opt(r, BNDL_HOST_JSON, &st->facts.host, err) < 0)
		return -1;
	if (bndl_reader_foreach(r, BNDL_PROCESSES_JSONL, on_process, st, err) < 0)
		return -1;
	label_inherit(st);
	mark_passed_on(st);
	if (bndl_reader_foreach(r, BNDL_EVENTS_JSONL, on_event, st, err) < 0)
		return -1;
	ids_inherit(st);
	if (bndl_reader_foreach_opt(r, BNDL_NETWORK_JSONL, on_net, st, err) < 0)
		return -1;
	if (bndl_reader_foreach_opt(r, BNDL_WAITS_JSONL, on_wait, st, err) < 0)
		return -1;
	xp_waits_findings(&st->waits, bndl_json_int(st->manifest, "duration_ns", 0),
			  !run_failed(st));
	/* then the files.jsonl records of the paths that failed */
	for (size_t i = 0; i < st->nf; i++)
		if (st->f[i].path != NULL)
			want_paths(st, &st->f[i]);
	if (bndl_reader_foreach_opt(r, BNDL_FILES_JSONL, on_file, st, err) < 0)
		return -1;
	if (bndl_reader_foreach_opt(r, BNDL_OUTPUT_JSONL, xp_said_on_line, st->said, err) < 0)
		return -1;
	return bndl_reader_finish(r, err);
}

/* ---- ranking ---- */

static double base_score(const struct xp_finding *x)
{
	static const struct {
		const char *err;
		double score;
	} table[] = { { "EACCES", 50 },	 { "EPERM", 50 }, { "EROFS", 55 },  { "ENOSPC", 55 },
		      { "EDQUOT", 55 },	 { "EFBIG", 55 }, { "EIO", 55 },    { "ENOENT", 30 },
		      { "ENOTDIR", 30 }, { "ELOOP", 30 }, { "EISDIR", 25 }, { "EEXIST", 15 } };

	if (x->injected) /* the fault the run was made to meet: above what it led to */
		return 100;
	if (x->kind == XP_CONNECT || x->kind == XP_BIND || x->kind == XP_DNS)
		return 45;
	if (x->filter_denied)
		return 60; /* a policy said no: never a probe */
	if (x->kind == XP_OTHER)
		return 10;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(x->errname, table[i].err) == 0)
			return table[i].score;
	return 20;
}

/* xp_noise_ctx.found_later: the ok map, for "the same name was found later in this process". */
static bool found_later(const void *run, const struct xp_finding *f)
{
	return ok_elsewhere_after(&((const struct xp_state *)run)->ok, f->pid, f->path, f->seq);
}

/* "git" of "git clone -q src dst", "python3" of "/opt/x/bin/python3 -c …" (into buf). */
static const char *program_of(const struct xp_proc *p, char *buf, size_t cap)
{
	const char *label = p != NULL ? p->label : NULL, *base;
	size_t n;

	if (label == NULL)
		return NULL;
	n = strcspn(label, " ");
	base = memrchr(label, '/', n);
	base = base != NULL ? base + 1 : label;
	n -= (size_t)(base - label);
	snprintf(buf, cap, "%.*s", (int)n, base);
	return buf;
}

/* xp_noise_ctx.used_later: the ok map, for "the process went on to use that path". */
static bool used_later(const void *run, const struct xp_finding *f)
{
	return ok_same_after(&((const struct xp_state *)run)->ok, f->pid, f->path, f->seq);
}

/*
 * xp_noise_ctx.handed_over: the process of f exec'd after f's last
 * occurrence, or ended with the status of a child it started (runuser, su).
 */
static bool handed_over(const void *run, const struct xp_finding *f)
{
	const struct xp_proc *p = proc_of(run, f->pid);

	return p != NULL &&
	       ((p->exec_ns >= 0 && f->t_ns >= 0 && p->exec_ns > f->t_ns) || p->passed_on);
}

/* Probe noise: the rules of explain_noise.c, with what the whole run knows. */
static void classify(struct xp_state *st)
{
	char prog[256];
	struct xp_noise_ctx ctx = {
		.net = &st->net,
		.found_later = found_later,
		.used_later = used_later,
		.handed_over = handed_over,
		.run = st,
	};

	for (size_t i = 0; i < st->nf; i++) {
		if (st->f[i].kind == XP_WAIT)
			continue; /* never a probe */
		ctx.program = program_of(proc_of(st, st->f[i].pid), prog, sizeof(prog));
		xp_noise_classify(&st->f[i], &ctx);
	}
}

static int by_pid_seq(const void *a, const void *b)
{
	const struct xp_finding *x = *(struct xp_finding *const *)a,
				*y = *(struct xp_finding *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* pid and the processes it was started by, at most XP_CHAIN_MAX (a hostile cycle ends there). */
#define XP_CHAIN_MAX 64
static size_t chain_of(const struct xp_state *st, int32_t pid, int32_t chain[XP_CHAIN_MAX])
{
	size_t n = 0;

	for (const struct xp_proc *p = proc_of(st, pid); n < XP_CHAIN_MAX && pid != 0;
	     p = proc_of(st, pid)) {
		chain[n++] = pid;
		pid = p != NULL ? p->ppid : 0;
	}
	return n;
}

/*
 * The process nearest pid up its tree that said something a reader saw;
 * else the nearest that said something to /dev/null; else 0.
 */
static int32_t quoted_pid(const struct xp_state *st, int32_t pid)
{
	int32_t chain[XP_CHAIN_MAX];
	size_t n = chain_of(st, pid, chain);

	for (size_t i = 0; i < n; i++)
		if (xp_said_seen(st->said, chain[i]))
			return chain[i];
	for (size_t i = 0; i < n; i++)
		if (xp_said_line(st->said, chain[i]) != NULL)
			return chain[i];
	return 0;
}

/* Score: kind and errno, intent, how the process ended, nearness to its end, what it said. */
static void score(struct xp_state *st)
{
	static const double recency[] = { 20, 12, 6, 3 };
	struct xp_finding **order = repro_xcalloc(st->nf + 1, sizeof(*order));
	bool run_failed = false;
	size_t n = 0;

	for (size_t i = 0; i < st->nprocs; i++)
		run_failed |= st->procs[i].ppid == 0 && st->procs[i].failed;
	for (size_t i = 0; i < st->nf; i++) {
		struct xp_finding *x = &st->f[i];
		const struct xp_proc *p = proc_of(st, x->pid);

		x->score = x->kind == XP_WAIT ? xp_wait_score(x, p, run_failed) : base_score(x);
		if (x->op == XP_OP_CREATE || x->op == XP_OP_WRITE || x->op == XP_OP_DELETE ||
		    x->op == XP_OP_CHANGE)
			x->score += 10;
		if (x->kind == XP_EXEC)
			x->score += 10;
		if (p != NULL && p->failed)
			x->score += p->passed_on ? 10 : 25;
		else if (p != NULL && run_failed && p->has_exit)
			x->score -= 10; /* its process coped and exited 0 */
		if (!x->noise) {
			int32_t chain[XP_CHAIN_MAX];

			x->score += xp_said_bonus(st->said, x, chain, chain_of(st, x->pid, chain));
			order[n++] = x;
		}
	}
	qsort(order, n, sizeof(*order), by_pid_seq);
	/* rank from each process's last failure back: one pass over each group */
	for (size_t end = n; end > 0;) {
		size_t start = end;

		while (start > 0 && order[start - 1]->pid == order[end - 1]->pid)
			start--;
		for (size_t k = 0; k < sizeof(recency) / sizeof(recency[0]) && end - k > start; k++)
			order[end - 1 - k]->score += recency[k];
		end = start;
	}
	free(order);
}

/*
 * The process whose words may explain a failed run: of those that failed
 * and said something, not only passing on a child's status, one that ended
 * with the first process's status, else any; the last to end.  0: none.
 * O(processes).
 */
static const struct xp_proc *main_proc(const struct xp_state *st);

static int32_t speaking_failure(const struct xp_state *st)
{
	const struct xp_proc *best = NULL, *first = main_proc(st);

	for (size_t i = 0; i < st->nprocs; i++) {
		const struct xp_proc *p = &st->procs[i];
		bool same = first != NULL && p->exit_code == first->exit_code,
		     best_same = best != NULL && first != NULL &&
				 best->exit_code == first->exit_code;

		if (!p->failed || p->passed_on || xp_said_line(st->said, p->pid) == NULL)
			continue;
		if (best == NULL || (same && !best_same) ||
		    (same == best_same && p->end_ns > best->end_ns))
			best = p;
	}
	return best != NULL ? best->pid : 0;
}

/*
 * A program names itself first in its messages ("sshd: …", "/venv/bin/python:
 * No module named x"): its own executable is no evidence.  O(named).
 */
static void drop_own_exe(json_t *named, const struct xp_proc *p)
{
	for (size_t i = json_array_size(named); p != NULL && p->exe != NULL && i > 0; i--)
		if (strcmp(bndl_json_str(json_array_get(named, i - 1), "path"), p->exe) == 0)
			json_array_remove(named, i - 1);
}

/* Whether one of named ({"path","meta"} objects) was a regular file at the end. */
static bool names_a_file(json_t *named)
{
	size_t i;
	json_t *n;

	json_array_foreach (named, i, n)
		if (bndl_json_str(json_object_get(n, "meta"), "type") != NULL &&
		    strcmp(bndl_json_str(json_object_get(n, "meta"), "type"), "file") == 0)
			return true;
	return false;
}

/*
 * When the run failed and no call explains it, the program's own words
 * are the finding (docs/explain.md, "When nothing failed"): an XP_SAID
 * finding is added when no failure is left once probes are set aside, or
 * when the words name a regular file (by path or file name,
 * explain_words.c) and no failure is named by them; then it comes first.  O(findings + bytes
 * said).
 */
static void said_finding(struct xp_state *st)
{
	int32_t pid = run_failed(st) ? speaking_failure(st) : 0;
	const char *text;
	size_t len, real = 0, named_by_words = 0;
	double top = 0;
	json_t *named;
	struct xp_finding *x;

	if (pid == 0 || (text = xp_said_text(st->said, pid, &len)) == NULL)
		return;
	for (size_t i = 0; i < st->nf; i++) {
		int32_t chain[XP_CHAIN_MAX];
		struct xp_finding *f = &st->f[i];

		if (f->noise)
			continue;
		real++;
		top = f->score > top ? f->score : top;
		named_by_words += xp_said_bonus(st->said, f, chain, chain_of(st, f->pid, chain)) >
				  0;
	}
	named = xp_words_named(st->words, text, len);
	drop_own_exe(named, proc_of(st, pid));
	if (!(real == 0 || (names_a_file(named) && named_by_words == 0)) ||
	    (x = finding_add(st, "\x1fsaid")) == NULL) {
		json_decref(named);
		return;
	}
	x->kind = XP_SAID;
	x->op = XP_OP_OTHER;
	x->pid = pid;
	x->fd = -1;
	x->t_ns = proc_of(st, pid) != NULL ? proc_of(st, pid)->end_ns : 0;
	x->count = 1;
	x->named = named;
	if (json_array_size(named) > 0)
		x->path = repro_xstrdup(bndl_json_str(json_array_get(named, 0), "path"));
	x->score = top + 1;
}

static int by_rank(const void *a, const void *b)
{
	const struct xp_finding *x = *(struct xp_finding *const *)a,
				*y = *(struct xp_finding *const *)b;

	if (x->noise != y->noise)
		return x->noise ? 1 : -1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq; /* later first */
}

/* ---- output ---- */

static json_t *evidence_json(const struct xp_finding *x)
{
	json_t *ev = json_object(), *seqs = json_array();

	for (size_t i = 0; i < x->nseqs; i++)
		json_array_append_new(seqs, json_integer((json_int_t)x->seqs[i]));
	if (x->count > x->nseqs)
		json_array_append_new(seqs, json_integer((json_int_t)x->seq));
	json_object_set_new(ev, "events", seqs);
	if (x->path != NULL)
		json_object_set_new(ev, "files", json_pack("[s]", x->path));
	if (x->net != NULL)
		json_object_set_new(ev, "network", json_pack("[O]", x->net));
	if (x->wait != NULL)
		json_object_set_new(ev, "waits",
				    json_is_array(x->wait) ? json_incref(x->wait)
							   : json_pack("[O]", x->wait));
	return ev;
}

static json_t *finding_json(const struct xp_state *st, const struct xp_finding *x, size_t rank,
			    const struct xp_proc *p)
{
	json_t *o = json_object();
	int32_t said_pid = quoted_pid(st, x->pid);
	const struct xp_proc *said = proc_of(st, said_pid);

	json_object_set_new(o, "rank", json_integer((json_int_t)rank));
	json_object_set_new(o, "score", json_real(x->score));
	json_object_set_new(o, "kind",
			    json_string((const char *[]){ [XP_FILE] = "file",
							  [XP_EXEC] = "exec",
							  [XP_CONNECT] = "connect",
							  [XP_BIND] = "bind",
							  [XP_DNS] = "dns",
							  [XP_OTHER] = "other",
							  [XP_WAIT] = "wait",
							  [XP_SAID] = "said" }[x->kind]));
	json_object_set_new(o, "pid", json_integer(x->pid));
	json_object_set_new(o, "process", bndl_json_str_or_null(p != NULL ? p->label : NULL));
	json_object_set_new(o, "syscall", bndl_json_str_or_null(x->syscall));
	if (x->path != NULL) {
		json_object_set_new(o, "path", json_string(x->path));
		json_object_set_new(o, "op", json_string(xp_op_word(x->op)));
	}
	if (x->errname != NULL)
		json_object_set_new(o, x->net != NULL || x->wait != NULL ? "outcome" : "errno",
				    json_string(x->errname));
	json_object_set_new(o, "count", json_integer((json_int_t)x->count));
	json_object_set_new(o, "sentence", bndl_json_str_or_null(x->sentence));
	json_object_set(o, "reason", x->reason);
	json_object_set_new(o, "evidence", evidence_json(x));
	if (said_pid != 0)
		json_object_set_new(
			o, "said",
			json_pack("{s:i,s:o,s:s}", "pid", (int)said_pid, "process",
				  bndl_json_str_or_null(said != NULL ? said->label : NULL), "line",
				  xp_said_line(st->said, said_pid)));
	json_object_set_new(o, "noise", json_boolean(x->noise));
	if (x->noise) {
		json_object_set_new(o, "noise_why", json_string(x->noise_why));
		json_object_set_new(o, "noise_rule", json_string(x->noise_rule));
	}
	return o;
}

static const struct xp_proc *main_proc(const struct xp_state *st)
{
	for (size_t i = 0; i < st->nprocs; i++)
		if (st->procs[i].ppid == 0)
			return &st->procs[i];
	return st->nprocs > 0 ? &st->procs[0] : NULL;
}

static void put_run(const struct xp_state *st, const char *tail, FILE *out)
{
	const struct xp_proc *m = main_proc(st);
	json_t *dur = json_object_get(st->manifest, "duration_ns");

	repro_term_puts(out, m != NULL ? m->label : "the program");
	if (m == NULL || !m->has_exit)
		fputs(" did not finish while recorded", out);
	else if (m->exit_signal != NULL) {
		fputs(" was killed by ", out);
		repro_term_puts(out, m->exit_signal);
	} else
		fprintf(out, " exited with status %d", m->exit_code);
	if (json_is_integer(dur))
		fprintf(out, " after %.2f s", (double)json_integer_value(dur) / 1e9);
	fputs(tail, out);
}

/*
 * A run that worked: the first process exited 0, so what failed on the way
 * (a child's status included: a shell's `command -v`, a probe) was coped
 * with.  A recording that lost records is not taken to have worked.
 */
static bool run_worked(const struct xp_state *st)
{
	const struct xp_proc *m = main_proc(st);

	return m != NULL && m->has_exit && !m->failed &&
	       !json_is_true(json_object_get(st->manifest, "incomplete"));
}

/* Under finding x: the last line the process (or the one that started it) said, once per process. */
static void put_said(const struct xp_state *st, const struct xp_finding *x,
		     struct repro_map *quoted, FILE *out)
{
	int32_t pid = quoted_pid(st, x->pid);
	const struct xp_proc *p = proc_of(st, pid);
	size_t seen;

	if (pid == 0 || repro_map_get(quoted, (uint32_t)pid, &seen))
		return;
	repro_map_put(quoted, (uint32_t)pid, 1);
	fputs("   ", out);
	repro_term_puts(out, p != NULL ? p->label : "the program");
	fputs(" said: `", out);
	repro_term_puts(out, xp_said_line(st->said, pid));
	fputs("`\n", out);
}

static void put_evidence(const struct xp_finding *x, FILE *out)
{
	fputs("   evidence: ", out);
	if (x->seq != 0) {
		fputs(x->nseqs > 1 ? "events" : "event", out);
		for (size_t i = 0; i < x->nseqs; i++)
			fprintf(out, "%s%" PRIu64, i ? ", " : " ", x->seqs[i]);
		if (x->count > x->nseqs)
			fprintf(out, " … %" PRIu64, x->seq);
		fputs(" ", out);
	}
	if (x->kind == XP_SAID) {
		fputs(x->path != NULL ? "output.jsonl; files.jsonl\n" : "output.jsonl\n", out);
		return;
	}
	fputc('(', out);
	repro_term_puts(out, x->syscall);
	fputc(')', out);
	if (x->path != NULL && x->kind != XP_OTHER)
		fputs("; files.jsonl", out);
	if (x->net != NULL)
		fputs("; network.jsonl", out);
	if (x->wait != NULL)
		fputs("; waits.jsonl", out);
	fputc('\n', out);
}

/*
 * Calls whose result repro did not see cannot be findings: say how many
 * and why, so that a missing cause is not taken for an absent one.
 */
static void put_unseen(const struct xp_state *st, FILE *out)
{
	static const char *const why[] = {
		"through a magic link or /proc/self, which only the kernel walks as the program would",
		"just after a change of credentials, root or mounts",
		"seen at entry only (close)",
	};
	size_t total = st->unseen[0] + st->unseen[1] + st->unseen[2];
	bool first = true;

	if (total == 0)
		return;
	fprintf(out, "%zu call%s ran out of repro's sight, result unknown (", total,
		total == 1 ? "" : "s");
	for (size_t i = 0; i < 3; i++) {
		if (st->unseen[i] == 0)
			continue;
		fprintf(out, "%s%zu %s", first ? "" : "; ", st->unseen[i], why[i]);
		first = false;
	}
	fputs(").\n", out);
}

static void put_text(const struct xp_state *st, struct xp_finding **ranked, size_t shown,
		     size_t real, size_t noise, FILE *out)
{
	bool color = st->opts->color;

	cleanup_map struct repro_map *quoted = repro_map_new();

	rpl_put_incomplete(out, st->manifest);
	if (!st->opts->all && run_worked(st)) {
		put_run(st, "", out);
		if (real + noise == 0)
			fputs("; nothing failed.\n", out);
		else
			fprintf(out,
				"; nothing that matters failed (%zu failure%s, each coped with: "
				"repro explain --all lists them).\n",
				real + noise, real + noise == 1 ? "" : "s");
		return;
	}
	put_run(st, ".\n", out);
	fprintf(out, "%zu failure%s that matter%s", real, real == 1 ? "" : "s",
		real == 1 ? "s" : "");
	if (noise > 0)
		fprintf(out, "; %zu probe failure%s set aside%s", noise, noise == 1 ? "" : "s",
			st->opts->all ? " (marked probe)" : " (repro explain --all shows them)");
	if (st->dropped > 0)
		fprintf(out, "; %zu more not examined (limit)", st->dropped);
	fputs(".\n", out);
	put_unseen(st, out);
	for (size_t i = 0; i < shown; i++) {
		const struct xp_finding *x = ranked[i];

		fprintf(out, "\n%s%zu.%s ", color ? BOLD : "", i + 1, color ? RESET : "");
		if (x->noise) {
			fputs("(probe, ", out);
			repro_term_puts(out, x->noise_rule);
			fputs(": ", out);
			repro_term_puts(out, x->noise_why);
			fputs(") ", out);
		}
		repro_term_puts(out, x->sentence != NULL ? x->sentence : "?");
		fputs(".\n", out);
		put_said(st, x, quoted, out);
		put_evidence(x, out);
	}
	if (real > shown && !st->opts->all)
		fprintf(out, "\n... %zu more (repro explain --all)\n", real - shown);
}

/* The --json document (docs/explain.md "JSON"): a new object. */
static json_t *doc_json(const struct xp_state *st, struct xp_finding **ranked, size_t shown,
			size_t noise)
{
	json_t *doc = json_object();
	json_t *arr = json_array();

	json_object_set_new(doc, "run",
			    json_pack("{s:O?,s:O?,s:O?,s:b,s:O?}", "argv",
				      json_object_get(st->manifest, "argv"), "exit",
				      json_object_get(st->manifest, "exit"), "duration_ns",
				      json_object_get(st->manifest, "duration_ns"), "incomplete",
				      json_is_true(json_object_get(st->manifest, "incomplete")),
				      "dropped", json_object_get(st->manifest, "dropped")));
	for (size_t i = 0; i < shown; i++)
		json_array_append_new(
			arr, finding_json(st, ranked[i], i + 1, proc_of(st, ranked[i]->pid)));
	json_object_set_new(doc, "findings", arr);
	json_object_set_new(doc, "worked", json_boolean(run_worked(st)));
	json_object_set_new(doc, "total", json_integer((json_int_t)(st->nf - noise)));
	json_object_set_new(doc, "noise", json_integer((json_int_t)noise));
	json_object_set_new(doc, "not_examined", json_integer((json_int_t)st->dropped));
	json_object_set_new(doc, "unseen",
			    json_pack("{s:I,s:I,s:I}", "kernel_walk", (json_int_t)st->unseen[0],
				      "credentials_changed", (json_int_t)st->unseen[1], "other",
				      (json_int_t)st->unseen[2]));
	return doc;
}

static int put_json(const struct xp_state *st, struct xp_finding **ranked, size_t shown,
		    size_t noise, FILE *out, struct repro_err **err)
{
	cleanup_json json_t *doc = doc_json(st, ranked, shown, noise);

	if (bndl_json_write(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) <
		    0 ||
	    fputc('\n', out) == EOF)
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	return 0;
}

/* The ranked findings to out (text, or JSON with opts->json), or as the JSON document in *doc. */
static int report(struct xp_state *st, FILE *out, json_t **doc, struct repro_err **err)
{
	cleanup_free struct xp_finding **ranked = repro_xcalloc(st->nf + 1, sizeof(*ranked));
	size_t noise = 0, shown;

	for (size_t i = 0; i < st->nf; i++) {
		ranked[i] = &st->f[i];
		noise += st->f[i].noise;
	}
	qsort(ranked, st->nf, sizeof(*ranked), by_rank);
	shown = st->opts->all ? st->nf : st->nf - noise;
	if (!st->opts->all && shown > RPL_EXPLAIN_TOP)
		shown = RPL_EXPLAIN_TOP;
	for (size_t i = 0; i < shown; i++) {
		xp_facts_ready(&st->facts, ranked[i]);
		xp_reason_build(ranked[i], proc_of(st, ranked[i]->pid), &st->facts);
	}
	if (doc != NULL) {
		*doc = doc_json(st, ranked, shown, noise);
		return 0;
	}
	if (st->opts->json)
		return put_json(st, ranked, shown, noise, out, err);
	put_text(st, ranked, shown, st->nf - noise, noise, out);
	if (fflush(out) != 0 || ferror(out))
		return repro_err_set(err, errno ? errno : EIO, "cannot write output");
	return 0;
}

/* The findings of opts' bundle, to out or as the document in *doc (report()). */
static int explain(const struct rpl_explain_opts *opts, FILE *out, json_t **doc,
		   struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = NULL;
	struct xp_state st = {
		.opts = opts,
		.by_pid = repro_map_new(),
		.index = repro_strmap_new(),
		.wanted = repro_strmap_new(),
		.facts = { .files = json_object(),
			   .dns_names = json_object(),
			   .url_hosts = json_object() },
		.net = { .ok_conn = json_object(), .answered = json_object() },
		.said = xp_said_new(),
		.words = xp_words_new(),
		.waits = { .interrupted = json_array(),
			   .long_waits = json_array(),
			   .add = add_for_waits },
	};
	int rc = -1;

	st.waits.add_ctx = &st;
	rpl_sockidx_init(&st.socks);
	st.facts.proc_of = proc_for_waits;
	st.facts.proc_ctx = &st;
	r = bndl_reader_open_limited(opts->bundle_path, opts->limits, err);
	if (r != NULL) {
		st.manifest = bndl_reader_manifest(r);
		st.r = r;
		st.facts.net_mode = bndl_json_str(json_object_get(st.manifest, "options"), "net");
		st.facts.injections = json_object_get(st.manifest, "injections");
		if (load(&st, r, err) == 0) {
			classify(&st);
			score(&st);
			said_finding(&st);
			rc = report(&st, out, doc, err);
		}
	}
	state_release(&st);
	return rc;
}

int rpl_explain_run(const struct rpl_explain_opts *opts, FILE *out, struct repro_err **err)
{
	return explain(opts, out, NULL, err);
}

int rpl_explain_findings(const struct rpl_explain_opts *opts, json_t **doc, struct repro_err **err)
{
	*doc = NULL;
	return explain(opts, NULL, doc, err);
}
