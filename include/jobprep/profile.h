/* The platform profile: where the platform mounts things, and where jobprep
 * puts a job's files by default. Shared storage roots (read-write, the same
 * on every Worker), public data roots (read-only), ephemeral roots (wiped
 * when the job ends), the Worker's system disk size, and the default places:
 * project {shared}/projects/{job}, outputs {shared}/outputs/{job}/run-NNN,
 * checkpoints and logs inside the run. The embedded default is the
 * platform's; a JSON file (--profile, JOBPREP_PROFILE) replaces it, and a
 * manifest carries the profile it was checked under. */
#ifndef JOBPREP_PROFILE_H
#define JOBPREP_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "jobprep/error.h"
#include "jobprep/strv.h"

#define JP_PROFILE_MAX_GPUS 1024
#define JP_PROFILE_DEFAULT_GPUS 8

struct jp_profile {
	struct jp_strv shared_roots;    /* read-write, same on every Worker */
	struct jp_strv public_roots;    /* read-only public data */
	struct jp_strv ephemeral_roots; /* wiped when the job ends */
	uint64_t system_disk_bytes;     /* the Worker's system disk */
	/* What a download leaves free on the filesystem it writes to, for
	 * everyone else ("stage_reserve_bytes"); when not set
	 * (has_stage_reserve false), 1% of that filesystem, at most 1 GiB. */
	uint64_t stage_reserve_bytes;
	bool has_stage_reserve;
	/* Default locations; placeholders {shared} {job} {output}, and NNN for
	 * the next free run number. */
	char *project_dir;
	char *output_dir;
	char *checkpoint_dir;
	char *log_dir;
	/* GPUs per Worker when the person gives none ("gpus_per_worker" in
	 * "defaults"), 0..JP_PROFILE_MAX_GPUS; 8 unless the profile says. */
	int gpus_per_worker;
	/* Slurm: what the batch script asks for ("slurm" in JSON), each NULL
	 * when not set: --partition, --time, --account, --qos. */
	char *slurm_partition;
	char *slurm_time;
	char *slurm_account;
	char *slurm_qos;
	/* A sandbox ("sandbox": true: the demo's, a test's), not a real
	 * platform: a declared shared root that is a plain folder here, not a
	 * mount, is a warning; under a real profile it is a failure (what is
	 * written there stays on this machine). */
	bool sandbox;
};

/* Read a profile file. */
int jp_profile_load(struct jp_profile **out, const char *path,
		    struct jp_error *err);
/* The profile to use: `path` if given, else $JOBPREP_PROFILE, else the
 * embedded default. */
int jp_profile_resolve(struct jp_profile **out, const char *path,
		       struct jp_error *err);
int jp_profile_copy(struct jp_profile **out, const struct jp_profile *src);
void jp_profile_free(struct jp_profile *profile);

#endif
