/* An existing checkout: where it came from, what it has checked out, and
 * whether a job started from it would run code nobody can reproduce (changes
 * not committed, commits not pushed). */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/probe.h"
#include "git_internal.h"

#define MAX_COUNT 10000

void jp_git_repo_info_dispose(struct jp_git_repo_info *info)
{
	if (!info)
		return;
	free(info->workdir);
	free(info->remote);
	free(info->url);
	free(info->branch);
	free(info->upstream);
	free(info->dirty_paths);
	*info = (struct jp_git_repo_info)JP_GIT_REPO_INFO_INIT;
}

/* libgit2 refuses a repository owned by someone else (CVE-2022-24765):
 * say whose it is and how to trust it. */
static int explain_owner(const char *path, struct jp_error *err)
{
	git_buf found = { NULL, 0, 0 };
	char dir[4096];
	struct stat sb;
	struct passwd *pw, *me;
	const char *owner = "?", *self = "?";
	char owner_buf[64], self_buf[64];

	snprintf(dir, sizeof(dir), "%s", path);
	if (git_repository_discover(&found, path, 0, NULL) == 0 && found.ptr) {
		snprintf(dir, sizeof(dir), "%s", found.ptr);
		size_t n = strlen(dir);
		while (n > 1 && dir[n - 1] == '/')
			dir[--n] = '\0';
		/* The work tree is what safe.directory names. */
		if (n > 5 && strcmp(dir + n - 5, "/.git") == 0)
			dir[n - 5] = '\0';
	}
	git_buf_dispose(&found);
	/* getpwuid's result is overwritten by the next call: copy it. */
	if (stat(dir, &sb) == 0) {
		if ((pw = getpwuid(sb.st_uid)) != NULL)
			snprintf(owner_buf, sizeof(owner_buf), "%s", pw->pw_name);
		else
			snprintf(owner_buf, sizeof(owner_buf), "uid %u", (unsigned)sb.st_uid);
		owner = owner_buf;
	}
	if ((me = getpwuid(geteuid())) != NULL)
		snprintf(self_buf, sizeof(self_buf), "%s", me->pw_name);
	else
		snprintf(self_buf, sizeof(self_buf), "uid %u", (unsigned)geteuid());
	self = self_buf;
	return jp_error_set(err, JP_EREFUSED,
			    _("%s: the repository belongs to %s, not to you (%s); git will not use "
			      "another user's repository unless you trust it. If you do, run: git "
			      "config --global --add safe.directory %s"),
			    dir, owner, self, dir);
}

/* A repository is found at or above path, and someone else owns it. */
static bool owned_by_other(const char *path)
{
	git_buf found = { NULL, 0, 0 };
	struct stat sb;
	bool other = false;

	if (git_repository_discover(&found, path, 0, NULL) == 0 && found.ptr)
		other = stat(found.ptr, &sb) == 0 && sb.st_uid != geteuid();
	git_buf_dispose(&found);
	git_error_clear();
	return other;
}

static bool exec_bit_only(git_repository *repo, const git_status_entry *e, const char *pattern)
{
	const git_diff_delta *d = e->index_to_workdir;
	git_oid oid;

	if (!d || e->status != GIT_STATUS_WT_MODIFIED || !pattern || !*pattern)
		return false;
	if (d->old_file.mode != GIT_FILEMODE_BLOB || d->new_file.mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return false;
	if (fnmatch(pattern, d->new_file.path, FNM_PATHNAME) != 0)
		return false;
	/* Same content, only the mode differs. */
	if (git_repository_hashfile(&oid, repo, d->new_file.path, GIT_OBJECT_BLOB, NULL) != 0)
		return false;
	return git_oid_equal(&oid, &d->old_file.id);
}

/* Append the entry's path (or "...") to a ", "-separated list. */
static int name_path(char **list, const git_status_entry *e, bool more)
{
	const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
	const char *p = more ? "..." : d && d->new_file.path ? d->new_file.path : "?";
	char *grown = NULL;

	if (asprintf(&grown, "%s%s%s", *list ? *list : "", *list ? ", " : "", p) < 0)
		return JP_ENOMEM;
	free(*list);
	*list = grown;
	return 0;
}

/* Tracked files changed, untracked ones, jobprep's own chmod +x; 0, a
 * libgit2 error (< 0), or 1 when out of memory. */
static int count_changes(struct jp_git_repo_info *info, git_repository *repo, const char *pattern)
{
	git_status_options so;
	git_status_list *st = NULL;
	int gerr;

	/* on network storage, with many threads (git_pstatus.c) */
	if (jp_git_on_network(info->workdir) &&
	    (gerr = jp_git_pstatus(info, repo, pattern)) != JP_GIT_PSTATUS_FALLBACK)
		return gerr;
	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if ((gerr = git_status_list_new(&st, repo, &so)) != 0)
		return gerr;
	for (size_t i = 0; i < git_status_list_entrycount(st); i++) {
		const git_status_entry *e = git_status_byindex(st, i);

		if (!e || e->status == GIT_STATUS_CURRENT || (e->status & GIT_STATUS_IGNORED))
			continue;
		if (e->status == GIT_STATUS_WT_NEW)
			info->untracked++;
		else if (exec_bit_only(repo, e, pattern))
			info->exec_only++;
		else if (++info->dirty <= JP_GIT_NAMES_MAX + 1 &&
			 name_path(&info->dirty_paths, e, info->dirty > JP_GIT_NAMES_MAX) < 0) {
			git_status_list_free(st);
			return 1;
		}
	}
	git_status_list_free(st);
	return 0;
}

static size_t count_walk(git_revwalk *walk)
{
	git_oid oid;
	size_t n = 0;

	while (n < MAX_COUNT && git_revwalk_next(&oid, walk) == 0)
		n++;
	return n;
}

int jp_git_inspect(struct jp_git_repo_info *out, const char *path, const char *exec_pattern,
		   struct jp_error *err)
{
	struct jp_git_repo_info info = JP_GIT_REPO_INFO_INIT;
	git_repository *repo = NULL;
	git_reference *head = NULL, *up = NULL;
	git_remote *remote = NULL;
	git_strarray remotes = { NULL, 0 };
	git_revwalk *walk = NULL;
	const char *pattern = exec_pattern ? exec_pattern : JP_GIT_EXEC_DEFAULT;
	int gerr, rc = 0;

	*out = info;
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;
	/* A first look in bounded time: a checkout on a hung mount fails here
	 * (JP_ETIMEOUT) instead of holding libgit2 in the kernel. */
	int errnum = 0;
	if ((rc = jp_probe_stat(NULL, &errnum, path, 0, 0, err)) != 0)
		return rc;
	gerr = git_repository_open_ext(&repo, path, 0, NULL);
	/* libgit2 1.5.1 reports a repository of another user as not found
	 * (later versions as GIT_EOWNER): tell the two apart. */
	if (gerr == GIT_EOWNER || (gerr == GIT_ENOTFOUND && owned_by_other(path))) {
		rc = explain_owner(path, err);
		goto out;
	}
	if (gerr == GIT_ENOTFOUND) {
		rc = jp_error_set(err, JP_ENOENT, _("%s is not inside a git work tree"), path);
		goto out;
	}
	if (gerr != 0)
		goto gitfail;
	if (git_repository_is_bare(repo)) {
		rc = jp_error_set(err, JP_ENOENT, _("%s is a bare repository: it has no work tree"),
				  path);
		goto out;
	}
	if (!(info.workdir = strdup(git_repository_workdir(repo))))
		goto nomem;
	for (size_t n = strlen(info.workdir); n > 1 && info.workdir[n - 1] == '/';)
		info.workdir[--n] = '\0';

	/* The remote: origin, else the only one. */
	if (git_remote_lookup(&remote, repo, "origin") != 0) {
		git_error_clear();
		if (git_remote_list(&remotes, repo) == 0 && remotes.count == 1)
			git_remote_lookup(&remote, repo, remotes.strings[0]);
	}
	if (remote) {
		if (!(info.remote = strdup(git_remote_name(remote))))
			goto nomem;
		if (git_remote_url(remote) && !(info.url = jp_git_url_redact(git_remote_url(remote))))
			goto nomem;
	}

	/* HEAD */
	gerr = git_repository_head(&head, repo);
	if (gerr == GIT_EUNBORNBRANCH || gerr == GIT_ENOTFOUND) {
		git_error_clear();
	} else if (gerr != 0) {
		goto gitfail;
	} else {
		const git_oid *oid = git_reference_target(head);
		git_reference *resolved = NULL;

		if (!oid && git_reference_resolve(&resolved, head) == 0)
			oid = git_reference_target(resolved);
		if (oid)
			git_oid_tostr(info.commit, sizeof(info.commit), oid);
		git_reference_free(resolved);
		info.detached = git_repository_head_detached(repo) == 1;
		if (!info.detached) {
			if (!(info.branch = strdup(git_reference_shorthand(head))))
				goto nomem;
			if (git_branch_upstream(&up, head) == 0) {
				if (!(info.upstream = strdup(git_reference_shorthand(up))))
					goto nomem;
			} else {
				git_error_clear();
			}
		}
	}

	/* Uncommitted changes. */
	if ((gerr = count_changes(&info, repo, pattern)) == 1)
		goto nomem;
	if (gerr != 0)
		goto gitfail;

	/* Commits nobody else has. */
	if (info.commit[0]) {
		git_oid head_oid;

		git_oid_fromstr(&head_oid, info.commit);
		if ((gerr = git_revwalk_new(&walk, repo)) != 0 ||
		    (gerr = git_revwalk_push(walk, &head_oid)) != 0)
			goto gitfail;
		if (up && git_reference_target(up)) {
			size_t ahead = 0, behind = 0;

			git_revwalk_hide(walk, git_reference_target(up));
			if (git_graph_ahead_behind(&ahead, &behind, repo, &head_oid,
						   git_reference_target(up)) == 0)
				info.behind = behind;
		} else {
			git_revwalk_hide_glob(walk, "refs/remotes/*");
		}
		git_error_clear();
		info.unpushed = count_walk(walk);
	}
	*out = info;
	info = (struct jp_git_repo_info)JP_GIT_REPO_INFO_INIT;
	goto out;
gitfail:
	{
		const git_error *ge = git_error_last();
		rc = jp_error_set(err, JP_EGIT, "%s: %s", path,
				  ge && ge->message ? ge->message : _("git error"));
	}
	goto out;
nomem:
	rc = jp_error_oom(err);
out:
	jp_git_repo_info_dispose(&info);
	git_revwalk_free(walk);
	git_strarray_dispose(&remotes);
	git_remote_free(remote);
	git_reference_free(up);
	git_reference_free(head);
	git_repository_free(repo);
	return rc;
}
