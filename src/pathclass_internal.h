/* The core's side of jobprep/pathclass.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/pathclass.h. */
#ifndef JOBPREP_PATHCLASS_INTERNAL_H
#define JOBPREP_PATHCLASS_INTERNAL_H

#include "jobprep/pathclass.h"

/* Classify `path` (absolute, or relative to the working directory) under
 * `profile` (NULL: no declarations, the mount table alone decides). `out`
 * must be initialised (JP_PATH_INFO_INIT); it is overwritten. May block on a
 * hung network mount: see jobprep/probe.h for a bounded-time variant. */
int jp_path_classify(struct jp_path_info *out, const struct jp_profile *profile,
		     const char *path, struct jp_error *err);
/* The same with a given mount table, taken as the whole truth (no statfs
 * cross-check: for recorded tables); NULL reads /proc/self/mountinfo. */
int jp_path_classify_in(struct jp_path_info *out, const struct jp_profile *profile,
			const struct jp_mount_table *table, const char *path,
			struct jp_error *err);

/* Resolve `path` the way the job will see it: symlinks followed, "." and
 * ".." removed; for a path that does not exist, the real path of its nearest
 * existing ancestor plus the remaining components (a dangling symlink is
 * followed to where it points). *out is the caller's (free()); *exists says
 * whether the whole path exists; *via_symlink (may be NULL) whether a
 * symbolic link was followed. */
int jp_path_resolve(char **out, bool *exists, bool *via_symlink, const char *path,
		    struct jp_error *err);

#endif
