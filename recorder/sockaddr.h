#ifndef REPRO_RECORDER_SOCKADDR_H
#define REPRO_RECORDER_SOCKADDR_H

/*
 * Decoding struct sockaddr bytes as the program passed them (ip(7), ipv6(7),
 * unix(7)): AF_INET, AF_INET6, AF_UNIX with a path, an abstract name or none.
 */

#include <jansson.h>
#include <stddef.h>

/*
 * rec_sockaddr_json - {"family":"AF_INET","ip":"1.2.3.4","port":443},
 * {"family":"AF_UNIX","path":"/run/x"} / {"family":"AF_UNIX","abstract":"name"},
 * {"family":"AF_X"} for other families or short buffers.  A new reference.
 */
json_t *rec_sockaddr_json(const void *sa, size_t len);

/*
 * rec_sockaddr_text - strace's form: {sa_family=AF_INET, sin_port=htons(443),
 * sin_addr=inet_addr("1.2.3.4")}, written into buf (cap bytes).  Returns buf.
 */
char *rec_sockaddr_text(const void *sa, size_t len, char *buf, size_t cap);

/*
 * rec_sockaddr_short - "1.2.3.4:443", "[::1]:80", "/run/x.sock", "@abstract",
 * for one-line reports.  Returns buf.
 */
char *rec_sockaddr_short(const void *sa, size_t len, char *buf, size_t cap);

#endif
