/* Inline checks off the flow's thread: the wizard asks while the person
 * types, and a look at a hung mount must not freeze the keys. A check runs
 * jp_flow_validate on a snapshot of the flow, on the probe helper's thread
 * (jobprep/probe.h); the wizard polls for its verdict. A branch, tag or
 * commit is also looked up on the remote there (ls-remote, bounded). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "flow_internal.h"

/* What the check's thread owns while it runs. */
struct check_job {
	struct jp_flow *snap;
	char *key;
	char *value; /* NULL: the current value */
	int rc;
	struct jp_verdict verdict;
	char error[512];
};

struct jp_flow_check {
	struct jp_probe_job *job;
	struct check_job *done; /* the job, once it has answered */
};

static void check_job_free(void *arg)
{
	struct check_job *j = arg;

	if (!j)
		return;
	jp_flow_free(j->snap);
	free(j->key);
	if (j->value) {
		explicit_bzero(j->value, strlen(j->value));
		free(j->value);
	}
	jp_verdict_dispose(&j->verdict);
	free(j);
}

/* A server silent this long is left alone: the ref is looked up again at
 * the clone, which waits longer. */
#define REF_LOOK_TIMEOUT_S 10

/* The ref as typed, against the repository's URL: a miss fails the field
 * at once (naming the default branch) instead of two steps later. Only a
 * definite "no such ref" counts: an unreachable server, or one that wants
 * credentials (no one is asked here), says nothing. */
static void look_up_ref(struct check_job *j)
{
	struct jp_git_remote_info info = JP_GIT_REMOTE_INFO_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char *url = NULL, *ref = NULL;

	if (j->verdict.status == JP_CHECK_FAIL || !jp_flow_field_active(j->snap, "code.repo.url"))
		return;
	if (j->value)
		ref = strdup(j->value);
	else if (jp_flow_get(&ref, j->snap, "code.repo.ref", NULL) < 0)
		ref = NULL;
	if (jp_flow_get(&url, j->snap, "code.repo.url", NULL) < 0)
		url = NULL;
	if (url && url[0] && ref && ref[0] &&
	    jp_git_remote_check(&info, url, ref, REF_LOOK_TIMEOUT_S, NULL, &err) == JP_ENOENT)
		flow_verdict_set(&j->verdict, JP_CHECK_FAIL, "%s", jp_error_message(&err));
	jp_git_remote_info_dispose(&info);
	jp_error_dispose(&err);
	free(url);
	free(ref);
}

static void check_job_run(void *arg)
{
	struct check_job *j = arg;
	struct jp_error err = JP_ERROR_INIT;

	j->rc = jp_flow_validate(&j->verdict, j->snap, j->key, j->value, &err);
	if (j->rc < 0)
		snprintf(j->error, sizeof(j->error), "%s", jp_error_message(&err));
	else if (strcmp(j->key, "code.repo.ref") == 0)
		look_up_ref(j);
	jp_error_dispose(&err);
}

int jp_flow_check_start(struct jp_flow_check **out, const struct jp_flow *flow, const char *key,
			const char *value, struct jp_error *err)
{
	struct jp_flow_check *c = calloc(1, sizeof(*c));
	struct check_job *j = calloc(1, sizeof(*j));
	int rc;

	*out = NULL;
	if (!c || !j || flow_snapshot(&j->snap, flow) < 0 || !(j->key = strdup(key)) ||
	    (value && !(j->value = strdup(value)))) {
		free(c);
		check_job_free(j);
		return jp_error_oom(err);
	}
	struct jp_verdict none = JP_VERDICT_INIT;
	j->verdict = none;
	rc = jp_probe_start(&c->job, check_job_run, j, check_job_free, err);
	if (rc < 0) {
		free(c);
		check_job_free(j);
		return rc;
	}
	*out = c;
	return 0;
}

/* Keep what the check learnt slowly (the project's sync look). */
static void learn(const struct jp_flow *flow, const struct jp_flow *snap)
{
	struct flow_cache *have = flow->cache, *got = snap->cache;

	if (!got->sync_path || (have->sync_path && strcmp(have->sync_path, got->sync_path) == 0))
		return;
	free(have->sync_path);
	have->sync_path = got->sync_path;
	have->syncs = got->syncs;
	got->sync_path = NULL;
}

bool jp_flow_check_poll(struct jp_verdict *verdict, struct jp_flow_check *c,
			const struct jp_flow *flow, unsigned wait_ms)
{
	struct check_job *j;

	if (!c->done) {
		if (!jp_probe_wait(c->job, wait_ms))
			return false;
		c->done = jp_probe_end(c->job);
		c->job = NULL;
		if (!c->done)
			return false; /* cannot happen: it had answered */
	}
	j = c->done;
	jp_verdict_dispose(verdict);
	if (j->rc < 0) {
		verdict->status = JP_CHECK_FAIL;
		verdict->message = strdup(j->error);
	} else {
		*verdict = j->verdict;
		struct jp_verdict none = JP_VERDICT_INIT;
		j->verdict = none;
	}
	if (flow)
		learn(flow, j->snap);
	return true;
}

void jp_flow_check_free(struct jp_flow_check *c)
{
	if (!c)
		return;
	/* Still running: its thread frees the job when (if) it answers. */
	if (c->job)
		check_job_free(jp_probe_end(c->job));
	check_job_free(c->done);
	free(c);
}
