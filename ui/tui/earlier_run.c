/* Starting from an earlier run: when the job named on the first step has
 * runs already, the wizard offers to start from the last one's answers (its
 * manifest read as answers: Workers, data sources, the launch command,
 * job.env...; what is derived is worked out again and the next run folder
 * is taken), and `jobprep --answers FILE` starts from a file's answers. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/runs.h"
#include "tui/wizard.h"

/* The last run of job that has a readable manifest: its path and what it
 * says (*m, the caller's), or NULL. */
static char *last_run(struct jp_manifest **m, const struct jp_profile *profile, const char *job,
		      const struct jp_run **shown, struct jp_run **runs, size_t *n)
{
	struct jp_error ignored = JP_ERROR_INIT;
	char *path = NULL;

	*m = NULL;
	*shown = NULL;
	if (jp_runs_list(runs, n, profile, job, &ignored) < 0)
		*n = 0;
	for (size_t i = *n; i-- > 0 && !path;) {
		const struct jp_run *r = &(*runs)[i];

		if (!r->manifest)
			continue;
		jp_error_clear(&ignored);
		if (jp_manifest_load(m, r->manifest, JP_READ_ANSWERS, &ignored) == 0 &&
		    (*m)->job.name && strcmp((*m)->job.name, job) == 0) {
			path = strdup(r->manifest);
			*shown = r;
		} else {
			jp_manifest_free(*m);
			*m = NULL;
		}
	}
	if (!path) {
		jp_manifest_free(*m);
		*m = NULL;
	}
	jp_error_dispose(&ignored);
	return path;
}

int jp_wizard_use_answers(struct jp_wizard *w, const struct jp_manifest *answers,
			  const char *origin, struct jp_error *err)
{
	struct jp_flow *flow = NULL;
	char *copy = NULL;
	int rc = jp_flow_new(&flow, w->profile, err);

	if (rc == 0)
		rc = jp_flow_apply_answers(flow, answers, origin, err);
	if (rc == JP_ECHECK) {
		/* stored: the steps show what fails, beside its field */
		jp_error_clear(err);
		rc = 0;
	}
	/* the copy -o (or the demo) asked for stays asked for */
	if (rc == 0 && w->flow && jp_flow_is_set(w->flow, "review.manifest_path") &&
	    jp_flow_get(&copy, w->flow, "review.manifest_path", err) == 0 && copy && copy[0])
		rc = jp_flow_set(NULL, flow, "review.manifest_path", copy, err);
	free(copy);
	if (rc < 0) {
		jp_flow_free(flow);
		return rc;
	}
	jp_wizard_cancel_all(w);
	if (w->ops) {
		/* the form is the old flow's: built anew on this one */
		struct jp_flow *old = w->flow;

		w->flow = flow;
		jp_wizard_goto(w, w->step);
		jp_flow_free(old);
	} else {
		jp_flow_free(w->flow);
		w->flow = flow;
	}
	free(w->offered_job);
	w->offered_job = answers->job.name ? strdup(answers->job.name) : NULL;
	w->rebuild = w->redraw = true;
	return 0;
}

void jp_wizard_offer_run(struct jp_wizard *w, bool keep_typed)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *m = NULL;
	struct jp_run *runs = NULL;
	const struct jp_run *r = NULL;
	static const char *const job_keys[] = { "job.workers", "job.gpus_per_worker" };
	char *typed[2] = { NULL, NULL };
	char *job = NULL, *path = NULL, text[1024], yes[96], when[32] = "?";
	const char *folder;
	size_t n = 0;
	int rc;

	if (jp_flow_get(&job, w->flow, "job.name", NULL) < 0 || !job || !job[0] ||
	    (w->offered_job && strcmp(w->offered_job, job) == 0))
		goto out;
	free(w->offered_job);
	w->offered_job = strdup(job); /* asked once per job name */
	path = last_run(&m, jp_flow_profile(w->flow), job, &r, &runs, &n);
	if (!path)
		goto out;
	folder = strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir;
	if (r->created_at) /* "2026-12-03T12:18:29Z" -> "2026-12-03 12:18" */
		snprintf(when, sizeof(when), "%.10s %.5s", r->created_at,
			 strlen(r->created_at) > 11 ? r->created_at + 11 : "");
	snprintf(text, sizeof(text),
		 _("%s was prepared before: %s (%s, commit %.7s). Start from its answers "
		   "(Workers, data, outputs, launch command, job.env; what is derived is "
		   "worked out again and the next run folder is taken), or from the defaults?"),
		 job, folder, when, r->commit ? r->commit : "-");
	snprintf(yes, sizeof(yes), _("Start from %s"), folder);
	w->modal_depth++;
	rc = jp_confirm(&w->ui, _("An earlier run"), text, yes, _("Start afresh"), true);
	w->modal_depth--;
	w->redraw = true;
	if (rc != 1)
		goto out;
	/* what was typed on the Job step before Enter asked stays */
	for (size_t i = 0; keep_typed && i < sizeof(typed) / sizeof(typed[0]); i++)
		if (jp_flow_is_set(w->flow, job_keys[i]))
			jp_flow_get(&typed[i], w->flow, job_keys[i], NULL);
	if (jp_wizard_use_answers(w, m, path, &err) < 0) {
		jp_wizard_status(w, JP_CHECK_FAIL, "%s", jp_error_message(&err));
		goto out;
	}
	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++)
		if (typed[i])
			jp_flow_set(NULL, w->flow, job_keys[i], typed[i], NULL);
	if (w->ops)
		jp_wizard_goto(w, w->step);
	jp_wizard_status(w, JP_CHECK_PASS, _("started from %s"), folder);
out:
	free(typed[0]);
	free(typed[1]);
	jp_runs_free(runs, n);
	jp_manifest_free(m);
	jp_error_dispose(&err);
	free(path);
	free(job);
}
