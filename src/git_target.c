/* Where a clone goes: the checks made before any network use (refusals),
 * the parents created on the way (and removed again on failure), and the
 * final rename that makes a finished clone appear in one step. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/fs.h"
#include "fs_internal.h"
#include "jobprep/i18n.h"
#include "mountinfo.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/pathclass.h"
#include "pathclass_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "helper_internal.h"
#include "jobprep/strv.h"
#include "git_internal.h"

void jp_git_target_dispose(struct jp_git_target *t)
{
	free(t->path);
	free(t->parent);
	free(t->name);
	free(t->tmp_parent);
	free(t->tmp_prefix);
	free(t->fstype);
	jp_strv_dispose(&t->made);
	memset(t, 0, sizeof(*t));
}

static bool lexically_ephemeral(const struct jp_profile *profile, const char *abs)
{
	if (!profile)
		return false;
	for (size_t i = 0; i < profile->ephemeral_roots.n; i++)
		if (jp_path_is_under(abs, profile->ephemeral_roots.v[i]))
			return true;
	return false;
}

/* The target as the person named it, made absolute and lexically normal, so
 * that `tmp/x` typed in / is judged like `/tmp/x` (not `//tmp/x`). */
static char *absolute(const char *path)
{
	char *abs = jp_path_absolute(path);
	char *normal = abs ? jp_path_normalize(abs) : NULL;

	free(abs);
	return normal;
}

static int target_plan(struct jp_git_target *t, const char *target,
		       const struct jp_profile *profile, struct jp_error *err)
{
	struct jp_path_info info = JP_PATH_INFO_INIT;
	char *abs = NULL, *slash;
	bool exists = false, via_symlink = false;
	struct stat sb, psb;
	char entry[NAME_MAX + 1], who[PATH_MAX + 300];
	unsigned live = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!target || !*target)
		return jp_error_set(err, JP_EUSAGE, "%s", _("no target directory given"));
	if (target[0] == '-')
		return jp_error_set(err, JP_EUSAGE,
				    _("refusing a target path beginning with '-' (it would be read as an "
				      "option); write ./%s"),
				    target);
	if ((rc = jp_path_resolve(&t->path, &exists, &via_symlink, target, err)) != 0)
		goto out;
	if (strcmp(t->path, "/") == 0) {
		rc = jp_error_set(err, JP_EUSAGE, "%s", _("refusing to clone into /"));
		goto out;
	}
	if ((rc = jp_path_classify(&info, profile, t->path, err)) != 0)
		goto out;
	if (info.fstype && !(t->fstype = strdup(info.fstype)))
		goto nomem;
	t->network = info.fstype && jp_fs_kind_of(info.fstype) == JP_FS_NETWORK;
	if (!(abs = absolute(target)))
		goto nomem;
	if (via_symlink && info.cls == JP_STORAGE_EPHEMERAL && !lexically_ephemeral(profile, abs)) {
		rc = jp_error_set(err, JP_EREFUSED,
				  _("%s: refusing: it leads through a symbolic link to %s, which is "
				    "ephemeral storage (%s); clone to a path on shared storage"),
				  target, t->path, info.reason ? info.reason : "");
		goto out;
	}

	slash = strrchr(t->path, '/');
	if (!(t->parent = slash == t->path ? strdup("/") : strndup(t->path, (size_t)(slash - t->path))) ||
	    !(t->name = strdup(slash + 1)))
		goto nomem;
	if (asprintf(&t->tmp_prefix, ".%s.jobprep-tmp-", t->name) < 0) {
		t->tmp_prefix = NULL;
		goto nomem;
	}

	if (lstat(t->path, &sb) == 0) {
		if (!S_ISDIR(sb.st_mode)) {
			rc = jp_error_set(err, JP_EEXIST,
					  _("%s already exists and is not a directory; choose another "
					    "target"),
					  target);
			goto out;
		}
		t->exists = true;
		t->mode = sb.st_mode & 07777;
		t->gid = sb.st_gid;
		/* A mount point cannot be renamed over, and a directory
		 * prepared for us in a parent we may not write in cannot be
		 * replaced: build inside it then. */
		if ((stat(t->parent, &psb) == 0 && psb.st_dev != sb.st_dev) ||
		    access(t->parent, W_OK | X_OK) != 0)
			t->inside = true;
	} else if (errno != ENOENT) {
		rc = jp_error_set(err, JP_EIO, "%s: %s", target, strerror(errno));
		goto out;
	}

	if (t->inside) {
		free(t->tmp_prefix);
		if (!(t->tmp_prefix = strdup(".jobprep-tmp-")) || !(t->tmp_parent = strdup(t->path)))
			goto nomem;
	} else if (!(t->tmp_parent = strdup(t->parent))) {
		goto nomem;
	}
	/* Temporaries of killed runs go first; a live one means another
	 * jobprep is cloning here right now. */
	jp_git_tmp_clean_stale(t->tmp_parent, t->tmp_prefix, &live, who, sizeof(who));
	if (live > 0) {
		rc = jp_error_set(err, JP_EEXIST,
				  _("%s: another jobprep is cloning here right now: %s; if it is "
				    "not running any more, remove that directory"),
				  target, who);
		goto out;
	}
	if (t->exists) {
		/* our own temporaries inside do not count */
		int empty = jp_fs_dir_is_empty(t->path, t->inside ? t->tmp_prefix : NULL, entry,
					       sizeof(entry));

		if (empty < 0) {
			rc = jp_error_set(err, JP_EIO, _("%s: cannot read the directory: %s"), target,
					  strerror(errno));
			goto out;
		}
		if (!empty) {
			rc = jp_error_set(err, JP_EEXIST,
					  _("%s is not empty (it holds '%s'); clone into a new or empty "
					    "directory"),
					  target, entry);
			goto out;
		}
	}
	rc = 0;
	goto out;
nomem:
	rc = jp_error_oom(err);
out:
	free(abs);
	jp_path_info_dispose(&info);
	if (rc != 0) {
		struct jp_git_target keep = { 0 };
		jp_git_target_dispose(t);
		*t = keep;
	}
	return rc;
}

int jp_git_target_make_parents(struct jp_git_target *t, struct jp_error *err)
{
	/* 0755: not writable by others, whatever the umask */
	return jp_fs_mkdir_p(&t->made, t->parent, 0755, err);
}

void jp_git_target_unmake_parents(struct jp_git_target *t)
{
	jp_fs_unmake(&t->made);
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* rename without replacing; where the filesystem has no RENAME_NOREPLACE
 * (some network filesystems), check first. */
static int rename_new(const char *from, const char *to)
{
	struct stat sb;

	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (lstat(to, &sb) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

/* Move the tree's entries into the target one by one, .git last (so the
 * directory is a repository only once it is complete); if one cannot move,
 * move back those that did. */
static int place_inside(const struct jp_git_target *t, const char *tree, struct jp_error *err)
{
	struct jp_strv names = JP_STRV_INIT;
	struct dirent *de;
	DIR *d = opendir(tree);
	size_t moved = 0;
	int rc = 0;

	if (!d)
		return jp_error_set(err, JP_EIO, "%s: %s", tree, strerror(errno));
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, ".git") &&
		    jp_strv_push(&names, de->d_name) != 0)
			rc = JP_ENOMEM;
	closedir(d);
	if (rc == 0 && jp_strv_push(&names, ".git") != 0)
		rc = JP_ENOMEM;
	if (rc != 0) {
		jp_strv_dispose(&names);
		return jp_error_oom(err);
	}
	for (; moved < names.n; moved++) {
		char from[PATH_MAX], to[PATH_MAX];

		snprintf(from, sizeof(from), "%s/%s", tree, names.v[moved]);
		snprintf(to, sizeof(to), "%s/%s", t->path, names.v[moved]);
		if (rename_new(from, to) != 0 && errno != ENOENT) {
			rc = jp_error_set(err, errno == EEXIST ? JP_EEXIST : JP_EIO,
					  _("%s: cannot move into place: %s"), to, strerror(errno));
			break;
		}
	}
	if (rc != 0) {
		while (moved-- > 0) {
			char from[PATH_MAX], to[PATH_MAX];

			snprintf(from, sizeof(from), "%s/%s", t->path, names.v[moved]);
			snprintf(to, sizeof(to), "%s/%s", tree, names.v[moved]);
			rename(from, to);
		}
	}
	jp_strv_dispose(&names);
	sync_dir(t->path);
	return rc;
}

int jp_git_target_place(const struct jp_git_target *t, const char *tree,
			struct jp_error *err)
{
	if (t->inside)
		return place_inside(t, tree, err);
	if (t->exists) {
		/* The directory someone prepared keeps its mode and group. */
		chmod(tree, t->mode);
		if (chown(tree, (uid_t)-1, t->gid) != 0)
			(void)0; /* not our group: keep ours */
	}
	/* rename(2) replaces an empty directory in one step; one that filled up
	 * meanwhile makes it fail, and nothing is lost. */
	if (rename(tree, t->path) != 0) {
		int e = errno;

		if (e == ENOTEMPTY || e == EEXIST || e == ENOTDIR || e == EISDIR)
			return jp_error_set(err, JP_EEXIST,
					    _("%s: something else was put there while cloning; the "
					      "clone was not moved in"),
					    t->path);
		return jp_error_set(err, e == ENOSPC ? JP_ENOSPC : JP_EIO,
				    _("%s: cannot move the finished clone into place: %s"), t->path,
				    strerror(e));
	}
	sync_dir(t->parent);
	return 0;
}

/* The plan's fields, listed once for both sides (probe_bytes_field); read
 * back, its strings are the caller's. false when the bytes are short or a
 * string the plan always has is missing. */
static bool plan_wire(struct probe_bytes *b, struct jp_git_target *t)
{
	char **strs[] = {&t->path, &t->parent, &t->name, &t->fstype /* NULL: unknown */,
			 &t->tmp_parent, &t->tmp_prefix};

	PROBE_FIELD(b, t->exists);
	PROBE_FIELD(b, t->inside);
	PROBE_FIELD(b, t->network);
	PROBE_FIELD(b, t->mode);
	PROBE_FIELD(b, t->gid);
	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		probe_bytes_field_str(b, strs[i]);
	return !b->bad && t->path && t->parent && t->name && t->tmp_parent && t->tmp_prefix;
}

/* The plan looks at the target's storage (stat, list, classify, clean stale
 * temporaries): in bounded time, in a helper process (helper.c), so a hung
 * mount neither holds the clone nor keeps it from exiting. Inputs: the
 * target, the profile; answer: the status and its message, then the
 * plan's flags, numbers and strings. */
static void plan_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_git_target t = { 0 };
	struct jp_error e = JP_ERROR_INIT;
	struct jp_profile *profile = NULL;
	char *target = probe_bytes_get_str(in);
	int rc = probe_bytes_get_profile(&profile, in, &e);

	if (rc == 0 && (in->bad || !target))
		out->bad = true; /* the caller's "the look at it failed" */
	else if (rc == 0)
		rc = target_plan(&t, target, profile, &e);
	probe_bytes_put(out, &rc, sizeof(rc));
	probe_bytes_put_error(out, rc < 0 ? &e : NULL);
	plan_wire(out, &t);
	jp_git_target_dispose(&t);
	jp_error_dispose(&e);
	jp_profile_free(profile);
	free(target);
}
JP_HELPER_REQUEST(git_target_plan, plan_serve, JP_HELPER_LOOK);

int jp_git_target_plan(struct jp_git_target *t, const char *target,
		       const struct jp_profile *profile, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	int rc, plan_rc = 0;

	memset(t, 0, sizeof(*t));
	if (!target || !*target || target[0] == '-')
		return target_plan(t, target, profile, err); /* refused before any look */
	probe_bytes_put_str(&in, target);
	probe_bytes_put_profile(&in, profile);
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_call(&ans, &jp_req_git_target_plan, &in, target, 0, err);
	if (rc == 0) {
		probe_bytes_get(&ans, &plan_rc, sizeof(plan_rc));
		probe_bytes_get_error(&ans, plan_rc < 0 ? err : NULL, plan_rc);
		if (ans.bad)
			rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", target,
					  _("the look at it failed"));
		else if (plan_rc < 0)
			rc = plan_rc;
		else if (!plan_wire(&ans, t))
			rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", target,
					  _("the look at it failed"));
	}
	if (rc != 0)
		jp_git_target_dispose(t);
	free(in.p);
	free(ans.p);
	return rc;
}
