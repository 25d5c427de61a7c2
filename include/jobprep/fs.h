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

#endif
