/* Paths as text: lexical operations that never look at the filesystem (no
 * symlink is followed; jobprep/pathclass.h resolves paths the way a job
 * sees them). */
#ifndef JOBPREP_PATH_H
#define JOBPREP_PATH_H

#include <stdbool.h>

/* dir + "/" + name, without doubling a '/' that ends dir ("" counts as "/").
 * Not normalised. NULL when out of memory, else the caller's (free()). */
char *jp_path_join(const char *dir, const char *name);
/* `path` against the working directory when relative; an absolute path is
 * copied as it is (not normalised). NULL with errno set when the working
 * directory cannot be read or memory runs out, else the caller's (free()). */
char *jp_path_absolute(const char *path);

#endif
