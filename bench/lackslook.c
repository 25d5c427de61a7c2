/* The looks the checks code.repo.lfs and code.repo.submodules add to
 * `jobprep check` and `init`, timed alone: jp_git_lfs_check and
 * jp_git_submodules_check on a checkout (each bounded, in a child).
 *   lackslook DIR
 * prints "LFS_SECONDS SUBMODULES_SECONDS POINTERS MISSING". */
#include "config.h"

#include <stdio.h>
#include <time.h>

#include "jobprep/git.h"
#include "git_internal.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct jp_git_sm_report s = JP_GIT_SM_REPORT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	double t0, t1, t2;

	if (argc != 2) {
		fprintf(stderr, "usage: lackslook DIR\n");
		return 2;
	}
	if (jp_git_global_init(&err) != 0)
		return 1;
	t0 = now();
	if (jp_git_lfs_check(&r, argv[1], &err) != 0)
		return 1;
	t1 = now();
	if (jp_git_submodules_check(&s, argv[1], &err) != 0)
		return 1;
	t2 = now();
	printf("%.3f %.3f %zu %zu\n", t1 - t0, t2 - t1, r.n, s.n_missing);
	jp_git_lfs_report_dispose(&r);
	jp_git_sm_report_dispose(&s);
	jp_error_dispose(&err);
	return 0;
}
