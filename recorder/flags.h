#ifndef REPRO_RECORDER_FLAGS_H
#define REPRO_RECORDER_FLAGS_H

/*
 * Symbolic names for flag words, modes, errno and signals, as strace prints
 * them.  Every function writes a NUL-terminated string into buf (cap bytes,
 * cut when too small) and returns buf.
 */

#include <stddef.h>
#include <stdint.h>

struct rec_flag {
	uint64_t value;
	const char *name;
};

/* rec_flags_format - "A|B|0x40" for the bits of value named in tab; "0" for 0. */
char *rec_flags_format(const struct rec_flag *tab, size_t n, uint64_t value, char *buf, size_t cap);

char *rec_oflags_format(uint64_t flags, char *buf, size_t cap); /* open(2) O_* */
char *rec_atflags_format(uint64_t flags, char *buf, size_t cap); /* AT_* */
char *rec_resolve_format(uint64_t resolve, char *buf, size_t cap); /* openat2(2) RESOLVE_* */
char *rec_amode_format(uint64_t mode, char *buf, size_t cap); /* F_OK, R_OK|W_OK|X_OK */
char *rec_mode_format(uint64_t mode, char *buf, size_t cap); /* "0644", with S_IF* for mknod */
char *rec_renameflags_format(uint64_t flags, char *buf, size_t cap);
char *rec_unlinkflags_format(uint64_t flags, char *buf, size_t cap);
char *rec_domain_format(uint64_t domain, char *buf, size_t cap); /* AF_INET */
char *rec_socktype_format(uint64_t type, char *buf, size_t cap); /* SOCK_STREAM|SOCK_CLOEXEC */
char *rec_msgflags_format(uint64_t flags, char *buf, size_t cap);
char *rec_sockopt_format(uint64_t level, uint64_t name, char *lbuf, char *nbuf, size_t cap);
char *rec_shuthow_format(uint64_t how, char *buf, size_t cap);
char *rec_cloneflags_format(uint64_t flags, char *buf, size_t cap); /* CLONE_*|SIGCHLD */
char *rec_waitopts_format(uint64_t opts, char *buf, size_t cap);
char *rec_idtype_format(uint64_t idtype, char *buf, size_t cap);

/*
 * rec_resolve_cause - the RESOLVE_* flags of resolve that make openat2(2)
 * fail with errnum (EXDEV: BENEATH, IN_ROOT, NO_XDEV; ELOOP: NO_SYMLINKS,
 * NO_MAGICLINKS, else BENEATH or IN_ROOT, which also refuse magic links;
 * EAGAIN: CACHED), as rec_resolve_format() writes them; 0 when none.
 */
uint64_t rec_resolve_cause(uint64_t resolve, int errnum);

#endif
