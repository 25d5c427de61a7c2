/* The core's side of jobprep/shellwords.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/shellwords.h. */
#ifndef JOBPREP_SHELLWORDS_INTERNAL_H
#define JOBPREP_SHELLWORDS_INTERNAL_H

#include "jobprep/shellwords.h"

/* Split `line`; *out is the caller's to dispose. An unbalanced line is still
 * split as far as it goes (out->unbalanced set). Returns 0 or JP_ENOMEM. */
int jp_sh_split(struct jp_sh_line *out, const char *line, struct jp_error *err);
void jp_sh_line_dispose(struct jp_sh_line *line);

#endif
