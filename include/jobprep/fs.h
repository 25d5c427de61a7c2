/* Directories on disk: mkdir -p that remembers what it made (so a failure
 * can take it back), rm -rf that never follows a symbolic link or crosses a
 * mount, and whether a directory is empty. The front ends use it too (the
 * wizard's draft folder), hence a public header. */
#ifndef JOBPREP_FS_H
#define JOBPREP_FS_H

#include <stddef.h>
#include <sys/types.h>

#include "jobprep/error.h"
#include "jobprep/strv.h"

/* mkdir -p: make path and every missing directory above it with mode
 * (narrowed by the umask, as mkdir(2) does). Each directory it
 * made is appended to *made (may be NULL), outermost first. An existing
 * non-directory on the way is an error (JP_EEXIST). Returns 0, JP_EUSAGE (an empty
 * path), JP_ENOMEM, JP_ENOSPC, JP_EEXIST or JP_EIO; what it made before a failure stays
 * recorded in *made for jp_fs_unmake, and errno
 * tells why (ENOTDIR for a non-directory in the way). */
int jp_fs_mkdir_p(struct jp_strv *made, const char *path, mode_t mode, struct jp_error *err);

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

#endif
