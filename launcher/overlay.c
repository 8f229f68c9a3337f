/*
 * Overlays mounted over directories of the host in the program's mount
 * namespace (launcher/overlay.h).
 */
#include "launcher/overlay.h"
#include "common/xalloc.h"

#include <errno.h>
#include <sys/mount.h>

/* Append s to b with the characters overlayfs' option parser treats specially escaped. */
static void add_escaped(struct repro_sbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == ',' || *s == ':')
			repro_sbuf_add(b, "\\", 1);
		repro_sbuf_add(b, s, 1);
	}
}

char *lnch_overlay_data(const struct lnch_overlay *o, bool userns)
{
	struct repro_sbuf b = { 0 };

	repro_sbuf_adds(&b, "lowerdir=");
	add_escaped(&b, o->path);
	repro_sbuf_adds(&b, ",upperdir=");
	add_escaped(&b, o->upper);
	repro_sbuf_adds(&b, ",workdir=");
	add_escaped(&b, o->work);
	if (userns)
		repro_sbuf_adds(&b, ",userxattr");
	return b.buf;
}

int lnch_overlay_mount_all(const struct lnch_overlay *ovl, char *const *data, size_t n,
			   size_t *failed)
{
	for (size_t i = 0; i < n; i++) {
		if (mount("overlay", ovl[i].path, "overlay", 0, data[i]) < 0) {
			*failed = i;
			return -1;
		}
	}
	return 0;
}
