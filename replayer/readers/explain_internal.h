#ifndef REPRO_REPLAYER_EXPLAIN_INTERNAL_H
#define REPRO_REPLAYER_EXPLAIN_INTERNAL_H

/*
 * Shared between the parts of `repro explain`: explain.c (reading, ranking,
 * output), explain_noise.c (which failures are probes), explain_reason.c
 * (the sentence and the facts behind it).
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum xp_kind {
	XP_FILE, /* a call on a path */
	XP_EXEC, /* execve/execveat */
	XP_CONNECT, /* network.jsonl attempt: connect, sendto … */
	XP_BIND, /* network.jsonl attempt: bind, listen */
	XP_DNS, /* network.jsonl lookup */
	XP_OTHER, /* a failed call without a path (kill, wait4 …) */
	XP_WAIT, /* waits.jsonl: a long wait, or what the processes waited in when interrupted */
	/*
	 * output.jsonl: a process that failed and said why, when no call
	 * explains its exit (explain_said.c)
	 */
	XP_SAID,
};

/* What the call meant to do to its path, for the sentence and the permission check. */
enum xp_op {
	XP_OP_FIND, /* stat, access, readlink: look it up */
	XP_OP_READ,
	XP_OP_WRITE,
	XP_OP_CREATE, /* create or make a directory, link, rename into */
	XP_OP_DELETE,
	XP_OP_RUN,
	XP_OP_ENTER, /* chdir */
	XP_OP_CHANGE, /* chmod, chown, utimensat, truncate */
	XP_OP_OTHER,
};

#define XP_MAX_SEQS 8
/* Longest path or name looked at (PATH_MAX); longer ones only come from hostile bundles. */
#define XP_PATH_MAX 4096

/* One distinct failure: (process, call kind, path or endpoint, errno), repeats merged. */
struct xp_finding {
	enum xp_kind kind;
	enum xp_op op;
	int32_t pid;
	int64_t t_ns; /* the last occurrence */
	uint64_t seq; /* the last occurrence's event */
	uint64_t seqs[XP_MAX_SEQS]; /* the first occurrences' events */
	size_t nseqs, count;
	char *syscall; /* owned */
	char *path; /* owned: absolute path, or NULL */
	/* owned: the path as the program passed it (events.jsonl path_as_written), or NULL */
	char *path_as_written;
	/* a call on a descriptor without a path (utimensat(fd, NULL, …)): its fd, else -1 */
	int32_t fd;
	char *errname; /* owned: errno name, or the outcome for network findings */
	json_t *net; /* owned: the network.jsonl record, network findings only */
	bool noise;
	const char *noise_why; /* static text */
	const char *noise_rule; /* static: the id of the rule that set it aside */
	/* events.jsonl "denied_by_filter": a seccomp filter other than repro's failed it */
	bool filter_denied;
	/* events.jsonl "injected": a fault rule imposed it; inject_rule its "rule" (0: not said) */
	bool injected;
	int inject_rule;
	/* an execve ENOENT of one name in several directories: a PATH search that found nothing */
	bool path_search;
	/*
	 * owned, or NULL: a failed write's filesystem at its first failure
	 * (events.jsonl "fs", with the file's "size" added)
	 */
	json_t *fs;
	json_t *named; /* owned: XP_SAID: the files its words name ({"path","meta"}), or NULL */
	json_t *wait; /* owned: XP_WAIT: the waits.jsonl record (an array of them when interrupted) */
	bool wait_interrupted; /* XP_WAIT: the run was cut short while these waits went on */
	bool wait_dominant; /* XP_WAIT: the wait took half the run or more */
	double score;
	char *sentence; /* owned, filled when ranked */
	json_t *reason; /* owned: the facts behind the sentence */
};

/* A process of processes.jsonl, as explain needs it. */
struct xp_proc {
	int32_t pid, ppid;
	char *label; /* owned: "python3 webui.py" from its last exec, its parent's + " (fork)", or "pid N" */
	char *exe; /* owned: the path of its last exec (processes.jsonl), or NULL */
	int64_t exec_ns; /* when its last exec happened, -1: none in the recording */
	int64_t end_ns; /* -1 when unknown */
	bool failed; /* exited non-zero or killed */
	/* failed with the status of a child that failed (su, runuser, sh -c pass it on) */
	bool passed_on;
	int64_t start_ns; /* -1 when unknown */
	/*
	 * The ids it changed to (set*id events that worked), or inherited from
	 * its parent when that changed them before this process started: what a
	 * permission check is made against instead of host.json's ids.
	 */
	bool has_uid, has_gid, groups_dropped;
	int64_t euid, egid;
	int64_t uid_t_ns, gid_t_ns;
	bool has_exit;
	int exit_code, exit_signal_num;
	char *exit_signal; /* owned: "SIGSEGV" or NULL */
};

/* What the sentences draw on: the bundle's facts. */
struct xp_facts {
	json_t *host; /* host.json, or NULL */
	/*
	 * path -> files.jsonl record (failed paths), owned: kept as its compact
	 * text (xp_facts_keep_file: a parsed record with its ancestors costs
	 * about 20 times its text), parsed back for the findings a reason is
	 * built for (xp_facts_ready)
	 */
	json_t *files;
	const char *net_mode; /* manifest options.net ("none", "host") or NULL */
	/* the first filter a traced process installed (seccomp, prctl PR_SET_SECCOMP), 0: none */
	uint64_t filter_seq;
	int32_t filter_pid;
	/* "PID" -> the last name that process looked up (network.jsonl dns), owned; or NULL */
	json_t *dns_names;
	/*
	 * "PID" -> the host of the last URL that process looked up as a local
	 * path and missed (pip's stat of "https://pypi.org/simple/x/"), owned;
	 * or NULL
	 */
	json_t *url_hosts;
	json_t *injections; /* the manifest's "injections" (fault rules), borrowed, or NULL */
	/* the process of pid, or NULL (explain.c); proc_ctx is borrowed */
	const struct xp_proc *(*proc_of)(const void *ctx, int32_t pid);
	const void *proc_ctx;
};

/* ---- where the time went (explain_waits.c) ---- */

/* Waits shorter than this (ns) are not findings: LNCH_WAIT_LONG_NS, what the recorder keeps. */
#define XP_WAIT_LONG_NS 1000000000
/* Most waits kept of each kind (the rest are counted out by the cap; bounded memory). */
#define XP_WAITS_MAX 10000

/* The waits.jsonl records explain keeps, and how it makes findings of them. */
struct xp_waits {
	json_t *interrupted; /* owned: waits the stop of the run cut short */
	json_t *long_waits; /* owned: other waits of XP_WAIT_LONG_NS or more (not sleeps) */
	/* a new or merged finding for key (NULL past the limit): explain.c's finding_add */
	struct xp_finding *(*add)(void *ctx, const char *key);
	void *add_ctx;
};

/* xp_wait_is_interruption - w (a waits.jsonl record) went on when the run was stopped. */
bool xp_wait_is_interruption(json_t *w);

/* xp_waits_add - keep w (borrowed; a reference is taken) when it may make a finding. */
void xp_waits_add(struct xp_waits *ws, json_t *w);

/*
 * xp_waits_findings - add the findings: one for the interruption (every
 * process's wait at that moment, most telling first), and, unless run_ok
 * (the run succeeded: its waits are no failures; `repro show` has them),
 * one per long wait; run_ns is the run's duration (ns), to tell a wait that
 * took most of it.
 */
void xp_waits_findings(struct xp_waits *ws, int64_t run_ns, bool run_ok);

/* A failed process that ended this soon (ns) after a long wait ended failed of it. */
#define XP_WAIT_THEN_END_NS 1000000000

/*
 * xp_wait_score - the score of an XP_WAIT finding of process p (NULL when
 * unknown) in a run that failed or not (docs/explain.md, "Ranking").
 */
double xp_wait_score(const struct xp_finding *x, const struct xp_proc *p, bool run_failed);

/*
 * xp_wait_explain - the sentence of an XP_WAIT finding x of process p into
 * f, its facts into r; proc_of(ctx, pid) names the other processes of an
 * interruption.
 */
void xp_wait_explain(FILE *f, json_t *r, const struct xp_finding *x, const struct xp_proc *p,
		     const struct xp_proc *(*proc_of)(const void *ctx, int32_t pid),
		     const void *ctx);

/* What went right on the network, to tell a failed attempt that was retried elsewhere. */
struct xp_netidx {
	json_t *ok_conn; /* "PID|PORT" and "PID|NAME" -> t_ns of the last connect that worked */
	json_t *answered; /* names some lookup answered -> true */
};

/* xp_netidx_add - learn from one network.jsonl record (borrowed). */
void xp_netidx_add(struct xp_netidx *idx, json_t *n);

/*
 * xp_url_host - when s (NUL-terminated) looks like a URL (a scheme
 * [a-z][a-z0-9+.-]*, ":", "//"), its host without user or port copied into
 * buf (cap bytes) and buf returned; NULL when s is no URL, names no host
 * ("file:///x") or the host does not fit.  O(strlen(s)).
 */
const char *xp_url_host(const char *s, char *buf, size_t cap);

/* What the noise rules may ask about the rest of the run (all borrowed). */
struct xp_noise_ctx {
	const struct xp_netidx *net; /* or NULL */
	/* the finding's process's program name ("git", "python3"), or NULL */
	const char *program;
	/*
	 * Whether the process of f found a path of the same file name as
	 * f->path, but another path, after f: a search that went on.  NULL:
	 * not known.
	 */
	bool (*found_later)(const void *run, const struct xp_finding *f);
	/*
	 * Whether the process of f used f->path itself with success after f
	 * (the last success of its file name in that process was that path).
	 * NULL: not known.
	 */
	bool (*used_later)(const void *run, const struct xp_finding *f);
	/*
	 * Whether the process of f handed over after f: it exec'd another
	 * program, or it passed on the status of a child it started (runuser,
	 * su).  NULL: not known.
	 */
	bool (*handed_over)(const void *run, const struct xp_finding *f);
	const void *run;
};

/* One rule of the table of probe noise (explain_noise.c, docs/explain.md). */
struct xp_noise_rule {
	const char *id; /* "loader_hwcaps": shown by --all and in --json noise_rule */
	const char *why; /* the words that say why it is set aside */
	unsigned applies; /* 1: file, exec and other findings; 2: network findings */
	bool (*match)(const struct xp_finding *f, const struct xp_noise_ctx *ctx);
};

/*
 * xp_noise_rules - the table, in the order rules are tried; *n its length.
 * Static storage, never freed.
 */
const struct xp_noise_rule *xp_noise_rules(size_t *n);

/*
 * xp_noise_classify - set f->noise, f->noise_why and f->noise_rule from the
 * first rule of the table that matches f; ctx (may be NULL) answers the
 * rules that need the whole run.  A finding a seccomp filter denied is
 * never noise.  Cost: O(rules × path length).
 */
void xp_noise_classify(struct xp_finding *f, const struct xp_noise_ctx *ctx);

/*
 * xp_reason_build - fill f->sentence (a new string) and f->reason (a new
 * object) for finding f of process p (NULL when unknown) from the facts.
 */
void xp_reason_build(struct xp_finding *f, const struct xp_proc *p, const struct xp_facts *facts);

/*
 * xp_facts_keep_file - keep files.jsonl record rec (borrowed) of path in
 * facts->files, as text.  O(record).
 */
void xp_facts_keep_file(struct xp_facts *facts, const char *path, json_t *rec);

/*
 * xp_facts_ready - parse back, in place, the records of facts->files that
 * xp_reason_build may read for f (its path's and its directory's), before
 * it is called.  O(those records).
 */
void xp_facts_ready(struct xp_facts *facts, const struct xp_finding *f);

/*
 * xp_op_of - what the call of events.jsonl record ev (borrowed) meant to
 * do with its path: its "op" (common/sysent.h), or for a bundle without it
 * the table's op of its "syscall" with an open decided by its "flags";
 * access(2) by its "mode" ("X_OK": run).
 */
enum xp_op xp_op_of(json_t *ev);

/* xp_is_net_call - a socket call, whose failures network.jsonl follows to their end. */
bool xp_is_net_call(const char *sc);

/*
 * xp_parent_len - the length of the directory part of path ("/var/cache"
 * of "/var/cache/apt", 1 for "/x"); 0 when path is NULL or has no slash.
 * O(strlen(path)).
 */
size_t xp_parent_len(const char *path);

/* xp_op_word - "create", "read" … as used in sentences and JSON. */
const char *xp_op_word(enum xp_op op);

#endif
