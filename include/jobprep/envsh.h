/* The manifest's environment as POSIX sh: one `export NAME='value'` line per
 * variable, which sh, dash, bash and zsh all read back to the exact bytes
 * (architecture.md, "jobprep env"). */
#ifndef JOBPREP_ENVSH_H
#define JOBPREP_ENVSH_H

#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/manifest.h"

/* `value` single-quoted for sh: every ' written as '\''. *out is the
 * caller's, free with free(). Returns 0 or JP_ENOMEM. */
int jp_envsh_quote(char **out, const char *value);

/* The export lines for m: PROJECT_DIR (code.path), OUTPUT_DIR,
 * CHECKPOINT_DIR, LOG_DIR, DATA_DIR (the first data source), then job.env
 * in order. A variable whose value is absent is left out. A name that is not
 * a sh variable name is an error (JP_EFORMAT, naming the field). *out is the
 * caller's, free with free(). */
int jp_envsh_render(char **out, const struct jp_manifest *m, struct jp_error *err);

#endif
