#ifndef REPRO_BUNDLES_MEMBERS_H
#define REPRO_BUNDLES_MEMBERS_H

/*
 * The members of a bundle (docs/bundle-format.md), each name spelled here
 * once: the registry says their order in the archive (what a one-pass
 * reader asks for, and what pack writes), who makes each and whether a
 * bundle may lack it.  The reader's order, the spool's clean-up and the
 * session's list of members derived after the run are made from it.
 */

#include <stdbool.h>
#include <stddef.h>

#define BNDL_MANIFEST_JSON "manifest.json"
#define BNDL_HOST_JSON "host.json"
#define BNDL_PROCESSES_JSONL "processes.jsonl"
#define BNDL_EVENTS_JSONL "events.jsonl"
#define BNDL_NETWORK_JSONL "network.jsonl"
#define BNDL_WAITS_JSONL "waits.jsonl"
#define BNDL_FILES_JSONL "files.jsonl"
#define BNDL_OUTPUT_JSONL "output.jsonl"
#define BNDL_TRACE_TXT "trace.txt"
#define BNDL_OVERLAY_JSONL "overlay.jsonl"

/* Who makes a member. */
enum bndl_producer {
	BNDL_BY_PACK, /* bndl_pack(), from the spool's records (manifest, processes, events …) */
	/*
	 * the session, after the run, as a file in the spool directory that
	 * pack copies in (session/bundle_out.c: host facts, files, network, waits,
	 * overlay)
	 */
	BNDL_BY_SESSION,
};

struct bndl_member_def {
	const char *name;
	enum bndl_producer producer;
	bool is_optional; /* a bundle may lack it (an older repro's, or a run without --overlay) */
};

/*
 * bndl_members - the registry in archive order, ended by a row whose name
 * is NULL.  Static storage.
 */
extern const struct bndl_member_def bndl_members[];

#endif
