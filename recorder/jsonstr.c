#include "recorder/jsonstr.h"
#include "bundles/json_util.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <string.h>

json_t *rec_json_str(const char *s, size_t len)
{
	return bndl_json_bytes(s, len); /* one escaping for every member of the bundle */
}

char *rec_quote(const char *s, size_t len, char *buf, size_t cap)
{
	size_t k = 0;

	if (cap < 8) {
		buf[0] = '\0';
		return buf;
	}
	buf[k++] = '"';
	for (size_t i = 0; i < len && k + 6 < cap; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\')
			k += (size_t)sprintf(buf + k, "\\%c", ch);
		else if (ch == '\n')
			k += (size_t)sprintf(buf + k, "\\n");
		else if (ch == '\t')
			k += (size_t)sprintf(buf + k, "\\t");
		else if (ch < 0x20 || ch == 0x7f)
			k += (size_t)sprintf(buf + k, "\\%o", ch);
		else
			buf[k++] = (char)ch;
	}
	buf[k++] = '"';
	buf[k] = '\0';
	return buf;
}
