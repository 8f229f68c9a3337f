#ifndef REPRO_CLI_OUTPUT_H
#define REPRO_CLI_OUTPUT_H

/*
 * Where a command that writes a file (export, report) puts it: -o FILE, or
 * standard output.
 */

#include "common/err.h"

#include <stdio.h>

/* Write the whole output to out; 0, or -1 with *err (the command's own error). */
typedef int (*cli_write_fn)(void *ctx, FILE *out, struct repro_err **err);

/*
 * cli_output_write - run fn(ctx, …) into output: NULL or "-" is standard
 * output; a regular file (or a new one) is replaced whole once fn is done,
 * through a temporary file beside it renamed over it: an existing file
 * keeps its mode (and, where the caller may give it, its owner and group),
 * a new one gets 0666 less the umask.  A symbolic link named as output is
 * followed (its target is replaced) only when it is the caller's or its
 * directory owner's, as the kernel's fs.protected_symlinks follows links in
 * a sticky directory: one another user planted is refused.  Anything else
 * (/dev/stdout, a FIFO, the shell's >(…)) is written into.
 * An output that is one of inputs[0..ninputs) (borrowed paths: the bundles
 * read) is refused with EINVAL.  cmd names the command in errors ("export:
 * cannot write 'F'").  Returns 0, or -1 with *err.
 */
int cli_output_write(const char *cmd, const char *output, const char *const *inputs, size_t ninputs,
		     cli_write_fn fn, void *ctx, struct repro_err **err);

#endif
