#ifndef REPRO_BUNDLES_SPOOL_H
#define REPRO_BUNDLES_SPOOL_H

/*
 * The spool: the binary, append-only file a recording writes while the
 * program runs (docs/bundle-format.md, "Spool").  One record per syscall event
 * or process-lifecycle fact.  Nothing here allocates per record on the append
 * path: records are copied into a 256 KiB buffer that is written out when full,
 * and at least every 100 ms of recording, so that a killed recorder leaves a
 * spool that `repro pack` can still turn into a bundle.
 *
 * A full filesystem (ENOSPC, EDQUOT) does not end the recording: the spool
 * keeps the whole records that went out, drops syscall records from then on
 * (counted, struct bndl_spool_drops) and keeps the process records (start,
 * exec, exit): they go on in DIR/reserve, BNDL_SPOOL_RESERVE_SIZE bytes
 * allocated at open, which the program cannot take (a file header, then
 * records as in events.spool; zeros past the last one until it is closed).
 * Those even the reserve has no room for (or that find no reserve, on a
 * filesystem smaller than it) are kept in memory, without their blobs, for
 * the caller to pack (bndl_spool_take_lost()): the one allocation on the
 * append path.
 *
 * On disk, little-endian host layout (the spool never leaves the machine):
 *   file header  "REPROSPL" u32 version(=1) u32 reserved
 *   record       struct bndl_spool_rec_hdr, struct bndl_event_fixed,
 *                then nblobs x (struct bndl_blob_hdr, data padded to 8 bytes)
 */

#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BNDL_SPOOL_FILE "events.spool"
#define BNDL_SPOOL_RUNINFO "run.json"
#define BNDL_SPOOL_RESERVE "reserve"
/*
 * Bytes allocated beside the spool for the records written once its
 * filesystem is full: about 1,000 process starts and exits, or 200 execs
 * without their environment.
 */
#define BNDL_SPOOL_RESERVE_SIZE (256u * 1024u)
/* Once the filesystem is full, an exec record keeps at most this much of its argv (bytes). */
#define BNDL_SPOOL_SLIM_ARGV (4u * 1024u)
#define BNDL_EVENT_MAX_BLOBS 8
/* Largest blob a record may hold (bytes); longer data is cut and flagged. */
#define BNDL_BLOB_MAX (64u * 1024u)
/*
 * Most bytes of the argv blobs (BNDL_BLOB_ARGV) of one record together, the
 * one exception to BNDL_BLOB_MAX: what execve(2) accepts for argv and the
 * environment together, 3/4 of the kernel's _STK_LIM (8 MiB) when
 * RLIMIT_STACK is 24 MiB or more, a quarter of RLIMIT_STACK otherwise
 * (fs/exec.c, bprm_stack_limits(); each string is at most MAX_ARG_STRLEN,
 * 128 KiB).  So an exec's argv and envp are never cut.
 */
#define BNDL_ARGV_MAX (6u * 1024u * 1024u)

enum bndl_rec_type {
	BNDL_REC_SYSCALL = 1, /* a traced syscall: entry + result */
	BNDL_REC_PROC_START = 2, /* a new process: pid, ppid, t_ns */
	BNDL_REC_PROC_EXEC =
		3, /* a successful exec: pid, t_ns, PATH, ARGV 1 (argv), ARGV 2 (envp) */
	BNDL_REC_PROC_EXIT = 4, /* a process ended: pid, t_ns, wait status */
	BNDL_REC_PROC_LEFT = 5, /* a process still running when recording stopped */
	/*
	 * the spool's filesystem filled: t_ns (when the first dropped call
	 * completed; its place in the file means nothing), ret = -errno
	 * (ENOSPC, EDQUOT); syscall records after it were dropped
	 */
	BNDL_REC_DROPPED = 6,
	/*
	 * the recording ended (the last record): t_ns = its duration, status =
	 * the first process's wait status when flags has BNDL_EV_HAS_EXIT; a
	 * BNDL_BLOB_STRUCT blob holds the struct bndl_spool_drops of the run
	 */
	BNDL_REC_END = 7,
	/*
	 * what a process said (recorder/output.h), written when it ended:
	 * pid, t_ns of its last kept write, args[0] = which fds (enum
	 * bndl_output_fd), args[1] = bytes written in total; one
	 * BNDL_BLOB_OUT blob with the last bytes (BNDL_BLOB_TRUNCATED: some
	 * were dropped).  Dropped like a syscall record once the filesystem
	 * is full (counted with them)
	 */
	BNDL_REC_OUTPUT = 8,
	/*
	 * a long wait in a blocking call (docs/bundle-format.md "waits.jsonl"):
	 * pid, tid, t_ns = start, dur_ns, nr and arch of the call, args, ret
	 * (with BNDL_EV_WAIT_HAS_RET), a BNDL_BLOB_STRUCT struct bndl_wait_info,
	 * BNDL_BLOB_SOCKADDR argi 1: connect's address; for the described fd
	 * i (< 2): BNDL_BLOB_STR argi 10+i its /proc link, BNDL_BLOB_SOCKADDR
	 * argi 10+i / 20+i a socket's own and peer address
	 */
	BNDL_REC_WAIT = 9,
	/*
	 * the data phase of a connected socket, once the program let go of it
	 * (docs/bundle-format.md "network.jsonl"): pid, t_ns = when (its
	 * close, its process's end, 0 when the recording stopped first),
	 * args[0] = the fd; a BNDL_BLOB_STRUCT struct bndl_sock_info
	 */
	BNDL_REC_SOCK = 10,
};

/* Which fds a BNDL_REC_OUTPUT record's bytes came from: bits of its args[0]. */
enum bndl_output_fd {
	BNDL_OUTPUT_STDOUT = 1u << 1,
	BNDL_OUTPUT_STDERR = 1u << 2,
	BNDL_OUTPUT_DISCARDED = 1u << 3, /* the file was /dev/null: nobody read it */
};

enum bndl_event_flag {
	BNDL_EV_UNFINISHED = 1u << 0, /* the tracee vanished before the call returned */
	BNDL_EV_INJECTED = 1u << 1, /* a policy imposed the result */
	BNDL_EV_NO_RETURN = 1u << 2, /* a call that does not return (exit, exit_group) */
	BNDL_EV_COMPAT = 1u << 3, /* made through the 32-bit entry (int $0x80) */
	BNDL_EV_THREAD = 1u << 4, /* PROC_START: the new task is a thread */
	BNDL_EV_RESULT_UNSEEN = 1u << 5, /* the kernel ran the call out of the tracer's sight */
	/* with RESULT_UNSEEN, why (none of the three: the reason is not known) */
	BNDL_EV_UNSEEN_KERNEL_WALK = 1u << 6, /* a magic link or /proc/self on the path */
	BNDL_EV_UNSEEN_CREDENTIALS = 1u << 7, /* the task had changed credentials, root, mounts */
	BNDL_EV_UNSEEN_ENTRY_ONLY = 1u << 8, /* seen at entry only (close) */
	BNDL_EV_FILTER_DENIED = 1u << 9, /* another seccomp filter (the program's) failed it */
	BNDL_EV_FILTER_SIGSYS = 1u << 10, /* with FILTER_DENIED: by SIGSYS or a kill, no result */
	BNDL_EV_HAS_EXIT = 1u << 11, /* END: status is the first process's wait status */
	BNDL_EV_WAIT_HAS_RET = 1u << 12, /* WAIT: ret is the call's result */
	BNDL_EV_WAIT_START_EXACT = 1u << 13, /* WAIT: t_ns is the call's own entry */
	BNDL_EV_WAIT_AT_STOP = 1u << 14, /* WAIT: it went on when the recording was asked to stop */
	/* SYSCALL: a policy decided a result that could not be imposed; ret is the kernel's */
	BNDL_EV_INJECT_FAILED = 1u << 15,
};

/* How a wait ended (struct bndl_wait_info.end), as enum lnch_wait_end. */
enum bndl_wait_end {
	BNDL_WAIT_RETURNED = 0,
	BNDL_WAIT_SIGNALED = 1, /* status: the signal */
	BNDL_WAIT_EXITED = 2, /* status: the task's wait status */
	BNDL_WAIT_LEFT = 3, /* still waiting when the recording stopped */
};

/* What was found of a pipe's other end (struct bndl_wait_other_end.flags). */
enum bndl_wait_end_flags {
	BNDL_WAIT_END_LOOKED = 1u << 0, /* the fd is a pipe and its other end was looked for */
	BNDL_WAIT_END_WRITE = 1u << 1, /* the fd is the pipe's write end (else its read end) */
	BNDL_WAIT_END_MORE = 1u << 2, /* more processes hold it than listed */
	BNDL_WAIT_END_FDS_CUT = 1u << 3, /* a process had too many fds to look at all of them */
};

/* Most holders of a pipe's other end in a struct bndl_wait_other_end. */
#define BNDL_WAIT_HOLDERS 4

/* The traced processes holding the other end of a pipe fd of a wait. */
struct bndl_wait_other_end {
	uint32_t flags; /* enum bndl_wait_end_flags; 0: not a pipe, or not looked for */
	uint32_t n; /* entries of pid and fd */
	int32_t pid[BNDL_WAIT_HOLDERS];
	int32_t fd[BNDL_WAIT_HOLDERS]; /* an fd of pid[i] on that end */
};

/*
 * The facts of a BNDL_REC_WAIT beside the event fields, host layout.
 * Spools written before other_end existed end their blob there
 * (BNDL_WAIT_INFO_V1_SIZE bytes): read them as if other_end were zero.
 */
struct bndl_wait_info {
	uint64_t stop_ns; /* with BNDL_EV_WAIT_AT_STOP: when the stop was asked for */
	int32_t child; /* wait4/waitid: the pid waited for, -1 any, 0 none */
	uint32_t nfds; /* fds the call waits on */
	int32_t fds[2]; /* the first two of them (-1: none) */
	uint32_t end; /* enum bndl_wait_end */
	int32_t status; /* SIGNALED: the signal; EXITED: the wait status */
	char wchan[48]; /* /proc/TID/wchan, NUL-terminated, "" unknown */
	struct bndl_wait_other_end other_end[2]; /* of fds[i], when a pipe */
};

/* The size of a struct bndl_wait_info before other_end (older spools). */
#define BNDL_WAIT_INFO_V1_SIZE offsetof(struct bndl_wait_info, other_end)

/* How a connected socket's data phase ended (struct bndl_sock_info.end). */
enum bndl_sock_end {
	BNDL_SOCK_CLOSED = 0, /* the program closed it */
	BNDL_SOCK_PEER_CLOSED = 1, /* a receive returned 0, or a send failed with EPIPE */
	BNDL_SOCK_RESET = 2, /* a send or receive failed with ECONNRESET */
	BNDL_SOCK_TIMED_OUT = 3, /* a send or receive failed with ETIMEDOUT */
	BNDL_SOCK_OPEN_AT_EXIT = 4, /* still open when its process ended */
	BNDL_SOCK_LEFT_OPEN = 5, /* still open when the recording stopped */
};

/* What the first bytes the program sent on a socket look like (struct bndl_sock_info.proto). */
enum bndl_sock_proto {
	BNDL_PROTO_UNKNOWN = 0,
	BNDL_PROTO_HTTP = 1, /* an HTTP/1 request line: "GET ", "POST " … */
	BNDL_PROTO_TLS = 2, /* a TLS handshake record: 0x16 0x03 */
	BNDL_PROTO_SSH = 3, /* "SSH-" */
	BNDL_PROTO_HTTP2 = 4, /* the HTTP/2 preface "PRI * HTTP/2.0" */
	BNDL_PROTO_REDIS = 5, /* a RESP array: "*N\r\n" */
};

/* The facts of a BNDL_REC_SOCK beside the event fields, host layout. */
struct bndl_sock_info {
	uint64_t sent; /* bytes the send calls (sendto, sendmsg) sent */
	uint64_t received; /* bytes the receive calls (recvfrom, recvmsg) received */
	uint64_t first_rx_ns; /* when the first byte was received (since the start), 0: none */
	uint64_t end_ns; /* when end was seen (since the start), 0: as the record's t_ns */
	uint32_t end; /* enum bndl_sock_end */
	uint32_t proto; /* enum bndl_sock_proto */
};

/*
 * Where a failed write's fd led, at its exit stop (a BNDL_BLOB_STRUCT of its
 * RA_FD_TARGET argument; events.jsonl "fs" and "size"), host layout: the
 * filesystem's space as statvfs(3) gave it, and the file's size.
 */
struct bndl_fs_info {
	uint64_t free_bytes; /* f_bavail * f_frsize: what an unprivileged writer may use */
	uint64_t total_bytes; /* f_blocks * f_frsize */
	uint64_t free_inodes; /* f_favail */
	uint64_t total_inodes; /* f_files */
	uint64_t size; /* st_size of the file, bytes */
};

enum bndl_blob_kind {
	BNDL_BLOB_STR = 1, /* a string argument as read from the tracee (argi) */
	BNDL_BLOB_PATH = 2, /* absolute form of path argument argi */
	BNDL_BLOB_SOCKADDR = 3, /* raw struct sockaddr bytes of argument argi */
	BNDL_BLOB_ARGV = 4, /* NUL-separated string list of argument argi (exec argv, envp) */
	BNDL_BLOB_OUT = 5, /* bytes the call wrote to argument argi (e.g. SO_ERROR) */
	BNDL_BLOB_STRUCT = 6, /* a struct read at entry (clone_args, open_how) */
	BNDL_BLOB_BEFORE =
		7, /* struct bndl_before: path argi before the program first changed it */
	BNDL_BLOB_PAYLOAD = 8, /* bytes a DNS socket sent or received through argument argi */
	BNDL_BLOB_TRUNCATED = 0x8000, /* flag or'ed into kind: data was cut */
};

/*
 * Metadata of a path just before the first call that may change it
 * (lstat(2) from the tracer), host layout.
 */
struct bndl_before {
	int32_t err; /* 0: it existed; else the errno of lstat (ENOENT …) */
	uint32_t mode; /* st_mode: type and permission bits */
	uint32_t uid, gid;
	uint32_t pad;
	uint64_t size; /* bytes */
	int64_t mtime_ns; /* since the epoch */
};

/* One blob of an event; data is borrowed (see the functions for lifetime). */
struct bndl_blob {
	uint16_t kind;
	uint16_t argi;
	uint32_t len; /* bytes */
	const void *data;
};

/* An event as handed to the spool and read back from it. */
struct bndl_event {
	uint16_t type; /* enum bndl_rec_type */
	uint32_t flags; /* enum bndl_event_flag */
	uint64_t seq;
	uint64_t t_ns; /* since the start of the recording (CLOCK_MONOTONIC) */
	uint64_t dur_ns; /* entry to exit stop */
	int32_t pid; /* thread group id */
	int32_t tid;
	int32_t ppid; /* PROC_START only */
	/*
	 * PROC_EXIT: wait status as from waitpid(2); SYSCALL with
	 * BNDL_EV_INJECTED or BNDL_EV_INJECT_FAILED: the policy's number for
	 * what decided (a fault rule, from 1), 0 none
	 */
	int32_t status;
	int32_t nr; /* syscall number for arch */
	uint32_t arch; /* AUDIT_ARCH_* of the call (linux/audit.h) */
	uint64_t args[6];
	int64_t ret; /* raw kernel return: -errno on failure */
	uint16_t nblobs;
	struct bndl_blob blobs[BNDL_EVENT_MAX_BLOBS];
};

/*
 * What a spool left out because its filesystem was full; all 0 when it never
 * filled.  Host layout: the blob of a BNDL_REC_END record.
 */
struct bndl_spool_drops {
	uint64_t events; /* syscall records dropped (each an events.jsonl and a trace.txt line) */
	uint64_t bytes; /* bytes of spool records dropped, process records included */
	uint64_t procs; /* process records dropped (start, exec, exit): the reserve ran out too */
	uint64_t slim_execs; /* exec records kept without envp, argv cut to BNDL_SPOOL_SLIM_ARGV */
	uint64_t since_ns; /* completion time (t_ns + dur_ns) of the first dropped call */
	int32_t errnum; /* ENOSPC or EDQUOT once the filesystem filled; 0 before */
	uint32_t reserved;
};

/* bndl_is_disk_full - true for the errno values of a full filesystem: ENOSPC, EDQUOT. */
bool bndl_is_disk_full(int errnum);

struct bndl_spool;

/*
 * bndl_spool_open - create DIR/events.spool (O_EXCL) for appending, and
 * DIR/reserve of BNDL_SPOOL_RESERVE_SIZE allocated bytes (posix_fallocate(3);
 * none when even that does not fit).  dir must exist.  Returns a handle freed by
 * bndl_spool_close(), or NULL with *err (errno of open/write: EEXIST,
 * ENOSPC when not even the file header fits …).
 */
struct bndl_spool *bndl_spool_open(const char *dir, struct repro_err **err);

/*
 * bndl_spool_append - copy ev (and its blobs, each cut to BNDL_BLOB_MAX, the
 * BNDL_BLOB_ARGV ones to BNDL_ARGV_MAX together) into the spool.  Does not
 * allocate.  A full filesystem is no error: from then on a syscall record is
 * counted in bndl_spool_drops() instead, and an exec record is kept without
 * its environment (argv cut to BNDL_SPOOL_SLIM_ARGV); a process record
 * that finds no room even in the reserve is kept in memory instead
 * (bndl_spool_take_lost(), the one allocation).  Returns 0, or -1 with
 * *err on another write error (EIO …); after an error the spool stays usable
 * up to the last record written.
 */
int bndl_spool_append(struct bndl_spool *sp, const struct bndl_event *ev, struct repro_err **err);

/*
 * bndl_spool_flush - write out buffered records.  When the filesystem is
 * full, the whole records that went out stay (the torn one is cut off), the
 * syscall records still buffered are dropped and the process records go
 * into the reserve from then on; those that do not fit are dropped
 * (bndl_spool_drops()->procs).  0, or -1 with *err on another write error.
 */
int bndl_spool_flush(struct bndl_spool *sp, struct repro_err **err);

/* bndl_spool_count - number of records appended so far, dropped ones included. */
uint64_t bndl_spool_count(const struct bndl_spool *sp);

/* bndl_spool_drops - what was dropped so far; borrowed, valid until sp is closed. */
const struct bndl_spool_drops *bndl_spool_drops(const struct bndl_spool *sp);

/*
 * bndl_spool_lost_end - true when the BNDL_REC_END record found no room
 * (bndl_spool_end()): a later `repro pack` of the spool cannot know the
 * drops nor how the run ended.
 */
bool bndl_spool_lost_end(const struct bndl_spool *sp);

/*
 * bndl_spool_take_lost - the process records (PROC_START, PROC_EXEC,
 * PROC_EXIT, PROC_LEFT) dropped because even the reserve had no room for
 * them, in the order appended, without their blobs: *n of them, a malloc'ed
 * array that moves to the caller (NULL when none), for bndl_run_info.
 */
struct bndl_event *bndl_spool_take_lost(struct bndl_spool *sp, size_t *n);

/*
 * bndl_spool_end - flush, then append the BNDL_REC_END record (has_exit:
 * status is the first process's wait status, as from waitpid(2);
 * duration_ns: of the recording) with the drops counted until now, and
 * flush it.  Returns 0, or -1 with *err as bndl_spool_flush().
 */
int bndl_spool_end(struct bndl_spool *sp, bool has_exit, int status, uint64_t duration_ns,
		   struct repro_err **err);

/*
 * bndl_spool_close - flush, close and free sp (NULL-safe).  The reserve is
 * removed when the filesystem never filled, else cut to the records it
 * holds, so that what is derived after the run has the rest of its room.
 * Returns 0, or -1 with *err when the final flush failed (sp is freed
 * anyway).
 */
int bndl_spool_close(struct bndl_spool *sp, struct repro_err **err);

/*
 * bndl_spool_remove - remove DIR/events.spool, DIR/run.json, DIR/reserve and
 * the members derived into the spool (host.json, files.jsonl, network.jsonl;
 * any may be missing), then the directory DIR itself, after a successful
 * pack.  Returns 0, or -1 with *err (errno of unlink/rmdir, e.g. ENOTEMPTY
 * when other files were left in DIR).
 */
int bndl_spool_remove(const char *dir, struct repro_err **err);

/*
 * bndl_spool_check - before a spool left behind is packed (`repro pack`):
 * DIR must be a directory of the calling user (its effective uid) that no
 * other user may write in, and each of the files a spool holds
 * (events.spool, run.json, reserve and the derived members, as
 * bndl_spool_remove() names them) a regular file when it is there -- not
 * a symbolic link, whose target the pack would write or read, nor a FIFO,
 * whose open(2) would wait for ever.  Root packing a spool another user
 * prepared would otherwise write where that user's links point.  Returns
 * 0, or -1 with *err (errnum 0 and a sentence naming what is wrong; errno
 * of open(2) when DIR cannot be opened).
 */
int bndl_spool_check(const char *dir, struct repro_err **err);

struct bndl_spool_reader;

/*
 * bndl_spool_reader_open - open DIR/events.spool for reading (and then
 * DIR/reserve, when the spool went on there); checks the file header.  Returns a handle for bndl_spool_reader_free(), or NULL with *err
 * (ENOENT, or EPROTO for a foreign or newer file).
 */
struct bndl_spool_reader *bndl_spool_reader_open(const char *dir, struct repro_err **err);

/*
 * bndl_spool_reader_next - read the next record into *ev.  Blob data points
 * into the reader and stays valid until the next call.  Returns 1 for a
 * record, 0 at the end (a record cut short by a killed recorder counts as the
 * end; bndl_spool_reader_was_truncated() then says so), -1 with *err on a
 * malformed record (EPROTO) or a read error.
 */
int bndl_spool_reader_next(struct bndl_spool_reader *r, struct bndl_event *ev,
			   struct repro_err **err);

/*
 * bndl_spool_reader_position - how far reading has come: *done bytes of
 * *total (events.spool's size when opened; more once reading went on in
 * the reserve).  For a progress line; O(1).
 */
void bndl_spool_reader_position(const struct bndl_spool_reader *r, uint64_t *done, uint64_t *total);

/* bndl_spool_reader_was_truncated - true when the spool ended mid-record. */
bool bndl_spool_reader_was_truncated(const struct bndl_spool_reader *r);

void bndl_spool_reader_free(struct bndl_spool_reader *r);

/*
 * bndl_event_blob - the first blob of ev with kind (TRUNCATED flag ignored)
 * and argi, or NULL.  Borrowed from ev.
 */
const struct bndl_blob *bndl_event_blob(const struct bndl_event *ev, uint16_t kind, uint16_t argi);

#endif
