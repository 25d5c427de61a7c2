/* Where a run's files go: its manifest, env.sh and preflight.sh in the run's folder
 * (outputs.output_dir), and a copy of the manifest at review.manifest_path
 * when that is elsewhere; whether the copy may replace what is there. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "flow_internal.h"

/* Far more than any manifest jobprep writes. */
#define MANIFEST_LOOK_BYTES (4 * 1024 * 1024)

static bool in_run_folder(const struct jp_flow *flow, const char *path)
{
	const char *out = flow->m->outputs.output_dir;

	return out && path && path[0] == '/' && out[0] == '/' && jp_path_is_under(path, out);
}

int flow_run_files(char **manifest, char **copy, const struct jp_flow *flow)
{
	const char *want = flow->manifest_path, *out = flow->m->outputs.output_dir;

	*manifest = *copy = NULL;
	if (!want || !out)
		return 0;
	if (in_run_folder(flow, want))
		return (*manifest = strdup(want)) ? 0 : JP_ENOMEM;
	*manifest = jp_path_join(out, "job.json");
	*copy = strdup(want);
	if (!*manifest || !*copy) {
		free(*manifest);
		free(*copy);
		*manifest = *copy = NULL;
		return JP_ENOMEM;
	}
	return 0;
}

int jp_flow_files(char **manifest, char **env, char **copy, const struct jp_flow *flow,
		  struct jp_error *err)
{
	*env = NULL;
	if (flow_run_files(manifest, copy, flow) < 0 ||
	    (flow->env_path && !(*env = strdup(flow->env_path)))) {
		free(*manifest);
		free(*copy);
		*manifest = *copy = NULL;
		return jp_error_oom(err);
	}
	return 0;
}

int jp_flow_preflight_file(char **out, const struct jp_flow *flow)
{
	const char *run = flow->m->outputs.output_dir;

	/* in the run's folder itself, where the exports look for it */
	*out = NULL;
	if (!run)
		return 0;
	return (*out = jp_path_join(run, "preflight.sh")) ? 0 : JP_ENOMEM;
}

int flow_copy_state(enum copy_state *st, char **other_run, const struct jp_flow *flow,
		    const char *path, unsigned timeout_ms, struct jp_error *why)
{
	struct jp_manifest *old = NULL;
	struct jp_error quiet = JP_ERROR_INIT;
	const char *out = flow->m->outputs.output_dir;
	struct stat sb;

	*st = COPY_FREE;
	if (other_run)
		*other_run = NULL;
	if (!path || in_run_folder(flow, path))
		return 0;
	/* bounded: no answer is no verdict (a loaded machine's look can take
	 * longer than the bound), never "nothing there" */
	int errnum = 0;
	int rc = jp_probe_stat(&sb, &errnum, path, JP_PROBE_NOFOLLOW, timeout_ms, why);
	if (rc == JP_ENOMEM)
		return rc;
	if (rc < 0) {
		*st = COPY_NO_ANSWER;
		return 0;
	}
	if (errnum)
		return 0; /* nothing there yet (or the write will say why not) */
	if (S_ISLNK(sb.st_mode)) {
		*st = COPY_LINK;
		return 0;
	}
	if (!S_ISREG(sb.st_mode)) {
		*st = COPY_NOT_FILE;
		return 0;
	}
	/* A manifest is "this run's" when it names this run's folder. Judged
	 * as the person types: a big file is no manifest, unread. */
	*st = COPY_OTHER_FILE;
	if (sb.st_size <= MANIFEST_LOOK_BYTES &&
	    jp_manifest_load(&old, path, JP_READ_MANIFEST, &quiet) == 0 &&
	    old->outputs.output_dir) {
		if (out && strcmp(old->outputs.output_dir, out) == 0) {
			*st = COPY_OURS;
		} else {
			*st = COPY_OTHER_RUN;
			if (other_run && !(*other_run = strdup(old->outputs.output_dir))) {
				jp_manifest_free(old);
				jp_error_dispose(&quiet);
				return JP_ENOMEM;
			}
		}
	}
	jp_manifest_free(old);
	jp_error_dispose(&quiet);
	return 0;
}

static int judge_manifest_path(struct jp_verdict *v, const struct jp_flow *flow, const char *path)
{
	struct jp_error quiet = JP_ERROR_INIT;
	enum copy_state st;
	char *other = NULL;
	int rc = flow_copy_state(&st, &other, flow, path, flow_fs_timeout_ms(), &quiet);

	jp_error_dispose(&quiet);
	if (rc < 0)
		return rc;
	switch (st) {
	case COPY_LINK:
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("%s is a symbolic link: jobprep never writes through one; give "
				   "the path of the file itself"),
				 path);
		break;
	case COPY_NOT_FILE:
		flow_verdict_set(v, JP_CHECK_FAIL, _("%s exists and is not a regular file"), path);
		break;
	case COPY_OTHER_RUN:
		flow_verdict_set(v, JP_CHECK_WARN,
				 _("%s holds the manifest of another run (%s): writing asks before "
				   "replacing it (this run's own manifest goes to its folder)"),
				 path, other);
		break;
	case COPY_OTHER_FILE:
		flow_verdict_set(v, JP_CHECK_WARN,
				 _("%s already exists and is not a manifest of this run: writing "
				   "asks before replacing it"),
				 path);
		break;
	case COPY_NO_ANSWER:
		flow_verdict_set(v, JP_CHECK_WARN,
				 _("%s did not answer within %u ms: writing looks again before it "
				   "replaces anything"),
				 path, flow_fs_timeout_ms());
		break;
	case COPY_FREE:
	case COPY_OURS:
		break;
	}
	free(other);
	return 0;
}

static int judge_env_path(struct jp_verdict *v, const struct jp_flow *flow, const char *path)
{
	const char *out = flow->m->outputs.output_dir;

	if (out && !in_run_folder(flow, path))
		flow_verdict_set(v, JP_CHECK_FAIL,
				 _("env.sh belongs in the run's folder (%s), so that runs never share "
				   "or repoint one"),
				 out);
	return 0;
}

int flow_judge_review_path(struct jp_verdict *v, const struct jp_flow *flow, enum fkey key,
			   const char *path)
{
	return key == K_MANIFEST_PATH ? judge_manifest_path(v, flow, path)
				      : judge_env_path(v, flow, path);
}

int flow_copy_allowed(const struct jp_flow *flow, const char *copy, bool force, bool ask,
		      const struct jp_port *port, struct jp_error *err)
{
	struct jp_error why = JP_ERROR_INIT;
	enum copy_state st;
	char *other = NULL, *q = NULL;
	bool yes;
	/* when writing: the commands' bound, not the one for typing */
	int rc = flow_copy_state(&st, &other, flow, copy, jp_probe_default_timeout_ms(), &why);

	if (rc < 0) {
		jp_error_dispose(&why);
		return jp_error_oom(err);
	}
	switch (st) {
	case COPY_FREE:
	case COPY_OURS:
		goto out;
	case COPY_NO_ANSWER:
		if (!force)
			rc = jp_error_set(err, JP_ETIMEOUT,
					  _("%s; nothing was written: what is there could not be "
					    "seen, and it may be another run's manifest"),
					  jp_error_message(&why));
		goto out;
	case COPY_LINK:
		rc = jp_error_set(err, JP_EREFUSED,
				  _("%s: is a symbolic link; refusing to write through it (give the "
				    "path of the file itself)"),
				  copy);
		goto out;
	case COPY_NOT_FILE:
		rc = jp_error_set(err, JP_EREFUSED,
				  _("%s: exists and is not a regular file; refusing to replace it"),
				  copy);
		goto out;
	case COPY_OTHER_RUN:
	case COPY_OTHER_FILE:
		break;
	}
	if (force)
		goto out;
	if (ask && port && port->confirm) {
		int n = st == COPY_OTHER_RUN
				? asprintf(&q,
					   _("%s holds the manifest of another run (%s). Replace it "
					     "with a copy of this run's manifest?"),
					   copy, other)
				: asprintf(&q,
					   _("%s already exists and is not a manifest of this run. "
					     "Replace it with a copy of this run's manifest?"),
					   copy);
		if (n < 0) {
			rc = jp_error_oom(err);
			goto out;
		}
		yes = port->confirm(q, port->payload) == 1;
		if (!yes)
			rc = jp_error_set(err, JP_EREFUSED,
					  _("%s was not replaced: nothing was written; choose another "
					    "file for the manifest's copy"),
					  copy);
		goto out;
	} else if (!ask && port && port->confirm) {
		goto out; /* asked when it comes to writing */
	}
	rc = st == COPY_OTHER_RUN
		     ? jp_error_set(err, JP_EREFUSED,
				    _("%s holds the manifest of another run (%s): nothing was "
				      "written; give another file, or --force to replace it"),
				    copy, other)
		     : jp_error_set(err, JP_EREFUSED,
				    _("%s already exists and is not a manifest of this run: nothing "
				      "was written; give another file, or --force to replace it"),
				    copy);
out:
	jp_error_dispose(&why);
	free(q);
	free(other);
	return rc;
}
