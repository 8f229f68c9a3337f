#ifndef REPRO_COMMON_TERM_H
#define REPRO_COMMON_TERM_H

/*
 * The one terminal sanitiser: every human-readable output of bundle data
 * (argv, paths, host and DNS names, trace.txt) goes through it at the point
 * of printing, so that a hostile bundle cannot drive the terminal (ESC and
 * CSI sequences, OSC title and clipboard writes).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * repro_term_write - write s[0..n) (bytes, not NUL-terminated) to out with
 * what a terminal could obey escaped: C0 controls and DEL as "\xNN"
 * (newline and tab kept when keep_lines), C1 controls U+0080..U+009F
 * (UTF-8 C2 80..C2 9F) and the bidirectional formatting characters
 * (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, which reorder
 * what is shown around them) as "\uNNNN", and every byte that is not part of a
 * valid UTF-8 sequence (a raw 0x9B CSI among them) as "\xNN".  Valid UTF-8
 * otherwise passes unchanged.  With more, an incomplete sequence at the end
 * is left unwritten for the caller to pass again with what follows.
 * Returns the bytes consumed.  Linear in n; write errors show in
 * ferror(out).
 */
size_t repro_term_write(FILE *out, const char *s, size_t n, bool keep_lines, bool more);

/* Longest string repro_term_puts() prints whole (bytes): no real path or name is longer. */
#define REPRO_TERM_CUT 4096u

/*
 * repro_term_puts - repro_term_write() of the NUL-terminated s (NULL:
 * nothing) as one line; past REPRO_TERM_CUT bytes it is cut (at a
 * character boundary) and "...[N bytes]" says how long it was.
 */
void repro_term_puts(FILE *out, const char *s);

/*
 * repro_term_puts_html - repro_term_puts() for an HTML page: the same
 * escapes, cut past max bytes (0: REPRO_TERM_CUT), and '&', '<', '>', '"'
 * and '\'' as character references, so s is text in an element or a
 * quoted attribute value, never markup (docs/report.md).
 */
void repro_term_puts_html(FILE *out, const char *s, size_t max);

/*
 * repro_term_puts_markup - the NUL-terminated s (NULL: nothing) as the
 * text of an XML or HTML element, whole: the escapes of repro_term_write()
 * with newlines and tabs kept, and '&', '<', '>', '"' and '\'' as
 * character references, so no byte of s is markup, a control character XML
 * 1.0 forbids, or invalid UTF-8 (a JUnit report's stderr).  Linear in s.
 */
void repro_term_puts_markup(FILE *out, const char *s);

/*
 * repro_term_quote - the NUL-terminated word s, whole and never cut, as a
 * POSIX shell would read it back: bare when it is made only of letters,
 * digits and "_-./:=@%+,"; else in single quotes when every byte is
 * printable ASCII; else as $'...' with every byte outside printable ASCII
 * (controls, DEL, every byte of a non-ASCII character, so that no
 * bidirectional or invisible character can hide what follows) as "\xNN"
 * and '\'' and '\\' escaped.  An empty word is ''.  What will run, shown
 * byte for byte (`repro replay`).  Linear in s.
 */
void repro_term_quote(FILE *out, const char *s);

#endif
