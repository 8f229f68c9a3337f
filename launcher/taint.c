#include "launcher/taint.h"
#include "launcher/abi.h"
#include "common/sysent.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The i-th row of the table with a taint scope, from *pos on; NULL past the end. Linear. */
static const struct repro_sysent *next_taint(size_t *pos)
{
	size_t n;
	const struct repro_sysent *t = repro_sysent_all(&n);

	while (*pos < n && t[*pos].taint == REPRO_TAINT_NONE)
		(*pos)++;
	return *pos < n ? &t[(*pos)++] : NULL;
}

bool lnch_taint_next(size_t *pos, struct lnch_filter_rule *out)
{
	const struct repro_sysent *s = next_taint(pos);

	if (s == NULL)
		return false;
	*out = (struct lnch_filter_rule){ .name = s->name, .arg = -1 };
	if (s->has_cond) { /* prctl(2) only with PR_SET_SECCOMP */
		out->arg = s->cond.arg;
		out->mask = s->cond.mask;
		out->value = s->cond.value;
	}
	return true;
}

void lnch_taint_table_init(struct lnch_taint_table *t)
{
	memset(t, 0, sizeof(*t));
	t->narch = lnch_arch_filter_arches(t->arch, LNCH_TAINT_ABIS);
	for (size_t a = 0; a < t->narch; a++) {
		const struct repro_sysent *s;
		size_t pos = 0;

		while ((s = next_taint(&pos)) != NULL) {
			int nr = seccomp_syscall_resolve_name_arch(t->arch[a], s->name);

			if (nr >= 0 && nr < LNCH_TAINT_NRS)
				t->scope[a][nr] = (uint8_t)s->taint;
		}
	}
}

enum repro_sys_taint lnch_taint_scope_of(const struct lnch_taint_table *t, uint32_t arch, int nr)
{
	for (size_t a = 0; a < t->narch; a++)
		if (t->arch[a] == arch)
			return nr >= 0 && nr < LNCH_TAINT_NRS
				       ? (enum repro_sys_taint)t->scope[a][nr]
				       : REPRO_TAINT_NONE;
	return REPRO_TAINT_NONE;
}

ssize_t lnch_proc_read(pid_t pid, const char *name, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	int fd;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static void append_line(char *out, size_t cap, const char *status, const char *key)
{
	const char *p = strstr(status, key);
	size_t used = strlen(out), len;

	if (p == NULL || (p != status && p[-1] != '\n'))
		return;
	len = strcspn(p, "\n");
	if (used + len + 2 > cap)
		return;
	memcpy(out + used, p, len);
	out[used + len] = '\n';
	out[used + len + 1] = '\0';
}

void lnch_taint_creds_text(pid_t pid, char *buf, size_t cap)
{
	static const char *const keys[] = { "Uid:", "Gid:", "Groups:", "CapEff:" };
	char status[4096], label[256];

	buf[0] = '\0';
	if (cap < 2 || lnch_proc_read(pid, "status", status, sizeof(status)) < 0)
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		append_line(buf, cap, status, keys[i]);
	if (lnch_proc_read(pid, "attr/current", label, sizeof(label)) > 0 &&
	    strlen(buf) + strlen(label) + 1 < cap)
		strcat(buf, label);
}

bool lnch_taint_exec_may_change(void)
{
	char label[256];

	/* attr/current fails with EINVAL when no LSM keeps a label */
	return geteuid() == 0 || lnch_proc_read(0, "attr/current", label, sizeof(label)) > 0;
}
