/*
 * The replay driver of the normal builds (without REPRO_FUZZ): the same fuzz
 * target linked with this main() instead of libFuzzer's.
 *
 *   fuzz_TARGET PATH...
 *
 * Runs LLVMFuzzerTestOneInput() once on each regular file of each directory
 * PATH (in name order; dot files skipped), or on PATH itself when it is a
 * file.  Before each input it prints "replay: FILE" on stderr, so that a
 * crash or a sanitizer report follows the name of the input that caused it.
 * An input that runs longer than REPLAY_TIMEOUT_S seconds fails the run
 * naming the file.  Exit status: 0 when every input finished, 1 when a
 * timeout, an unreadable file or a directory without inputs was met, 2 on
 * bad usage; a crash is the crash's own status.
 */
#include "fuzz_input.h"
#include "common/cleanup.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPLAY_TIMEOUT_S 120

static const char *current; /* the input being replayed, for the timeout message */

static void on_alarm(int sig)
{
	static const char msg[] = "replay: timed out on ";

	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	if (current != NULL)
		(void)!write(STDERR_FILENO, current, strlen(current));
	(void)!write(STDERR_FILENO, "\n", 1);
	_exit(1);
}

/* Read the whole file path into a buffer the caller frees; NULL with errno. */
static uint8_t *read_file(const char *path, size_t *len_out)
{
	cleanup_fclose FILE *f = fopen(path, "rbe");
	cleanup_free uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 64 * 1024;
			buf = repro_xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f))
		return NULL;
	*len_out = len;
	return steal_ptr(&buf);
}

/* Replay one file; 0, or -1 when it cannot be read. */
static int replay_file(const char *path)
{
	size_t len = 0;
	cleanup_free uint8_t *data = read_file(path, &len);

	if (data == NULL) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	current = path;
	alarm(REPLAY_TIMEOUT_S);
	(void)LLVMFuzzerTestOneInput(data, len);
	alarm(0);
	current = NULL;
	return 0;
}

static int skip_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Replay every regular file in dir; returns how many, or -1 on failure. */
static long replay_dir(const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, skip_dots, alphasort);
	long done = 0, status = 0;

	if (n < 0) {
		fprintf(stderr, "replay: cannot read directory %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		cleanup_free char *path = repro_xasprintf("%s/%s", dir, names[i]->d_name);
		struct stat st;

		free(names[i]);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (replay_file(path) < 0)
			status = -1;
		else
			done++;
	}
	free(names);
	return status < 0 ? -1 : done;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS-DIR-OR-FILE...\n", argv[0]);
		return 2;
	}
	sigaction(SIGALRM, &sa, NULL);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;

		if (stat(argv[i], &st) == 0 && !S_ISDIR(st.st_mode)) {
			status |= replay_file(argv[i]) < 0;
			continue;
		}
		n = replay_dir(argv[i]);
		if (n == 0)
			fprintf(stderr, "replay: no inputs in %s\n", argv[i]);
		else if (n > 0)
			fprintf(stderr, "replay: %ld inputs of %s finished\n", n, argv[i]);
		status |= n <= 0;
	}
	return status;
}
