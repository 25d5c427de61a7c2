/* The wizard: the frame (step bar, body, status line, key hints), the main
 * loop, background work, and the steps, one per file:
 *
 *   step_job.c  step_code.c  step_data.c  step_outputs.c  step_launch.c
 *   step_review.c
 *
 * Each step is a table of functions at the bottom of its file (tig-style);
 * most are the step's form with a few additions. The wizard drives the flow
 * (jobprep/flow.h) and adds no rules of its own. */
#ifndef JOBPREP_TUI_WIZARD_H
#define JOBPREP_TUI_WIZARD_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/flow.h"
#include "jobprep/worker.h"
#include "tui/form.h"
#include "tui/keys.h"
#include "tui/tui.h"
#include "tui/widgets.h"

struct jp_wizard;

struct jp_step_ops {
	enum jp_step step;
	/* N_() text for the help overlay: what the step is for and why. */
	const char *help;
	/* The form was (re)built for this step: set its draw_item etc. */
	void (*enter)(struct jp_wizard *w);
	/* Draw the body; NULL: the form alone. */
	void (*draw)(struct jp_wizard *w, int y, int x, int h, int width);
	/* Keys before the form sees them; NULL: the form's. */
	int (*key)(struct jp_wizard *w, enum jp_act act, const struct jp_key *key);
	/* The step was accepted (Enter): start its background work. */
	void (*accepted)(struct jp_wizard *w);
	/* Something ran in the background finished (re-read the flow). */
	void (*work_done)(struct jp_wizard *w);
	/* Called by the main loop between keys (never inside a modal). */
	void (*idle)(struct jp_wizard *w);
	/* Leaving the step (to another one). */
	void (*leave)(struct jp_wizard *w);
	/* The key hint line, translated; NULL: the usual one. */
	const char *(*hints)(struct jp_wizard *w);
	/* What F1 shows first: the focused finding in full (the caller
	 * frees it), or NULL for the focused field's verdict; NULL: that. */
	char *(*detail)(struct jp_wizard *w);
};

extern const struct jp_step_ops jp_step_job_ops;
extern const struct jp_step_ops jp_step_code_ops;
extern const struct jp_step_ops jp_step_data_ops;
extern const struct jp_step_ops jp_step_outputs_ops;
extern const struct jp_step_ops jp_step_launch_ops;
extern const struct jp_step_ops jp_step_review_ops;

/* Long work running off the UI thread, as the wizard tracks it: a worker
 * thread (src/worker.c) running a piece of the flow's work (src/flow_work.c). */
struct jp_running {
	struct jp_worker *worker;  /* owned: the thread it runs on */
	struct jp_flow_work *work; /* owned: the flow work, with its snapshot of the flow */
	enum jp_action kind;
	size_t index;            /* data index for scans */
	char *sig;               /* owned: the answers it was started for */
	unsigned long seen;      /* last jp_worker_status.seq drawn */
};

#define JP_WIZ_MAX_RUNNING 16

struct jp_wizard {
	struct jp_tui_options opts;
	struct jp_flow *flow;
	struct jp_profile *profile;
	char *draft_path;
	char *profile_path; /* the profile file in use, for the draft; NULL: default */

	enum jp_step step;
	bool accepted[JP_STEP_COUNT];
	struct jp_form form;
	const struct jp_step_ops *ops;
	struct jp_ui ui;
	int modal_depth;

	struct jp_running running[JP_WIZ_MAX_RUNNING];
	size_t n_running;

	/* The status line when nothing runs. */
	char status[512];
	enum jp_check_status status_level;
	/* The field a refusal on the status line is about (owned); the line
	 * clears once that field is fixed. NULL: about no field. */
	char *status_key;

	unsigned failed_kinds; /* 1 << jp_action of work that failed or stopped */

	bool redraw;
	bool rebuild;   /* the flow changed under the form */
	bool quit;
	bool written;
	int exit_code;

	/* What was written, for the closing screen and for stdout. */
	char *manifest_path;
	char *env_path;
	char *platform_command;

	/* The review step's state (step_review.c). */
	void *review;

	/* The job name "start from an earlier run" was offered (or answers
	 * were given) for: asked once per name (earlier_run.c). Owned. */
	char *offered_job;
	/* The run's folders were created (Create) and no manifest written yet:
	 * quitting asks first. */
	bool created_run;
};

/* The current step's ops. */
const struct jp_step_ops *jp_wizard_ops(enum jp_step step);
/* Go to a step (builds its form). */
void jp_wizard_goto(struct jp_wizard *w, enum jp_step step);
/* Set the status line. */
void jp_wizard_status(struct jp_wizard *w, enum jp_check_status level,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* News on the status line (work started, or done well): a refusal that
 * stands is not replaced by it; a failure always shows. */
void jp_wizard_news(struct jp_wizard *w, enum jp_check_status level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Start what jp_flow_pending lists among `kinds` (a bit-set of 1 << kind),
 * cancelling a running task of the same kind whose answers changed. */
void jp_wizard_start_pending(struct jp_wizard *w, unsigned kinds);
/* Start one task; returns 0 or a negative code (and sets the status). */
int jp_wizard_start(struct jp_wizard *w, enum jp_action kind, size_t index, bool deep);
/* Poll background work: apply what finished, answer requests (secrets,
 * confirmations) unless a modal is open. Returns jp_ev bits. */
int jp_wizard_tick(struct jp_wizard *w);
/* The running task of a kind (and data index for scans), or NULL. */
struct jp_running *jp_wizard_find_running(struct jp_wizard *w, enum jp_action kind, size_t index);
bool jp_wizard_busy(const struct jp_wizard *w);
/* Cancel every task and wait for them (nothing half-made is left). */
void jp_wizard_cancel_all(struct jp_wizard *w);
/* Draw everything (the frame, the step, the status) without refresh. */
void jp_wizard_draw(struct jp_wizard *w);
/* Note the job's run and profile in the per-user index of jobs
 * (jobprep/jobindex.h), for `jobprep runs JOB`; failures are ignored. */
void jp_wizard_record_run(struct jp_wizard *w);
/* Save the draft now (after a step, before quitting). */
void jp_wizard_save_draft(struct jp_wizard *w);
/* Show the help overlay for the step and the focused field. */
void jp_wizard_help(struct jp_wizard *w);
/* The command that resumes this session's draft: "jobprep --demo",
 * "jobprep --profile 'FILE'", or "jobprep", into buf. */
const char *jp_wizard_resume_command(char *buf, size_t len, const struct jp_wizard *w);
/* Ask before quitting when work would be lost (background work running,
 * the run's folders created without a manifest), or `always`; true: quit. */
bool jp_wizard_confirm_quit(struct jp_wizard *w, bool always);

/* earlier_run.c: the job on the first step has runs already: offer to
 * start from the last one's answers (a yes/no question, yes the default);
 * once per job name. keep_typed: the Job step's Workers and GPUs the
 * person set stay as they are (asked on leaving that step). */
void jp_wizard_offer_run(struct jp_wizard *w, bool keep_typed);
/* Start over from `answers` (an answers file or a run's manifest, `origin`
 * names it): a new flow under the wizard's profile takes them, -o kept;
 * running work is stopped and the current step's form built anew. A value
 * stored whose check fails is no error (the steps show it). */
int jp_wizard_use_answers(struct jp_wizard *w, const struct jp_manifest *answers,
			  const char *origin, struct jp_error *err);
/* review.manifest_path = path (made absolute against the current folder). */
int jp_wizard_set_manifest_path(struct jp_flow *flow, const char *path, struct jp_error *err);

/* Set up the screen callbacks and the first step (after the terminal
 * started); jp_wizard_dispose releases what the wizard itself holds (not
 * the flow or the profile). */
void jp_wizard_init(struct jp_wizard *w);
void jp_wizard_dispose(struct jp_wizard *w);
/* The wizard's main loop; returns the exit code. */
int jp_wizard_run(struct jp_wizard *w);

#endif
