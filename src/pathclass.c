/* Where a path really lives: the profile's declarations, else the mount
 * table, cross-checked with statfs. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/pathclass.h"
#include "pathclass_internal.h"
#include "mountinfo.h"

#define MAX_SYMLINK_HOPS 40

const char *jp_storage_class_name(enum jp_storage_class cls)
{
	/* N_(): the names are identifiers (JSON, --json output); a message
	 * that shows one to a person passes it through _(). */
	switch (cls) {
	case JP_STORAGE_SHARED:
		return N_("shared");
	case JP_STORAGE_PUBLIC:
		return N_("public");
	case JP_STORAGE_EPHEMERAL:
		return N_("ephemeral");
	case JP_STORAGE_LOCAL:
		return N_("local");
	case JP_STORAGE_UNKNOWN:
		break;
	}
	return N_("unknown");
}

void jp_path_info_dispose(struct jp_path_info *info)
{
	free(info->resolved);
	free(info->mount_point);
	free(info->fstype);
	free(info->reason);
	free(info->declared_root);
	free(info->source);
	free(info->existing);
	free(info->warning);
	struct jp_path_info empty = JP_PATH_INFO_INIT;
	*info = empty;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static int resolve_rec(char **out, bool *exists, bool *hopped, const char *path, int hops,
		       struct jp_error *err)
{
	char *parent = NULL, *last = NULL, *base = NULL, *next = NULL;
	int rc = 0;

	if (hops > MAX_SYMLINK_HOPS)
		return jp_error_set(err, JP_EIO, _("%s: too many levels of symbolic links"), path);

	char *rp = realpath(path, NULL);
	if (rp) {
		*out = rp;
		*exists = true;
		return 0;
	}
	if (errno == ENOMEM)
		return jp_error_oom(err);
	if (errno == ELOOP)
		return jp_error_set(err, JP_EIO, _("%s: too many levels of symbolic links"), path);
	if (errno != ENOENT && errno != ENOTDIR && errno != EACCES)
		return jp_error_set(err, JP_EIO, _("%s: cannot resolve: %s"), path,
				    strerror(errno));

	/* Split into parent and last component, ignoring trailing slashes. */
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t slash = n;
	while (slash > 0 && path[slash - 1] != '/')
		slash--;
	last = strndup(path + slash, n - slash);
	size_t plen = slash;
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	parent = strndup(path, plen ? plen : 1);
	if (!last || !parent) {
		rc = jp_error_oom(err);
		goto out;
	}
	if (last[0] == '\0') {
		/* realpath("/") failed: nothing sensible to do. */
		rc = jp_error_set(err, JP_EIO, _("%s: cannot resolve: %s"), path,
				  strerror(ENOENT));
		goto out;
	}

	struct stat st;
	if (strcmp(last, ".") != 0 && strcmp(last, "..") != 0 && lstat(path, &st) == 0 &&
	    S_ISLNK(st.st_mode)) {
		/* A dangling symlink: what gets created is its target. */
		char buf[PATH_MAX];
		ssize_t len = readlink(path, buf, sizeof(buf) - 1);
		if (len < 0) {
			rc = jp_error_set(err, JP_EIO, _("%s: cannot read link: %s"), path,
					  strerror(errno));
			goto out;
		}
		buf[len] = '\0';
		next = buf[0] == '/' ? strdup(buf) : jp_path_join(parent, buf);
		if (!next) {
			rc = jp_error_oom(err);
			goto out;
		}
		*hopped = true;
		rc = resolve_rec(out, exists, hopped, next, hops + 1, err);
		*exists = false;
		goto out;
	}

	rc = resolve_rec(&base, exists, hopped, parent, hops, err);
	if (rc < 0)
		goto out;
	*exists = false;
	if (strcmp(last, ".") == 0) {
		*out = base;
		base = NULL;
	} else if (strcmp(last, "..") == 0) {
		char *s = strrchr(base, '/');
		if (s == base)
			s[1] = '\0';
		else if (s)
			*s = '\0';
		*out = base;
		base = NULL;
	} else {
		*out = jp_path_join(base, last);
		if (!*out)
			rc = jp_error_oom(err);
	}
out:
	free(parent);
	free(last);
	free(base);
	free(next);
	return rc;
}

int jp_path_resolve(char **out, bool *exists, bool *via_symlink, const char *path,
		    struct jp_error *err)
{
	char *abs = NULL, *norm = NULL, *res = NULL;
	bool ex = false, hopped = false;
	int rc = 0;

	*out = NULL;
	*exists = false;
	if (!path || !*path)
		return jp_error_set(err, JP_EUSAGE, "%s", _("empty path"));
	abs = jp_path_absolute(path);
	if (!abs) {
		rc = jp_error_set(err, JP_EIO, _("%s: cannot make it absolute: %s"), path,
				  strerror(errno));
		goto out;
	}
	rc = resolve_rec(&res, &ex, &hopped, abs, 0, err);
	if (rc < 0)
		goto out;
	/* Lexically: to tell whether resolving changed anything. */
	norm = jp_path_normalize(abs);
	if (!norm) {
		rc = jp_error_oom(err);
		goto out;
	}
	if (via_symlink)
		*via_symlink = hopped || strcmp(norm, res) != 0;
	*out = res;
	res = NULL;
	*exists = ex;
out:
	free(abs);
	free(norm);
	free(res);
	return rc;
}

/* The longest prefix of a resolved path that exists. */
static char *nearest_existing(const char *resolved)
{
	char *p = strdup(resolved);
	struct stat st;
	if (!p)
		return NULL;
	while (lstat(p, &st) != 0 && strcmp(p, "/") != 0) {
		char *s = strrchr(p, '/');
		if (s == p)
			s[1] = '\0';
		else
			*s = '\0';
	}
	return p;
}

struct decl {
	enum jp_storage_class cls;
	const char *root; /* as the profile writes it */
	size_t len;       /* length of the form that matched */
};

/* Does `resolved` lie under `root`, as written or as it resolves here? */
static size_t root_match(const char *resolved, const char *root)
{
	size_t best = 0;
	if (root[0] != '/')
		return 0;
	if (jp_path_is_under(resolved, root))
		best = strlen(root);
	char *real = realpath(root, NULL);
	if (real) {
		if (jp_path_is_under(resolved, real) && strlen(real) > best)
			best = strlen(real);
		free(real);
	}
	return best;
}

static void match_roots(struct decl *d, const struct jp_strv *roots, enum jp_storage_class cls,
			const char *resolved)
{
	for (size_t i = 0; i < roots->n; i++) {
		size_t len = root_match(resolved, roots->v[i]);
		/* The most specific root wins; on a tie the later list. */
		if (len && len >= d->len) {
			d->cls = cls;
			d->root = roots->v[i];
			d->len = len;
		}
	}
}

static const char *class_phrase(enum jp_storage_class cls)
{
	switch (cls) {
	case JP_STORAGE_SHARED:
		return _("shared storage (the same on every Worker, kept after the job)");
	case JP_STORAGE_PUBLIC:
		return _("public data (read-only on every Worker)");
	case JP_STORAGE_EPHEMERAL:
		return _("ephemeral (wiped when the job ends)");
	case JP_STORAGE_LOCAL:
		return _("local to this machine (a job on another machine cannot see it)");
	case JP_STORAGE_UNKNOWN:
		break;
	}
	return _("unknown");
}

/* What the filesystem under info->resolved is, as far as it is known. */
struct fs_facts {
	enum jp_fs_kind kind;
	bool known;
	char *note; /* where the mount table and statfs disagree, or NULL */
};

/* The mount holding info->resolved, from table: its point, type, source
 * and read-only flag into info. 0, or -1 when out of memory. */
static int mount_facts(struct jp_path_info *info, struct fs_facts *fs,
		       const struct jp_mount_table *table)
{
	const struct jp_mount *m = table ? jp_mount_table_find(table, info->resolved) : NULL;

	if (!m)
		return 0;
	info->mount_point = strdup(m->mount_point);
	info->fstype = strdup(m->fstype);
	info->source = strdup(m->source);
	if (!info->mount_point || !info->fstype || !info->source)
		return -1;
	info->read_only = m->read_only;
	fs->kind = jp_fs_kind_of(m->fstype);
	fs->known = true;
	return 0;
}

/* The filesystem itself (statfs) over the mount table: its kind wins, and
 * the disagreement is noted. 0, or -1 when out of memory. */
static int statfs_facts(struct jp_path_info *info, struct fs_facts *fs)
{
	struct statfs sfs;
	bool known = false;
	const char *name = NULL;

	if (statfs(info->existing, &sfs) != 0)
		return 0;
	enum jp_fs_kind mk = jp_fs_kind_of_magic((int64_t)sfs.f_type, &known, &name);
	if (known && (!fs->known || mk != fs->kind)) {
		if (fs->known)
			fs->note = xasprintf(_(" (the mount table says %s, but statfs says %s)"),
					     info->fstype, name);
		free(info->fstype);
		info->fstype = strdup(name);
		if (!info->fstype)
			return -1;
		fs->kind = mk;
		fs->known = true;
	}
	if (sfs.f_flags & ST_RDONLY)
		info->read_only = true;
	return 0;
}

/* Under a root the profile declares (d): the class is the profile's; a
 * declared shared or public root that is only a folder on a local or
 * in-memory filesystem gets a warning. 0, or -1 when out of memory. */
static int declared_class(struct jp_path_info *info, const struct decl *d, const char *shown,
			  const struct fs_facts *fs)
{
	const char *mp = info->mount_point ? info->mount_point : "?";
	const char *fst = info->fstype ? info->fstype : "?";
	bool shared_decl = d->cls == JP_STORAGE_SHARED || d->cls == JP_STORAGE_PUBLIC;
	bool mounted_inside = info->mount_point && root_match(info->mount_point, d->root) > 0;

	info->cls = d->cls;
	info->declared = true;
	info->declared_root = strdup(d->root);
	if (!info->declared_root)
		return -1;
	info->reason = xasprintf(_("%s is under %s, which the profile declares %s (%s at %s)"),
				 shown, d->root, class_phrase(d->cls), fst, mp);
	if (shared_decl && fs->known && fs->kind == JP_FS_EPHEMERAL && mounted_inside) {
		/* A tmpfs or overlay mounted inside it: in memory here. */
		info->warning = xasprintf(
			_("%s is inside %s storage, but on %s mounted at %s (%s): it lives in "
			  "this machine's memory or container layer, not on %s"),
			info->resolved, _(jp_storage_class_name(d->cls)), fst, mp,
			jp_fs_kind_name(fs->kind), d->root);
		if (!info->warning)
			return -1;
	} else if (shared_decl && fs->known && fs->kind != JP_FS_NETWORK && !mounted_inside) {
		info->warning = xasprintf(
			_("%s is declared %s storage, but here it is not a mount point: it is a "
			  "folder on %s (%s at %s); mount the platform's storage on %s first, "
			  "or what is written there stays on this machine"),
			d->root, _(jp_storage_class_name(d->cls)), jp_fs_kind_name(fs->kind), fst, mp,
			d->root);
		if (!info->warning)
			return -1;
	}
	return 0;
}

/* Under no declared root: the class follows the filesystem's kind. */
static void observed_class(struct jp_path_info *info, const char *shown, const struct fs_facts *fs)
{
	const char *mp = info->mount_point ? info->mount_point : "?";
	const char *fst = info->fstype ? info->fstype : "?";

	if (!fs->known) {
		info->cls = JP_STORAGE_UNKNOWN;
		info->reason = xasprintf(_("%s: neither the profile nor the mount table says where "
					   "it lives"),
					 shown);
		return;
	}
	switch (fs->kind) {
	case JP_FS_NETWORK:
		info->cls = JP_STORAGE_SHARED;
		break;
	case JP_FS_EPHEMERAL:
		info->cls = JP_STORAGE_EPHEMERAL;
		break;
	case JP_FS_LOCAL:
	case JP_FS_PSEUDO:
		info->cls = JP_STORAGE_LOCAL;
		break;
	}
	info->reason = xasprintf(_("%s is on %s at %s (%s%s%s), so it is %s%s"), shown, fst, mp,
				 jp_fs_kind_name(fs->kind), info->source && *info->source ? ", " : "",
				 info->source ? info->source : "", class_phrase(info->cls),
				 fs->note ? fs->note : "");
}

int jp_path_classify_in(struct jp_path_info *out, const struct jp_profile *profile,
			const struct jp_mount_table *table, const char *path,
			struct jp_error *err)
{
	struct jp_path_info info = JP_PATH_INFO_INIT;
	struct jp_mount_table own = JP_MOUNT_TABLE_INIT;
	struct jp_error tmp = JP_ERROR_INIT;
	struct fs_facts fs = { JP_FS_LOCAL, false, NULL };
	struct decl d = { JP_STORAGE_UNKNOWN, NULL, 0 };
	char *shown = NULL;
	int rc = 0;

	rc = jp_path_resolve(&info.resolved, &info.exists, &info.via_symlink, path, err);
	if (rc < 0)
		goto out;
	info.existing = nearest_existing(info.resolved);
	if (!info.existing)
		goto nomem;

	/* A table given by the caller (a recorded one) is the whole truth;
	 * this process's own is cross-checked with statfs. Without a mount
	 * table (no /proc), statfs alone decides. */
	bool cross_check = !table;
	if (!table && jp_mount_table_load(&own, NULL, &tmp) == 0)
		table = &own;
	if (mount_facts(&info, &fs, table) < 0 || (cross_check && statfs_facts(&info, &fs) < 0))
		goto nomem;

	if (profile) {
		match_roots(&d, &profile->shared_roots, JP_STORAGE_SHARED, info.resolved);
		match_roots(&d, &profile->public_roots, JP_STORAGE_PUBLIC, info.resolved);
		match_roots(&d, &profile->ephemeral_roots, JP_STORAGE_EPHEMERAL, info.resolved);
	}
	if (info.via_symlink)
		shown = xasprintf(_("%s resolves to %s, which"), path, info.resolved);
	else
		shown = xasprintf("%s", info.resolved);
	if (!shown)
		goto nomem;
	if (d.root) {
		if (declared_class(&info, &d, shown, &fs) < 0)
			goto nomem;
	} else {
		observed_class(&info, shown, &fs);
	}
	if (!info.reason)
		goto nomem;

	jp_path_info_dispose(out);
	*out = info;
	info = (struct jp_path_info)JP_PATH_INFO_INIT;
	goto out;
nomem:
	rc = jp_error_oom(err);
out:
	free(fs.note);
	free(shown);
	jp_path_info_dispose(&info);
	jp_mount_table_dispose(&own);
	jp_error_dispose(&tmp);
	return rc;
}

int jp_path_classify(struct jp_path_info *out, const struct jp_profile *profile,
		     const char *path, struct jp_error *err)
{
	return jp_path_classify_in(out, profile, NULL, path, err);
}
