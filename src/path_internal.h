/* The core's side of jobprep/path.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/path.h. */
#ifndef JOBPREP_PATH_INTERNAL_H
#define JOBPREP_PATH_INTERNAL_H

#include "jobprep/path.h"

/* `path` without "//", "." or ".." components and without a trailing '/';
 * always absolute: a relative path is read from "/", and ".." at "/" stays
 * at "/". NULL when out of memory, else the caller's (free()). */
char *jp_path_normalize(const char *path);

/* Absolute, no "." or ".." components, no "//", no trailing '/' (except "/"):
 * what jp_path_normalize returns, and what the manifest's JSON Schema
 * accepts as a path (schema.c). */
bool jp_path_is_normal(const char *path);
/* True when `path` is `root` or lies below it, comparing whole components:
 * "/data/x" is under "/data", "/data2" is not, everything is under "/".
 * Both must be absolute; trailing slashes are ignored. */
bool jp_path_is_under(const char *path, const char *root);

#endif
