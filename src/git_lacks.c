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
#include "helper_internal.h"
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

/* The state of each of paths[0..n) under root, looked at here. */
static void look_here(unsigned char *state, enum look_kind kind, const char *root,
		      char *const *paths, size_t n)
{
	char full[8192];

	for (size_t i = 0; i < n; i++) {
		snprintf(full, sizeof(full), "%s/%s", root, paths[i]);
		state[i] = kind == LOOK_POINTER ? look_pointer(full) : look_cloned(full);
	}
}

/* inputs: the kind, the root, the number of paths and each path; answer:
 * one state byte a path */
static void look_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	char *root = probe_bytes_get_str(in), *paths[LOOK_BATCH] = { NULL };
	unsigned char state[LOOK_BATCH];
	uint32_t kind = 0, n = 0;

	probe_bytes_get(in, &kind, sizeof(kind));
	probe_bytes_get(in, &n, sizeof(n));
	if (n > LOOK_BATCH || !root)
		in->bad = true;
	for (size_t i = 0; i < n && !in->bad; i++)
		if (!(paths[i] = probe_bytes_get_str(in)))
			in->bad = true;
	if (!in->bad) {
		look_here(state, kind == LOOK_POINTER ? LOOK_POINTER : LOOK_CLONED, root, paths, n);
		probe_bytes_put(out, state, n);
	}
	for (size_t i = 0; i < LOOK_BATCH; i++)
		free(paths[i]);
	free(root);
}
JP_HELPER_REQUEST(git_look, look_serve, JP_HELPER_LOOK);

/* One batch of paths (n <= LOOK_BATCH) in a helper process: its states into
 * state; JP_ETIMEOUT when it did not answer (or its root's mount is known
 * hung), or gave no answer of the right size. */
static int look_batch(unsigned char *state, enum look_kind kind, const char *root,
		      char *const *paths, size_t n)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	uint32_t kind32 = kind, n32 = (uint32_t)n;
	unsigned char got[LOOK_BATCH];
	int rc = JP_ETIMEOUT;

	probe_bytes_put_str(&in, root);
	probe_bytes_put(&in, &kind32, sizeof(kind32));
	probe_bytes_put(&in, &n32, sizeof(n32));
	for (size_t i = 0; i < n; i++)
		probe_bytes_put_str(&in, paths[i]);
	if (!in.bad && jp_helper_call(&ans, &jp_req_git_look, &in, root, 0, NULL) == 0) {
		probe_bytes_get(&ans, got, n);
		if (!ans.bad && ans.off == ans.n) {
			memcpy(state, got, n);
			rc = 0;
		}
	}
	free(in.p);
	free(ans.p);
	return rc;
}

/* state[i] for each of paths[0..n) under root, each batch in a bounded
 * call (direct: here, inside a look already bounded as a whole);
 * JP_ETIMEOUT when a batch did not answer (the rest then unlooked:
 * STATE_GONE). */
static int look_all(unsigned char *state, enum look_kind kind, const char *root,
		    char *const *paths, size_t n, bool direct)
{
	memset(state, STATE_GONE, n);
	for (size_t off = 0; off < n; off += LOOK_BATCH) {
		size_t k = n - off < LOOK_BATCH ? n - off : LOOK_BATCH;

		if (direct)
			look_here(state + off, kind, root, paths + off, k);
		else if (look_batch(state + off, kind, root, paths + off, k) != 0)
			return JP_ETIMEOUT;
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

/* A look's answer, as it comes back from the helper: LFS: count tracked,
 * total pointers; submodules: count declared, total missing; the first
 * `listed` (at most NAMED) of those named. */
struct lacks_answer {
	int rc;
	bool unfinished;
	uint64_t count, total, bytes, listed;
	uint64_t unnamed; /* LFS: pointers no attribute names */
	char *workdir;
	char *names[NAMED];
	uint64_t sizes[NAMED];
	bool named_lfs[NAMED]; /* LFS: an attribute names it */
};

static void lacks_answer_dispose(struct lacks_answer *a)
{
	free(a->workdir);
	for (size_t i = 0; i < NAMED; i++)
		free(a->names[i]);
	memset(a, 0, sizeof(*a));
}

/* The answer's fields, listed once for both sides (probe_bytes_field): the
 * numbers, workdir (the path, where the look found none) and the first
 * names; read back, its strings are the caller's. false when the bytes
 * are short. */
static bool lacks_wire(struct probe_bytes *b, struct lacks_answer *a)
{
	PROBE_FIELD(b, a->rc);
	PROBE_FIELD(b, a->unfinished);
	PROBE_FIELD(b, a->count);
	PROBE_FIELD(b, a->total);
	PROBE_FIELD(b, a->bytes);
	PROBE_FIELD(b, a->unnamed);
	probe_bytes_field_str(b, &a->workdir);
	PROBE_FIELD(b, a->listed);
	if (a->listed > NAMED || a->listed > a->total)
		b->bad = true;
	for (size_t i = 0; i < a->listed && !b->bad; i++) {
		probe_bytes_field_str(b, &a->names[i]);
		if (!a->names[i])
			b->bad = true;
		PROBE_FIELD(b, a->sizes[i]);
		PROBE_FIELD(b, a->named_lfs[i]);
	}
	return !b->bad && a->workdir;
}

/* In the helper: a report's figures as the answer (its strings borrowed,
 * not to be disposed). */
static void lfs_answer(struct lacks_answer *a, int rc, const struct jp_git_lfs_report *l,
		       char *path)
{
	*a = (struct lacks_answer){.rc = rc, .unfinished = l->unfinished, .count = l->tracked,
				   .total = l->n, .bytes = l->bytes, .unnamed = l->unnamed,
				   .workdir = l->workdir ? l->workdir : path};
	a->listed = l->n < NAMED ? l->n : NAMED;
	for (size_t i = 0; i < a->listed; i++) {
		a->names[i] = l->v[i].path;
		a->sizes[i] = l->v[i].size;
		a->named_lfs[i] = l->v[i].named;
	}
}

static void sm_answer(struct lacks_answer *a, int rc, const struct jp_git_sm_report *s, char *path)
{
	*a = (struct lacks_answer){.rc = rc, .unfinished = s->unfinished, .count = s->declared,
				   .total = s->missing.n, .workdir = s->workdir ? s->workdir : path};
	a->listed = s->missing.n < NAMED ? s->missing.n : NAMED;
	for (size_t i = 0; i < a->listed; i++)
		a->names[i] = s->missing.v[i];
}

/* inputs: the path, which look (LFS or submodules); answer: lacks_wire's */
static void lacks_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_git_lfs_report l = JP_GIT_LFS_REPORT_INIT;
	struct jp_git_sm_report s = JP_GIT_SM_REPORT_INIT;
	struct lacks_answer a;
	char *path = probe_bytes_get_str(in);
	bool lfs = false;

	probe_bytes_get(in, &lfs, sizeof(lfs));
	if (in->bad || !path) {
		out->bad = true; /* the caller's "the look at it failed" */
	} else {
		if (lfs)
			lfs_answer(&a, lfs_find(&l, path, true, NULL), &l, path);
		else
			sm_answer(&a, sm_find(&s, path, true, NULL), &s, path);
		lacks_wire(out, &a);
	}
	jp_git_lfs_report_dispose(&l);
	jp_git_sm_report_dispose(&s);
	free(path);
}
JP_HELPER_REQUEST(git_lacks, lacks_serve, JP_HELPER_LONG_LOOK);

/* Run the look in a helper process, bounded as a whole: twice the probe
 * timeout (it reads git's index and objects, then the few files that
 * matter). A look that did not answer, or whose mount is known hung, is
 * unfinished. */
static int lacks_look(struct lacks_answer *a, const char *path, bool lfs, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	int rc;

	memset(a, 0, sizeof(*a));
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;
	probe_bytes_put_str(&in, path);
	probe_bytes_put(&in, &lfs, sizeof(lfs));
	rc = in.bad ? JP_ENOMEM : jp_helper_call(&ans, &jp_req_git_lacks, &in, path, 0, NULL);
	if (rc == JP_ETIMEOUT) {
		a->unfinished = true;
		rc = (a->workdir = strdup(path)) ? 0 : JP_ENOMEM;
	} else if (rc == 0 && !lacks_wire(&ans, a)) {
		rc = JP_EINTERNAL;
	} else if (rc == 0 && a->rc < 0) {
		rc = a->rc;
	}
	if (rc < 0) {
		lacks_answer_dispose(a);
		jp_error_set(err, rc, "%s: %s", path, jp_strerror(rc));
	}
	free(in.p);
	free(ans.p);
	return rc;
}

int jp_git_lfs_check(struct jp_git_lfs_report *out, const char *path, struct jp_error *err)
{
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT;
	struct lacks_answer a;
	int rc = lacks_look(&a, path, true, err);

	*out = r;
	if (rc < 0)
		return rc;
	r.tracked = a.count;
	r.bytes = a.bytes;
	r.unnamed = a.unnamed;
	r.unfinished = a.unfinished;
	r.n = a.total;
	r.listed = a.listed;
	r.workdir = a.workdir;
	a.workdir = NULL;
	if (r.listed && !(r.v = calloc(r.listed, sizeof(*r.v)))) {
		r.listed = 0;
		rc = jp_error_oom(err);
	}
	for (size_t i = 0; rc == 0 && i < r.listed; i++) {
		r.v[i].path = a.names[i];
		a.names[i] = NULL;
		r.v[i].size = a.sizes[i];
		r.v[i].named = a.named_lfs[i];
	}
	lacks_answer_dispose(&a);
	if (rc < 0)
		jp_git_lfs_report_dispose(&r);
	else
		*out = r;
	return rc;
}

int jp_git_submodules_check(struct jp_git_sm_report *out, const char *path,
			    struct jp_error *err)
{
	struct jp_git_sm_report r = JP_GIT_SM_REPORT_INIT;
	struct lacks_answer a;
	int rc = lacks_look(&a, path, false, err);

	*out = r;
	if (rc < 0)
		return rc;
	r.declared = a.count;
	r.unfinished = a.unfinished;
	r.n_missing = a.total;
	r.workdir = a.workdir;
	a.workdir = NULL;
	for (size_t i = 0; rc == 0 && i < a.listed; i++)
		if (jp_strv_push(&r.missing, a.names[i]) != 0)
			rc = jp_error_oom(err);
	lacks_answer_dispose(&a);
	if (rc < 0)
		jp_git_sm_report_dispose(&r);
	else
		*out = r;
	return rc;
}
