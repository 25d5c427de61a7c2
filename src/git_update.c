/* An existing checkout moved to the commit a ref names: the ref resolved on
 * the server and compared by commit; what is missing fetched (objects and
 * remote-tracking refs: HEAD, the index and the work tree untouched); then
 * only the files that differ checked out, with everything needed to put
 * them back (the old index, the list of paths) kept until the move is
 * complete. Work is never lost: uncommitted changes, commits on no remote,
 * untracked files in the way refuse the move before anything is written. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

#include <git2/sys/odb_backend.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "mountinfo.h"
#include "jobprep/strv.h"
#include "treecopy.h"
#include "jobprep/units.h"
#include "git_internal.h"
#include "str.h"
#include "buf.h"
#include "port_internal.h"

#define ROOM_MARGIN (4ULL << 20)
#define WANT_REF "refs/jobprep/want"

struct upd {
	const struct jp_git_update_options *opts;
	struct jp_git_update_result *res;
	struct jp_error *err;
	struct jp_git_op op;
	struct jp_git_url url;
	struct jp_git_repo_info info;
	git_repository *repo;
	git_remote *remote;
	struct jp_git_remote_info want; /* what the ref names on the server */
	git_commit *from, *to;
	struct jp_strv paths;	  /* every path the move changes ... */
	struct jp_strv added;	  /* ... of them those `from` lacks */
	struct jp_strv kept;	  /* ... and those it has (changed, deleted) */
	struct jp_strv new_dirs;  /* directories the added files would create */
	struct jp_strv unexec;	  /* files whose exec bit was taken off first */
	struct jp_strv conflicts; /* untracked files in the way */
	struct jp_strv gone;	  /* ... of `kept`, those `to` deletes */
	bool typechange;	  /* a path changes between file, link, folder */
	uint64_t new_bytes;	  /* the blobs to write */
	char *index_copy;	  /* the index as it was before the checkout */
	int lock_fd;		  /* held while this process looks and moves */
};

void jp_git_update_result_dispose(struct jp_git_update_result *res)
{
	if (!res)
		return;
	free(res->from_name);
	free(res->ref);
	free(res->dirty_paths);
	free(res->summary);
	jp_git_repo_info_dispose(&res->checkout);
	*res = (struct jp_git_update_result)JP_GIT_UPDATE_RESULT_INIT;
}

static int nomem(struct upd *u)
{
	return jp_error_oom(u->err);
}

/* "v1.8.1 (f5513f1)", or "f5513f1" without a name. */
static void label(char *buf, size_t len, const char *name, const char *hex)
{
	if (name)
		snprintf(buf, len, "%s (%.7s)", name, hex);
	else
		snprintf(buf, len, "%.7s", hex);
}

static int join(char **out, const char *dir, const char *rel)
{
	return asprintf(out, "%s/%s", dir, rel) < 0 ? (*out = NULL, JP_ENOMEM) : 0;
}

static const char *short_name(const char *full)
{
	if (strncmp(full, "refs/heads/", 11) == 0)
		return full + 11;
	if (strncmp(full, "refs/tags/", 10) == 0)
		return full + 10;
	return full;
}

/* ---- the checkout and its remote --------------------------------------- */

static bool holds_files(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0;
}

/* How long a second jobprep waits for the first to finish with a checkout. */
#define LOCK_WAIT_MS (300 * 1000)
#define LOCK_POLL_MS 100

/* Wait (bounded, cancellable) for the lock on fd. */
static int wait_lock(struct upd *u)
{
	for (unsigned waited = 0;; waited += LOCK_POLL_MS) {
		if (flock(u->lock_fd, LOCK_EX | LOCK_NB) == 0 || errno == ENOLCK || errno == EINVAL)
			return 0; /* (a filesystem without locks: as git does, go on) */
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		if (waited >= LOCK_WAIT_MS)
			break;
		if (jp_git_op_progress(&u->op, JP_PHASE_CONNECT, 0, 0, 0, false) < 0)
			return jp_error_set(u->err, JP_ECANCELED, _("%s: canceled"), u->opts->path);
		usleep(LOCK_POLL_MS * 1000);
	}
	return jp_error_set(u->err, JP_EREFUSED,
			    _("another jobprep is bringing %s to a ref right now: wait for it to "
			      "finish, then prepare again; nothing was changed"),
			    u->opts->path);
}

/* One jobprep at a time looks at and moves a checkout: a second one waits
 * for the first (bounded), then sees what it left, never a mixed tree.
 * flock(2): released when the holder dies. */
static int lock_checkout(struct upd *u)
{
	char *dir = NULL, *lock = NULL;
	struct stat sb;

	if (join(&dir, u->opts->path, ".git") < 0)
		return nomem(u);
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		free(dir);
		return 0; /* not a checkout (or a .git file): refused or handled below */
	}
	if (join(&lock, dir, "jobprep.lock") < 0) {
		free(dir);
		return nomem(u);
	}
	free(dir);
	u->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	free(lock);
	if (u->lock_fd < 0)
		return jp_error_set(u->err, JP_EIO, _("%s: cannot open its lock file: %s"),
				    u->opts->path, strerror(errno));
	return wait_lock(u);
}

static int open_checkout(struct upd *u)
{
	const char *path = u->opts->path;
	struct jp_error quiet = JP_ERROR_INIT;
	char real[PATH_MAX];
	int rc, gerr;

	if ((rc = lock_checkout(u)) != 0)
		return rc;
	rc = jp_git_inspect(&u->info, path, u->opts->exec_pattern, &quiet);
	if (rc == JP_ENOENT && holds_files(path)) {
		jp_error_dispose(&quiet);
		return jp_error_set(u->err, JP_EREFUSED,
				    _("%s holds files but is not a git checkout: choose another "
				      "path, or leave code.repo.url out to use what is there"),
				    path);
	}
	if (rc != 0) {
		for (size_t i = 0; i < quiet.n; i++)
			jp_error_set(u->err, rc, "%s", quiet.msgs[i]);
		jp_error_dispose(&quiet);
		return rc;
	}
	jp_error_dispose(&quiet);
	char top[PATH_MAX];

	/* both resolved: a project path through a symlink is still the top */
	if (!realpath(path, real) || !realpath(u->info.workdir, top) || strcmp(real, top) != 0)
		return jp_error_set(u->err, JP_EREFUSED,
				    _("%s is inside the checkout %s, not a checkout of its own: "
				      "choose another path, or leave code.repo.url out to use what "
				      "is there"),
				    path, u->info.workdir);
	if (!u->info.remote || !u->info.url)
		return jp_error_set(u->err, JP_EREFUSED,
				    _("%s is a checkout with no remote, not of %s: choose another "
				      "path, or leave code.repo.url out to use what is there"),
				    path, u->url.clean);
	if (!jp_url_same_repo(u->info.url, u->url.clean))
		return jp_error_set(u->err, JP_EREFUSED,
				    _("%s is a checkout of %s, not of %s: choose another path, or "
				      "leave code.repo.url out to use what is there"),
				    path, u->info.url, u->url.clean);
	memcpy(u->res->from, u->info.commit, sizeof(u->res->from));
	if ((gerr = git_repository_open_ext(&u->repo, u->info.workdir,
					    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) != 0)
		return jp_git_op_error(&u->op, gerr, NULL, u->err, path);
	return 0;
}

/* The branch HEAD is on, else a tag pointing at HEAD. */
struct tag_at {
	git_repository *repo;
	const git_oid *oid;
	char *name;
};

static int tag_at_cb(const char *name, void *payload)
{
	struct tag_at *t = payload;
	git_object *obj = NULL;
	int found = 0;

	if (git_revparse_single(&obj, t->repo, name) == 0) {
		git_object *peeled = NULL;

		if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0 &&
		    git_oid_equal(git_object_id(peeled), t->oid)) {
			t->name = strdup(short_name(name));
			found = 1;
		}
		git_object_free(peeled);
	}
	git_object_free(obj);
	git_error_clear();
	return found;
}

static int name_from(struct upd *u)
{
	struct tag_at t = {u->repo, NULL, NULL};
	git_oid oid;

	if (u->info.branch)
		return jp_set_str(&u->res->from_name, u->info.branch) < 0 ? nomem(u) : 0;
	if (!u->info.commit[0] || git_oid_fromstr(&oid, u->info.commit) != 0)
		return 0;
	t.oid = &oid;
	git_reference_foreach_name(u->repo, tag_at_cb, &t);
	git_error_clear();
	u->res->from_name = t.name;
	return 0;
}

static int copy_file(const char *src, const char *dst);
static bool on_network(const char *path);
static void read_from_mirror(struct upd *u, const char *mirror);

/* ---- the server ---------------------------------------------------------- */

static void fetch_options(git_fetch_options *fo, struct jp_git_op *op)
{
	git_fetch_options_init(fo, GIT_FETCH_OPTIONS_VERSION);
	jp_git_op_remote_callbacks(&fo->callbacks, op);
	fo->download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	fo->follow_redirects = GIT_REMOTE_REDIRECT_NONE;
	fo->update_fetchhead = 0;
}

/* git_remote_fetch from the checkout's remote; over ssh by a helper. */
static int remote_fetch(struct upd *u, const git_strarray *specs, const git_fetch_options *fo)
{
	if (jp_git_op_ssh(&u->op)) {
		struct jp_git_ssh_fetch f = { git_repository_path(u->repo), u->info.remote, specs, fo,
					      "jobprep: fetch", false };

		return jp_git_ssh_fetch(&u->op, &f);
	}
	return git_remote_fetch(u->remote, specs, fo, "jobprep: fetch");
}

/* The ref is the start (4 hex or more) of one commit the checkout has:
 * u->want names it. */
static bool local_commit(struct upd *u)
{
	const char *ref = u->opts->ref;
	size_t len = ref ? strlen(ref) : 0;
	git_object *obj = NULL;
	git_oid oid;
	bool found;

	if (len < 4 || len >= 40 || strspn(ref, "0123456789abcdefABCDEF") != len ||
	    git_oid_fromstrn(&oid, ref, len) != 0)
		return false;
	found = git_object_lookup_prefix(&obj, u->repo, &oid, len, GIT_OBJECT_COMMIT) == 0;
	if (found) {
		git_oid_tostr(u->want.commit, sizeof(u->want.commit), git_object_id(obj));
		u->want.ref_kind = JP_GIT_REF_COMMIT;
		free(u->want.ref_name);
		u->want.ref_name = NULL;
	}
	git_object_free(obj);
	git_error_clear();
	return found;
}

static int resolve(struct upd *u)
{
	git_remote_connect_options co;
	const git_remote_head **heads = NULL;
	size_t n = 0;
	int gerr, rc;

	if (jp_git_creds_new(&u->op.creds, &u->url, u->op.port) != 0)
		return nomem(u);
	git_remote_connect_options_init(&co, GIT_REMOTE_CONNECT_OPTIONS_VERSION);
	jp_git_op_remote_callbacks(&co.callbacks, &u->op);
	co.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
	u->op.what = u->url.clean;
	if (jp_git_op_progress(&u->op, JP_PHASE_CONNECT, 0, 0, 0, true) < 0)
		return jp_error_set(u->err, JP_ECANCELED, _("%s: canceled"), u->url.clean);
	u->op.what = NULL;
	/* The checkout's own remote (the same repository): the fetch below
	 * updates its remote-tracking refs, as `git fetch` would. */
	if ((gerr = git_remote_lookup(&u->remote, u->repo, u->info.remote)) != 0)
		return jp_git_op_error(&u->op, gerr, NULL, u->err, u->url.clean);
	if (jp_git_op_ssh(&u->op)) {
		struct jp_git_ssh_heads sh;

		if ((gerr = jp_git_ssh_ls(&sh, &u->op, git_repository_path(u->repo), u->info.remote,
					  NULL)) != 0)
			return jp_git_op_error(&u->op, gerr, NULL, u->err, u->url.clean);
		rc = jp_git_remote_resolve(&u->want, sh.p, sh.n, u->opts->ref, u->url.clean, u->err);
		jp_git_ssh_heads_dispose(&sh);
	} else if ((gerr = git_remote_connect_ext(u->remote, GIT_DIRECTION_FETCH, &co)) != 0 ||
		   (gerr = git_remote_ls(&heads, &n, u->remote)) != 0) {
		return jp_git_op_error(&u->op, gerr, NULL, u->err, u->url.clean);
	} else {
		rc = jp_git_remote_resolve(&u->want, heads, n, u->opts->ref, u->url.clean, u->err);
	}
	if (rc == JP_ENOENT && local_commit(u)) {
		/* a short id of a commit the checkout has: valid, as for git */
		jp_error_clear(u->err);
		rc = 0;
	}
	if (rc != 0)
		return rc;
	memcpy(u->res->to, u->want.commit, sizeof(u->res->to));
	u->res->ref_kind = u->want.ref_kind;
	if (u->want.ref_name && strcmp(u->want.ref_name, "HEAD") != 0 &&
	    jp_set_str(&u->res->ref, short_name(u->want.ref_name)) < 0)
		return nomem(u);
	return 0;
}

static bool have_commit(struct upd *u, const git_oid *oid)
{
	git_commit *c = NULL;
	bool ok = git_commit_lookup(&c, u->repo, oid) == 0;

	git_commit_free(c);
	git_error_clear();
	return ok;
}

/* Fetch from the local mirror into the checkout, as `git fetch` from the
 * server would: its branches into the remote-tracking refs, its tags. */
static int fetch_from_mirror(struct upd *u, const struct jp_git_cache *c)
{
	git_fetch_options fo;
	git_remote *mirror = NULL;
	char heads[600], tags[] = "+refs/tags/*:refs/tags/*";
	char *specs[] = { heads, tags };
	git_strarray arr = { specs, 2 };
	int gerr;

	snprintf(heads, sizeof(heads), "+refs/heads/*:refs/remotes/%s/*", u->info.remote);
	fetch_options(&fo, &u->op);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if ((gerr = git_remote_create_anonymous(&mirror, u->repo, c->mirror)) == 0)
		gerr = git_remote_fetch(mirror, &arr, &fo, "jobprep: fetch (mirror)");
	git_remote_free(mirror);
	return gerr;
}

/* The packs the mirror's fetch just brought, copied into the checkout's
 * objects as they are (a file copy: no pack to build or index again); the
 * fetch from the mirror then finds what it needs there. Best effort: what
 * is not copied, the fetch brings. */
static void copy_new_packs(struct upd *u, const struct jp_git_cache *c)
{
	for (size_t i = 0; i < c->new_packs.n; i++) {
		const char *pack = c->new_packs.v[i];
		const char *name = strrchr(pack, '/') + 1;
		size_t n = strlen(name) - 5; /* "pack-<id>" */
		char *src_idx = NULL, *dst_pack = NULL, *dst_idx = NULL, *tmp = NULL;

		if (asprintf(&src_idx, "%.*s.idx", (int)(strlen(pack) - 5), pack) >= 0 &&
		    asprintf(&dst_pack, "%sobjects/pack/%s", git_repository_path(u->repo), name) >= 0 &&
		    asprintf(&dst_idx, "%sobjects/pack/%.*s.idx", git_repository_path(u->repo),
			     (int)n, name) >= 0 &&
		    asprintf(&tmp, "%s.jobprep-%ld", dst_pack, (long)getpid()) >= 0 &&
		    access(dst_idx, F_OK) != 0) {
			/* the pack first, its index last: git reads a pack by its index */
			unlink(tmp);
			if (copy_file(pack, tmp) == 0 && rename(tmp, dst_pack) == 0) {
				unlink(tmp);
				if (copy_file(src_idx, tmp) != 0 || rename(tmp, dst_idx) != 0)
					unlink(dst_pack);
			}
			unlink(tmp);
		}
		free(src_idx);
		free(dst_pack);
		free(dst_idx);
		free(tmp);
	}
}

/* Through the mirror cache: brought up to date from the server, then
 * copied from locally. 0 with the commit there, or not (the server is
 * asked directly then); < 0 when the server could not be reached. */
static int fetch_cached(struct upd *u, const git_oid *oid)
{
	struct jp_git_cache c = JP_GIT_CACHE_INIT;
	int rc, gerr;

	if (!jp_git_cache_wanted(&u->url, u->opts->no_cache))
		return 0;
	rc = jp_git_cache_open(&c, &u->url, &u->op, u->err);
	if (rc != 0)
		return rc > 0 ? 0 : rc;
	copy_new_packs(u, &c);
	if (on_network(u->info.workdir))
		read_from_mirror(u, c.mirror);
	gerr = fetch_from_mirror(u, &c);
	if (gerr != 0 && (u->op.canceled || u->op.fail_code)) {
		rc = jp_git_op_error(&u->op, gerr, u->info.workdir, u->err, u->url.clean);
	} else if (gerr != 0 || !have_commit(u, oid)) {
		/* what the mirror gave is no good: fetched anew next time */
		if (gerr != 0)
			jp_git_cache_discard(&c);
		git_error_clear();
	}
	jp_git_cache_close(&c);
	return rc;
}

static int fetch(struct upd *u)
{
	git_fetch_options fo;
	git_oid oid;
	int gerr, rc;

	git_oid_fromstr(&oid, u->res->to);
	if (have_commit(u, &oid))
		return 0;
	if ((rc = fetch_cached(u, &oid)) != 0)
		return rc;
	if (have_commit(u, &oid))
		return 0;
	fetch_options(&fo, &u->op);
	if ((gerr = remote_fetch(u, NULL, &fo)) != 0)
		return jp_git_op_error(&u->op, gerr, u->info.workdir, u->err, u->url.clean);
	if (!have_commit(u, &oid) && u->want.ref_kind == JP_GIT_REF_COMMIT) {
		/* A commit no ref has: ask for it by id (servers allowing it). */
		char spec[128];
		char *specs[] = {spec};
		git_strarray arr = {specs, 1};

		snprintf(spec, sizeof(spec), "+%s:" WANT_REF, u->res->to);
		fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
		gerr = remote_fetch(u, &arr, &fo);
		git_reference_remove(u->repo, WANT_REF);
		if (gerr != 0 && (u->op.canceled || u->op.fail_code))
			return jp_git_op_error(&u->op, gerr, u->info.workdir, u->err, u->url.clean);
		git_error_clear();
	}
	if (!have_commit(u, &oid))
		return jp_error_set(u->err, JP_ENOENT,
				    _("%s has no commit %s (the server did not send it)"),
				    u->url.clean, u->res->to);
	return 0;
}

/* ---- what the move would do ------------------------------------------- */

static int diff_cb(const git_diff_delta *d, float progress, void *payload)
{
	struct upd *u = payload;
	git_odb *odb = NULL;

	(void)progress;
	if (jp_strv_push(&u->paths, d->new_file.path) < 0)
		return -1;
	if (jp_strv_push(d->status == GIT_DELTA_ADDED ? &u->added : &u->kept, d->new_file.path) < 0)
		return -1;
	if (d->status == GIT_DELTA_DELETED && jp_strv_push(&u->gone, d->new_file.path) < 0)
		return -1;
	if (d->status == GIT_DELTA_TYPECHANGE || d->new_file.mode == GIT_FILEMODE_COMMIT ||
	    d->old_file.mode == GIT_FILEMODE_COMMIT)
		u->typechange = true;
	if (d->status != GIT_DELTA_DELETED && git_repository_odb(&odb, u->repo) == 0) {
		size_t len = 0;
		git_object_t type;

		if (git_odb_read_header(&len, &type, odb, &d->new_file.id) == 0)
			u->new_bytes += len;
		git_odb_free(odb);
		git_error_clear();
	}
	return 0;
}

/* The mirror's objects read first: what the move reads (blob sizes, the
 * new files' contents) comes from local disk, not from the checkout's packs
 * on network storage. */
static void read_from_mirror(struct upd *u, const char *mirror)
{
	git_odb *odb = NULL;
	git_odb_backend *pack = NULL;
	char *objects = NULL;

	if (join(&objects, mirror, "objects") == 0 && git_repository_odb(&odb, u->repo) == 0 &&
	    git_odb_backend_pack(&pack, objects) == 0 && git_odb_add_backend(odb, pack, 10) != 0)
		pack->free(pack);
	git_error_clear();
	git_odb_free(odb);
	free(objects);
}

static int plan(struct upd *u)
{
	git_oid a, b;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	git_diff_options dopts;
	int gerr;

	git_diff_options_init(&dopts, GIT_DIFF_OPTIONS_VERSION);
	dopts.flags |= GIT_DIFF_SKIP_BINARY_CHECK;
	git_oid_fromstr(&a, u->res->from);
	git_oid_fromstr(&b, u->res->to);
	if ((gerr = git_commit_lookup(&u->from, u->repo, &a)) != 0 ||
	    (gerr = git_commit_lookup(&u->to, u->repo, &b)) != 0 ||
	    (gerr = git_graph_ahead_behind(&u->res->ahead, &u->res->back, u->repo, &b, &a)) != 0 ||
	    (gerr = git_commit_tree(&ta, u->from)) != 0 ||
	    (gerr = git_commit_tree(&tb, u->to)) != 0 ||
	    (gerr = git_diff_tree_to_tree(&diff, u->repo, ta, tb, &dopts)) != 0)
		goto fail;
	/* the deltas only: git_diff_foreach makes a patch of each, reading
	 * both blobs and the diff attributes (one round trip after the other
	 * in a work tree on network storage) */
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++)
		if ((gerr = diff_cb(git_diff_get_delta(diff, i), 0, u)) != 0)
			goto fail;
	u->res->files = u->paths.n;
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	return 0;
fail:
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	return jp_git_op_error(&u->op, gerr, NULL, u->err, u->opts->path);
}

/* The file at path (one `from` has) differs from `from`'s blob in the
 * work tree or the index: its content is read and hashed (not judged by
 * its stat: a same-size change in the same second as the index is one);
 * a mode change alone (jobprep's chmod +x) is none. */
static bool edited(struct upd *u, git_tree *from, git_index *idx, const char *path)
{
	git_tree_entry *e = NULL;
	const git_index_entry *ie = idx ? git_index_get_bypath(idx, path, 0) : NULL;
	char *full = NULL;
	struct stat sb;
	git_oid oid;
	bool changed;

	if (git_tree_entry_bypath(&e, from, path) != 0) {
		git_error_clear();
		return false; /* added by the move: find_in_the_way's */
	}
	if (join(&full, u->info.workdir, path) < 0) {
		git_tree_entry_free(e);
		return false;
	}
	changed = (ie && !git_oid_equal(&ie->id, git_tree_entry_id(e))) || lstat(full, &sb) != 0 ||
		  (S_ISLNK(sb.st_mode) != (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK)) ||
		  (!S_ISLNK(sb.st_mode) &&
		   (git_repository_hashfile(&oid, u->repo, path, GIT_OBJECT_BLOB, NULL) != 0 ||
		    !git_oid_equal(&oid, git_tree_entry_id(e))));
	free(full);
	git_tree_entry_free(e);
	git_error_clear();
	return changed;
}

/* Uncommitted edits go with the move, as with git checkout, unless the
 * move changes the same file: then it is refused, naming the files and
 * the ways out. */
static int check_edits(struct upd *u, const char *to_label)
{
	struct jp_strv hit = { NULL, 0 };
	struct jp_buf b = JP_BUF_INIT;
	char *names = NULL, *stash = NULL;
	git_tree *from = NULL;
	git_index *idx = NULL;

	u->res->carried = u->info.dirty;
	if (!u->info.dirty)
		return 0;
	if (git_commit_tree(&from, u->from) != 0)
		return jp_git_op_error(&u->op, -1, NULL, u->err, u->opts->path);
	if (git_repository_index(&idx, u->repo) != 0)
		idx = NULL;
	for (size_t i = 0; i < u->paths.n; i++)
		if (edited(u, from, idx, u->paths.v[i]) && jp_strv_push(&hit, u->paths.v[i]) < 0) {
			git_tree_free(from);
			git_index_free(idx);
			goto oom;
		}
	git_tree_free(from);
	git_index_free(idx);
	git_error_clear();
	if (!hit.n)
		return 0;
	for (size_t i = 0; i < hit.n && i <= JP_GIT_NAMES_MAX; i++)
		jp_buf_addf(&b, "%s%s", i ? ", " : "", i == JP_GIT_NAMES_MAX ? "..." : hit.v[i]);
	if (jp_buf_take(&names, &b) < 0 ||
	    asprintf(&stash, "jobprep: edits before %.7s", u->res->to) < 0) {
		stash = NULL;
		goto oom;
	}
	jp_error_set(u->err, JP_EREFUSED,
		     _("%s has uncommitted changes to %s, which %s changes too; nothing was "
		       "changed. Either run them at the current commit (code.repo.ref %.7s: the run "
		       "includes them), or put them away in a named stash (git -C %s stash push "
		       "-m '%s') and prepare again, or commit them"),
		     u->opts->path, names, to_label, u->res->from, u->opts->path, stash);
	free(names);
	free(stash);
	jp_strv_dispose(&hit);
	return JP_EREFUSED;
oom:
	jp_buf_dispose(&b);
	free(names);
	jp_strv_dispose(&hit);
	return nomem(u);
}

/* Commits on HEAD that neither the target nor any remote or tag has. */
static int check_left_behind(struct upd *u, char *to_label)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t n = 0;
	int gerr;

	if ((gerr = git_revwalk_new(&walk, u->repo)) != 0 ||
	    (gerr = git_revwalk_push(walk, git_commit_id(u->from))) != 0 ||
	    (gerr = git_revwalk_hide(walk, git_commit_id(u->to))) != 0) {
		git_revwalk_free(walk);
		return jp_git_op_error(&u->op, gerr, NULL, u->err, u->opts->path);
	}
	git_revwalk_hide_glob(walk, "refs/remotes/*");
	git_revwalk_hide_glob(walk, "refs/tags/*");
	git_error_clear();
	while (n < 10000 && git_revwalk_next(&oid, walk) == 0)
		n++;
	git_revwalk_free(walk);
	git_error_clear();
	if (n == 0)
		return 0;
	return jp_error_set(u->err, JP_EREFUSED,
			    _("%zu local commit(s) in %s are on no remote and not in %s: moving "
			      "would leave them behind; push them (git -C %s push), or choose "
			      "another path; nothing was changed"),
			    n, u->opts->path, to_label, u->opts->path);
}

/* A branch is only ever fast-forwarded. */
static int check_branch(struct upd *u)
{
	git_reference *local = NULL;
	const git_oid *at;
	int rc = 0;

	if (u->want.ref_kind != JP_GIT_REF_BRANCH || !u->res->ref)
		return 0;
	if (git_branch_lookup(&local, u->repo, u->res->ref, GIT_BRANCH_LOCAL) != 0) {
		git_error_clear();
		return 0;
	}
	at = git_reference_target(local);
	if (at && !git_oid_equal(at, git_commit_id(u->to)) &&
	    git_graph_descendant_of(u->repo, git_commit_id(u->to), at) != 1)
		rc =
		    jp_error_set(u->err, JP_EREFUSED,
				 _("the local branch %s in %s has commits the server's %s does not "
				   "have: it cannot be fast-forwarded; push or reset it, or choose "
				   "another path; nothing was changed"),
				 u->res->ref, u->opts->path, u->res->ref);
	git_reference_free(local);
	git_error_clear();
	return rc;
}

static int check_room(struct upd *u)
{
	struct statvfs vfs;
	char need[16], have[16];
	uint64_t avail;

	if (statvfs(u->info.workdir, &vfs) != 0)
		return 0;
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (u->new_bytes + ROOM_MARGIN <= avail)
		return 0;
	return jp_error_set(u->err, JP_ENOSPC,
			    _("%s: the new files take %s and the disk has %s free; make room, "
			      "then prepare again; nothing was changed"),
			    u->opts->path, jp_units_format_bytes(need, sizeof(need), u->new_bytes),
			    jp_units_format_bytes(have, sizeof(have), avail));
}

/* "3 commit(s) forward, 1 back, 5 file(s) changed" */
static int counts(char **out, const struct jp_git_update_result *r)
{
	char fwd[96] = "", back[96] = "";

	if (r->ahead)
		snprintf(fwd, sizeof(fwd), _("%zu commit(s) forward, "), r->ahead);
	if (r->back)
		snprintf(back, sizeof(back), _("%zu commit(s) back, "), r->back);
	return asprintf(out, _("%s%s%zu file(s) changed"), fwd, back, r->files) < 0
		   ? (*out = NULL, JP_ENOMEM)
		   : 0;
}

static int summarise(struct upd *u, const char *from_label, const char *to_label)
{
	char *what = NULL;
	int n;

	if (!u->res->moved) {
		n = asprintf(&u->res->summary, _("already at %s"), to_label);
	} else {
		if (counts(&what, u->res) < 0)
			return nomem(u);
		char how[160] = "";

		if (u->res->direct)
			snprintf(how, sizeof(how), _(" (written onto network storage by %u parallel "
						     "writers)"),
				 u->res->writers);
		n = asprintf(&u->res->summary, _("moved %s from %s to %s: %s"), u->opts->path,
			     from_label, to_label, what);
		if (n >= 0 && how[0]) {
			char *longer = NULL;

			n = asprintf(&longer, "%s%s", u->res->summary, how);
			free(u->res->summary);
			u->res->summary = n >= 0 ? longer : NULL;
			if (n < 0)
				return nomem(u);
		}
		free(what);
	}
	if (n < 0) {
		u->res->summary = NULL;
		return nomem(u);
	}
	return 0;
}

static int ask(struct upd *u, const char *from_label, const char *to_label)
{
	char *q = NULL, *what = NULL;
	int yes = 0;

	if (!u->opts->ask)
		return 0;
	if (counts(&what, u->res) < 0 ||
	    asprintf(&q, _("Move the checkout in %s\n  from %s\n  to   %s\n(%s)?"), u->opts->path,
		     from_label, to_label, what) < 0) {
		free(what);
		return nomem(u);
	}
	free(what);
	/* what the move keeps: the edits, the earlier runs' code */
	char *more = NULL;
	if (u->info.dirty
		? asprintf(&more, _("%s\nYour uncommitted edits to %zu file(s) go with it; runs "
				    "prepared before keep their own copy of their code."),
			   q, u->info.dirty) < 0
		: asprintf(&more, _("%s\nRuns prepared before keep their own copy of their code."),
			   q) < 0) {
		free(q);
		return nomem(u);
	}
	free(q);
	q = more;
	/* A clean tree moved forward only loses nothing: Enter says yes. */
	yes = jp_port_confirm(u->op.port, q,
			      u->res->back == 0 && u->info.dirty == 0 && u->info.untracked == 0);
	free(q);
	if (yes)
		return 0;
	/* what happened first, then the path (it can be long), then the way
	 * to keep the code as it is */
	return jp_error_set(u->err, JP_EREFUSED,
			    _("the checkout stays at %s (moving it to %s was declined): %s; to "
			      "prepare this run from it as it is, set code.repo.ref to %.7s"),
			    from_label, to_label, u->opts->path, u->res->from);
}

/* ---- the move ------------------------------------------------------------- */

/* Directories an added file would create: they go again on a rollback. */
static int note_new_dirs(struct upd *u)
{
	for (size_t i = 0; i < u->added.n; i++) {
		char *p = NULL;
		struct stat sb;

		if (join(&p, u->info.workdir, u->added.v[i]) < 0)
			return nomem(u);
		for (char *s = strrchr(p, '/'); s && s > p + strlen(u->info.workdir);
		     s = strrchr(p, '/')) {
			*s = '\0';
			if (lstat(p, &sb) == 0)
				break;
			bool known = false;
			for (size_t k = 0; k < u->new_dirs.n && !known; k++)
				known = strcmp(u->new_dirs.v[k], p) == 0;
			if (!known && jp_strv_push(&u->new_dirs, p) < 0) {
				free(p);
				return nomem(u);
			}
		}
		free(p);
	}
	return 0;
}

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	ssize_t r;

	if (in < 0)
		return errno == ENOENT ? 1 : -1;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0)
		goto done;
	while ((r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)r) != r)
			goto done;
	rc = r == 0 && fsync(out) == 0 ? 0 : -1;
done:
	if (out >= 0 && close(out) != 0)
		rc = -1;
	close(in);
	if (rc != 0 && out >= 0)
		unlink(dst);
	return rc;
}

/* The index as it is, beside it: a rollback puts it back byte for byte. */
static int save_index(struct upd *u)
{
	char *index = NULL;
	int rc;

	if (join(&index, git_repository_path(u->repo), "index") < 0 ||
	    asprintf(&u->index_copy, "%s.jobprep-%ld", index, (long)getpid()) < 0) {
		u->index_copy = NULL;
		free(index);
		return nomem(u);
	}
	unlink(u->index_copy);
	rc = copy_file(index, u->index_copy);
	free(index);
	if (rc == 1) {
		free(u->index_copy);
		u->index_copy = NULL;
		return 0;
	}
	if (rc != 0)
		return jp_error_set(u->err, errno == ENOSPC ? JP_ENOSPC : JP_EIO,
				    _("%s: cannot keep a copy of the index: %s"), u->opts->path,
				    strerror(errno));
	return 0;
}

/* jobprep's own chmod +x (an exec-bit-only change) would stop the safe
 * checkout of a file the move changes: take it off first, put it back on
 * a rollback. */
static int drop_exec_bits(struct upd *u)
{
	for (size_t i = 0; i < u->paths.n; i++) {
		char *p = NULL;
		struct stat sb;

		if (join(&p, u->info.workdir, u->paths.v[i]) < 0)
			return nomem(u);
		if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & 0111)) {
			git_tree_entry *e = NULL;
			git_tree *t = NULL;

			if (git_commit_tree(&t, u->from) == 0 &&
			    git_tree_entry_bypath(&e, t, u->paths.v[i]) == 0 &&
			    git_tree_entry_filemode(e) == GIT_FILEMODE_BLOB &&
			    chmod(p, sb.st_mode & 07666) == 0 && jp_strv_push(&u->unexec, p) < 0) {
				git_tree_entry_free(e);
				git_tree_free(t);
				free(p);
				return nomem(u);
			}
			git_tree_entry_free(e);
			git_tree_free(t);
			git_error_clear();
		}
		free(p);
	}
	return 0;
}

static void make_exec(const char *path)
{
	struct stat sb;

	if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
		chmod(path, (sb.st_mode | ((sb.st_mode & 0444) >> 2)) & 07777);
}

static int conflict_cb(git_checkout_notify_t why, const char *path, const git_diff_file *baseline,
		       const git_diff_file *target, const git_diff_file *workdir, void *payload)
{
	struct upd *u = payload;

	(void)baseline;
	(void)target;
	(void)workdir;
	if (why == GIT_CHECKOUT_NOTIFY_CONFLICT && path && u->conflicts.n < 100)
		jp_strv_push(&u->conflicts, path);
	return u->op.canceled ? -1 : 0;
}

/* What git does not track and stands where the move writes: a file at a
 * path it adds, or a file where it needs a folder. libgit2's own check
 * misses files inside untracked folders. */
static int find_in_the_way(struct upd *u)
{
	for (size_t i = 0; i < u->added.n; i++) {
		char *p = NULL;
		struct stat sb;
		size_t top = strlen(u->info.workdir) + 1;

		if (join(&p, u->info.workdir, u->added.v[i]) < 0)
			return nomem(u);
		if (lstat(p, &sb) == 0 && jp_strv_push(&u->conflicts, p + top) < 0) {
			free(p);
			return nomem(u);
		}
		for (char *s = strrchr(p, '/'); s && (size_t)(s - p) > top; s = strrchr(p, '/')) {
			*s = '\0';
			if (lstat(p, &sb) == 0 && !S_ISDIR(sb.st_mode) &&
			    jp_strv_push(&u->conflicts, p + top) < 0) {
				free(p);
				return nomem(u);
			}
		}
		free(p);
	}
	return 0;
}

static int refuse_conflicts(struct upd *u, const char *to_label)
{
	char *names = NULL;

	for (size_t i = 0; i < u->conflicts.n && i <= JP_GIT_NAMES_MAX; i++) {
		char *grown = NULL;
		const char *p = i == JP_GIT_NAMES_MAX ? "..." : u->conflicts.v[i];

		if (asprintf(&grown, "%s%s%s", names ? names : "", names ? ", " : "", p) < 0) {
			free(names);
			return nomem(u);
		}
		free(names);
		names = grown;
	}
	jp_error_set(u->err, JP_EREFUSED,
		     _("files in %s that git does not track would be overwritten by %s: %s; "
		       "move them away, then prepare again; nothing was changed"),
		     u->opts->path, to_label, names ? names : "?");
	free(names);
	return JP_EREFUSED;
}

static int longer_first(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la > lb ? -1 : la < lb;
}

/* Put the work tree and the index back as they were. */
static int rollback(struct upd *u)
{
	git_checkout_options co;
	int rc = 0;

	for (size_t i = 0; i < u->added.n; i++) {
		char *p = NULL;

		if (join(&p, u->info.workdir, u->added.v[i]) == 0)
			unlink(p);
		free(p);
	}
	/* the deepest first */
	if (u->new_dirs.n > 1)
		qsort(u->new_dirs.v, u->new_dirs.n, sizeof(*u->new_dirs.v), longer_first);
	for (size_t i = 0; i < u->new_dirs.n; i++)
		rmdir(u->new_dirs.v[i]);
	if (u->kept.n) {
		git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
		co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
		co.paths.strings = u->kept.v;
		co.paths.count = u->kept.n;
		if (git_checkout_tree(u->repo, (const git_object *)u->from, &co) != 0)
			rc = -1;
	}
	if (u->index_copy) {
		char *index = NULL;

		if (join(&index, git_repository_path(u->repo), "index") < 0 ||
		    rename(u->index_copy, index) != 0)
			rc = -1;
		else {
			free(u->index_copy);
			u->index_copy = NULL;
		}
		free(index);
	}
	for (size_t i = 0; i < u->unexec.n; i++)
		make_exec(u->unexec.v[i]);
	git_error_clear();
	return rc;
}

static int set_branch(struct upd *u)
{
	const char *name = u->res->ref;
	git_reference *local = NULL, *moved = NULL;
	char full[1100], upstream[1100];
	bool made = false;
	int gerr;

	if (git_branch_lookup(&local, u->repo, name, GIT_BRANCH_LOCAL) == 0) {
		if (git_reference_target(local))
			git_oid_tostr(u->res->branch_was, sizeof(u->res->branch_was),
				      git_reference_target(local));
		gerr = git_reference_set_target(&moved, local, git_commit_id(u->to),
						"jobprep: fast-forward");
	} else {
		git_error_clear();
		gerr = git_branch_create(&moved, u->repo, name, u->to, 0);
		made = gerr == 0;
		snprintf(upstream, sizeof(upstream), "%s/%s", u->info.remote, name);
		if (gerr == 0)
			git_branch_set_upstream(moved, upstream);
	}
	snprintf(full, sizeof(full), "refs/heads/%s", name);
	if (gerr == 0)
		gerr = git_repository_set_head(u->repo, full);
	if (gerr != 0 && made)
		git_branch_delete(moved);
	else if (gerr != 0 && local)
		git_reference_set_target(&moved, local, git_commit_id(u->from), "jobprep: undo");
	git_reference_free(moved);
	git_reference_free(local);
	return gerr;
}

static int set_refs(struct upd *u)
{
	if (u->want.ref_kind == JP_GIT_REF_BRANCH && u->res->ref)
		return set_branch(u);
	return git_repository_set_head_detached(u->repo, git_commit_id(u->to));
}

/* ---- the move onto network storage -------------------------------------- */

#define NET_WRITERS 16
#define DIRECT_WRITERS 32
#define SCRATCH_PREFIX "jobprep-update-"

/* Decided as for a clone's target: by the filesystem type the mount table
 * gives (fuse.sshfs, nfs...: a FUSE superblock magic says nothing). */
static bool on_network(const char *path)
{
	return jp_git_on_network(path);
}

/* A local folder for the new files: $JOBPREP_SCRATCH, $TMPDIR, /var/tmp. */
static int make_scratch(struct jp_git_tmp *scr)
{
	const char *named[] = { getenv("JOBPREP_SCRATCH"), getenv("TMPDIR"), "/var/tmp", "/tmp" };

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!named[i] || named[i][0] != '/' || on_network(named[i]))
			continue;
		jp_git_tmp_clean_stale(named[i], SCRATCH_PREFIX, NULL, NULL, 0);
		if (jp_git_tmp_create(scr, named[i], SCRATCH_PREFIX, NULL) == 0)
			return 0;
	}
	return -1;
}

/* The files `to` has of those the move changes, written into dir. */
static int write_new_files(struct upd *u, const char *dir, struct jp_strv *written)
{
	const char *pattern = u->opts->exec_pattern ? u->opts->exec_pattern : JP_GIT_EXEC_DEFAULT;
	git_checkout_options co;
	int gerr;

	for (size_t i = 0; i < u->paths.n; i++) {
		bool gone = false;

		for (size_t k = 0; k < u->gone.n && !gone; k++)
			gone = strcmp(u->gone.v[k], u->paths.v[i]) == 0;
		if (!gone && jp_strv_push(written, u->paths.v[i]) < 0)
			return -1;
	}
	if (written->n == 0)
		return 0;
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX |
			       GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	co.target_directory = dir;
	co.paths.strings = written->v;
	co.paths.count = written->n;
	jp_git_op_checkout_callbacks(&co, &u->op);
	if ((gerr = git_checkout_tree(u->repo, (const git_object *)u->to, &co)) != 0 ||
	    u->op.canceled)
		return gerr ? gerr : GIT_EUSER;
	if (*pattern)
		for (size_t i = 0; i < written->n; i++)
			if (fnmatch(pattern, written->v[i], FNM_PATHNAME) == 0) {
				char *p = NULL;

				if (join(&p, dir, written->v[i]) == 0)
					make_exec(p);
				free(p);
			}
	return 0;
}

static int by_path(const void *key, const void *elem)
{
	return strcmp(key, ((const struct jp_treecopy_file *)elem)->path);
}

/* The index entry of path as `tree` has it, with the file's stat (NULL:
 * none, the next status reads it). */
static int index_put(git_index *idx, git_tree *tree, const char *path, const struct stat *st,
		     time_t *newest)
{
	git_tree_entry *e = NULL;
	git_index_entry ne;
	int gerr;

	if ((gerr = git_tree_entry_bypath(&e, tree, path)) != 0)
		return gerr;
	memset(&ne, 0, sizeof(ne));
	ne.path = path;
	ne.mode = git_tree_entry_filemode(e);
	git_oid_cpy(&ne.id, git_tree_entry_id(e));
	if (st)
		jp_git_entry_stat(&ne, st, newest);
	gerr = git_index_add(idx, &ne);
	git_tree_entry_free(e);
	return gerr;
}

/* The index of `to` for the n paths written (with their files' stat, so
 * that the next status does not read them again) and without those
 * deleted. */
static int write_index(struct upd *u, size_t n, const char *const *paths,
		       const struct stat *const *stats)
{
	git_index *idx = NULL;
	git_tree *tree = NULL;
	time_t newest = 0;
	int gerr;

	if ((gerr = git_repository_index(&idx, u->repo)) != 0 ||
	    (gerr = git_commit_tree(&tree, u->to)) != 0)
		goto out;
	for (size_t i = 0; gerr == 0 && i < u->gone.n; i++)
		if (git_index_remove(idx, u->gone.v[i], 0) != 0)
			git_error_clear();
	for (size_t i = 0; gerr == 0 && i < n; i++)
		gerr = index_put(idx, tree, paths[i], stats[i], &newest);
	/* Not dated after the files (as it was): a file changed in the same
	 * second as its entry was written, to the same size, would then look
	 * clean to git and to the next prep (sshfs keeps whole seconds), and
	 * be overwritten. Those entries stay racily clean: read again. */
	(void)newest;
	if (gerr == 0)
		gerr = git_index_write(idx);
out:
	git_tree_free(tree);
	git_index_free(idx);
	return gerr;
}

/* write_index for the files the treecopy wrote: the stat of each under
 * its final name (a rename may give it another inode number, as sshfs
 * does). */
static int write_index_copied(struct upd *u, const struct jp_strv *written,
			      const struct jp_treecopy_result *copied)
{
	struct stat *now = calloc(written->n + 1, sizeof(*now));
	const struct stat **stats = calloc(written->n + 1, sizeof(*stats));
	int gerr;

	if (!now || !stats) {
		free(now);
		free(stats);
		return GIT_ERROR;
	}
	for (size_t i = 0; i < written->n; i++) {
		const struct jp_treecopy_file *f = copied->n_copied
			? bsearch(written->v[i], copied->copied, copied->n_copied,
				  sizeof(*copied->copied), by_path)
			: NULL;
		char *p = NULL;

		if (f && join(&p, u->info.workdir, written->v[i]) == 0 && lstat(p, &now[i]) == 0)
			stats[i] = &now[i];
		free(p);
	}
	gerr = write_index(u, written->n, (const char *const *)written->v, stats);
	free(now);
	free(stats);
	return gerr;
}

/* Deleted files go, and the folders they leave empty. */
static void remove_gone(struct upd *u)
{
	for (size_t i = 0; i < u->gone.n; i++) {
		char *p = NULL;

		if (join(&p, u->info.workdir, u->gone.v[i]) < 0)
			continue;
		unlink(p);
		for (char *s = strrchr(p, '/'); s && (size_t)(s - p) > strlen(u->info.workdir);
		     s = strrchr(p, '/')) {
			*s = '\0';
			if (rmdir(p) != 0)
				break;
		}
		free(p);
	}
}

/* Onto network storage: the new files written on local disk by libgit2,
 * then copied with the clone's parallel writers (each under a temporary
 * name, renamed over the old one); the index written from `to` with the
 * copies' stat. Whatever fails is put back by rollback(). */
static int move_net(struct upd *u)
{
	struct jp_git_tmp scr = JP_GIT_TMP_INIT;
	struct jp_strv written = JP_STRV_INIT;
	struct jp_treecopy_options to = JP_TREECOPY_OPTIONS_INIT;
	struct jp_treecopy_result copied = JP_TREECOPY_RESULT_INIT;
	int gerr = 0, rc = 0;

	if (make_scratch(&scr) != 0) {
		rc = jp_error_set(u->err, JP_EIO, _("%s: no local scratch folder to write the new "
						    "files in: set JOBPREP_SCRATCH"),
				  u->opts->path);
		goto out;
	}
	if ((gerr = write_new_files(u, scr.tree, &written)) != 0)
		goto out;
	to.threads = NET_WRITERS;
	to.record_stats = true;
	to.dst_exists = true;
	to.stage = true;
	if (written.n &&
	    (rc = jp_treecopy(&copied, scr.tree, u->info.workdir, &to, u->op.port, u->err)) != 0)
		goto out;
	remove_gone(u);
	gerr = write_index_copied(u, &written, &copied);
out:
	if (gerr != 0 && rc == 0)
		rc = jp_git_op_error(&u->op, gerr, u->info.workdir, u->err, u->opts->path);
	jp_treecopy_result_dispose(&copied);
	jp_strv_dispose(&written);
	if (scr.dir)
		jp_git_tmp_remove(&scr);
	return rc;
}

/* The entries of the parallel writer for the move: the blobs `to` has,
 * removals for the paths it lacks. 1: a path it does not handle (a
 * submodule; then move_net). */
static int direct_files(struct upd *u, git_tree *to, git_tree *from, struct jp_git_pco_file *v)
{
	const char *pattern = u->opts->exec_pattern ? u->opts->exec_pattern : JP_GIT_EXEC_DEFAULT;

	for (size_t i = 0; i < u->paths.n; i++) {
		git_tree_entry *e = NULL, *old = NULL;
		int gerr = git_tree_entry_bypath(&e, to, u->paths.v[i]);

		v[i].path = u->paths.v[i];
		if (gerr == GIT_ENOTFOUND) {
			git_error_clear();
			continue; /* (mode 0: removed) */
		}
		if (gerr != 0)
			return gerr;
		v[i].mode = git_tree_entry_filemode(e);
		git_oid_cpy(&v[i].id, git_tree_entry_id(e));
		git_tree_entry_free(e);
		if (v[i].mode != GIT_FILEMODE_BLOB && v[i].mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
		    v[i].mode != GIT_FILEMODE_LINK)
			return 1;
		v[i].exec = v[i].mode != GIT_FILEMODE_LINK && *pattern &&
			    fnmatch(pattern, v[i].path, FNM_PATHNAME) == 0;
		v[i].is_new = git_tree_entry_bypath(&old, from, u->paths.v[i]) != 0;
		git_tree_entry_free(old);
		git_error_clear();
	}
	return 0;
}

/* Onto network storage, for a tree no filter applies to: the files the
 * move changes written straight into the checkout by the parallel checkout
 * writer (git_pcheckout.c; the blobs read from the mirror cache first,
 * each file under a temporary name renamed over the old one), the deleted
 * ones removed, the index written with the new files' stat and the old
 * stat of the rest: no local copy, no walk of the work tree. 1: not for
 * this tree (.gitattributes, a filtering config, a submodule: move_net,
 * where libgit2 applies the filters). Whatever fails is put back by
 * rollback() (the old versions come from `from`). */
static int move_direct(struct upd *u)
{
	struct jp_git_pco_file *v = NULL;
	const char **paths = NULL;
	const struct stat **stats = NULL;
	git_tree *to = NULL, *from = NULL;
	size_t n = 0;
	int gerr, rc = 0;

	if ((gerr = git_commit_tree(&to, u->to)) != 0 || (gerr = git_commit_tree(&from, u->from)) != 0)
		goto out;
	if (!jp_git_plain_tree(u->repo, to)) {
		rc = 1;
		goto out;
	}
	v = calloc(u->paths.n + 1, sizeof(*v));
	paths = calloc(u->paths.n + 1, sizeof(*paths));
	stats = calloc(u->paths.n + 1, sizeof(*stats));
	if (!v || !paths || !stats) {
		rc = nomem(u);
		goto out;
	}
	if ((gerr = direct_files(u, to, from, v)) != 0) {
		rc = gerr == 1 ? 1 : 0;
		gerr = gerr == 1 ? 0 : gerr;
		goto out;
	}
	rc = jp_git_pcheckout(u->repo, u->info.workdir, v, u->paths.n, DIRECT_WRITERS, true, &u->op,
			      u->err);
	if (rc != 0)
		goto out;
	remove_gone(u);
	for (size_t i = 0; i < u->paths.n; i++)
		if (v[i].mode) {
			paths[n] = v[i].path;
			stats[n++] = &v[i].st;
		}
	gerr = write_index(u, n, paths, stats);
out:
	if (gerr != 0 && rc == 0)
		rc = jp_git_op_error(&u->op, gerr, u->info.workdir, u->err, u->opts->path);
	git_tree_free(to);
	git_tree_free(from);
	free(v);
	free(paths);
	free(stats);
	return rc;
}

/* ---- the move's journal -------------------------------------------------- */

/* .git/jobprep-move exists while the work tree is being moved: one line,
 * "FROM TO INDEX-COPY\n" (the commits, 40 hex each, and the index's saved
 * copy, "-" for none). A jobprep killed mid-move (kill -9, a power cut)
 * leaves it, and the next update finishes the story before anything else:
 * the refs had moved, so only the journal goes; or HEAD is still FROM, so
 * the files the move touches are put back and the move starts again. */
#define JOURNAL "jobprep-move"

static char *journal_path(struct upd *u)
{
	const char *git = git_repository_path(u->repo); /* ends with '/' */
	char *p = NULL;

	return asprintf(&p, "%s%s", git, JOURNAL) < 0 ? NULL : p;
}

static int write_journal(struct upd *u)
{
	char *p = journal_path(u);
	int fd = p ? open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;
	int rc = 0;

	if (!p)
		return nomem(u);
	if (fd < 0 ||
	    dprintf(fd, "%s %s %s\n", u->res->from, u->res->to,
		    u->index_copy ? u->index_copy : "-") < 0 ||
	    fsync(fd) != 0)
		rc = jp_error_set(u->err, errno == ENOSPC ? JP_ENOSPC : JP_EIO,
				  _("%s: cannot write the move's journal: %s"), u->opts->path,
				  strerror(errno));
	if (fd >= 0)
		close(fd);
	if (rc != 0)
		unlink(p);
	free(p);
	return rc;
}

static void drop_journal(struct upd *u)
{
	char *p = journal_path(u);

	if (p)
		unlink(p);
	free(p);
}

/* The parent folders of the files the half-done move added, now empty. */
static void remove_empty_parents(struct upd *u)
{
	size_t top = strlen(u->info.workdir);

	for (size_t i = 0; i < u->added.n; i++) {
		char *p = NULL;

		if (join(&p, u->info.workdir, u->added.v[i]) < 0)
			return;
		for (char *sl = strrchr(p, '/'); sl && (size_t)(sl - p) > top; sl = strrchr(p, '/')) {
			*sl = '\0';
			if (rmdir(p) != 0)
				break;
		}
		free(p);
	}
}

/* The temporaries a killed parallel writer left beside the files it was
 * writing (JP_TREECOPY_TMP_PREFIX NAME). */
static void remove_temporaries(struct upd *u)
{
	for (size_t i = 0; i < u->paths.n; i++) {
		const char *path = u->paths.v[i], *slash = strrchr(path, '/');
		char *p = NULL;

		if (asprintf(&p, "%s/%.*s%s" JP_TREECOPY_TMP_PREFIX "%s", u->info.workdir,
			     slash ? (int)(slash - path) : 0, path, slash ? "/" : "",
			     slash ? slash + 1 : path) >= 0)
			unlink(p);
		free(p);
	}
}

/* A move a killed jobprep left half-done (see JOURNAL): 0 when there was
 * none or it is now undone (u->info inspected again), else refused. */
static int recover(struct upd *u)
{
	char *p = journal_path(u), from[64] = "", to[64] = "", idx[PATH_MAX] = "";
	FILE *f = p ? fopen(p, "re") : NULL;
	int n = 0, rc;

	if (!p)
		return nomem(u);
	if (!f) {
		free(p);
		return 0;
	}
	/* the index copy's path is the rest of the line: it may hold spaces */
	n = fscanf(f, "%63s %63s ", from, to);
	if (n == 2 && fgets(idx, sizeof(idx), f) && idx[0] && idx[strlen(idx) - 1] == '\n') {
		idx[strlen(idx) - 1] = '\0';
		n = 3;
	}
	fclose(f);
	if (n != 3 || strlen(from) != 40 || strlen(to) != 40) {
		rc = jp_error_set(u->err, JP_EREFUSED,
				  _("%s: a move jobprep began was interrupted and its journal %s "
				    "cannot be read: check the work tree (git -C %s status), then "
				    "remove the journal"),
				  u->opts->path, p, u->opts->path);
		free(p);
		return rc;
	}
	if (strcmp(u->info.commit, to) == 0) {
		/* killed after the refs moved: the move was whole */
		if (strcmp(idx, "-") != 0)
			unlink(idx);
		unlink(p);
		free(p);
		return 0;
	}
	if (strcmp(u->info.commit, from) != 0) {
		rc = jp_error_set(u->err, JP_EREFUSED,
				  _("%s: a move jobprep began from %.7s to %.7s was interrupted, and "
				    "HEAD is now at %.7s: check the work tree (git -C %s status), then "
				    "remove %s"),
				  u->opts->path, from, to, u->info.commit, u->opts->path, p);
		free(p);
		return rc;
	}
	memcpy(u->res->from, from, 41);
	memcpy(u->res->to, to, 41);
	if ((rc = plan(u)) != 0) {
		free(p);
		return rc;
	}
	remove_temporaries(u);
	u->index_copy = strcmp(idx, "-") != 0 ? strdup(idx) : NULL;
	if (rollback(u) != 0) {
		rc = jp_error_set(u->err, JP_EIO,
				  _("%s: a move jobprep began was interrupted and its files could "
				    "not all be put back: run git -C %s checkout -f %s"),
				  u->opts->path, u->opts->path, from);
		free(p);
		return rc;
	}
	remove_empty_parents(u);
	unlink(p);
	free(p);
	/* as before the killed move: planned again from the start */
	jp_strv_dispose(&u->paths);
	jp_strv_dispose(&u->added);
	jp_strv_dispose(&u->kept);
	jp_strv_dispose(&u->gone);
	git_commit_free(u->from);
	git_commit_free(u->to);
	u->from = u->to = NULL;
	u->typechange = false;
	u->new_bytes = 0;
	u->res->files = u->res->ahead = u->res->back = 0;
	u->res->to[0] = '\0';
	jp_git_repo_info_dispose(&u->info);
	return jp_git_inspect(&u->info, u->opts->path, u->opts->exec_pattern, u->err);
}

static int move(struct upd *u, const char *to_label)
{
	git_checkout_options co;
	const char *pattern = u->opts->exec_pattern ? u->opts->exec_pattern : JP_GIT_EXEC_DEFAULT;
	int gerr, rc;

	if ((rc = find_in_the_way(u)) != 0)
		return rc;
	if (u->conflicts.n)
		return refuse_conflicts(u, to_label);
	if ((rc = note_new_dirs(u)) != 0 || (rc = save_index(u)) != 0 ||
	    (rc = write_journal(u)) != 0)
		return rc;
	if (!u->typechange && (u->opts->net_writers || on_network(u->info.workdir))) {
		if ((rc = move_direct(u)) == 1)
			rc = move_net(u);
		else
			u->res->direct = rc == 0;
		u->res->writers = u->res->direct ? DIRECT_WRITERS : 0;
		if (rc == 0 && (gerr = set_refs(u)) != 0)
			rc = jp_git_op_error(&u->op, gerr, u->info.workdir, u->err, u->opts->path);
		if (rc != 0) {
			if (rollback(u) != 0)
				jp_error_set(u->err, rc,
					     _("%s: the files could not all be put back: run git -C %s "
					       "checkout -f %s"),
					     u->opts->path, u->opts->path, u->res->from);
			else
				drop_journal(u);
			return rc;
		}
		if (u->index_copy) {
			unlink(u->index_copy);
			free(u->index_copy);
			u->index_copy = NULL;
		}
		drop_journal(u);
		u->res->parallel = true;
		return 0;
	}
	if ((rc = drop_exec_bits(u)) != 0) {
		if (rollback(u) == 0)
			drop_journal(u);
		return rc;
	}
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_DONT_OVERWRITE_IGNORED;
	jp_git_op_checkout_callbacks(&co, &u->op);
	co.notify_cb = conflict_cb;
	co.notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
	co.notify_payload = u;
	/* Progress cannot stop libgit2 half-way: a cancel lands when the
	 * checkout is done, and is then undone. */
	gerr = git_checkout_tree(u->repo, (const git_object *)u->to, &co);
	if (gerr == GIT_ECONFLICT || (gerr != 0 && u->conflicts.n)) {
		if (rollback(u) == 0)
			drop_journal(u);
		return refuse_conflicts(u, to_label);
	}
	if (gerr == 0 && !u->op.canceled)
		gerr = set_refs(u);
	if (gerr != 0 || u->op.canceled) {
		rc = jp_git_op_error(&u->op, gerr ? gerr : GIT_EUSER, u->info.workdir, u->err,
				     u->opts->path);
		if (rollback(u) != 0)
			jp_error_set(u->err, rc,
				     _("%s: the files could not all be put back: run git -C %s "
				       "checkout -f %s"),
				     u->opts->path, u->opts->path, u->res->from);
		else
			drop_journal(u);
		return rc;
	}
	if (*pattern)
		for (size_t i = 0; i < u->paths.n; i++)
			if (fnmatch(pattern, u->paths.v[i], FNM_PATHNAME) == 0) {
				char *p = NULL;

				if (join(&p, u->info.workdir, u->paths.v[i]) == 0)
					make_exec(p);
				free(p);
			}
	if (u->index_copy) {
		unlink(u->index_copy);
		free(u->index_copy);
		u->index_copy = NULL;
	}
	drop_journal(u);
	return 0;
}

/* ---- the whole update --------------------------------------------------- */

static int update(struct upd *u)
{
	char from_label[1200], to_label[1200];
	int rc;

	if ((rc = open_checkout(u)) != 0 || (rc = recover(u)) != 0 || (rc = name_from(u)) != 0 ||
	    (rc = resolve(u)) != 0)
		return rc;
	label(from_label, sizeof(from_label), u->res->from_name, u->res->from);
	label(to_label, sizeof(to_label), u->res->ref, u->res->to);
	if (strcmp(u->res->from, u->res->to) == 0) {
		/* Already there: nothing to fetch, nothing to touch. */
		u->res->dirty = u->info.dirty;
		if (u->info.dirty_paths &&
		    jp_set_str(&u->res->dirty_paths, u->info.dirty_paths) < 0)
			return nomem(u);
		return summarise(u, from_label, to_label);
	}
	if (!u->info.commit[0])
		return jp_error_set(u->err, JP_EREFUSED,
				    _("%s is a checkout with no commit yet: choose another path"),
				    u->opts->path);
	if ((rc = fetch(u)) != 0 || (rc = plan(u)) != 0 || (rc = check_edits(u, to_label)) != 0 ||
	    (rc = check_left_behind(u, to_label)) != 0 || (rc = check_branch(u)) != 0 ||
	    (rc = check_room(u)) != 0 || (rc = ask(u, from_label, to_label)) != 0)
		return rc;
	if (u->op.canceled)
		return jp_error_set(u->err, JP_ECANCELED, _("%s: canceled"), u->opts->path);
	snprintf(u->res->head_was, sizeof(u->res->head_was), "%s",
		 u->info.detached || !u->info.branch ? "" : u->info.branch);
	if ((rc = move(u, to_label)) != 0)
		return rc;
	u->res->moved = true;
	/* what it is now: the caller records it */
	jp_git_repo_info_dispose(&u->info);
	if ((rc = jp_git_inspect(&u->info, u->opts->path, u->opts->exec_pattern, u->err)) != 0)
		return rc;
	return summarise(u, from_label, to_label);
}

int jp_git_update(struct jp_git_update_result *out, const struct jp_git_update_options *opts,
		  const struct jp_port *port, struct jp_error *err)
{
	struct upd u;
	int rc;

	memset(&u, 0, sizeof(u));
	u.lock_fd = -1;
	*out = (struct jp_git_update_result)JP_GIT_UPDATE_RESULT_INIT;
	u.opts = opts;
	u.res = out;
	u.err = err;
	u.url = (struct jp_git_url)JP_GIT_URL_INIT;
	u.info = (struct jp_git_repo_info)JP_GIT_REPO_INFO_INIT;
	u.want = (struct jp_git_remote_info)JP_GIT_REMOTE_INFO_INIT;
	jp_git_op_init(&u.op, port);
	u.op.stall_timeout_s = opts->stall_timeout_s ? opts->stall_timeout_s : 120;
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;
	if (!opts->url || !opts->path)
		return jp_error_set(err, JP_EUSAGE, "%s",
				    _("an update needs a URL and a checkout"));
	if ((rc = jp_git_url_parse(&u.url, opts->url, err)) != 0 ||
	    (rc = jp_git_ref_check(opts->ref, err)) != 0)
		goto out;
	if (u.url.kind == JP_URL_SSH) {
		u.op.ssh_host = u.url.host;
		u.op.ssh_port = u.url.port;
	}
	jp_git_op_enter(&u.op);
	rc = update(&u);
	jp_git_op_leave(&u.op);
	out->checkout = u.info;
	u.info = (struct jp_git_repo_info)JP_GIT_REPO_INFO_INIT;
out:
	/* left only when it could not be put back: the message says so */
	free(u.index_copy);
	jp_strv_dispose(&u.paths);
	jp_strv_dispose(&u.added);
	jp_strv_dispose(&u.kept);
	jp_strv_dispose(&u.new_dirs);
	jp_strv_dispose(&u.unexec);
	jp_strv_dispose(&u.conflicts);
	jp_strv_dispose(&u.gone);
	git_commit_free(u.from);
	git_commit_free(u.to);
	if (u.remote) {
		git_remote_disconnect(u.remote);
		git_remote_free(u.remote);
	}
	git_repository_free(u.repo);
	jp_git_remote_info_dispose(&u.want);
	jp_git_repo_info_dispose(&u.info);
	jp_git_creds_free(u.op.creds);
	jp_git_url_dispose(&u.url);
	if (u.lock_fd >= 0)
		close(u.lock_fd);
	return rc;
}

/* ---- a refused prep's move taken back ------------------------------------ */

static int undo_fail(struct jp_error *err, const char *path, const char *from)
{
	const git_error *e = git_error_last();

	jp_error_set(err, JP_EGIT,
		     _("%s: the move could not be taken back (%s): run git -C %s checkout %s"), path,
		     e && e->message ? e->message : "?", path, from);
	git_error_clear();
	return JP_EGIT;
}

/* The paths that differ between the trees of a and b. */
static int moved_paths(struct jp_strv *out, git_repository *repo, git_commit *a, git_commit *b)
{
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	int gerr;

	if ((gerr = git_commit_tree(&ta, a)) == 0 && (gerr = git_commit_tree(&tb, b)) == 0 &&
	    (gerr = git_diff_tree_to_tree(&diff, repo, ta, tb, NULL)) == 0)
		for (size_t i = 0; gerr == 0 && i < git_diff_num_deltas(diff); i++) {
			const git_diff_delta *d = git_diff_get_delta(diff, i);

			if (jp_strv_push(out, d->old_file.path) < 0 ||
			    (strcmp(d->old_file.path, d->new_file.path) != 0 &&
			     jp_strv_push(out, d->new_file.path) < 0))
				gerr = -1;
		}
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	return gerr;
}

int jp_git_update_undo(const char *path, const struct jp_git_update_result *res,
		       struct jp_error *err)
{
	git_repository *repo = NULL;
	git_commit *from = NULL, *to = NULL;
	git_reference *br = NULL, *moved = NULL;
	git_checkout_options co;
	struct jp_strv paths = { NULL, 0 };
	git_oid a, b, was;
	char full[300];
	int rc = 0;

	if (!res->moved)
		return 0;
	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0 ||
	    git_oid_fromstr(&a, res->from) != 0 || git_commit_lookup(&from, repo, &a) != 0 ||
	    git_oid_fromstr(&b, res->to) != 0 || git_commit_lookup(&to, repo, &b) != 0 ||
	    moved_paths(&paths, repo, to, from) != 0) {
		rc = undo_fail(err, path, res->from);
		goto out;
	}
	/* the files the move changed first (the edits it carried are in
	 * others: they stay), then HEAD, then the branch the move set */
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
	co.paths.strings = paths.v;
	co.paths.count = paths.n;
	if ((paths.n && git_checkout_tree(repo, (const git_object *)from, &co) != 0) ||
	    git_repository_set_head_detached(repo, &a) != 0) {
		rc = undo_fail(err, path, res->from);
		goto out;
	}
	/* jobprep's own chmod +x, as the clone and the move give it */
	for (size_t i = 0; i < paths.n; i++) {
		char *p = NULL;

		if (fnmatch(JP_GIT_EXEC_DEFAULT, paths.v[i], FNM_PATHNAME) == 0 &&
		    join(&p, path, paths.v[i]) == 0)
			make_exec(p);
		free(p);
	}
	if (res->ref && res->ref_kind == JP_GIT_REF_BRANCH &&
	    git_branch_lookup(&br, repo, res->ref, GIT_BRANCH_LOCAL) == 0) {
		if (!res->branch_was[0] ? git_branch_delete(br) != 0
					: git_oid_fromstr(&was, res->branch_was) != 0 ||
						  git_reference_set_target(&moved, br, &was,
									   "jobprep: undo") != 0)
			rc = undo_fail(err, path, res->from);
	}
	git_error_clear();
	snprintf(full, sizeof(full), "refs/heads/%s", res->head_was);
	if (rc == 0 && res->head_was[0] && git_repository_set_head(repo, full) != 0)
		rc = undo_fail(err, path, res->from);
out:
	jp_strv_dispose(&paths);
	git_reference_free(moved);
	git_reference_free(br);
	git_commit_free(to);
	git_commit_free(from);
	git_repository_free(repo);
	return rc;
}
