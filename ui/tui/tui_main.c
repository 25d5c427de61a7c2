/* jp_tui_main: set the flow up (profile, --demo, --answers, -o, a draft to resume),
 * run the wizard in the terminal, and say what happened once the terminal
 * is back to normal. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobprep/demo.h"
#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/jobindex.h"
#include "jobprep/path.h"
#include "tui/draft.h"
#include "tui/term.h"
#include "tui/tui.h"
#include "tui/wizard.h"

static void report(const struct jp_error *err)
{
	size_t i;

	if (err->n == 0)
		fprintf(stderr, "jobprep: %s\n", jp_error_message(err));
	for (i = 0; i < err->n; i++)
		fprintf(stderr, "%s%s\n", strncmp(err->msgs[i], "jobprep", 7) ? "jobprep: " : "",
			err->msgs[i]);
}

/* A draft from an earlier session with the same setup: offer to resume. */
/* No job named yet: the last job prepared on this account is offered (its
 * name filled in; going on offers its last run's answers). Returns the
 * name put in (the caller's), or NULL. */
static char *offer_last_job(struct jp_wizard *w)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_jobindex_entry *v = NULL;
	char *name = NULL, *now = NULL;
	size_t n = 0;

	if (jp_flow_get(&now, w->flow, "job.name", NULL) == 0 && now && !now[0] &&
	    jp_jobindex_list(&v, &n, &err) == 0 && n > 0 &&
	    jp_flow_set(NULL, w->flow, "job.name", v[0].name, &err) == 0)
		name = strdup(v[0].name);
	free(now);
	jp_jobindex_entries_free(v, n);
	jp_error_dispose(&err);
	return name;
}

static void offer_resume(struct jp_wizard *w)
{
	struct jp_draft d = JP_DRAFT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char text[512];
	bool same;
	int rc = 0, s;

	if (!w->draft_path || (rc = jp_draft_load(&d, w->draft_path, &err)) < 0) {
		/* none is the usual case; one that cannot be read is said */
		if (w->draft_path && rc != JP_ENOENT)
			jp_wizard_status(w, JP_CHECK_WARN,
					 _("%s; it cannot be resumed (going on replaces it)"),
					 jp_error_message(&err));
		jp_error_dispose(&err);
		return;
	}
	same = d.demo == w->opts.demo &&
	       ((!d.profile && !w->profile_path) ||
		(d.profile && w->profile_path && strcmp(d.profile, w->profile_path) == 0));
	if (!same) {
		jp_draft_dispose(&d);
		return;
	}
	snprintf(text, sizeof(text),
		 _("You were preparing job \"%s\" (at the %s step, saved %s). Resume where "
		   "you left off, or start over?"),
		 d.job_name && d.job_name[0] ? d.job_name : "?",
		 _(jp_step_name((enum jp_step)d.step)), d.saved_at ? d.saved_at : "?");
	w->modal_depth++;
	rc = jp_confirm(&w->ui, _("Resume?"), text, _("Resume"), _("Start over"), true);
	w->modal_depth--;
	if (rc == 1) {
		jp_draft_apply(&d, w->flow, &err);
		if (w->opts.manifest_path)
			jp_wizard_set_manifest_path(w->flow, w->opts.manifest_path, &err);
		for (s = 0; s < d.step; s++)
			w->accepted[s] = true;
		jp_wizard_goto(w, (enum jp_step)d.step);
		/* The work of the steps already accepted runs again for these answers. */
		if (d.step > JP_STEP_CODE)
			jp_wizard_start_pending(w, (1u << JP_ACTION_CLONE) | (1u << JP_ACTION_INSPECT) |
							   (1u << JP_ACTION_RESOLVE) |
							   (1u << JP_ACTION_SCAN));
		jp_wizard_status(w, JP_CHECK_PASS, "%s", _("resumed from the draft"));
		/* its answers are the person's: no earlier run offered for them */
		free(w->offered_job);
		w->offered_job = d.job_name ? strdup(d.job_name) : NULL;
	} else if (rc == 0) {
		jp_draft_remove(w->draft_path);
	} else if (rc == JP_CONFIRM_ESC) {
		/* no answer: the draft stays as it is, offered again next time;
		 * this session keeps none of its own over it */
		free(w->draft_path);
		w->draft_path = NULL;
		jp_wizard_status(w, JP_CHECK_WARN, "%s",
				 _("the draft is kept as it was: it is offered again next time"));
	}
	jp_draft_dispose(&d);
	jp_error_dispose(&err);
}

/* The answers --answers names (*answers, NULL without), and the profile:
 * profile_path's, else the answers' own (a manifest records it), else
 * the built-in one. */
static int load_profile(struct jp_profile **profile, struct jp_manifest **answers,
			const char *answers_path, const char *profile_path, struct jp_error *err)
{
	int rc;

	*answers = NULL;
	if (answers_path && (rc = jp_manifest_load(answers, answers_path, JP_READ_ANSWERS, err)) < 0)
		return rc;
	if (*answers && (*answers)->profile && !(profile_path && profile_path[0]))
		return jp_profile_copy(profile, (*answers)->profile) < 0 ? jp_error_oom(err) : 0;
	return jp_profile_resolve(profile, profile_path, err);
}

int jp_tui_main(const struct jp_tui_options *opts)
{
	struct jp_demo demo = JP_DEMO_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *answers = NULL;
	struct jp_wizard w;
	const char *why, *profile_path;
	char *last_job = NULL;
	int rc, code = 1;

	memset(&w, 0, sizeof(w));
	w.opts = *opts;
	setlocale(LC_ALL, "");

	why = jp_term_unusable();
	if (why) {
		fprintf(stderr, "%s\n", why);
		if (opts->demo) /* the demo's own answers: nothing to write first */
			fprintf(stderr, "%s\n",
				_("jobprep: for the demo without a terminal, run 'jobprep init --demo'."));
		return 2;
	}

	profile_path = opts->profile_path;
	if (opts->demo) {
		rc = jp_demo_prepare(&demo, NULL, &err);
		if (rc < 0) {
			report(&err);
			code = jp_exit_code(rc);
			goto out;
		}
		if (!profile_path)
			profile_path = demo.profile_path;
	}
	if (!profile_path)
		profile_path = getenv("JOBPREP_PROFILE");
	if (profile_path && profile_path[0])
		w.profile_path = jp_path_absolute(profile_path);

	rc = load_profile(&w.profile, &answers, opts->answers_path, profile_path, &err);
	if (rc == 0)
		rc = jp_flow_new(&w.flow, w.profile, &err);
	if (rc == 0 && opts->demo)
		rc = jp_demo_apply(w.flow, &demo, &err);
	if (rc == 0 && opts->manifest_path)
		rc = jp_wizard_set_manifest_path(w.flow, opts->manifest_path, &err);
	else if (rc == 0 && opts->demo && demo.manifest_path)
		rc = jp_wizard_set_manifest_path(w.flow, demo.manifest_path, &err);
	if (rc == 0 && answers)
		rc = jp_wizard_use_answers(&w, answers, opts->answers_path, &err);
	if (rc < 0) {
		report(&err);
		code = rc == JP_EUSAGE ? 2 : jp_exit_code(rc);
		goto out;
	}
	if (jp_draft_path(&w.draft_path, opts->demo, &err) < 0)
		jp_error_clear(&err); /* no draft then; the wizard still works */

	rc = jp_term_start(&err);
	if (rc < 0) {
		report(&err);
		code = 2;
		goto out;
	}
	if (!answers && !opts->demo)
		last_job = offer_last_job(&w);
	jp_wizard_init(&w);
	if (last_job)
		jp_wizard_status(&w, JP_CHECK_PASS,
				 _("%s is the job you prepared last: Enter goes on with it (its last "
				   "run's answers are offered); type a name for another job"),
				 last_job);
	if (!answers)
		offer_resume(&w); /* answers named on the command line start afresh */
	/* the job (the demo's) has runs: start from the last one? (a typed
	 * name is asked about when the Job step is left) */
	jp_wizard_offer_run(&w, false);
	code = jp_wizard_run(&w);
	jp_term_stop();

	if (w.written) {
		printf(_("Manifest written: %s\n"), w.manifest_path ? w.manifest_path : "");
		printf(_("env.sh written:   %s\n"), w.env_path ? w.env_path : "");
		if (jp_flow_code_story(w.flow))
			printf("%s\n", jp_flow_code_story(w.flow));
		printf("%s\n  %s\n", _("Launch command for the platform's form:"),
		       w.platform_command ? w.platform_command : "");
		fflush(stdout);
		code = 0;
	} else if (code == 130 || code > 128) {
		char cmd[256];

		if (w.draft_path && access(w.draft_path, F_OK) == 0)
			fprintf(stderr, _("jobprep: stopped; your answers are kept in %s: run %s "
					  "again to resume.\n"),
				w.draft_path, jp_wizard_resume_command(cmd, sizeof(cmd), &w));
		else
			fprintf(stderr, "%s\n", _("jobprep: stopped."));
	}
out:
	free(last_job);
	jp_manifest_free(answers);
	jp_wizard_dispose(&w);
	jp_flow_free(w.flow);
	jp_profile_free(w.profile);
	free(w.draft_path);
	free(w.profile_path);
	free(w.manifest_path);
	free(w.env_path);
	free(w.platform_command);
	jp_demo_dispose(&demo);
	jp_error_dispose(&err);
	return code;
}
