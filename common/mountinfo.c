#include "common/mountinfo.h"

#include <stdio.h>
#include <string.h>

/* Undo mountinfo's octal escapes in place (fs/proc_namespace.c: mangle()). */
static char *unescape(char *s)
{
	char *out = s;

	for (char *in = s; *in != '\0'; in++) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
		    in[3] >= '0' && in[3] <= '7') {
			*out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
			in += 3;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
	return s;
}

bool repro_mountinfo_parse(char *line, struct repro_mountinfo *m)
{
	char *save = NULL, *f[6], *w;
	int i = 0;

	for (w = strtok_r(line, " \n", &save); w != NULL && i < 6; w = strtok_r(NULL, " \n", &save))
		f[i++] = w;
	/* optional fields, up to the "-" separator */
	while (w != NULL && strcmp(w, "-") != 0)
		w = strtok_r(NULL, " \n", &save);
	if (i < 6 || w == NULL || sscanf(f[2], "%u:%u", &m->major, &m->minor) != 2)
		return false;
	m->root = unescape(f[3]);
	m->mount_point = unescape(f[4]);
	m->options = f[5];
	m->fstype = strtok_r(NULL, " \n", &save);
	m->source = strtok_r(NULL, " \n", &save);
	m->super_options = strtok_r(NULL, " \n", &save);
	if (m->fstype == NULL || m->source == NULL)
		return false;
	unescape(m->source);
	return true;
}
