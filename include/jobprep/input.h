/* Opening a file a person named (manifest, answers, profile, draft, a launch
 * script): open() never blocks on a FIFO or a device, and anything but a
 * regular file is refused. One helper, for every reader. */
#ifndef JOBPREP_INPUT_H
#define JOBPREP_INPUT_H

#include <stddef.h>
#include <sys/stat.h>

#include "jobprep/error.h"

/* The whole file, NUL-terminated, in *text (the caller's to free) and its
 * length in *len; JP_EFORMAT "PATH: expected at most MAX bytes" when it is
 * larger than max. In bounded time (jp_probe_read_file: a child process,
 * $JOBPREP_PROBE_TIMEOUT_MS): on a hung network mount JP_EFORMAT "PATH: no
 * answer within N s (is a network mount hung?)". errno is kept on a
 * failure to open (ENOENT for a file that is not there). */
int jp_input_read(char **text, size_t *len, const char *path, size_t max,
		  struct jp_error *err);

#endif
