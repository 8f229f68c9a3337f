#ifndef REPRO_REPLAYER_NORMALIZE_H
#define REPRO_REPLAYER_NORMALIZE_H

/*
 * Normalising what differs between two machines or two runs without meaning
 * anything (`repro diff`, docs/diff.md): path prefixes given by --map, the
 * run's working directory, the home directory, random parts of temporary
 * names (mkstemp(3)/mktemp(1) "NAME.XXXXXX", Python's "tmpXXXXXXXX") and
 * pids in /proc paths.
 */

#include <jansson.h>
#include <stddef.h>

#define RPL_NORM_MAX_MAPS 16

struct rpl_norm {
	const char *map_from[RPL_NORM_MAX_MAPS]; /* borrowed: --map OLD */
	const char *map_to[RPL_NORM_MAX_MAPS]; /* borrowed: --map NEW */
	size_t nmaps;
	const char *cwd; /* borrowed: the run's cwd (manifest), or NULL */
	const char *home; /* borrowed: HOME of the run (host.json), or NULL */
};

/*
 * rpl_norm_path - the normalised form of path: --map prefixes replaced, then
 * the cwd as "<cwd>", the home directory as "~", random temp-name parts as
 * "XXXXXX" and /proc/PID as /proc/<pid>.  Returns a new string the caller
 * frees.
 */
char *rpl_norm_path(const struct rpl_norm *n, const char *path);

/*
 * rpl_norm_map - path with the first matching --map prefix replaced, as a
 * new string the caller frees, or NULL when no map applies.
 */
char *rpl_norm_map(const struct rpl_norm *n, const char *path);

/*
 * rpl_norm_map_parse - split "OLD=NEW" (both absolute paths, neither "/")
 * in place into *from and *to.  Returns 0, or -1 when text is not of that
 * form (text is left as it was).
 */
int rpl_norm_map_parse(char *text, const char **from, const char **to);

/*
 * rpl_exec_label - "python3 webui.py": up to three words of the argv of the
 * last exec in execs (processes.jsonl), argv[0] by its base name, each word
 * cut to 60 bytes on a character boundary, absolute paths normalised when
 * n is not NULL.  "" when there is no exec.  A new string the caller frees.
 */
char *rpl_exec_label(json_t *execs, const struct rpl_norm *n);

/*
 * rpl_exit_words - how a process or run ended, from its "exit" object
 * (processes.jsonl, manifest.json; borrowed, may be NULL): "exited 1",
 * "killed by SIGKILL", "did not end while recorded".  A new string the
 * caller frees; the signal name is the bundle's, unsanitised.
 */
char *rpl_exit_words(json_t *exit);

#endif
