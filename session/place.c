/*
 * Where a run writes: the bundle path is checked before the program runs,
 * and the spool directory is made in $TMPDIR or, on a full disk, elsewhere.
 */
#include "session/session_internal.h"
#include "common/cleanup.h"
#include "common/map.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

const char *sess_tmp_parent(const struct sess_options *o)
{
	const char *tmp = getenv("TMPDIR");

	if (o->spool_parent != NULL)
		return o->spool_parent;
	return tmp != NULL && tmp[0] == '/' ? tmp : "/tmp";
}

/*
 * The spool lives in $TMPDIR (default /tmp), out of the program's sight: a
 * spool in its working directory would show in `ls -A` and could be removed
 * by `git clean`.  mkdtemp(3) makes it private (0700) and unique.
 */
static char *spool_dir_for(const char *dir, const char *output)
{
	cleanup_free char *b = repro_xstrdup(output);

	return repro_xasprintf("%s/repro-%.64s.XXXXXX", dir, basename(b));
}

static int make_spool_dir(char *dir_template, struct repro_err **err)
{
	if (mkdtemp(dir_template) == NULL)
		return repro_err_set(err, errno, "cannot create a spool directory '%s'",
				     dir_template);
	return 0;
}

bool sess_same_fs(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev;
}

/* bndl_pack() writes OUT.tmp-XXXXXX beside OUT, then renames it into place. */
#define TMP_SUFFIX_LEN (sizeof(".tmp-XXXXXX") - 1)

/*
 * Check the bundle path before the program runs, so that nothing the program
 * does is lost to a bad -o: an existing non-regular file (a device, a
 * directory) is refused, the directory must be one this user may write in
 * (faccessat(2) with AT_EACCESS: mode, ACLs, a read-only mount, an immutable
 * directory) and the temporary name must fit.  No probe file is made: a
 * new inode costs up to 0.5 ms on ext4 (docs/performance.md); where the
 * check passes and the pack still cannot write, the spool is kept and the
 * error gives the `repro pack` command (session/bundle_out.c).
 */
int sess_check_output(const char *out, struct repro_err **err)
{
	cleanup_free char *copy = repro_xstrdup(out);
	cleanup_free char *copy2 = repro_xstrdup(out);
	const char *dir = dirname(copy), *base = basename(copy2);
	struct stat st;
	long name_max;

	if (out[0] == '\0')
		return repro_err_set(err, EINVAL, "record: empty output path");
	if (lstat(out, &st) == 0 && !S_ISREG(st.st_mode))
		return repro_err_set(err, 0,
				     "cannot write the bundle to '%s': it exists and is not a "
				     "regular file",
				     out);
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
		return repro_err_set(err, errno, "cannot write the bundle to '%s'", out);
	name_max = pathconf(dir, _PC_NAME_MAX);
	if (strlen(out) + TMP_SUFFIX_LEN >= PATH_MAX ||
	    (name_max > 0 && strlen(base) + TMP_SUFFIX_LEN > (size_t)name_max))
		return repro_err_set(err, ENAMETOOLONG, "cannot write the bundle to '%s'", out);
	return 0;
}

/*
 * The bundle path's lock: its directory made canonical (realpath(3)) with
 * its name, hashed (XXH3-64), and the name kept for `ss -x` to show.
 */
static int lock_name(const char *out, struct sockaddr_un *sun, socklen_t *len)
{
	cleanup_free char *copy = repro_xstrdup(out);
	cleanup_free char *copy2 = repro_xstrdup(out);
	cleanup_free char *key = NULL;
	char dir[PATH_MAX];
	int n;

	if (realpath(dirname(copy), dir) == NULL)
		return -1;
	key = repro_xasprintf("%s/%s", dir, basename(copy2));
	*sun = (struct sockaddr_un){ .sun_family = AF_UNIX };
	/* sun_path[0] == '\0': the abstract namespace, unix(7) */
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1, "repro-output/%016llx/%s",
		     (unsigned long long)repro_map_key_str(key, strlen(key)), basename(copy2));
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof(sun->sun_path) - 1)
		n = (int)sizeof(sun->sun_path) - 2; /* the name cut: the hash tells them apart */
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	return 0;
}

int sess_output_lock(const char *out, struct repro_err **err)
{
	cleanup_close int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un sun;
	socklen_t len;

	if (fd < 0 || lock_name(out, &sun, &len) < 0)
		return -1; /* no lock to be had: the run goes on without one */
	if (bind(fd, (struct sockaddr *)&sun, len) == 0)
		return steal_fd(&fd);
	if (errno != EADDRINUSE)
		return -1;
	return repro_err_set(err, 0,
			     "another recording is writing the bundle '%s' (the last to end would "
			     "replace the other's): give another -o FILE",
			     out),
	       -2;
}

/* The spool directory in dir, with run.json and events.spool; a failed attempt leaves nothing. */
static int spool_in(struct sess_state *s, const char *dir, struct repro_err **err)
{
	free(s->spool_dir);
	s->spool_dir = spool_dir_for(dir, s->o->output);
	if (make_spool_dir(s->spool_dir, err) < 0)
		return -1;
	if (bndl_runinfo_save(s->spool_dir, &s->info, err) == 0 &&
	    (s->spool = bndl_spool_open(s->spool_dir, err)) != NULL) {
		s->made_spool = true;
		return 0;
	}
	(void)bndl_spool_remove(s->spool_dir, NULL);
	return -1;
}

/*
 * The spool goes to $TMPDIR; where that has no room even for the spool's
 * start (ENOSPC, EDQUOT), to the first of bndl_scratch_dirs() on another
 * filesystem that has, said in one notice.  Room nowhere is an error: the
 * program has not run, so nothing is lost.
 */
int sess_make_spool(struct sess_state *s, struct repro_err **err)
{
	cleanup_err struct repro_err *first = NULL;
	cleanup_dirs char **dirs = NULL;
	const char *tmp = sess_tmp_parent(s->o);

	if (spool_in(s, tmp, &first) == 0)
		return 0;
	if (!bndl_is_disk_full(first->errnum)) {
		*err = steal_ptr(&first);
		return -1;
	}
	dirs = bndl_scratch_dirs(NULL);
	for (size_t i = 0; dirs[i] != NULL; i++) {
		cleanup_err struct repro_err *again = NULL;

		if (sess_same_fs(dirs[i], tmp) || spool_in(s, dirs[i], &again) < 0)
			continue;
		sess_notice(s, "no room for the spool in '%s' (%s): it is in '%s'", tmp,
			    strerror(first->errnum), s->spool_dir);
		return 0;
	}
	*err = steal_ptr(&first);
	return -1;
}
