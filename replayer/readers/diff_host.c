/*
 * host.json differences for `repro diff` (docs/diff.md "Host"): ids,
 * capabilities, environment, rlimits, umask, DNS configuration, kernel
 * settings, kernel and distribution, mounts, sandbox.  Free space and the
 * host name are not compared (they differ between any two runs).
 */
#include "replayer/readers/diff_internal.h"
#include "replayer/readers/show_internal.h"
#include "bundles/json_util.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Variables the shell sets for every run (bash(1) "Shell Variables"): the
 * working directory, the previous one, the nesting level, the last
 * command.  They differ between any two runs and are not compared.
 */
static bool run_noise(const char *name)
{
	static const char *const names[] = { "PWD",	"OLDPWD", "SHLVL",   "_",	"LINES",
					     "COLUMNS", "RANDOM", "SECONDS", "HISTCMD", NULL };

	for (size_t i = 0; names[i] != NULL; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Environment variables that differ between any two sessions and mean nothing for a program. */
static bool session_noise(const char *name)
{
	static const char *const names[] = {
		"PWD",	     "OLDPWD",	      "SHLVL",		"_",
		"DISPLAY",   "WINDOWID",      "COLORTERM",	"TERM",
		"LS_COLORS", "MAIL",	      "LOGNAME",	"TMUX",
		"TMUX_PANE", "STY",	      "WINDOW",		"SUDO_COMMAND",
		"HISTFILE",  "INVOCATION_ID", "JOURNAL_STREAM", "MOTD_SHOWN",
		NULL
	};
	static const char *const prefixes[] = { "SSH_", "XDG_",	  "DBUS_", "GPG_",     "TERM_",
						"VTE_", "GNOME_", "KDE_",  "WAYLAND_", NULL };

	for (size_t i = 0; names[i] != NULL; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	for (size_t i = 0; prefixes[i] != NULL; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* A JSON value as short text for a report line (a new string). */
static char *value_text(json_t *v)
{
	char *t;

	if (v == NULL)
		return repro_xstrdup("(none)");
	if (json_is_string(v))
		return repro_xstrdup(json_string_value(v));
	t = bndl_json_text(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	return t != NULL ? t : repro_xstrdup("?");
}

/* One fact that differs: "what: A vs B", unless equal. */
static void fact(struct df_items *it, double score, const char *what, json_t *a, json_t *b)
{
	char *ta, *tb;

	if (json_equal(a, b) || (a == NULL && b == NULL))
		return;
	ta = value_text(a);
	tb = value_text(b);
	df_items_add(it, "host", score,
		     repro_xasprintf("%s: %.200s in A, %.200s in B", what, ta, tb),
		     json_pack("{s:s,s:O?,s:O?}", "what", what, "a", a, "b", b));
	free(ta);
	free(tb);
}

static json_t *at(json_t *o, const char *k1, const char *k2)
{
	json_t *v = json_object_get(o, k1);

	return k2 != NULL ? json_object_get(v, k2) : v;
}

static void environment(struct df_items *it, json_t *ea, json_t *eb)
{
	const char *name;
	json_t *va;

	json_object_foreach (ea, name, va) {
		json_t *vb = json_object_get(eb, name);
		double score = session_noise(name) ? 20 : 80;
		char *what;

		if (strcmp(name, "HOME") == 0 || run_noise(name) ||
		    (vb != NULL && json_equal(va, vb)))
			continue;
		what = repro_xasprintf("environment %s", name);
		if (vb == NULL)
			df_items_add(it, "host", score,
				     repro_xasprintf("environment: %s is set in A, not in B", name),
				     json_pack("{s:s,s:O,s:n}", "what", what, "a", va, "b"));
		else
			fact(it, score, what, va, vb);
		free(what);
	}
	json_object_foreach (eb, name, va) {
		char *what;

		if (json_object_get(ea, name) != NULL || run_noise(name))
			continue;
		what = repro_xasprintf("environment %s", name);
		df_items_add(it, "host", session_noise(name) ? 20 : 80,
			     repro_xasprintf("environment: %s is set in B, not in A", name),
			     json_pack("{s:s,s:n,s:O}", "what", what, "a", "b", va));
		free(what);
	}
}

/* The last entry of each mount point (a mount point may be mounted over). */
static json_t *mount_index(json_t *mounts)
{
	json_t *index = json_object(), *m;
	size_t i;

	json_array_foreach (mounts, i, m)
		if (bndl_json_str(m, "mount_point") != NULL)
			json_object_set(index, bndl_json_str(m, "mount_point"), m);
	return index;
}

/* Mounts by mount point present on both sides with another fstype or options. */
static void mounts(struct df_items *it, json_t *ma, json_t *mb)
{
	json_t *ia = mount_index(ma), *ib = mount_index(mb), *m;
	const char *mp;

	json_object_foreach (ia, mp, m) {
		json_t *other = json_object_get(ib, mp), *va, *vb;
		char *what;

		if (other == NULL)
			continue;
		va = json_pack("{s:O?,s:O?}", "fstype", json_object_get(m, "fstype"), "options",
			       json_object_get(m, "options"));
		vb = json_pack("{s:O?,s:O?}", "fstype", json_object_get(other, "fstype"), "options",
			       json_object_get(other, "options"));
		what = repro_xasprintf("mount %s", mp);
		fact(it, 25, what, va, vb);
		json_decref(va);
		json_decref(vb);
		free(what);
	}
	json_decref(ia);
	json_decref(ib);
}

void df_host_compare(const struct df_side *a, const struct df_side *b, struct df_items *it)
{
	json_t *ha = a->host, *hb = b->host;
	static const struct {
		const char *k1, *k2, *what;
		double score;
	} facts[] = {
		{ "uid", NULL, "uid", 92 },
		{ "gid", NULL, "gid", 92 },
		{ "euid", NULL, "euid", 92 },
		{ "groups", NULL, "groups", 60 },
		{ "capabilities", "effective", "effective capabilities", 84 },
		{ "capabilities", "bounding", "capability bounding set", 40 },
		{ "umask", NULL, "umask", 60 },
		{ "rlimits", NULL, "rlimits", 40 },
		{ "dns", "resolv_conf", "resolv.conf", 50 },
		{ "dns", "nsswitch_hosts", "nsswitch.conf hosts", 50 },
		{ "kernel_settings", NULL, "kernel settings", 35 },
		{ "kernel", "release", "kernel", 30 },
		{ "distribution", "pretty_name", "distribution", 30 },
		{ "arch", NULL, "architecture", 30 },
		{ "sandbox", NULL, "sandbox", 20 },
	};

	if (ha == NULL || hb == NULL) {
		if (ha !=
		    hb) /* one side was recorded by an older repro, or its host.json was lost */
			df_items_add(
				it, "host", 5,
				repro_xasprintf("host.json: only in %s; host facts not compared",
						ha != NULL ? "A" : "B"),
				json_pack("{s:s}", "what", "host.json missing"));
		return;
	}
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		fact(it, facts[i].score, facts[i].what, at(ha, facts[i].k1, facts[i].k2),
		     at(hb, facts[i].k1, facts[i].k2));
	environment(it, json_object_get(ha, "environment"), json_object_get(hb, "environment"));
	mounts(it, json_object_get(ha, "mounts"), json_object_get(hb, "mounts"));
}
