#ifndef REPRO_RECORDER_DNS_H
#define REPRO_RECORDER_DNS_H

/*
 * Decoding DNS messages a program sent to or received from port 53
 * (RFC 1035 section 4; AAAA: RFC 3596), with the resolver library's
 * ns_initparse(3)/ns_parserr(3) from libresolv.  The bytes come from the
 * network, so every length is checked; a message that does not parse is
 * reported as such, never trusted.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest presentation-form name kept (RFC 1035: 255 octets on the wire). */
#define REC_DNS_NAME_MAX 1025
/* Answers kept per message. */
#define REC_DNS_ANSWERS_MAX 32

struct rec_dns_msg {
	uint16_t id;
	bool response; /* QR bit */
	bool truncated; /* TC bit */
	bool has_question; /* the question section parsed */
	int rcode; /* RCODE, 0..15 */
	char name[REC_DNS_NAME_MAX]; /* first question, presentation form, no trailing dot */
	uint16_t qtype;
	json_t *answers; /* owned: ["192.0.2.1", "2001:db8::1"] A/AAAA data, responses only */
	json_t *cnames; /* owned: CNAME targets in the answer section */
};

/*
 * rec_dns_parse - decode msg[0..len).  Returns 0 with *out filled (free
 * with rec_dns_msg_release()); when only the 12-byte header is readable
 * (a message cut to the capture limit), id/response/rcode are set and
 * has_question is false.  Returns -1 when len < 12 (not a DNS message).
 */
int rec_dns_parse(const uint8_t *msg, size_t len, struct rec_dns_msg *out);

void rec_dns_msg_release(struct rec_dns_msg *m);

/* rec_dns_type_name - "A", "AAAA", "CNAME" …, or "TYPE65280" (RFC 3597 section 5). */
const char *rec_dns_type_name(uint16_t type, char *buf, size_t cap);

/* rec_dns_rcode_name - "NOERROR", "NXDOMAIN" … (RFC 1035 4.1.1, RFC 6895), or "RCODE12". */
const char *rec_dns_rcode_name(int rcode, char *buf, size_t cap);

#endif
