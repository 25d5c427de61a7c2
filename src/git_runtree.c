/* A run's code: a read-only tree of exactly one commit (plus the
 * uncommitted changes the prep included), made once per commit and digest
 * beside the project, PARENT/.jobprep-trees/NAME/COMMIT[+DIGEST], and never
 * changed after. It is written into a temporary beside it and renamed into
 * place, so a tree that is there is whole. A file whose blob and mode are
 * those of the tree made last is a hard link to that tree's file: the same
 * commit twice costs nothing, an unchanged file no second copy. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "fs_internal.h"
#include "git_internal.h"
#include "jobprep/i18n.h"
#include "runtree_internal.h"

#define PREFIX_LEN 16 /* of the digest, in the tree's name */

struct rt {
	struct jp_runtree *out;
	struct jp_error *err;
	const char *pattern;
	git_repository *repo;
	git_tree *tree, *prev_tree;
	char *base;      /* PARENT/.jobprep-trees/NAME */
	char *tmp;       /* the temporary being written */
	const char *src; /* the work tree the included changes come from */
	const struct jp_strv *changed; /* ... and their paths */
	char *prev;      /* the tree made last, NULL: none */
	struct jp_strv prev_changed;
	int rc;
	/* many writers at once (network storage, where each create, link and
	 * chmod is a round trip): the walk only lists what to write or link */
	bool parallel;
	bool look_changes; /* the checkout may have uncommitted changes */
	struct jp_git_pco_file *pco; /* blobs to write, paths owned */
	size_t n_pco, cap_pco;
	struct jp_strv links;        /* paths to link from the tree before */
	/* submodules not at the commit the tree records (not cloned, or at
	 * another): "PATH HEX" ("PATH -" when not cloned), digested too */
	struct jp_strv sm_state;
};

void jp_runtree_dispose(struct jp_runtree *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->checkout);
	jp_strv_dispose(&t->changed);
	*t = (struct jp_runtree)JP_RUNTREE_INIT;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool in_sorted(const struct jp_strv *v, const char *path)
{
	return v->n && bsearch(&path, v->v, v->n, sizeof(*v->v), cmp_str);
}

/* ---- the stamp -------------------------------------------------------------- */

static int read_stamp(char *commit, char *digest, struct jp_strv *changed, const char *dir)
{
	char *p = NULL, line[4200];
	FILE *f;
	int rc = -1;

	if (asprintf(&p, "%s/%s", dir, JP_RUNTREE_STAMP) < 0)
		return -1;
	f = fopen(p, "re");
	free(p);
	if (!f)
		return -1;
	commit[0] = digest[0] = '\0';
	if (fgets(line, sizeof(line), f) && strcmp(line, "jobprep-tree 1\n") == 0)
		rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "commit ", 7) == 0 && strlen(line + 7) == 40)
			memcpy(commit, line + 7, 41);
		else if (strncmp(line, "changes ", 8) == 0 && strlen(line + 8) <= 64)
			strcpy(digest, strcmp(line + 8, "-") ? line + 8 : "");
		else if (strncmp(line, "changed ", 8) == 0 && changed &&
			 jp_strv_push(changed, line + 8) < 0)
			rc = -1;
	}
	fclose(f);
	return rc == 0 && commit[0] ? 0 : -1;
}

int jp_runtree_stamp_read(char *commit, char *digest, const char *dir)
{
	return read_stamp(commit, digest, NULL, dir);
}

static int write_stamp(struct rt *t)
{
	char *p = NULL;
	FILE *f;
	int ok;

	if (asprintf(&p, "%s/%s", t->tmp, JP_RUNTREE_STAMP) < 0)
		return JP_ENOMEM;
	f = fopen(p, "wxe");
	free(p);
	if (!f)
		return jp_error_set(t->err, JP_EIO, _("%s: cannot write the run tree's stamp: %s"),
				    t->tmp, strerror(errno));
	fprintf(f, "jobprep-tree 1\ncommit %s\nchanges %s\n", t->out->commit,
		t->out->digest[0] ? t->out->digest : "-");
	for (size_t i = 0; i < t->out->changed.n; i++)
		fprintf(f, "changed %s\n", t->out->changed.v[i]);
	fchmod(fileno(f), 0444);
	ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (fclose(f) != 0 || !ok)
		return jp_error_set(t->err, JP_EIO, _("%s: cannot write the run tree's stamp: %s"),
				    t->tmp, strerror(errno));
	return 0;
}

/* ---- the changes included ------------------------------------------------- */

/* Only jobprep's own chmod +x of a file the exec pattern names. */
static bool exec_bit_only(git_repository *repo, const git_status_entry *e, const char *pattern)
{
	const git_diff_delta *d = e->index_to_workdir;
	git_oid oid;

	if (!d || e->status != GIT_STATUS_WT_MODIFIED || !*pattern ||
	    d->old_file.mode != GIT_FILEMODE_BLOB ||
	    d->new_file.mode != GIT_FILEMODE_BLOB_EXECUTABLE ||
	    fnmatch(pattern, d->new_file.path, FNM_PATHNAME) != 0 ||
	    git_repository_hashfile(&oid, repo, d->new_file.path, GIT_OBJECT_BLOB, NULL) != 0)
		return false;
	return git_oid_equal(&oid, &d->old_file.id);
}

static int push_delta(struct jp_strv *v, const git_diff_delta *d)
{
	if (!d)
		return 0;
	if (d->old_file.path && jp_strv_push(v, d->old_file.path) < 0)
		return JP_ENOMEM;
	if (d->new_file.path && (!d->old_file.path || strcmp(d->old_file.path, d->new_file.path)) &&
	    jp_strv_push(v, d->new_file.path) < 0)
		return JP_ENOMEM;
	return 0;
}

static int sm_cb(git_submodule *sm, const char *name, void *payload)
{
	struct rt *t = payload;
	const git_oid *wd = git_submodule_wd_id(sm), *want = git_submodule_head_id(sm);
	char hex[GIT_OID_HEXSZ + 1] = "-", *line = NULL;
	int rc = 0;

	(void)name;
	if (wd && want && git_oid_equal(wd, want))
		return 0;
	if (wd)
		git_oid_tostr(hex, sizeof(hex), wd);
	if (asprintf(&line, "%s %s", git_submodule_path(sm), hex) < 0 ||
	    jp_strv_push(&t->sm_state, line) < 0 ||
	    jp_strv_push(&t->out->changed, git_submodule_path(sm)) < 0)
		rc = -1;
	free(line);
	return rc;
}

/* The tracked paths whose content differs from HEAD, sorted, once each. */
static int changed_paths(struct rt *t)
{
	git_status_options so;
	git_status_list *st = NULL;
	struct jp_strv *v = &t->out->changed;
	int gerr, rc = 0;

	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_RENAMES_HEAD_TO_INDEX;
	if (!t->look_changes)
		; /* known clean: no look at every file (a round trip each on network storage) */
	else if ((gerr = git_status_list_new(&st, t->repo, &so)) != 0)
		return jp_error_set(t->err, JP_EGIT, _("%s: cannot list its changes: %s"),
				    t->out->checkout, git_error_last() ? git_error_last()->message : "?");
	for (size_t i = 0; rc == 0 && st && i < git_status_list_entrycount(st); i++) {
		const git_status_entry *e = git_status_byindex(st, i);

		if (!e || e->status == GIT_STATUS_CURRENT ||
		    (e->status & (GIT_STATUS_IGNORED | GIT_STATUS_WT_NEW)) == e->status ||
		    exec_bit_only(t->repo, e, t->pattern))
			continue;
		if ((rc = push_delta(v, e->head_to_index)) == 0)
			rc = push_delta(v, e->index_to_workdir);
	}
	git_status_list_free(st);
	/* a submodule's files come from its checkout: one not at the recorded
	 * commit is a change too */
	if (rc == 0 && git_submodule_foreach(t->repo, sm_cb, t) != 0 && t->sm_state.n == 0)
		git_error_clear();
	if (rc < 0)
		return jp_error_oom(t->err);
	if (v->n > 1)
		qsort(v->v, v->n, sizeof(*v->v), cmp_str);
	/* once each */
	size_t k = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (k && strcmp(v->v[k - 1], v->v[i]) == 0) {
			free(v->v[i]);
			continue;
		}
		v->v[k++] = v->v[i];
	}
	v->n = k;
	return 0;
}

/* SHA-256 of each changed path and what the work tree holds there. */
static int digest_changes(struct rt *t)
{
	const struct jp_strv *v = &t->out->changed;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE], buf[1 << 16];
	unsigned int len = 0;
	int rc = 0;

	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		rc = JP_ENOMEM;
	for (size_t i = 0; rc == 0 && i < v->n; i++) {
		char *p = NULL, kind = 'd';
		struct stat sb;
		ssize_t n;

		if (asprintf(&p, "%s/%s", t->out->checkout, v->v[i]) < 0) {
			rc = JP_ENOMEM;
			break;
		}
		if (lstat(p, &sb) == 0)
			kind = S_ISDIR(sb.st_mode)   ? 's' /* a submodule: its state below */
			       : S_ISLNK(sb.st_mode) ? 'l'
			       : (sb.st_mode & 0111) ? 'x'
						     : 'f';
		EVP_DigestUpdate(ctx, v->v[i], strlen(v->v[i]) + 1);
		EVP_DigestUpdate(ctx, &kind, 1);
		if (kind == 'l' && (n = readlink(p, (char *)buf, sizeof(buf))) >= 0) {
			EVP_DigestUpdate(ctx, buf, (size_t)n);
		} else if (kind == 'f' || kind == 'x') {
			int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

			while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
				EVP_DigestUpdate(ctx, buf, (size_t)n);
			if (fd >= 0)
				close(fd);
		}
		free(p);
	}
	for (size_t i = 0; rc == 0 && i < t->sm_state.n; i++)
		EVP_DigestUpdate(ctx, t->sm_state.v[i], strlen(t->sm_state.v[i]) + 1);
	if (rc == 0 && EVP_DigestFinal_ex(ctx, md, &len) == 1)
		for (unsigned i = 0; i < len && i < 32; i++)
			snprintf(t->out->digest + 2 * i, 3, "%02x", md[i]);
	EVP_MD_CTX_free(ctx);
	return rc < 0 ? jp_error_oom(t->err) : 0;
}

/* ---- writing the tree --------------------------------------------------------- */

static int io_fail(struct rt *t, const char *path)
{
	int e = errno;

	return jp_error_set(t->err, e == ENOSPC || e == EDQUOT ? JP_ENOSPC : JP_EIO,
			    _("%s: cannot write the run's copy of the code: %s"), path, strerror(e));
}

static int write_bytes(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A read-only file at dst holding data. */
static int put_file(struct rt *t, const char *dst, const void *data, size_t len, bool exec)
{
	int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return io_fail(t, dst);
	if (write_bytes(fd, data, len) < 0 || fchmod(fd, exec ? 0555 : 0444) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return io_fail(t, dst);
	}
	if (close(fd) != 0)
		return io_fail(t, dst);
	t->out->written += len;
	return 0;
}

/* The work tree's file at rel (an included change) copied to dst; nothing
 * when the change deletes it. */
static int copy_changed(struct rt *t, const char *rel, const char *dst)
{
	char *src = NULL, target[4096];
	struct stat sb;
	int rc = 0;

	if (asprintf(&src, "%s/%s", t->src, rel) < 0)
		return jp_error_oom(t->err);
	if (lstat(src, &sb) != 0) {
		free(src);
		return 0;
	}
	if (S_ISLNK(sb.st_mode)) {
		ssize_t n = readlink(src, target, sizeof(target) - 1);

		if (n < 0 || (target[n] = '\0', symlink(target, dst) != 0))
			rc = io_fail(t, dst);
	} else if (S_ISREG(sb.st_mode)) {
		int fd = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		char *data = fd >= 0 ? malloc(sb.st_size ? (size_t)sb.st_size : 1) : NULL;
		ssize_t got = data ? read(fd, data, (size_t)sb.st_size) : -1;

		if (got != (ssize_t)sb.st_size)
			rc = jp_error_set(t->err, JP_EIO, _("%s: cannot read it: %s"), src,
					  strerror(errno));
		else
			rc = put_file(t, dst, data, (size_t)got, sb.st_mode & 0100);
		free(data);
		if (fd >= 0)
			close(fd);
	}
	free(src);
	if (rc == 0)
		t->out->files++;
	return rc;
}

/* The same blob and mode at rel in the tree made last, and not one of its
 * included changes: a hard link to its file. */
static bool link_previous(struct rt *t, const char *rel, const git_tree_entry *e, const char *dst)
{
	git_tree_entry *pe = NULL;
	char *src = NULL;
	bool same, ok = false;

	if (!t->prev_tree || in_sorted(&t->prev_changed, rel) ||
	    git_tree_entry_bypath(&pe, t->prev_tree, rel) != 0) {
		git_error_clear();
		return false;
	}
	same = git_oid_equal(git_tree_entry_id(pe), git_tree_entry_id(e)) &&
	       git_tree_entry_filemode(pe) == git_tree_entry_filemode(e);
	git_tree_entry_free(pe);
	if (same && asprintf(&src, "%s/%s", t->prev, rel) >= 0) {
		ok = link(src, dst) == 0;
		free(src);
	}
	return ok;
}

/* An LFS pointer is what git stores; the checkout holds the content. */
static bool lfs_pointer(const void *data, size_t len)
{
	static const char head[] = "version https://git-lfs.github.com/spec/v1";

	return len > sizeof(head) && len < 1024 && memcmp(data, head, sizeof(head) - 1) == 0;
}

static int put_blob(struct rt *t, const char *rel, const git_tree_entry *e, const char *dst)
{
	git_blob *blob = NULL;
	git_filemode_t mode = git_tree_entry_filemode(e);
	const void *data;
	size_t len;
	int rc;

	if (git_blob_lookup(&blob, t->repo, git_tree_entry_id(e)) != 0)
		return jp_error_set(t->err, JP_EGIT, _("%s: cannot read %s from its objects: %s"),
				    t->out->checkout, rel,
				    git_error_last() ? git_error_last()->message : "?");
	data = git_blob_rawcontent(blob);
	len = (size_t)git_blob_rawsize(blob);
	if (mode == GIT_FILEMODE_LINK) {
		char *target = strndup(data, len);

		rc = !target ? jp_error_oom(t->err) : symlink(target, dst) != 0 ? io_fail(t, dst) : 0;
		free(target);
		t->out->files += rc == 0;
	} else if (lfs_pointer(data, len)) {
		rc = copy_changed(t, rel, dst);
	} else {
		rc = put_file(t, dst, data, len,
			      mode == GIT_FILEMODE_BLOB_EXECUTABLE ||
				  (*t->pattern && fnmatch(t->pattern, rel, FNM_PATHNAME) == 0));
		t->out->files += rc == 0;
	}
	git_blob_free(blob);
	return rc;
}

static int walk_cb(const char *root, const git_tree_entry *e, void *payload);

/* ---- many at once ------------------------------------------------------------ */

#define PAR_THREADS 16

struct par {
	struct rt *t;
	const char *const *paths;
	size_t n;
	atomic_size_t next;
	bool link;          /* link from the tree before; else chmod read-only */
	unsigned char *ok;  /* per path */
};

static void *par_worker(void *arg)
{
	struct par *p = arg;
	char src[4096], dst[4096];
	size_t i;
	struct stat sb;

	while ((i = atomic_fetch_add(&p->next, 1)) < p->n) {
		snprintf(dst, sizeof(dst), "%s/%s", p->t->tmp, p->paths[i]);
		if (p->link) {
			snprintf(src, sizeof(src), "%s/%s", p->t->prev, p->paths[i]);
			p->ok[i] = link(src, dst) == 0;
		} else if (lstat(dst, &sb) == 0 && S_ISREG(sb.st_mode)) {
			p->ok[i] = chmod(dst, sb.st_mode & 0555) == 0;
		}
	}
	return NULL;
}

/* link (or chmod) each of paths with PAR_THREADS threads; ok[i] says
 * which worked. */
static void par_run(struct rt *t, const char *const *paths, size_t n, bool link_them,
		    unsigned char *ok)
{
	pthread_t th[PAR_THREADS];
	struct par p = { t, paths, n, 0, link_them, ok };
	int started = 0;

	for (int k = 0; k < PAR_THREADS && (size_t)k < n; k++)
		if (pthread_create(&th[started], NULL, par_worker, &p) == 0)
			started++;
	if (!started)
		par_worker(&p);
	for (int k = 0; k < started; k++)
		pthread_join(th[k], NULL);
}

static int push_pco(struct rt *t, const char *rel, const git_tree_entry *e)
{
	struct jp_git_pco_file *f;

	if (t->n_pco == t->cap_pco) {
		size_t cap = t->cap_pco ? 2 * t->cap_pco : 1024;
		void *grown = realloc(t->pco, cap * sizeof(*t->pco));

		if (!grown)
			return jp_error_oom(t->err);
		t->pco = grown;
		t->cap_pco = cap;
	}
	f = &t->pco[t->n_pco];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(rel)))
		return jp_error_oom(t->err);
	git_oid_cpy(&f->id, git_tree_entry_id(e));
	f->mode = git_tree_entry_filemode(e);
	f->exec = f->mode == GIT_FILEMODE_BLOB &&
		  *t->pattern && fnmatch(t->pattern, rel, FNM_PATHNAME) == 0;
	f->is_new = true;
	t->n_pco++;
	return 0;
}

/* A blob the tree before has too (same id and mode), not one of its
 * included changes. */
static bool in_previous(struct rt *t, const char *rel, const git_tree_entry *e)
{
	git_tree_entry *pe = NULL;
	bool same;

	if (!t->prev_tree || in_sorted(&t->prev_changed, rel) ||
	    git_tree_entry_bypath(&pe, t->prev_tree, rel) != 0) {
		git_error_clear();
		return false;
	}
	same = git_oid_equal(git_tree_entry_id(pe), git_tree_entry_id(e)) &&
	       git_tree_entry_filemode(pe) == git_tree_entry_filemode(e);
	git_tree_entry_free(pe);
	return same;
}

/* What the walk listed: the links first (those that fail are written),
 * then the blobs by the parallel writer, then every file read-only. */
static int write_listed(struct rt *t)
{
	struct jp_git_op op;
	unsigned char *ok = calloc(t->links.n + 1, 1);
	const char **all = NULL;
	int rc = 0;

	if (!ok)
		return jp_error_oom(t->err);
	par_run(t, (const char *const *)t->links.v, t->links.n, true, ok);
	for (size_t i = 0; rc == 0 && i < t->links.n; i++) {
		git_tree_entry *e = NULL;

		if (ok[i]) {
			t->out->files++, t->out->linked++;
			continue;
		}
		if (git_tree_entry_bypath(&e, t->tree, t->links.v[i]) != 0)
			rc = jp_error_set(t->err, JP_EGIT, _("%s: cannot read its tree"), t->out->checkout);
		else
			rc = push_pco(t, t->links.v[i], e);
		git_tree_entry_free(e);
	}
	free(ok);
	jp_git_op_init(&op, NULL);
	if (rc == 0 && t->n_pco)
		rc = jp_git_pcheckout(t->repo, t->tmp, t->pco, t->n_pco, 0, false, &op, t->err);
	if (rc != 0)
		return rc;
	for (size_t i = 0; i < t->n_pco; i++) {
		t->out->files++;
		t->out->written += (uint64_t)t->pco[i].st.st_size;
	}
	if (!(all = calloc(t->n_pco + 1, sizeof(*all))) || !(ok = calloc(t->n_pco + 1, 1))) {
		free(all);
		return jp_error_oom(t->err);
	}
	for (size_t i = 0; i < t->n_pco; i++)
		all[i] = t->pco[i].path;
	par_run(t, all, t->n_pco, false, ok);
	free(all);
	free(ok);
	return 0;
}

/* A submodule: the files of the commit its own checkout is at (a clone's
 * folder of it holds them too); an empty folder when it is not cloned. */
static int put_submodule(struct rt *t, const char *rel, char *dst)
{
	struct rt sub = *t;
	struct jp_strv none = { NULL, 0 };
	git_reference *head = NULL;
	git_commit *c = NULL;
	char *src = NULL;
	int rc = 0;

	if (asprintf(&src, "%s/%s", t->src, rel) < 0)
		return jp_error_oom(t->err);
	sub.repo = NULL;
	sub.tree = sub.prev_tree = NULL;
	sub.src = src;
	sub.tmp = dst;
	sub.changed = &none;
	sub.rc = 0;
	if (git_repository_open_ext(&sub.repo, src, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0 &&
	    git_repository_head(&head, sub.repo) == 0 &&
	    git_reference_peel((git_object **)&c, head, GIT_OBJECT_COMMIT) == 0 &&
	    git_commit_tree(&sub.tree, c) == 0 &&
	    git_tree_walk(sub.tree, GIT_TREEWALK_PRE, walk_cb, &sub) != 0)
		rc = sub.rc < 0 ? sub.rc
				: jp_error_set(t->err, JP_EGIT, _("%s: cannot read its tree"), src);
	git_error_clear();
	git_tree_free(sub.tree);
	git_commit_free(c);
	git_reference_free(head);
	git_repository_free(sub.repo);
	free(src);
	return rc;
}

static int walk_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct rt *t = payload;
	char *rel = NULL, *dst = NULL;
	int rc = 0;

	if (asprintf(&rel, "%s%s", root, git_tree_entry_name(e)) < 0 ||
	    asprintf(&dst, "%s/%s", t->tmp, rel) < 0) {
		free(rel);
		t->rc = jp_error_oom(t->err);
		return -1;
	}
	switch (git_tree_entry_type(e)) {
	case GIT_OBJECT_TREE:
		if (mkdir(dst, 0755) != 0)
			rc = io_fail(t, dst);
		break;
	case GIT_OBJECT_COMMIT:
		rc = mkdir(dst, 0755) != 0 ? io_fail(t, dst) : put_submodule(t, rel, dst);
		break;
	case GIT_OBJECT_BLOB:
		if (in_sorted(t->changed, rel))
			rc = copy_changed(t, rel, dst);
		else if (t->parallel && in_previous(t, rel, e))
			rc = jp_strv_push(&t->links, rel) < 0 ? jp_error_oom(t->err) : 0;
		else if (t->parallel)
			rc = push_pco(t, rel, e);
		else if (link_previous(t, rel, e, dst))
			t->out->files++, t->out->linked++;
		else
			rc = put_blob(t, rel, e, dst);
		break;
	default:
		break;
	}
	free(rel);
	free(dst);
	if (rc < 0) {
		t->rc = rc;
		return -1;
	}
	return 0;
}

/* The included changes HEAD's tree lacks (a staged new file). */
static int add_new_changes(struct rt *t)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < t->out->changed.n; i++) {
		const char *rel = t->out->changed.v[i];
		git_tree_entry *e = NULL;
		char *dst = NULL;
		struct jp_strv made = { NULL, 0 };

		if (git_tree_entry_bypath(&e, t->tree, rel) == 0) {
			git_tree_entry_free(e);
			continue;
		}
		git_error_clear();
		if (asprintf(&dst, "%s/%s", t->tmp, rel) < 0)
			return jp_error_oom(t->err);
		char *slash = strrchr(dst, '/');
		*slash = '\0';
		rc = jp_fs_mkdir_p(&made, dst, 0755, t->err);
		*slash = '/';
		jp_strv_dispose(&made);
		if (rc == 0)
			rc = copy_changed(t, rel, dst);
		free(dst);
	}
	return rc;
}

/* ---- what git does not track ---------------------------------------------- */

/* Untracked and ignored files and folders of the checkout (data a script
 * made, a generated train.bin, outputs) are no code: the run's tree
 * reaches them through a symbolic link to the checkout's, made where the
 * tree has nothing (also in a tree made before, for files made since).
 * One listing of each of the tree's folders in the checkout, no look at
 * each file (on network storage each is a round trip). */
struct untracked {
	struct rt *t;
	const char *dir;
	int rc;
};

static void link_missing_in(struct untracked *u, const char *folder)
{
	struct rt *t = u->t;
	char *src_dir = NULL;
	DIR *d;
	struct dirent *de;

	if (asprintf(&src_dir, "%s/%s", t->out->checkout, folder) < 0) {
		u->rc = jp_error_oom(t->err);
		return;
	}
	d = opendir(src_dir);
	while (d && u->rc == 0 && (de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		char *rel = NULL, *src = NULL, *dst = NULL;
		git_tree_entry *e = NULL;
		struct stat sb;

		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
		    (!*folder && (strcmp(n, ".git") == 0 || strcmp(n, JP_RUNTREE_STAMP) == 0)))
			continue;
		if (asprintf(&rel, "%s%s", folder, n) < 0) {
			u->rc = jp_error_oom(t->err);
			break;
		}
		if (git_tree_entry_bypath(&e, t->tree, rel) == 0) {
			git_tree_entry_free(e);
		} else if (asprintf(&src, "%s/%s", t->out->checkout, rel) >= 0 &&
			   asprintf(&dst, "%s/%s", u->dir, rel) >= 0 && lstat(dst, &sb) != 0 &&
			   errno == ENOENT && symlink(src, dst) == 0) {
			t->out->untracked++;
		}
		git_error_clear();
		free(rel);
		free(src);
		free(dst);
	}
	if (d)
		closedir(d);
	free(src_dir);
}

static int untracked_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct untracked *u = payload;
	char *folder = NULL;

	if (git_tree_entry_type(e) != GIT_OBJECT_TREE)
		return git_tree_entry_type(e) == GIT_OBJECT_COMMIT ? 1 : 0;
	if (asprintf(&folder, "%s%s/", root, git_tree_entry_name(e)) < 0) {
		u->rc = jp_error_oom(u->t->err);
		return -1;
	}
	link_missing_in(u, folder);
	free(folder);
	return u->rc < 0 ? -1 : 0;
}

static int link_untracked(struct rt *t, const char *dir)
{
	struct untracked u = { t, dir, 0 };

	link_missing_in(&u, "");
	if (u.rc == 0)
		git_tree_walk(t->tree, GIT_TREEWALK_PRE, untracked_cb, &u);
	git_error_clear();
	return u.rc;
}

/* ---- the tree made last ----------------------------------------------------- */

/* The newest of the trees beside (by its stamp's time), to link from. */
static void find_previous(struct rt *t)
{
	DIR *d = opendir(t->base);
	struct dirent *de;
	struct timespec best = { 0, 0 };
	char commit[41], digest[65];
	git_oid oid;
	git_commit *c = NULL;

	while (d && (de = readdir(d)) != NULL) {
		char *p = NULL;
		struct stat sb;

		if (de->d_name[0] == '.' ||
		    asprintf(&p, "%s/%s/%s", t->base, de->d_name, JP_RUNTREE_STAMP) < 0)
			continue;
		if (stat(p, &sb) == 0 && (sb.st_mtim.tv_sec > best.tv_sec ||
					  (sb.st_mtim.tv_sec == best.tv_sec &&
					   sb.st_mtim.tv_nsec > best.tv_nsec))) {
			best = sb.st_mtim;
			free(t->prev);
			t->prev = NULL;
			if (asprintf(&t->prev, "%s/%s", t->base, de->d_name) < 0)
				t->prev = NULL;
		}
		free(p);
	}
	if (d)
		closedir(d);
	if (!t->prev || read_stamp(commit, digest, &t->prev_changed, t->prev) < 0 ||
	    git_oid_fromstr(&oid, commit) != 0 || git_commit_lookup(&c, t->repo, &oid) != 0 ||
	    git_commit_tree(&t->prev_tree, c) != 0) {
		t->prev_tree = NULL;
		git_error_clear();
	}
	git_commit_free(c);
	if (t->prev_changed.n > 1)
		qsort(t->prev_changed.v, t->prev_changed.n, sizeof(char *), cmp_str);
}

/* ---- the whole ---------------------------------------------------------------- */

static int open_head(struct rt *t)
{
	git_reference *head = NULL;
	git_commit *c = NULL;
	int gerr;

	if (git_repository_open_ext(&t->repo, t->out->checkout, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) != 0) {
		git_error_clear();
		return jp_error_set(t->err, JP_ENOENT, _("%s is not a git checkout"),
				    t->out->checkout);
	}
	if ((gerr = git_repository_head(&head, t->repo)) != 0 ||
	    (gerr = git_reference_peel((git_object **)&c, head, GIT_OBJECT_COMMIT)) != 0 ||
	    (gerr = git_commit_tree(&t->tree, c)) != 0) {
		git_reference_free(head);
		git_commit_free(c);
		git_error_clear();
		return jp_error_set(t->err, JP_ENOENT, _("%s: no commit to take the code from"),
				    t->out->checkout);
	}
	git_oid_tostr(t->out->commit, sizeof(t->out->commit), git_commit_id(c));
	git_reference_free(head);
	git_commit_free(c);
	return 0;
}

/* PARENT/.jobprep-trees/NAME and the tree's own path under it. */
static int place(struct rt *t)
{
	const char *co = t->out->checkout;
	const char *slash = strrchr(co, '/');
	struct jp_strv made = { NULL, 0 };
	int rc;

	if (!slash || !slash[1])
		return jp_error_set(t->err, JP_EUSAGE, _("%s: not a project folder"), co);
	if (asprintf(&t->base, "%.*s/%s/%s", (int)(slash - co), co, JP_RUNTREE_DIR, slash + 1) < 0)
		return jp_error_oom(t->err);
	if (t->out->digest[0]
		? asprintf(&t->out->path, "%s/%s+%.*s", t->base, t->out->commit, PREFIX_LEN,
			   t->out->digest) < 0
		: asprintf(&t->out->path, "%s/%s", t->base, t->out->commit) < 0) {
		t->out->path = NULL;
		return jp_error_oom(t->err);
	}
	rc = jp_fs_mkdir_p(&made, t->base, 0755, t->err);
	jp_strv_dispose(&made);
	return rc;
}

/* Already made, and whole: the same commit and changes. */
static bool made_already(const struct jp_runtree *o)
{
	char commit[41], digest[65];

	return read_stamp(commit, digest, NULL, o->path) == 0 && strcmp(commit, o->commit) == 0 &&
	       strcmp(digest, o->digest) == 0;
}

/* A .gitmodules at the top: its submodules' files come from their own
 * checkouts. */
static bool has_submodules(struct rt *t)
{
	git_tree_entry *e = NULL;
	bool has = git_tree_entry_bypath(&e, t->tree, ".gitmodules") == 0;

	git_tree_entry_free(e);
	git_error_clear();
	return has;
}

static int build(struct rt *t)
{
	int rc, dfd;

	if (asprintf(&t->tmp, "%s/.tmp-%s-%ld", t->base, t->out->commit, (long)getpid()) < 0) {
		t->tmp = NULL;
		return jp_error_oom(t->err);
	}
	jp_fs_rm_rf(t->tmp);
	if (mkdir(t->tmp, 0755) != 0)
		return io_fail(t, t->tmp);
	find_previous(t);
	/* submodules and filters (an LFS pointer, autocrlf) need the one by one
	 * writer, which reads what the checkout holds */
	t->parallel = t->parallel && jp_git_plain_tree(t->repo, t->tree) && !has_submodules(t);
	if (git_tree_walk(t->tree, GIT_TREEWALK_PRE, walk_cb, t) != 0)
		return t->rc < 0 ? t->rc
				 : jp_error_set(t->err, JP_EGIT, _("%s: cannot read its tree"),
						t->out->checkout);
	if (t->parallel && (rc = write_listed(t)) != 0)
		return rc;
	if ((rc = add_new_changes(t)) != 0 || (rc = write_stamp(t)) != 0)
		return rc;
	/* one flush of the filesystem, not one per file */
	if ((dfd = open(t->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		syncfs(dfd);
		close(dfd);
	}
	if (rename(t->tmp, t->out->path) == 0)
		return 0;
	if ((errno == EEXIST || errno == ENOTEMPTY) && made_already(t->out)) {
		/* another prep made the same one meanwhile */
		t->out->reused = true;
		return 0;
	}
	return io_fail(t, t->out->path);
}

int jp_runtree_make(struct jp_runtree *out, const char *checkout, bool changes,
		    const char *exec_pattern, bool parallel, struct jp_error *err)
{
	struct rt t;
	int rc;

	memset(&t, 0, sizeof(t));
	*out = (struct jp_runtree)JP_RUNTREE_INIT;
	t.out = out;
	t.err = err;
	t.pattern = exec_pattern ? exec_pattern : JP_GIT_EXEC_DEFAULT;
	t.changed = &out->changed;
	t.parallel = parallel;
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;
	if (!(out->checkout = strdup(checkout)))
		return jp_error_oom(err);
	t.src = out->checkout;
	t.look_changes = changes;
	if ((rc = open_head(&t)) != 0 || (rc = changed_paths(&t)) != 0 ||
	    (out->changed.n && (rc = digest_changes(&t)) != 0) || (rc = place(&t)) != 0)
		goto out;
	if (made_already(out)) {
		out->reused = true;
		rc = link_untracked(&t, out->path);
		goto out;
	}
	rc = build(&t);
	if (rc == 0)
		rc = link_untracked(&t, out->path);
out:
	if (t.tmp && (rc != 0 || out->reused))
		jp_fs_rm_rf(t.tmp);
	free(t.tmp);
	free(t.base);
	free(t.prev);
	jp_strv_dispose(&t.prev_changed);
	jp_strv_dispose(&t.links);
	jp_strv_dispose(&t.sm_state);
	for (size_t i = 0; i < t.n_pco; i++)
		free((char *)t.pco[i].path);
	free(t.pco);
	git_tree_free(t.prev_tree);
	git_tree_free(t.tree);
	git_repository_free(t.repo);
	return rc;
}
