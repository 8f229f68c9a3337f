#include "recorder/sockaddr.h"
#include "recorder/flags.h"
#include "recorder/jsonstr.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

static sa_family_t family_of(const void *sa, size_t len)
{
	sa_family_t f = AF_UNSPEC;

	if (len >= sizeof(f))
		memcpy(&f, sa, sizeof(f));
	return f;
}

/* sun_path bytes after the family: empty (unnamed), abstract (leading NUL) or a path. */
static size_t unix_path(const void *sa, size_t len, const char **path, bool *abstract)
{
	const struct sockaddr_un *un = sa;
	size_t off = offsetof(struct sockaddr_un, sun_path), n;

	if (len <= off) {
		*path = "";
		*abstract = false;
		return 0;
	}
	n = len - off;
	if (n > sizeof(un->sun_path))
		n = sizeof(un->sun_path);
	*abstract = un->sun_path[0] == '\0';
	*path = un->sun_path + (*abstract ? 1 : 0);
	if (*abstract) {
		/* programs often pass sizeof(struct sockaddr_un): the name is padded with NULs */
		n--;
		while (n > 0 && (*path)[n - 1] == '\0')
			n--;
		return n;
	}
	return strnlen(*path, n);
}

json_t *rec_sockaddr_json(const void *sa, size_t len)
{
	sa_family_t f = family_of(sa, len);
	char fam[32], ip[INET6_ADDRSTRLEN];
	json_t *o = json_object();

	json_object_set_new(o, "family", json_string(rec_domain_format(f, fam, sizeof(fam))));
	if (f == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = sa;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		json_object_set_new(o, "ip", json_string(ip));
		json_object_set_new(o, "port", json_integer(ntohs(in->sin_port)));
	} else if (f == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		json_object_set_new(o, "ip", json_string(ip));
		json_object_set_new(o, "port", json_integer(ntohs(in6->sin6_port)));
	} else if (f == AF_UNIX) {
		const char *p;
		bool abstract;
		size_t n = unix_path(sa, len, &p, &abstract);

		json_object_set_new(o, abstract ? "abstract" : "path", rec_json_str(p, n));
	}
	return o;
}

char *rec_sockaddr_text(const void *sa, size_t len, char *buf, size_t cap)
{
	sa_family_t f = family_of(sa, len);
	char fam[32], ip[INET6_ADDRSTRLEN];

	rec_domain_format(f, fam, sizeof(fam));
	if (f == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = sa;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, cap,
			 "{sa_family=AF_INET, sin_port=htons(%u), sin_addr=inet_addr(\"%s\")}",
			 ntohs(in->sin_port), ip);
	} else if (f == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, cap,
			 "{sa_family=AF_INET6, sin6_port=htons(%u), sin6_addr=inet_pton(\"%s\")}",
			 ntohs(in6->sin6_port), ip);
	} else if (f == AF_UNIX) {
		const char *p;
		bool abstract;
		size_t n = unix_path(sa, len, &p, &abstract);

		snprintf(buf, cap, "{sa_family=AF_UNIX, sun_path=%s\"%.*s\"}", abstract ? "@" : "",
			 (int)n, p);
	} else {
		snprintf(buf, cap, "{sa_family=%s}", fam);
	}
	return buf;
}

char *rec_sockaddr_short(const void *sa, size_t len, char *buf, size_t cap)
{
	sa_family_t f = family_of(sa, len);
	char ip[INET6_ADDRSTRLEN];

	if (f == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = sa;

		snprintf(buf, cap, "%s:%u", inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip)),
			 ntohs(in->sin_port));
	} else if (f == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = sa;

		snprintf(buf, cap, "[%s]:%u", inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip)),
			 ntohs(in6->sin6_port));
	} else if (f == AF_UNIX) {
		const char *p;
		bool abstract;
		size_t n = unix_path(sa, len, &p, &abstract);

		snprintf(buf, cap, "%s%.*s", abstract ? "@" : "", (int)n, p);
	} else {
		rec_domain_format(f, buf, cap);
	}
	return buf;
}
