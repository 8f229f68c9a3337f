#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "fixture.h"
#include "bundles/tarzst.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

bool fx_small_fs(const char *dir, const char *size)
{
	cleanup_free char *opts = repro_xasprintf("size=%s", size);

	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0)
		return false;
	/* mounts made here must not propagate back to the host's namespace */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return false;
	return mount("tmpfs", dir, "tmpfs", 0, opts) == 0;
}

void fx_small_fs_release(const char *dir)
{
	(void)umount2(dir, MNT_DETACH);
}

void fx_fill(const char *dir, const char *name)
{
	cleanup_free char *path = repro_xasprintf("%s/%s", dir, name);
	cleanup_close int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	static const char block[4096];

	if (fd < 0)
		abort();
	while (write(fd, block, sizeof(block)) > 0)
		;
	if (errno != ENOSPC)
		abort();
}

void fx_write_bundle(const char *path, const char *const *members)
{
	struct repro_err *err = NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct bndl_tarzst *w = fd >= 0 ? bndl_tarzst_open(fd, path, &err) : NULL;

	if (w == NULL)
		abort();
	for (size_t i = 0; members[i] != NULL; i += 2) {
		size_t len = strlen(members[i + 1]);

		if (bndl_tarzst_member(w, members[i], len, 0, &err) < 0 ||
		    bndl_tarzst_write(w, members[i + 1], len, &err) < 0)
			abort();
	}
	if (bndl_tarzst_close(w, &err) < 0)
		abort();
	bndl_tarzst_free(w);
	close(fd);
}

char *fx_tmpdir(void)
{
	char *dir = repro_xstrdup("/tmp/repro-test-XXXXXX");

	if (mkdtemp(dir) == NULL)
		abort();
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void fx_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *nr_name(int nr)
{
	switch (nr) {
	case FX_READ: return "read";
	case FX_CONNECT: return "connect";
	case FX_EXECVE: return "execve";
	case FX_OPENAT: return "openat";
	default: return "unknown";
	}
}

static json_t *addr_json(const struct bndl_blob *b)
{
	const struct sockaddr *sa = b->data;
	char ip[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = b->data;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		return json_pack("{s:s,s:s,s:i}", "family", "AF_INET", "ip", ip, "port",
				 ntohs(in->sin_port));
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = b->data;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		return json_pack("{s:s,s:s,s:i}", "family", "AF_INET6", "ip", ip, "port",
				 ntohs(in6->sin6_port));
	}
	return json_pack("{s:s,s:s}", "family", "AF_UNIX", "path",
			 ((const struct sockaddr_un *)b->data)->sun_path);
}

static int render(void *ctx, const struct bndl_event *ev, json_t **json, char **trace_line,
		  struct repro_err **err)
{
	json_t *o = json_pack("{s:I,s:I,s:I,s:i,s:i,s:s}", "seq", (json_int_t)ev->seq, "t_ns",
			      (json_int_t)ev->t_ns, "dur_ns", (json_int_t)ev->dur_ns, "pid",
			      ev->pid, "tid", ev->tid, "syscall", nr_name(ev->nr));
	const struct bndl_blob *path = bndl_event_blob(ev, BNDL_BLOB_PATH, 1);
	const struct bndl_blob *flags = bndl_event_blob(ev, BNDL_BLOB_STR, 2);
	const struct bndl_blob *addr = bndl_event_blob(ev, BNDL_BLOB_SOCKADDR, 1);
	const char *ename = ev->ret < 0 ? strerrorname_np((int)-ev->ret) : NULL;

	if (path != NULL)
		json_object_set_new(o, "path",
				    json_stringn(path->data, strnlen(path->data, path->len)));
	if (flags != NULL)
		json_object_set_new(o, "flags",
				    json_stringn(flags->data, strnlen(flags->data, flags->len)));
	if (addr != NULL)
		json_object_set_new(o, "addr", addr_json(addr));
	if (ev->flags & BNDL_EV_UNFINISHED) {
		json_object_set_new(o, "ret", json_null());
		json_object_set_new(o, "unfinished", json_true());
	} else {
		json_object_set_new(o, "ret", json_integer(ev->ret < 0 ? -1 : ev->ret));
	}
	if (ename != NULL && !(ev->flags & BNDL_EV_UNFINISHED))
		json_object_set_new(o, "errno", json_string(ename));
	*trace_line = repro_xasprintf("%d  %s(\"%s\") = %lld%s%s", ev->pid, nr_name(ev->nr),
				      path != NULL ? (const char *)path->data : "",
				      (long long)(ev->ret < 0 ? -1 : ev->ret), ename ? " " : "",
				      ename ? ename : "");
	*json = o;
	return 0;
}

const struct bndl_render_ops *fx_render_ops(void)
{
	static const struct bndl_render_ops ops = { .render_event = render };

	return &ops;
}

struct bndl_event fx_syscall(uint64_t seq, uint64_t t_ns, int32_t pid, int nr, const char *path,
			     const char *flags, int64_t ret)
{
	struct bndl_event ev = { .type = BNDL_REC_SYSCALL,
				 .seq = seq,
				 .t_ns = t_ns,
				 .dur_ns = 1000,
				 .pid = pid,
				 .tid = pid,
				 .nr = nr,
				 .ret = ret };

	if (path != NULL)
		ev.blobs[ev.nblobs++] = (struct bndl_blob){ .kind = BNDL_BLOB_PATH,
							    .argi = 1,
							    .len = (uint32_t)strlen(path) + 1,
							    .data = path };
	if (flags != NULL)
		ev.blobs[ev.nblobs++] = (struct bndl_blob){ .kind = BNDL_BLOB_STR,
							    .argi = 2,
							    .len = (uint32_t)strlen(flags) + 1,
							    .data = flags };
	return ev;
}

void fx_append(struct bndl_spool *sp, const struct bndl_event *ev)
{
	cleanup_err struct repro_err *err = NULL;

	if (bndl_spool_append(sp, ev, &err) < 0) {
		fprintf(stderr, "append: %s\n", err->msg);
		abort();
	}
}

void fx_proc_start(struct bndl_spool *sp, int32_t pid, int32_t ppid, uint64_t t_ns, bool is_thread)
{
	struct bndl_event ev = { .type = BNDL_REC_PROC_START,
				 .t_ns = t_ns,
				 .pid = pid,
				 .tid = pid,
				 .ppid = ppid,
				 .flags = is_thread ? BNDL_EV_THREAD : 0 };

	fx_append(sp, &ev);
}

void fx_proc_exec(struct bndl_spool *sp, int32_t pid, uint64_t t_ns, const char *path,
		  const char *argv_nul, uint32_t argv_len)
{
	struct bndl_event ev = {
		.type = BNDL_REC_PROC_EXEC, .t_ns = t_ns, .pid = pid, .tid = pid, .nblobs = 2
	};

	ev.blobs[0] = (struct bndl_blob){
		.kind = BNDL_BLOB_PATH, .argi = 0, .len = (uint32_t)strlen(path), .data = path
	};
	ev.blobs[1] = (struct bndl_blob){
		.kind = BNDL_BLOB_ARGV, .argi = 1, .len = argv_len, .data = argv_nul
	};
	fx_append(sp, &ev);
}

void fx_proc_exit(struct bndl_spool *sp, int32_t pid, uint64_t t_ns, int status)
{
	struct bndl_event ev = {
		.type = BNDL_REC_PROC_EXIT, .t_ns = t_ns, .pid = pid, .tid = pid, .status = status
	};

	fx_append(sp, &ev);
}

static void connect_event(struct bndl_spool *sp, uint64_t seq, uint64_t t, const void *sa,
			  uint32_t len, int64_t ret)
{
	struct bndl_event ev = fx_syscall(seq, t, 103, FX_CONNECT, NULL, NULL, ret);

	ev.blobs[ev.nblobs++] =
		(struct bndl_blob){ .kind = BNDL_BLOB_SOCKADDR, .argi = 1, .len = len, .data = sa };
	fx_append(sp, &ev);
}

static void scenario_connects(struct bndl_spool *sp, uint64_t *seq)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(443) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(8443) };
	struct sockaddr_un un = { .sun_family = AF_UNIX, .sun_path = "/run/app.sock" };

	inet_pton(AF_INET, "198.51.100.7", &in.sin_addr);
	inet_pton(AF_INET6, "2001:db8::1", &in6.sin6_addr);
	connect_event(sp, ++*seq, 4100000000, &in, sizeof(in), -ENETUNREACH);
	connect_event(sp, ++*seq, 4200000000, &in6, sizeof(in6), -ECONNREFUSED);
	connect_event(sp, ++*seq, 4300000000, &un, sizeof(un), -ENOENT);
}

static void scenario_procs(struct bndl_spool *sp)
{
	static const char a0[] = "bash\0start_app.sh";
	static const char a1[] = "python3\0webui.py";
	static const char a2[] = "curl\0-sS\0https://cdn.example.com/model.pth";
	static const char a3[] = "sh\0-c\0fetch";

	fx_proc_start(sp, 100, 0, 0, false);
	fx_proc_exec(sp, 100, 10, "/usr/bin/bash", a0, sizeof(a0));
	fx_proc_start(sp, 101, 100, 1000000000, false);
	fx_proc_exec(sp, 101, 1000000100, "/usr/bin/python3", a1, sizeof(a1));
	fx_proc_start(sp, 101, 101, 1100000000, true);
	fx_proc_start(sp, 102, 101, 2000000000, false);
	fx_proc_exec(sp, 102, 2000000100, "/usr/bin/curl", a2, sizeof(a2) - 1); /* no final NUL */
	fx_proc_start(sp, 103, 100, 4000000000, false);
	fx_proc_exec(sp, 103, 4000000100, "/bin/sh", a3, sizeof(a3));
}

static uint64_t write_scenario(const char *dir, uint64_t *nfailed, bool has_end)
{
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool *sp = bndl_spool_open(dir, &err);
	struct bndl_event ev;
	uint64_t seq = 0;
	char path[64];

	if (sp == NULL)
		abort();
	scenario_procs(sp);
	ev = fx_syscall(++seq, 500, 100, FX_OPENAT, "/srv/app/.env", "O_RDONLY", -ENOENT);
	fx_append(sp, &ev);
	ev = fx_syscall(++seq, 600, 100, FX_READ, NULL, NULL, 12);
	fx_append(sp, &ev);
	for (int i = 0; i < 12; i++) {
		snprintf(path, sizeof(path), "/srv/app/cache_hub/model_%d.pth", i);
		ev = fx_syscall(++seq, 1200000000 + (uint64_t)i * 1000, 101, FX_OPENAT, path,
				"O_RDONLY|O_CLOEXEC", -ENOENT);
		fx_append(sp, &ev);
	}
	ev = fx_syscall(++seq, 2100000000, 102, FX_OPENAT, "/etc/curlrc", "O_RDONLY", -ENOENT);
	fx_append(sp, &ev);
	fx_proc_exit(sp, 102, 3000000000, 0);
	scenario_connects(sp, &seq);
	ev = fx_syscall(++seq, 4400000000, 103, FX_READ, NULL, NULL, -EINTR);
	ev.flags = BNDL_EV_UNFINISHED;
	fx_append(sp, &ev);
	fx_proc_exit(sp, 103, 5000000000, SIGKILL);
	ev = fx_syscall(++seq, 7000000000, 101, FX_OPENAT, "/srv/app/webui.py", "O_RDONLY", 3);
	fx_append(sp, &ev);
	fx_proc_exit(sp, 101, 8000000000, 1 << 8);
	fx_proc_exit(sp, 100, 9000000000, 1 << 8);
	/* a recording that ended has its END record; one without it is incomplete */
	if (has_end && bndl_spool_end(sp, true, 1 << 8, 9000000000, &err) < 0)
		abort();
	if (bndl_spool_close(sp, &err) < 0)
		abort();
	*nfailed = 1 + 12 + 1 + 3;
	return seq;
}

uint64_t fx_write_scenario(const char *dir, uint64_t *nfailed)
{
	return write_scenario(dir, nfailed, true);
}

uint64_t fx_write_scenario_killed(const char *dir, uint64_t *nfailed)
{
	return write_scenario(dir, nfailed, false);
}

char *fx_full_spool(const char *dir, bool has_end, int errnum)
{
	char *spool = repro_xasprintf("%s/spool", dir);
	cleanup_err struct repro_err *err = NULL;
	struct bndl_spool_drops d = {
		.events = 40, .bytes = 4000, .since_ns = 5000, .errnum = errnum
	};
	struct bndl_event dropped = { .type = BNDL_REC_DROPPED, .t_ns = 5000, .ret = -errnum };
	struct bndl_event end = { .type = BNDL_REC_END,
				  .flags = BNDL_EV_HAS_EXIT,
				  .t_ns = 9000,
				  .status = 3 << 8,
				  .nblobs = 1 };
	struct bndl_event ev = fx_syscall(1, 100, 1, FX_OPENAT, "/etc/x", "O_RDONLY", -ENOENT);
	struct bndl_spool *sp;

	if (mkdir(spool, 0700) < 0)
		abort();
	sp = bndl_spool_open(spool, &err);
	if (sp == NULL)
		abort();
	fx_proc_start(sp, 1, 0, 0, false);
	fx_append(sp, &ev);
	fx_append(sp, &dropped);
	fx_proc_exit(sp, 1, 8000, 3 << 8);
	end.blobs[0] = (struct bndl_blob){ .kind = BNDL_BLOB_STRUCT, .len = sizeof(d), .data = &d };
	if (has_end)
		fx_append(sp, &end);
	if (bndl_spool_close(sp, &err) < 0)
		abort();
	return spool;
}

struct bndl_run_info fx_run_info(void)
{
	static char *const argv[] = { "bash", "start_app.sh", NULL };

	return (struct bndl_run_info){
		.argv = argv,
		.cwd = "/srv/app",
		.started_at_s = 1795963304, /* 2026-11-29T14:41:44Z */
		.duration_ns = 9000000000,
		.has_exit = 1,
		.exit_code = 1,
		.trace_classes = "file,network,process",
		.net_mode = "host",
		.sandbox = "none",
		.tool_version = "repro 0.1.0",
		.warnings = "first note; second note",
	};
}

char *fx_pack_scenario(const char *dir)
{
	cleanup_err struct repro_err *err = NULL;
	cleanup_free char *spool = repro_xasprintf("%s/.run.spool", dir);
	char *out = repro_xasprintf("%s/run.repro", dir);
	struct bndl_run_info run = fx_run_info();
	uint64_t nfailed;

	if (mkdir(spool, 0700) < 0)
		abort();
	fx_write_scenario(spool, &nfailed);
	if (bndl_pack(spool, &run, fx_render_ops(), out, &err) < 0) {
		fprintf(stderr, "pack: %s\n", err->msg);
		abort();
	}
	return out;
}
