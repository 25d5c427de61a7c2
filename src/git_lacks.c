/* What a checkout made by libgit2 may lack although git says it is clean:
 * the content of files stored with Git LFS (libgit2 checks out the
 * pointer), and submodules a clone without --submodules left as empty
 * folders. Git's own data (index, objects) is read here; the work tree is
 * looked at only for the few files that matter, in bounded calls. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/probe.h"
#include "git_internal.h"
#include "probe_internal.h"
#include "manifest_internal.h"

/* The pointer format (git-lfs docs/spec.md): under 1024 bytes, the version
 * line first; hawser is its name before the 1.0 release. */
#define LFS_POINTER_MAX 1024
#define LFS_SPEC "version https://git-lfs.github.com/spec/v1\n"
#define LFS_SPEC_OLD "version https://hawser.github.com/spec/v1\n"
/* The shortest pointer: the version line, "oid sha256:" and 64 hex, "size 0". */
#define LFS_POINTER_MIN 120
/* Work tree looks per bounded call: a hung mount costs one timeout, and a
 * slow one answers a batch well within it. */
#define LOOK_BATCH 256

static bool has_prefix(const char *p, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(p, pre, k) == 0;
}

/* p[0..n) is an LFS pointer: its content's size into *size. */
static bool parse_pointer(const char *p, size_t n, uint64_t *size)
{
	const char *end = p + n, *line;
	bool oid = false, have_size = false;

	if (n >= LFS_POINTER_MAX || (!has_prefix(p, n, LFS_SPEC) && !has_prefix(p, n, LFS_SPEC_OLD)))
		return false;
	for (line = memchr(p, '\n', n); line && line + 1 < end;
	     line = memchr(line + 1, '\n', (size_t)(end - line - 1))) {
		const char *l = line + 1;
		size_t left = (size_t)(end - l);

		if (has_prefix(l, left, "oid sha256:"))
			oid = true;
		if (has_prefix(l, left, "size ")) {
			uint64_t v = 0;
			const char *d = l + 5;

			if (d >= end || *d < '0' || *d > '9')
				return false;
			for (; d < end && *d >= '0' && *d <= '9'; d++)
				v = v * 10 + (uint64_t)(*d - '0');
			*size = v;
			have_size = true;
		}
	}
	return oid && have_size;
}

/* ---- the work tree, in bounded calls ---- */

enum look_kind {
	LOOK_POINTER, /* is the file still an LFS pointer? */
	LOOK_CLONED,  /* does the folder hold a repository (a .git)? */
};

enum look_state {
	STATE_NO = 0, /* not a pointer / not cloned: see the kind */
	STATE_YES,    /* a pointer / cloned */
	STATE_GONE,   /* not there, or not a regular file */
};

struct look_call {
	unsigned char state[LOOK_BATCH]; /* the answer */
	enum look_kind kind;
	const char *root;
	char *const *paths;
	size_t n;
};

static unsigned char look_pointer(const char *full)
{
	char buf[LFS_POINTER_MAX];
	struct stat st;
	uint64_t size;
	ssize_t got;
	/* O_NONBLOCK: a FIFO in the checkout must not hang the look. */
	int fd = open(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return STATE_GONE;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return STATE_GONE;
	}
	if (st.st_size >= LFS_POINTER_MAX) {
		close(fd);
		return STATE_NO;
	}
	got = read(fd, buf, sizeof(buf));
	close(fd);
	return got > 0 && parse_pointer(buf, (size_t)got, &size) ? STATE_YES : STATE_NO;
}

static unsigned char look_cloned(const char *full)
{
	char dotgit[8192 + 8];
	struct stat st;

	snprintf(dotgit, sizeof(dotgit), "%s/.git", full);
	if (lstat(dotgit, &st) == 0)
		return STATE_YES;
	return lstat(full, &st) == 0 && S_ISDIR(st.st_mode) ? STATE_NO : STATE_GONE;
}

static void look_run(void *arg)
{
	struct look_call *c = arg;
	char full[8192];

	for (size_t i = 0; i < c->n; i++) {
		snprintf(full, sizeof(full), "%s/%s", c->root, c->paths[i]);
		c->state[i] = c->kind == LOOK_POINTER ? look_pointer(full) : look_cloned(full);
	}
}

/* state[i] for each of paths[0..n) under root, each batch in a bounded
 * call (direct: here, inside a look already bounded as a whole);
 * JP_ETIMEOUT when a batch did not answer (the rest then unlooked:
 * STATE_GONE). */
static int look_all(unsigned char *state, enum look_kind kind, const char *root,
		    char *const *paths, size_t n, bool direct)
{
	struct look_call c;

	memset(state, STATE_GONE, n);
	for (size_t off = 0; off < n; off += LOOK_BATCH) {
		memset(&c, 0, sizeof(c));
		c.kind = kind;
		c.root = root;
		c.paths = paths + off;
		c.n = n - off < LOOK_BATCH ? n - off : LOOK_BATCH;
		if (direct)
			look_run(&c);
		else if (jp_probe_call_flat(look_run, &c, offsetof(struct look_call, kind), root,
					    0, NULL) != 0)
			return JP_ETIMEOUT;
		memcpy(state + off, c.state, c.n);
	}
	return 0;
}

/* ---- the repository ---- */

static int open_repo(git_repository **repo, char **workdir, const char *path,
		     struct jp_error *err)
{
	int gerr, rc;

	*repo = NULL;
	*workdir = NULL;
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;
	gerr = git_repository_open_ext(repo, path, 0, NULL);
	if (gerr == GIT_ENOTFOUND || (gerr == 0 && git_repository_is_bare(*repo))) {
		git_repository_free(*repo);
		*repo = NULL;
		git_error_clear();
		return jp_error_set(err, JP_ENOENT, _("%s is not inside a git work tree"), path);
	}
	if (gerr != 0) {
		const git_error *ge = git_error_last();

		return jp_error_set(err, JP_EGIT, "%s: %s", path,
				    ge && ge->message ? ge->message : _("git error"));
	}
	if (!(*workdir = strdup(git_repository_workdir(*repo))))
		return jp_error_oom(err);
	for (size_t n = strlen(*workdir); n > 1 && (*workdir)[n - 1] == '/';)
		(*workdir)[--n] = '\0';
	return 0;
}

static int git_failed(const char *path, struct jp_error *err)
{
	const git_error *ge = git_error_last();

	return jp_error_set(err, JP_EGIT, "%s: %s", path,
			    ge && ge->message ? ge->message : _("git error"));
}

/* ---- LFS ---- */

void jp_git_lfs_report_dispose(struct jp_git_lfs_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->v && i < r->listed; i++)
		free(r->v[i].path);
	free(r->v);
	free(r->workdir);
	*r = (struct jp_git_lfs_report)JP_GIT_LFS_REPORT_INIT;
}

bool jp_git_lfs_installed(void)
{
	const char *path = getenv("PATH");
	char full[4096];

	if (!path || !*path)
		return false;
	for (const char *p = path;;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		if (len > 0 && len + 10 < sizeof(full)) {
			snprintf(full, sizeof(full), "%.*s/git-lfs", (int)len, p);
			if (access(full, X_OK) == 0)
				return true;
		}
		if (!colon)
			return false;
		p = colon + 1;
	}
}

/* The attributes put path under filter=lfs (as recorded in the index:
 * nothing of the work tree is read). */
static bool lfs_attr(git_repository *repo, const char *path)
{
	const char *value = NULL;

	if (git_attr_get(&value, repo, GIT_ATTR_CHECK_INDEX_ONLY, path, "filter") != 0) {
		git_error_clear();
		return false;
	}
	return GIT_ATTR_HAS_VALUE(value) && strcmp(value, "lfs") == 0;
}

/* The blob is an LFS pointer: its content's size into *size. */
static bool blob_is_pointer(git_odb *odb, const git_oid *id, uint64_t *size)
{
	git_odb_object *obj = NULL;
	git_object_t type;
	size_t len = 0;
	bool yes;

	if (git_odb_read_header(&len, &type, odb, id) != 0 || type != GIT_OBJECT_BLOB ||
	    len >= LFS_POINTER_MAX || len < LFS_POINTER_MIN) {
		git_error_clear();
		return false;
	}
	if (git_odb_read(&obj, odb, id) != 0) {
		git_error_clear();
		return false;
	}
	yes = parse_pointer(git_odb_object_data(obj), git_odb_object_size(obj), size);
	git_odb_object_free(obj);
	return yes;
}

struct lfs_candidate {
	uint64_t size;
	bool named;
};

struct lfs_candidates {
	struct jp_strv paths;
	struct lfs_candidate *v;
	size_t cap;
};

static int candidate_add(struct lfs_candidates *c, const char *path, uint64_t size, bool named)
{
	if (c->paths.n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct lfs_candidate *grown = realloc(c->v, cap * sizeof(*grown));

		if (!grown)
			return JP_ENOMEM;
		c->v = grown;
		c->cap = cap;
	}
	if (jp_strv_push(&c->paths, path) != 0)
		return JP_ENOMEM;
	c->v[c->paths.n - 1] = (struct lfs_candidate){ size, named };
	return 0;
}

/* An attributes file of the checkout (any .gitattributes in the index,
 * .git/info/attributes) names the LFS filter at all: else no file's
 * attributes need looking up. */
static bool names_lfs_filter(git_repository *repo, git_index *index, git_odb *odb)
{
	git_buf info = { NULL, 0, 0 };
	bool yes = false;

	for (size_t i = 0; !yes && i < git_index_entrycount(index); i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		size_t n = e ? strlen(e->path) : 0;
		git_odb_object *obj = NULL;

		if (n < 14 || strcmp(e->path + n - 14, ".gitattributes") != 0 ||
		    (n > 14 && e->path[n - 15] != '/') || git_odb_read(&obj, odb, &e->id) != 0)
			continue;
		yes = memmem(git_odb_object_data(obj), git_odb_object_size(obj), "lfs", 3) != NULL;
		git_odb_object_free(obj);
	}
	if (!yes && git_repository_item_path(&info, repo, GIT_REPOSITORY_ITEM_INFO) == 0) {
		char path[4096], buf[65536];
		FILE *f;

		snprintf(path, sizeof(path), "%sattributes", info.ptr);
		if ((f = fopen(path, "re"))) {
			size_t got = fread(buf, 1, sizeof(buf), f);

			yes = memmem(buf, got, "lfs", 3) != NULL;
			fclose(f);
		}
	}
	git_buf_dispose(&info);
	git_error_clear();
	return yes;
}

/* The index's files git holds as LFS pointers, found by their attributes or,
 * checked out small, by content. */
static int lfs_candidates(struct lfs_candidates *c, git_repository *repo, const char *workdir,
			  struct jp_error *err)
{
	git_index *index = NULL;
	git_odb *odb = NULL;
	int rc = 0;

	if (git_repository_index(&index, repo) != 0 || git_repository_odb(&odb, repo) != 0) {
		rc = git_failed(workdir, err);
		goto out;
	}
	bool attrs = names_lfs_filter(repo, index, odb);

	for (size_t i = 0; i < git_index_entrycount(index); i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		uint64_t size = 0;

		if (!e || (e->mode != GIT_FILEMODE_BLOB && e->mode != GIT_FILEMODE_BLOB_EXECUTABLE) ||
		    GIT_INDEX_ENTRY_STAGE(e) != 0)
			continue;
		/* Checked out the size of a pointer (the index's record of the
		 * work tree; 0: not recorded), else named by the attributes. Git's
		 * copy is read first (nothing of the work tree is touched), the
		 * attributes looked up only for a pointer (the lookup stats the
		 * file): whether they name it, git-lfs 3.6 fetching only what
		 * they do. */
		bool small = e->file_size == 0 ||
			     (e->file_size >= LFS_POINTER_MIN && e->file_size < LFS_POINTER_MAX);
		bool named;

		if ((!small && !attrs) || !blob_is_pointer(odb, &e->id, &size))
			continue;
		named = attrs && lfs_attr(repo, e->path);
		if (!small && !named)
			continue;
		if (candidate_add(c, e->path, size, named) != 0) {
			rc = jp_error_oom(err);
			goto out;
		}
	}
out:
	git_odb_free(odb);
	git_index_free(index);
	return rc;
}

static int lfs_find(struct jp_git_lfs_report *out, const char *path, bool direct,
		    struct jp_error *err)
{
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct lfs_candidates c = { JP_STRV_INIT, NULL, 0 };
	git_repository *repo = NULL;
	unsigned char *state = NULL;
	int rc;

	*out = r;
	if ((rc = open_repo(&repo, &r.workdir, path, err)) != 0 ||
	    (rc = lfs_candidates(&c, repo, r.workdir, err)) != 0)
		goto out;
	r.tracked = c.paths.n;
	if (!c.paths.n)
		goto done;
	if (!(state = malloc(c.paths.n)) ||
	    !(r.v = calloc(c.paths.n, sizeof(*r.v)))) {
		rc = jp_error_oom(err);
		goto out;
	}
	r.unfinished = look_all(state, LOOK_POINTER, r.workdir, c.paths.v, c.paths.n, direct) != 0;
	for (size_t i = 0; i < c.paths.n; i++) {
		if (state[i] != STATE_YES)
			continue;
		r.v[r.n].path = c.paths.v[i];
		c.paths.v[i] = NULL;
		r.v[r.n].size = c.v[i].size;
		r.v[r.n++].named = c.v[i].named;
		r.listed = r.n;
		r.bytes += c.v[i].size;
		r.unnamed += !c.v[i].named;
	}
done:
	*out = r;
	r = (struct jp_git_lfs_report)JP_GIT_LFS_REPORT_INIT;
out:
	free(state);
	free(c.v);
	jp_strv_dispose(&c.paths);
	jp_git_lfs_report_dispose(&r);
	git_repository_free(repo);
	return rc;
}

/* ---- submodules ---- */

void jp_git_sm_report_dispose(struct jp_git_sm_report *r)
{
	if (!r)
		return;
	free(r->workdir);
	jp_strv_dispose(&r->missing);
	*r = (struct jp_git_sm_report)JP_GIT_SM_REPORT_INIT;
}

static int collect_pinned(git_submodule *sm, const char *name, void *payload)
{
	struct jp_strv *paths = payload;

	(void)name;
	/* Declared, and a commit to check out: what `git submodule update
	 * --init` would clone. */
	if (!git_submodule_index_id(sm) && !git_submodule_head_id(sm))
		return 0;
	return jp_strv_push(paths, git_submodule_path(sm)) == 0 ? 0 : -1;
}

static int sm_find(struct jp_git_sm_report *out, const char *path, bool direct,
		   struct jp_error *err)
{
	struct jp_git_sm_report r = JP_GIT_SM_REPORT_INIT;
	struct jp_strv pinned = JP_STRV_INIT;
	git_repository *repo = NULL;
	unsigned char *state = NULL;
	int rc;

	*out = r;
	if ((rc = open_repo(&repo, &r.workdir, path, err)) != 0)
		goto out;
	if (git_submodule_foreach(repo, collect_pinned, &pinned) != 0) {
		/* A .gitmodules git cannot read: nothing to say here. */
		git_error_clear();
		jp_strv_dispose(&pinned);
	}
	r.declared = pinned.n;
	if (pinned.n) {
		if (!(state = malloc(pinned.n))) {
			rc = jp_error_oom(err);
			goto out;
		}
		r.unfinished = look_all(state, LOOK_CLONED, r.workdir, pinned.v, pinned.n, direct) != 0;
		for (size_t i = 0; i < pinned.n; i++)
			if (state[i] != STATE_YES && !r.unfinished &&
			    jp_strv_push(&r.missing, pinned.v[i]) != 0) {
				rc = jp_error_oom(err);
				goto out;
			}
	}
	r.n_missing = r.missing.n;
	*out = r;
	r = (struct jp_git_sm_report)JP_GIT_SM_REPORT_INIT;
out:
	free(state);
	jp_strv_dispose(&pinned);
	jp_git_sm_report_dispose(&r);
	git_repository_free(repo);
	return rc;
}

/* ---- the whole look bounded: for the checks of a path on a user's storage ---- */

int jp_git_lfs_find(struct jp_git_lfs_report *out, const char *path, struct jp_error *err)
{
	return lfs_find(out, path, false, err);
}

int jp_git_submodules_find(struct jp_git_sm_report *out, const char *path, struct jp_error *err)
{
	return sm_find(out, path, false, err);
}

#define NAMED (JP_GIT_NAMES_MAX + 1)

/* A look's answer, flat (it comes back from a child process), then its
 * input. */
struct lacks_call {
	int rc;
	bool unfinished;
	size_t count, total; /* LFS: tracked, pointers; submodules: declared, missing */
	uint64_t bytes;
	size_t unnamed; /* LFS: pointers no attribute names */
	uint64_t sizes[NAMED];
	bool named_lfs[NAMED];
	char names[NAMED][1024];
	char workdir[4096];
	bool lfs; /* input: which look */
	char path[];
};

static void named(struct lacks_call *c, size_t i, const char *name, uint64_t size, bool lfs)
{
	if (i >= NAMED)
		return;
	snprintf(c->names[i], sizeof(c->names[i]), "%s", name);
	c->sizes[i] = size;
	c->named_lfs[i] = lfs;
}

static void lacks_run(void *arg)
{
	struct lacks_call *c = arg;
	struct jp_git_lfs_report l = JP_GIT_LFS_REPORT_INIT;
	struct jp_git_sm_report s = JP_GIT_SM_REPORT_INIT;
	const char *wd;

	if (c->lfs) {
		c->rc = lfs_find(&l, c->path, true, NULL);
		c->count = l.tracked;
		c->total = l.n;
		c->bytes = l.bytes;
		c->unnamed = l.unnamed;
		c->unfinished = l.unfinished;
		for (size_t i = 0; i < l.n; i++)
			named(c, i, l.v[i].path, l.v[i].size, l.v[i].named);
		wd = l.workdir;
	} else {
		c->rc = sm_find(&s, c->path, true, NULL);
		c->count = s.declared;
		c->total = s.missing.n;
		c->unfinished = s.unfinished;
		for (size_t i = 0; i < s.missing.n; i++)
			named(c, i, s.missing.v[i], 0, false);
		wd = s.workdir;
	}
	snprintf(c->workdir, sizeof(c->workdir), "%s", wd ? wd : c->path);
	jp_git_lfs_report_dispose(&l);
	jp_git_sm_report_dispose(&s);
}

/* Run the look in a child process, bounded as a whole: twice the probe
 * timeout (it reads git's index and objects, then the few files that
 * matter). A look that did not answer is unfinished. */
static int lacks_look(struct lacks_call **out, const char *path, bool lfs, struct jp_error *err)
{
	size_t n = strlen(path) + 1;
	struct lacks_call *c = calloc(1, sizeof(*c) + n);
	int rc;

	*out = NULL;
	if (!c)
		return jp_error_oom(err);
	memcpy(c->path, path, n);
	c->lfs = lfs;
	snprintf(c->workdir, sizeof(c->workdir), "%s", path);
	if ((rc = jp_git_global_init(err)) != 0) {
		free(c);
		return rc;
	}
	rc = jp_probe_call_flat(lacks_run, c, offsetof(struct lacks_call, lfs), path,
				2 * jp_probe_default_timeout_ms(), NULL);
	if (rc == JP_ETIMEOUT) {
		c->rc = 0;
		c->unfinished = true;
		c->total = 0;
	} else if (rc < 0) {
		free(c);
		return jp_error_set(err, rc, "%s: %s", path, jp_strerror(rc));
	}
	if (c->rc < 0) {
		rc = c->rc;
		free(c);
		return jp_error_set(err, rc, "%s: %s", path, jp_strerror(rc));
	}
	*out = c;
	return 0;
}

int jp_git_lfs_check(struct jp_git_lfs_report *out, const char *path, struct jp_error *err)
{
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct lacks_call *c = NULL;
	int rc = lacks_look(&c, path, true, err);

	*out = r;
	if (rc < 0 || !c)
		return rc < 0 ? rc : JP_EINTERNAL;
	r.tracked = c->count;
	r.bytes = c->bytes;
	r.unnamed = c->unnamed;
	r.unfinished = c->unfinished;
	r.n = c->total;
	r.listed = r.n < NAMED ? r.n : NAMED;
	if (!(r.workdir = strdup(c->workdir)) || (r.listed && !(r.v = calloc(r.listed, sizeof(*r.v)))))
		goto nomem;
	for (size_t i = 0; i < r.listed; i++) {
		if (!(r.v[i].path = strdup(c->names[i])))
			goto nomem;
		r.v[i].size = c->sizes[i];
		r.v[i].named = c->named_lfs[i];
	}
	free(c);
	*out = r;
	return 0;
nomem:
	free(c);
	r.n = r.listed;
	jp_git_lfs_report_dispose(&r);
	return jp_error_oom(err);
}

int jp_git_submodules_check(struct jp_git_sm_report *out, const char *path,
			    struct jp_error *err)
{
	struct jp_git_sm_report r = JP_GIT_SM_REPORT_INIT;
	struct lacks_call *c = NULL;
	int rc = lacks_look(&c, path, false, err);

	*out = r;
	if (rc < 0 || !c)
		return rc < 0 ? rc : JP_EINTERNAL;
	r.declared = c->count;
	r.unfinished = c->unfinished;
	r.n_missing = c->total;
	rc = (r.workdir = strdup(c->workdir)) ? 0 : JP_ENOMEM;
	for (size_t i = 0; rc == 0 && i < c->total && i < NAMED; i++)
		rc = jp_strv_push(&r.missing, c->names[i]);
	free(c);
	if (rc < 0) {
		jp_git_sm_report_dispose(&r);
		return jp_error_oom(err);
	}
	*out = r;
	return 0;
}
