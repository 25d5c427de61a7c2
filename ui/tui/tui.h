/* The ncurses wizard's entry point, called by ui/main.c for `jobprep`,
 * `jobprep --demo`, `jobprep --profile FILE`, `jobprep --answers FILE` and `jobprep -o MANIFEST`. */
#ifndef JOBPREP_TUI_TUI_H
#define JOBPREP_TUI_TUI_H

#include <stdbool.h>

struct jp_tui_options {
	bool demo;                 /* prepare ./jobprep-demo/ and start from it */
	const char *profile_path;  /* NULL: the demo's, $JOBPREP_PROFILE or the default */
	const char *manifest_path; /* -o; NULL: the flow's default (the run directory) */
	const char *answers_path;  /* --answers: an answers file or a run's manifest to
				    * start from; NULL: none */
};

#define JP_TUI_OPTIONS_INIT { false, NULL, NULL, NULL }

/* Run the wizard. Returns the process exit code: 0 a manifest was written,
 * 1 the work failed, 2 no terminal to run in (the message points to
 * `jobprep init`), 3 the profile is unreadable, 130 the user quit or a
 * signal ended it (128 + signal for SIGTERM/SIGHUP). */
int jp_tui_main(const struct jp_tui_options *opts);

#endif
