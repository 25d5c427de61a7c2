/* A run's own code: when the manifest is written, the checkout's commit
 * (and its uncommitted changes) becomes a read-only tree beside the project
 * (src/git_runtree.c) that the run's manifest, env.sh and preflight.sh name,
 * so a later prep that moves the live checkout never changes what an
 * earlier run runs. Also the line that says what the run takes. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "flow_internal.h"
#include "git_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/units.h"
#include "manifest_internal.h"
#include "runtree_internal.h"

/* The run folder before `out` beside it (run-NNN, the highest lower name)
 * that holds a manifest: its commit into prev, its name into name. */
static void previous_run(char *prev, char *name, size_t len, const char *out)
{
	const char *slash = strrchr(out, '/');
	char *parent = slash ? strndup(out, (size_t)(slash - out)) : NULL;
	struct dirent **v = NULL;
	int n = parent ? scandir(parent, &v, NULL, alphasort) : -1;

	prev[0] = name[0] = '\0';
	for (int i = n - 1; i >= 0; i--) {
		struct jp_manifest *m = NULL;
		struct jp_error quiet = JP_ERROR_INIT;
		char *path = NULL;

		if (!prev[0] && strncmp(v[i]->d_name, "run-", 4) == 0 &&
		    strcmp(v[i]->d_name, slash + 1) < 0 &&
		    asprintf(&path, "%s/%s/job.json", parent, v[i]->d_name) >= 0 &&
		    jp_manifest_load(&m, path, JP_READ_MANIFEST, &quiet) == 0 && m->code.repo_commit) {
			snprintf(prev, 41, "%s", m->code.repo_commit);
			snprintf(name, len, "%s", v[i]->d_name);
		}
		jp_manifest_free(m);
		jp_error_dispose(&quiet);
		free(path);
		free(v[i]);
	}
	free(v);
	free(parent);
}

/* "5 commit(s) after run-001's 3adf61e": how far the commit is from the
 * previous run's, as the checkout's history tells. */
static void distance(struct jp_buf *b, const char *checkout, const char *to, const char *prev,
		     const char *name)
{
	git_repository *repo = NULL;
	git_oid a, c;
	size_t ahead = 0, behind = 0;

	if (strcmp(to, prev) == 0) {
		jp_buf_addf(b, _(", the same commit as %s"), name);
		return;
	}
	if (git_repository_open(&repo, checkout) == 0 && git_oid_fromstr(&a, to) == 0 &&
	    git_oid_fromstr(&c, prev) == 0 &&
	    git_graph_ahead_behind(&ahead, &behind, repo, &a, &c) == 0) {
		if (ahead && !behind)
			jp_buf_addf(b, _(", %zu commit(s) after %s's %.7s"), ahead, name, prev);
		else if (behind && !ahead)
			jp_buf_addf(b, _(", %zu commit(s) before %s's %.7s"), behind, name, prev);
		else
			jp_buf_addf(b, _(", %zu commit(s) apart from %s's %.7s (%zu on each side's "
					 "own line)"),
				    ahead + behind, name, prev, ahead);
	} else {
		jp_buf_addf(b, _(", not %s's %.7s"), name, prev);
	}
	git_error_clear();
	git_repository_free(repo);
}

/* Two lines: what the run takes and from where; where its code is and
 * how to get the same code again. */
static int story(struct jp_flow *flow, const struct jp_manifest *m, const struct jp_runtree *rt)
{
	struct jp_buf b = JP_BUF_INIT;
	const char *out = m->outputs.output_dir;
	const char *run = out && strrchr(out, '/') ? strrchr(out, '/') + 1 : "?";
	const char *from = m->code.repo_ref ? m->code.repo_ref : flow->insp.branch;
	char prev[41], name[256], size[32];

	if (from)
		jp_buf_addf(&b, _("%s takes %s at %.7s"), run, from, rt->commit);
	else
		jp_buf_addf(&b, _("%s takes commit %.7s"), run, rt->commit);
	previous_run(prev, name, sizeof(name), out ? out : "");
	if (prev[0])
		distance(&b, rt->checkout, rt->commit, prev, name);
	if (rt->changed.n)
		jp_buf_addf(&b, _(", with uncommitted changes to %zu file(s) (%s)"), rt->changed.n,
			    m->code.changes_files);
	jp_buf_addc(&b, '\n');
	if (rt->reused)
		jp_buf_addf(&b, _("its code: %s (read-only; made by an earlier prep of the same "
				  "code, nothing written)"),
			    rt->path);
	else
		jp_buf_addf(&b, _("its code: %s (read-only; %zu file(s), %zu shared with the copy "
				  "made before, %s written)"),
			    rt->path, rt->files, rt->linked,
			    jp_units_format_bytes(size, sizeof(size), rt->written));
	if (rt->untracked)
		jp_buf_addf(&b, _("; %zu untracked or ignored file(s) and folder(s) there are links "
				  "to the checkout's (data, outputs: no code)"),
			    rt->untracked);
	jp_buf_addc(&b, '\n');
	jp_buf_addf(&b, _("the same code again: this run's env.sh names it; or git -C %s checkout "
			  "%s%s"),
		    rt->checkout, rt->commit,
		    rt->changed.n ? _(" and the changes, copied from the files the run's code "
				      "holds")
				  : "");
	free(flow->code_story);
	flow->code_story = NULL;
	return b.rc < 0 ? b.rc : jp_buf_take(&flow->code_story, &b);
}

/* ", "-separated, the first few, "..." after. */
static int name_files(char **out, const struct jp_strv *v)
{
	struct jp_buf b = JP_BUF_INIT;

	for (size_t i = 0; i < v->n && i <= JP_GIT_NAMES_MAX; i++)
		jp_buf_addf(&b, "%s%s", i ? ", " : "", i == JP_GIT_NAMES_MAX ? "..." : v->v[i]);
	return b.rc < 0 ? b.rc : jp_buf_take(out, &b);
}

int flow_run_code(struct jp_flow *flow, struct jp_manifest *m, struct jp_error *err)
{
	struct jp_runtree rt = JP_RUNTREE_INIT;
	char *live = NULL;
	int rc;

	if (m->code.source != JP_CODE_SHARED_STORAGE || !m->code.path || !m->code.repo_commit ||
	    m->code.checkout)
		return 0;
	/* A checkout this prep cloned, or inspected and found clean, has no
	 * changes: no second look at every file (on network storage each is a
	 * round trip). Many writers at once: on network storage each file is
	 * a round trip, and on local disk too it is the faster
	 * (bench/bench_runcode.sh). */
	bool clean = flow->checkout == CHECKOUT_CLONE ||
		     (flow->insp.path && flow->insp.is_git && flow->insp.dirty == 0 &&
		      strcmp(flow->insp.path, m->code.path) == 0);
	rc = jp_runtree_make(&rt, m->code.path, !clean, NULL, true, err);
	if (rc == JP_ENOENT) {
		/* not a checkout after all: nothing to record */
		jp_error_clear(err);
		jp_runtree_dispose(&rt);
		return 0;
	}
	if (rc == 0 && strcmp(rt.commit, m->code.repo_commit) != 0)
		rc = jp_error_set(err, JP_EREFUSED,
				  _("%s moved from %.7s to %.7s while this prep ran: prepare again"),
				  m->code.path, m->code.repo_commit, rt.commit);
	if (rc == 0 && (!(live = strdup(m->code.path)) || jp_set_str(&m->code.path, rt.path) < 0))
		rc = jp_error_oom(err);
	if (rc == 0) {
		m->code.checkout = live;
		live = NULL;
	}
	if (rc == 0 && rt.digest[0] &&
	    (jp_set_str(&m->code.changes_digest, rt.digest) < 0 ||
	     name_files(&m->code.changes_files, &rt.changed) < 0))
		rc = jp_error_oom(err);
	/* the check `jobprep check` makes of it, so the two sets agree */
	if (rc == 0 && jp_manifest_add_check(m, "code.path.tree", JP_CHECK_PASS, rt.path,
					     _("%s is the run's own copy of commit %.7s%s, made from %s"),
					     rt.path, rt.commit,
					     rt.digest[0] ? _(" with its recorded changes") : "",
					     m->code.checkout) < 0)
		rc = jp_error_oom(err);
	if (rc == 0 && story(flow, m, &rt) < 0)
		rc = jp_error_oom(err);
	free(live);
	jp_runtree_dispose(&rt);
	return rc;
}

const char *jp_flow_code_story(const struct jp_flow *flow)
{
	return flow->code_story;
}
