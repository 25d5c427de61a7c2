/* The content of the files a repository stores with Git LFS, fetched as
 * part of a clone by the real git-lfs (libgit2 knows nothing of it and
 * checks out the pointers): in the finished clone, still under its
 * temporary name, so a failed or cancelled fetch leaves nothing behind like
 * any other part of the clone. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "buf.h"
#include "git_internal.h"

/* What git-lfs has fetched so far, by the lines of GIT_LFS_PROGRESS:
 * "<direction> <i>/<n> <bytes>/<total> <name>". */
struct pull_state {
	struct jp_git_op *op;
	const struct jp_git_lfs_report *r;
	uint64_t *got;     /* bytes per pointer, r->v's order */
	size_t done;       /* pointers whose bytes are all there */
	uint64_t bytes;
};

static int by_path(const void *key, const void *elem)
{
	return strcmp(key, ((const struct jp_git_lfs_file *)elem)->path);
}

static int on_progress_line(char *line, void *payload)
{
	struct pull_state *ps = payload;
	unsigned long long now = 0, total = 0;
	const struct jp_git_lfs_file *f;
	char dir[16];
	int name = 0;

	if (sscanf(line, "%15s %*u/%*u %llu/%llu %n", dir, &now, &total, &name) < 3 || !name ||
	    strcmp(dir, "download") != 0)
		return 0;
	/* r->v is in the index's order: sorted by path. */
	f = bsearch(line + name, ps->r->v, ps->r->n, sizeof(*ps->r->v), by_path);
	if (f) {
		size_t i = (size_t)(f - ps->r->v);

		if (now > ps->got[i]) {
			ps->bytes += now - ps->got[i];
			if (now >= total && ps->got[i] < total)
				ps->done++;
			ps->got[i] = now;
		}
		ps->op->what = f->path;
	}
	return jp_git_op_progress(ps->op, JP_PHASE_DOWNLOAD, ps->done, ps->r->n, ps->bytes,
				  false) < 0 ? -1 : 0;
}

/* The last lines git-lfs wrote (its error, then its summary), on one line
 * for a message. */
static const char *last_words(char *buf)
{
	size_t n = strlen(buf);
	char *start = buf;
	int lines = 0;

	while (n > 0 && strchr("\r\n ", buf[n - 1]))
		buf[--n] = '\0';
	for (char *p = buf + n; p > buf; p--)
		if ((p[-1] == '\n' || p[-1] == '\r') && ++lines == 3) {
			start = p;
			break;
		}
	for (char *p = start; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return *start ? start : _("no message");
}

/* argv (the `git lfs` command `what`) in dir. */
static int run_lfs(struct jp_git_op *op, const char *dir, char *const argv[], const char *what,
		   struct pull_state *ps, const char *shown, struct jp_error *err)
{
	char progress_env[] = "GIT_LFS_PROGRESS=/dev/fd/3";
	char *env_add[] = { progress_env, NULL };
	char said[2048];
	struct jp_run_watch w = { dir, env_add, ps ? on_progress_line : NULL, ps,
				  op->stall_timeout_s * 1000u, said, sizeof(said) };
	int rc = jp_run_watched(argv, &w);

	if (rc == 0)
		return 0;
	if (rc == JP_ECANCELED || op->canceled)
		return jp_error_set(err, JP_ECANCELED, _("%s: canceled"), shown);
	/* git-lfs asked git for credentials and got none (prompts are off) */
	if (rc > 0 && (strstr(said, "credentials for") || strstr(said, "could not read Username") ||
		       strstr(said, "Authentication required") || strstr(said, "Authorization error")))
		return JP_EAUTH;
	if (rc == JP_ETIMEOUT)
		return jp_error_set(err, JP_ETIMEOUT,
				    _("%s: the Git LFS server sent nothing for %u s: the files stored "
				      "with Git LFS were not fetched"),
				    shown, op->stall_timeout_s);
	return jp_error_set(err, JP_ENET,
			    _("%s: git-lfs could not fetch the files stored with Git LFS (git lfs "
			      "%s: %s); nothing was cloned"),
			    shown, what, last_words(said));
}

/* Where git-lfs keeps the objects: a temporary on local scratch when the
 * content fits there with room to spare, else its default (.git/lfs). */
#define SCRATCH_SPARE (256ULL << 20)
#define LFS_TMP_PREFIX "jobprep-lfs-"

static void local_storage(struct jp_git_tmp *tmp, char *setting, size_t len,
			  const struct jp_git_lfs_pull_opts *o, uint64_t bytes)
{
	setting[0] = '\0';
	if (!o->scratch || o->room < bytes + SCRATCH_SPARE ||
	    jp_git_tmp_clean_stale(o->scratch, LFS_TMP_PREFIX, NULL, NULL, 0) != 0 ||
	    jp_git_tmp_create(tmp, o->scratch, LFS_TMP_PREFIX, NULL) != 0)
		return;
	snprintf(setting, len, "lfs.storage=%s", tmp->dir);
}

void jp_git_lfs_attr_pattern(struct jp_buf *b, const char *path)
{
	jp_buf_addc(b, '/');
	for (const char *p = path; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			jp_buf_add(b, "[[:space:]]");
		else if (strchr("\\*?[]!#", *p))
			jp_buf_addf(b, "\\%c", *p);
		else
			jp_buf_addc(b, *p);
	}
}

/* Append b to fd (opened for reading and appending), on a line of its own. */
static int append_lines(int fd, const struct jp_buf *b)
{
	char last = '\n';
	off_t end = lseek(fd, 0, SEEK_END);
	size_t done = 0;

	if (end > 0 && pread(fd, &last, 1, end - 1) != 1)
		return -1;
	if (last != '\n' && write(fd, "\n", 1) != 1)
		return -1;
	while (done < b->len) {
		ssize_t w = write(fd, b->s + done, b->len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

/* Pointers no attribute names (committed as plain files): named in the
 * clone's own .git/info/attributes, never the committed .gitattributes.
 * git-lfs 3.6 and later fetch and check out only the files the attributes
 * name (3.3 replaced such a file too, and staged its content); with the
 * filter git also sees the content as clean. Best effort: a pointer this
 * cannot name stays one, and the checks name it. */
static void name_unnamed(const struct jp_git_lfs_report *r)
{
	git_repository *repo = NULL;
	git_buf info = { NULL, 0, 0 };
	struct jp_buf b = JP_BUF_INIT;
	char *file = NULL;
	int fd = -1;

	if (!r->unnamed || git_repository_open(&repo, r->workdir) != 0 ||
	    git_repository_item_path(&info, repo, GIT_REPOSITORY_ITEM_INFO) != 0)
		goto out;
	jp_buf_add(&b, "# jobprep: Git LFS pointers committed without an attribute naming "
		       "them (git lfs pull fetches only what the attributes name)\n");
	for (size_t i = 0; i < r->n; i++)
		if (!r->v[i].named) {
			jp_git_lfs_attr_pattern(&b, r->v[i].path);
			jp_buf_add(&b, " " JP_GIT_LFS_ATTRS "\n");
		}
	if (b.rc != 0 || !(file = malloc(info.size + sizeof("attributes"))))
		goto out;
	snprintf(file, info.size + sizeof("attributes"), "%sattributes", info.ptr);
	if (mkdir(info.ptr, 0755) != 0 && errno != EEXIST)
		goto out;
	fd = open(file, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		append_lines(fd, &b);
out:
	if (fd >= 0)
		close(fd);
	free(file);
	jp_buf_dispose(&b);
	git_buf_dispose(&info);
	git_repository_free(repo);
	git_error_clear();
}

int jp_git_lfs_pull(struct jp_git_op *op, const char *dir, const struct jp_git_lfs_pull_opts *o,
		    struct jp_git_lfs_pulled *out, struct jp_error *err)
{
	struct jp_git_lfs_report r = JP_GIT_LFS_REPORT_INIT, after = JP_GIT_LFS_REPORT_INIT;
	struct jp_error quiet = JP_ERROR_INIT;
	struct jp_git_tmp tmp = JP_GIT_TMP_INIT;
	char storage[4200];
	char *install[] = { (char *)"git-lfs", (char *)"install", (char *)"--local", NULL };
	char *pull[] = { (char *)"git-lfs", (char *)"pull", NULL };
	/* git passes -c on to git-lfs (GIT_CONFIG_PARAMETERS) */
	char *pull_via_git[] = { (char *)"git", (char *)"-c", storage, (char *)"lfs", (char *)"pull",
				 NULL };
	const char *shown = o->shown;
	struct pull_state ps;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = jp_git_lfs_find(&r, dir, &quiet);
	jp_error_dispose(&quiet);
	if (rc < 0 || r.n == 0 || !jp_git_lfs_installed()) {
		out->left = r.n;
		jp_git_lfs_report_dispose(&r);
		return rc == JP_ENOMEM ? jp_error_oom(err) : 0;
	}
	memset(&ps, 0, sizeof(ps));
	ps.op = op;
	ps.r = &r;
	if (!(ps.got = calloc(r.n, sizeof(*ps.got)))) {
		rc = jp_error_oom(err);
		goto out;
	}
	jp_git_op_progress(op, JP_PHASE_DOWNLOAD, 0, r.n, 0, true);
	local_storage(&tmp, storage, sizeof(storage), o, r.bytes);
	name_unnamed(&r);
	if ((rc = run_lfs(op, dir, install, "install", NULL, shown, err)) == 0)
		rc = run_lfs(op, dir, storage[0] ? pull_via_git : pull, "pull", &ps, shown, err);
	if (rc == JP_EAUTH) {
		out->auth = true;
		rc = 0;
	} else if (rc != 0) {
		goto out;
	}
	op->what = NULL;
	if (jp_git_op_progress(op, JP_PHASE_DOWNLOAD, r.n, r.n, r.bytes, true) < 0) {
		rc = jp_error_set(err, JP_ECANCELED, _("%s: canceled"), shown);
		goto out;
	}
	/* What is still a pointer (git-lfs may leave one it cannot place) is
	 * for the checks to name. */
	if (jp_git_lfs_find(&after, dir, NULL) == 0) {
		out->left = after.n;
		out->fetched = r.n > after.n ? r.n - after.n : 0;
	}
out:
	if (tmp.dir)
		jp_git_tmp_remove(&tmp);
	op->what = NULL;
	free(ps.got);
	jp_git_lfs_report_dispose(&after);
	jp_git_lfs_report_dispose(&r);
	return rc;
}
