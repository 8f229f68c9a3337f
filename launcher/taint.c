#include "launcher/taint.h"
#include "launcher/abi.h"

#include <seccomp.h>

static const struct {
	const char *name;
	enum lnch_taint_scope scope;
} calls[] = {
	{ "setuid", LNCH_TAINT_TASK },	  { "setgid", LNCH_TAINT_TASK },
	{ "setreuid", LNCH_TAINT_TASK },  { "setregid", LNCH_TAINT_TASK },
	{ "setresuid", LNCH_TAINT_TASK }, { "setresgid", LNCH_TAINT_TASK },
	{ "setfsuid", LNCH_TAINT_TASK },  { "setfsgid", LNCH_TAINT_TASK },
	{ "setgroups", LNCH_TAINT_TASK }, { "capset", LNCH_TAINT_TASK },
	{ "unshare", LNCH_TAINT_TASK },	  { "setns", LNCH_TAINT_TASK },
	{ "chroot", LNCH_TAINT_PROCESS }, { "mount", LNCH_TAINT_ALL },
	{ "umount2", LNCH_TAINT_ALL },	  { "pivot_root", LNCH_TAINT_ALL },
	{ "move_mount", LNCH_TAINT_ALL }, { "mount_setattr", LNCH_TAINT_ALL },
};

const char *lnch_taint_name(size_t i)
{
	return i < sizeof(calls) / sizeof(calls[0]) ? calls[i].name : NULL;
}

void lnch_taint_table_init(struct lnch_taint_table *t)
{
	uint32_t arches[4];
	size_t narches = lnch_arch_filter_arches(arches, 4);

	t->n = 0;
	for (size_t a = 0; a < narches; a++) {
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && t->n < LNCH_TAINT_MAX;
		     i++) {
			int nr = seccomp_syscall_resolve_name_arch(arches[a], calls[i].name);

			if (nr < 0)
				continue;
			t->e[t->n].arch = arches[a];
			t->e[t->n].nr = nr;
			t->e[t->n++].scope = calls[i].scope;
		}
	}
}

enum lnch_taint_scope lnch_taint_scope_of(const struct lnch_taint_table *t, uint32_t arch, int nr)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].nr == nr && t->e[i].arch == arch)
			return t->e[i].scope;
	return LNCH_TAINT_NONE;
}
