/*
 * host.json (recorder/host.h), gathered by a thread while the program runs
 * and written into the spool, so that a `repro pack` after a killed
 * recording has it too.
 */
#include "session/session_internal.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"
#include "recorder/host.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/* host.json in dir from the facts gathered; a partial file is removed. */
static int host_dump(const struct sess_state *s, const char *dir, struct repro_err **err)
{
	cleanup_free char *path = repro_xasprintf("%s/host.json", dir);
	cleanup_free char *text =
		bndl_json_text(s->host_json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	cleanup_close int fd = -1;

	if (text == NULL)
		return repro_err_set(err, EINVAL, "cannot encode '%s'", path);
	if ((fd = repro_file_create(path, false, err)) < 0)
		return -1;
	/* a write cut short by a full disk goes on until write(2) says ENOSPC */
	if (repro_write_all(fd, text, strlen(text), path, err) < 0 || close(steal_fd(&fd)) < 0) {
		if (*err == NULL)
			repro_err_set(err, errno, "cannot write '%s'", path);
		(void)unlink(path);
		return -1;
	}
	return 0;
}

/*
 * Gather host.json and write it into the spool, for a `repro pack` after a
 * killed recording.  A full disk is no error: the pack takes the facts
 * from memory (session/bundle_out.c).
 */
static int write_host(struct sess_state *s, struct repro_err **err)
{
	struct rec_host_opts ho = {
		.redact = s->redact,
		.envp = (const char *const *)environ,
		.sandbox = s->info.sandbox,
		.redact_hostname = s->o->redact_hostname,
		.redacted = s->redacted,
	};
	cleanup_err struct repro_err *werr = NULL;

	s->host_json = rec_host_collect(&ho, err);
	if (s->host_json == NULL)
		return -1;
	if (host_dump(s, s->spool_dir, &werr) == 0)
		return 0;
	if (bndl_is_disk_full(werr->errnum))
		return 0;
	*err = steal_ptr(&werr);
	return -1;
}

static void *host_main(void *arg)
{
	struct sess_state *s = arg;

	s->host_rc = write_host(s, &s->host_err);
	return NULL;
}

/*
 * Gather host.json in a thread while the program runs (it costs several ms
 * of reading /proc and /etc).  The thread blocks every signal, so that the
 * loop's SIGALRM tick and forwarded signals reach the main thread.  Where
 * no thread can be made, it is gathered here and now.
 */
void sess_host_start(struct sess_state *s)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->host_started = pthread_create(&s->host_thread, NULL, host_main, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->host_started)
		s->host_rc = write_host(s, &s->host_err);
}

/* Wait for host.json; its error, if any, moves to *err (dropped when err is NULL). */
int sess_host_join(struct sess_state *s, struct repro_err **err)
{
	if (s->host_started) {
		pthread_join(s->host_thread, NULL);
		s->host_started = false;
	}
	if (s->host_rc == 0)
		return 0;
	s->host_rc = 0;
	if (err != NULL) {
		*err = s->host_err;
		s->host_err = NULL;
		return -1;
	}
	repro_err_free(&s->host_err);
	return 0;
}
