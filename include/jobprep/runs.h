/* The runs prepared for a job: the folders the profile's output template
 * ({shared}/outputs/{job}/run-NNN) names for it, and what each one's
 * manifest says (`jobprep runs`). */
#ifndef JOBPREP_RUNS_H
#define JOBPREP_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/profile.h"

struct jp_run {
	char *dir;          /* the run folder */
	unsigned long number; /* NNN; 0 when the template has no NNN */
	char *manifest;     /* dir/job.json, NULL when there is none */
	char *created_at;   /* the manifest's, NULL when unreadable */
	char *commit;       /* code.repo.commit, NULL when none or unreadable */
	char *resume_from;    /* job.resume_from: the checkpoint folder it resumes from */
	char *checkpoint_dir; /* outputs.checkpoint_dir (in another run's folder: it goes
			       * on there); both NULL when none or unreadable */
	/* No manifest and no file at all in it (a prep stopped after making
	 * the folder, before writing): when it is the last run, the next prep
	 * of the job takes this folder again instead of skipping its number. */
	bool empty;
};

/* The runs of `job` under profile's output_dir template, oldest (lowest
 * number) first, into *out (n of them; the caller frees them with
 * jp_runs_free). A base folder that does not exist holds no runs (0 and
 * n = 0). JP_EINVAL when the template cannot name a run of this job (NNN
 * outside the last component, no shared root for {shared}), JP_EIO when
 * the base folder cannot be read, JP_ETIMEOUT when the storage does not
 * answer within the probe bound (a hung mount: the looks run in a child
 * process, so the caller is never stuck), JP_ENOMEM. */
/* The run of runs[0..before) whose folder holds path (the run a later one
 * resumes from); NULL when none. Borrowed. */
const struct jp_run *jp_runs_holding(const struct jp_run *runs, size_t before, const char *path);

int jp_runs_list(struct jp_run **out, size_t *n, const struct jp_profile *profile,
		 const char *job, struct jp_error *err);
void jp_runs_free(struct jp_run *runs, size_t n);

#endif
