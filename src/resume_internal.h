/* Resuming from an earlier run (src/resume.c): a job whose command resumes
 * from its checkpoint folder (the lint says so: lint_resume.c) gets a new
 * run's empty checkpoints/, and starts from nothing. The earlier runs of
 * the job are looked at for the last complete checkpoint (files, no
 * temporaries, sizes stable over a short look), offered as job.resume_from
 * (env.sh's RESUME_FROM) or as the same folder. Core only. */
#ifndef JOBPREP_RESUME_INTERNAL_H
#define JOBPREP_RESUME_INTERNAL_H

#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/manifest.h"
#include "jobprep/profile.h"

/* The check's id: the offer (or why nothing is offered). */
#define JP_RESUME_CHECK "launch.resume"
/* The check of a chosen job.resume_from. */
#define JP_RESUME_FROM_CHECK "job.resume_from.checkpoint"

/* How a checkpoint folder looked. */
enum jp_resume_state {
	JP_RESUME_NONE = 0,   /* missing, or no file in it */
	JP_RESUME_TEMPORARY,  /* it holds a temporary (a write not finished) */
	JP_RESUME_CHANGING,   /* its files changed while looked at */
	JP_RESUME_COMPLETE,   /* files, no temporary, sizes stable */
	JP_RESUME_UNSEEN,     /* not looked at (an earlier one was taken) */
};

/* The checks of job.resume_from and of a command that resumes (`why`:
 * what says so, jp_lint_report.resume; NULL: it does not), appended to
 * m->checks: with the command resuming, this run's checkpoint folder
 * empty and an earlier run of the job holding a complete checkpoint, a
 * failure (JP_RESUME_CHECK, its path the folder offered); a chosen
 * job.resume_from that is no complete checkpoint fails
 * (JP_RESUME_FROM_CHECK). Nothing for a job that does not resume, or whose
 * earlier runs left nothing. The looks are bounded (a helper process).
 * Returns 0 or JP_ENOMEM (a look that fails is a finding, not an error). */
int jp_resume_check(struct jp_manifest *m, const struct jp_profile *profile, const char *why,
		    struct jp_error *err);

/* job.resume_from as answered, into the checkpoint folder it names (*out,
 * the caller's): an absolute path as it is; "last" the last complete
 * checkpoint of the job's runs before output_dir; a run folder's name
 * ("run-001") that run's checkpoint folder, when complete. JP_ENOENT with
 * the reason in err when there is none. */
int jp_resume_resolve(char **out, const struct jp_profile *profile, const char *job,
		      const char *output_dir, const char *value, struct jp_error *err);

#endif
