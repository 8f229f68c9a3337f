#include "launcher/taint.h"
#include "launcher/abi.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *name;
	enum lnch_taint_scope scope;
	int arg; /* an argument condition as in struct lnch_filter_rule (0 here: none) */
	uint64_t value;
} calls[] = {
	{ "setuid", LNCH_TAINT_CREDS, 0, 0 },
	{ "setgid", LNCH_TAINT_CREDS, 0, 0 },
	{ "setreuid", LNCH_TAINT_CREDS, 0, 0 },
	{ "setregid", LNCH_TAINT_CREDS, 0, 0 },
	{ "setresuid", LNCH_TAINT_CREDS, 0, 0 },
	{ "setresgid", LNCH_TAINT_CREDS, 0, 0 },
	{ "setfsuid", LNCH_TAINT_CREDS, 0, 0 },
	{ "setfsgid", LNCH_TAINT_CREDS, 0, 0 },
	{ "setgroups", LNCH_TAINT_CREDS, 0, 0 },
	{ "capset", LNCH_TAINT_CREDS, 0, 0 },
	{ "setuid32", LNCH_TAINT_CREDS, 0, 0 },
	{ "setgid32", LNCH_TAINT_CREDS, 0, 0 },
	{ "setreuid32", LNCH_TAINT_CREDS, 0, 0 },
	{ "setregid32", LNCH_TAINT_CREDS, 0, 0 },
	{ "setresuid32", LNCH_TAINT_CREDS, 0, 0 },
	{ "setresgid32", LNCH_TAINT_CREDS, 0, 0 },
	{ "setfsuid32", LNCH_TAINT_CREDS, 0, 0 },
	{ "setfsgid32", LNCH_TAINT_CREDS, 0, 0 },
	{ "setgroups32", LNCH_TAINT_CREDS, 0, 0 },
	{ "unshare", LNCH_TAINT_TASK, 0, 0 },
	{ "setns", LNCH_TAINT_TASK, 0, 0 },
	{ "chroot", LNCH_TAINT_ALL, 0, 0 },
	{ "mount", LNCH_TAINT_ALL, 0, 0 },
	{ "umount2", LNCH_TAINT_ALL, 0, 0 },
	{ "pivot_root", LNCH_TAINT_ALL, 0, 0 },
	{ "move_mount", LNCH_TAINT_ALL, 0, 0 },
	{ "mount_setattr", LNCH_TAINT_ALL, 0, 0 },
	{ "clone", LNCH_TAINT_CLONE, 0, 0 },
	{ "clone3", LNCH_TAINT_CLONE3, 0, 0 },
	{ "seccomp", LNCH_TAINT_SECCOMP, 0, 0 },
	{ "prctl", LNCH_TAINT_PRCTL, 1, PR_SET_SECCOMP },
};

bool lnch_taint_rule(size_t i, struct lnch_filter_rule *out)
{
	if (i >= sizeof(calls) / sizeof(calls[0]))
		return false;
	*out = (struct lnch_filter_rule){ .name = calls[i].name, .arg = calls[i].arg - 1 };
	if (out->arg >= 0) {
		out->mask = 0xffffffffu;
		out->value = calls[i].value;
	}
	return true;
}

const char *lnch_taint_name(size_t i)
{
	return i < sizeof(calls) / sizeof(calls[0]) ? calls[i].name : NULL;
}

void lnch_taint_table_init(struct lnch_taint_table *t)
{
	memset(t, 0, sizeof(*t));
	t->narch = lnch_arch_filter_arches(t->arch, LNCH_TAINT_ABIS);
	for (size_t a = 0; a < t->narch; a++) {
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
			int nr = seccomp_syscall_resolve_name_arch(t->arch[a], calls[i].name);

			if (nr >= 0 && nr < LNCH_TAINT_NRS)
				t->scope[a][nr] = (uint8_t)calls[i].scope;
		}
	}
}

enum lnch_taint_scope lnch_taint_scope_of(const struct lnch_taint_table *t, uint32_t arch, int nr)
{
	for (size_t a = 0; a < t->narch; a++)
		if (t->arch[a] == arch)
			return nr >= 0 && nr < LNCH_TAINT_NRS
				       ? (enum lnch_taint_scope)t->scope[a][nr]
				       : LNCH_TAINT_NONE;
	return LNCH_TAINT_NONE;
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
