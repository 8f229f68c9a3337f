#include "recorder/dns.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <stdio.h>
#include <string.h>

const char *rec_dns_type_name(uint16_t type, char *buf, size_t cap)
{
	static const struct {
		uint16_t type;
		const char *name;
	} names[] = {
		{ ns_t_a, "A" },     { ns_t_ns, "NS" },	    { ns_t_cname, "CNAME" },
		{ ns_t_soa, "SOA" }, { ns_t_ptr, "PTR" },   { ns_t_mx, "MX" },
		{ ns_t_txt, "TXT" }, { ns_t_aaaa, "AAAA" }, { ns_t_srv, "SRV" },
		{ 64, "SVCB" },	     { 65, "HTTPS" },	    { ns_t_any, "ANY" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			return names[i].name;
	snprintf(buf, cap, "TYPE%u", type);
	return buf;
}

const char *rec_dns_rcode_name(int rcode, char *buf, size_t cap)
{
	static const char *const names[] = { "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN",
					     "NOTIMP",	"REFUSED", "YXDOMAIN", "YXRRSET",
					     "NXRRSET", "NOTAUTH", "NOTZONE" };

	if (rcode >= 0 && (size_t)rcode < sizeof(names) / sizeof(names[0]))
		return names[rcode];
	snprintf(buf, cap, "RCODE%d", rcode);
	return buf;
}

static void add_answer(ns_msg *h, ns_rr *rr, struct rec_dns_msg *out)
{
	char text[REC_DNS_NAME_MAX];

	if (ns_rr_type(*rr) == ns_t_a && ns_rr_rdlen(*rr) == 4) {
		inet_ntop(AF_INET, ns_rr_rdata(*rr), text, sizeof(text));
		if (json_array_size(out->answers) < REC_DNS_ANSWERS_MAX)
			json_array_append_new(out->answers, json_string(text));
	} else if (ns_rr_type(*rr) == ns_t_aaaa && ns_rr_rdlen(*rr) == 16) {
		inet_ntop(AF_INET6, ns_rr_rdata(*rr), text, sizeof(text));
		if (json_array_size(out->answers) < REC_DNS_ANSWERS_MAX)
			json_array_append_new(out->answers, json_string(text));
	} else if (ns_rr_type(*rr) == ns_t_cname &&
		   ns_name_uncompress(ns_msg_base(*h), ns_msg_end(*h), ns_rr_rdata(*rr), text,
				      sizeof(text)) >= 0) {
		if (json_array_size(out->cnames) < REC_DNS_ANSWERS_MAX)
			/* presentation form: bytes outside printable ASCII are \DDD escapes */
			json_array_append_new(out->cnames, json_string(text));
	}
}

int rec_dns_parse(const uint8_t *msg, size_t len, struct rec_dns_msg *out)
{
	ns_msg h;
	ns_rr rr;

	memset(out, 0, sizeof(*out));
	if (len < NS_HFIXEDSZ)
		return -1;
	out->id = (uint16_t)(msg[0] << 8 | msg[1]);
	out->response = (msg[2] & 0x80) != 0;
	out->truncated = (msg[2] & 0x02) != 0;
	out->rcode = msg[3] & 0x0f;
	out->answers = json_array();
	out->cnames = json_array();
	if (ns_initparse(msg, (int)(len > 65535 ? 65535 : len), &h) < 0)
		return 0;
	if (ns_msg_count(h, ns_s_qd) > 0 && ns_parserr(&h, ns_s_qd, 0, &rr) == 0) {
		snprintf(out->name, sizeof(out->name), "%s", ns_rr_name(rr));
		out->qtype = ns_rr_type(rr);
		out->has_question = true;
	}
	for (int i = 0; out->response && i < ns_msg_count(h, ns_s_an); i++) {
		if (ns_parserr(&h, ns_s_an, i, &rr) < 0)
			break;
		add_answer(&h, &rr, out);
	}
	return 0;
}

void rec_dns_msg_release(struct rec_dns_msg *m)
{
	json_decref(m->answers);
	json_decref(m->cnames);
	m->answers = m->cnames = NULL;
}
