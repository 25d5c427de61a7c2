/* Paths as text: lexical operations that never look at the filesystem (no
 * symlink is followed; jobprep/pathclass.h resolves paths the way a job
 * sees them). */
#ifndef JOBPREP_PATH_H
#define JOBPREP_PATH_H

#include <stdbool.h>

/* `path` without "//", "." or ".." components and without a trailing '/';
 * always absolute: a relative path is read from "/", and ".." at "/" stays
 * at "/". NULL when out of memory, else the caller's (free()). */
char *jp_path_normalize(const char *path);
/* dir + "/" + name, without doubling a '/' that ends dir ("" counts as "/").
 * Not normalised. NULL when out of memory, else the caller's (free()). */
char *jp_path_join(const char *dir, const char *name);
/* `path` against the working directory when relative; an absolute path is
 * copied as it is (not normalised). NULL with errno set when the working
 * directory cannot be read or memory runs out, else the caller's (free()). */
char *jp_path_absolute(const char *path);

/* Absolute, no "." or ".." components, no "//", no trailing '/' (except "/"):
 * what jp_path_normalize returns, and what the manifest's JSON Schema
 * accepts as a path (schema.c). */
bool jp_path_is_normal(const char *path);
/* True when `path` is `root` or lies below it, comparing whole components:
 * "/data/x" is under "/data", "/data2" is not, everything is under "/".
 * Both must be absolute; trailing slashes are ignored. */
bool jp_path_is_under(const char *path, const char *root);

#endif
