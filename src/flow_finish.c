/* The review step: run what is still to do, check, and write the manifest and
 * env.sh; the launch command for the platform's form. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobprep/envsh.h"
#include "jobprep/fs.h"
#include "fs_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/preflight.h"
#include "jobprep/shellwords.h"
#include "flow_internal.h"
#include "git_internal.h"
#include "manifest_internal.h"

#define MAX_ACTIONS 64

/* Directories this flow made that are still empty go again. */
static void undo_created(struct jp_flow *flow)
{
	jp_fs_unmake(&flow->created);
	free(flow->made_out);
	free(flow->made_ckpt);
	free(flow->made_log);
	flow->made_out = flow->made_ckpt = flow->made_log = NULL;
	flow_recompute(flow, NULL);
}

/* Between steps: give the front end a chance to cancel. */
static int cancelled(const struct jp_port *port, const char *what)
{
	struct jp_progress p = { JP_PHASE_DONE, 0, 0, 0, 0, 0, what };

	return port && port->progress && port->progress(&p, port->payload) < 0;
}

int jp_flow_take_manifest(struct jp_manifest **out, const struct jp_flow *flow,
			  struct jp_error *err)
{
	int rc = flow_manifest_copy(out, flow->m);

	if (rc == 0)
		rc = jp_manifest_stamp(*out);
	if (rc < 0) {
		jp_manifest_free(*out);
		*out = NULL;
		/* the stamp's clock failing is not a lack of memory */
		return rc == JP_ENOMEM ? jp_error_oom(err) : jp_error_set(err, rc, "%s", jp_strerror(rc));
	}
	return 0;
}

int jp_flow_platform_command(char **out, const struct jp_flow *flow, struct jp_error *err)
{
	char *q = NULL, *pf = NULL, *qpf = NULL;
	int rc;

	*out = NULL;
	if (!flow->m->job.launch_command || !flow->env_path)
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("the launch command and env.sh's path are not known yet"));
	rc = jp_flow_preflight_file(&pf, flow);
	if (rc == 0)
		rc = jp_sh_quote(&q, flow->env_path);
	if (rc == 0)
		rc = jp_sh_quote(&qpf, pf);
	if (rc == 0 &&
	    /* its input closed first: a prompt in the job (a login, input())
	     * must fail, not wait for a keyboard (preflight's runtime.stdin) */
	    asprintf(out, "exec </dev/null && . %s && sh %s && %s", q, qpf,
		     flow->m->job.launch_command) < 0) {
		*out = NULL;
		rc = JP_ENOMEM;
	}
	free(q);
	free(qpf);
	free(pf);
	return rc < 0 ? jp_error_oom(err) : 0;
}

/* The first action still to do other than the checks; false when none. */
static int next_action(bool *any, enum jp_action *kind, size_t *index, const struct jp_flow *flow,
		       bool deep, struct jp_error *err)
{
	enum jp_action *kinds = NULL;
	size_t *indices = NULL, n = 0;
	int rc = flow_pending_deep(&kinds, &indices, &n, flow, deep, err);

	*any = false;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (kinds[i] == JP_ACTION_CHECK)
			continue;
		*any = true;
		*kind = kinds[i];
		*index = indices[i];
		break;
	}
	free(kinds);
	free(indices);
	return rc;
}

/* env.sh and preflight.sh first, then the run's manifest (what says the run
 * is ready), then its copy; a failure removes what this write put in place. */
static int write_files(struct jp_flow *flow, bool force, const struct jp_port *port,
		       struct jp_error *err)
{
	struct jp_manifest *m = NULL;
	char *env = NULL, *manifest = NULL, *copy = NULL, *pf = NULL, *pf_path = NULL;
	int rc;

	if (!flow->manifest_path || !flow->env_path)
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("review.manifest_path: no place to write the manifest yet"));
	if (flow_run_files(&manifest, &copy, flow) < 0 || jp_flow_preflight_file(&pf_path, flow) < 0) {
		free(manifest);
		free(copy);
		return jp_error_oom(err);
	}
	rc = copy ? flow_copy_allowed(flow, copy, force, true, port, err) : 0;
	if (rc == 0)
		rc = jp_flow_take_manifest(&m, flow, err);
	if (rc == 0)
		rc = flow_run_code(flow, m, err);
	if (rc == 0)
		rc = jp_manifest_validate(m, manifest, err);
	if (rc == 0)
		rc = jp_envsh_render(&env, m, err);
	if (rc == 0)
		rc = jp_preflight_render(&pf, m, err);
	if (rc == 0)
		rc = jp_file_write_atomic(flow->env_path, env, strlen(env), 0644, err);
	if (rc == 0) {
		rc = jp_file_write_atomic(pf_path, pf, strlen(pf), 0755, err);
		if (rc < 0)
			unlink(flow->env_path);
	}
	if (rc == 0) {
		rc = jp_manifest_write(m, manifest, 0644, err);
		if (rc < 0) {
			unlink(pf_path);
			unlink(flow->env_path);
		}
	}
	if (rc == 0 && copy) {
		/* the same text: the copy is byte for byte the run's manifest */
		rc = jp_manifest_write(m, copy, 0644, err);
		if (rc < 0) {
			unlink(manifest);
			unlink(pf_path);
			unlink(flow->env_path);
		}
	}
	if (rc == 0) {
		/* what was written is what the draft says, time included */
		rc = jp_set_str(&flow->m->created_at, m->created_at);
		if (rc < 0)
			rc = jp_error_oom(err);
	}
	free(env);
	free(pf);
	free(pf_path);
	free(manifest);
	free(copy);
	jp_manifest_free(m);
	return rc;
}

/* Before anything is made: a copy that may not be written refuses now. */
static int copy_refused_early(const struct jp_flow *flow, bool force, const struct jp_port *port,
			      struct jp_error *err)
{
	char *manifest = NULL, *copy = NULL;
	int rc = flow_run_files(&manifest, &copy, flow);

	if (rc < 0)
		rc = jp_error_oom(err);
	else if (copy)
		rc = flow_copy_allowed(flow, copy, force, false, port, err);
	free(manifest);
	free(copy);
	return rc;
}

/* A refused prep changes nothing: a move of the checkout this finish made
 * is taken back (its carried edits stay), and the checkout is looked at
 * again next time. */
static void undo_move(struct jp_flow *flow, unsigned moves_before, struct jp_error *err)
{
	struct jp_git_update_result r;
	char *path = flow->insp.path;

	if (flow->moves == moves_before || !flow->insp.moved.moved || !path)
		return;
	r = flow->insp.moved;
	r.ref = flow->insp.moved_ref[0] ? flow->insp.moved_ref : NULL;
	r.summary = r.from_name = r.dirty_paths = NULL;
	if (jp_git_update_undo(path, &r, err) == 0)
		jp_error_set(err, err->code ? err->code : JP_ECHECK,
			     _("%s is back at %.7s, where it was: the move to %.7s is taken back, as "
			       "the prep was refused"),
			     path, r.from, r.to);
	flow->insp.path = NULL;
	flow_inspected_dispose(&flow->insp);
	free(path);
}

int jp_flow_finish(struct jp_flow *flow, unsigned flags, const struct jp_port *port,
		   struct jp_error *err)
{
	bool force = flags & JP_FINISH_FORCE, deep = flags & JP_FINISH_DEEP;
	unsigned moves_before = flow->moves;
	int rc;

	/* 1. Nothing is made while an answer is wrong, or while the manifest's
	 * copy would replace what it must not. */
	if (!force) {
		rc = flow_report_failures(flow, NULL, err);
		if (rc < 0)
			return rc;
	}
	rc = copy_refused_early(flow, force, port, err);
	if (rc < 0)
		return rc;

	/* 2. clone / inspect / resolve, scans, output directories */
	for (int guard = 0; guard < MAX_ACTIONS; guard++) {
		enum jp_action kind = JP_ACTION_CHECK;
		size_t index = 0;
		bool any = false;

		rc = next_action(&any, &kind, &index, flow, deep, err);
		if (rc < 0)
			goto fail;
		if (!any)
			break;
		if (cancelled(port, NULL)) {
			rc = jp_error_set(err, JP_ECANCELED, "%s", _("cancelled"));
			goto fail;
		}
		rc = jp_flow_run(flow, kind, index, deep, port, err);
		if (rc < 0)
			goto fail;
	}

	/* 3. What the actions found (a checkout of another repository, no
	 * train.sh after the clone) can make an answer wrong after all. */
	if (!force) {
		rc = flow_report_failures(flow, NULL, err);
		if (rc < 0)
			goto fail;
	}

	/* 4. every check */
	if (cancelled(port, NULL)) {
		rc = jp_error_set(err, JP_ECANCELED, "%s", _("cancelled"));
		goto fail;
	}
	rc = jp_flow_run(flow, JP_ACTION_CHECK, 0, deep, port, err);
	if (rc < 0)
		goto fail;
	if (jp_manifest_worst(flow->m) == JP_CHECK_FAIL && !force) {
		size_t n = 0;
		for (size_t i = 0; i < flow->m->n_checks; i++)
			n += flow->m->checks[i].status == JP_CHECK_FAIL;
		rc = jp_error_set(err, JP_ECHECK,
				  n == 1 ? _("%zu check failed: nothing was written")
					 : _("%zu checks failed: nothing was written"),
				  n);
		goto fail;
	}
	if (flags & JP_FINISH_NO_WRITE) {
		/* a dry run claims no run folder: what it made for the checks goes */
		undo_created(flow);
		return 0;
	}

	/* 5. write */
	if (cancelled(port, NULL)) {
		rc = jp_error_set(err, JP_ECANCELED, "%s", _("cancelled"));
		goto fail;
	}
	rc = write_files(flow, force, port, err);
	if (rc < 0)
		goto fail;
	/* made for good now */
	jp_strv_dispose(&flow->created);
	return 0;
fail:
	undo_move(flow, moves_before, err);
	undo_created(flow);
	return rc;
}
