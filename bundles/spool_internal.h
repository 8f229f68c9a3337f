#ifndef REPRO_BUNDLES_SPOOL_INTERNAL_H
#define REPRO_BUNDLES_SPOOL_INTERNAL_H

/*
 * On-disk layout of the spool (bundles/spool.h), for bundles/spool.c and the
 * unit tests that craft damaged spools.  Host byte order; every record and
 * every blob starts on an 8-byte boundary.
 */

#include <stdint.h>

#define BNDL_SPOOL_MAGIC "REPROSPL"
#define BNDL_SPOOL_VERSION 1u

struct bndl_spool_file_hdr {
	char magic[8]; /* BNDL_SPOOL_MAGIC, not NUL-terminated */
	uint32_t version;
	uint32_t reserved;
};

struct bndl_spool_rec_hdr {
	uint32_t len; /* bytes of the whole record, this header included; a multiple of 8 */
	uint16_t type; /* enum bndl_rec_type */
	uint16_t nblobs; /* at most BNDL_EVENT_MAX_BLOBS */
};

struct bndl_event_fixed {
	uint32_t flags;
	int32_t pid;
	int32_t tid;
	int32_t ppid;
	int32_t status;
	int32_t nr;
	uint32_t arch;
	uint32_t reserved;
	uint64_t seq;
	uint64_t t_ns;
	uint64_t dur_ns;
	uint64_t args[6];
	int64_t ret;
};

struct bndl_blob_hdr {
	uint16_t kind; /* enum bndl_blob_kind, possibly | BNDL_BLOB_TRUNCATED */
	uint16_t argi;
	/* bytes of data that follow, before padding; at most BNDL_BLOB_MAX (argv lists: BNDL_ARGV_MAX) */
	uint32_t len;
};

#define BNDL_SPOOL_ALIGN(n) (((n) + 7u) & ~(size_t)7u)

/*
 * The largest record the writer produces, and so the largest the reader
 * accepts: argv blobs of BNDL_ARGV_MAX together (each one padded: at most
 * BNDL_EVENT_MAX_BLOBS * 8 bytes more) and the other blobs of BNDL_BLOB_MAX
 * (about 6.5 MiB).
 */
#define BNDL_SPOOL_REC_MAX                                                                       \
	(sizeof(struct bndl_spool_rec_hdr) + sizeof(struct bndl_event_fixed) +                   \
	 BNDL_EVENT_MAX_BLOBS * sizeof(struct bndl_blob_hdr) + BNDL_SPOOL_ALIGN(BNDL_ARGV_MAX) + \
	 (BNDL_EVENT_MAX_BLOBS - 1) * BNDL_BLOB_MAX)

#endif
