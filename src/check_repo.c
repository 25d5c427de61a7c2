/* The checkout's own checks, for code on shared storage: is it a git
 * checkout (so the manifest can record the version that ran), are there
 * uncommitted changes, commits no remote has. One set, from here, for
 * `jobprep check`, `init` and the wizard's review alike. */
#include "config.h"

#include <string.h>

#include "jobprep/check.h"
#include "check_internal.h"
#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "manifest_internal.h"

/* code.path.exists passed: the path answered and is there. */
static bool code_path_there(const struct jp_manifest *m)
{
	for (size_t i = 0; i < m->n_checks; i++)
		if (m->checks[i].id && strcmp(m->checks[i].id, "code.path.exists") == 0)
			return m->checks[i].status == JP_CHECK_PASS;
	return false;
}

int jp_check_repo(struct jp_manifest *m, struct jp_error *err)
{
	struct jp_git_repo_info info = JP_GIT_REPO_INFO_INIT;
	struct jp_error quiet = JP_ERROR_INIT;
	const char *path = m->code.path;
	int rc;

	(void)err;
	if (m->code.source != JP_CODE_SHARED_STORAGE || !path || !code_path_there(m) ||
	    jp_probe_mount_hung(path, NULL, 0))
		return 0;
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
	return rc;
}
