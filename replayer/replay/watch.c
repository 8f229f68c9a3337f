/*
 * Divergences of a replay as they happen (replayer/replay/replay.h): a
 * policy that imposes nothing, asks for the result of every call with a
 * path or an endpoint, and compares it with what the recording did.
 */
#include "replayer/replay/replay.h"
#include "bundles/members.h"
#include "common/names.h"
#include "common/sysent.h"
#include "bundles/json_util.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/term.h"
#include "common/xalloc.h"
#include "replayer/readers/explain.h"
#include "replayer/readers/normalize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls kept per process for --strict's context. */
#define RING 5

struct rpl_watch {
	/*
	 * the recording, by key "SYSCALL\x1fTARGET" (target normalised): an
	 * object {"ok": n, ERRNO: n …}; owned
	 */
	json_t *recorded;
	/* owned: the syscalls the recording has, true for those it has a call that worked of */
	json_t *syscalls;
	struct rpl_norm norm_rec; /* the recording's paths (strings owned by rec_cwd …) */
	struct rpl_norm norm_here;
	char *rec_cwd, *rec_home; /* owned */
	bool strict;
	void (*say)(void *ctx, const char *line);
	void *say_ctx;
	json_t *pending; /* owned: "TID" -> {"key","pid","exe"} of the call in progress */
	json_t *counts; /* owned: key -> how often this run made it (for the recorded occurrence) */
	json_t *rings; /* owned: "TID" -> [the thread's last RING calls: {"key","text"}] */
	json_t *firsts; /* owned: program (exe) -> true once its first new call was said */
	json_t *reported; /* owned: "KEY\x1fERRNO" of each failure said to diverge */
	size_t ndiv; /* divergences seen */
	size_t nsaid; /* of them, said */
	/* --strict: where the run was stopped */
	bool stopped;
	char *stop_key; /* owned: the anchor's key in the recording, or NULL */
	int64_t stop_occurrence; /* the how-many-th call of stop_key */
	json_t *stop_ring; /* owned: the thread's last calls here, the divergent one last */
	char *stop_what; /* owned */
};

static char *target_of_event(json_t *ev)
{
	json_t *addr = json_object_get(ev, "addr");

	if (bndl_json_str(ev, "path") != NULL)
		return repro_xstrdup(bndl_json_str(ev, "path"));
	if (bndl_json_str(addr, "ip") != NULL && bndl_json_int(addr, "port", 0) > 0)
		return repro_xasprintf("%s:%" PRId64, bndl_json_str(addr, "ip"),
				       bndl_json_int(addr, "port", 0));
	if (bndl_json_str(addr, "path") != NULL)
		return repro_xstrdup(bndl_json_str(addr, "path"));
	return NULL;
}

/*
 * The target of a call as its event names it: the path, or for connect
 * and bind (whose event has the address they were given) the endpoint.
 * A send on a connected socket has a peer but no address argument, and
 * a DNS query is the lookup's business (network.jsonl): neither here.
 */
static char *target_of_call(const struct lnch_call *c)
{
	const struct repro_sysent *s = repro_sysent_find(c->syscall);
	bool is_endpoint_call = s != NULL &&
				(s->net == REPRO_NET_CONNECT || s->net == REPRO_NET_BIND);

	if (c->is_dns_query)
		return NULL;
	if (c->path != NULL)
		return repro_xstrdup(c->path);
	if (is_endpoint_call && c->ip != NULL && c->port > 0)
		return repro_xasprintf("%s:%d", c->ip, c->port);
	return NULL;
}

/* "SYSCALL\x1fNORMALISED-TARGET", or NULL when the call has no target. */
static char *key_of(const struct rpl_norm *n, const char *syscall, const char *target)
{
	cleanup_free char *norm = NULL;

	if (syscall == NULL || target == NULL)
		return NULL;
	norm = target[0] == '/' ? rpl_norm_path(n, target) : repro_xstrdup(target);
	return repro_xasprintf("%s\x1f%s", syscall, norm);
}

/* Timing alone decides these (repro diff leaves them out too). */
static bool is_timing_errno(const char *e)
{
	return e == NULL || strcmp(e, "EAGAIN") == 0 || strcmp(e, "EINTR") == 0 ||
	       strncmp(e, "ERESTART", 8) == 0;
}

static void count_in(json_t *o, const char *name)
{
	json_object_set_new(o, name, json_integer(bndl_json_int(o, name, 0) + 1));
}

static int index_event(void *ctx, json_t *ev, size_t lineno, struct repro_err **err)
{
	struct rpl_watch *w = ctx;
	const char *sc = bndl_json_str(ev, "syscall");
	cleanup_free char *target = NULL, *key = NULL;
	json_t *slot;
	bool ok;

	(void)lineno;
	(void)err;
	if (sc == NULL)
		return 0;
	ok = bndl_json_int(ev, "ret", 0) >= 0 || bndl_json_str(ev, "errno") == NULL;
	/* true once one worked: a syscall recorded only when it fails (a send) never was */
	if (ok || json_object_get(w->syscalls, sc) == NULL)
		json_object_set_new(w->syscalls, sc, json_boolean(ok));
	target = target_of_event(ev);
	key = key_of(&w->norm_rec, sc, target);
	if (key == NULL)
		return 0;
	slot = json_object_get(w->recorded, key);
	if (slot == NULL) {
		slot = json_object();
		json_object_set_new(w->recorded, key, slot);
	}
	if (ok)
		count_in(slot, "ok");
	else
		count_in(slot, bndl_json_str(ev, "errno"));
	return 0;
}

/*
 * A recorded directory (*dir, owned, may be NULL) as --map names it here:
 * the recording's paths are mapped before the cwd and HOME are taken out
 * (rpl_norm_path()), so those must be mapped too.
 */
static void map_here(struct rpl_watch *w, char **dir)
{
	char *mapped = *dir != NULL ? rpl_norm_map(&w->norm_rec, *dir) : NULL;

	if (mapped != NULL) {
		free(*dir);
		*dir = mapped;
	}
}

static int read_recording(struct rpl_watch *w, const char *bundle, struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = bndl_reader_open(bundle, err);
	json_t *host = NULL;

	if (r == NULL)
		return -1;
	w->rec_cwd = repro_xstrdup(bndl_json_str(bndl_reader_manifest(r), "cwd")
					   ? bndl_json_str(bndl_reader_manifest(r), "cwd")
					   : "/");
	if (bndl_reader_load_opt(r, BNDL_HOST_JSON, &host, err) < 0)
		return -1;
	if (bndl_json_str(json_object_get(host, "environment"), "HOME") != NULL)
		w->rec_home =
			repro_xstrdup(bndl_json_str(json_object_get(host, "environment"), "HOME"));
	json_decref(host);
	map_here(w, &w->rec_cwd);
	map_here(w, &w->rec_home);
	w->norm_rec.cwd = w->rec_cwd;
	w->norm_rec.home = w->rec_home;
	return bndl_reader_foreach(r, BNDL_EVENTS_JSONL, index_event, w, err);
}

struct rpl_watch *rpl_watch_new(const char *recorded, const struct rpl_replay_opts *o, bool strict,
				void (*say)(void *ctx, const char *line), void *say_ctx,
				struct repro_err **err)
{
	struct rpl_watch *w = repro_xcalloc(1, sizeof(*w));

	w->recorded = json_object();
	w->syscalls = json_object();
	w->pending = json_object();
	w->counts = json_object();
	w->rings = json_object();
	w->firsts = json_object();
	w->reported = json_object();
	w->strict = strict;
	w->say = say;
	w->say_ctx = say_ctx;
	for (size_t k = 0; k < o->nmaps && k < RPL_NORM_MAX_MAPS; k++) {
		w->norm_rec.map_from[k] = o->map_from[k];
		w->norm_rec.map_to[k] = o->map_to[k];
		w->norm_rec.nmaps++;
	}
	w->norm_here.cwd = o->cwd_here;
	w->norm_here.home = o->home_here;
	if (read_recording(w, recorded, err) < 0) {
		rpl_watch_free(w);
		return NULL;
	}
	if (w->norm_here.cwd == NULL)
		w->norm_here.cwd = w->rec_cwd;
	return w;
}

void rpl_watch_free(struct rpl_watch *w)
{
	if (w == NULL)
		return;
	json_decref(w->recorded);
	json_decref(w->syscalls);
	json_decref(w->pending);
	json_decref(w->counts);
	json_decref(w->rings);
	json_decref(w->firsts);
	json_decref(w->reported);
	json_decref(w->stop_ring);
	free(w->stop_key);
	free(w->stop_what);
	free(w->rec_cwd);
	free(w->rec_home);
	free(w);
}

static const char *base_name(const char *path)
{
	const char *s = path != NULL ? strrchr(path, '/') : NULL;

	return s != NULL ? s + 1 : path != NULL ? path : "?";
}

/*
 * Whether a call on target is the program's own business: an endpoint,
 * or a path under its working directory or home ("<cwd>", "~" once
 * normalised) that is not the system's.  Paths elsewhere (a directory
 * the environment names, OLDPWD) say more of the machine than the run.
 */
static bool is_programs(const struct rpl_watch *w, const char *key, const char *target)
{
	const char *norm = strchr(key, '\x1f');

	(void)w;
	if (target[0] != '/')
		return true;
	if (norm == NULL || rpl_explain_system_path(target) != NULL)
		return false;
	norm++;
	return strncmp(norm, "<cwd>", 5) == 0 || strncmp(norm, "~/", 2) == 0 ||
	       strcmp(norm, "~") == 0;
}

static int decide(void *ctx, const struct lnch_stop *st, const struct lnch_call *call,
		  struct lnch_verdict *v)
{
	struct rpl_watch *w = ctx;
	cleanup_free char *target = NULL, *key = NULL;
	char tid[24];

	if (w->stopped || call->syscall == NULL ||
	    json_object_get(w->syscalls, call->syscall) == NULL)
		return 0;
	target = target_of_call(call);
	key = key_of(&w->norm_here, call->syscall, target);
	if (key == NULL)
		return 0;
	snprintf(tid, sizeof(tid), "%d", (int)st->tid);
	json_object_set_new(w->pending, tid,
			    json_pack("{s:s,s:s,s:s++,s:i,s:s,s:b}", "key", key, "syscall",
				      call->syscall, "words", call->syscall, " ", target, "pid",
				      (int)st->pid, "exe", base_name(call->exe), "program's",
				      is_programs(w, key, target)));
	v->observe_exit = true;
	return 0;
}

/* "openat /srv/app/conf.json = -1 EACCES" into the thread's ring; returns the ring. */
static json_t *remember(struct rpl_watch *w, const char *tid, const char *key, const char *words,
			const char *result)
{
	json_t *ring = json_object_get(w->rings, tid);

	if (ring == NULL) {
		ring = json_array();
		json_object_set_new(w->rings, tid, ring);
	}
	if (json_array_size(ring) == RING)
		json_array_remove(ring, 0);
	json_array_append_new(ring,
			      json_pack("{s:s,s:s++}", "key", key, "text", words, " = ", result));
	return ring;
}

/* One divergence: said (at most RPL_REPLAY_LIVE_MAX), and with strict the run ends. */
static bool diverged(struct rpl_watch *w, const char *what, const char *key, int64_t occurrence,
		     json_t *ring)
{
	w->ndiv++;
	if (w->say != NULL && w->nsaid < RPL_REPLAY_LIVE_MAX) {
		w->nsaid++;
		w->say(w->say_ctx, what);
	}
	if (!w->strict)
		return false;
	w->stopped = true;
	w->stop_key = key != NULL ? repro_xstrdup(key) : NULL;
	w->stop_occurrence = occurrence;
	w->stop_ring = json_deep_copy(ring);
	w->stop_what = repro_xstrdup(what);
	return true;
}

static bool on_exit_call(void *ctx, const struct lnch_stop *st)
{
	struct rpl_watch *w = ctx;
	char tid[24], pid[24], result[64], ebuf[24];
	json_t *p, *rec, *ring;
	const char *key, *e = NULL;
	int64_t n;
	bool failed = st->ret < 0 && st->ret >= -4095, stop = false;

	snprintf(tid, sizeof(tid), "%d", (int)st->tid);
	p = json_incref(json_object_get(w->pending, tid));
	json_object_del(w->pending, tid);
	if (p == NULL || w->stopped) {
		json_decref(p);
		return false;
	}
	key = bndl_json_str(p, "key");
	snprintf(pid, sizeof(pid), "%" PRId64, bndl_json_int(p, "pid", 0));
	if (failed)
		e = repro_errno_name((int)-st->ret, ebuf, sizeof(ebuf));
	snprintf(result, sizeof(result), "%s%s%s", failed ? "-1 " : "", failed ? (e ? e : "?") : "",
		 st->injected ? " (imposed)" : "");
	if (!failed)
		snprintf(result, sizeof(result), "%" PRId64, st->ret);
	n = bndl_json_int(w->counts, key, 0) + 1;
	json_object_set_new(w->counts, key, json_integer(n));
	ring = remember(w, tid, key, bndl_json_str(p, "words"), result);
	rec = json_object_get(w->recorded, key);
	if (st->injected || (failed && is_timing_errno(e))) {
		/* imposed, or timing alone: not a divergence */
	} else if (failed && rec != NULL && bndl_json_int(rec, "ok", 0) > 0 &&
		   bndl_json_int(rec, e, 0) == 0) {
		cleanup_free char *what = repro_xasprintf(
			"diverged: %s: worked in the recording, %s here (pid %s, %s)",
			bndl_json_str(p, "words"), e, pid, bndl_json_str(p, "exe"));
		cleanup_free char *said = repro_xasprintf("%s\x1f%s", key, e);

		/* once per call and errno: threads that all meet it are one divergence */
		if (json_object_get(w->reported, said) == NULL) {
			json_object_set_new(w->reported, said, json_true());
			stop = diverged(w, what, key, n, ring);
		}
	} else if (!failed && rec == NULL && json_is_true(json_object_get(p, "program's")) &&
		   json_is_true(json_object_get(w->syscalls, bndl_json_str(p, "syscall"))) &&
		   json_object_get(w->firsts, bndl_json_str(p, "exe")) == NULL) {
		cleanup_free char *what = repro_xasprintf(
			"diverged: %s: a call the recording never made (pid %s, %s; the first "
			"of this program)",
			bndl_json_str(p, "words"), pid, bndl_json_str(p, "exe"));

		json_object_set_new(w->firsts, bndl_json_str(p, "exe"), json_true());
		/* the anchor in the recording: this process's call before it */
		stop = diverged(w, what, NULL, 0, ring);
	}
	json_decref(p);
	return stop;
}

static const struct lnch_policy_ops ops = { .decide = decide, .on_exit = on_exit_call };

const struct lnch_policy_ops *rpl_watch_ops(void)
{
	return &ops;
}

size_t rpl_watch_divergences(const struct rpl_watch *w)
{
	return w->ndiv;
}

size_t rpl_watch_said(const struct rpl_watch *w)
{
	return w->nsaid;
}

bool rpl_watch_stopped(const struct rpl_watch *w)
{
	return w->stopped;
}

/* The recording's events up to the anchor: the ring of the process that made it. */
struct context_scan {
	struct rpl_watch *w;
	const char *anchor; /* key */
	int64_t want, seen;
	json_t *rings; /* "TID" -> its last RING calls */
	json_t *found; /* the ring at the anchor, or NULL */
	int64_t found_pid;
};

static int scan_event(void *ctx, json_t *ev, size_t lineno, struct repro_err **err)
{
	struct context_scan *cs = ctx;
	const char *sc = bndl_json_str(ev, "syscall");
	cleanup_free char *target = NULL, *key = NULL, *words = NULL;
	char tid[24];
	json_t *ring;

	(void)lineno;
	(void)err;
	if (cs->found != NULL || sc == NULL)
		return 0;
	target = target_of_event(ev);
	key = key_of(&cs->w->norm_rec, sc, target);
	if (key == NULL)
		return 0;
	snprintf(tid, sizeof(tid), "%" PRId64,
		 bndl_json_int(ev, "tid", bndl_json_int(ev, "pid", 0)));
	ring = json_object_get(cs->rings, tid);
	if (ring == NULL) {
		ring = json_array();
		json_object_set_new(cs->rings, tid, ring);
	}
	if (json_array_size(ring) == RING)
		json_array_remove(ring, 0);
	words = repro_xasprintf("%s %s", sc, target);
	if (bndl_json_str(ev, "errno") != NULL)
		json_array_append_new(
			ring, json_sprintf("%s = -1 %s", words, bndl_json_str(ev, "errno")));
	else
		json_array_append_new(
			ring, json_sprintf("%s = %" PRId64, words, bndl_json_int(ev, "ret", 0)));
	if (strcmp(key, cs->anchor) == 0 && ++cs->seen == cs->want) {
		cs->found = json_incref(ring);
		cs->found_pid = bndl_json_int(ev, "pid", 0);
	}
	return 0;
}

/* The recording's last calls up to cs's anchor, from recorded's events.jsonl. */
static int print_recorded(struct context_scan *cs, const char *recorded, FILE *out,
			  struct repro_err **err)
{
	cleanup_reader struct bndl_reader *r = bndl_reader_open(recorded, err);
	size_t i;
	json_t *s;

	if (r == NULL || bndl_reader_foreach(r, BNDL_EVENTS_JSONL, scan_event, cs, err) < 0)
		return -1;
	if (cs->found == NULL) {
		fprintf(out, "  in the recording: no such call\n");
		return 0;
	}
	fprintf(out, "  in the recording, pid %" PRId64 ", up to the same call:\n", cs->found_pid);
	json_array_foreach (cs->found, i, s) {
		fputs("    ", out);
		repro_term_puts(out, json_string_value(s));
		fputc('\n', out);
	}
	return 0;
}

int rpl_watch_context(struct rpl_watch *w, const char *recorded, FILE *out, struct repro_err **err)
{
	struct context_scan cs = { .w = w, .rings = json_object() };
	cleanup_free char *anchor = NULL;
	size_t i, nhere = json_array_size(w->stop_ring);
	json_t *s;
	int rc;

	if (!w->stopped) {
		json_decref(cs.rings);
		return 0;
	}
	fprintf(out, "  here, its last calls:\n");
	json_array_foreach (w->stop_ring, i, s) {
		fputs("    ", out);
		repro_term_puts(out, bndl_json_str(s, "text"));
		fputs(i + 1 == nhere ? "   <- diverged\n" : "\n", out);
	}
	/* the same call in the recording, or else the one before it here */
	if (w->stop_key != NULL) {
		anchor = repro_xstrdup(w->stop_key);
		cs.want = w->stop_occurrence;
	} else if (nhere >= 2) {
		anchor = repro_xstrdup(
			bndl_json_str(json_array_get(w->stop_ring, nhere - 2), "key"));
		cs.want = bndl_json_int(w->counts, anchor, 1);
	}
	if (anchor == NULL) {
		fprintf(out, "  in the recording: nothing before it to line up with\n");
		json_decref(cs.rings);
		return 0;
	}
	cs.anchor = anchor;
	rc = print_recorded(&cs, recorded, out, err);
	json_decref(cs.found);
	json_decref(cs.rings);
	return rc;
}

const char *rpl_watch_stop_what(const struct rpl_watch *w)
{
	return w->stop_what;
}

bool rpl_watch_reported(const struct rpl_watch *w, const char *syscall, const char *path,
			const char *errname)
{
	cleanup_free char *key = key_of(&w->norm_here, syscall, path);
	cleanup_free char *said = NULL;

	if (key == NULL || errname == NULL)
		return false;
	said = repro_xasprintf("%s\x1f%s", key, errname);
	return json_object_get(w->reported, said) != NULL;
}
