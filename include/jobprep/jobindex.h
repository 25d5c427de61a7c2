/* The per-user index of jobs: which profile a job's runs were made with, so
 * that `jobprep runs JOB` finds them without being told the profile again
 * (the demo's sandbox profile, a team's profile file).
 *
 * One JSON file, $XDG_STATE_HOME/jobprep/jobs.json (default
 * ~/.local/state/jobprep/jobs.json), mode 0600: {"jobs": {NAME: {"profile":
 * {the profile itself}, "run": the last run folder, "at": RFC 3339}}}. The
 * profile is kept whole, not its file's path: it is what the run's manifest
 * records too, and a profile file moved or edited since does not lose the
 * runs. Recorded by the front ends when a run folder is claimed or its
 * manifest written; the latest prep of a job name wins. It is a hint: a
 * missing or unreadable index is no error for anybody. */
#ifndef JOBPREP_JOBINDEX_H
#define JOBPREP_JOBINDEX_H

#include "jobprep/error.h"
#include "jobprep/profile.h"

/* Record that job's run `run_dir` was made under `profile`. 0, JP_ENOMEM,
 * JP_ENOENT when there is no place for it (no XDG_STATE_HOME, and HOME is
 * not an existing folder: none is made), or JP_EIO when the index cannot
 * be written (the caller may ignore every failure). */
int jp_jobindex_record(const char *job, const struct jp_profile *profile, const char *run_dir,
		       struct jp_error *err);
/* The profile job's runs were last made with: *out the caller's
 * (jp_profile_free). JP_ENOENT when the index does not know the job (or
 * there is no index); JP_EFORMAT when its entry is unreadable. */
int jp_jobindex_profile(struct jp_profile **out, const char *job, struct jp_error *err);

/* A job the index knows: its name, its last run folder and when that run
 * was recorded (RFC 3339; "" when the entry lacks it). */
struct jp_jobindex_entry {
	char *name;
	char *run;
	char *at;
};

/* Every job the index knows, the latest recorded first: *out the caller's
 * (jp_jobindex_entries_free), *n its count. No index, or an unreadable
 * one, is an empty list (0); JP_ENOMEM, or JP_ENOENT when there is no
 * place for an index at all. */
int jp_jobindex_list(struct jp_jobindex_entry **out, size_t *n, struct jp_error *err);
void jp_jobindex_entries_free(struct jp_jobindex_entry *v, size_t n);

#endif
