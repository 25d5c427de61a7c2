/* The status of a checkout on network storage, with many threads: there
 * every lstat is a round trip, and libgit2's status makes 20,000 of them
 * one after the other. Here every tracked file is lstat'ed in parallel (by
 * folder, one descriptor each) and compared with the index's stat data; a
 * file whose stat differs, or that is racily clean, is hashed (no filter
 * applies: jp_git_plain_tree) and compared with its blob. The folders are
 * read in parallel too, for untracked files, which libgit2's ignore rules
 * then sort out (few, in the calling thread). Whatever this does not
 * handle (filters, conflicts, sparse or intent-to-add entries, a file it
 * cannot read) is left to libgit2: JP_GIT_PSTATUS_FALLBACK. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mountinfo.h"
#include "git_internal.h"

#define THREADS 16
#define CHUNK 64

bool jp_git_on_network(const char *path)
{
	struct jp_mount_table table = JP_MOUNT_TABLE_INIT;
	const struct jp_mount *m;
	char real[PATH_MAX];
	bool net = false;

	if (!realpath(path, real) || jp_mount_table_load(&table, NULL, NULL) != 0)
		return false;
	m = jp_mount_table_find(&table, real);
	net = m && m->fstype && jp_fs_kind_of(m->fstype) == JP_FS_NETWORK;
	jp_mount_table_dispose(&table);
	return net;
}

/* ---- no filters ---------------------------------------------------------- */

static bool has_entry(git_config *cfg, const char *name)
{
	git_config_entry *e = NULL;
	bool has = git_config_get_entry(&e, cfg, name) == 0;

	git_config_entry_free(e);
	git_error_clear();
	return has;
}

static bool bool_is(git_config *cfg, const char *name, bool value)
{
	int v = 0;
	bool is = git_config_get_bool(&v, cfg, name) == 0 && (v != 0) == value;

	git_error_clear();
	return is;
}

static bool exists(const char *dir, const char *rel)
{
	char p[PATH_MAX];

	return dir && snprintf(p, sizeof(p), "%s/%s", dir, rel) < (int)sizeof(p) &&
	       access(p, F_OK) == 0;
}

static bool plain_config(git_repository *repo)
{
	git_config *cfg = NULL;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	bool plain;

	if (git_repository_config_snapshot(&cfg, repo) != 0) {
		git_error_clear();
		return false;
	}
	plain = !has_entry(cfg, "core.autocrlf") && !has_entry(cfg, "core.eol") &&
		!has_entry(cfg, "core.attributesfile") && !bool_is(cfg, "core.filemode", false) &&
		!bool_is(cfg, "core.symlinks", false) && !bool_is(cfg, "core.ignorecase", true);
	git_config_free(cfg);
	/* the attributes files libgit2 reads besides the tree's */
	if (exists(git_repository_path(repo), "info/attributes") ||
	    (xdg && *xdg ? exists(xdg, "git/attributes") : exists(home, ".config/git/attributes")))
		plain = false;
	return plain;
}

static int attr_cb(const char *root, const git_tree_entry *e, void *payload)
{
	(void)root;
	(void)payload;
	return strcmp(git_tree_entry_name(e), ".gitattributes") == 0 ? -1 : 0;
}

static bool is_attributes(const char *path)
{
	const char *s = strrchr(path, '/');

	return strcmp(s ? s + 1 : path, ".gitattributes") == 0;
}

bool jp_git_plain_tree(git_repository *repo, git_tree *tree)
{
	git_index *idx = NULL;
	bool plain;

	if (!plain_config(repo))
		return false;
	if (tree) {
		plain = git_tree_walk(tree, GIT_TREEWALK_PRE, attr_cb, NULL) == 0;
		git_error_clear();
		return plain;
	}
	if (git_repository_index(&idx, repo) != 0) {
		git_error_clear();
		return false;
	}
	plain = true;
	for (size_t i = 0; plain && i < git_index_entrycount(idx); i++)
		plain = !is_attributes(git_index_get_byindex(idx, i)->path);
	git_index_free(idx);
	return plain;
}

/* ---- the work tree against the index ------------------------------------- */

enum { S_CLEAN, S_DIRTY, S_EXEC_ONLY, S_FAIL };

struct job {
	size_t from, to; /* entries [from, to) of one folder; from == to: read the folder */
	const char *dir; /* "" for the top */
};

struct ps {
	int top_fd;
	const char *workdir; /* ends with '/' */
	const char *pattern;
	const git_index_entry **e; /* the index's entries (submodules included) */
	unsigned char *state;
	size_t n;
	const char **sorted; /* their paths, sorted (strcmp) */
	struct jp_strv dirs; /* the folders they are in, sorted, unique */
	struct job *jobs;
	size_t njobs;
	atomic_size_t next;
	int64_t index_sec;     /* the index file's mtime */
	pthread_mutex_t lock;
	struct jp_strv cand;   /* untracked, before the ignore rules ("dir/" for folders) */
	atomic_bool failed;
};

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool tracked(const struct ps *p, const char *rel)
{
	return bsearch(&rel, p->sorted, p->n, sizeof(*p->sorted), by_str) ||
	       bsearch(&rel, p->dirs.v, p->dirs.n, sizeof(*p->dirs.v), by_str);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The file's content hashes to the blob (a symlink: its target). */
static bool same_blob(const struct ps *p, int dfd, const git_index_entry *ie,
		      const struct stat *st)
{
	char path[PATH_MAX];
	git_oid oid;
	bool same = false;

	if (!S_ISLNK(st->st_mode)) {
		/* (streamed: a large file is not read into memory) */
		if (snprintf(path, sizeof(path), "%s%s", p->workdir, ie->path) >= (int)sizeof(path) ||
		    git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB) != 0)
			return false;
		return git_oid_equal(&oid, &ie->id);
	}
	char *buf = malloc((size_t)st->st_size + 1);
	ssize_t got = buf ? readlinkat(dfd, base_of(ie->path), buf, (size_t)st->st_size + 1) : -1;

	if (got == (ssize_t)st->st_size && git_odb_hash(&oid, buf, (size_t)got, GIT_OBJECT_BLOB) == 0)
		same = git_oid_equal(&oid, &ie->id);
	free(buf);
	return same;
}

static unsigned char classify(const struct ps *p, int dfd, const git_index_entry *ie)
{
	const char *name = base_of(ie->path);
	struct stat st;
	bool link = ie->mode == GIT_FILEMODE_LINK;

	/* submodules are left out, as GIT_STATUS_OPT_EXCLUDE_SUBMODULES does */
	if (ie->mode == GIT_FILEMODE_COMMIT)
		return S_CLEAN;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT || errno == ENOTDIR ? S_DIRTY : S_FAIL;
	if (link ? !S_ISLNK(st.st_mode) : !S_ISREG(st.st_mode))
		return S_DIRTY;
	bool mode_changed = !link && (ie->mode == GIT_FILEMODE_BLOB_EXECUTABLE) !=
					 ((st.st_mode & S_IXUSR) != 0);
	bool size_ok = (uint32_t)st.st_size == ie->file_size;
	/* as libgit2 does, but for the inode number (a FUSE mount makes its
	 * own, another after each mount): size, mtime, ctime */
	bool stat_ok = size_ok && ie->mtime.seconds == (int32_t)st.st_mtim.tv_sec &&
		       ie->mtime.nanoseconds == (uint32_t)st.st_mtim.tv_nsec &&
		       ie->ctime.seconds == (int32_t)st.st_ctim.tv_sec &&
		       ie->ctime.nanoseconds == (uint32_t)st.st_ctim.tv_nsec &&
		       (int64_t)ie->mtime.seconds < p->index_sec;

	/* (a size of 0 is git's mark of a racily clean entry: read it) */
	if (!size_ok && ie->file_size != 0)
		return S_DIRTY;
	if (!stat_ok && !same_blob(p, dfd, ie, &st))
		return S_DIRTY;
	if (!mode_changed)
		return S_CLEAN;
	/* jobprep's own chmod +x: only the exec bit, on a file of the pattern */
	if (ie->mode == GIT_FILEMODE_BLOB && p->pattern && *p->pattern &&
	    fnmatch(p->pattern, ie->path, FNM_PATHNAME) == 0)
		return S_EXEC_ONLY;
	return S_DIRTY;
}

static void run_stats(struct ps *p, const struct job *j)
{
	int dfd = j->dir[0] ? openat(p->top_fd, j->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			    : p->top_fd;

	if (dfd < 0) {
		unsigned char s = errno == ENOENT || errno == ENOTDIR ? S_DIRTY : S_FAIL;

		for (size_t i = j->from; i < j->to; i++)
			p->state[i] = s;
		return;
	}
	for (size_t i = j->from; i < j->to && !atomic_load(&p->failed); i++)
		if ((p->state[i] = classify(p, dfd, p->e[i])) == S_FAIL)
			atomic_store(&p->failed, true);
	if (dfd != p->top_fd)
		close(dfd);
}

static int add_candidate(struct ps *p, const char *rel, bool dir)
{
	char buf[PATH_MAX];
	int rc;

	if (snprintf(buf, sizeof(buf), "%s%s", rel, dir ? "/" : "") >= (int)sizeof(buf))
		return -1;
	pthread_mutex_lock(&p->lock);
	rc = jp_strv_push(&p->cand, buf);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static void run_list(struct ps *p, const struct job *j)
{
	int fd = openat(p->top_fd, j->dir[0] ? j->dir : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
								  O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	char rel[PATH_MAX];

	if (!d) {
		if (fd >= 0)
			close(fd);
		else if (errno != ENOENT && errno != ENOTDIR)
			atomic_store(&p->failed, true); /* (gone: the stats say so) */
		return;
	}
	while ((de = readdir(d)) != NULL) {
		const char *nm = de->d_name;
		struct stat st;
		bool dir;

		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 ||
		    (!j->dir[0] && strcmp(nm, ".git") == 0))
			continue;
		if (snprintf(rel, sizeof(rel), "%s%s%s", j->dir, j->dir[0] ? "/" : "", nm) >=
		    (int)sizeof(rel)) {
			atomic_store(&p->failed, true);
			break;
		}
		if (tracked(p, rel))
			continue;
		dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN && fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) == 0)
			dir = S_ISDIR(st.st_mode);
		if (add_candidate(p, rel, dir) < 0) {
			atomic_store(&p->failed, true);
			break;
		}
	}
	closedir(d);
}

static void *worker(void *arg)
{
	struct ps *p = arg;
	size_t k;

	while (!atomic_load(&p->failed) && (k = atomic_fetch_add(&p->next, 1)) < p->njobs) {
		const struct job *j = &p->jobs[k];

		if (j->from == j->to)
			run_list(p, j);
		else
			run_stats(p, j);
	}
	return NULL;
}

static int push_dirs_of(struct jp_strv *dirs, const char *path)
{
	for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		char *d = strndup(path, (size_t)(s - path));
		int rc = d ? jp_strv_push(dirs, d) : -1;

		free(d);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static void unique(struct jp_strv *sv)
{
	size_t k = 0;

	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), by_str);
	for (size_t i = 0; i < sv->n; i++) {
		if (k && strcmp(sv->v[k - 1], sv->v[i]) == 0) {
			free(sv->v[i]);
			continue;
		}
		sv->v[k++] = sv->v[i];
	}
	sv->n = k;
}

static size_t dir_len(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? (size_t)(s - path) : 0;
}

/* The jobs: every folder read once, then the entries in chunks of one
 * folder each. p->dirs must outlive them (they borrow its strings). */
static int make_jobs(struct ps *p)
{
	static const char top[] = "";
	size_t cap = p->dirs.n + 1 + p->n / CHUNK + p->dirs.n + 2, k = 0;

	/* (every change of folder in index order starts a chunk: at most one
	 * per entry; grown when needed) */
	if (!(p->jobs = malloc(cap * sizeof(*p->jobs))))
		return -1;
	p->jobs[k++] = (struct job){ 0, 0, top };
	for (size_t i = 0; i < p->dirs.n; i++)
		p->jobs[k++] = (struct job){ 0, 0, p->dirs.v[i] };
	for (size_t i = 0; i < p->n;) {
		size_t dl = dir_len(p->e[i]->path), end = i + 1;
		const char *dir = top;

		while (end < p->n && end - i < CHUNK && dir_len(p->e[end]->path) == dl &&
		       strncmp(p->e[end]->path, p->e[i]->path, dl) == 0 &&
		       (dl == 0 || p->e[end]->path[dl] == '/'))
			end++;
		if (dl) {
			char key[PATH_MAX];
			char *kp = key;
			char **hit;

			snprintf(key, sizeof(key), "%.*s", (int)dl, p->e[i]->path);
			hit = bsearch(&kp, p->dirs.v, p->dirs.n, sizeof(*p->dirs.v), by_str);
			if (!hit)
				return -1;
			dir = *hit;
		}
		if (k == cap) {
			struct job *g = realloc(p->jobs, (cap *= 2) * sizeof(*p->jobs));

			if (!g)
				return -1;
			p->jobs = g;
		}
		p->jobs[k++] = (struct job){ i, end, dir };
		i = end;
	}
	p->njobs = k;
	return 0;
}

/* ---- untracked files: the ignore rules ---------------------------------- */

static bool ignored(git_repository *repo, const char *rel)
{
	int ign = 0;

	if (git_ignore_path_is_ignored(&ign, repo, rel) != 0) {
		git_error_clear();
		return false;
	}
	return ign == 1;
}

/* An untracked folder counts (as libgit2 counts it: once) when it holds
 * anything not ignored: a file, a nested repository; empty ones do not. */
static bool holds_untracked(git_repository *repo, int top_fd, const char *rel, unsigned depth)
{
	int fd = openat(top_fd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	bool found = false;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && depth < 64 && (de = readdir(d)) != NULL) {
		char child[PATH_MAX];
		struct stat st;
		bool dir;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (strcmp(de->d_name, ".git") == 0) {
			found = true;
			break;
		}
		dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN && fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			dir = S_ISDIR(st.st_mode);
		if (snprintf(child, sizeof(child), "%s%s%s", rel, de->d_name, dir ? "/" : "") >=
		    (int)sizeof(child))
			continue;
		if (ignored(repo, child))
			continue;
		found = !dir || holds_untracked(repo, top_fd, child, depth + 1);
	}
	closedir(d);
	return found;
}

static size_t count_untracked(struct ps *p, git_repository *repo)
{
	size_t n = 0;

	for (size_t i = 0; i < p->cand.n; i++) {
		const char *rel = p->cand.v[i];
		size_t len = strlen(rel);

		if (ignored(repo, rel))
			continue;
		if (rel[len - 1] != '/' || holds_untracked(repo, p->top_fd, rel, 0))
			n++;
	}
	return n;
}

/* ---- putting it together -------------------------------------------------- */

/* Staged changes: HEAD's tree against the index (objects only). */
static int staged(git_repository *repo, git_index *idx, struct jp_strv *dirty)
{
	git_tree *head = NULL;
	git_diff *diff = NULL;
	git_reference *ref = NULL;
	int gerr = git_repository_head(&ref, repo);

	if (gerr == 0)
		gerr = git_reference_peel((git_object **)&head, ref, GIT_OBJECT_TREE);
	git_reference_free(ref);
	if (gerr == GIT_EUNBORNBRANCH || gerr == GIT_ENOTFOUND) {
		git_error_clear();
		gerr = 0;
	}
	if (gerr == 0)
		gerr = git_diff_tree_to_index(&diff, repo, head, idx, NULL);
	for (size_t i = 0; gerr == 0 && i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_UNMODIFIED)
			continue;
		if (jp_strv_push(dirty, d->new_file.path ? d->new_file.path : d->old_file.path) < 0)
			gerr = 1;
	}
	git_diff_free(diff);
	git_tree_free(head);
	return gerr;
}

static bool handled(git_index *idx)
{
	if (git_index_has_conflicts(idx))
		return false;
	for (size_t i = 0; i < git_index_entrycount(idx); i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);

		if ((e->flags_extended & (GIT_INDEX_ENTRY_SKIP_WORKTREE | GIT_INDEX_ENTRY_INTENT_TO_ADD)) ||
		    is_attributes(e->path))
			return false;
	}
	return true;
}

static int load(struct ps *p, git_repository *repo, git_index *idx)
{
	struct stat st;

	p->n = git_index_entrycount(idx);
	if (stat(git_index_path(idx), &st) != 0)
		return JP_GIT_PSTATUS_FALLBACK;
	p->index_sec = (int64_t)st.st_mtim.tv_sec;
	p->workdir = git_repository_workdir(repo);
	p->top_fd = open(p->workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (p->top_fd < 0)
		return JP_GIT_PSTATUS_FALLBACK;
	if (!(p->e = calloc(p->n + 1, sizeof(*p->e))) || !(p->state = calloc(p->n + 1, 1)) ||
	    !(p->sorted = calloc(p->n + 1, sizeof(*p->sorted))))
		return 1;
	for (size_t i = 0; i < p->n; i++) {
		p->e[i] = git_index_get_byindex(idx, i);
		p->sorted[i] = p->e[i]->path;
		if (push_dirs_of(&p->dirs, p->e[i]->path) < 0)
			return 1;
	}
	qsort(p->sorted, p->n, sizeof(*p->sorted), by_str);
	unique(&p->dirs);
	return make_jobs(p) < 0 ? 1 : 0;
}

static int scan(struct ps *p)
{
	pthread_t tid[THREADS];
	unsigned started = 0;

	for (; started < THREADS; started++)
		if (pthread_create(&tid[started], NULL, worker, p) != 0)
			break;
	if (started == 0)
		worker(p);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	return atomic_load(&p->failed) ? JP_GIT_PSTATUS_FALLBACK : 0;
}

static int name_dirty(struct jp_git_repo_info *info, struct jp_strv *dirty)
{
	char *list = NULL;

	unique(dirty);
	for (size_t i = 0; i < dirty->n && i <= JP_GIT_NAMES_MAX; i++) {
		char *grown = NULL;
		const char *nm = i == JP_GIT_NAMES_MAX ? "..." : dirty->v[i];

		if (asprintf(&grown, "%s%s%s", list ? list : "", list ? ", " : "", nm) < 0) {
			free(list);
			return 1;
		}
		free(list);
		list = grown;
	}
	info->dirty = dirty->n;
	free(info->dirty_paths);
	info->dirty_paths = list;
	return 0;
}

static int collect(struct ps *p, struct jp_git_repo_info *info, git_repository *repo,
		   struct jp_strv *dirty)
{
	size_t exec_only = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (p->e[i]->mode == GIT_FILEMODE_COMMIT)
			continue;
		if (p->state[i] == S_EXEC_ONLY)
			exec_only++;
		else if (p->state[i] == S_DIRTY && jp_strv_push(dirty, p->e[i]->path) < 0)
			return 1;
	}
	info->untracked = count_untracked(p, repo);
	info->exec_only = exec_only;
	return name_dirty(info, dirty);
}

int jp_git_pstatus(struct jp_git_repo_info *info, git_repository *repo, const char *pattern)
{
	struct ps p;
	struct jp_strv dirty = JP_STRV_INIT;
	git_index *idx = NULL;
	int rc;

	memset(&p, 0, sizeof(p));
	p.top_fd = -1;
	p.pattern = pattern;
	p.dirs = (struct jp_strv)JP_STRV_INIT;
	p.cand = (struct jp_strv)JP_STRV_INIT;
	pthread_mutex_init(&p.lock, NULL);
	if (!git_repository_workdir(repo) || !plain_config(repo) ||
	    git_repository_index(&idx, repo) != 0) {
		git_error_clear();
		rc = JP_GIT_PSTATUS_FALLBACK;
		goto out;
	}
	if (!handled(idx)) {
		rc = JP_GIT_PSTATUS_FALLBACK;
		goto out;
	}
	if ((rc = load(&p, repo, idx)) != 0)
		goto out;
	if ((rc = scan(&p)) != 0 || (rc = staged(repo, idx, &dirty)) != 0)
		goto out;
	rc = collect(&p, info, repo, &dirty);
out:
	if (p.top_fd >= 0)
		close(p.top_fd);
	free(p.e);
	free(p.state);
	free(p.sorted);
	free(p.jobs);
	jp_strv_dispose(&p.dirs);
	jp_strv_dispose(&p.cand);
	jp_strv_dispose(&dirty);
	pthread_mutex_destroy(&p.lock);
	git_index_free(idx);
	return rc;
}
