/* The core's side of jobprep/check.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/check.h. */
#ifndef JOBPREP_CHECK_INTERNAL_H
#define JOBPREP_CHECK_INTERNAL_H

#include "jobprep/check.h"

/* The checkout's checks (code on shared storage whose path passed
 * code.path.exists): code.repo.recorded (not a git checkout), code.repo.clean
 * (uncommitted changes), code.repo.pushed (commits on no remote), appended
 * to m->checks. jp_check_manifest runs them last. Returns 0 or JP_ENOMEM. */
int jp_check_repo(struct jp_manifest *m, struct jp_error *err);

/* The job's runtime as this machine sees it (check_runtime.c), appended to
 * m->checks as warnings: runtime.modules and runtime.python_version (this
 * machine's python3 against code.python), runtime.shm (DataLoader workers),
 * runtime.interfaces (job.env's NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME,
 * NCCL_IB_HCA). Each Worker's preflight.sh judges the same on the Worker.
 * Returns 0 or JP_ENOMEM. */
int jp_check_runtime(struct jp_manifest *m, struct jp_error *err);

/* *out (the caller's, free()) gets *n entries; absent paths are left out.
 * Returns 0 or JP_ENOMEM. */
int jp_check_paths(struct jp_check_path **out, size_t *n, const struct jp_manifest *m);

/* job.env[i]'s value when every Worker's preflight judges where it lives: a
 * normal absolute path (no ':') under one of profile's shared roots; its
 * field ("job.env.NAME") into field. NULL otherwise. */
const char *jp_check_env_path(char field[64], const struct jp_manifest *m,
			      const struct jp_profile *profile, size_t i);

#endif
