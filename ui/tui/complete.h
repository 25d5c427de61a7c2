/* Path completion like a shell's Tab: extend to the longest common prefix,
 * add '/' after a single directory, list the candidates on a second Tab.
 *
 * Pure logic on the file system, no curses. */
#ifndef JOBPREP_TUI_COMPLETE_H
#define JOBPREP_TUI_COMPLETE_H

#include <stdbool.h>
#include <stddef.h>

enum jp_complete_flags {
	JP_COMPLETE_DIRS = 1 << 0, /* offer directories only */
};

struct jp_completion {
	char *text;     /* owned: the input after completion (may equal it) */
	bool changed;   /* text differs from the input */
	bool unique;    /* exactly one candidate, completed in full */
	char **matches; /* owned: candidate names (not full paths), sorted;
			 * directories end in '/' */
	size_t n_shown; /* entries in matches */
	size_t n;       /* candidates found, possibly more than n_shown */
};

#define JP_COMPLETION_INIT { .text = NULL }

/* Complete `input` (the whole field; a leading "~/" is expanded to $HOME).
 * At most `limit` candidates are kept in matches (0 = no limit). Returns 0, JP_ENOMEM, or
 * JP_ETIMEOUT when the directory did not answer in time (a hung mount: the
 * listing is bounded, jobprep/probe.h). A directory that cannot be read
 * gives no candidates, not an error. */
int jp_complete_path(struct jp_completion *out, const char *input,
		     unsigned flags, size_t limit);
void jp_completion_dispose(struct jp_completion *c);

#endif
