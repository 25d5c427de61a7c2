/* The core's side of jobprep/input.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/input.h. */
#ifndef JOBPREP_INPUT_INTERNAL_H
#define JOBPREP_INPUT_INTERNAL_H

#include "jobprep/input.h"

/* Open path read-only (O_NONBLOCK for the open itself, cleared after) and
 * fstat it: 0 and *fd (the caller's to close) and *st; JP_EFORMAT with
 * "PATH: not a regular file" for a FIFO, a directory, a device or a socket,
 * "PATH: cannot read it: ..." when it cannot be opened (errno kept). */
int jp_input_open(int *fd, struct stat *st, const char *path, struct jp_error *err);

/* The same, on this thread, unbounded: for jp_probe_read_file's child. */
int jp_input_read_now(char **text, size_t *len, const char *path, size_t max,
		      struct jp_error *err);

#endif
