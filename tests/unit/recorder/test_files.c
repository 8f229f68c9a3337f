/*
 * Unit tests of recorder/files.h: a spool written by hand for paths in a
 * temporary tree, files.jsonl read back with jansson, with io_uring and with
 * the statx(2) fallback.
 */
#include "recorder/files.h"
#include "common/content_hash.h"
#include "bundles/spool.h"
#include "common/cleanup.h"
#include "common/xalloc.h"
#include "launcher/abi.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <liburing.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include <cmocka.h>

#define CONTENT "hello repro\n"
#define MANY 10000

/* A temporary tree, a spool directory next to it, and the spool being written. */
struct fixture {
	char root[64];
	char spool_dir[64];
	struct bndl_spool *sp;
	uint64_t seq;
};

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static char *at(const struct fixture *fx, const char *rel)
{
	return repro_xasprintf("%s/%s", fx->root, rel);
}

static int setup(void **state)
{
	struct fixture *fx = repro_xcalloc(1, sizeof(*fx));
	cleanup_err struct repro_err *err = NULL;

	snprintf(fx->root, sizeof(fx->root), "/tmp/repro-files-XXXXXX");
	snprintf(fx->spool_dir, sizeof(fx->spool_dir), "/tmp/repro-fspool-XXXXXX");
	if (mkdtemp(fx->root) == NULL || mkdtemp(fx->spool_dir) == NULL)
		return -1;
	fx->sp = bndl_spool_open(fx->spool_dir, &err);
	if (fx->sp == NULL)
		return -1;
	*state = fx;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_DP)
		chmod(path, 0700);
	return remove(path) < 0 ? -1 : 0;
}

static int chmod_dirs(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_D)
		chmod(path, 0700);
	return 0;
}

static void rm_tree(const char *dir)
{
	nftw(dir, chmod_dirs, 16, FTW_PHYS);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	bndl_spool_close(fx->sp, NULL);
	rm_tree(fx->root);
	rm_tree(fx->spool_dir);
	free(fx);
	return 0;
}

/* Append one syscall record: name, result (0 or -errno), path blobs at argis, args. */
static void add_call(struct fixture *fx, const char *name, int64_t ret, const uint64_t args[6],
		     unsigned npaths, const unsigned *argis, char *const *paths)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_event ev = {
		.type = BNDL_REC_SYSCALL,
		.seq = ++fx->seq,
		.t_ns = fx->seq * 1000,
		.pid = 42,
		.tid = 42,
		.arch = lnch_arch_audit_token(),
		.ret = ret,
	};

	ev.nr = seccomp_syscall_resolve_name(name);
	assert_true(ev.nr >= 0);
	for (int i = 0; args != NULL && i < 6; i++)
		ev.args[i] = args[i];
	for (unsigned i = 0; i < npaths; i++) {
		ev.blobs[ev.nblobs++] = (struct bndl_blob){ .kind = BNDL_BLOB_PATH,
							    .argi = (uint16_t)argis[i],
							    .len = (uint32_t)strlen(paths[i]),
							    .data = paths[i] };
	}
	assert_int_equal(bndl_spool_append(fx->sp, &ev, &err), 0);
}

static void add_open(struct fixture *fx, char *path, uint64_t flags, int64_t ret)
{
	uint64_t args[6] = { (uint64_t)AT_FDCWD, 0, flags, 0644 };

	add_call(fx, "openat", ret, args, 1, (unsigned[]){ 1 }, &path);
}

static void add_path_call(struct fixture *fx, const char *name, char *path, unsigned argi,
			  int64_t ret)
{
	add_call(fx, name, ret, NULL, 1, &argi, &path);
}

/* Read out_path: one JSON object per line, into an array (new reference). */
static json_t *load_lines(const char *out_path)
{
	cleanup_fclose FILE *f = fopen(out_path, "re");
	cleanup_free char *line = NULL;
	size_t cap = 0;
	json_t *all = json_array();

	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		json_error_t jerr;
		json_t *o = json_loads(line, 0, &jerr);

		if (o == NULL)
			fail_msg("bad line '%s': %s", line, jerr.text);
		json_array_append_new(all, o);
	}
	return all;
}

static json_t *find_path(json_t *all, const char *path)
{
	size_t i;
	json_t *o;

	json_array_foreach (all, i, o)
		if (strcmp(json_string_value(json_object_get(o, "path")), path) == 0)
			return o;
	fail_msg("no line for '%s'", path);
	return NULL;
}

static void assert_str_key(json_t *o, const char *key, const char *want)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail_msg("key '%s' missing or not a string", key);
	assert_string_equal(json_string_value(v), want);
}

static void assert_int_key(json_t *o, const char *key, json_int_t want)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("key '%s' missing or not an integer", key);
	assert_int_equal(json_integer_value(v), want);
}

/* ops as one comma-separated string, for a readable comparison. */
static void assert_ops(json_t *o, const char *want)
{
	char buf[256] = "";
	size_t i;
	json_t *op;

	json_array_foreach (json_object_get(o, "ops"), i, op) {
		if (i > 0)
			strcat(buf, ",");
		strcat(buf, json_string_value(op));
	}
	assert_string_equal(buf, want);
}

static void assert_owner_mode(json_t *meta, const char *type, const char *mode)
{
	assert_true(json_is_object(meta));
	assert_str_key(meta, "type", type);
	assert_str_key(meta, "mode", mode);
	assert_int_key(meta, "uid", getuid());
	assert_int_key(meta, "gid", getgid());
}

static bool uring_works(void)
{
	struct io_uring ring;

	if (io_uring_queue_init(4, &ring, 0) < 0)
		return false;
	io_uring_queue_exit(&ring);
	return true;
}

/* Run rec_files_write_stats() into SPOOL/name; returns the parsed lines. */
static json_t *run(struct fixture *fx, bool no_uring, const char *name, struct rec_files_stats *st)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *out = repro_xasprintf("%s/%s", fx->spool_dir, name);
	struct rec_files_opts o;

	rec_files_opts_init(&o);
	o.no_uring = no_uring;
	o.uring_min_paths = 1;
	assert_int_equal(bndl_spool_flush(fx->sp, &err), 0);
	(void)unlink(out); /* rec_files_write() makes its output anew, never over a file */
	if (rec_files_write_stats(fx->spool_dir, &o, out, st, &err) < 0)
		fail_msg("rec_files_write: %s", err->msg);
	if (!no_uring && uring_works())
		assert_true(st->used_uring);
	if (no_uring)
		assert_false(st->used_uring);
	return load_lines(out);
}

/* The tree and the calls on it; paths[] gets the absolute paths (caller frees). */
struct tree {
	char *data, *dir, *link, *missing, *missing_dir, *ro, *ro_new, *script, *gone, *old, *new;
	char *stat_only; /* a file only stat'ed: metadata, no content hash */
};

static void tree_release(struct tree *t)
{
	char **v = (char **)t;

	for (size_t i = 0; i < sizeof(*t) / sizeof(char *); i++)
		free(v[i]);
}

static void build_tree(struct fixture *fx, struct tree *t)
{
	*t = (struct tree){ at(fx, "data.txt"),	  at(fx, "dir"),
			    at(fx, "link"),	  at(fx, "nodir/missing.txt"),
			    at(fx, "nodir"),	  at(fx, "ro"),
			    at(fx, "ro/new.txt"), at(fx, "script.sh"),
			    at(fx, "gone"),	  at(fx, "old"),
			    at(fx, "new"),	  at(fx, "stat-only.txt") };
	write_file(t->stat_only, CONTENT, 0644);
	write_file(t->data, CONTENT, 0644);
	assert_int_equal(mkdir(t->dir, 0750), 0);
	assert_int_equal(chmod(t->dir, 0750), 0);
	assert_int_equal(symlink("data.txt", t->link), 0);
	assert_int_equal(mkdir(t->ro, 0555), 0);
	assert_int_equal(chmod(t->ro, 0555), 0);
	write_file(t->script, "#!/bin/sh\n", 0644);
	write_file(t->new, "renamed\n", 0600);
}

static void record_tree(struct fixture *fx, struct tree *t)
{
	char *rename_paths[2] = { t->old, t->new };

	add_open(fx, t->data, O_RDONLY | O_CLOEXEC, 3);
	add_open(fx, t->data, O_WRONLY | O_TRUNC, 3);
	add_path_call(fx, "mkdir", t->dir, 0, 0);
	add_call(fx, "symlink", 0, NULL, 1, (unsigned[]){ 1 }, &t->link);
	add_open(fx, t->missing, O_RDONLY, -ENOENT);
	add_path_call(fx, "newfstatat", t->missing, 1, -ENOENT);
	add_path_call(fx, "newfstatat", t->ro_new, 1, -ENOENT);
	add_open(fx, t->ro_new, O_WRONLY | O_CREAT | O_EXCL, -EACCES);
	add_path_call(fx, "execve", t->script, 0, -EACCES);
	add_path_call(fx, "unlink", t->gone, 0, 0);
	add_call(fx, "rename", 0, NULL, 2, (unsigned[]){ 0, 1 }, rename_paths);
	add_path_call(fx, "newfstatat", t->stat_only, 1, 0);
}

static void check_sorted(json_t *all)
{
	const char *prev = "";
	size_t i;
	json_t *o;

	json_array_foreach (all, i, o) {
		const char *p = json_string_value(json_object_get(o, "path"));

		assert_true(strcmp(prev, p) < 0);
		prev = p;
	}
}

static void check_data(json_t *all, const struct tree *t)
{
	json_t *o = find_path(all, t->data);
	json_t *meta = json_object_get(o, "meta");

	assert_ops(o, "read,write");
	assert_str_key(o, "first", "ok");
	assert_str_key(o, "last", "ok");
	assert_null(json_object_get(o, "errno"));
	assert_null(json_object_get(o, "ancestors"));
	assert_int_key(o, "calls", 2);
	assert_owner_mode(meta, "file", "0644");
	assert_int_key(meta, "size", (json_int_t)strlen(CONTENT));
	/* smaller than REPRO_HASH_MIN_SIZE: no hash by default, and why */
	assert_null(json_object_get(meta, "hash"));
	assert_str_key(meta, "hash_withheld", "small");
	assert_true(json_integer_value(json_object_get(meta, "mtime_ns")) >
		    1000000000LL * 1000000000LL);
	/* only stat'ed: its size is there, its content was not read */
	o = find_path(all, t->stat_only);
	assert_int_key(json_object_get(o, "meta"), "size", (json_int_t)strlen(CONTENT));
	assert_null(json_object_get(json_object_get(o, "meta"), "hash"));
	assert_null(json_object_get(json_object_get(o, "meta"), "hash_withheld"));
}

static void check_dir_link(json_t *all, const struct tree *t)
{
	json_t *o = find_path(all, t->dir);

	assert_ops(o, "create");
	assert_owner_mode(json_object_get(o, "meta"), "dir", "0750");
	assert_null(json_object_get(json_object_get(o, "meta"), "hash"));
	o = find_path(all, t->link);
	assert_ops(o, "create");
	assert_owner_mode(json_object_get(o, "meta"), "symlink", "0777");
	assert_str_key(json_object_get(o, "meta"), "target", "data.txt");
	assert_null(json_object_get(json_object_get(o, "meta"), "hash"));
}

static void check_mount(json_t *o, const char *under)
{
	json_t *m = json_object_get(o, "mount");
	const char *point;

	assert_true(json_is_object(m));
	point = json_string_value(json_object_get(m, "mount_point"));
	assert_non_null(point);
	assert_true(strcmp(point, "/") == 0 || strncmp(under, point, strlen(point)) == 0);
	assert_true(strlen(json_string_value(json_object_get(m, "fstype"))) > 0);
	assert_true(json_array_size(json_object_get(m, "options")) > 0);
}

static void check_missing(json_t *all, const struct tree *t, const char *root)
{
	json_t *o = find_path(all, t->missing);
	json_t *anc = json_object_get(o, "ancestors");
	json_t *last;

	assert_ops(o, "stat,read");
	assert_str_key(o, "first", "ENOENT");
	assert_str_key(o, "last", "ENOENT");
	assert_str_key(o, "errno", "ENOENT");
	assert_true(json_is_null(json_object_get(o, "meta")));
	assert_null(json_object_get(o, "meta_errno"));
	assert_true(json_array_size(anc) >= 3); /* nodir, root, …, / */
	assert_str_key(json_array_get(anc, 0), "path", t->missing_dir);
	assert_true(json_is_null(json_object_get(json_array_get(anc, 0), "meta")));
	assert_str_key(json_array_get(anc, 1), "path", root);
	assert_owner_mode(json_object_get(json_array_get(anc, 1), "meta"), "dir", "0700");
	last = json_array_get(anc, json_array_size(anc) - 1);
	assert_str_key(last, "path", "/");
	assert_str_key(json_object_get(last, "meta"), "type", "dir");
	check_mount(o, root);
	/* the missing dir is an ancestor only: no line of its own */
	for (size_t i = 0; i < json_array_size(all); i++)
		assert_string_not_equal(
			json_string_value(json_object_get(json_array_get(all, i), "path")),
			t->missing_dir);
}

static void check_ro(json_t *all, const struct tree *t)
{
	json_t *o = find_path(all, t->ro_new);
	json_t *anc = json_object_get(o, "ancestors");

	assert_ops(o, "stat,write,create");
	assert_str_key(o, "first", "ENOENT");
	assert_str_key(o, "last", "EACCES");
	assert_str_key(o, "errno", "EACCES");
	assert_int_key(o, "calls", 2);
	assert_true(json_is_null(json_object_get(o, "meta")));
	assert_str_key(json_array_get(anc, 0), "path", t->ro);
	assert_owner_mode(json_object_get(json_array_get(anc, 0), "meta"), "dir", "0555");
	check_mount(o, t->ro);
}

static void check_exec_delete_rename(json_t *all, const struct tree *t)
{
	json_t *o = find_path(all, t->script);

	assert_ops(o, "exec");
	assert_str_key(o, "errno", "EACCES");
	assert_owner_mode(json_object_get(o, "meta"), "file", "0644");
	assert_true(json_is_array(json_object_get(o, "ancestors")));
	check_mount(o, t->script);
	o = find_path(all, t->gone);
	assert_ops(o, "delete");
	assert_true(json_is_null(json_object_get(o, "meta")));
	assert_null(json_object_get(o, "ancestors"));
	assert_ops(find_path(all, t->old), "delete");
	assert_ops(find_path(all, t->new), "create");
	assert_owner_mode(json_object_get(find_path(all, t->new), "meta"), "file", "0600");
}

static void check_all(json_t *all, const struct tree *t, const char *root)
{
	assert_int_equal(json_array_size(all), 10);
	check_sorted(all);
	check_data(all, t);
	check_dir_link(all, t);
	check_missing(all, t, root);
	check_ro(all, t);
	check_exec_delete_rename(all, t);
}

static void test_files_tree(void **state)
{
	struct fixture *fx = *state;
	struct rec_files_stats su = { 0 }, sp = { 0 };
	struct tree t;
	json_t *with, *without;

	build_tree(fx, &t);
	record_tree(fx, &t);
	with = run(fx, false, "uring.jsonl", &su);
	without = run(fx, true, "plain.jsonl", &sp);
	check_all(with, &t, fx->root);
	check_all(without, &t, fx->root);
	assert_true(json_equal(with, without));
	assert_int_equal(su.paths, 10);
	assert_int_equal(su.events, 12);
	assert_int_equal(su.dropped, 0);
	json_decref(with);
	json_decref(without);
	tree_release(&t);
}

/* BYTES bytes of text (not all the same), to write_file(). */
static char *text_of(size_t bytes)
{
	char *t = repro_xmalloc(bytes + 1);

	for (size_t i = 0; i < bytes; i++)
		t[i] = (char)('a' + (i * 7) % 26);
	t[bytes] = '\0';
	return t;
}

/* One file of the hash policy: name under the root, content size, mode, what files.jsonl says. */
struct hashed {
	const char *name;
	size_t size;
	mode_t mode;
	const char *withheld; /* NULL: a hash */
};

static const struct hashed hashed[] = {
	{ "pin.txt", 5, 0644, "small" },
	{ "just-small.txt", REPRO_HASH_MIN_SIZE - 1, 0644, "small" },
	{ "just-big.txt", REPRO_HASH_MIN_SIZE, 0644, NULL },
	{ "private.conf", 4096, 0600, "owner-only" },
	{ "run.sh", 4096, 0700, "owner-only" },
	{ "id_rsa_deploy", 4096, 0644, "secret-name" },
	{ "server.KEY", 4096, 0644, "secret-name" },
	{ "api_tokens.json", 4096, 0644, "secret-name" },
	{ ".env", 4096, 0644, "secret-name" },
	{ "home/.ssh/config", 4096, 0644, "secret-name" },
	{ "tokenizer.json", 4096, 0644, NULL }, /* "token" is not a word of it */
	{ "secretary.txt", 4096, 0644, NULL },
	{ "big.bin", 4096, 0640, NULL },
};

/*
 * Hashes that a guess could check are withheld, with the reason: small
 * files, owner-only files, key/token/credential names; the rest keep
 * theirs; hash_secrets hashes them all.
 */
static void test_files_hash_policy(void **state)
{
	struct fixture *fx = *state;
	cleanup_free char *home = at(fx, "home"), *ssh = at(fx, "home/.ssh");
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *out = repro_xasprintf("%s/all.jsonl", fx->spool_dir);
	struct rec_files_stats st = { 0 };
	struct rec_files_opts o;
	json_t *def, *all;

	assert_int_equal(mkdir(home, 0755), 0);
	assert_int_equal(mkdir(ssh, 0755), 0);
	for (size_t i = 0; i < sizeof(hashed) / sizeof(hashed[0]); i++) {
		cleanup_free char *p = at(fx, hashed[i].name);
		cleanup_free char *text = text_of(hashed[i].size);

		write_file(p, text, hashed[i].mode);
		add_open(fx, p, O_RDONLY, 3);
	}
	def = run(fx, true, "def.jsonl", &st);
	rec_files_opts_init(&o);
	o.hash_secrets = true;
	assert_int_equal(rec_files_write_stats(fx->spool_dir, &o, out, &st, &err), 0);
	all = load_lines(out);
	for (size_t i = 0; i < sizeof(hashed) / sizeof(hashed[0]); i++) {
		cleanup_free char *p = at(fx, hashed[i].name);
		cleanup_free char *text = text_of(hashed[i].size);
		json_t *md = json_object_get(find_path(def, p), "meta");
		json_t *ma = json_object_get(find_path(all, p), "meta");
		char want[32];

		snprintf(want, sizeof(want), "xxh3:%016llx",
			 (unsigned long long)XXH3_64bits(text, hashed[i].size));
		assert_int_key(md, "size", (json_int_t)hashed[i].size);
		assert_str_key(ma, "hash", want);
		assert_null(json_object_get(ma, "hash_withheld"));
		if (hashed[i].withheld == NULL) {
			assert_str_key(md, "hash", want);
			assert_null(json_object_get(md, "hash_withheld"));
			continue;
		}
		if (json_object_get(md, "hash") != NULL)
			fail_msg("%s: a hash, not withheld", hashed[i].name);
		assert_str_key(md, "hash_withheld", hashed[i].withheld);
	}
	json_decref(def);
	json_decref(all);
}

static void test_files_cap(void **state)
{
	struct fixture *fx = *state;
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *out = repro_xasprintf("%s/cap.jsonl", fx->spool_dir);
	struct rec_files_opts o;
	struct rec_files_stats st;
	json_t *all;

	for (int i = 0; i < 5; i++) {
		cleanup_free char *p = repro_xasprintf("%s/f%d", fx->root, i);

		add_open(fx, p, O_RDONLY, -ENOENT);
		add_open(fx, p, O_RDONLY, -ENOENT);
	}
	assert_int_equal(bndl_spool_flush(fx->sp, &err), 0);
	rec_files_opts_init(&o);
	o.max_paths = 3;
	assert_int_equal(rec_files_write_stats(fx->spool_dir, &o, out, &st, &err), 0);
	all = load_lines(out);
	assert_int_equal(json_array_size(all), 3);
	assert_int_equal(st.paths, 3);
	assert_int_equal(st.dropped, 4);
	json_decref(all);
}

static void test_files_missing_spool(void **state)
{
	cleanup_err struct repro_err *err = NULL;

	assert_int_equal(rec_files_write("/nonexistent/spool", NULL, "/nonexistent/out", &err), -1);
	assert_non_null(err);
	assert_int_equal(err->errnum, ENOENT);
}

static double timed_run(struct fixture *fx, bool no_uring, const char *name)
{
	struct rec_files_stats st = { 0 };
	struct timespec a, b;
	json_t *all;

	clock_gettime(CLOCK_MONOTONIC, &a);
	all = run(fx, no_uring, name, &st);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_int_equal(json_array_size(all), MANY);
	assert_int_equal(st.paths, MANY);
	json_decref(all);
	return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

static void test_files_many(void **state)
{
	struct fixture *fx = *state;
	double u1, p1, u2, p2;

	for (int i = 0; i < MANY; i++) {
		cleanup_free char *p = repro_xasprintf("%s/file%05d", fx->root, i);

		if (i % 2 == 0)
			write_file(p, "some content\n", 0644);
		add_open(fx, p, O_RDONLY, i % 2 == 0 ? 3 : -ENOENT);
	}
	/* a first pass fills the dentry cache (negative entries too) for both */
	timed_run(fx, true, "many-warm.jsonl");
	u1 = timed_run(fx, false, "many-uring.jsonl");
	p1 = timed_run(fx, true, "many-plain.jsonl");
	u2 = timed_run(fx, false, "many-uring.jsonl");
	p2 = timed_run(fx, true, "many-plain.jsonl");
	printf("files.jsonl for %d paths (half exist, half missing with ancestors), warm cache: "
	       "io_uring %.1f ms, %.1f ms; statx fallback %.1f ms, %.1f ms%s\n",
	       MANY, u1, u2, p1, p2,
	       uring_works() ? "" : " (io_uring unavailable: both were fallback)");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_files_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_hash_policy, setup, teardown),
		cmocka_unit_test(test_files_missing_spool),
		cmocka_unit_test_setup_teardown(test_files_many, setup, teardown),
	};

	if (argc > 1) /* one case, as its CTest entry runs it */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
