/* Checks: every path of a manifest judged the way every Worker will see it. */
#ifndef JOBPREP_CHECK_H
#define JOBPREP_CHECK_H

#include "jobprep/error.h"
#include "jobprep/manifest.h"
#include "jobprep/profile.h"

/* Less free space than this where the job writes fails the space check
 * (here and in the Workers' preflight.sh). */
#define JP_CHECK_SPACE_FAIL_BYTES (64ULL << 20)
/* The job's runtime when its code starts DataLoader workers: /dev/shm at
 * least this big (Docker's default 64 MiB ends in "Bus error"), and an
 * open-files limit at least this (below it, workers sharing tensors as file
 * descriptors fail with "received 0 items of ancdata"). */
#define JP_RUNTIME_SHM_MIN_BYTES (1ULL << 30)
#define JP_RUNTIME_NOFILE_MIN 1024

enum jp_check_flags {
	JP_CHECK_DEEP = 1 << 0, /* also scan data sets fully */
};

/* Replace m->checks with fresh results, judged under `profile`. Returns 0
 * when the checks ran (look at jp_manifest_worst for their verdict), or a
 * negative code when they could not run at all. */
int jp_check_manifest(struct jp_manifest *m, const struct jp_profile *profile,
		      unsigned flags, struct jp_error *err);

/* The paths the checks judge, in order: code.path (code on shared storage
 * only: an image's code path lives inside the image, a launch_clone's does
 * not exist yet), data[i].path, then outputs.output_dir, checkpoint_dir and
 * log_dir. `jobprep check` and the run's preflight.sh (jobprep/preflight.h)
 * judge exactly these, under the same ids ("<field>.<check>"). */
enum jp_check_role {
	JP_CHECK_ROLE_CODE = 1 << 0,   /* the checkout: read by every Worker */
	JP_CHECK_ROLE_DATA = 1 << 1,   /* a data set (directory or file): read */
	JP_CHECK_ROLE_OUTPUT = 1 << 2, /* a directory the job writes */
};

struct jp_check_path {
	char field[64];    /* "code.path", "data[1].path", "outputs.log_dir" */
	const char *path;  /* borrowed from the manifest */
	enum jp_check_role role;
	size_t data_index; /* JP_CHECK_ROLE_DATA: its index in m->data */
};

#endif
