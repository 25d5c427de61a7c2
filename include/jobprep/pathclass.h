/* Where a path really lives: shared, public, ephemeral or local storage.
 *
 * Decided on the resolved path (symlinks followed; for a path that does not
 * exist yet, its nearest existing ancestor). The profile's declarations win;
 * otherwise the mount table (/proc/self/mountinfo) decides. */
#ifndef JOBPREP_PATHCLASS_H
#define JOBPREP_PATHCLASS_H

#include <stdbool.h>

#include "jobprep/error.h"
#include "jobprep/profile.h"

enum jp_storage_class {
	JP_STORAGE_UNKNOWN = 0,
	JP_STORAGE_SHARED,    /* the same on every Worker, survives the job */
	JP_STORAGE_PUBLIC,    /* platform public data, read-only */
	JP_STORAGE_EPHEMERAL, /* wiped when the job ends */
	JP_STORAGE_LOCAL,     /* this machine only: a job elsewhere cannot see it */
};

struct jp_path_info {
	enum jp_storage_class cls;
	bool exists;       /* the path itself exists */
	bool read_only;    /* the mount is read-only */
	char *resolved;    /* resolved absolute path */
	char *mount_point; /* the mount it sits on, NULL if unknown */
	char *fstype;      /* e.g. "nfs4", "fuse.sshfs", "tmpfs" */
	char *reason;      /* one line: why this class */
};

#define JP_PATH_INFO_INIT { JP_STORAGE_UNKNOWN, false, false, NULL, NULL, NULL, NULL }

int jp_path_classify(struct jp_path_info *out, const struct jp_profile *profile,
		     const char *path, struct jp_error *err);
void jp_path_info_dispose(struct jp_path_info *info);
const char *jp_storage_class_name(enum jp_storage_class cls);

#endif
