/*
 * Host facts for host.json (recorder/host.h).  Each fact has one small
 * function; rec_host_collect() is the list of them.  Files are read whole
 * with a cap (repro_read_file) except mountinfo, which is read line by line
 * up to REC_HOST_MAX_MOUNTS entries.
 */
#include "recorder/host.h"
#include "common/mountinfo.h"
#include "recorder/jsonstr.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Caps of the files read: configuration text, and one number from /proc/sys. */
#define TEXT_CAP (64 * 1024)
#define SYSCTL_CAP 64

static inline void cleanup_cap_fn(cap_t *c)
{
	if (*c != NULL)
		cap_free(*c);
}
#define cleanup_cap __attribute__((cleanup(cleanup_cap_fn)))

static json_t *jstr(const char *s)
{
	return s != NULL ? rec_json_str(s, strlen(s)) : json_null();
}

/* The content of PATH, or NULL when it is missing or unreadable (a null fact, not an error). */
static char *read_optional(const char *path, size_t cap)
{
	cleanup_err struct repro_err *tmp_err = NULL;

	return repro_read_file(path, cap, NULL, &tmp_err);
}

/* Next line of *CUR (cut in place at '\n'), or NULL at the end. */
static char *next_line(char **cur)
{
	char *line = *cur, *nl;

	if (line == NULL || *line == '\0')
		return NULL;
	nl = strchr(line, '\n');
	if (nl != NULL)
		*nl++ = '\0';
	*cur = nl;
	return line;
}

static char *trim(char *s)
{
	char *end;

	s += strspn(s, " \t\r");
	end = s + strlen(s);
	while (end > s && strchr(" \t\r", end[-1]) != NULL)
		*--end = '\0';
	return s;
}

/* JSON array of the words of S split at any of SEP. */
static json_t *split_json(char *s, const char *sep)
{
	json_t *arr = json_array();
	char *save = NULL;

	for (char *w = strtok_r(s, sep, &save); w != NULL; w = strtok_r(NULL, sep, &save))
		json_array_append_new(arr, jstr(w));
	return arr;
}

static json_t *kernel_json(const struct utsname *u)
{
	return json_pack("{s:o,s:o,s:o,s:o}", "sysname", jstr(u->sysname), "release",
			 jstr(u->release), "version", jstr(u->version), "machine",
			 jstr(u->machine));
}

/* An os-release(5) value: shell-style quotes removed, \" \\ \$ \` unescaped inside "". */
static char *os_release_unquote(char *v)
{
	char quote = v[0];
	char *out = v, *in = v + 1;

	if (quote != '"' && quote != '\'')
		return v;
	for (; *in != '\0' && *in != quote; in++) {
		if (quote == '"' && in[0] == '\\' && in[1] != '\0' &&
		    strchr("\"\\$`", in[1]) != NULL)
			in++;
		*out++ = *in;
	}
	*out = '\0';
	return v;
}

static json_t *distribution_json(void)
{
	cleanup_free char *text = read_optional("/etc/os-release", TEXT_CAP);
	static const char *const keys[][2] = {
		{ "ID", "id" },
		{ "VERSION_ID", "version_id" },
		{ "PRETTY_NAME", "pretty_name" },
	};
	json_t *dist = json_pack("{s:n,s:n,s:n}", "id", "version_id", "pretty_name");
	char *cur, *line;

	if (text == NULL)
		text = read_optional("/usr/lib/os-release", TEXT_CAP);
	if (text == NULL)
		return json_decref(dist), json_null();
	cur = text;
	while ((line = next_line(&cur)) != NULL) {
		char *eq = strchr(line, '=');

		if (eq == NULL)
			continue;
		*eq = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(trim(line), keys[i][0]) == 0)
				json_object_set_new(dist, keys[i][1],
						    jstr(os_release_unquote(trim(eq + 1))));
	}
	return dist;
}

static json_t *groups_json(void)
{
	int n = getgroups(0, NULL);
	cleanup_free gid_t *gids = NULL;
	json_t *arr = json_array();

	if (n <= 0)
		return arr;
	gids = repro_xcalloc((size_t)n, sizeof(*gids));
	n = getgroups(n, gids);
	for (int i = 0; i < n; i++)
		json_array_append_new(arr, json_integer(gids[i]));
	return arr;
}

enum cap_set { SET_EFFECTIVE, SET_PERMITTED, SET_INHERITABLE, SET_BOUNDING, SET_AMBIENT };

/* 1 when capability V is in SET of this process (PROC: its cap_get_proc()), 0 when not, -1 unknown. */
static int cap_has(cap_t proc, enum cap_set set, cap_value_t v)
{
	static const cap_flag_t flags[] = {
		[SET_EFFECTIVE] = CAP_EFFECTIVE,
		[SET_PERMITTED] = CAP_PERMITTED,
		[SET_INHERITABLE] = CAP_INHERITABLE,
	};
	cap_flag_value_t val;

	int rc;

	switch (set) {
	case SET_BOUNDING: rc = cap_get_bound(v); return rc < 0 ? -1 : rc > 0;
	case SET_AMBIENT: rc = cap_get_ambient(v); return rc < 0 ? -1 : rc > 0;
	case SET_EFFECTIVE:
	case SET_PERMITTED:
	case SET_INHERITABLE: break;
	}
	if (proc == NULL || cap_get_flag(proc, v, flags[set], &val) < 0)
		return -1;
	return val == CAP_SET;
}

/* SET as "all", "" or "cap_a,cap_b" (see host.h), or null when unknown. */
static json_t *cap_set_json(cap_t proc, enum cap_set set)
{
	cap_value_t max = (cap_value_t)cap_max_bits();
	char buf[4096] = "";
	size_t len = 0;
	cap_value_t count = 0;

	for (cap_value_t v = 0; v < max; v++) {
		int has = cap_has(proc, set, v);
		char *name;

		if (has < 0)
			return json_null();
		if (has == 0)
			continue;
		count++;
		name = cap_to_name(v);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", len > 0 ? "," : "",
					name);
		cap_free(name);
		if (len >= sizeof(buf))
			return json_null();
	}
	return json_string(count == max && max > 0 ? "all" : buf);
}

static json_t *capabilities_json(void)
{
	cleanup_cap cap_t proc = cap_get_proc();
	char *text = proc != NULL ? cap_to_text(proc, NULL) : NULL;
	json_t *caps = json_pack(
		"{s:o,s:o,s:o,s:o,s:o,s:o}", "effective", cap_set_json(proc, SET_EFFECTIVE),
		"permitted", cap_set_json(proc, SET_PERMITTED), "inheritable",
		cap_set_json(proc, SET_INHERITABLE), "bounding", cap_set_json(proc, SET_BOUNDING),
		"ambient", cap_set_json(proc, SET_AMBIENT), "text", jstr(text));

	cap_free(text);
	return caps;
}

static json_t *rlim_json(rlim_t v)
{
	if (v == RLIM_INFINITY || v > (rlim_t)LLONG_MAX)
		return json_string("unlimited");
	return json_integer((json_int_t)v);
}

static json_t *rlimits_json(void)
{
	static const struct {
		const char *name;
		int resource;
	} limits[] = {
		{ "NOFILE", RLIMIT_NOFILE }, { "NPROC", RLIMIT_NPROC },
		{ "AS", RLIMIT_AS },	     { "CORE", RLIMIT_CORE },
		{ "FSIZE", RLIMIT_FSIZE },   { "STACK", RLIMIT_STACK },
		{ "DATA", RLIMIT_DATA },     { "MEMLOCK", RLIMIT_MEMLOCK },
	};
	json_t *obj = json_object();

	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct rlimit rl;

		if (getrlimit(limits[i].resource, &rl) < 0) {
			json_object_set_new(obj, limits[i].name, json_null());
			continue;
		}
		json_object_set_new(obj, limits[i].name,
				    json_pack("{s:o,s:o}", "soft", rlim_json(rl.rlim_cur), "hard",
					      rlim_json(rl.rlim_max)));
	}
	return obj;
}

/* The Umask: line of /proc/self/status (Linux 4.7+): reading it leaves the umask alone. */
static json_t *umask_json(void)
{
	cleanup_free char *text = read_optional("/proc/self/status", TEXT_CAP);
	char *cur = text, *line;

	while ((line = next_line(&cur)) != NULL)
		if (strncmp(line, "Umask:", 6) == 0)
			return jstr(trim(line + 6));
	return json_null();
}

static json_t *cwd_json(void)
{
	cleanup_free char *cwd = get_current_dir_name();

	return jstr(cwd);
}

/* One entry of proc_pid_mountinfo(5); strings point into the line. */
typedef void (*mnt_fn)(const struct repro_mountinfo *m, void *ctx);

/*
 * Call FN for each entry of /proc/self/mountinfo, at most REC_HOST_MAX_MOUNTS
 * (*is_truncated tells whether more were left).  Returns -1 when the file
 * cannot be opened, else 0.
 */
static int mounts_foreach(mnt_fn fn, void *ctx, bool *is_truncated)
{
	cleanup_fclose FILE *f = fopen("/proc/self/mountinfo", "re");
	cleanup_free char *line = NULL;
	size_t cap = 0, count = 0;

	*is_truncated = false;
	if (f == NULL)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		struct repro_mountinfo m;

		if (count == REC_HOST_MAX_MOUNTS) {
			*is_truncated = true;
			break;
		}
		if (!repro_mountinfo_parse(line, &m))
			continue;
		fn(&m, ctx);
		count++;
	}
	return 0;
}

static void mount_to_json(const struct repro_mountinfo *m, void *ctx)
{
	cleanup_free char *super = repro_xstrdup(m->super_options != NULL ? m->super_options : "");
	cleanup_free char *options = repro_xstrdup(m->options);

	json_array_append_new(ctx, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "mount_point",
					     jstr(m->mount_point), "root", jstr(m->root), "source",
					     jstr(m->source), "fstype", jstr(m->fstype), "options",
					     split_json(options, ","), "super_options",
					     split_json(super, ",")));
}

static void add_mounts(json_t *host)
{
	json_t *mounts = json_array();
	bool is_truncated;

	if (mounts_foreach(mount_to_json, mounts, &is_truncated) < 0) {
		json_decref(mounts);
		mounts = json_null();
	}
	json_object_set_new(host, "mounts", mounts);
	json_object_set_new(host, "mounts_truncated", json_boolean(is_truncated));
}

/* The words after a keyword go to ARR; a "search" or "domain" line replaces the earlier one. */
static void resolv_add_words(json_t *arr, const char *kw, char **save)
{
	char *w;

	if (strcmp(kw, "search") == 0 || strcmp(kw, "domain") == 0)
		json_array_clear(arr);
	while ((w = strtok_r(NULL, " \t\r", save)) != NULL) {
		json_array_append_new(arr, jstr(w));
		if (strcmp(kw, "nameserver") == 0)
			break;
	}
}

/* resolv.conf(5): nameserver (one address a line), search/domain (the last one wins), options. */
static json_t *resolv_conf_json(void)
{
	cleanup_free char *text = read_optional("/etc/resolv.conf", TEXT_CAP);
	json_t *conf, *ns, *search, *options;
	char *cur = text, *line;

	if (text == NULL)
		return json_null();
	conf = json_pack("{s:[],s:[],s:[]}", "nameservers", "search", "options");
	ns = json_object_get(conf, "nameservers");
	search = json_object_get(conf, "search");
	options = json_object_get(conf, "options");
	while ((line = next_line(&cur)) != NULL) {
		char *save = NULL, *kw = strtok_r(line, " \t\r", &save);

		if (kw == NULL)
			continue;
		if (strcmp(kw, "nameserver") == 0)
			resolv_add_words(ns, kw, &save);
		else if (strcmp(kw, "search") == 0 || strcmp(kw, "domain") == 0)
			resolv_add_words(search, kw, &save);
		else if (strcmp(kw, "options") == 0)
			resolv_add_words(options, kw, &save);
	}
	return conf;
}

/* The sources of the hosts: line of nsswitch.conf(5), e.g. "files dns". */
static json_t *nsswitch_hosts_json(void)
{
	cleanup_free char *text = read_optional("/etc/nsswitch.conf", TEXT_CAP);
	char *cur = text, *line;

	while ((line = next_line(&cur)) != NULL) {
		char *hash = strchr(line, '#');

		if (hash != NULL)
			*hash = '\0';
		line = trim(line);
		if (strncmp(line, "hosts:", 6) == 0)
			return jstr(trim(line + 6));
	}
	return json_null();
}

/* An integer sysctl from /proc/sys, or null when this kernel lacks it. */
static json_t *sysctl_json(const char *path)
{
	cleanup_free char *text = read_optional(path, SYSCTL_CAP);
	char *end;
	long long v;

	if (text == NULL)
		return json_null();
	v = strtoll(text, &end, 10);
	if (end == text)
		return json_null();
	return json_integer(v);
}

static json_t *kernel_settings_json(void)
{
	static const char *const settings[][2] = {
		{ "io_uring_disabled", "/proc/sys/kernel/io_uring_disabled" },
		{ "yama_ptrace_scope", "/proc/sys/kernel/yama/ptrace_scope" },
		{ "unprivileged_userns_clone", "/proc/sys/kernel/unprivileged_userns_clone" },
		{ "apparmor_restrict_unprivileged_userns",
		  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns" },
		{ "max_user_namespaces", "/proc/sys/user/max_user_namespaces" },
	};
	json_t *obj = json_object();

	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		json_object_set_new(obj, settings[i][0], sysctl_json(settings[i][1]));
	return obj;
}

static void add_identity(json_t *host, const struct rec_host_opts *opts)
{
	struct utsname u;

	if (uname(&u) < 0) {
		json_object_set_new(host, "kernel", json_null());
		json_object_set_new(host, "arch", json_null());
		json_object_set_new(host, "hostname", json_null());
		return;
	}
	json_object_set_new(host, "kernel", kernel_json(&u));
	json_object_set_new(host, "arch", jstr(u.machine));
	if (opts->redact_hostname) {
		json_object_set_new(host, "hostname", json_string(REC_REDACTED));
		rec_redact_note(opts->redacted, "hostname");
	} else {
		json_object_set_new(host, "hostname", jstr(u.nodename));
	}
}

static void add_credentials(json_t *host)
{
	json_object_set_new(host, "uid", json_integer(getuid()));
	json_object_set_new(host, "gid", json_integer(getgid()));
	json_object_set_new(host, "euid", json_integer(geteuid()));
	json_object_set_new(host, "egid", json_integer(getegid()));
	json_object_set_new(host, "groups", groups_json());
	json_object_set_new(host, "capabilities", capabilities_json());
	json_object_set_new(host, "rlimits", rlimits_json());
	json_object_set_new(host, "umask", umask_json());
}

json_t *rec_host_collect(const struct rec_host_opts *opts, struct repro_err **err)
{
	cleanup_redact struct rec_redact *own = NULL;
	const struct rec_redact *redact = opts->redact;
	json_t *host = json_object();

	if (redact == NULL) {
		own = rec_redact_new(NULL, NULL, err);
		if (own == NULL) {
			json_decref(host);
			return NULL;
		}
		if (opts->redact_hostname)
			rec_redact_hide_hostname(own);
		redact = own;
	}
	add_identity(host, opts);
	json_object_set_new(host, "distribution", distribution_json());
	add_credentials(host);
	json_object_set_new(host, "environment",
			    opts->envp != NULL
				    ? rec_redact_env_json(redact, opts->envp, opts->redacted)
				    : json_null());
	json_object_set_new(host, "cwd", cwd_json());
	add_mounts(host);
	json_object_set_new(host, "dns",
			    json_pack("{s:o,s:o}", "resolv_conf", resolv_conf_json(),
				      "nsswitch_hosts", nsswitch_hosts_json()));
	json_object_set_new(host, "kernel_settings", kernel_settings_json());
	json_object_set_new(host, "sandbox", jstr(opts->sandbox));
	return host;
}

/* Which mount holds a path: the longest mount point above it, preferring the device's own. */
struct mount_search {
	const char *path;
	dev_t dev;
	size_t best_len;
	bool is_dev_match;
	char *mount_point, *fstype; /* owned */
};

static bool is_path_prefix(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	if (strcmp(prefix, "/") == 0)
		return path[0] == '/';
	return strncmp(prefix, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void mount_consider(const struct repro_mountinfo *m, void *ctx)
{
	struct mount_search *s = ctx;
	bool is_dev = makedev(m->major, m->minor) == s->dev;
	size_t len = strlen(m->mount_point);

	if (!is_path_prefix(m->mount_point, s->path) || (s->is_dev_match && !is_dev))
		return;
	/* a later entry on the same mount point is mounted over the earlier one */
	if (is_dev == s->is_dev_match && len < s->best_len)
		return;
	free(s->mount_point);
	free(s->fstype);
	s->mount_point = repro_xstrdup(m->mount_point);
	s->fstype = repro_xstrdup(m->fstype);
	s->best_len = len;
	s->is_dev_match = is_dev;
}

/* The nearest existing ancestor of PATH (itself if it exists), canonical, in a new buffer; NULL if none. */
static char *existing_ancestor(const char *path, struct stat *st)
{
	/* room for "." when a relative path runs out of components */
	cleanup_free char *p = repro_xmalloc(strlen(path) + 2);

	strcpy(p, path);
	for (;;) {
		char *slash;

		if (p[0] != '\0' && stat(p, st) == 0) {
			char *real = realpath(p, NULL);

			return real != NULL ? real : steal_ptr(&p);
		}
		slash = strrchr(p, '/');
		if (slash == NULL && strcmp(p, ".") == 0)
			return NULL;
		if (slash == NULL)
			strcpy(p, ".");
		else if (slash == p && p[1] == '\0')
			return NULL;
		else
			slash[slash == p ? 1 : 0] = '\0';
	}
}

static json_t *fs_entry_json(const char *path, dev_t dev)
{
	struct mount_search s = { .path = path, .dev = dev };
	struct statvfs vfs;
	bool is_truncated;
	json_t *entry;

	if (statvfs(path, &vfs) < 0)
		return NULL;
	mounts_foreach(mount_consider, &s, &is_truncated);
	entry = json_pack("{s:o,s:o,s:I,s:I,s:I,s:I}", "mount_point", jstr(s.mount_point), "fstype",
			  jstr(s.fstype), "free_bytes", (json_int_t)(vfs.f_bavail * vfs.f_frsize),
			  "total_bytes", (json_int_t)(vfs.f_blocks * vfs.f_frsize), "free_inodes",
			  (json_int_t)vfs.f_favail, "total_inodes", (json_int_t)vfs.f_files);
	free(s.mount_point);
	free(s.fstype);
	return entry;
}

json_t *rec_host_fs_usage(const char *const *paths, size_t n)
{
	json_t *arr = json_array();
	cleanup_free dev_t *seen = repro_xcalloc(n + 1, sizeof(*seen));
	size_t n_seen = 0;

	for (size_t i = 0; i < n; i++) {
		struct stat st;
		cleanup_free char *real = existing_ancestor(paths[i], &st);
		bool is_seen = false;
		json_t *entry;

		for (size_t k = 0; real != NULL && k < n_seen; k++)
			is_seen = is_seen || seen[k] == st.st_dev;
		if (real == NULL || is_seen || (entry = fs_entry_json(real, st.st_dev)) == NULL)
			continue;
		seen[n_seen++] = st.st_dev;
		json_array_append_new(arr, entry);
	}
	return arr;
}

/* The longest mount point of mounts (host.json "mounts") that holds path, or -1. */
static long mount_of(json_t *mounts, const char *path)
{
	size_t i, best_len = 0;
	long best = -1;
	json_t *m;

	json_array_foreach (mounts, i, m) {
		const char *mp = json_string_value(json_object_get(m, "mount_point"));
		size_t len = mp != NULL ? strlen(mp) : 0;

		if (len == 0 || strncmp(path, mp, len) != 0)
			continue;
		if (len > 1 && path[len] != '/' && path[len] != '\0')
			continue; /* /usr is no prefix of /usrx */
		if (len >= best_len) {
			best_len = len;
			best = (long)i;
		}
	}
	return best;
}

struct fs_scan {
	json_t *mounts; /* borrowed */
	bool *used; /* one per mount */
	size_t nused;
	bool read_hosts; /* the run opened /etc/hosts */
};

static void scan_files(struct fs_scan *sc, FILE *f)
{
	cleanup_free char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, f) > 0) {
		json_t *o = json_loads(line, 0, NULL);
		const char *p = json_string_value(json_object_get(o, "path"));
		long k = p != NULL ? mount_of(sc->mounts, p) : -1;

		if (k >= 0 && !sc->used[k]) {
			sc->used[k] = true;
			sc->nused++;
		}
		if (p != NULL && strcmp(p, "/etc/hosts") == 0)
			sc->read_hosts = true;
		json_decref(o);
	}
}

/*
 * The entries of /etc/hosts (hosts(5)): [{"ip":…,"names":[…]}], at most 1,000,
 * comments and blank lines left out.  Read after the run, so that a lookup
 * the resolver answered from this file can be explained.
 */
/* Whether w names this machine: its host name, or that name and a domain (FQDN). */
static bool is_own_name(const char *w, const char *node)
{
	size_t n = strlen(node);

	return n > 0 && strncasecmp(w, node, n) == 0 && (w[n] == '\0' || w[n] == '.');
}

json_t *rec_hosts_entries(const char *path, bool hide)
{
	cleanup_free char *text = repro_read_file(path, 1u << 20, NULL, NULL);
	json_t *arr = json_array();
	struct utsname u;
	char *save = NULL;

	if (uname(&u) < 0)
		u.nodename[0] = '\0';

	for (char *line = text ? strtok_r(text, "\n", &save) : NULL;
	     line != NULL && json_array_size(arr) < 1000; line = strtok_r(NULL, "\n", &save)) {
		char *hash = strchr(line, '#'), *wsave = NULL, *w;
		json_t *entry = NULL, *names = NULL;

		if (hash != NULL)
			*hash = '\0';
		for (w = strtok_r(line, " \t", &wsave); w != NULL;
		     w = strtok_r(NULL, " \t", &wsave)) {
			if (entry == NULL) {
				entry = json_object();
				names = json_array();
				json_object_set_new(entry, "ip", bndl_json_bytes(w, strlen(w)));
			} else if (hide && is_own_name(w, u.nodename)) {
				json_array_append_new(names, json_string(REC_REDACTED));
			} else {
				json_array_append_new(names, bndl_json_bytes(w, strlen(w)));
			}
		}
		if (entry != NULL) {
			json_object_set_new(entry, "names", names);
			json_array_append_new(arr, entry);
		}
	}
	return arr;
}

int rec_host_add_fs_usage(json_t *host, const char *files_path, struct repro_err **err)
{
	cleanup_fclose FILE *f = fopen(files_path, "re");
	struct fs_scan sc = { 0 };
	cleanup_free const char **paths = NULL;
	cleanup_free bool *used = NULL;
	const char *hostname;
	size_t n = 0, i;
	json_t *m;

	if (f == NULL)
		return repro_err_set(err, errno, "cannot read '%s'", files_path);
	sc.mounts = json_object_get(host, "mounts");
	sc.used = used = repro_xcalloc(json_array_size(sc.mounts) + 1, sizeof(bool));
	scan_files(&sc, f);
	paths = repro_xcalloc(sc.nused + 1, sizeof(char *));
	json_array_foreach (sc.mounts, i, m)
		if (sc.used[i])
			paths[n++] = json_string_value(json_object_get(m, "mount_point"));
	json_object_set_new(host, "filesystems", rec_host_fs_usage(paths, n));
	if (!sc.read_hosts)
		return 0;
	hostname = json_string_value(json_object_get(host, "hostname"));
	json_object_set_new(
		host, "hosts_file",
		rec_hosts_entries("/etc/hosts",
				  hostname != NULL && strcmp(hostname, REC_REDACTED) == 0));
	return 0;
}
