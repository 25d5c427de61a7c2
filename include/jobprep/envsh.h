/* The manifest's environment as POSIX sh: one `export NAME='value'` line per
 * variable, which sh, dash, bash and zsh all read back to the exact bytes
 * (what `jobprep env` prints and a run's env.sh holds: PROJECT_DIR,
 * OUTPUT_DIR, CHECKPOINT_DIR, LOG_DIR, DATA_DIR, then job.env). Values are
 * quoted with jp_sh_quote (jobprep/shellwords.h). */
#ifndef JOBPREP_ENVSH_H
#define JOBPREP_ENVSH_H

#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/manifest.h"

/* The export lines for m: PROJECT_DIR (code.path), OUTPUT_DIR,
 * CHECKPOINT_DIR, LOG_DIR, DATA_DIR (the first data source), DATA_DIR_<NAME>
 * for every data source (jp_envsh_data_var), then job.env in order. A variable whose value is absent is left out. A name that is not
 * a sh variable name is an error (JP_EFORMAT, naming the field). *out is the
 * caller's, free with free(). */
int jp_envsh_render(char **out, const struct jp_manifest *m, struct jp_error *err);

/* Longest variable name jp_envsh_data_var writes, with its NUL. */
#define JP_ENVSH_NAME_MAX 80

#endif
