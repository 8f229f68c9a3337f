#ifndef REPRO_COMMON_MOUNTINFO_H
#define REPRO_COMMON_MOUNTINFO_H

/*
 * The one parser of /proc/PID/mountinfo lines (proc(5), "mountinfo"):
 * "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPER".
 */

#include <stdbool.h>

/* One entry; every string points into the parsed line. */
struct repro_mountinfo {
	unsigned int major, minor;
	char *root; /* unescaped: the directory of the filesystem mounted here */
	char *mount_point; /* unescaped */
	char *options; /* per-mount options: "rw,nosuid" */
	char *fstype;
	char *source; /* unescaped */
	char *super_options; /* superblock options, or NULL when the line has none */
};

/*
 * repro_mountinfo_parse - parse line (NUL-terminated, a trailing newline
 * allowed) in place into *m, undoing the kernel's octal escapes (\040 for
 * a space, \011, \012, \134) in root, mount point and source.  Returns
 * false for a line that is not a mountinfo entry (then line is garbled and
 * *m undefined).  Linear in the line.
 */
bool repro_mountinfo_parse(char *line, struct repro_mountinfo *m);

#endif
