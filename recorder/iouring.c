#include "recorder/iouring.h"
#include "common/sysent.h"
#include "recorder/systab.h"
#include "bundles/spool.h"

#include <stdio.h>
#include <string.h>

/* pids that set up an io_uring, at most a few named */
#define MAX_NAMED 4

int rec_iouring_note(const char *spool_dir, char *buf, size_t cap, struct repro_err **err)
{
	struct bndl_spool_reader *r = bndl_spool_reader_open(spool_dir, err);
	struct rec_systab *tab = NULL;
	int32_t pids[MAX_NAMED];
	size_t n = 0, more = 0;
	struct bndl_event ev;
	int got;

	buf[0] = '\0';
	if (r == NULL)
		return -1;
	tab = rec_systab_new();
	while ((got = bndl_spool_reader_next(r, &ev, err)) == 1) {
		const struct repro_sysent *s =
			ev.type == BNDL_REC_SYSCALL ? rec_systab_lookup(tab, ev.arch, ev.nr) : NULL;

		if (s == NULL || !(s->flags & REPRO_SYSF_BYPASS) || ev.ret < 0)
			continue;
		if (n < MAX_NAMED)
			pids[n++] = ev.pid;
		else
			more++;
	}
	bndl_spool_reader_free(r);
	rec_systab_free(tab);
	if (got < 0)
		return -1;
	for (size_t i = 0, len = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%d",
					i ? ", " : "io_uring set up by pid ", (int)pids[i]);
	if (n > 0) {
		size_t len = strlen(buf);

		snprintf(buf + len, cap - len,
			 "%s: I/O through io_uring is not recorded "
			 "(record --io-uring=deny makes io_uring_setup fail with ENOSYS)",
			 more ? " and more" : "");
	}
	return 0;
}
