/* The draft: the answers given so far, kept between sessions so that
 * starting the wizard again can offer to resume.
 *
 * Only values the user set are kept (defaults are recomputed), as a JSON
 * list of {key, value} and {key, count} (for lists) in field order. Written
 * atomically (jp_file_write_atomic, mode 0600) to
 * $XDG_STATE_HOME/jobprep/draft.json (default ~/.local/state/...), or
 * demo-draft.json for --demo. Never holds a secret: the flow never stores
 * one in a field. */
#ifndef JOBPREP_TUI_DRAFT_H
#define JOBPREP_TUI_DRAFT_H

#include <stdbool.h>

#include "jobprep/error.h"
#include "jobprep/flow.h"

struct jp_draft {
	int step;           /* the step the user was on */
	bool demo;
	char *profile;      /* the profile file it was made under; NULL: default */
	char *job_name;     /* for the resume question; may be NULL */
	char *saved_at;     /* RFC 3339 UTC */
	struct cJSON *json; /* owned: the whole document */
};

#define JP_DRAFT_INIT { .step = 0 }

/* Where the draft lives; *out is the caller's to free. */
int jp_draft_path(char **out, bool demo, struct jp_error *err);
/* Save the answers of `flow` at `step`. Creates the directory (0700). */
int jp_draft_save(const char *path, const struct jp_flow *flow, int step, bool demo,
		  const char *profile, struct jp_error *err);
/* Load a draft: JP_ENOENT when there is none, JP_EFORMAT when unreadable. */
int jp_draft_load(struct jp_draft *out, const char *path, struct jp_error *err);
/* Put the draft's answers into a new flow (after the demo's, if any).
 * A value the flow no longer accepts is skipped. */
int jp_draft_apply(const struct jp_draft *d, struct jp_flow *flow, struct jp_error *err);
void jp_draft_dispose(struct jp_draft *d);
/* Forget the draft (after the manifest was written). */
void jp_draft_remove(const char *path);

#endif
