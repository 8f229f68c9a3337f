/*
 * After the run: derive files.jsonl, network.jsonl, waits.jsonl and
 * host.json from the spool and pack the bundle (bundles/pack.h), moving on
 * through bndl_scratch_dirs() where a filesystem is full; and the same
 * packing for a spool packed later (sess_pack_spool()).
 */
#include "session/session_internal.h"
#include "bundles/json_util.h"
#include "bundles/members.h"
#include "bundles/reader.h"
#include "common/cleanup.h"
#include "common/fdutil.h"
#include "common/xalloc.h"
#include "recorder/files.h"
#include "recorder/host.h"
#include "recorder/iouring.h"
#include "recorder/network.h"
#include "recorder/render.h"
#include "recorder/waits.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The members the session derives into the spool directory after the run
 * (BNDL_BY_SESSION of bundles/members.h), NULL-terminated, into names
 * (room for every member).
 */
static void session_members(const char **names)
{
	size_t n = 0;

	for (size_t i = 0; bndl_members[i].name != NULL; i++)
		if (bndl_members[i].producer == BNDL_BY_SESSION)
			names[n++] = bndl_members[i].name;
	names[n] = NULL;
}

/*
 * Render the spool's records (recorder/render.h, redacting with redact,
 * noting names in redacted) and pack them with the extra members into
 * dest.  What bndl_pack_to() returns.
 */
static int pack_spool(const char *spool_dir, struct bndl_run_info *info,
		      const struct rec_redact *redact, json_t *redacted,
		      const struct bndl_pack_dest *dest, const struct sess_progress *progress,
		      char **written, struct repro_err **err)
{
	cleanup_renderer struct rec_renderer *r = rec_renderer_new(redact, redacted);
	const char *extra[BNDL_MEMBERS_MAX];
	struct bndl_render_ops ops;

	session_members(extra);
	rec_renderer_ops(r, &ops);
	if (progress != NULL) {
		ops.progress = progress->fn;
		ops.progress_ctx = progress->ctx;
	}
	info->extra_members = extra;
	return bndl_pack_to(spool_dir, info, &ops, dest, written, err);
}

/*
 * Redact every member the session derived into DIR (BNDL_BY_SESSION: JSON
 * Lines, or host.json as one document) with the policy, learned values
 * included: paths in files.jsonl, DNS names in network.jsonl, links in
 * waits.jsonl, host facts.  O(their bytes).
 */
static int redact_derived(const struct rec_redact *redact, const char *dir, struct repro_err **err)
{
	for (size_t i = 0; bndl_members[i].name != NULL; i++) {
		const char *name = bndl_members[i].name;
		size_t n = strlen(name);
		cleanup_free char *path = NULL;

		if (bndl_members[i].producer != BNDL_BY_SESSION)
			continue;
		path = repro_path_join(dir, name);
		if (rec_redact_member_file(redact, path,
					   n > 6 && strcmp(name + n - 6, ".jsonl") == 0, err) < 0)
			return -1;
	}
	return 0;
}

/* A set-user-ID program that ran without its privileges, said and kept as a warning. */
static void note_setid(struct sess_state *s, const char *example)
{
	char note[512];

	/* ptrace(2): an unprivileged tracer keeps execve from gaining privileges */
	snprintf(note, sizeof(note),
		 "%.200s is set-user-ID or set-group-ID and ran without its privileges: a "
		 "tracer that is not root cannot let it gain them",
		 example);
	sess_notice(s, "%s", note);
	sess_add_warning(s, note);
}

/*
 * host.json for the pack, from the facts in memory with the filesystems
 * the run used: the spool's copy (written while the program ran, for a
 * `repro pack` after a killed recording) is left as it is.
 */
static int host_text(struct sess_state *s, const char *files, struct repro_err **err)
{
	if (s->host_json == NULL)
		return 0;
	if (rec_host_add_fs_usage(s->host_json, files, err) < 0)
		return -1;
	(void)rec_redact_json(s->redact, s->host_json);
	free(s->host_text);
	s->host_text = json_dumps(s->host_json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (s->host_text == NULL)
		return repro_err_set(err, ENOMEM, "cannot render host.json");
	s->info.host_json_text = s->host_text;
	return 0;
}

/* files.jsonl, network.jsonl, waits.jsonl in the directory work; host.json's text in memory. */
static int derive(struct sess_state *s, const char *work, struct repro_err **err)
{
	cleanup_free char *net = repro_xasprintf("%s/network.jsonl", work);
	cleanup_free char *waits = repro_xasprintf("%s/waits.jsonl", work);
	cleanup_free char *files = repro_xasprintf("%s/files.jsonl", work);
	struct rec_files_opts fo;
	struct rec_files_stats fs = { 0 };
	char note[512];

	rec_files_opts_init(&fo);
	fo.hash_max_bytes = s->o->hash_max;
	fo.hash_secrets = s->o->hash_secrets;
	if (rec_files_write_stats(s->spool_dir, &fo, files, &fs, err) < 0)
		return -1;
	if (fs.setid_execs > 0 && geteuid() != 0)
		note_setid(s, fs.setid_example);
	if (fs.dropped > 0) {
		snprintf(note, sizeof(note),
			 "%llu paths past the limit of files.jsonl were left out",
			 (unsigned long long)fs.dropped);
		sess_add_warning(s, note);
	}
	if (rec_iouring_note(s->spool_dir, note, sizeof(note), err) < 0 ||
	    host_text(s, files, err) < 0)
		return -1;
	if (note[0] != '\0')
		sess_add_warning(s, note);
	if (rec_waits_write(s->spool_dir, waits, err) < 0 ||
	    sess_overlay_derive(s, work, err) < 0 || rec_network_write(s->spool_dir, net, err) < 0)
		return -1;
	return redact_derived(s->redact, work, err);
}

/* Derive into work, then pack: the bundle goes to -o or, when that is full, into one of dirs. */
static int pack_via(struct sess_state *s, const char *work, char *const *dirs,
		    struct repro_err **err)
{
	const struct bndl_pack_dest dest = { .out_path = s->o->output,
					     .fallback_dirs = (const char *const *)dirs,
					     .scratch_dirs = (const char *const *)dirs };
	int rc;

	if (derive(s, work, err) < 0)
		return -1;
	s->info.extra_dir = work;
	rc = pack_spool(s->spool_dir, &s->info, s->redact, s->redacted, &dest,
			s->o->progress.fn != NULL ? &s->o->progress : NULL, &s->written, err);
	s->info.extra_dir = NULL; /* work may go away */
	return rc;
}

/*
 * When the spool's filesystem has no room for what is derived after the
 * run, derive into a directory of its own in each of dirs on another
 * filesystem until one takes the bundle.  Returns 0 when packed, 1 when
 * every place was full, -1 with *err on other trouble.
 */
static int pack_elsewhere(struct sess_state *s, char *const *dirs, size_t warnings_len,
			  struct repro_err **err)
{
	for (size_t i = 0; dirs[i] != NULL; i++) {
		cleanup_free char *work = repro_xasprintf("%s/repro-work.XXXXXX", dirs[i]);
		cleanup_err struct repro_err *werr = NULL;
		int rc;

		if (sess_same_fs(dirs[i], s->spool_dir) || mkdtemp(work) == NULL)
			continue;
		s->warnings[warnings_len] = '\0'; /* derive() adds its notes again */
		rc = pack_via(s, work, dirs, &werr);
		(void)bndl_spool_remove(work, NULL);
		if (rc == 0)
			return 0;
		if (!bndl_is_disk_full(werr->errnum)) {
			*err = steal_ptr(&werr);
			return -1;
		}
	}
	return 1;
}

/* For the notice: the places other than -o's filesystem that were tried for the bundle. */
static void note_tried(struct sess_state *s, char *const *dirs, const char *out_dir)
{
	for (size_t i = 0; dirs[i] != NULL; i++) {
		size_t len = strlen(s->tried);

		if (!sess_same_fs(dirs[i], out_dir))
			snprintf(s->tried + len, sizeof(s->tried) - len, "%s%s", len ? ", " : "",
				 dirs[i]);
	}
}

/* What the failed attempt derived into the spool would only take room. */
static void unlink_derived(const char *spool_dir)
{
	cleanup_free char *files = repro_path_join(spool_dir, BNDL_FILES_JSONL);
	cleanup_free char *net = repro_path_join(spool_dir, BNDL_NETWORK_JSONL);
	cleanup_free char *waits = repro_path_join(spool_dir, BNDL_WAITS_JSONL);
	cleanup_free char *ovl = repro_path_join(spool_dir, BNDL_OVERLAY_JSONL);

	(void)unlink(ovl);
	(void)unlink(files);
	(void)unlink(net);
	(void)unlink(waits);
}

/* A word for sh(1): single-quoted unless it is made of safe characters only. */
static void put_sh_word(FILE *f, const char *w)
{
	if (w[0] != '\0' && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				      "0123456789_./-+=:,@%") == strlen(w)) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w != '\0'; w++) {
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	}
	fputc('\'', f);
}

/* The command that makes the bundle from a kept spool: "repro pack SPOOL -o OUT", quoted for sh(1). */
static void put_pack_cmd(FILE *f, const struct sess_state *s)
{
	fputs("repro pack ", f);
	put_sh_word(f, s->spool_dir);
	fputs(" -o ", f);
	put_sh_word(f, s->o->output);
}

/*
 * A pack that failed for another reason than a full disk (an output where
 * nothing can be created, a read error): *err gets the command that makes
 * the bundle from the spool, which stays.  Returns -1.
 */
static int wrap_kept(const struct sess_state *s, struct repro_err **err)
{
	cleanup_free char *cmd = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);

	if (f == NULL)
		return -1;
	put_pack_cmd(f, s);
	if (fclose(f) != 0)
		return -1;
	return repro_err_wrap(err, "cannot pack the recording (its spool is kept: %s)", cmd);
}

int sess_pack(struct sess_state *s, struct repro_err **err)
{
	cleanup_free char *copy = repro_xstrdup(s->o->output);
	const char *out_dir = dirname(copy);
	cleanup_dirs char **dirs = bndl_scratch_dirs(out_dir);
	cleanup_err struct repro_err *perr = NULL;
	size_t warnings_len = strlen(s->warnings);
	int rc;

	/* what any exec hides is hidden in every member, also before that exec */
	if (rec_redact_learn_spool(s->redact, s->spool_dir, &perr) < 0) {
		*err = steal_ptr(&perr);
		return wrap_kept(s, err);
	}
	rc = pack_via(s, s->spool_dir, dirs, &perr);

	if (rc < 0 && !bndl_is_disk_full(perr->errnum)) {
		*err = steal_ptr(&perr);
		return wrap_kept(s, err);
	}
	if (rc < 0) {
		unlink_derived(s->spool_dir);
		rc = pack_elsewhere(s, dirs, warnings_len, err);
		if (rc < 0)
			return -1;
	}
	note_tried(s, dirs, out_dir);
	if (s->written == NULL)
		return 0; /* kept */
	if (strcmp(s->written, s->o->output) != 0)
		s->full_output = repro_xstrdup(s->o->output);
	(void)bndl_spool_remove(s->spool_dir, NULL);
	return 0;
}

/* No room for the bundle anywhere: the command that makes it later, and what it will lack. */
static void put_kept(FILE *f, const struct sess_state *s)
{
	fprintf(f, "no room for the bundle at '%s'%s%s: the spool is kept", s->o->output,
		s->tried[0] ? " nor in " : "", s->tried);
	/* a later pack knows only what the spool holds */
	if (s->lost_end)
		fputs(" without its last record (a bundle made from it will not know the "
		      "counts of what was dropped)",
		      f);
	if (s->nlost > 0)
		fprintf(f,
			" without %zu process records (a bundle made from it may lack "
			"processes or exit statuses)",
			s->nlost);
	fputs("; make the bundle later with: ", f);
	put_pack_cmd(f, s);
}

/*
 * One notice when a filesystem was full: what the spool dropped, and where
 * the bundle went, or the command that makes it later.
 */
void sess_report_full_disk(const struct sess_state *s)
{
	cleanup_free char *note = NULL;
	cleanup_free char *line = NULL;
	size_t len = 0;
	FILE *f;

	if (s->drops.errnum == 0 && s->full_output == NULL && s->written != NULL)
		return;
	f = open_memstream(&line, &len);
	if (f == NULL)
		return;
	if (s->drops.errnum != 0) {
		note = bndl_drops_note(&s->drops, true, s->lost, s->nlost);
		fprintf(f, "%s; ", note);
	}
	if (s->written == NULL)
		put_kept(f, s);
	else if (s->full_output != NULL)
		fprintf(f, "no room for the bundle at '%s': written to '%s' instead%s",
			s->full_output, s->written, s->drops.errnum ? ", marked incomplete" : "");
	else
		fprintf(f, "the bundle '%s' is marked incomplete", s->written);
	if (fclose(f) == 0)
		sess_notice(s, "%s", line);
}

/*
 * files.jsonl, network.jsonl and waits.jsonl, as a run makes them.  Best
 * effort: a spool on a read-only or full mount still packs, without them
 * (a partial one is removed, so that it is not packed); a stale one, from a
 * pack that was cut short, is replaced.
 */
static void derive_later(const char *spool_dir)
{
	cleanup_free char *files = repro_xasprintf("%s/files.jsonl", spool_dir);
	cleanup_free char *net = repro_xasprintf("%s/network.jsonl", spool_dir);
	cleanup_free char *waits = repro_xasprintf("%s/waits.jsonl", spool_dir);
	cleanup_err struct repro_err *tmp_err = NULL;

	/* made anew, never written through what is there (bndl_spool_check() saw regular files) */
	(void)unlink(files);
	(void)unlink(net);
	(void)unlink(waits);
	if (rec_files_write(spool_dir, NULL, files, &tmp_err) < 0) {
		repro_err_free(&tmp_err);
		(void)unlink(files);
	}
	if (rec_network_write(spool_dir, net, &tmp_err) < 0) {
		repro_err_free(&tmp_err);
		(void)unlink(net);
	}
	if (rec_waits_write(spool_dir, waits, &tmp_err) < 0) {
		repro_err_free(&tmp_err);
		(void)unlink(waits);
	}
}

/* True when out's directory is the spool directory itself. */
static bool output_inside(const char *spool_dir, const char *out)
{
	cleanup_free char *copy = repro_xstrdup(out);
	char a[PATH_MAX], b[PATH_MAX];

	if (realpath(spool_dir, a) == NULL || realpath(dirname(copy), b) == NULL)
		return false;
	return strcmp(a, b) == 0;
}

int sess_pack_spool(const char *spool_dir, const char *out_path,
		    const struct sess_progress *progress, struct repro_err **err)
{
	struct bndl_run_info run;
	cleanup_free char **run_argv = NULL;
	cleanup_free char *out_copy = repro_xstrdup(out_path);
	cleanup_dirs char **scratch = NULL;
	cleanup_json json_t *holder = NULL;
	cleanup_json json_t *redacted = NULL;
	cleanup_redact struct rec_redact *redact = rec_redact_new(NULL, NULL, NULL);
	struct bndl_pack_dest dest = { .out_path = out_path };
	cleanup_close int lock = -1;

	if (bndl_spool_check(spool_dir, err) < 0)
		return repro_err_wrap(err, "cannot pack '%s'", spool_dir);
	if (output_inside(spool_dir, out_path))
		return repro_err_set(err, EINVAL,
				     "pack: the bundle '%s' would be written inside the spool "
				     "'%s', which is removed after packing",
				     out_path, spool_dir);
	/* a recording writing -o now would replace this bundle, or this one its */
	if ((lock = sess_output_lock(out_path, err)) == -2)
		return repro_err_wrap(err, "cannot pack '%s'", spool_dir);
	if (bndl_runinfo_load(spool_dir, &run, &holder, &run_argv, err) < 0)
		return repro_err_wrap(err, "cannot pack '%s'", spool_dir);
	run.is_packed_later = true;
	/* run.json has no list of names: the manifest gets those the renderer redacts */
	if (run.redacted == NULL)
		run.redacted = redacted = json_array();
	derive_later(spool_dir);
	/* the default rules (no --keep-env, --redact), with what the spool's execs reveal */
	if (rec_redact_learn_spool(redact, spool_dir, err) < 0 ||
	    redact_derived(redact, spool_dir, err) < 0)
		return repro_err_wrap(err, "cannot pack '%s'", spool_dir);
	/* staged where there is room; the bundle itself goes to -o or nowhere */
	scratch = bndl_scratch_dirs(dirname(out_copy));
	dest.scratch_dirs = (const char *const *)scratch;
	if (pack_spool(spool_dir, &run, redact, run.redacted, &dest, progress, NULL, err) < 0)
		return repro_err_wrap(err, "cannot pack '%s'", spool_dir);
	return bndl_spool_remove(spool_dir, err);
}
