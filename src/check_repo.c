/* The checkout's own checks, for code on shared storage: is it a git
 * checkout (so the manifest can record the version that ran), are there
 * uncommitted changes, commits no remote has, files stored with Git LFS
 * that are only pointers, submodules not cloned. One set, from here, for
 * `jobprep check`, `init` and the wizard's review alike. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobprep/check.h"
#include "check_internal.h"
#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "manifest_internal.h"
#include "jobprep/shellwords.h"
#include "jobprep/units.h"
#include "git_internal.h"
#include "runtree_internal.h"

/* code.path.exists passed: the path answered and is there. */
static bool code_path_there(const struct jp_manifest *m)
{
	for (size_t i = 0; i < m->n_checks; i++)
		if (m->checks[i].id && strcmp(m->checks[i].id, "code.path.exists") == 0)
			return m->checks[i].status == JP_CHECK_PASS;
	return false;
}

/* "a.bin (1.5 MiB), b.pt (300 MiB), ...": the first few pointers. */
static int name_pointers(char **out, const struct jp_git_lfs_report *r)
{
	struct jp_buf b = JP_BUF_INIT;
	char size[32];

	for (size_t i = 0; i < r->n && i <= JP_GIT_NAMES_MAX; i++) {
		if (i == JP_GIT_NAMES_MAX) {
			jp_buf_add(&b, ", ...");
			break;
		}
		jp_units_format_bytes(size, sizeof(size), r->v[i].size);
		jp_buf_addf(&b, "%s%s (%s)", i ? ", " : "", r->v[i].path, size);
	}
	return jp_buf_take(out, &b);
}

/* For pointers no attribute names (committed as plain files), which
 * git-lfs 3.6 and later do not fetch: the command that names them in the
 * checkout's own .git/info/attributes first, as jobprep's clone does, or
 * "" when there are none. */
static int name_first(char **out, const struct jp_git_lfs_report *r, const char *dir)
{
	struct jp_buf b = JP_BUF_INIT, cmd = JP_BUF_INIT, pat = JP_BUF_INIT, msg = JP_BUF_INIT;
	size_t listed = 0;
	char *q = NULL;
	int rc = 0;

	*out = NULL;
	if (!r->unnamed)
		return (*out = strdup("")) ? 0 : JP_ENOMEM;
	jp_buf_add(&cmd, "printf '%s " JP_GIT_LFS_ATTRS "\\n'");
	for (size_t i = 0; i < r->listed && i < JP_GIT_NAMES_MAX; i++) {
		if (r->v[i].named)
			continue;
		jp_buf_dispose(&pat);
		jp_git_lfs_attr_pattern(&pat, r->v[i].path);
		if ((rc = pat.rc) < 0 || (rc = jp_sh_quote(&q, pat.s)) < 0)
			goto out;
		jp_buf_addf(&cmd, " %s", q);
		free(q);
		q = NULL;
		jp_buf_addf(&b, "%s%s", listed++ ? ", " : "", r->v[i].path);
	}
	jp_buf_addf(&cmd, " >>\"$(git -C %s rev-parse --absolute-git-dir)/info/attributes\"", dir);
	if (listed < r->unnamed)
		jp_buf_add(&b, ", ...");
	if ((rc = cmd.rc) < 0 || (rc = b.rc) < 0)
		goto out;
	jp_buf_addf(&msg,
		    _("; no attribute names %zu of them (%s), and git-lfs 3.6 and later fetch only "
		      "the files the attributes name: before the pull, name them in the "
		      "checkout's own attributes, as jobprep clone does: %s"),
		    r->unnamed, b.s, cmd.s);
	if (listed < r->unnamed)
		jp_buf_add(&msg, _(" (and a line for each of the others)"));
	rc = jp_buf_take(out, &msg);
out:
	free(q);
	jp_buf_dispose(&msg);
	jp_buf_dispose(&pat);
	jp_buf_dispose(&cmd);
	jp_buf_dispose(&b);
	return rc;
}

/* code.repo.lfs: only for a checkout that stores files with Git LFS. */
static int check_lfs(struct jp_manifest *m, const char *path)
{
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct jp_error quiet = JP_ERROR_INIT;
	char *names = NULL, *dir = NULL, *first = NULL;
	char total[32];
	int rc = jp_git_lfs_check(&r, path, &quiet);

	jp_error_dispose(&quiet);
	if (rc < 0)
		return rc == JP_ENOMEM ? rc : 0;
	if (r.n == 0 && r.unfinished)
		rc = jp_manifest_add_check(m, "code.repo.lfs", JP_CHECK_WARN, path,
					   _("%s: the look for Git LFS pointers did not answer in time "
					     "(a slow or hung mount?): check again before submitting"),
					   path);
	else if (r.n == 0 && r.tracked)
		rc = jp_manifest_add_check(m, "code.repo.lfs", JP_CHECK_PASS, path,
					   _("%s: the %zu file(s) stored with Git LFS have their "
					     "content"),
					   path, r.tracked);
	if (r.n == 0)
		goto out;
	if ((rc = name_pointers(&names, &r)) < 0 || (rc = jp_sh_quote(&dir, r.workdir)) < 0 ||
	    (rc = name_first(&first, &r, dir)) < 0)
		goto out;
	jp_units_format_bytes(total, sizeof(total), r.bytes);
	if (jp_git_lfs_installed())
		rc = jp_manifest_add_check(
			m, "code.repo.lfs", JP_CHECK_FAIL, path,
			_("%s: %zu file(s) stored with Git LFS are only pointers here, not their "
			  "content (%s; %s in all): the job would read a small text file in place "
			  "of each. Fetch them: git -C %s lfs pull%s"),
			path, r.n, names, total, dir, first);
	else
		rc = jp_manifest_add_check(
			m, "code.repo.lfs", JP_CHECK_FAIL, path,
			_("%s: %zu file(s) stored with Git LFS are only pointers here, not their "
			  "content (%s; %s in all): the job would read a small text file in place "
			  "of each. git-lfs is not installed on this machine: install it (Debian: "
			  "apt-get install git-lfs), then run: git -C %s lfs pull%s"),
			path, r.n, names, total, dir, first);
out:
	free(first);
	free(names);
	free(dir);
	jp_git_lfs_report_dispose(&r);
	return rc;
}

/* code.repo.submodules: only for a checkout that declares submodules. */
static int check_submodules(struct jp_manifest *m, const char *path)
{
	struct jp_git_sm_report r = JP_GIT_SM_REPORT_INIT;
	struct jp_error quiet = JP_ERROR_INIT;
	struct jp_buf b = JP_BUF_INIT;
	char *names = NULL, *dir = NULL;
	int rc = jp_git_submodules_check(&r, path, &quiet);

	jp_error_dispose(&quiet);
	if (rc < 0)
		return rc == JP_ENOMEM ? rc : 0;
	if (r.unfinished)
		rc = jp_manifest_add_check(m, "code.repo.submodules", JP_CHECK_WARN, path,
					   _("%s: the look at its submodules did not answer in time "
					     "(a slow or hung mount?): check again before submitting"),
					   path);
	else if (r.declared && !r.n_missing)
		rc = jp_manifest_add_check(m, "code.repo.submodules", JP_CHECK_PASS, path,
					   _("%s: its %zu submodule(s) are cloned"), path, r.declared);
	if (r.unfinished || !r.n_missing)
		goto out;
	for (size_t i = 0; i < r.missing.n && i <= JP_GIT_NAMES_MAX; i++)
		jp_buf_addf(&b, "%s%s", i ? ", " : "",
			    i == JP_GIT_NAMES_MAX ? "..." : r.missing.v[i]);
	if ((rc = jp_buf_take(&names, &b)) < 0 || (rc = jp_sh_quote(&dir, r.workdir)) < 0)
		goto out;
	rc = jp_manifest_add_check(
		m, "code.repo.submodules", JP_CHECK_FAIL, path,
		_("%s declares %zu submodule(s) that are not cloned (%s): their folders are empty, "
		  "so the job would miss that code. Clone them: git -C %s submodule update --init "
		  "--recursive (or clone it again with jobprep clone --submodules)"),
		path, r.n_missing, names, dir);
out:
	jp_buf_dispose(&b);
	free(names);
	free(dir);
	jp_git_sm_report_dispose(&r);
	return rc;
}

/* code.path.tree: a run's own copy of its code (code.checkout set) holds
 * the commit and changes the manifest records, as its stamp says. */
static int check_tree(struct jp_manifest *m, const char *path)
{
	char commit[41], digest[65];
	const char *want = m->code.changes_digest ? m->code.changes_digest : "";

	if (jp_runtree_stamp_read(commit, digest, path) < 0)
		return jp_manifest_add_check(m, "code.path.tree", JP_CHECK_FAIL, path,
					     _("%s is not a copy of code jobprep made (no stamp): "
					       "the run's manifest records %s; prepare the run again"),
					     path, m->code.repo_commit ? m->code.repo_commit : "?");
	if (!m->code.repo_commit || strcmp(commit, m->code.repo_commit) != 0 ||
	    strcmp(digest, want) != 0)
		return jp_manifest_add_check(
		    m, "code.path.tree", JP_CHECK_FAIL, path,
		    _("%s holds the code of %s%s%.12s, but the run's manifest records %s%s%.12s: the "
		      "run's own copy of its code is not the one it was prepared with; prepare "
		      "the run again"),
		    path, commit, digest[0] ? " + " : "", digest,
		    m->code.repo_commit ? m->code.repo_commit : "?", want[0] ? " + " : "", want);
	return jp_manifest_add_check(m, "code.path.tree", JP_CHECK_PASS, path,
				     _("%s is the run's own copy of commit %.7s%s, made from %s"),
				     path, commit, want[0] ? _(" with its recorded changes") : "",
				     m->code.checkout);
}

int jp_check_repo(struct jp_manifest *m, struct jp_error *err)
{
	struct jp_git_repo_info info = JP_GIT_REPO_INFO_INIT;
	struct jp_error quiet = JP_ERROR_INIT;
	const char *path = m->code.path;
	int rc, errnum;

	(void)err;
	/* a first look in bounded time: on a mount that does not answer (or
	 * is known hung) nothing more is looked at */
	if (m->code.source != JP_CODE_SHARED_STORAGE || !path || !code_path_there(m) ||
	    jp_probe_stat(NULL, &errnum, path, 0, 0, NULL) == JP_ETIMEOUT)
		return 0;
	/* a run's manifest: its own copy of the code is what runs; what git
	 * says (and how to fix it) is about the live checkout it came from */
	if (m->code.checkout) {
		if ((rc = check_tree(m, path)) < 0)
			return rc;
		path = m->code.checkout;
	}
	rc = jp_git_inspect(&info, path, NULL, &quiet);
	jp_error_dispose(&quiet);
	if (rc == JP_ENOENT)
		return jp_manifest_add_check(m, "code.repo.recorded", JP_CHECK_WARN, path,
					     _("%s is not a git checkout, so the manifest cannot "
					       "record which version of the code ran"),
					     path);
	if (rc < 0)
		return 0; /* another user's, unreadable: the path checks said enough */
	if (info.dirty > 0)
		rc = jp_manifest_add_check(m, "code.repo.clean", JP_CHECK_WARN, path,
					   _("%s has %zu uncommitted change(s) (%s): the job runs code "
					     "no commit records, and the recorded commit does not "
					     "describe it; commit them first"),
					   path, info.dirty, info.dirty_paths ? info.dirty_paths : "?");
	else
		rc = jp_manifest_add_check(m, "code.repo.clean", JP_CHECK_PASS, path,
					   _("%s has no uncommitted changes"), path);
	if (rc == 0 && info.unpushed > 0)
		rc = jp_manifest_add_check(m, "code.repo.pushed", JP_CHECK_WARN, path,
					   _("%zu commit(s) in %s are on no remote: nobody else can "
					     "get this exact code"),
					   info.unpushed, path);
	jp_git_repo_info_dispose(&info);
	if (rc == 0)
		rc = check_lfs(m, path);
	if (rc == 0)
		rc = check_submodules(m, path);
	return rc;
}
