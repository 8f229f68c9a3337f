#include "common/names.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* include/linux/errno.h: seen by tracers at a syscall's exit, never by programs */
static const struct {
	int value;
	const char *name;
} restart[] = {
	{ 512, "ERESTARTSYS" }, { 513, "ERESTARTNOINTR" },	  { 514, "ERESTARTNOHAND" },
	{ 515, "ENOIOCTLCMD" }, { 516, "ERESTART_RESTARTBLOCK" },
};

#define MAX_ERRNO 4095 /* include/linux/err.h */

const char *repro_errno_name(int errnum, char *buf, size_t cap)
{
	const char *name = strerrorname_np(errnum);

	if (name != NULL)
		return name;
	for (size_t i = 0; i < sizeof(restart) / sizeof(restart[0]); i++)
		if (restart[i].value == errnum)
			return restart[i].name;
	snprintf(buf, cap, "E%d", errnum);
	return buf;
}

/* The number after prefix in s, within lo..hi, or -1 (digits only, no sign). */
static long number_after(const char *s, size_t prefix, long lo, long hi)
{
	char *end;
	long v;

	if (s[prefix] < '0' || s[prefix] > '9')
		return -1;
	errno = 0;
	v = strtol(s + prefix, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	return v;
}

int repro_errno_parse(const char *name)
{
	if (name == NULL || name[0] != 'E')
		return -1;
	for (int e = 1; e <= MAX_ERRNO; e++) {
		const char *n = strerrorname_np(e);

		if (n != NULL && strcmp(n, name) == 0)
			return e;
	}
	for (size_t i = 0; i < sizeof(restart) / sizeof(restart[0]); i++)
		if (strcmp(restart[i].name, name) == 0)
			return restart[i].value;
	return (int)number_after(name, 1, 1, MAX_ERRNO);
}

const char *repro_signal_name(int sig, char *buf, size_t cap)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev != NULL)
		snprintf(buf, cap, "SIG%s", abbrev);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, cap, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, cap, "SIG%d", sig);
	return buf;
}

int repro_signal_parse(const char *name)
{
	const char *bare;
	long n;

	if (name == NULL)
		return -1;
	bare = strncasecmp(name, "SIG", 3) == 0 ? name + 3 : name;
	if (strncasecmp(bare, "RTMIN", 5) == 0) {
		n = bare[5] == '\0' ? 0 : bare[5] == '+' ? number_after(bare, 6, 0, SIGRTMAX) : -1;
		return n >= 0 && SIGRTMIN + n <= SIGRTMAX ? (int)(SIGRTMIN + n) : -1;
	}
	if (strncasecmp(bare, "RTMAX", 5) == 0) {
		n = bare[5] == '\0' ? 0 : bare[5] == '-' ? number_after(bare, 6, 0, SIGRTMAX) : -1;
		return n >= 0 && SIGRTMAX - n >= SIGRTMIN ? (int)(SIGRTMAX - n) : -1;
	}
	for (int sig = 1; sig < SIGRTMIN; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev != NULL && strcasecmp(abbrev, bare) == 0)
			return sig;
	}
	return bare != name ? (int)number_after(bare, 0, 1, SIGRTMAX) : -1;
}

bool repro_errno_is_restart(int errnum)
{
	return errnum >= 512 && errnum <= 516;
}
