/* Where a path really lives: shared, public, ephemeral or local storage.
 *
 * Decided on the resolved path (symlinks followed; for a path that does not
 * exist yet, its nearest existing ancestor). The profile's declarations win;
 * otherwise the mount table (/proc/self/mountinfo) decides, cross-checked
 * with statfs(2). */
#ifndef JOBPREP_PATHCLASS_H
#define JOBPREP_PATHCLASS_H

#include <stdbool.h>

#include "jobprep/error.h"
#include "jobprep/profile.h"

struct jp_mount_table; /* the core's mount table (src/mountinfo.h) */

enum jp_storage_class {
	JP_STORAGE_UNKNOWN = 0,
	JP_STORAGE_SHARED,    /* the same on every Worker, survives the job */
	JP_STORAGE_PUBLIC,    /* platform public data, read-only */
	JP_STORAGE_EPHEMERAL, /* wiped when the job ends */
	JP_STORAGE_LOCAL,     /* this machine only: a job elsewhere cannot see it */
};

/* Every string owned; release with jp_path_info_dispose. */
struct jp_path_info {
	enum jp_storage_class cls;
	bool exists;         /* the path itself exists */
	bool read_only;      /* the mount is read-only */
	char *resolved;      /* resolved absolute path */
	char *mount_point;   /* the mount it sits on, NULL if unknown */
	char *fstype;        /* e.g. "nfs4", "fuse.sshfs", "tmpfs" */
	char *reason;        /* one line: why this class */
	/* Added by the storage module: */
	bool declared;       /* the profile decided the class */
	bool via_symlink;    /* resolving went through a symbolic link */
	char *declared_root; /* the profile root that matched, NULL if none */
	char *source;        /* the mount's source, e.g. "server:/export" */
	char *existing;      /* the nearest existing ancestor (or the path) */
	char *warning;       /* one line when something looks wrong, else NULL:
				e.g. a declared shared root that is not mounted here */
};

#define JP_PATH_INFO_INIT { .cls = JP_STORAGE_UNKNOWN }

/* Free what a classification put into info (jp_stage_where gives one). */
void jp_path_info_dispose(struct jp_path_info *info);

/* "shared", "public", "ephemeral", "local", "unknown": an identifier, static;
 * marked N_(), so a message for a person shows _(jp_storage_class_name(c)). */
const char *jp_storage_class_name(enum jp_storage_class cls);

#endif
