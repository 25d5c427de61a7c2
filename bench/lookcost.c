/* What a bounded look costs: jp_probe_stat (a request to a helper process
 * that is kept and used again) against the stat(2) it bounds, and against
 * what each look cost before the helpers: a fork of this process per look
 * that answers through a pipe (done here, in the benchmark only).
 *   lookcost PATH [N]
 * prints "HELPER_US STAT_US FORK_US SPAWN_US": microseconds per look,
 * medians of N (default 2,000; the fork N/10); SPAWN_US is the first look,
 * which starts the helper (a command's first look pays it once). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/probe.h"

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int helper_look(const char *path)
{
	struct stat st;
	int e;

	return jp_probe_stat(&st, &e, path, 0, 0, NULL);
}

static int stat_look(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? 0 : -1;
}

/* the old shape: fork, stat in the child, the answer through a pipe */
static int fork_look(const char *path)
{
	struct stat st;
	int fds[2], status;
	pid_t pid;

	if (pipe(fds) != 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		int r = stat(path, &st) == 0;
		_exit(write(fds[1], &st, sizeof(st)) == (ssize_t)sizeof(st) && r ? 0 : 1);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], &st, sizeof(st));
	close(fds[0]);
	waitpid(pid, &status, 0);
	return n == (ssize_t)sizeof(st) ? 0 : -1;
}

static double per_look(int (*look)(const char *), const char *path, size_t n)
{
	double *v = calloc(n, sizeof(*v)), m;

	if (!v)
		exit(1);
	for (size_t i = 0; i < n; i++) {
		double t = now_us();
		if (look(path) != 0) {
			fprintf(stderr, "lookcost: a look at %s failed\n", path);
			exit(1);
		}
		v[i] = now_us() - t;
	}
	m = median(v, n);
	free(v);
	return m;
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 2000;
	double helper, plain, forked, spawned;

	if (argc < 2 || n < 10) {
		fprintf(stderr, "usage: lookcost PATH [N >= 10]\n");
		return 2;
	}
	/* the first look starts the helper: what a command's first look costs */
	double t = now_us();
	if (helper_look(argv[1]) != 0)
		return 1;
	spawned = now_us() - t;
	helper = per_look(helper_look, argv[1], n);
	plain = per_look(stat_look, argv[1], n);
	forked = per_look(fork_look, argv[1], n / 10);
	printf("%.1f %.1f %.1f %.1f\n", helper, plain, forked, spawned);
	return 0;
}
