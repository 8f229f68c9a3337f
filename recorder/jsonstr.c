#include "recorder/jsonstr.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <string.h>

json_t *rec_json_str(const char *s, size_t len)
{
	/* a NUL would become \u0000, which readers (jansson without JSON_ALLOW_NUL) refuse */
	json_t *j = memchr(s, '\0', len) == NULL ? json_stringn(s, len) : NULL;
	cleanup_free char *esc = NULL;
	size_t k = 0;

	if (j != NULL)
		return j;
	esc = repro_xmalloc(len * 4 + 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x80 && ch != 0)
			esc[k++] = (char)ch;
		else
			k += (size_t)sprintf(esc + k, "\\x%02x", ch);
	}
	return json_stringn(esc, k);
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
