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

/* Files (anything but a directory) anywhere under path, looking at no more
 * than `budget` entries (8 folders deep at most): a run folder holding only
 * empty folders holds nothing of an earlier run. 0 when path does not
 * exist; at least 1 when the budget ran out before any file was found. */
size_t jp_fs_count_files(const char *path, size_t budget);

/* Hold an exclusive advisory lock (flock) on the directory path without
 * waiting: the descriptor that holds it (close it to let go; a dup shares
 * it), or -1 with errno: EWOULDBLOCK when another open of it holds the
 * lock (a prep still working in that run folder), anything else when it
 * cannot be opened or the filesystem takes no locks. */
int jp_fs_lock_dir(const char *path);

/* rel (relative, never climbing) opened under the folder dirfd with flags
 * (O_NOFOLLOW and O_CLOEXEC added; not O_CREAT), no symlink followed on
 * the way, none as the last component either (O_PATH opens that one
 * itself): openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the
 * kernel has it, else jp_fs_walk_beneath. "" or "." is dirfd itself. The
 * descriptor, or -1 with errno: ELOOP a symlink on the way, EXDEV a name
 * that leaves dirfd (absolute, ".."), anything openat says. */
int jp_fs_open_beneath(int dirfd, const char *rel, int flags);
/* The same, one component at a time with O_NOFOLLOW (the kernels without
 * openat2; the unit test calls it directly). */
int jp_fs_walk_beneath(int dirfd, const char *rel, int flags);

#endif
