/* -o FILE for the commands that write one (cli/output.h). */
#include "cli/output.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct out_job {
	const char *cmd, *output; /* borrowed */
	cli_write_fn fn;
	void *ctx;
};

/*
 * The temporary file being written, removed by a signal that ends the
 * command (Ctrl-C, SIGTERM, SIGHUP) so that nothing half written stays:
 * the one piece of state the handler needs, so it lives here, in cli/.
 * The actions those signals had before are put back afterwards, and one
 * that was ignored (nohup(1)) stays ignored: it ends nothing.
 */
static char pending_tmp[PATH_MAX];
static const int guarded_sigs[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction guarded_old[sizeof(guarded_sigs) / sizeof(guarded_sigs[0])];

static void remove_pending(int sig)
{
	if (pending_tmp[0] != '\0')
		(void)unlink(pending_tmp); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* While tmp (NULL: no more) is written, the ending signals remove it first. */
static void guard_tmp(const char *tmp)
{
	const size_t n = sizeof(guarded_sigs) / sizeof(guarded_sigs[0]);
	struct sigaction sa = { .sa_handler = remove_pending };

	if (tmp == NULL) {
		for (size_t i = 0; i < n; i++)
			if (guarded_old[i].sa_handler != SIG_IGN)
				sigaction(guarded_sigs[i], &guarded_old[i], NULL);
		pending_tmp[0] = '\0';
		return;
	}
	if (strlen(tmp) >= sizeof(pending_tmp))
		return; /* never: mkstemp's name fits PATH_MAX */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < n; i++)
		sigaddset(&sa.sa_mask, guarded_sigs[i]);
	strcpy(pending_tmp, tmp);
	for (size_t i = 0; i < n; i++) {
		sigaction(guarded_sigs[i], NULL, &guarded_old[i]);
		if (guarded_old[i].sa_handler != SIG_IGN)
			sigaction(guarded_sigs[i], &sa, NULL);
	}
}

/*
 * The mode of the file that replaces old (NULL: none): old's own, with its
 * owner and group where this user may give them (root; a group of its own),
 * else what a new file gets, 0666 less the umask (mkstemp(3) made it 0600).
 */
static int give_mode(int fd, const struct stat *old)
{
	mode_t mask;

	if (old != NULL) {
		/* fchown(2) first: it clears the set-user-ID and set-group-ID bits */
		if (old->st_uid != geteuid() || old->st_gid != getegid())
			(void)fchown(fd, old->st_uid, old->st_gid);
		return fchmod(fd, old->st_mode & 07777);
	}
	mask = umask(0);
	umask(mask);
	return fchmod(fd, 0666 & ~mask);
}

/*
 * The output into path through a temporary file beside it, renamed once
 * complete; old (NULL: none) is what path is now, whose mode it keeps.
 */
static int write_replacing(const struct out_job *j, const char *path, const struct stat *old,
			   struct repro_err **err)
{
	cleanup_free char *tmp = repro_xasprintf("%s.tmp-XXXXXX", path);
	int fd = mkstemp(tmp);
	FILE *f;
	int rc;

	if (fd < 0)
		return repro_err_set(err, errno, "%s: cannot write '%s'", j->cmd, j->output);
	guard_tmp(tmp);
	f = give_mode(fd, old) == 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL) {
		close(fd);
		unlink(tmp);
		guard_tmp(NULL);
		return repro_err_set(err, errno, "%s: cannot write '%s'", j->cmd, j->output);
	}
	rc = j->fn(j->ctx, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = repro_err_set(err, errno, "%s: cannot write '%s'", j->cmd, j->output);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = repro_err_set(err, errno, "%s: cannot write '%s'", j->cmd, j->output);
	if (rc < 0)
		unlink(tmp);
	guard_tmp(NULL);
	return rc;
}

/* The output written into what j->output already is: a device, a FIFO, a pipe of the shell's. */
static int write_through(const struct out_job *j, struct repro_err **err)
{
	FILE *f = fopen(j->output, "w");
	int rc;

	if (f == NULL)
		return repro_err_set(err, errno, "%s: cannot write '%s'", j->cmd, j->output);
	rc = j->fn(j->ctx, f, err);
	if (fclose(f) != 0 && rc == 0)
		rc = repro_err_set(err, errno, "%s: cannot write '%s'", j->cmd, j->output);
	return rc;
}

/*
 * A symbolic link named as -o is followed only when it is the caller's or
 * the owner's of the directory it is in: the rule of fs.protected_symlinks
 * (proc_sys_fs(5)) for sticky directories, here everywhere, so that a link
 * another user planted in /tmp cannot aim the output at the caller's files.
 */
static int check_link(const struct out_job *j, const struct stat *link, struct repro_err **err)
{
	cleanup_free char *copy = repro_xstrdup(j->output);
	struct stat dir;

	if (link->st_uid == geteuid() ||
	    (stat(dirname(copy), &dir) == 0 && link->st_uid == dir.st_uid))
		return 0;
	return repro_err_set(err, 0,
			     "%s: '%s' is a symbolic link of another user (uid %u): not written "
			     "through; give another -o FILE",
			     j->cmd, j->output, (unsigned)link->st_uid);
}

int cli_output_write(const char *cmd, const char *output, const char *const *inputs, size_t ninputs,
		     cli_write_fn fn, void *ctx, struct repro_err **err)
{
	struct out_job j = { .cmd = cmd, .output = output, .fn = fn, .ctx = ctx };
	struct stat out, in;
	cleanup_free char *real = NULL;

	if (output == NULL || strcmp(output, "-") == 0)
		return fn(ctx, stdout, err);
	if (lstat(output, &out) == 0 && S_ISLNK(out.st_mode) && check_link(&j, &out, err) < 0)
		return -1;
	if (stat(output, &out) < 0) {
		int why = errno;

		if (why != ENOENT)
			return repro_err_set(err, why, "%s: cannot write '%s'", cmd, output);
		/* missing: made anew; a dangling link: the file it names, made through it */
		return lstat(output, &out) == 0 ? write_through(&j, err)
						: write_replacing(&j, output, NULL, err);
	}
	for (size_t i = 0; i < ninputs; i++)
		if (stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return repro_err_set(err, EINVAL,
					     "%s: '%s' is the bundle itself; give another -o FILE",
					     cmd, output);
	if (!S_ISREG(out.st_mode))
		return write_through(&j, err);
	real = realpath(output, NULL);
	return write_replacing(&j, real != NULL ? real : output, &out, err);
}
