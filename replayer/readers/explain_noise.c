/*
 * Which failures are probes, in one table (rules[] below; docs/explain.md
 * "Probe noise"): results that are not failures of the program (EAGAIN, a
 * readlink of something that is no symlink, mkdir of what exists), lookups
 * that fail as a matter of course wherever the program lives (the dynamic
 * loader's hardware-capability search under any library directory, an
 * interpreter's module search under any prefix, optional configuration),
 * and failures the rest of the run shows to be harmless (the name found
 * later at another path, another address of the service that answered).
 *
 * A rule matches on the shape of the path (its components), not on the
 * prefix it lives under, so a venv, pyenv, conda, /opt or /usr/local
 * interpreter and a loader from another prefix are recognised alike.
 * Each rule looks at one finding: linear in the findings, O(path length)
 * per rule.
 */
#include "replayer/readers/explain_internal.h"
#include "common/sysent.h"
#include "replayer/readers/explain.h"

#include <stdio.h>
#include <string.h>

static bool has(const char *s, const char *needle)
{
	return s != NULL && strstr(s, needle) != NULL;
}

static bool ends(const char *s, const char *suffix)
{
	size_t n = s != NULL ? strlen(s) : 0, m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is(const char *a, const char *b)
{
	return a != NULL && strcmp(a, b) == 0;
}

static bool starts(const char *s, const char *prefix)
{
	return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool in_list(const char *s, size_t n, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == n && strncmp(s, *list, n) == 0)
			return true;
	return false;
}

/* The final component of p (p itself without a slash). */
static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s != NULL ? s + 1 : p;
}

/* Whether p has a whole component equal to name ("/a/NAME/b", "/a/NAME"). */
static bool has_component(const char *p, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = strchr(p, '/'); s != NULL; s = strchr(s + 1, '/'))
		if (strncmp(s + 1, name, n) == 0 && (s[1 + n] == '/' || s[1 + n] == '\0'))
			return true;
	return false;
}

/* ---- the finding's shape ---- */

static bool is_lookup(const struct xp_finding *f)
{
	return f->op == XP_OP_FIND || f->op == XP_OP_READ || f->op == XP_OP_RUN;
}

static bool is_missing(const struct xp_finding *f)
{
	return is(f->errname, "ENOENT") || is(f->errname, "ENOTDIR");
}

/* A failed lookup of a path that is not there: what searches and optional probes make. */
static bool missing_lookup(const struct xp_finding *f)
{
	return f->path != NULL && is_lookup(f) && is_missing(f);
}

static bool is_file(const struct xp_finding *f)
{
	return f->kind == XP_FILE || f->kind == XP_EXEC;
}

/* ---- results that are not failures ---- */

static bool retry_result(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	static const char *const names[] = { "EAGAIN",	    "EINTR",	      "EINPROGRESS",
					     "EALREADY",    "ECHILD",	      "EISCONN",
					     "ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND",
					     NULL };

	return f->kind != XP_CONNECT && f->kind != XP_BIND && f->kind != XP_DNS &&
	       f->errname != NULL && in_list(f->errname, strlen(f->errname), names);
}

/* The table's op of the call named sc (common/sysent.h); NONE for one it does not know. */
static enum repro_sys_op op_of(const char *sc)
{
	const struct repro_sysent *s = repro_sysent_find(sc);

	return s != NULL ? s->op : REPRO_OP_NONE;
}

static bool readlink_not_symlink(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return is(f->errname, "EINVAL") && op_of(f->syscall) == REPRO_OP_READLINK;
}

static bool mkdir_exists(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return is(f->errname, "EEXIST") && op_of(f->syscall) == REPRO_OP_MKDIR;
}

static bool remove_missing(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return is(f->errname, "ENOENT") && op_of(f->syscall) == REPRO_OP_DELETE;
}

static bool no_tty(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return is(f->errname, "ENXIO") && is(f->path, "/dev/tty");
}

static bool socket_query(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return (is(f->errname, "ENOTSOCK") || is(f->errname, "ENOTCONN")) &&
	       repro_sysent_find(f->syscall) != NULL &&
	       repro_sysent_find(f->syscall)->net == REPRO_NET_NAME;
}

static bool xattr_absent(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const struct repro_sysent *s = repro_sysent_find(f->syscall);

	return (is(f->errname, "ENODATA") || is(f->errname, "EOPNOTSUPP")) && s != NULL &&
	       (s->flags & REPRO_SYSF_XATTR);
}

/* ---- a URL taken for a path ---- */

/* "https://…", "git+ssh://…", "file://…": a scheme ([a-z][a-z0-9+.-]*), a colon, then "//". */
static bool looks_like_url(const char *s)
{
	const char *c = s;

	if (s == NULL || *s < 'a' || *s > 'z')
		return false;
	while ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '+' || *c == '-' ||
	       *c == '.')
		c++;
	return c[0] == ':' && c[1] == '/' && c[2] == '/';
}

const char *xp_url_host(const char *s, char *buf, size_t cap)
{
	const char *h, *at;
	size_t n;

	if (!looks_like_url(s))
		return NULL;
	h = strstr(s, "://") + 3;
	n = strcspn(h, "/?#");
	at = memchr(h, '@', n);
	if (at != NULL) { /* user:password@host: the host only */
		n -= (size_t)(at + 1 - h);
		h = at + 1;
	}
	if (*h == '[') { /* [v6]:port */
		const char *close = memchr(h, ']', n);

		n = close != NULL ? (size_t)(close - h) + 1 : n;
	} else {
		n = strcspn(h, ":/?#");
	}
	if (n == 0 || n >= cap)
		return NULL;
	memcpy(buf, h, n);
	buf[n] = '\0';
	return buf;
}

/*
 * A find or read (stat, access, open without O_CREAT or write) that missed
 * of a path the program wrote as a URL: pip, git, curl and others first ask
 * whether an argument names a local file or directory ("https://pypi.org/
 * simple/requests/" resolved under the cwd), then treat it as a URL.  The
 * path as written when the recorder kept it, else the path (canonical
 * paths have no "//", so only a path written so matches).
 */
static bool url_as_path(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return f->path != NULL && (f->op == XP_OP_FIND || f->op == XP_OP_READ) && is_missing(f) &&
	       looks_like_url(f->path_as_written != NULL ? f->path_as_written : f->path);
}

/* ---- the dynamic loader (ld.so(8)) ---- */

/* Subdirectories ld.so tries under each library directory (hwcaps, legacy platforms). */
static bool is_hwcap_name(const char *s, size_t n)
{
	static const char *const names[] = {
		"glibc-hwcaps", "tls",	"haswell", "xeon_phi", "avx512_1", "x86_64",
		"i686",		"i586", "sse2",	   "aarch64",  "atomics",  "power9",
		"power10",	"z13",	"z14",	   "z15",      "z16",	   NULL,
	};

	return in_list(s, n, names);
}

/* "libc.so.6", "libpython3.11.so.1.0", "libfoo.so": a shared object's name. */
static bool is_library_name(const char *b)
{
	const char *so = strstr(b, ".so");

	return so != NULL && so != b && (so[3] == '\0' || so[3] == '.');
}

/*
 * DIR/{hwcap/…}[/LIB]: every component after the library directory a
 * hardware-capability name ("glibc-hwcaps/NAME" counts as one), then
 * optionally a shared object's name.  Under any library directory
 * (RPATH, RUNPATH, LD_LIBRARY_PATH, a pyenv or conda lib/).
 */
static bool loader_hwcaps(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *end, *p = f->path;
	size_t hw = 0;

	if (!missing_lookup(f))
		return false;
	end = p + strlen(p);
	if (is_library_name(base_of(p)))
		end = base_of(p) - 1;
	while (end > p) {
		const char *s = end - 1;

		while (s > p && *s != '/')
			s--;
		if (is_hwcap_name(s + 1, (size_t)(end - s - 1))) {
			hw++;
		} else if (s > p && end - s - 1 > 0) {
			/* "glibc-hwcaps/x86-64-v3": the component before is glibc-hwcaps */
			const char *t = s - 1;

			while (t > p && *t != '/')
				t--;
			if (s - t - 1 == 12 && strncmp(t + 1, "glibc-hwcaps", 12) == 0) {
				hw++;
				end = t;
				continue;
			}
			break;
		} else {
			break;
		}
		end = s;
	}
	return hw > 0;
}

static bool loader_config(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return missing_lookup(f) &&
	       (is(base_of(f->path), "ld.so.preload") || is(base_of(f->path), "ld.so.cache"));
}

static bool shared_library(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return missing_lookup(f) && is_library_name(base_of(f->path));
}

/* ---- interpreters' module search ---- */

/* Python's bytecode cache (PEP 3147): looked up, and written when it can be. */
static bool is_bytecode(const char *p)
{
	const char *b = base_of(p);
	const char *pyc = strstr(b, ".pyc");

	return has_component(p, "__pycache__") ||
	       (pyc != NULL && (pyc[4] == '\0' || pyc[4] == '.' /* "x.pyc.1403" temp */));
}

/*
 * Python does without its bytecode cache: a lookup that misses, and a
 * write that is refused (a read-only or root-owned venv), are both ignored
 * (importlib's _bootstrap_external.SourceLoader.set_data).  A full disk
 * stays a finding: it breaks more than the cache.
 */
static bool python_bytecode(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	if (f->path == NULL || !is_file(f) || !is_bytecode(f->path))
		return false;
	return missing_lookup(f) || ((f->op == XP_OP_CREATE || f->op == XP_OP_WRITE) &&
				     (is(f->errname, "EACCES") || is(f->errname, "EPERM") ||
				      is(f->errname, "EROFS") || is_missing(f)));
}

/* The candidates importlib tries for a module NAME in each directory of sys.path. */
static bool python_module(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *p = f->path, *b;

	if (!missing_lookup(f))
		return false;
	b = base_of(p);
	return starts(b, "__init__.") || has(b, ".abi3.so") || has(b, ".cpython-") ||
	       (starts(b, "python3") && ends(b, ".zip")) || has_component(p, "lib-dynload") ||
	       has(p, "/lib/python3") || has(p, "/lib/python2") || has(p, "/lib64/python3");
}

/*
 * site.py and getpath: the prefix, venv and .pth search at start-up (a
 * .pth only under a site or dist-packages directory: model.pth is data).
 */
static bool python_site(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *p = f->path, *b;

	if (!missing_lookup(f))
		return false;
	b = base_of(p);
	return has(p, "-packages") || ends(b, "._pth") || is(b, "pyvenv.cfg") ||
	       is(b, "pybuilddir.txt") || has(p, "/Modules/Setup");
}

static bool node_module(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return missing_lookup(f) &&
	       (has_component(f->path, "node_modules") || is(base_of(f->path), "package.json"));
}

/*
 * Version managers' shims (pyenv, rbenv, nodenv, asdf): a bash script that
 * looks for a version file in every directory up to /, runs the hooks
 * found in its hook directories, and tries a loadable realpath builtin.
 */
static bool version_shim(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	static const char *const names[] = { ".python-version",
					     ".ruby-version",
					     ".node-version",
					     ".tool-versions",
					     "pyenv-realpath.dylib",
					     "rbenv-realpath.dylib",
					     NULL };
	const char *p = f->path, *b;

	if (!missing_lookup(f))
		return false;
	b = base_of(p);
	return in_list(b, strlen(b), names) || has(p, "env.d/") || has(p, "/pyenv/hooks/") ||
	       has(p, "/rbenv/hooks/") || has(p, "/nodenv/hooks/");
}

/* ---- optional data and configuration ---- */

static bool locale_data(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *p = f->path;

	return missing_lookup(f) &&
	       (has_component(p, "locale") || has_component(p, "locale-langpack") ||
		is(base_of(p), "locale-archive") || has_component(p, "gconv") ||
		has_component(p, "zoneinfo") || has_component(p, "terminfo") ||
		has_component(p, ".terminfo") || is(base_of(p), "locale.alias"));
}

static bool shell_config(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	static const char *const names[] = { ".inputrc", ".bashrc",	".bash_profile",
					     ".profile", ".bash_login", ".bash_logout",
					     NULL };
	const char *b;

	if (!missing_lookup(f))
		return false;
	b = base_of(f->path);
	return in_list(b, strlen(b), names) || has(f->path, "/.local/share/");
}

/* Tools' optional start-up files: read when they exist (curl(1) .curlrc, wget(1) .wgetrc …). */
static bool tool_config(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	static const char *const names[] = { ".curlrc", "_curlrc",   "curlrc",		 ".wgetrc",
					     "wgetrc",	".sqliterc", ".psqlrc",		 ".digrc",
					     ".nanorc", "pip.conf",  ".pydistutils.cfg", NULL };
	const char *b;

	if (!missing_lookup(f))
		return false;
	b = base_of(f->path);
	return in_list(b, strlen(b), names);
}

/* SELinux and other security modules' markers: libselinux asks whether SELinux is on. */
static bool lsm_marker(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *p = f->path;

	if (p == NULL || !is_lookup(f) || !(is_missing(f) || is(f->errname, "EACCES")))
		return false;
	return is(p, "/selinux") || starts(p, "/selinux/") || starts(p, "/sys/fs/selinux") ||
	       starts(p, "/etc/selinux/") || starts(p, "/sys/kernel/security/") ||
	       (starts(p, "/proc/") && has(p, "/attr/"));
}

/* ~/.netrc, _netrc: curl, git, python's netrc, ftp read it when it exists. */
static bool netrc(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return missing_lookup(f) &&
	       (is(base_of(f->path), ".netrc") || is(base_of(f->path), "_netrc"));
}

static bool dev_log(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return missing_lookup(f) && is(f->path, "/dev/log");
}

/* Optional configuration of TLS and crypto libraries (gnutls, libgcrypt, OpenSSL, FIPS). */
static bool crypto_config(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *p = f->path;

	return missing_lookup(f) &&
	       (has_component(p, "gnutls") || has_component(p, "gcrypt") ||
		has_component(p, "crypto-policies") || is(p, "/proc/sys/crypto/fips_enabled") ||
		is(base_of(p), "openssl.cnf") || is(base_of(p), "fipsmodule.cnf"));
}

/* systemd's userdb (nss-systemd, userdbctl): directories that exist where it is used. */
static bool userdb(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return missing_lookup(f) && has_component(f->path, "userdb");
}

static bool git_config(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *p = f->path;

	return missing_lookup(f) &&
	       (is(base_of(p), ".gitconfig") || is(p, "/etc/gitconfig") || has(p, "/.config/git/"));
}

/* git's own process: its name starts with "git" (git, git-remote-https, git-upload-pack). */
static bool is_git(const struct xp_noise_ctx *c)
{
	return c != NULL && starts(c->program, "git");
}

/*
 * git's repository discovery (setup.c: walk up from the working directory,
 * trying DIR/.git and the bare-repository markers DIR/HEAD, objects, refs,
 * commondir) and the optional files of a repository (packed-refs, shallow,
 * alternates, commit-graph, hooks, grafts, logs, bundle-URI state under
 * .git), which git reads when they exist.  A missing file git was asked
 * for (a bundle to unbundle, a path to add) has none of these shapes.
 */
static bool git_repository(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	static const char *const markers[] = { "HEAD",	 "objects",	"refs", "commondir",
					       "gitdir", "packed-refs", NULL };
	const char *b;

	if (!missing_lookup(f) || !is_git(c))
		return false;
	b = base_of(f->path);
	return has_component(f->path, ".git") || in_list(b, strlen(b), markers) ||
	       has(f->path, "/objects/info/") || has(f->path, "/objects/pack/") ||
	       has_component(f->path, "hooks");
}

/* ---- what the rest of the run shows ---- */

static bool found_later(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return c != NULL && c->found_later != NULL && f->path != NULL && is_lookup(f) &&
	       c->found_later(c->run, f);
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/*
 * A permission check (access(2), faccessat) that said no, after which the
 * process used the same path with success: it asked and went on without
 * the permission it asked about (bash's `. venv/bin/activate` asks X_OK,
 * then reads the file).
 */
static bool checked_then_used(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const struct repro_sysent *s = f->syscall != NULL ? repro_sysent_find(f->syscall) : NULL;

	return c != NULL && c->used_later != NULL && f->path != NULL && s != NULL &&
	       repro_sysent_arg_of(s, RA_AMODE) >= 0 &&
	       (is(f->errname, "EACCES") || is(f->errname, "EPERM")) && c->used_later(c->run, f);
}

/*
 * A lookup that missed of system configuration or run-time state (/etc,
 * /run) by a program that then handed over (exec'd another, or passed on
 * the status of the child it started): a wrapper's optional
 * settings (runuser's /etc/default/runuser, a container check of
 * /run/host), looked for and done without before it handed over.
 */
static bool wrapper_probe(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	return c != NULL && c->handed_over != NULL && f->path != NULL && missing_lookup(f) &&
	       (strncmp(f->path, "/etc/", 5) == 0 || strncmp(f->path, "/run/", 5) == 0 ||
		strncmp(f->path, "/var/run/", 9) == 0) &&
	       c->handed_over(c->run, f);
}

/* nscd and systemd-resolved sockets: glibc tries them first and falls back to DNS. */
static bool resolver_socket(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *p = str(f->net, "path");

	return f->kind == XP_CONNECT && p != NULL &&
	       (has(p, "/nscd/socket") || has(p, "/systemd/resolve/"));
}

/*
 * The syslog socket: syslog(3) (PAM in su, runuser, login; sudo; cron)
 * connects to /dev/log and, when nothing listens, drops the message and
 * goes on; the program does not fail because of it.
 */
static bool syslog_socket(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *p = str(f->net, "path");

	return f->kind == XP_CONNECT && p != NULL &&
	       (strcmp(p, "/dev/log") == 0 || strcmp(p, "/run/systemd/journal/dev-log") == 0 ||
		strcmp(p, "/run/systemd/journal/socket") == 0);
}

/* key "PID|PORT" or "PID|NAME" for the index of connects that worked */
static void conn_key(char *buf, size_t cap, json_t *n, bool by_name)
{
	if (by_name)
		snprintf(buf, cap, "%" JSON_INTEGER_FORMAT "|%s",
			 json_integer_value(json_object_get(n, "pid")), str(n, "name"));
	else
		snprintf(buf, cap, "%" JSON_INTEGER_FORMAT "|%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(n, "pid")),
			 json_integer_value(json_object_get(n, "port")));
}

void xp_netidx_add(struct xp_netidx *idx, json_t *n)
{
	char key[600];

	if (is(str(n, "kind"), "dns") && is(str(n, "outcome"), "answered") &&
	    str(n, "name") != NULL) {
		json_object_set_new(idx->answered, str(n, "name"), json_true());
		return;
	}
	if (!is(str(n, "kind"), "attempt") || !is(str(n, "outcome"), "connected"))
		return;
	for (int by_name = 0; by_name < 2; by_name++) {
		if (by_name && str(n, "name") == NULL)
			break;
		conn_key(key, sizeof(key), n, by_name);
		json_object_set(idx->ok_conn, key, json_object_get(n, "t_ns"));
	}
}

/* Another attempt of the same process to the same name (or port) that worked, after n. */
static bool other_address(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	char key[600];
	json_t *t, *n = f->net;

	if (f->kind != XP_CONNECT || c == NULL || c->net == NULL ||
	    (json_integer_value(json_object_get(n, "port")) == 0 && str(n, "name") == NULL))
		return false;
	conn_key(key, sizeof(key), n, str(n, "name") != NULL);
	t = json_object_get(c->net->ok_conn, key);
	return json_is_integer(t) &&
	       json_integer_value(t) >= json_integer_value(json_object_get(n, "t_ns"));
}

/* The same name, or a shorter form of it (a search-list expansion: "db.corp" then "db"), answered. */
static bool name_answered(const struct xp_finding *f, const struct xp_noise_ctx *c)
{
	const char *name = str(f->net, "name");
	char buf[1100];

	if (f->kind != XP_DNS || c == NULL || c->net == NULL || name == NULL ||
	    strlen(name) >= sizeof(buf))
		return false;
	if (json_object_get(c->net->answered, name) != NULL)
		return true;
	for (const char *dot = strchr(name, '.'); dot != NULL; dot = strchr(dot + 1, '.')) {
		memcpy(buf, name, (size_t)(dot - name));
		buf[dot - name] = '\0';
		if (json_object_get(c->net->answered, buf) != NULL)
			return true;
	}
	return false;
}

/* ---- the table ---- */

enum { FOR_FILES = 1, FOR_NET = 2 };

/*
 * Every rule, first match wins.  id: the rule's name in `explain --all`
 * and --json (noise_rule); why: the words after it.  Each has a test in
 * tests/unit/replayer/test_explain.c (test_noise_rules checks that every
 * rule here has one).
 */
static const struct xp_noise_rule rules[] = {
	{ "retry_result", "a result that asks to wait or retry, not a failure", FOR_FILES,
	  retry_result },
	{ "readlink_not_symlink", "readlink of a path that is not a symbolic link", FOR_FILES,
	  readlink_not_symlink },
	{ "mkdir_exists", "mkdir of a directory that exists", FOR_FILES, mkdir_exists },
	{ "remove_missing", "removing what was not there", FOR_FILES, remove_missing },
	{ "no_tty", "no controlling terminal", FOR_FILES, no_tty },
	{ "socket_query", "asking whether a descriptor is a connected socket (bash -c, ssh)",
	  FOR_FILES, socket_query },
	{ "xattr_absent", "an extended attribute the file does not have (ls -l, cp -a)", FOR_FILES,
	  xattr_absent },
	{ "url_as_path",
	  "a URL looked up as a local path first (pip, git, curl ask whether it names a file)",
	  FOR_FILES, url_as_path },
	{ "loader_hwcaps",
	  "the dynamic loader's search of hardware-capability subdirectories (ld.so(8))", FOR_FILES,
	  loader_hwcaps },
	{ "loader_config", "the dynamic loader's optional ld.so.preload or ld.so.cache", FOR_FILES,
	  loader_config },
	{ "python_bytecode", "Python's bytecode cache (__pycache__, *.pyc): optional", FOR_FILES,
	  python_bytecode },
	{ "python_site", "Python's prefix, venv and site-packages search at start-up", FOR_FILES,
	  python_site },
	{ "python_module", "Python's module search (each directory of sys.path)", FOR_FILES,
	  python_module },
	{ "node_module", "Node's module search (node_modules, package.json)", FOR_FILES,
	  node_module },
	{ "version_shim", "a version manager's shim (pyenv, rbenv, asdf) searching for its files",
	  FOR_FILES, version_shim },
	{ "locale_data", "optional locale, character set, time zone or terminal data", FOR_FILES,
	  locale_data },
	{ "shell_config", "an optional shell start-up file", FOR_FILES, shell_config },
	{ "tool_config", "an optional start-up file of a tool (.curlrc, .wgetrc, pip.conf …)",
	  FOR_FILES, tool_config },
	{ "lsm_marker", "asking whether SELinux or another security module is active", FOR_FILES,
	  lsm_marker },
	{ "netrc", "an optional ~/.netrc (credentials read when present)", FOR_FILES, netrc },
	{ "dev_log", "looking for the syslog socket", FOR_FILES, dev_log },
	{ "crypto_config", "optional TLS or crypto library configuration", FOR_FILES,
	  crypto_config },
	{ "userdb", "systemd's optional userdb directories", FOR_FILES, userdb },
	{ "git_config", "an optional git configuration file", FOR_FILES, git_config },
	{ "git_repository",
	  "git's repository discovery and optional repository files (read when present)", FOR_FILES,
	  git_repository },
	{ "shared_library", "a shared library search (ld.so(8), dlopen(3))", FOR_FILES,
	  shared_library },
	{ "found_later", "found later at another path (a search)", FOR_FILES, found_later },
	{ "wrapper_probe",
	  "a wrapper's optional system settings, missing (runuser, su, env hand over to a program)",
	  FOR_FILES, wrapper_probe },
	{ "checked_then_used",
	  "a permission check said no, and the process then used the path all the same", FOR_FILES,
	  checked_then_used },
	{ "resolver_socket", "the resolver trying nscd or systemd-resolved before DNS", FOR_NET,
	  resolver_socket },
	{ "syslog_socket", "syslog(3) finding no logging daemon (it drops the message and goes on)",
	  FOR_NET, syslog_socket },
	{ "other_address", "another address of the same service answered", FOR_NET, other_address },
	{ "name_answered", "the same name resolved in another query", FOR_NET, name_answered },
};

const struct xp_noise_rule *xp_noise_rules(size_t *n)
{
	*n = sizeof(rules) / sizeof(rules[0]);
	return rules;
}

void xp_noise_classify(struct xp_finding *f, const struct xp_noise_ctx *ctx)
{
	bool net = f->kind == XP_CONNECT || f->kind == XP_BIND || f->kind == XP_DNS;

	f->noise = false;
	f->noise_why = NULL;
	f->noise_rule = NULL;
	if (f->filter_denied)
		return; /* a policy said no: never a probe */
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (!(rules[i].applies & (net ? FOR_NET : FOR_FILES)) || !rules[i].match(f, ctx))
			continue;
		f->noise = true;
		f->noise_why = rules[i].why;
		f->noise_rule = rules[i].id;
		return;
	}
}

/* Directories of the system rather than of a program (a sweep's points leave them out). */
static bool in_system_dir(const char *p)
{
	static const char *const dirs[] = { "/proc",  "/sys",	 "/dev", "/usr",  "/lib", "/lib32",
					    "/lib64", "/libx32", "/bin", "/sbin", "/etc" };
	static const char *const own[] = { "/usr/local", "/usr/src" }; /* where programs live */

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		size_t n = strlen(own[i]);

		if (strncmp(p, own[i], n) == 0 && (p[n] == '/' || p[n] == '\0'))
			return false;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t n = strlen(dirs[i]);

		if (strncmp(p, dirs[i], n) == 0 && (p[n] == '/' || p[n] == '\0'))
			return true;
	}
	return false;
}

const char *rpl_explain_system_path(const char *path)
{
	struct xp_finding f = { .kind = XP_FILE,
				.op = XP_OP_READ,
				.fd = -1,
				.syscall =
					NULL, /* any open: the noise rules of paths read no name */
				.path = (char *)path,
				.errname = (char *)"ENOENT" };

	if (path == NULL || path[0] != '/')
		return NULL;
	if (in_system_dir(path))
		return "system_directory";
	xp_noise_classify(&f, NULL);
	return f.noise ? f.noise_rule : NULL;
}
