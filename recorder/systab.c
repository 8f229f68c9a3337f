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

#define NR_MAX 1024
#define MAX_ABIS 4
/* A number libseccomp has no name for (cached so it is asked once); only its address is used. */
static const char no_name_marker;
#define NO_NAME ((char *)&no_name_marker)

struct rec_systab {
	uint32_t arch[MAX_ABIS];
	size_t nabis;
	const struct repro_sysent *by_nr[MAX_ABIS][NR_MAX];
	/*
	 * Names by number, resolved on first use (libseccomp scans its table
	 * for each number: resolving all 1024 x ABIs up front cost ~24 million
	 * instructions at every start).  Allocated once; NO_NAME marks a
	 * number libseccomp does not know.
	 */
	char *(*names)[NR_MAX];
};

/* Index the rows the filter may stop by their numbers on one ABI.  Linear in the table. */
static void load_abi(struct rec_systab *t, size_t abi)
{
	uint32_t arch = t->arch[abi];
	size_t n;
	const struct repro_sysent *table = repro_sysent_all(&n);

	for (size_t i = 0; i < n; i++) {
		int nr;

		if (table[i].trace == 0)
			continue;
		nr = seccomp_syscall_resolve_name_arch(arch, table[i].name);
		if (nr >= 0 && nr < NR_MAX)
			t->by_nr[abi][nr] = &table[i];
	}
}

struct rec_systab *rec_systab_new(void)
{
	struct rec_systab *t = repro_xcalloc(1, sizeof(*t));

	t->names = repro_xcalloc(MAX_ABIS, sizeof(*t->names));
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

const struct repro_sysent *rec_systab_lookup(const struct rec_systab *t, uint32_t arch, int nr)
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

/*
 * The row's argument condition (common/sysent.c: calls that teach nothing
 * do not stop), unless one of classes drops it (cond_unless).
 */
static void add_condition(struct lnch_filter_rule *r, const struct repro_sysent *s,
			  unsigned classes)
{
	r->arg = -1;
	if (!s->has_cond || (s->cond_unless & classes) != 0)
		return;
	r->arg = s->cond.arg;
	r->mask = s->cond.mask;
	r->value = s->cond.value;
	r->is_le = s->cond.is_le;
	r->is_ptrace_only_cond = s->cond.is_ptrace_only;
}

struct lnch_filter_rule *rec_filter_rules(unsigned classes, size_t *n)
{
	size_t count, k = 0;
	const struct repro_sysent *table = repro_sysent_all(&count);
	struct lnch_filter_rule *rules = repro_xcalloc(count, sizeof(*rules));

	for (size_t i = 0; i < count; i++) {
		if (!(table[i].trace & (classes | REC_CLASS_ALWAYS | REC_CLASS_OUTPUT)))
			continue;
		/* a call newer than this libseccomp (fchmodat2 …) cannot be in the filter */
		if (seccomp_syscall_resolve_name(table[i].name) == __NR_SCMP_ERROR)
			continue;
		rules[k].name = table[i].name;
		add_condition(&rules[k], &table[i], classes);
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
