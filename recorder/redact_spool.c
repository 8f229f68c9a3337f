/*
 * Learning a recording's secrets from its spool before anything is
 * rendered (recorder/redact.h, rec_redact_learn_spool()): a token that one
 * exec's argv or environment reveals is hidden in every member, also in the
 * events that came before that exec.
 */
#include "recorder/redact.h"
#include "recorder/systab.h"
#include "bundles/spool.h"
#include "common/cleanup.h"

#include <errno.h>

static void systab_free_ptr(struct rec_systab **t)
{
	rec_systab_free(*t);
}

static void reader_free_ptr(struct bndl_spool_reader **r)
{
	bndl_spool_reader_free(*r);
}

/* The blob of EV for argument I when it has one (argv and envp are BNDL_BLOB_ARGV). */
static const struct bndl_blob *argv_blob(const struct bndl_event *ev, int i)
{
	return i < 0 ? NULL : bndl_event_blob(ev, BNDL_BLOB_ARGV, (uint16_t)i);
}

static void learn_blobs(struct rec_redact *r, const struct bndl_blob *argv,
			const struct bndl_blob *envp)
{
	if (argv == NULL && envp == NULL)
		return;
	(void)rec_redact_learn_exec(r, argv != NULL ? argv->data : NULL,
				    argv != NULL ? argv->len : 0, envp != NULL ? envp->data : NULL,
				    envp != NULL ? envp->len : 0);
}

/* An exec's process record (argv at 1, envp at 2) or an execve/execveat call. */
static void learn_event(struct rec_redact *r, const struct rec_systab *tab,
			const struct bndl_event *ev)
{
	const struct repro_sysent *sys;

	if (ev->type == BNDL_REC_PROC_EXEC) {
		learn_blobs(r, argv_blob(ev, 1), argv_blob(ev, 2));
		return;
	}
	if (ev->type != BNDL_REC_SYSCALL || ev->nblobs == 0)
		return;
	sys = rec_systab_lookup(tab, ev->arch, ev->nr);
	if (sys == NULL || repro_sysent_arg_of(sys, RA_ARGV) < 0)
		return;
	learn_blobs(r, argv_blob(ev, repro_sysent_arg_of(sys, RA_ARGV)),
		    argv_blob(ev, repro_sysent_arg_of(sys, RA_ENVP)));
}

int rec_redact_learn_spool(struct rec_redact *r, const char *spool_dir, struct repro_err **err)
{
	__attribute__((cleanup(systab_free_ptr))) struct rec_systab *tab = rec_systab_new();
	__attribute__((cleanup(reader_free_ptr))) struct bndl_spool_reader *rd =
		bndl_spool_reader_open(spool_dir, err);
	struct bndl_event ev;

	if (rd == NULL)
		return -1;
	for (;;) {
		cleanup_err struct repro_err *rerr = NULL;
		int rc = bndl_spool_reader_next(rd, &ev, &rerr);

		if (rc == 0)
			return 0;
		if (rc < 0 && rerr->errnum == EPROTO)
			return 0; /* damaged: what comes after is not packed either */
		if (rc < 0)
			return repro_err_set(err, rerr->errnum, "%s", rerr->msg);
		learn_event(r, tab, &ev);
	}
}
