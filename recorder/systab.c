#include "recorder/systab.h"
#include "launcher/abi.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#define A(kind, key)           \
	{                      \
		RA_##kind, key \
	}
#define SC(sname, cls, ...) { .name = #sname, .classes = REC_CLASS_##cls, .args = { __VA_ARGS__ } },
static struct rec_sys table[] = {
#include "recorder/sys/table.def"
};
#undef SC
#undef A

#define NR_MAX 1024
#define MAX_ABIS 4
/* A number libseccomp has no name for (cached so it is asked once); only its address is used. */
static const char no_name_marker;
#define NO_NAME ((char *)&no_name_marker)

struct rec_systab {
	uint32_t arch[MAX_ABIS];
	size_t nabis;
	const struct rec_sys *by_nr[MAX_ABIS][NR_MAX];
	/*
	 * Names by number, resolved on first use (libseccomp scans its table
	 * for each number: resolving all 1024 x ABIs up front cost ~24 million
	 * instructions at every start).  Allocated once; NO_NAME marks a
	 * number libseccomp does not know.
	 */
	char *(*names)[NR_MAX];
};

const struct rec_sys *rec_systab_entries(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

static bool is_named(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Calls that change what their path names (opens decide by their flags). */
static bool is_modifying(const char *name)
{
	static const char *const names[] = {
		"creat",     "mkdir",	  "mkdirat",   "unlink",      "unlinkat",     "rmdir",
		"rename",    "renameat",  "renameat2", "link",	      "linkat",	      "symlink",
		"symlinkat", "chmod",	  "fchmodat",  "chown",	      "lchown",	      "fchownat",
		"truncate",  "utimensat", "mknod",     "mknodat",     "utime",	      "utimes",
		"futimesat", "setxattr",  "lsetxattr", "removexattr", "lremovexattr",
	};

	return is_named(name, names, sizeof(names) / sizeof(names[0]));
}

/* Calls that act on a final symlink itself rather than on what it names (path_resolution(7)). */
static bool is_nofollow(const char *name)
{
	static const char *const names[] = {
		"lstat",     "readlink", "readlinkat", "unlink",     "unlinkat", "rmdir",
		"rename",    "renameat", "renameat2",  "link",	     "linkat",	 "symlink",
		"symlinkat", "mkdir",	 "mkdirat",    "mknod",	     "mknodat",	 "lchown",
		"umount2",   "chroot",	 "pivot_root", "move_mount",
	};

	return is_named(name, names, sizeof(names) / sizeof(names[0]));
}

/*
 * Calls after which a directory path may name something else: the
 * recorder's cache of canonical directories starts over (recorder/pathres.h).
 */
static bool is_reshaping(const char *name)
{
	static const char *const names[] = {
		"unlink",  "unlinkat",	 "rmdir",      "rename", "renameat", "renameat2", "mount",
		"umount2", "pivot_root", "move_mount", "chroot", "unshare",  "setns",
	};

	return is_named(name, names, sizeof(names) / sizeof(names[0]));
}

static enum rec_net_role net_role(const char *name)
{
	if (strcmp(name, "socket") == 0 || strcmp(name, "accept") == 0 ||
	    strcmp(name, "accept4") == 0)
		return REC_NET_NEWFD;
	if (strcmp(name, "connect") == 0)
		return REC_NET_CONNECT;
	if (strcmp(name, "sendto") == 0 || strcmp(name, "sendmsg") == 0 ||
	    strcmp(name, "sendmmsg") == 0)
		return REC_NET_SEND;
	if (strcmp(name, "close") == 0)
		return REC_NET_CLOSE;
	if (strcmp(name, "socketpair") == 0)
		return REC_NET_NEWPAIR;
	if (strncmp(name, "recv", 4) == 0)
		return REC_NET_RECV;
	return REC_NET_NONE;
}

/* Sends, receives and sendfile: the table's hot calls, kept when they fail. */
static bool is_failure_only(const char *name)
{
	return strncmp(name, "send", 4) == 0 || strncmp(name, "recv", 4) == 0;
}

/*
 * Fill nargs, no_return, modifies, net_role, is_failure_only, the flag
 * indexes and path traits once; the table is otherwise constant.  Linear in the table's size.
 */
static void table_finish(void)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct rec_sys *s = &table[i];

		s->nargs = 0;
		while (s->nargs < 6 && s->args[s->nargs].kind != RA_NONE)
			s->nargs++;
		s->no_return = strcmp(s->name, "exit") == 0 || strcmp(s->name, "exit_group") == 0;
		s->modifies = is_modifying(s->name);
		s->net_role = net_role(s->name);
		s->is_failure_only = is_failure_only(s->name);
		s->is_nofollow = is_nofollow(s->name);
		s->reshapes = is_reshaping(s->name);
		s->oflags_arg = -1;
		s->atflags_arg = -1;
		for (int a = 0; a < s->nargs; a++) {
			if (s->args[a].kind == RA_OFLAGS)
				s->oflags_arg = a;
			if (s->args[a].kind == RA_ATFLAGS)
				s->atflags_arg = a;
		}
	}
}

static void load_abi(struct rec_systab *t, size_t abi)
{
	uint32_t arch = t->arch[abi];

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		int nr = seccomp_syscall_resolve_name_arch(arch, table[i].name);

		if (nr >= 0 && nr < NR_MAX)
			t->by_nr[abi][nr] = &table[i];
	}
}

struct rec_systab *rec_systab_new(void)
{
	struct rec_systab *t = repro_xcalloc(1, sizeof(*t));

	t->names = repro_xcalloc(MAX_ABIS, sizeof(*t->names));
	table_finish();
	t->nabis = lnch_arch_filter_arches(t->arch, MAX_ABIS);
	for (size_t a = 0; a < t->nabis; a++)
		load_abi(t, a);
	return t;
}

void rec_systab_free(struct rec_systab *t)
{
	if (t == NULL)
		return;
	for (size_t a = 0; a < t->nabis; a++)
		for (int nr = 0; nr < NR_MAX; nr++)
			if (t->names[a][nr] != NO_NAME)
				free(t->names[a][nr]);
	free(t->names);
	free(t);
}

static int abi_index(const struct rec_systab *t, uint32_t arch)
{
	for (size_t a = 0; a < t->nabis; a++)
		if (t->arch[a] == arch)
			return (int)a;
	return -1;
}

const struct rec_sys *rec_systab_lookup(const struct rec_systab *t, uint32_t arch, int nr)
{
	int a = abi_index(t, arch);

	if (a < 0 || nr < 0 || nr >= NR_MAX)
		return NULL;
	return t->by_nr[a][nr];
}

const char *rec_systab_name(const struct rec_systab *t, uint32_t arch, int nr)
{
	int a = abi_index(t, arch);

	if (a < 0 || nr < 0 || nr >= NR_MAX)
		return NULL;
	if (t->names[a][nr] == NULL) {
		char *name = seccomp_syscall_resolve_num_arch(t->arch[a], nr);

		t->names[a][nr] = name != NULL ? name : NO_NAME;
	}
	return t->names[a][nr] != NO_NAME ? t->names[a][nr] : NULL;
}

int rec_classes_parse(const char *text, unsigned *classes, struct repro_err **err)
{
	cleanup_free char *copy = repro_xstrdup(text);
	unsigned bits = 0;
	char *save = NULL;

	for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
		if (w[0] == '%')
			w++;
		if (strcmp(w, "file") == 0)
			bits |= REC_CLASS_FILE;
		else if (strcmp(w, "network") == 0 || strcmp(w, "net") == 0)
			bits |= REC_CLASS_NETWORK;
		else if (strcmp(w, "process") == 0)
			bits |= REC_CLASS_PROCESS;
		else if (strcmp(w, "all") == 0)
			bits |= REC_CLASS_ALL;
		else
			return repro_err_set(err, EINVAL,
					     "unknown trace class '%s' (expected file, network, "
					     "process or all)",
					     w);
	}
	if (bits == 0)
		return repro_err_set(err, EINVAL, "empty trace class list '%s'", text);
	*classes = bits;
	return 0;
}

void rec_classes_format(unsigned classes, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s%s", classes & REC_CLASS_FILE ? "file" : "",
		 (classes & REC_CLASS_FILE) && (classes & ~REC_CLASS_FILE & REC_CLASS_ALL) ? ","
											   : "",
		 classes & REC_CLASS_NETWORK ? "network" : "",
		 (classes & REC_CLASS_NETWORK) && (classes & REC_CLASS_PROCESS) ? "," : "",
		 classes & REC_CLASS_PROCESS ? "process" : "");
}

/* Argument conditions: calls that teach nothing do not stop. */
static void add_condition(struct lnch_filter_rule *r)
{
	r->arg = -1;
	if (strcmp(r->name, "newfstatat") == 0 || strcmp(r->name, "statx") == 0) {
		/*
		 * fstat(3) is newfstatat(fd, "", AT_EMPTY_PATH): no path to learn,
		 * but AT_EMPTY_PATH with a path is a path lookup.  The filter
		 * cannot read the path: ptrace stops skip AT_EMPTY_PATH (a stop
		 * each would cost too much), the notification listener gets them
		 * all and the recorder drops the empty ones at their entry.
		 */
		r->arg = strcmp(r->name, "statx") == 0 ? 2 : 3;
		r->mask = AT_EMPTY_PATH;
		r->value = 0;
		r->is_ptrace_only_cond = true;
	} else if (strcmp(r->name, "write") == 0 || strcmp(r->name, "writev") == 0) {
		/* only stdin, stdout and stderr: the recorder keeps 1 and 2 (recorder/output.h) */
		r->arg = 0;
		r->is_le = true;
		r->value = 2;
	} else if (strcmp(r->name, "prctl") == 0) {
		r->arg = 0; /* only PR_SET_SECCOMP: the program installs a filter of its own */
		r->mask = 0xffffffffu;
		r->value = PR_SET_SECCOMP;
	}
}

struct lnch_filter_rule *rec_filter_rules(unsigned classes, size_t *n)
{
	size_t count = sizeof(table) / sizeof(table[0]), k = 0;
	struct lnch_filter_rule *rules = repro_xcalloc(count, sizeof(*rules));

	for (size_t i = 0; i < count; i++) {
		if (!(table[i].classes & (classes | REC_CLASS_ALWAYS | REC_CLASS_OUTPUT)))
			continue;
		rules[k].name = table[i].name;
		add_condition(&rules[k]);
		k++;
	}
	*n = k;
	return rules;
}

struct lnch_filter_rule *rec_filter_rules_with(unsigned classes, const char *const *extra,
					       size_t nextra, size_t *n)
{
	struct lnch_filter_rule *rules = rec_filter_rules(classes, n);
	size_t k = *n;

	rules = repro_xreallocarray(rules, k + nextra + 1, sizeof(*rules));
	for (size_t e = 0; e < nextra; e++) {
		size_t i = 0;

		while (i < k && strcmp(rules[i].name, extra[e]) != 0)
			i++;
		rules[i] = (struct lnch_filter_rule){ .name = i < k ? rules[i].name : extra[e],
						      .arg = -1 };
		if (i == k)
			k++;
	}
	*n = k;
	return rules;
}
