/* Step 2, Code: where the job finds its code. Accepting it starts the work
 * in the background at once (clone onto shared storage, or reading an
 * existing checkout, or pinning the commit for a launch-command clone), so
 * the user goes on with data and outputs while it runs. */
#include "config.h"

#include "jobprep/i18n.h"
#include "tui/wizard.h"

#define CODE_KINDS ((1u << JP_ACTION_CLONE) | (1u << JP_ACTION_INSPECT) | \
		    (1u << JP_ACTION_RESOLVE))

static void code_accepted(struct jp_wizard *w)
{
	jp_wizard_start_pending(w, CODE_KINDS);
}

static int code_key(struct jp_wizard *w, enum jp_act act, const struct jp_key *key)
{
	char q[256];
	int rc;

	(void)key;
	/* Enter again after a refused or declined move of the checkout: the
	 * person fixed it or changed their mind: try again (asking again). */
	if (act == JP_ACT_ACCEPT) {
		enum jp_check_status st = JP_CHECK_PASS;

		if (jp_flow_code_note(w->flow, &st) && st == JP_CHECK_FAIL)
			jp_flow_code_retry(w->flow);
		return JP_EV_IGNORED;
	}
	/* Esc while the clone runs: ask whether to stop it, then go back. */
	if (act != JP_ACT_BACK || !jp_wizard_find_running(w, JP_ACTION_CLONE, 0))
		return JP_EV_IGNORED;
	snprintf(q, sizeof(q), "%s",
		 _("The clone is still running. Stop it (nothing half-made is left behind) "
		   "and go back?"));
	w->modal_depth++;
	rc = jp_confirm(&w->ui, _("Stop the clone?"), q, _("Stop it"), _("Let it run"), false);
	w->modal_depth--;
	if (rc == 1) {
		struct jp_running *b = jp_wizard_find_running(w, JP_ACTION_CLONE, 0);

		if (b)
			jp_worker_cancel(b->worker);
	}
	return rc == 1 ? JP_EV_IGNORED : (JP_EV_HANDLED | JP_EV_REDRAW);
}

const struct jp_step_ops jp_step_code_ops = {
	.step = JP_STEP_CODE,
	.help = N_("The job runs only its launch command and does not sync local code. Choose "
		   "one source: shared high-performance storage (for scripts you are still "
		   "changing: the dev machine, the IDE and every Worker see the same path), a "
		   "custom image with the code baked in, or a clone in the launch command (only "
		   "for light code on a stable network). With shared storage jobprep clones the "
		   "repository now, in the background, and makes scripts/*.sh executable."),
	.key = code_key,
	.accepted = code_accepted,
};
