#include "bundles/members.h"

/*
 * Archive order: what a reader needs first comes first (the manifest,
 * then host facts and processes, which label the events), the large
 * events before what refers to them, trace.txt (for humans) late.
 */
const struct bndl_member_def bndl_members[] = {
	{ BNDL_MANIFEST_JSON, BNDL_BY_PACK, false },
	{ BNDL_HOST_JSON, BNDL_BY_SESSION, true },
	{ BNDL_PROCESSES_JSONL, BNDL_BY_PACK, false },
	{ BNDL_EVENTS_JSONL, BNDL_BY_PACK, false },
	{ BNDL_NETWORK_JSONL, BNDL_BY_SESSION, true },
	{ BNDL_WAITS_JSONL, BNDL_BY_SESSION, true },
	{ BNDL_FILES_JSONL, BNDL_BY_SESSION, true },
	{ BNDL_OUTPUT_JSONL, BNDL_BY_PACK, true },
	{ BNDL_TRACE_TXT, BNDL_BY_PACK, false },
	{ BNDL_OVERLAY_JSONL, BNDL_BY_SESSION, true },
	{ NULL, BNDL_BY_PACK, false },
};
