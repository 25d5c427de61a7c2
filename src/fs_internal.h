/* The core's side of jobprep/fs.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/fs.h. */
#ifndef JOBPREP_FS_INTERNAL_H
#define JOBPREP_FS_INTERNAL_H

#include "jobprep/fs.h"

/* Take back what jp_fs_mkdir_p recorded: rmdir each, innermost first, which
 * removes only those still empty. Empties *made. */
void jp_fs_unmake(struct jp_strv *made);

/* rm -rf path: never follows a symbolic link (one is removed, not its
 * target) and never descends into another mount. Removes as much as it
 * can; 0 when path is gone (or was never there), -1 with errno otherwise. */
int jp_fs_rm_rf(const char *path);

/* Whether dir holds nothing but "." and "..", and entries whose name starts
 * with skip_prefix (may be NULL: skip none). 1 when empty; 0 when not, and
 * then the first entry's name is copied into first (may be NULL, len its
 * size); -1 with errno when dir cannot be read. */
int jp_fs_dir_is_empty(const char *dir, const char *skip_prefix, char *first, size_t len);

/* The number of entries in dir besides "." and "..": 0, or -1 with errno. */
int jp_fs_dir_count(size_t *out, const char *dir);

#endif
