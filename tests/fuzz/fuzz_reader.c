/*
 * Fuzz target: the bundle reader itself (bundles/reader.h).  The input is a
 * bundle file.  It is opened, every member is streamed as .jsonl (each
 * line's object looked at), filtered streaming is tried, host.json and
 * manifest.json are loaded as objects and trace.txt is copied through the
 * terminal sanitiser.  Errors are the expected outcome of most inputs and
 * are dropped.
 */
#include "fuzz_input.h"
#include "bundles/reader.h"
#include "common/cleanup.h"

#include <jansson.h>

/* Every member a bundle has (docs/bundle-format.md), and one it never has. */
static const char *const members[] = {
	"manifest.json", "processes.jsonl", "events.jsonl",  "trace.txt",
	"host.json",	 "files.jsonl",	    "network.jsonl", "no-such-member",
};

#define FILTER_STOP_LINE 1000

/* Look at the object the way readers do: its keys and their types. */
static int on_line(void *ctx, json_t *obj, size_t lineno, struct repro_err **err)
{
	size_t *keys = ctx;
	const char *key;
	json_t *v;

	json_object_foreach (obj, key, v)
		*keys += json_is_object(v) || json_is_array(v) ? 2 : 1;
	return 0;
}

/* Parse every other line and stop at FILTER_STOP_LINE, as diff's seq lookup does. */
static int on_raw(void *ctx, const char *line, size_t len, size_t lineno)
{
	if (lineno >= FILTER_STOP_LINE)
		return -1;
	return (lineno % 2 == 1 && len > 0) ? 1 : 0;
}

static void read_members(struct bndl_reader *r)
{
	size_t keys = 0;

	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
		cleanup_err struct repro_err *e1 = NULL, *e2 = NULL, *e3 = NULL;

		(void)bndl_reader_has(r, members[i], &e1);
		(void)bndl_reader_foreach(r, members[i], on_line, &keys, &e2);
		(void)bndl_reader_foreach_filtered(r, members[i], on_raw, on_line, &keys, &e3);
	}
}

static void load_objects(struct bndl_reader *r)
{
	const char *const objects[] = { "host.json", "manifest.json", "events.jsonl" };

	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		cleanup_err struct repro_err *e = NULL;
		json_t *o = bndl_reader_load(r, objects[i], &e);

		(void)json_object_size(o);
		json_decref(o);
	}
}

static void copy_members(struct bndl_reader *r)
{
	cleanup_err struct repro_err *e1 = NULL, *e2 = NULL;

	(void)bndl_reader_copy(r, "trace.txt", fuzz_sink(), &e1);
	(void)bndl_reader_copy(r, "events.jsonl", fuzz_sink(), &e2);
}

const int fuzz_input_bundles = 1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_bundle fb;
	cleanup_err struct repro_err *err = NULL;
	struct bndl_reader *r;

	fuzz_bundle_open(&fb, data, size);
	r = bndl_reader_open(fb.path, &err);
	if (r != NULL) {
		(void)json_object_size(bndl_reader_manifest(r));
		read_members(r);
		load_objects(r);
		copy_members(r);
		bndl_reader_free(r);
	}
	fuzz_bundle_close(&fb);
	return 0;
}
