/* Staging a clone onto shared storage: a clone built on local scratch
 * disk goes onto network storage while it is being built. The objects
 * (almost all the bytes: the pack) are copied on a thread of their own as
 * soon as the fetch is done, the work tree's files as the checkout writes
 * them, the rest of .git once the ref is resolved; at the end what is left
 * is copied and the copied index gets the copies' stat data. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "treecopy.h"
#include "git_internal.h"
#include "error_internal.h"

#define OBJECTS_THREADS 4
#define STREAM_THREADS 12

static int copied_cmp(const void *a, const void *b)
{
	return strcmp(((const struct jp_treecopy_file *)a)->path,
		      ((const struct jp_treecopy_file *)b)->path);
}

static int stage_progress(const struct jp_progress *p, void *payload)
{
	struct jp_git_stage *st = payload;

	(void)p;
	return atomic_load(&st->stop) ? -1 : 0;
}

static void *stage_run(void *arg)
{
	struct jp_git_stage *st = arg;
	struct jp_treecopy_options to = JP_TREECOPY_OPTIONS_INIT;
	struct jp_port port = JP_PORT_INIT;
	char src[PATH_MAX], dst[PATH_MAX];
	struct stat sb;

	port.progress = stage_progress;
	port.payload = st;
	to.threads = OBJECTS_THREADS;
	/* The tree and its .git first, with their own modes. */
	if (stat(st->src, &sb) != 0 ||
	    (mkdir(st->dst, (sb.st_mode & 07777) | S_IRWXU) != 0 && errno != EEXIST)) {
		st->rc = jp_error_set(&st->err, errno == ENOSPC ? JP_ENOSPC : JP_EIO, "%s: %s",
				      st->dst, strerror(errno));
		return NULL;
	}
	snprintf(src, sizeof(src), "%s/.git", st->src);
	snprintf(dst, sizeof(dst), "%s/.git", st->dst);
	if (stat(src, &sb) != 0 || mkdir(dst, (sb.st_mode & 07777) | S_IRWXU) != 0) {
		st->rc = jp_error_set(&st->err, errno == ENOSPC ? JP_ENOSPC : JP_EIO, "%s: %s", dst,
				      strerror(errno));
		return NULL;
	}
	snprintf(src, sizeof(src), "%s/.git/objects", st->src);
	snprintf(dst, sizeof(dst), "%s/.git/objects", st->dst);
	st->rc = jp_treecopy(NULL, src, dst, &to, &port, &st->err);
	if (st->rc != 0)
		return NULL;
	/* The rest of .git is final too, once the ref is resolved, but for
	 * what the checkout, the submodules and the scrubbing still write. */
	{
		static const char *const mutable[] = { "objects", "index", "config", "modules",
						       NULL };

		snprintf(src, sizeof(src), "%s/.git", st->src);
		snprintf(dst, sizeof(dst), "%s/.git", st->dst);
		to.skip = mutable;
		to.skip_suffix = ".lock"; /* the checkout's, in flight */
		to.dst_exists = true;
		to.record_stats = true;
		st->rc = jp_treecopy(&st->git_done, src, dst, &to, &port, &st->err);
	}
	return NULL;
}

/* a's and b's paths (b's under prefix) in one sorted list, stats kept. */
static int combine_done(struct jp_treecopy_result *out, const struct jp_treecopy_result *a,
			const struct jp_treecopy_result *b, const char *prefix)
{
	size_t n = a->n_copied + b->n_copied, k = 0;

	*out = (struct jp_treecopy_result)JP_TREECOPY_RESULT_INIT;
	if (!(out->copied = calloc(n + 1, sizeof(*out->copied))))
		return JP_ENOMEM;
	for (size_t i = 0; i < a->n_copied; i++, k++) {
		out->copied[k].st = a->copied[i].st;
		if (!(out->copied[k].path = strdup(a->copied[i].path)))
			goto nomem;
	}
	for (size_t i = 0; i < b->n_copied; i++, k++) {
		out->copied[k].st = b->copied[i].st;
		if (asprintf(&out->copied[k].path, "%s/%s", prefix, b->copied[i].path) < 0) {
			out->copied[k].path = NULL;
			goto nomem;
		}
	}
	out->n_copied = k;
	if (k > 1)
		qsort(out->copied, k, sizeof(*out->copied), copied_cmp);
	return 0;
nomem:
	out->n_copied = k;
	jp_treecopy_result_dispose(out);
	return JP_ENOMEM;
}

int jp_git_stage_start(struct jp_git_stage *st, struct jp_error *err)
{
	int rc;

	if ((rc = jp_treecopy_stream_start(&st->stream, st->src, st->dst, STREAM_THREADS, err)) != 0)
		return rc;
	if (pthread_create(&st->tid, NULL, stage_run, st) != 0)
		return jp_error_set(err, JP_EINTERNAL, "%s", _("cannot start a thread"));
	st->started = true;
	return 0;
}

void jp_git_stage_file(void *ctx, const char *path)
{
	struct jp_git_stage *st = ctx;

	if (st->stream && jp_treecopy_stream_add(st->stream, path) != 0)
		st->stream_failed = true;
}

int jp_git_stage_join(struct jp_git_stage *st, bool stop, struct jp_treecopy_result *streamed,
		      struct jp_error *err)
{
	int rc = 0;

	if (st->stream) {
		if (stop) {
			jp_treecopy_stream_abort(st->stream);
		} else {
			rc = jp_treecopy_stream_finish(st->stream, streamed, err);
			if (rc == 0 && st->stream_failed)
				rc = jp_error_oom(err);
		}
		st->stream = NULL;
	}
	if (!st->started)
		return rc;
	if (stop)
		atomic_store(&st->stop, true);
	pthread_join(st->tid, NULL);
	st->started = false;
	if (rc != 0)
		return rc;
	if (st->rc != 0 && !stop) {
		for (size_t i = 0; i < st->err.n; i++)
			jp_error_set(err, st->rc, "%s", st->err.msgs[i]);
		if (st->err.n == 0)
			jp_error_set(err, st->rc, "%s", jp_strerror(st->rc));
	}
	return stop ? 0 : st->rc;
}

static int by_path(const void *key, const void *elem)
{
	return strcmp(key, ((const struct jp_treecopy_file *)elem)->path);
}

/* Give the copied index the stat data of the copied files, so the first
 * `git status` on shared storage does not re-read every file; then date the
 * index after them so none of them looks "racily clean". */
static const struct jp_treecopy_file *find_copied(const char *path,
						  const struct jp_treecopy_result *a,
						  const struct jp_treecopy_result *b)
{
	const struct jp_treecopy_file *f = NULL;

	if (a && a->n_copied)
		f = bsearch(path, a->copied, a->n_copied, sizeof(*a->copied), by_path);
	if (!f && b && b->n_copied)
		f = bsearch(path, b->copied, b->n_copied, sizeof(*b->copied), by_path);
	return f;
}

/* Files streamed during the checkout kept the mode they were written with;
 * those changed since (made executable) get the new mode, and the new stat
 * for the index. */
static int fix_streamed_modes(const char *src, const char *dst, struct jp_treecopy_result *streamed,
			      struct jp_error *err)
{
	for (size_t i = 0; i < streamed->n_copied; i++) {
		struct jp_treecopy_file *f = &streamed->copied[i];
		char a[PATH_MAX], b[PATH_MAX];
		struct stat sb;

		if (!S_ISREG(f->st.st_mode))
			continue;
		snprintf(a, sizeof(a), "%s/%s", src, f->path);
		if (lstat(a, &sb) != 0 || (sb.st_mode & 07777) == (f->st.st_mode & 07777))
			continue;
		snprintf(b, sizeof(b), "%s/%s", dst, f->path);
		if (chmod(b, sb.st_mode & 07777) != 0 || lstat(b, &f->st) != 0)
			return jp_error_set(err, JP_EIO, "%s: %s", b, strerror(errno));
	}
	return 0;
}

static void refresh_index(const char *tree, const struct jp_treecopy_result *cr,
			  const struct jp_treecopy_result *streamed)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	char path[8192];
	time_t newest = 0;

	if (git_repository_open(&repo, tree) != 0 || git_repository_index(&index, repo) != 0)
		goto out;
	for (size_t i = 0; i < git_index_entrycount(index); i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		const struct jp_treecopy_file *f;
		git_index_entry ne;

		if (!e || !(S_ISREG(e->mode) || S_ISLNK(e->mode)))
			continue;
		f = find_copied(e->path, cr, streamed);
		if (!f || (uint64_t)f->st.st_size != e->file_size)
			continue;
		ne = *e;
		jp_git_entry_stat(&ne, &f->st, &newest);
		git_index_add(index, &ne);
	}
	if (git_index_write(index) != 0)
		goto out;
	/* git (without USE_NSEC) calls an entry racy when its mtime is not
	 * older than the index's, to the second. */
	snprintf(path, sizeof(path), "%s", git_index_path(index));
	{
		struct timeval tv[2];
		gettimeofday(&tv[0], NULL);
		if (tv[0].tv_sec <= newest)
			tv[0].tv_sec = newest + 1;
		tv[1] = tv[0];
		utimes(path, tv);
	}
out:
	git_index_free(index);
	git_repository_free(repo);
}

int jp_git_stage_finish(struct jp_git_stage *st, unsigned threads,
			const struct jp_treecopy_result *streamed_in, const struct jp_port *port,
			struct jp_error *err)
{
	static const char *const skip[] = { ".git/objects", NULL };
	struct jp_treecopy_options to = JP_TREECOPY_OPTIONS_INIT;
	struct jp_treecopy_result cr = JP_TREECOPY_RESULT_INIT;
	struct jp_treecopy_result done = JP_TREECOPY_RESULT_INIT;
	struct jp_treecopy_result *streamed = (struct jp_treecopy_result *)streamed_in;
	int rc;

	to.threads = threads;
	to.record_stats = true;
	to.skip = skip;
	to.dst_exists = true;
	rc = combine_done(&done, streamed, &st->git_done, ".git");
	if (rc != 0)
		return jp_error_oom(err);
	to.done = &done;
	rc = jp_treecopy(&cr, st->src, st->dst, &to, port, err);
	if (rc == 0)
		rc = fix_streamed_modes(st->src, st->dst, streamed, err);
	if (rc == 0)
		refresh_index(st->dst, &cr, streamed);
	jp_treecopy_result_dispose(&cr);
	jp_treecopy_result_dispose(&done);
	return rc;
}

void jp_git_stage_init(struct jp_git_stage *st, char *src, char *dst)
{
	memset(st, 0, sizeof(*st));
	jp_error_init(&st->err);
	st->src = src;
	st->dst = dst;
}

void jp_git_stage_dispose(struct jp_git_stage *st)
{
	jp_git_stage_join(st, true, NULL, NULL);
	jp_error_dispose(&st->err);
	jp_treecopy_result_dispose(&st->git_done);
}
