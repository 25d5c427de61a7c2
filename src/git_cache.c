/* The local mirror cache: one bare mirror per repository URL under
 * $XDG_CACHE_HOME/jobprep/git/ (default ~/.cache/jobprep/git), fetched
 * incrementally from the server, so that a repeat clone or update is a
 * local copy. The key is the SHA-1 of the URL with its credentials removed
 * (the clean URL of git_url.c, which uses url.c); the mirror's config
 * records that clean URL only. One process at a time fetches into or reads
 * a mirror (flock on <key>.lock beside it, local disk); a mirror that fails
 * its checks (a pack whose trailer does not match its index, a ref to a
 * missing object, an unreadable HEAD) is fetched again from scratch. The
 * cache is trimmed to JOBPREP_CACHE_MAX bytes, least recently used first. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/fs.h"
#include "fs_internal.h"
#include "git_internal.h"

#define DEFAULT_CACHE_MAX (4ULL << 30)
#define HEADS "+refs/heads/*:refs/heads/*"
#define TAGS "+refs/tags/*:refs/tags/*"

void jp_git_cache_dispose(struct jp_git_cache *c)
{
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	free(c->dir);
	free(c->mirror);
	free(c->lock);
	jp_strv_dispose(&c->new_packs);
	*c = (struct jp_git_cache)JP_GIT_CACHE_INIT;
}

/* JOBPREP_CACHE_MAX: bytes, with an optional K, M, G or T (binary). */
static unsigned long long cache_max(void)
{
	const char *s = getenv("JOBPREP_CACHE_MAX");
	char *end = NULL;
	unsigned long long v;

	if (!s || !*s)
		return DEFAULT_CACHE_MAX;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return DEFAULT_CACHE_MAX;
	switch (*end) {
	case 'T': case 't': v <<= 10; /* fall through */
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; break;
	default: break;
	}
	return v;
}

bool jp_git_cache_wanted(const struct jp_git_url *url, bool no_cache)
{
	const char *off = getenv("JOBPREP_NO_CACHE");

	if (no_cache || (off && *off && strcmp(off, "0") != 0))
		return false;
	if (getenv("JOBPREP_CACHE_MAX") && cache_max() == 0)
		return false;
	/* a repository on this machine is its own cache */
	return url->kind != JP_URL_LOCAL && url->kind != JP_URL_FILE;
}

/* mkdir -p with mode for the folders made. */
static int make_path(const char *path, mode_t mode)
{
	char *p = strdup(path);
	int rc = 0;

	if (!p)
		return -1;
	for (char *s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST)
			rc = -1;
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

/* $XDG_CACHE_HOME/jobprep/git, else $HOME/.cache/jobprep/git; NULL when
 * neither names an absolute folder. */
static char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir = NULL;

	if (xdg && xdg[0] == '/') {
		if (asprintf(&dir, "%s/jobprep/git", xdg) < 0)
			dir = NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&dir, "%s/.cache/jobprep/git", home) < 0)
			dir = NULL;
	}
	return dir;
}

/* ---- checks ---------------------------------------------------------- */

/* The last 20 bytes of a pack are its checksum, which its .idx repeats
 * 40 bytes from its end: a truncated or overwritten pack differs. */
static bool pack_matches_index(const char *idx)
{
	unsigned char a[20], b[20];
	char pack[4096];
	struct stat sa, sb;
	size_t n = strlen(idx);
	bool ok = false;
	int fi, fp;

	if (n < 4 || n - 4 + 6 >= sizeof(pack))
		return false;
	snprintf(pack, sizeof(pack), "%.*s.pack", (int)(n - 4), idx);
	fi = open(idx, O_RDONLY | O_CLOEXEC);
	fp = open(pack, O_RDONLY | O_CLOEXEC);
	if (fi >= 0 && fp >= 0 && fstat(fi, &sa) == 0 && fstat(fp, &sb) == 0 && sa.st_size >= 48 &&
	    sb.st_size >= 32 && pread(fi, a, 20, sa.st_size - 40) == 20 &&
	    pread(fp, b, 20, sb.st_size - 20) == 20)
		ok = memcmp(a, b, 20) == 0;
	if (fi >= 0)
		close(fi);
	if (fp >= 0)
		close(fp);
	return ok;
}

static bool packs_intact(const char *mirror)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;
	bool ok = true;

	snprintf(dir, sizeof(dir), "%s/objects/pack", mirror);
	if (!(d = opendir(dir)))
		return errno == ENOENT;
	while (ok && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char idx[4096 + 256];

		if (n < 5 || strcmp(de->d_name + n - 4, ".idx") != 0)
			continue;
		snprintf(idx, sizeof(idx), "%s/%s", dir, de->d_name);
		ok = pack_matches_index(idx);
	}
	closedir(d);
	return ok;
}

struct ref_check {
	git_repository *repo;
	git_odb *odb;
	bool ok;
};

static int ref_cb(git_reference *ref, void *payload)
{
	struct ref_check *rc = payload;
	const git_oid *oid = git_reference_target(ref);

	if (oid && !git_odb_exists(rc->odb, oid))
		rc->ok = false;
	git_reference_free(ref);
	return rc->ok ? 0 : 1;
}

/* Every ref names an object that is there, and HEAD's commit and its tree
 * can be read. */
static bool refs_intact(git_repository *repo)
{
	struct ref_check rc = { repo, NULL, true };
	git_reference *head = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	int gerr;

	if (git_repository_odb(&rc.odb, repo) != 0)
		return false;
	git_reference_foreach(repo, ref_cb, &rc);
	git_odb_free(rc.odb);
	if (!rc.ok)
		return false;
	gerr = git_repository_head(&head, repo);
	if (gerr == GIT_EUNBORNBRANCH || gerr == GIT_ENOTFOUND)
		return true; /* nothing fetched yet */
	if (gerr != 0)
		return false;
	rc.ok = git_commit_lookup(&commit, repo, git_reference_target(head)) == 0 &&
		git_commit_tree(&tree, commit) == 0;
	git_tree_free(tree);
	git_commit_free(commit);
	git_reference_free(head);
	return rc.ok;
}

/* ---- making and fetching ------------------------------------------------ */

/* The mirror's pack files (full paths of the .pack files). */
static int list_packs(struct jp_strv *out, const char *mirror)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s/objects/pack", mirror);
	if (!(d = opendir(dir)))
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[4096 + 256];

		if (n < 6 || strncmp(de->d_name, "pack-", 5) != 0 ||
		    strcmp(de->d_name + n - 5, ".pack") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		rc = jp_strv_push(out, path);
	}
	closedir(d);
	return rc;
}

/* Those of the packs now in the mirror that were not there before. */
static void note_new_packs(struct jp_git_cache *c, const struct jp_strv *before)
{
	struct jp_strv now = JP_STRV_INIT;

	if (list_packs(&now, c->mirror) == 0)
		for (size_t i = 0; i < now.n; i++) {
			bool old = false;

			for (size_t k = 0; k < before->n && !old; k++)
				old = strcmp(before->v[k], now.v[i]) == 0;
			if (!old && jp_strv_push(&c->new_packs, now.v[i]) < 0)
				break;
		}
	jp_strv_dispose(&now);
}

static int create_mirror(git_repository **repo, const struct jp_git_cache *c,
			 const struct jp_git_url *url)
{
	git_repository_init_options io;
	git_remote *remote = NULL;
	int gerr;

	git_repository_init_options_init(&io, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	io.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_NO_REINIT |
		   GIT_REPOSITORY_INIT_MKDIR;
	io.mode = GIT_REPOSITORY_INIT_SHARED_UMASK;
	if ((gerr = git_repository_init_ext(repo, c->mirror, &io)) != 0)
		return gerr;
	/* the clean URL: no password or token, ever */
	if ((gerr = git_remote_create_with_fetchspec(&remote, *repo, "origin", url->clean, HEADS)) ==
	    0)
		gerr = git_remote_add_fetch(*repo, "origin", TAGS);
	git_remote_free(remote);
	return gerr;
}

/* Fetch everything new from the server; HEAD follows the server's. */
static int fetch_mirror(git_repository *repo, struct jp_git_op *op)
{
	git_remote_connect_options co;
	git_fetch_options fo;
	git_remote *remote = NULL;
	git_buf head = GIT_BUF_INIT_CONST(NULL, 0);
	int gerr;

	git_remote_connect_options_init(&co, GIT_REMOTE_CONNECT_OPTIONS_VERSION);
	jp_git_op_remote_callbacks(&co.callbacks, op);
	co.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	jp_git_op_remote_callbacks(&fo.callbacks, op);
	fo.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	fo.prune = GIT_FETCH_PRUNE;
	fo.update_fetchhead = 0;
	if (jp_git_op_ssh(op)) {
		struct jp_git_ssh_fetch f = { git_repository_path(repo), "origin", NULL, &fo,
					      "jobprep: mirror", true };

		return jp_git_ssh_fetch(op, &f);
	}
	if ((gerr = git_remote_lookup(&remote, repo, "origin")) != 0 ||
	    (gerr = git_remote_connect_ext(remote, GIT_DIRECTION_FETCH, &co)) != 0)
		goto out;
	if (git_remote_default_branch(&head, remote) != 0) {
		git_error_clear();
		head.ptr = NULL;
	}
	if ((gerr = git_remote_fetch(remote, NULL, &fo, "jobprep: mirror")) != 0)
		goto out;
	if (head.ptr && git_repository_set_head(repo, head.ptr) != 0)
		git_error_clear();
out:
	git_buf_dispose(&head);
	git_remote_free(remote);
	return gerr;
}

/* A failure the mirror may be to blame for (not the network, the person,
 * a full disk): fetching it again from scratch may help. */
static bool mirror_suspect(int rc)
{
	return rc == JP_EGIT || rc == JP_EIO;
}

static int open_lock(struct jp_git_cache *c)
{
	c->lock_fd = open(c->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (c->lock_fd < 0)
		return -1;
	/* the local disk of this machine: no need for a bounded wait */
	while (flock(c->lock_fd, LOCK_EX) != 0)
		if (errno != EINTR)
			return errno == ENOLCK || errno == EINVAL ? 0 : -1;
	/* its time is the mirror's last use */
	futimens(c->lock_fd, NULL);
	return 0;
}

static int paths(struct jp_git_cache *c, const struct jp_git_url *url)
{
	git_oid key;
	char hex[GIT_OID_HEXSZ + 1];

	if (git_odb_hash(&key, url->clean, strlen(url->clean), GIT_OBJECT_BLOB) != 0)
		return -1;
	git_oid_tostr(hex, sizeof(hex), &key);
	if (!(c->dir = cache_dir()) || asprintf(&c->mirror, "%s/%s.git", c->dir, hex) < 0 ||
	    asprintf(&c->lock, "%s/%s.lock", c->dir, hex) < 0)
		return -1;
	return 0;
}

int jp_git_cache_open(struct jp_git_cache *c, const struct jp_git_url *url, struct jp_git_op *op,
		      struct jp_error *err)
{
	git_repository *repo = NULL;
	int gerr = 0, rc = 0;

	*c = (struct jp_git_cache)JP_GIT_CACHE_INIT;
	if (paths(c, url) != 0 || make_path(c->dir, 0700) != 0 || open_lock(c) != 0) {
		git_error_clear();
		jp_git_cache_dispose(c);
		return 1; /* no cache here: straight to the server */
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		struct stat sb;

		if (stat(c->mirror, &sb) == 0) {
			if (!packs_intact(c->mirror) || git_repository_open_bare(&repo, c->mirror) != 0 ||
			    !refs_intact(repo)) {
				/* never trusted blindly: fetched again from scratch */
				git_repository_free(repo);
				repo = NULL;
				git_error_clear();
				jp_fs_rm_rf(c->mirror);
			}
		}
		c->fresh = !repo;
		if (!repo && create_mirror(&repo, c, url) != 0) {
			git_error_clear();
			jp_fs_rm_rf(c->mirror);
			jp_git_cache_dispose(c);
			return 1;
		}
		struct jp_strv before = JP_STRV_INIT;

		list_packs(&before, c->mirror);
		gerr = fetch_mirror(repo, op);
		git_repository_free(repo);
		repo = NULL;
		if (gerr == 0)
			note_new_packs(c, &before);
		jp_strv_dispose(&before);
		if (gerr == 0)
			return 0;
		struct jp_error quiet = JP_ERROR_INIT;
		rc = jp_git_op_error(op, gerr, c->mirror, &quiet, url->clean);
		if (attempt == 1 || c->fresh || !mirror_suspect(rc) || op->canceled) {
			for (size_t i = 0; i < quiet.n; i++)
				jp_error_set(err, rc, "%s", quiet.msgs[i]);
			jp_error_dispose(&quiet);
			break;
		}
		jp_error_dispose(&quiet);
		jp_fs_rm_rf(c->mirror); /* the fetch tripped over what was there */
	}
	/* A first fetch that failed leaves nothing half-made behind. */
	if (c->fresh)
		jp_fs_rm_rf(c->mirror);
	jp_git_cache_dispose(c);
	return rc;
}

void jp_git_cache_discard(struct jp_git_cache *c)
{
	if (c->mirror && c->lock_fd >= 0)
		jp_fs_rm_rf(c->mirror);
}

/* ---- the size cap --------------------------------------------------------- */

struct mirror_use {
	char *path, *lock;
	time_t used;
	unsigned long long bytes;
};

static unsigned long long walked;

static int add_size(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		walked += (unsigned long long)sb->st_blocks * 512;
	return 0;
}

static unsigned long long du(const char *path)
{
	walked = 0; /* (under the cache folder's trim lock: one walker at a time) */
	nftw(path, add_size, 16, FTW_PHYS | FTW_MOUNT);
	return walked;
}

static int older_first(const void *a, const void *b)
{
	const struct mirror_use *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

static size_t list_mirrors(struct mirror_use **out, const char *dir)
{
	struct mirror_use *v = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct mirror_use m = { NULL, NULL, 0, 0 };
		struct mirror_use *grown;
		struct stat sb;

		if (len != GIT_OID_HEXSZ + 4 || strcmp(de->d_name + GIT_OID_HEXSZ, ".git") != 0)
			continue;
		if (asprintf(&m.path, "%s/%s", dir, de->d_name) < 0)
			break;
		if (asprintf(&m.lock, "%s/%.*s.lock", dir, GIT_OID_HEXSZ, de->d_name) < 0 ||
		    !(grown = realloc(v, (n + 1) * sizeof(*v)))) {
			free(m.path);
			break;
		}
		m.used = stat(m.lock, &sb) == 0 ? sb.st_mtime : 0;
		m.bytes = du(m.path);
		v = grown;
		v[n++] = m;
	}
	closedir(d);
	*out = v;
	return n;
}

/* Remove the least recently used mirrors until the cache fits its cap; a
 * mirror another jobprep holds is left alone. */
static void trim(const char *dir, const char *keep)
{
	unsigned long long cap = cache_max(), total = 0;
	struct mirror_use *v = NULL;
	char *lock = NULL;
	size_t n;
	int fd;

	if (asprintf(&lock, "%s/trim.lock", dir) < 0)
		return;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(lock);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd); /* another jobprep is trimming */
		return;
	}
	n = list_mirrors(&v, dir);
	for (size_t i = 0; i < n; i++)
		total += v[i].bytes;
	if (n > 1)
		qsort(v, n, sizeof(*v), older_first);
	for (size_t i = 0; i < n && total > cap; i++) {
		int mfd;

		if (keep && strcmp(v[i].path, keep) == 0)
			continue;
		mfd = open(v[i].lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (mfd >= 0 && flock(mfd, LOCK_EX | LOCK_NB) == 0 && jp_fs_rm_rf(v[i].path) == 0)
			total -= v[i].bytes;
		if (mfd >= 0)
			close(mfd);
	}
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].lock);
	}
	free(v);
	close(fd);
}

void jp_git_cache_close(struct jp_git_cache *c)
{
	char *dir = c->dir, *keep = c->mirror;

	if (c->lock_fd >= 0)
		close(c->lock_fd);
	c->lock_fd = -1;
	c->dir = c->mirror = NULL;
	if (dir)
		trim(dir, keep);
	free(dir);
	free(keep);
	jp_git_cache_dispose(c);
}

/* ---- what `jobprep cache` shows and clears -------------------------------- */

/* The URL a mirror's config names for origin (the clean URL it was made
 * with); NULL when it cannot be read. */
static char *mirror_url(const char *mirror)
{
	git_config *cfg = NULL;
	git_buf url = GIT_BUF_INIT_CONST(NULL, 0);
	char *path = NULL, *out = NULL;

	if (asprintf(&path, "%s/config", mirror) < 0)
		return NULL;
	if (git_config_open_ondisk(&cfg, path) == 0 &&
	    git_config_get_string_buf(&url, cfg, "remote.origin.url") == 0 && url.ptr)
		out = strdup(url.ptr);
	git_error_clear();
	git_buf_dispose(&url);
	git_config_free(cfg);
	free(path);
	return out;
}

/* Whether another jobprep holds the mirror whose lock is at lock. */
static bool mirror_busy(const char *lock)
{
	int fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	bool busy = false;

	if (fd < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0)
		busy = errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

void jp_git_cache_list_dispose(struct jp_git_cache_list *l)
{
	for (size_t i = 0; l->v && i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].url);
	}
	free(l->v);
	free(l->dir);
	*l = (struct jp_git_cache_list)JP_GIT_CACHE_LIST_INIT;
}

int jp_git_cache_list(struct jp_git_cache_list *out, struct jp_error *err)
{
	struct mirror_use *m = NULL;
	size_t n;
	int rc;

	*out = (struct jp_git_cache_list)JP_GIT_CACHE_LIST_INIT;
	out->cap = cache_max();
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;
	if (!(out->dir = cache_dir()))
		return 0;
	n = list_mirrors(&m, out->dir);
	if (n > 1)
		qsort(m, n, sizeof(*m), older_first);
	if (n && !(out->v = calloc(n, sizeof(*out->v)))) {
		for (size_t i = 0; i < n; i++) {
			free(m[i].path);
			free(m[i].lock);
		}
		free(m);
		jp_git_cache_list_dispose(out);
		return jp_error_oom(err);
	}
	for (size_t i = 0; i < n; i++) {
		struct jp_git_cache_entry *e = &out->v[out->n++];

		e->path = m[i].path;
		e->url = mirror_url(m[i].path);
		e->bytes = m[i].bytes;
		e->used = m[i].used;
		e->busy = mirror_busy(m[i].lock);
		free(m[i].lock);
	}
	free(m);
	return 0;
}

/* Remove one mirror under its lock: renamed aside first, so that a clear
 * cut short leaves either the whole mirror or a ".gone-" folder the next
 * clear removes, never a half mirror under its own name. */
static int remove_mirror(const char *dir, const struct mirror_use *m, struct jp_error *err)
{
	char *aside = NULL;
	int fd, rc = 0;

	fd = open(m->lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return 1; /* in use */
	}
	if (asprintf(&aside, "%s/.gone-%s", dir, strrchr(m->path, '/') + 1) < 0) {
		rc = jp_error_oom(err);
	} else if (rename(m->path, aside) != 0 || jp_fs_rm_rf(aside) != 0) {
		rc = jp_error_set(err, JP_EIO, _("%s: could not remove it: %s"), m->path,
				  strerror(errno));
	}
	free(aside);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* What an earlier clear cut short left aside. */
static void remove_leftovers(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *p = NULL;

		if (strncmp(de->d_name, ".gone-", 6) != 0 || asprintf(&p, "%s/%s", dir, de->d_name) < 0)
			continue;
		jp_fs_rm_rf(p);
		free(p);
	}
	closedir(d);
}

int jp_git_cache_clear(size_t *removed, size_t *busy, unsigned long long *freed,
		       struct jp_error *err)
{
	struct mirror_use *m = NULL;
	char *dir = cache_dir();
	size_t n;
	int rc = 0;

	*removed = *busy = 0;
	*freed = 0;
	if (!dir)
		return 0;
	remove_leftovers(dir);
	n = list_mirrors(&m, dir);
	for (size_t i = 0; i < n; i++) {
		int r = remove_mirror(dir, &m[i], err);

		if (r == 0) {
			(*removed)++;
			*freed += m[i].bytes;
		} else if (r > 0) {
			(*busy)++;
		} else if (rc == 0) {
			rc = r;
		}
		free(m[i].path);
		free(m[i].lock);
	}
	free(m);
	free(dir);
	return rc;
}
