#ifndef REPRO_RECORDER_RECORDER_H
#define REPRO_RECORDER_RECORDER_H

/*
 * The recorder: an observer of the ptrace loop (launcher/stop.h) that turns
 * each traced stop into a spool record (bundles/spool.h), and process
 * lifecycle changes into process records.
 */

#include "bundles/spool.h"
#include "common/err.h"
#include "launcher/stop.h"
#include "recorder/systab.h"

#include <stdint.h>
#include <sys/types.h>

struct rec_recorder;

/*
 * rec_recorder_new - a recorder appending to spool (borrowed) and decoding
 * with tab (borrowed); both must outlive it.  main_pid: the first process,
 * whose start is recorded at once (ppid 0).  Never NULL.
 */
struct rec_recorder *rec_recorder_new(struct bndl_spool *spool, const struct rec_systab *tab,
				      pid_t main_pid);

/* rec_recorder_ops - the observer callbacks to register with lnch_loop_add_observer(). */
const struct lnch_observer_ops *rec_recorder_ops(void);

/*
 * rec_recorder_finish - record calls still waiting for their exit as
 * unfinished, flush the spool.  Returns 0, or -1 with *err carrying the first
 * error met while recording (a write error such as ENOSPC; recording stopped
 * at that point but the program ran on undisturbed).
 */
int rec_recorder_finish(struct rec_recorder *r, struct repro_err **err);

/* rec_recorder_count - syscall events recorded so far. */
uint64_t rec_recorder_count(const struct rec_recorder *r);

/* What a recorder has counted so far. */
struct rec_recorder_counts {
	uint64_t events; /* syscall events, as rec_recorder_count() */
	uint64_t failed; /* of those, calls that failed with an errno (not unfinished or unseen) */
	uint64_t processes; /* process starts, the first included; threads not */
};

/* rec_recorder_counts - fill *out with the counts so far (whatever the spool kept). */
void rec_recorder_counts(const struct rec_recorder *r, struct rec_recorder_counts *out);

void rec_recorder_free(struct rec_recorder *r);

#endif
