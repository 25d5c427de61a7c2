/* What a run's own copy of its code costs to make, timed alone:
 * jp_runtree_make on a checkout (its HEAD, its uncommitted changes).
 *   runtreecost [-p] CHECKOUT    (-p: the parallel writers of network storage)
 * prints "SECONDS FILES LINKED BYTES_WRITTEN REUSED PATH". */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtree_internal.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct jp_runtree rt = JP_RUNTREE_INIT;
	struct jp_error err = JP_ERROR_INIT;
	double t0;

	if (argc != 2 && !(argc == 3 && strcmp(argv[1], "-p") == 0)) {
		fprintf(stderr, "usage: runtreecost [-p] CHECKOUT\n");
		return 2;
	}
	t0 = now();
	if (jp_runtree_make(&rt, argv[argc - 1], true, NULL, argc == 3, &err) != 0) {
		fprintf(stderr, "runtreecost: %s\n", err.n ? err.msgs[0] : "failed");
		return 1;
	}
	printf("%.3f %zu %zu %llu %d %s\n", now() - t0, rt.files, rt.linked,
	       (unsigned long long)rt.written, rt.reused, rt.path);
	jp_runtree_dispose(&rt);
	jp_error_dispose(&err);
	return 0;
}
