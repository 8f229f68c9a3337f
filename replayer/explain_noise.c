/*
 * Which failures are probes: lookups that fail as a matter of course
 * (the dynamic loader's library search, Python's and Node's module search,
 * locale and gconv files, optional configuration) and results that are not
 * failures of the program (EAGAIN, a readlink of something that is no
 * symlink, mkdir of what exists).  The other rule, "the same name was
 * found later at another path", needs the whole run and is in explain.c.
 */
#include "replayer/explain_internal.h"

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

/* Results that say "not now" or "nothing to do" rather than "failed". */
static const char *not_a_failure(const struct xp_finding *f)
{
	static const char *const names[] = { "EAGAIN", "EINTR",	  "EINPROGRESS", "EALREADY",
					     "ECHILD", "EISCONN", "ERESTARTSYS" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (is(f->errname, names[i]))
			return "a result that asks to wait or retry, not a failure";
	if (is(f->errname, "EINVAL") && has(f->syscall, "readlink"))
		return "readlink of a path that is not a symbolic link";
	if (is(f->errname, "EEXIST") && has(f->syscall, "mkdir"))
		return "mkdir of a directory that exists";
	if (is(f->errname, "ENOENT") && (has(f->syscall, "unlink") || is(f->syscall, "rmdir")))
		return "removing what was not there";
	if (is(f->errname, "ENXIO") && is(f->path, "/dev/tty"))
		return "no controlling terminal";
	if ((is(f->errname, "ENOTSOCK") || is(f->errname, "ENOTCONN")) &&
	    (is(f->syscall, "getpeername") || is(f->syscall, "getsockname")))
		return "asking whether a descriptor is a connected socket (bash -c, ssh)";
	if ((is(f->errname, "ENODATA") || is(f->errname, "EOPNOTSUPP")) && has(f->syscall, "xattr"))
		return "an extended attribute the file does not have (ls -l, cp -a)";
	return NULL;
}

/* Search paths of the dynamic loader (ld.so(8)) and shared libraries. */
static bool loader_probe(const char *p)
{
	return is(p, "/etc/ld.so.preload") || has(p, "/glibc-hwcaps/") || has(p, "/tls/") ||
	       has(p, "/haswell/") || has(p, "/x86_64/") || ends(p, ".so") || has(p, ".so.");
}

/* Python's and Node's module search, and their per-user and venv lookups. */
static bool module_probe(const char *p)
{
	return has(p, "/__pycache__/") || ends(p, ".pyc") || has(p, "-packages") ||
	       ends(p, "/pyvenv.cfg") || ends(p, "._pth") || ends(p, "/pybuilddir.txt") ||
	       has(p, "/Modules/Setup") || has(p, "/lib-dynload") || has(p, "/lib/python") ||
	       (has(p, "/python3") && ends(p, ".zip")) || has(p, ".cpython-") ||
	       has(p, "/node_modules/") || ends(p, "/package.json");
}

/* Locale, character sets, time zones and terminal descriptions: optional data files. */
static bool data_probe(const char *p)
{
	return has(p, "/locale/") || has(p, "/locale-archive") || has(p, "/gconv/") ||
	       has(p, "/zoneinfo/") || has(p, "/terminfo/") || has(p, "/.terminfo") ||
	       ends(p, "/.gitconfig") || is(p, "/etc/gitconfig") || has(p, "/.config/git/") ||
	       ends(p, "/.inputrc") || ends(p, "/.bashrc") || ends(p, "/.bash_profile") ||
	       ends(p, "/.profile") || ends(p, "/.bash_login") || has(p, "/.local/share/");
}

void xp_noise_classify(struct xp_finding *f)
{
	const char *why = not_a_failure(f);
	bool lookup = f->op == XP_OP_FIND || f->op == XP_OP_READ || f->op == XP_OP_RUN;
	bool missing = is(f->errname, "ENOENT") || is(f->errname, "ENOTDIR");

	if (why == NULL && lookup && missing && f->path != NULL) {
		if (loader_probe(f->path))
			why = "the dynamic loader's library search";
		else if (module_probe(f->path))
			why = "a module search path";
		else if (data_probe(f->path))
			why = "an optional data or configuration file";
	}
	f->noise = why != NULL;
	f->noise_why = why;
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* nscd and systemd-resolved sockets: glibc tries them first and falls back to DNS. */
static bool resolver_socket(json_t *n)
{
	const char *p = str(n, "path");

	return p != NULL && (has(p, "/nscd/socket") || has(p, "/systemd/resolve/"));
}

/*
 * The syslog socket: syslog(3) (PAM in su, runuser, login; sudo; cron)
 * connects to /dev/log and, when nothing listens, drops the message and
 * goes on; the program does not fail because of it.
 */
static bool syslog_socket(json_t *n)
{
	const char *p = str(n, "path");

	return p != NULL &&
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
static bool later_success(json_t *n, const struct xp_netidx *idx)
{
	char key[600];
	json_t *t;

	if (json_integer_value(json_object_get(n, "port")) == 0 && str(n, "name") == NULL)
		return false;
	conn_key(key, sizeof(key), n, str(n, "name") != NULL);
	t = json_object_get(idx->ok_conn, key);
	return json_is_integer(t) &&
	       json_integer_value(t) >= json_integer_value(json_object_get(n, "t_ns"));
}

/* The same name, or a shorter form of it (a search-list expansion: "db.corp" then "db"), answered. */
static bool answered_elsewhere(json_t *n, const struct xp_netidx *idx)
{
	const char *name = str(n, "name");
	char buf[1100];

	if (name == NULL || strlen(name) >= sizeof(buf))
		return false;
	if (json_object_get(idx->answered, name) != NULL)
		return true;
	for (const char *dot = strchr(name, '.'); dot != NULL; dot = strchr(dot + 1, '.')) {
		memcpy(buf, name, (size_t)(dot - name));
		buf[dot - name] = '\0';
		if (json_object_get(idx->answered, buf) != NULL)
			return true;
	}
	return false;
}

void xp_net_noise(struct xp_finding *f, const struct xp_netidx *idx)
{
	const char *why = NULL;

	if (f->kind == XP_CONNECT && resolver_socket(f->net))
		why = "the resolver trying nscd or systemd-resolved before DNS";
	else if (f->kind == XP_CONNECT && syslog_socket(f->net))
		why = "syslog(3) finding no logging daemon (it drops the message and goes on)";
	else if (f->kind == XP_CONNECT && later_success(f->net, idx))
		why = "another address of the same service answered";
	else if (f->kind == XP_DNS && answered_elsewhere(f->net, idx))
		why = "the same name resolved in another query";
	f->noise = why != NULL;
	f->noise_why = why;
}
