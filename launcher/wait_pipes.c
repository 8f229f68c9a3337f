/*
 * Who holds the other end of a pipe a wait is on (launcher/wait_pipes.h;
 * proc(5): "/proc/[pid]/fd/" links read "pipe:[INODE]", the same for both
 * ends; "/proc/[pid]/fdinfo/" gives each fd's open flags, in octal).
 */
#include "launcher/wait_pipes.h"
#include "launcher/taint.h"
#include "launcher/tasks.h"
#include "common/cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* O_RDONLY, O_WRONLY or O_RDWR of fd of pid (its fdinfo "flags:"), -1 when unknown. */
static int fd_accmode(pid_t pid, int fd)
{
	char name[32], buf[512];
	const char *p;

	snprintf(name, sizeof(name), "fdinfo/%d", fd);
	if (lnch_proc_read(pid, name, buf, sizeof(buf)) <= 0 || (p = strstr(buf, "flags:")) == NULL)
		return -1;
	return (int)(strtol(p + 6, NULL, 8) & O_ACCMODE);
}

/*
 * The first fd of pid but skip whose link is link and whose access mode is
 * want (or O_RDWR); -1 when none.  Looks at LNCH_WAIT_SCAN_FDS fds at most,
 * then sets *cut.
 */
static int holder_fd(pid_t pid, int skip, const char *link, int want, bool *cut)
{
	char path[32], got[sizeof(((struct lnch_wait_fd *)0)->link)];
	cleanup_closedir DIR *d = NULL;
	const struct dirent *e;
	size_t seen = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		int fd, mode;
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		if (++seen > LNCH_WAIT_SCAN_FDS) {
			*cut = true;
			return -1;
		}
		fd = atoi(e->d_name);
		n = readlinkat(dirfd(d), e->d_name, got, sizeof(got) - 1);
		if (fd == skip || n <= 0)
			continue;
		got[n] = '\0';
		if (strcmp(got, link) != 0)
			continue;
		mode = fd_accmode(pid, fd);
		if (mode == want || mode == O_RDWR)
			return fd;
	}
	return -1;
}

void lnch_wait_pipe_ends(const struct lnch_tasks *tasks, pid_t pid, struct lnch_wait_fd *f)
{
	int mode = strncmp(f->link, "pipe:[", 6) == 0 ? fd_accmode(pid, f->fd) : -1;
	int want = mode == O_WRONLY ? O_RDONLY : O_WRONLY;
	bool cut = false;

	if (mode < 0)
		return;
	f->end_flags = LNCH_WAIT_END_LOOKED | (mode == O_WRONLY ? LNCH_WAIT_END_WRITE : 0);
	for (size_t i = 0; i < tasks->n; i++) {
		const struct lnch_task *t = &tasks->v[i];
		int fd;

		if (t->tid <= 0 || t->tid != t->pid)
			continue; /* one per process: its thread group leader */
		fd = holder_fd(t->pid, t->pid == pid ? f->fd : -1, f->link, want, &cut);
		if (fd < 0)
			continue;
		if (f->nholders == LNCH_WAIT_HOLDERS) {
			f->end_flags |= LNCH_WAIT_END_MORE;
			break;
		}
		f->holders[f->nholders++] = (struct lnch_wait_holder){ .pid = t->pid, .fd = fd };
	}
	if (cut)
		f->end_flags |= LNCH_WAIT_END_FDS_CUT;
}
