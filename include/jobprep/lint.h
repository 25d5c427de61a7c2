/* The launch-command lint: what a job should not do in its first step.
 *
 * The launch command is split into shell words and simple commands
 * (quotes, escapes, &&, ||, ;, |, $( ), `...`, NAME=value prefixes) and each
 * command is judged: downloads and installs at job start, unpacking,
 * outputs under ephemeral roots, scripts that do not exist or are not
 * executable in the project, `cd` away from the project, paths a
 * multi-Worker job cannot share, and a hint when the training code does not
 * appear to synchronise Workers; with several Workers, a launcher that
 * starts one process per Worker unaware of the others (with the form to
 * use); a command whose outputs never go to the run's directories; job.env
 * paths (HF_HOME, TORCH_HOME, WANDB_DIR, TMPDIR, any absolute path) that are
 * ephemeral or missing; files the command names (configs, operands that
 * look like paths, python -m modules) that are not in the code. The sh
 * scripts the command runs are read (bounded) and their lines judged the
 * same way, a finding there naming script:line. Every finding names the
 * offending word. */
#ifndef JOBPREP_LINT_H
#define JOBPREP_LINT_H

#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/manifest.h"
#include "jobprep/profile.h"

enum jp_lint_kind {
	JP_LINT_DOWNLOAD = 0, /* wget, curl, git clone (not the pinned code clone) */
	JP_LINT_INSTALL,      /* pip/conda/apt-get install */
	JP_LINT_UNPACK,       /* tar x, unzip, 7z x, gunzip */
	JP_LINT_EPHEMERAL,    /* an output path under an ephemeral root */
	JP_LINT_SCRIPT,       /* a script that is missing or not executable */
	JP_LINT_CD,           /* cd into a directory that is not the project */
	JP_LINT_NOT_SHARED,   /* multi-Worker: a path not on shared storage */
	JP_LINT_SYNC,         /* multi-Worker: no sign of a barrier (a hint) */
	JP_LINT_SYNTAX,       /* unbalanced quotes or $( */
	JP_LINT_CLONE_FIRST,  /* launch_clone: the command does not clone the
			       * pinned commit before anything else runs (fails) */
	JP_LINT_LAUNCHER,     /* multi-Worker: a single-process launcher (python
			       * train.py, torchrun/accelerate/deepspeed without
			       * their multi-node options) */
	JP_LINT_OUTPUTS,      /* nothing sends outputs to the run's directories */
	JP_LINT_ENV_PATH,     /* a path-valued job.env entry that is ephemeral or
			       * missing */
	JP_LINT_FILE,         /* a file the command names (a config, an operand
			       * that looks like a path) is not in the code */
	JP_LINT_HUB_DOWNLOAD, /* Python code the command runs downloads from the
			       * Hugging Face Hub at start (from_pretrained,
			       * load_dataset, ...) without HF_HOME on shared
			       * storage and HF_HUB_OFFLINE=1 (lint_hub.c) */
	JP_LINT_PROCESSES,    /* a launcher's process count is not the GPUs per
			       * Worker (lint_counts.c) */
	JP_LINT_NODES,        /* a launcher's node count is not the Workers */
	JP_LINT_PROMPT,       /* the job waits for a keyboard (a login, input(),
			       * wandb.init() without its key) */
	JP_LINT_DATA,         /* the data the job reads: a source it never names,
			       * a path the code reads that does not exist */
};

struct jp_lint_finding {
	enum jp_lint_kind kind;
	char *id;      /* check id, e.g. "launch.download" */
	char *word;    /* the offending word as written, e.g. "wget" */
	char *message; /* one line: the word, why, and what to do instead */
	char *path;    /* the path concerned, NULL if none */
	int is_hint;   /* 1: phrased as a hint (sync); still a warning */
	int fails;     /* 1: a failed check, not a warning: clone_first, an
			* output or job.env path that is wiped, a file the job
			* surely runs or reads that is not in the code */
	int platform_only; /* 1: fails only where the platform's launch line
			    * starts the job (its own directory); the exports
			    * start it in the project (a relative script) */
};

struct jp_lint_report {
	struct jp_lint_finding *items;
	size_t n;
	/* The command resumes from its checkpoint folder: what says so
	 * ("--init_from=resume", "config/x.py:3: init_from = 'resume'"); NULL:
	 * it does not (src/lint_resume.c, judged by src/resume.c). */
	char *resume;
};

#define JP_LINT_REPORT_INIT { NULL, 0, NULL }

void jp_lint_report_dispose(struct jp_lint_report *r);

/* What the lint needs besides the command. Every pointer is borrowed and
 * may be NULL (then that part of the lint is skipped). */
struct jp_lint_context {
	const struct jp_profile *profile; /* ephemeral/shared roots */
	const char *project_dir;  /* where scripts are looked up; $PROJECT_DIR */
	const char *output_dir;   /* $OUTPUT_DIR etc., for expanding variables */
	const char *checkpoint_dir;
	const char *log_dir;
	const char *data_dir;
	const char *code_repo_url; /* launch_clone: the one clone that is expected */
	long long workers;         /* > 1 turns on the multi-Worker rules */
	int project_is_local;      /* 1: project_dir is on this machine, so
				    * scripts can be looked at (not an image) */
	/* Whether the code synchronises Workers, when the caller already knows
	 * (a jp_lint_project_syncs answer); JP_LINT_SYNCS_LOOK: look now. */
	int syncs;
	/* launch_clone (code_repo_url set): the commit the command must check
	 * out after cloning code_repo_url into project_dir, before it runs
	 * anything else; NULL: none recorded, the clone alone is asked for. */
	const char *code_commit;
	/* The rest, for the launcher and job.env rules: GPUs per Worker (the
	 * process count the right launcher form asks for), and job.env. */
	long long gpus_per_worker;
	const struct jp_env_var *env;
	size_t n_env;
};

#define JP_LINT_SYNCS_LOOK (-2)
#define JP_LINT_CONTEXT_INIT { .profile = NULL, .workers = 1, .syncs = JP_LINT_SYNCS_LOOK }

/* Lint m->job.launch_command with the context taken from m (and `profile`,
 * which wins over m->profile): the findings into *out (caller disposes).
 * For launch_clone the context carries code.repo.url and .commit, so a
 * command that does not clone the pinned commit first is a failing
 * finding (launch.clone_first). Returns 0 or JP_ENOMEM. */
int jp_lint_manifest_report(struct jp_lint_report *out, const struct jp_manifest *m,
			    const struct jp_profile *profile, struct jp_error *err);

#endif
