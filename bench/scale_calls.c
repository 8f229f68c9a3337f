/*
 * scale_calls N - make N traced calls (stat of a missing path, in a loop),
 * for the scale run of bench/bench.py: the recorder's peak RSS and the size
 * of what it writes at 1,000,000 events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct stat st;
	long missing = 0;

	for (long i = 0; i < n; i++)
		missing += stat("/nonexistent/repro-bench", &st) != 0;
	printf("%ld calls, %ld failed\n", n, missing);
	return 0;
}
