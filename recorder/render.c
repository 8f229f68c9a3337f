#include "recorder/render.h"
#include "common/names.h"
#include "recorder/flags.h"
#include "recorder/jsonstr.h"
#include "recorder/redact.h"
#include "recorder/sockaddr.h"
#include "launcher/abi.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TXT 1024

struct rec_renderer {
	struct rec_systab *tab; /* owned */
	const struct rec_redact *redact; /* borrowed, or own_redact */
	struct rec_redact *own_redact; /* owned: the default policy */
	struct rec_redact_notes notes; /* names of redacted exec environment variables */
};

struct rec_renderer *rec_renderer_new(const struct rec_redact *redact, json_t *redacted)
{
	struct rec_renderer *r = repro_xcalloc(1, sizeof(*r));

	r->tab = rec_systab_new();
	if (redact == NULL)
		r->own_redact = rec_redact_new(NULL, NULL, NULL); /* no regex: cannot fail */
	r->redact = redact != NULL ? redact : r->own_redact;
	rec_redact_notes_init(&r->notes, redacted);
	return r;
}

void rec_renderer_free(struct rec_renderer *r)
{
	if (r == NULL)
		return;
	rec_systab_free(r->tab);
	rec_redact_free(r->own_redact);
	rec_redact_notes_release(&r->notes);
	free(r);
}

/*
 * The NUL-separated "NAME=value" strings of DATA[0..LEN) (an exec's envp)
 * as a new JSON array, each through rec_redact_env_entry() (names noted in
 * NOTES); their number in *COUNT.  O(LEN).
 */
static json_t *env_list_json(const struct rec_redact *redact, struct rec_redact_notes *notes,
			     const char *data, size_t len, size_t *count)
{
	json_t *arr = json_array();
	size_t off = 0;

	while (off < len) {
		size_t n = strnlen(data + off, len - off);
		cleanup_free char *red = rec_redact_env_entry(redact, data + off, n, notes);

		json_array_append_new(arr, rec_json_str(red, strlen(red)));
		off += n + 1;
	}
	*count = json_array_size(arr);
	return arr;
}

static json_t *env_cb(void *ctx, const char *data, size_t len)
{
	struct rec_renderer *r = ctx;
	size_t count;

	return env_list_json(r->redact, &r->notes, data, len, &count);
}

/*
 * The NUL-separated arguments of DATA[0..LEN) (a final NUL starts no other
 * one) as a new NULL-terminated array of new strings (release it with
 * rec_redact_argv_free()); their number in *COUNT.  O(LEN).
 */
static char **argv_split(const char *data, size_t len, size_t *count)
{
	char **v = NULL;
	size_t n = 0, off = 0;

	while (off < len) {
		size_t k = strnlen(data + off, len - off);

		v = repro_xgrow(v, n, sizeof(*v));
		v[n++] = repro_xstrndup(data + off, k);
		off += k + 1;
	}
	v = repro_xgrow(v, n, sizeof(*v));
	v[n] = NULL;
	*count = n;
	return v;
}

static json_t *argv_cb(void *ctx, const char *data, size_t len)
{
	struct rec_renderer *r = ctx;
	size_t n;
	char **argv = argv_split(data, len, &n);
	json_t *arr = rec_redact_argv_json(r->redact, (const char *const *)argv, n, "argv", NULL);

	rec_redact_argv_free(argv);
	return arr;
}

/*
 * What a process said, redacted line by line as arguments are (a line is
 * cut at '\n' or NUL, so that "TOKEN=x" hides the rest of its line only),
 * as a JSON string.  O(LEN) besides rec_redact_arg().
 */
static json_t *output_cb(void *ctx, const char *data, size_t len)
{
	struct rec_renderer *r = ctx;
	cleanup_free char *text = repro_xmalloc(len + 1);
	cleanup_free char *out = NULL;
	size_t used = 0, cap = len + 64;

	memcpy(text, data, len);
	text[len] = '\0';
	out = repro_xmalloc(cap);
	for (size_t off = 0; off < len;) {
		size_t n = strcspn(text + off, "\n");
		char sep = text[off + n];
		cleanup_free char *red = NULL;
		size_t rn;

		text[off + n] = '\0';
		red = rec_redact_arg(r->redact, text + off, NULL);
		rn = strlen(red);
		if (used + rn + 1 > cap) {
			cap = (used + rn + 1) * 2;
			out = repro_xrealloc(out, cap);
		}
		memcpy(out + used, red, rn);
		used += rn;
		off += n;
		if (off < len) {
			out[used++] = sep; /* '\n', or the NUL strcspn stopped at */
			off++;
		}
	}
	return rec_json_str(out, used);
}

static int render_cb(void *ctx, const struct bndl_event *ev, json_t **json, char **line,
		     struct repro_err **err)
{
	return rec_render_event(ctx, ev, json, line, err);
}

/* A string of the spool that is no argument (an exec's path) as a redacted JSON string. */
static json_t *str_cb(void *ctx, const char *data, size_t len)
{
	struct rec_renderer *r = ctx;
	size_t n;
	cleanup_free char *red = rec_redact_text(r->redact, data, len, &n);

	return rec_json_str(red, n);
}

static void json_cb(void *ctx, json_t *v)
{
	struct rec_renderer *r = ctx;

	(void)rec_redact_json(r->redact, v);
}

void rec_renderer_ops(struct rec_renderer *r, struct bndl_render_ops *ops)
{
	ops->render_event = render_cb;
	ops->argv_json = argv_cb;
	ops->env_json = env_cb;
	ops->output_json = output_cb;
	ops->str_json = str_cb;
	ops->redact_json = json_cb;
	ops->ctx = r;
}

/* One argument being rendered: its value, blobs and output sinks. */
struct argctx {
	const struct rec_redact *redact;
	struct rec_redact_notes *notes;
	const struct bndl_event *ev;
	const struct repro_sysent *sys;
	int i;
	uint64_t v;
	json_t *obj;
	FILE *txt;
	const char *key;
};

static const struct bndl_blob *blob(const struct argctx *a, uint16_t kind)
{
	return bndl_event_blob(a->ev, kind, (uint16_t)a->i);
}

static void set(struct argctx *a, json_t *val)
{
	if (a->key != NULL && val != NULL)
		json_object_set_new(a->obj, a->key, val);
	else
		json_decref(val);
}

/* A symbolic word: the same text in JSON and trace.txt. */
static void word(struct argctx *a, const char *text)
{
	set(a, json_string(text));
	fputs(text, a->txt);
}

static void render_ptr(struct argctx *a)
{
	if (a->v == 0)
		fputs("NULL", a->txt);
	else
		fprintf(a->txt, "%#llx", (unsigned long long)a->v);
}

/*
 * A path or string argument, redacted as any string of the bundle
 * (rec_redact_text()): the same text in JSON and trace.txt.
 */
static void render_path(struct argctx *a)
{
	const struct bndl_blob *raw = blob(a, BNDL_BLOB_STR), *abs = blob(a, BNDL_BLOB_PATH);
	cleanup_free char *red = NULL;
	cleanup_free char *red_abs = NULL;
	size_t n, n_abs;
	char q[TXT * 5];

	if (raw == NULL) {
		render_ptr(a);
		return;
	}
	red = rec_redact_text(a->redact, raw->data, raw->len, &n);
	fputs(rec_quote(red, n, q, sizeof(q)), a->txt);
	if (raw->kind & BNDL_BLOB_TRUNCATED)
		json_object_set_new(a->obj, "truncated", json_true());
	if (a->sys->args[a->i].kind == RA_STR || abs == NULL) {
		set(a, rec_json_str(red, n));
		return;
	}
	red_abs = rec_redact_text(a->redact, abs->data, abs->len, &n_abs);
	set(a, rec_json_str(red_abs, n_abs));
	/* the argument as the program wrote it, where the canonical path differs */
	if (a->key != NULL &&
	    (raw->len != abs->len || memcmp(raw->data, abs->data, raw->len) != 0)) {
		char key[64];

		snprintf(key, sizeof(key), "%s_as_written", a->key);
		json_object_set_new(a->obj, key, rec_json_str(red, n));
	}
}

/*
 * An fd a failed write wrote to (RA_FD_TARGET): its number ("fd"), and what
 * it named at the failure, as strace -y shows it ("3</mnt/w.bin>"): "path"
 * for a file (redacted as any path), "fd_target" for a pipe or socket, and
 * "fs" with "size" (struct bndl_fs_info; docs/bundle-format.md).
 */
static void render_fd_target(struct argctx *a)
{
	const struct bndl_blob *raw = blob(a, BNDL_BLOB_STR), *abs = blob(a, BNDL_BLOB_PATH);
	const struct bndl_blob *fs = blob(a, BNDL_BLOB_STRUCT);
	cleanup_free char *red = NULL;
	struct bndl_fs_info info;
	size_t n;
	char q[TXT * 5];

	set(a, json_integer((int)a->v));
	fprintf(a->txt, "%d", (int)a->v);
	if (raw == NULL)
		return;
	red = rec_redact_text(a->redact, raw->data, raw->len, &n);
	fprintf(a->txt, "<%s>", rec_quote(red, n, q, sizeof(q)));
	json_object_set_new(a->obj, abs != NULL ? "path" : "fd_target", rec_json_str(red, n));
	if (fs == NULL || fs->len < sizeof(info))
		return;
	memcpy(&info, fs->data, sizeof(info));
	json_object_set_new(a->obj, "fs",
			    json_pack("{s:I,s:I,s:I,s:I}", "free_bytes",
				      (json_int_t)info.free_bytes, "total_bytes",
				      (json_int_t)info.total_bytes, "free_inodes",
				      (json_int_t)info.free_inodes, "total_inodes",
				      (json_int_t)info.total_inodes));
	json_object_set_new(a->obj, "size", json_integer((json_int_t)info.size));
}

static uint64_t prev_oflags(const struct argctx *a)
{
	for (int j = a->i - 1; j >= 0; j--)
		if (a->sys->args[j].kind == RA_OFLAGS)
			return a->ev->args[j];
	return 0;
}

/*
 * openat2(2)'s struct open_how: flags, mode (when it creates) and resolve,
 * as JSON keys; a failure that a RESOLVE_* flag causes (EXDEV, ELOOP,
 * EAGAIN) names the flags in "resolve_cause".
 */
static void render_open_how(struct argctx *a)
{
	const struct bndl_blob *b = blob(a, BNDL_BLOB_STRUCT);
	bool creates;
	struct open_how how;
	uint64_t cause = 0;
	char f[256], m[32], res[160];

	if (b == NULL || b->len < sizeof(how)) {
		render_ptr(a);
		return;
	}
	memcpy(&how, b->data, sizeof(how));
	rec_oflags_format(how.flags, f, sizeof(f));
	rec_mode_format(how.mode, m, sizeof(m));
	rec_resolve_format(how.resolve, res, sizeof(res));
	creates = (how.flags & (O_CREAT | (O_TMPFILE & ~O_DIRECTORY))) != 0;
	json_object_set_new(a->obj, "flags", json_string(f));
	if (creates)
		json_object_set_new(a->obj, "mode", json_string(m));
	if (how.resolve != 0)
		json_object_set_new(a->obj, "resolve", json_string(res));
	if (a->ev->ret < 0 && a->ev->ret >= -4095 && !(a->ev->flags & BNDL_EV_RESULT_UNSEEN))
		cause = rec_resolve_cause(how.resolve, (int)-a->ev->ret);
	if (cause != 0) {
		char c[160];

		json_object_set_new(a->obj, "resolve_cause",
				    json_string(rec_resolve_format(cause, c, sizeof(c))));
	}
	/* strace's form: mode only when it matters, resolve only when set */
	fprintf(a->txt, "{flags=%s", f);
	if (creates || how.mode != 0)
		fprintf(a->txt, ", mode=%s", m);
	if (how.resolve != 0)
		fprintf(a->txt, ", resolve=%s", res);
	fputc('}', a->txt);
}

static void render_sockaddr(struct argctx *a)
{
	const struct bndl_blob *b = blob(a, BNDL_BLOB_SOCKADDR);
	cleanup_free char *red = NULL;
	const char *text;
	json_t *json;
	char t[TXT];

	if (b == NULL) {
		render_ptr(a);
		return;
	}
	json = rec_sockaddr_json(b->data, b->len);
	(void)rec_redact_json(a->redact, json); /* a unix socket's path */
	set(a, json);
	text = rec_sockaddr_text(b->data, b->len, t, sizeof(t));
	red = rec_redact_text(a->redact, text, strlen(text), NULL);
	if (a->sys->args[a->i].kind == RA_MSGHDR)
		fprintf(a->txt, "{msg_name=%s, ...}", red);
	else
		fputs(red, a->txt);
}

/*
 * getsockopt's value read at exit (BNDL_BLOB_OUT) or setsockopt's read at
 * entry (BNDL_BLOB_STRUCT): [N] as strace prints an int option, an integer
 * in JSON; SO_ERROR's value as an errno name ("0" when none is pending).
 */
static void render_sockoptval(struct argctx *a)
{
	bool is_in = a->sys->args[a->i].kind == RA_SOCKOPTIN;
	const struct bndl_blob *b = blob(a, is_in ? BNDL_BLOB_STRUCT : BNDL_BLOB_OUT);
	const char *name;
	char e[32];
	int32_t val;

	if (b == NULL || b->len < sizeof(val)) {
		render_ptr(a);
		return;
	}
	memcpy(&val, b->data, sizeof(val));
	if (a->i < 2 || a->ev->args[a->i - 2] != SOL_SOCKET || a->ev->args[a->i - 1] != SO_ERROR) {
		set(a, json_integer(val));
		fprintf(a->txt, "[%d]", val);
		return;
	}
	if (val == 0) {
		word(a, "0");
		return;
	}
	name = repro_errno_name(val, e, sizeof(e));
	set(a, json_string(name));
	fprintf(a->txt, "[%s]", name);
}

/* socklen_t * of accept, getsockname, getpeername: [N] as the kernel left it. */
static void render_socklen_out(struct argctx *a)
{
	const struct bndl_blob *b = blob(a, BNDL_BLOB_OUT);
	uint32_t len;

	if (b == NULL || b->len < sizeof(len)) {
		render_ptr(a);
		return;
	}
	memcpy(&len, b->data, sizeof(len));
	fprintf(a->txt, "[%u]", len);
}

/* socketpair's int[2]: [3, 4], and "fds":[3,4]. */
static void render_fdpair(struct argctx *a)
{
	const struct bndl_blob *b = blob(a, BNDL_BLOB_OUT);
	int32_t fds[2];

	if (b == NULL || b->len < sizeof(fds)) {
		render_ptr(a);
		return;
	}
	memcpy(fds, b->data, sizeof(fds));
	set(a, json_pack("[ii]", fds[0], fds[1]));
	fprintf(a->txt, "[%d, %d]", fds[0], fds[1]);
}

/* Unnamed flags or a mask: "0x80" in JSON, 0x80 in trace.txt (0 as 0). */
static void render_hex(struct argctx *a)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)a->v);
	word(a, buf);
}

static void render_argv(struct argctx *a)
{
	const struct bndl_blob *b = blob(a, BNDL_BLOB_ARGV);
	json_t *arr = json_array();
	char q[TXT * 5];
	char **argv, **red;
	size_t n;

	if (b == NULL) {
		json_decref(arr);
		render_ptr(a);
		return;
	}
	argv = argv_split(b->data, b->len, &n);
	red = rec_redact_argv(a->redact, (const char *const *)argv, n);
	fputc('[', a->txt);
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(arr, rec_json_str(red[i], strlen(red[i])));
		fprintf(a->txt, "%s%s", i ? ", " : "",
			rec_quote(red[i], strlen(red[i]), q, sizeof(q)));
	}
	rec_redact_argv_free(red);
	rec_redact_argv_free(argv);
	if (b->kind & BNDL_BLOB_TRUNCATED) {
		fputs(", ...", a->txt);
		json_object_set_new(a->obj, "truncated", json_true());
	}
	fputc(']', a->txt);
	set(a, arr);
}

/*
 * An exec's envp: "env" in JSON (rec_redact_env_entry() for each string),
 * and in trace.txt the address followed by the count in a comment
 * ("23 vars"), as strace prints it without -v.
 */
static void render_envp(struct argctx *a)
{
	const struct bndl_blob *b = blob(a, BNDL_BLOB_ARGV);
	size_t count = 0;
	json_t *arr;

	render_ptr(a);
	if (b == NULL)
		return;
	arr = env_list_json(a->redact, a->notes, b->data, b->len, &count);
	fprintf(a->txt, " /* %zu var%s */", count, count == 1 ? "" : "s");
	if (b->kind & BNDL_BLOB_TRUNCATED)
		json_object_set_new(a->obj, "truncated", json_true());
	set(a, arr);
}

static void render_clone3(struct argctx *a)
{
	const struct bndl_blob *b = blob(a, BNDL_BLOB_STRUCT);
	struct clone_args ca;
	char f[512];

	if (b == NULL || b->len < sizeof(ca)) {
		render_ptr(a);
		return;
	}
	memcpy(&ca, b->data, sizeof(ca));
	rec_cloneflags_format(ca.flags | (ca.exit_signal & 0xff), f, sizeof(f));
	set(a, json_string(f));
	fprintf(a->txt, "{flags=%s, ...}", f);
}

static void render_int(struct argctx *a, long long v)
{
	set(a, json_integer(v));
	fprintf(a->txt, "%lld", v);
}

/* Symbolic kinds: a formatter from flags.c applied to the value. */
static bool render_symbolic(struct argctx *a)
{
	char buf[TXT], nbuf[64];
	uint64_t v = a->v;

	switch ((int)a->sys->args[a->i].kind) {
	case RA_OFLAGS: word(a, rec_oflags_format(v, buf, sizeof(buf))); return true;
	case RA_MODE: word(a, rec_mode_format(v, buf, sizeof(buf))); return true;
	case RA_ATFLAGS: word(a, rec_atflags_format(v, buf, sizeof(buf))); return true;
	case RA_AMODE: word(a, rec_amode_format(v, buf, sizeof(buf))); return true;
	case RA_RENAMEFLAGS: word(a, rec_renameflags_format(v, buf, sizeof(buf))); return true;
	case RA_UNLINKFLAGS: word(a, rec_unlinkflags_format(v, buf, sizeof(buf))); return true;
	case RA_DOMAIN: word(a, rec_domain_format(v, buf, sizeof(buf))); return true;
	case RA_SOCKTYPE: word(a, rec_socktype_format(v, buf, sizeof(buf))); return true;
	case RA_MSGFLAGS: word(a, rec_msgflags_format(v, buf, sizeof(buf))); return true;
	case RA_SHUTHOW: word(a, rec_shuthow_format(v, buf, sizeof(buf))); return true;
	case RA_CLONEFLAGS: word(a, rec_cloneflags_format(v, buf, sizeof(buf))); return true;
	case RA_WAITOPTS: word(a, rec_waitopts_format(v, buf, sizeof(buf))); return true;
	case RA_IDTYPE: word(a, rec_idtype_format(v, buf, sizeof(buf))); return true;
	case RA_SIG: word(a, repro_signal_name((int)v, buf, sizeof(buf))); return true;
	case RA_SOCKLEVEL: word(a, rec_sockopt_format(v, 0, buf, nbuf, sizeof(nbuf))); return true;
	case RA_SOCKOPT:
		rec_sockopt_format(a->ev->args[a->i - 1], v, buf, nbuf, sizeof(nbuf));
		word(a, nbuf);
		return true;
	case RA_CMODE:
		if (prev_oflags(a) & (O_CREAT | (O_TMPFILE & ~O_DIRECTORY)))
			word(a, rec_mode_format(v, buf, sizeof(buf)));
		return true;
	default: return false;
	}
}

static void render_arg(struct argctx *a)
{
	enum repro_arg_kind k = a->sys->args[a->i].kind;

	if (render_symbolic(a))
		return;
	switch ((int)k) {
	case RA_INT:
	case RA_PROTO:
	case RA_FD_TARGET: render_fd_target(a); break;
	case RA_FD:
	case RA_CLOSEFD:
	case RA_PID:
	case RA_ID: render_int(a, (int)a->v); break;
	case RA_SIZE:
	case RA_DEV:
	case RA_SOCKLEN: render_int(a, (long long)a->v); break;
	case RA_DIRFD:
		if ((int)a->v == AT_FDCWD)
			word(a, "AT_FDCWD");
		else
			render_int(a, (int)a->v);
		break;
	case RA_PATH:
	case RA_PATH_AT:
	case RA_STR: render_path(a); break;
	case RA_OPENHOW: render_open_how(a); break;
	case RA_SOCKADDR:
	case RA_SOCKADDR_OUT:
	case RA_MSGHDR: render_sockaddr(a); break;
	case RA_SOCKLEN_OUT: render_socklen_out(a); break;
	case RA_FDPAIR: render_fdpair(a); break;
	case RA_HEX: render_hex(a); break;
	case RA_SOCKOPTIN:
	case RA_SOCKOPTVAL: render_sockoptval(a); break;
	case RA_ARGV: render_argv(a); break;
	case RA_ENVP: render_envp(a); break;
	case RA_CLONE3: render_clone3(a); break;
	case RA_STATXMASK: fprintf(a->txt, "%#llx", (unsigned long long)a->v); break;
	default: render_ptr(a); break;
	}
}

/* The "unseen_reason" of events.jsonl (docs/bundle-format.md), or NULL. */
static const char *unseen_reason(uint32_t flags)
{
	if (flags & BNDL_EV_UNSEEN_KERNEL_WALK)
		return "kernel_walk";
	if (flags & BNDL_EV_UNSEEN_CREDENTIALS)
		return "credentials_changed";
	if (flags & BNDL_EV_UNSEEN_ENTRY_ONLY)
		return "entry_only";
	return NULL;
}

static void render_result(const struct bndl_event *ev, const struct repro_sysent *sys, json_t *obj,
			  FILE *txt)
{
	char e[32];

	if ((ev->flags & (BNDL_EV_UNFINISHED | BNDL_EV_NO_RETURN | BNDL_EV_RESULT_UNSEEN |
			  BNDL_EV_FILTER_SIGSYS)) != 0) {
		json_object_set_new(obj, "ret", json_null());
		if (ev->flags & BNDL_EV_FILTER_SIGSYS)
			json_object_set_new(obj, "filter_action", json_string("sigsys"));
		if (ev->flags & BNDL_EV_UNFINISHED)
			json_object_set_new(obj, "unfinished", json_true());
		if (ev->flags & BNDL_EV_RESULT_UNSEEN) {
			json_object_set_new(obj, "result_unseen", json_true());
			if (unseen_reason(ev->flags) != NULL)
				json_object_set_new(obj, "unseen_reason",
						    json_string(unseen_reason(ev->flags)));
		}
		fputs(" = ?", txt);
		return;
	}
	if (ev->ret < 0 && ev->ret >= -4095) {
		const char *name = repro_errno_name((int)-ev->ret, e, sizeof(e));

		json_object_set_new(obj, "ret", json_integer(-1));
		json_object_set_new(obj, "errno", json_string(name));
		if (-ev->ret < 512)
			fprintf(txt, " = -1 %s (%s)", name, strerror((int)-ev->ret));
		else
			fprintf(txt, " = ? %s", name);
	} else {
		json_object_set_new(obj, "ret", json_integer(ev->ret));
		fprintf(txt, " = %lld", (long long)ev->ret);
	}
	(void)sys;
}

static json_t *event_header(const struct bndl_event *ev, const char *name)
{
	json_t *o = json_object();

	json_object_set_new(o, "seq", json_integer((json_int_t)ev->seq));
	json_object_set_new(o, "t_ns", json_integer((json_int_t)ev->t_ns));
	json_object_set_new(o, "dur_ns", json_integer((json_int_t)ev->dur_ns));
	json_object_set_new(o, "pid", json_integer(ev->pid));
	json_object_set_new(o, "tid", json_integer(ev->tid));
	json_object_set_new(o, "syscall", json_string(name));
	if (ev->flags & BNDL_EV_COMPAT)
		json_object_set_new(o, "arch", json_string(lnch_arch_name(ev->arch)));
	if (ev->flags & BNDL_EV_INJECTED)
		json_object_set_new(o, "injected", json_true());
	if (ev->flags & BNDL_EV_INJECT_FAILED)
		json_object_set_new(o, "inject_failed", json_true());
	if ((ev->flags & (BNDL_EV_INJECTED | BNDL_EV_INJECT_FAILED)) && ev->status > 0)
		json_object_set_new(o, "rule", json_integer(ev->status));
	if (ev->flags & BNDL_EV_FILTER_DENIED)
		json_object_set_new(o, "denied_by_filter", json_true());
	return o;
}

uint64_t rec_event_oflags(const struct repro_sysent *sys, const struct bndl_event *ev)
{
	if (repro_sysent_fixed_oflags(sys) != 0)
		return repro_sysent_fixed_oflags(sys);
	for (int j = 0; j < repro_sysent_nargs(sys); j++) {
		if (sys->args[j].kind == RA_OFLAGS)
			return ev->args[j];
		if (sys->args[j].kind == RA_OPENHOW) {
			const struct bndl_blob *b =
				bndl_event_blob(ev, BNDL_BLOB_STRUCT, (uint16_t)j);
			struct open_how how = { 0 };

			if (b != NULL && b->len >= sizeof(how))
				memcpy(&how, b->data, sizeof(how));
			return how.flags;
		}
	}
	return 0;
}

/* "op": what the call did to its path (common/sysent.h), for the readers. */
static void render_op(const struct repro_sysent *sys, const struct bndl_event *ev, json_t *obj)
{
	int pi = repro_sysent_arg_of(sys, RA_PATH_AT);
	const char *op;

	if (sys->op == REPRO_OP_NONE)
		return;
	if (pi < 0)
		pi = repro_sysent_arg_of(sys, RA_PATH);
	op = repro_sys_op_name(repro_sysent_op(sys, pi, rec_event_oflags(sys, ev)));
	if (op != NULL)
		json_object_set_new(obj, "op", json_string(op));
}

int rec_render_event(struct rec_renderer *r, const struct bndl_event *ev, json_t **json,
		     char **line, struct repro_err **err)
{
	const struct repro_sysent *sys = rec_systab_lookup(r->tab, ev->arch, ev->nr);
	const char *name = rec_systab_name(r->tab, ev->arch, ev->nr);
	char fallback[32];
	char *text = NULL;
	size_t text_len = 0;
	FILE *txt;
	json_t *obj;

	if (ev->type != BNDL_REC_SYSCALL)
		return repro_err_set(err, EPROTO, "event %llu is not a syscall",
				     (unsigned long long)ev->seq);
	if (name == NULL) {
		snprintf(fallback, sizeof(fallback), "syscall_%d", ev->nr);
		name = fallback;
	}
	obj = event_header(ev, name);
	txt = open_memstream(&text, &text_len);
	if (txt == NULL)
		abort();
	fprintf(txt, "%d  %s(", ev->tid, name);
	if (sys == NULL) /* a call outside the table (a fault rule trapped it): its raw arguments */
		fprintf(txt, "%lld, %#llx, %llu", (long long)(int32_t)ev->args[0],
			(unsigned long long)ev->args[1], (unsigned long long)ev->args[2]);
	for (int i = 0; i < (sys ? repro_sysent_nargs(sys) : 0); i++) {
		struct argctx a = {
			.redact = r->redact,
			.notes = &r->notes,
			.ev = ev,
			.sys = sys,
			.i = i,
			.v = ev->args[i],
			.obj = obj,
			.txt = txt,
			.key = sys->args[i].key,
		};
		long before = ftell(txt);

		if (i > 0)
			fputs(", ", txt);
		render_arg(&a);
		if (ftell(txt) == before + (i > 0 ? 2 : 0) && i > 0)
			fseek(txt, before, SEEK_SET); /* CMODE without O_CREAT: nothing shown */
	}
	fputc(')', txt);
	if (sys != NULL)
		render_op(sys, ev, obj);
	render_result(ev, sys, obj, txt);
	if (ev->flags & BNDL_EV_INJECTED)
		fputs(" (INJECTED)", txt); /* as strace -e inject marks it */
	fclose(txt);
	*json = obj;
	*line = text;
	return 0;
}
