/* Cloning onto shared storage: refuse what must be refused before any
 * network use, build the clone under a temporary name (on local scratch disk
 * first when the target is on a network filesystem), check out the ref,
 * submodules, make scripts executable, then move it into place in one step.
 * Whatever happens, nothing half-made is left at the target. */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "mountinfo.h"
#include "jobprep/probe.h"
#include "treecopy.h"
#include "git_internal.h"
#include "profile_internal.h"

#define SCRATCH_PREFIX "jobprep-clone-"
#define SCRATCH_MIN_FREE (256ULL << 20)
#define SCRATCH_RESERVE (64ULL << 20)
#define DEFAULT_COPY_THREADS 16
#define MAX_SUBMODULE_DEPTH 8

void jp_git_clone_result_dispose(struct jp_git_clone_result *res)
{
	if (!res)
		return;
	free(res->url);
	free(res->ref);
	free(res->path);
	*res = (struct jp_git_clone_result)JP_GIT_CLONE_RESULT_INIT;
}

static bool is_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	if (n < min || n > max)
		return false;
	return strspn(s, "0123456789abcdefABCDEF") == n;
}

int jp_git_ref_check(const char *ref, struct jp_error *err)
{
	if (!ref)
		return 0;
	if (!*ref || ref[0] == '-')
		return jp_error_set(err, JP_EUSAGE,
				    _("refusing ref '%s': empty, or beginning with '-' (it would be read "
				      "as an option)"),
				    ref);
	if (!git_reference_is_valid_name(ref) && !is_hex(ref, 4, 40)) {
		char full[1024];

		snprintf(full, sizeof(full), "refs/heads/%s", ref);
		if (!git_reference_is_valid_name(full))
			return jp_error_set(err, JP_EUSAGE, _("'%s' is not a valid branch or tag name"),
					    ref);
	}
	return 0;
}

/* ---- scratch disk ---- */

static bool usable_scratch(const char *dir, uint64_t need, uint64_t *avail)
{
	struct statvfs vfs;
	struct statfs sfs;
	struct stat sb;
	bool known = false;

	if (!dir || !*dir || dir[0] != '/' || stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
	    access(dir, W_OK | X_OK) != 0)
		return false;
	if (statfs(dir, &sfs) != 0 ||
	    jp_fs_kind_of_magic((int64_t)sfs.f_type, &known, NULL) == JP_FS_NETWORK)
		return false;
	if (statvfs(dir, &vfs) != 0)
		return false;
	*avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	return *avail >= need;
}

/* Memory the system could give a tmpfs without swapping, from
 * /proc/meminfo; 0 when unknown. */
static uint64_t mem_available(void)
{
	char line[256];
	uint64_t kib = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

/* The first local scratch directory with room, or NULL. After the ones
 * named, /dev/shm when it is a roomy tmpfs: the clone lives there only
 * until it is copied, and memory is far faster than a busy disk. A tmpfs
 * counts as roomy only for half the memory actually available. */
static const char *pick_scratch(const struct jp_git_clone_options *opts, uint64_t need,
				uint64_t *avail)
{
	const char *named[] = { opts->scratch_dir, getenv("JOBPREP_SCRATCH") };
	const char *fallback[] = { getenv("TMPDIR"), "/var/tmp", "/tmp" };
	struct statfs sfs;

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i] && *named[i])
			return usable_scratch(named[i], need, avail) ? named[i] : NULL;
	if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC &&
	    usable_scratch("/dev/shm", need, avail)) {
		uint64_t mem = mem_available() / 2;

		if (mem < *avail)
			*avail = mem;
		if (*avail >= need)
			return "/dev/shm";
	}
	for (size_t i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++)
		if (usable_scratch(fallback[i], need, avail))
			return fallback[i];
	return NULL;
}

/* ---- building the clone ---- */

struct build {
	const struct jp_git_clone_options *opts;
	const struct jp_git_url *url;
	struct jp_git_op *op;
	struct jp_git_clone_result *res;
	struct jp_error *err;
	/* Staging: once the objects are final, start copying them onto shared
	 * storage while the checkout runs. NULL when not staging. */
	struct jp_git_stage *stage;
	/* The local mirror the clone copies from (lock_fd < 0: none, the
	 * server itself). */
	struct jp_git_cache *cache;
	/* jp_git_fill_in: submodules already cloned are left as they are;
	 * how many were cloned */
	bool skip_cloned;
	size_t sm_cloned;
};


static int git_fail(struct build *b, int gerr, const char *dir)
{
	return jp_git_op_error(b->op, gerr, dir, b->err, b->url->clean);
}

static void fetch_options(git_fetch_options *fo, struct jp_git_op *op)
{
	jp_git_op_remote_callbacks(&fo->callbacks, op);
	fo->download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	/* Nothing, credentials least of all, goes to a host the person did
	 * not name: libgit2 1.5 would follow an off-site redirect of the
	 * first request and hand it the same credentials. */
	fo->follow_redirects = GIT_REMOTE_REDIRECT_NONE;
}

/* Fetch one commit by id (servers allowing it) into refs/jobprep/want. */
static int fetch_commit(struct build *b, git_repository *repo, const char *hex)
{
	git_fetch_options fo;
	git_remote *remote = NULL;
	char spec[128];
	char *specs[] = { spec };
	git_strarray arr = { specs, 1 };
	int gerr;

	snprintf(spec, sizeof(spec), "+%s:refs/jobprep/want", hex);
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fetch_options(&fo, b->op);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	if (jp_git_op_ssh(b->op)) {
		struct jp_git_ssh_fetch f = { git_repository_path(repo), "origin", &arr, &fo, NULL,
					      false };

		return jp_git_ssh_fetch(b->op, &f);
	}
	if ((gerr = git_remote_lookup(&remote, repo, "origin")) == 0)
		gerr = git_remote_fetch(remote, &arr, &fo, NULL);
	git_remote_free(remote);
	return gerr;
}

/* Resolve the ref the person asked for to a commit and point HEAD at it. */
static int resolve_and_set_head(struct build *b, git_repository *repo, const char *dir,
				git_commit **commit_out)
{
	const char *ref = b->opts->ref;
	git_reference *head = NULL, *rref = NULL, *branch = NULL;
	git_object *obj = NULL;
	git_commit *commit = NULL;
	char *default_branch = NULL;
	char name[1024];
	int gerr = 0, rc = 0;

	*commit_out = NULL;
	/* git_clone pointed HEAD at a local copy of the remote's default
	 * branch; remember it, it goes if another ref is checked out. */
	if ((gerr = git_repository_head(&head, repo)) == 0) {
		default_branch = strdup(git_reference_shorthand(head));
	} else if (gerr == GIT_EUNBORNBRANCH || gerr == GIT_ENOTFOUND) {
		if (!ref) {
			rc = jp_error_set(b->err, JP_ENOENT, _("%s: the repository is empty"),
					  b->url->clean);
			goto out;
		}
	} else {
		rc = git_fail(b, gerr, dir);
		goto out;
	}

	if (!ref) {
		if ((gerr = git_reference_peel(&obj, head, GIT_OBJECT_COMMIT)) != 0) {
			rc = git_fail(b, gerr, dir);
			goto out;
		}
		b->res->ref_kind = JP_GIT_REF_BRANCH;
		if (!(b->res->ref = strdup(git_reference_shorthand(head))))
			goto nomem;
		goto have_commit;
	}

	/* A branch, by short or full name. */
	const char *short_ref = strncmp(ref, "refs/heads/", 11) == 0 ? ref + 11 : ref;
	snprintf(name, sizeof(name), "refs/remotes/origin/%s", short_ref);
	if (strncmp(ref, "refs/tags/", 10) != 0 && git_reference_lookup(&rref, repo, name) == 0) {
		if ((gerr = git_reference_peel(&obj, rref, GIT_OBJECT_COMMIT)) != 0) {
			rc = git_fail(b, gerr, dir);
			goto out;
		}
		b->res->ref_kind = JP_GIT_REF_BRANCH;
		if (!(b->res->ref = strdup(short_ref)))
			goto nomem;
		if (!default_branch || strcmp(default_branch, short_ref) != 0) {
			char upstream[1100];

			if ((gerr = git_branch_create(&branch, repo, short_ref, (git_commit *)obj, 1)) != 0)
				goto gitfail;
			snprintf(upstream, sizeof(upstream), "origin/%s", short_ref);
			if ((gerr = git_branch_set_upstream(branch, upstream)) != 0 ||
			    (gerr = git_repository_set_head(repo, git_reference_name(branch))) != 0)
				goto gitfail;
		}
		goto have_commit;
	}
	/* A tag. */
	const char *tag = strncmp(ref, "refs/tags/", 10) == 0 ? ref + 10 : ref;
	snprintf(name, sizeof(name), "refs/tags/%s", tag);
	if (git_reference_lookup(&rref, repo, name) == 0) {
		if ((gerr = git_reference_peel(&obj, rref, GIT_OBJECT_COMMIT)) != 0) {
			rc = jp_error_set(b->err, JP_ENOENT, _("%s: tag %s does not point at a commit"),
					  b->url->clean, tag);
			goto out;
		}
		b->res->ref_kind = JP_GIT_REF_TAG;
		if (!(b->res->ref = strdup(tag)))
			goto nomem;
		if ((gerr = git_repository_set_head_detached(repo, git_object_id(obj))) != 0)
			goto gitfail;
		goto have_commit;
	}
	/* A commit id, full or abbreviated. */
	if (is_hex(ref, 4, 40)) {
		git_oid oid;

		if (git_oid_fromstrn(&oid, ref, strlen(ref)) == 0 &&
		    git_object_lookup_prefix(&obj, repo, &oid, strlen(ref), GIT_OBJECT_COMMIT) != 0 &&
		    strlen(ref) == 40) {
			/* Not reachable from any branch or tag: ask for it by id. */
			git_error_clear();
			if ((gerr = fetch_commit(b, repo, ref)) != 0 && (b->op->canceled || b->op->fail_code)) {
				rc = git_fail(b, gerr, dir);
				goto out;
			}
			git_object_lookup(&obj, repo, &oid, GIT_OBJECT_COMMIT);
			git_reference_remove(repo, "refs/jobprep/want");
		}
		if (obj) {
			b->res->ref_kind = JP_GIT_REF_COMMIT;
			if ((gerr = git_repository_set_head_detached(repo, git_object_id(obj))) != 0)
				goto gitfail;
			goto have_commit;
		}
	}
	rc = jp_error_set(b->err, JP_ENOENT,
			  _("%s has no branch, tag or commit named '%s'"), b->url->clean, ref);
	goto out;

have_commit:
	if ((gerr = git_commit_lookup(&commit, repo, git_object_id(obj))) != 0)
		goto gitfail;
	git_oid_tostr(b->res->commit, sizeof(b->res->commit), git_commit_id(commit));
	/* Like `git clone -b`: only the branch checked out exists locally. */
	if (default_branch && (b->res->ref_kind != JP_GIT_REF_BRANCH ||
			       strcmp(default_branch, b->res->ref) != 0)) {
		git_reference *old = NULL;

		if (git_branch_lookup(&old, repo, default_branch, GIT_BRANCH_LOCAL) == 0)
			git_branch_delete(old);
		git_reference_free(old);
	}
	*commit_out = commit;
	commit = NULL;
	goto out;
gitfail:
	rc = git_fail(b, gerr, dir);
	goto out;
nomem:
	rc = jp_error_oom(b->err);
out:
	git_commit_free(commit);
	git_object_free(obj);
	git_reference_free(head);
	git_reference_free(rref);
	git_reference_free(branch);
	free(default_branch);
	return rc;
}

/* Not staging (a clone onto local disk), a tree no filter applies to,
 * without submodules: the parallel checkout writer (git_pcheckout.c),
 * libgit2's one file after the other being most of a clone from the warm
 * mirror cache. 1: not for this clone. */
static int checkout_parallel(struct build *b, git_repository *repo, const char *dir)
{
	git_reference *head = NULL;
	git_tree *tree = NULL;
	unsigned threads = jp_git_on_network(dir) ? 32 : 8;
	int gerr, rc;

	if (b->stage)
		return 1;
	if ((gerr = git_repository_head(&head, repo)) != 0 ||
	    (gerr = git_reference_peel((git_object **)&tree, head, GIT_OBJECT_TREE)) != 0) {
		git_reference_free(head);
		return git_fail(b, gerr, dir);
	}
	git_reference_free(head);
	rc = jp_git_pcheckout_tree(repo, tree, dir, threads, b->op, b->err);
	git_tree_free(tree);
	return rc;
}

static int checkout(struct build *b, git_repository *repo, const char *dir)
{
	git_checkout_options co;
	int gerr, rc;

	if ((rc = checkout_parallel(b, repo, dir)) != 1)
		return rc;

	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	/* The work tree is ours and empty: write every file. */
	co.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (b->stage && b->stage->stream) {
		/* Each finished file starts on its way to shared storage. */
		b->op->on_file = jp_git_stage_file;
		b->op->on_file_ctx = b->stage;
	}
	jp_git_op_checkout_callbacks(&co, b->op);
	b->op->rug = dir;
	gerr = git_checkout_head(repo, &co);
	b->op->rug = NULL;
	b->op->on_file = NULL;
	if (gerr != 0 || b->op->canceled)
		return git_fail(b, gerr ? gerr : GIT_EUSER, dir);
	return 0;
}

/* ---- submodules ---- */

struct sm_list {
	char **names;
	size_t n;
};

static int collect_sm(git_submodule *sm, const char *name, void *payload)
{
	struct sm_list *l = payload;
	char **grown = realloc(l->names, (l->n + 1) * sizeof(*grown));

	(void)sm;
	if (!grown)
		return -1;
	l->names = grown;
	if (!(l->names[l->n] = strdup(name)))
		return -1;
	l->n++;
	return 0;
}

/* A submodule URL naming a local path or file:// is followed only when the
 * clone itself came from this machine. Relative URLs resolve against the
 * superproject's URL, so they stay on its transport. */
static bool local_allowed(const struct build *b, const char *smurl)
{
	struct jp_git_url u = JP_GIT_URL_INIT;
	bool local;

	if (b->url->kind == JP_URL_LOCAL || b->url->kind == JP_URL_FILE)
		return true;
	if (strncmp(smurl, "./", 2) == 0 || strncmp(smurl, "../", 3) == 0)
		return true;
	if (jp_git_url_parse(&u, smurl, NULL) != 0)
		return false;
	local = u.kind == JP_URL_LOCAL || u.kind == JP_URL_FILE;
	jp_git_url_dispose(&u);
	return !local;
}

/* A submodule reached over ssh (its URL resolved against the
 * superproject's remote, as libgit2 does): cloned in a helper, where
 * libssh2 can have libgit2's own socket (git_ssh.c). */
static bool sm_over_ssh(git_repository *repo, const char *smurl)
{
	git_buf resolved = GIT_BUF_INIT_CONST(NULL, 0);
	struct jp_git_url u;
	bool ssh = false;

	if (git_submodule_resolve_url(&resolved, repo, smurl) != 0) {
		git_error_clear();
		return false;
	}
	if (jp_git_url_parse(&u, resolved.ptr, NULL) == 0) {
		ssh = u.kind == JP_URL_SSH;
		jp_git_url_dispose(&u);
	}
	git_buf_dispose(&resolved);
	return ssh;
}

static int update_submodules(struct build *b, git_repository *repo, const char *dir,
			     unsigned depth)
{
	struct sm_list l = { NULL, 0 };
	int rc = 0, gerr;

	if (depth > MAX_SUBMODULE_DEPTH)
		return jp_error_set(b->err, JP_EREFUSED,
				    _("%s: submodules nested more than %d deep"), dir,
				    MAX_SUBMODULE_DEPTH);
	if ((gerr = git_submodule_foreach(repo, collect_sm, &l)) != 0) {
		rc = git_fail(b, gerr, dir);
		goto out;
	}
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		git_submodule_update_options uo;
		git_submodule *sm = NULL;
		git_repository *sub = NULL;
		const char *smurl;

		if ((gerr = git_submodule_lookup(&sm, repo, l.names[i])) != 0) {
			rc = git_fail(b, gerr, dir);
			break;
		}
		smurl = git_submodule_url(sm);
		if (!smurl || smurl[0] == '-' || (git_submodule_path(sm)[0] == '-')) {
			rc = jp_error_set(b->err, JP_EREFUSED,
					  _("submodule '%s': refusing a URL or path beginning with "
					    "'-'"),
					  l.names[i]);
			git_submodule_free(sm);
			break;
		}
		if (!local_allowed(b, smurl)) {
			/* Like git's protocol.file.allow=user: a repository from
			 * the network may not make us copy one from this machine. */
			rc = jp_error_set(b->err, JP_EREFUSED,
					  _("submodule '%s': refusing its local URL %s: a repository "
					    "cloned over the network may not pull in repositories from "
					    "this machine"),
					  l.names[i], smurl);
			git_submodule_free(sm);
			break;
		}
		if (b->skip_cloned && git_submodule_open(&sub, sm) == 0) {
			/* There already: only what is inside it may be missing. */
			rc = update_submodules(b, sub, dir, depth + 1);
			git_repository_free(sub);
			git_submodule_free(sm);
			continue;
		}
		git_error_clear();
		git_submodule_update_options_init(&uo, GIT_SUBMODULE_UPDATE_OPTIONS_VERSION);
		fetch_options(&uo.fetch_opts, b->op);
		uo.checkout_opts.checkout_strategy = GIT_CHECKOUT_SAFE;
		jp_git_op_checkout_callbacks(&uo.checkout_opts, b->op);
		b->op->rug = dir;
		if (sm_over_ssh(repo, smurl))
			gerr = jp_git_ssh_submodule(b->op, git_repository_workdir(repo), l.names[i]);
		else
			gerr = git_submodule_update(sm, 1, &uo);
		b->op->rug = NULL;
		if (gerr != 0 || b->op->canceled) {
			char what[1024];
			char *shown = jp_git_url_redact(smurl);

			snprintf(what, sizeof(what), _("submodule '%s' (%s)"), l.names[i],
				 shown ? shown : "?");
			free(shown);
			rc = jp_git_op_error(b->op, gerr ? gerr : GIT_EUSER, dir, b->err, what);
		} else if ((gerr = git_submodule_open(&sub, sm)) != 0) {
			rc = git_fail(b, gerr, dir);
		} else {
			b->sm_cloned++;
			rc = update_submodules(b, sub, dir, depth + 1);
		}
		git_repository_free(sub);
		git_submodule_free(sm);
	}
out:
	for (size_t i = 0; i < l.n; i++)
		free(l.names[i]);
	free(l.names);
	return rc;
}

/* ---- after checkout ---- */

/* chmod +x the checked-out files matching the pattern (where they are
 * readable, like chmod +x under the usual umask). */
static int make_executable(struct build *b, git_repository *repo, const char *dir)
{
	const char *pattern = b->opts->exec_pattern ? b->opts->exec_pattern : JP_GIT_EXEC_DEFAULT;
	git_index *index = NULL;
	int gerr;

	if ((gerr = git_repository_index(&index, repo)) != 0)
		return git_fail(b, gerr, dir);
	b->res->files = git_index_entrycount(index);
	if (!*pattern) {
		git_index_free(index);
		return 0;
	}
	for (size_t i = 0; i < git_index_entrycount(index); i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		char path[8192];
		struct stat sb;

		if (!e || !S_ISREG(e->mode) || fnmatch(pattern, e->path, FNM_PATHNAME) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->path);
		if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		mode_t want = sb.st_mode | ((sb.st_mode & 0444) >> 2);
		if (want != sb.st_mode && chmod(path, want & 07777) == 0)
			b->res->exec_files++;
		else if (want == sb.st_mode)
			b->res->exec_files++;
	}
	git_index_free(index);
	return 0;
}

/* No remote or submodule URL in a config may carry a password: the one we
 * cloned from never does, but .gitmodules may. */
static int scrub_config(git_repository *repo)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	struct jp_strv fix = JP_STRV_INIT;
	int rc = 0;

	if (git_repository_config(&cfg, repo) != 0)
		return 0;
	/* A plain iterator: libgit2 1.5's regex (pcre2) iterator leaks. */
	if (git_config_iterator_new(&it, cfg) == 0) {
		while (git_config_next(&e, it) == 0) {
			size_t n = strlen(e->name);

			if (e->level == GIT_CONFIG_LEVEL_LOCAL && n > 4 &&
			    strcmp(e->name + n - 4, ".url") == 0 &&
			    (strncmp(e->name, "remote.", 7) == 0 ||
			     strncmp(e->name, "submodule.", 10) == 0) &&
			    jp_url_has_credentials(e->value))
				jp_strv_push(&fix, e->name);
		}
		git_config_iterator_free(it);
	}
	for (size_t i = 0; i < fix.n; i++) {
		git_config_entry *val = NULL;
		char *clean;

		if (git_config_get_entry(&val, cfg, fix.v[i]) != 0)
			continue;
		clean = jp_git_url_redact(val->value);
		if (!clean || git_config_set_string(cfg, fix.v[i], clean) != 0)
			rc = -1;
		free(clean);
		git_config_entry_free(val);
	}
	jp_strv_dispose(&fix);
	git_config_free(cfg);
	return rc;
}

static int scrub_all(git_repository *repo, unsigned depth);

static int scrub_sm(git_submodule *sm, const char *name, void *payload)
{
	git_repository *sub = NULL;
	unsigned *depth = payload;

	(void)name;
	if (git_submodule_open(&sub, sm) == 0) {
		scrub_all(sub, *depth + 1);
		git_repository_free(sub);
	}
	return 0;
}

static int scrub_all(git_repository *repo, unsigned depth)
{
	int rc = scrub_config(repo);

	if (depth < MAX_SUBMODULE_DEPTH)
		git_submodule_foreach(repo, scrub_sm, &depth);
	return rc;
}

/* Clone into dir (which must not exist or be empty) and finish it. */
static int build_clone_once(struct build *b, const char *dir)
{
	git_clone_options co;
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	int gerr, rc;

	git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
	co.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;
	fetch_options(&co.fetch_opts, b->op);
	b->op->what = b->url->clean;
	jp_git_op_progress(b->op, JP_PHASE_CONNECT, 0, 0, 0, true);
	b->op->what = NULL;
	if (b->op->canceled)
		return jp_error_set(b->err, JP_ECANCELED, _("%s: canceled"), b->url->clean);
	if (b->cache && b->cache->lock_fd >= 0) {
		/* The mirror's objects (nothing to index): hard links where the
		 * mirror and the clone share a filesystem, else a copy. Packs are
		 * never written in place (a fetch or repack writes new ones and
		 * unlinks old ones), so neither side can change the other's.
		 * Then origin is the server again, as if cloned from it. */
		co.local = GIT_CLONE_LOCAL;
		gerr = git_clone(&repo, b->cache->mirror, dir, &co);
		if (gerr == 0)
			gerr = git_remote_set_url(repo, "origin", b->url->clean);
	} else if (jp_git_op_ssh(b->op)) {
		/* the objects and refs by a helper (git_ssh.c); the rest here */
		gerr = jp_git_ssh_clone(b->op, b->url->clean, dir);
		if (gerr == 0)
			gerr = git_repository_open(&repo, dir);
	} else {
		gerr = git_clone(&repo, b->url->clean, dir, &co);
	}
	if (gerr != 0) {
		rc = git_fail(b, gerr, dir);
		goto out;
	}
	if ((rc = resolve_and_set_head(b, repo, dir, &commit)) != 0)
		goto out;
	if (b->stage && (rc = jp_git_stage_start(b->stage, b->err)) != 0)
		goto out;
	if ((rc = checkout(b, repo, dir)) != 0)
		goto out;
	if (b->opts->submodules && (rc = update_submodules(b, repo, dir, 0)) != 0)
		goto out;
	if ((rc = make_executable(b, repo, dir)) != 0)
		goto out;
	if (scrub_all(repo, 0) != 0) {
		rc = jp_error_set(b->err, JP_EIO,
				  _("%s: could not remove a password from .git/config"), dir);
		goto out;
	}
	if (jp_git_op_progress(b->op, JP_PHASE_CHECKOUT, b->res->files, b->res->files, 0, true) < 0)
		rc = jp_error_set(b->err, JP_ECANCELED, _("%s: canceled"), b->url->clean);
out:
	git_commit_free(commit);
	git_repository_free(repo);
	return rc;
}

/* build_clone_once, and done with the mirror: one the clone tripped over
 * goes, so that the next one fetches it anew. */
static int build_clone(struct build *b, const char *dir)
{
	int rc = build_clone_once(b, dir);

	if (!b->cache)
		return rc;
	if ((rc == JP_EGIT || rc == JP_EIO) && !b->op->canceled)
		jp_git_cache_discard(b->cache);
	jp_git_cache_close(b->cache);
	return rc;
}

/* ---- the whole clone ---- */

static int check_local_source(const struct jp_git_url *url, struct jp_error *err)
{
	struct stat sb;
	int errnum = 0, rc;

	if (url->kind != JP_URL_LOCAL)
		return 0;
	/* A source on a hung mount: a timeout, not a stuck clone. */
	if ((rc = jp_probe_stat(&sb, &errnum, url->path, 0, 0, err)) != 0)
		return rc;
	if (errnum || !S_ISDIR(sb.st_mode))
		return jp_error_set(err, JP_ENOENT, _("%s: no such repository (not a directory)"),
				    url->path);
	return 0;
}

/* The mirror to clone from, when the cache is wanted and can be had:
 * brought up to date from the server first (that fetch's errors are the
 * clone's). */
static int open_cache(struct jp_git_cache *cache, const struct jp_git_url *url,
		      const struct jp_git_clone_options *opts, struct jp_git_op *op,
		      struct jp_error *err)
{
	int rc;

	if (!jp_git_cache_wanted(url, opts->no_cache))
		return 0;
	op->what = url->clean;
	jp_git_op_progress(op, JP_PHASE_CONNECT, 0, 0, 0, true);
	op->what = NULL;
	if (op->canceled)
		return jp_error_set(err, JP_ECANCELED, _("%s: canceled"), url->clean);
	rc = jp_git_cache_open(cache, url, op, err);
	return rc > 0 ? 0 : rc;
}

static int op_setup(struct jp_git_op *op, const struct jp_git_url *url,
		    const struct jp_git_clone_options *opts, const struct jp_port *port,
		    struct jp_error *err)
{
	jp_git_op_init(op, port);
	op->stall_timeout_s = opts->stall_timeout_s ? opts->stall_timeout_s : JP_GIT_STALL_TIMEOUT_S;
	if (url->kind == JP_URL_SSH) {
		op->ssh_host = url->host;
		op->ssh_port = url->port;
	}
	if (jp_git_creds_new(&op->creds, url, port) != 0)
		return jp_error_oom(err);
	return 0;
}

/* The content of the files stored with Git LFS, into the finished tree;
 * onto network storage with git-lfs's objects kept on local scratch disk
 * meanwhile (not a second copy of each on shared storage). */
static int fetch_lfs(struct jp_git_op *op, const struct jp_git_clone_options *opts,
		     const struct jp_git_target *target, const char *tree, const char *shown,
		     struct jp_git_clone_result *res, struct jp_error *err)
{
	struct jp_git_lfs_pull_opts lo = { shown, NULL, 0 };
	struct jp_git_lfs_pulled got;
	int rc;

	if (target->network || opts->staging == JP_GIT_STAGE_ALWAYS)
		lo.scratch = pick_scratch(opts, SCRATCH_MIN_FREE, &lo.room);
	rc = jp_git_lfs_pull(op, tree, &lo, &got, err);
	res->lfs_fetched = got.fetched;
	res->lfs_left = got.left;
	res->lfs_auth = got.auth;
	return rc;
}

int jp_git_clone(struct jp_git_clone_result *out, const struct jp_git_clone_options *opts,
		 const struct jp_port *port, struct jp_error *err)
{
	struct jp_git_url url = JP_GIT_URL_INIT;
	struct jp_git_target target;
	struct jp_git_tmp tmp = JP_GIT_TMP_INIT, scratch = JP_GIT_TMP_INIT;
	struct jp_git_clone_result res = JP_GIT_CLONE_RESULT_INIT;
	struct jp_profile *def = NULL;
	const struct jp_profile *profile = opts->profile;
	struct jp_git_op op;
	struct build b;
	struct jp_git_stage stage;
	struct jp_treecopy_result streamed = JP_TREECOPY_RESULT_INIT;
	struct jp_git_cache cache = JP_GIT_CACHE_INIT;
	bool planned = false, staged = false;
	int rc;

	memset(&target, 0, sizeof(target));
	jp_git_stage_init(&stage, NULL, NULL);
	memset(&b, 0, sizeof(b));
	*out = (struct jp_git_clone_result)JP_GIT_CLONE_RESULT_INIT;
	jp_git_op_init(&op, port);
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;

	/* Everything that can be refused is refused here, before any network
	 * use. */
	if ((rc = jp_git_url_parse(&url, opts->url, err)) != 0)
		goto out;
	if ((rc = jp_git_ref_check(opts->ref, err)) != 0)
		goto out;
	if ((rc = check_local_source(&url, err)) != 0)
		goto out;
	if (!profile && jp_profile_new_default(&def, NULL) == 0)
		profile = def;
	if ((rc = jp_git_target_plan(&target, opts->target, profile, err)) != 0)
		goto out;
	planned = true;

	if ((rc = op_setup(&op, &url, opts, port, err)) != 0)
		goto out;
	b.opts = opts;
	b.url = &url;
	b.op = &op;
	b.res = &res;
	b.err = err;
	b.cache = &cache;
	jp_git_op_enter(&op);

	if ((rc = jp_git_target_make_parents(&target, err)) != 0)
		goto out;

	if ((rc = jp_git_tmp_create(&tmp, target.tmp_parent, target.tmp_prefix, err)) != 0 ||
	    (rc = open_cache(&cache, &url, opts, &op, err)) != 0)
		goto out;
	/* On a network filesystem: build on local scratch disk, then copy. */
	if (opts->staging == JP_GIT_STAGE_ALWAYS ||
	    (opts->staging == JP_GIT_STAGE_AUTO && target.network)) {
		uint64_t avail = 0;
		const char *dir = pick_scratch(opts, SCRATCH_MIN_FREE, &avail);

		if (dir && jp_git_tmp_clean_stale(dir, SCRATCH_PREFIX, NULL, NULL, 0) == 0 &&
		    jp_git_tmp_create(&scratch, dir, SCRATCH_PREFIX, NULL) == 0) {
			jp_git_stage_init(&stage, scratch.tree, tmp.tree);
			b.stage = &stage;
			/* The pack, its index and the checkout must fit: stop
			 * fetching here once the pack alone takes a third. */
			struct jp_error serr = JP_ERROR_INIT;

			op.room = (avail - SCRATCH_RESERVE) / 3;
			b.err = &serr;
			rc = build_clone(&b, scratch.tree);
			op.room = 0;
			b.stage = NULL;
			b.err = err;
			if (rc == 0)
				rc = jp_git_stage_join(&stage, false, &streamed, &serr);
			else
				jp_git_stage_join(&stage, true, NULL, NULL);
			if (rc == 0) {
				staged = true;
			} else if (op.out_of_room || (rc == JP_ENOSPC && !stage.rc)) {
				/* No room on scratch after all: clone in place. */
				jp_git_tmp_remove(&scratch);
				jp_treecopy_remove(tmp.tree, DEFAULT_COPY_THREADS, NULL);
				jp_git_clone_result_dispose(&res);
				jp_git_creds_free(op.creds);
				rc = op_setup(&op, &url, opts, port, err);
			} else {
				for (size_t i = 0; i < serr.n; i++)
					jp_error_set(err, rc, "%s", serr.msgs[i]);
			}
			jp_error_dispose(&serr);
			if (rc != 0)
				goto out;
		}
	}
	if (staged) {
		rc = jp_git_stage_finish(&stage, opts->copy_threads ? opts->copy_threads
								    : DEFAULT_COPY_THREADS,
					 &streamed, port, err);
		res.staged = rc == 0;
		jp_git_tmp_remove(&scratch);
		if (rc != 0)
			goto out;
	} else if ((rc = build_clone(&b, tmp.tree)) != 0) {
		goto out;
	}
	/* Where the clone is whole, before it is put in place: the content of
	 * the files stored with Git LFS. */
	if ((rc = fetch_lfs(&op, opts, &target, tmp.tree, url.clean, &res, err)) != 0)
		goto out;
	if (jp_git_op_progress(&op, JP_PHASE_DONE, 1, 1, 0, true) < 0) {
		rc = jp_error_set(err, JP_ECANCELED, _("%s: canceled"), url.clean);
		goto out;
	}
	if ((rc = jp_git_target_place(&target, tmp.tree, err)) != 0)
		goto out;
	if (!(res.url = strdup(url.clean)) || !(res.path = strdup(target.path))) {
		rc = jp_error_oom(err);
		goto out;
	}
	*out = res;
	res = (struct jp_git_clone_result)JP_GIT_CLONE_RESULT_INIT;
out:
	jp_git_stage_dispose(&stage);
	jp_treecopy_result_dispose(&streamed);
	jp_git_cache_close(&cache);
	jp_git_op_leave(&op);
	if (scratch.dir)
		jp_git_tmp_remove(&scratch);
	if (tmp.dir) {
		if (rc != 0 && target.network)
			jp_treecopy_remove(tmp.tree, 16, NULL);
		jp_git_tmp_remove(&tmp);
	}
	if (rc != 0 && planned)
		jp_git_target_unmake_parents(&target);
	jp_git_clone_result_dispose(&res);
	jp_git_creds_free(op.creds);
	jp_git_target_dispose(&target);
	jp_git_url_dispose(&url);
	jp_profile_free(def);
	return rc;
}

/* ---- an existing checkout, given what a clone left out ---- */

/* The checkout's origin (else its only remote), parsed as a clone's URL. */
static int origin_url(struct jp_git_url *url, git_repository *repo, const char *dir,
		      struct jp_error *err)
{
	git_remote *remote = NULL;
	git_strarray names = { NULL, 0 };
	int rc;

	if (git_remote_lookup(&remote, repo, "origin") != 0) {
		git_error_clear();
		if (git_remote_list(&names, repo) == 0 && names.count == 1)
			git_remote_lookup(&remote, repo, names.strings[0]);
		git_strarray_dispose(&names);
	}
	if (!remote || !git_remote_url(remote))
		rc = jp_error_set(err, JP_EREFUSED,
				  _("%s has no remote to clone its submodules from"), dir);
	else
		rc = jp_git_url_parse(url, git_remote_url(remote), err);
	git_remote_free(remote);
	return rc;
}

int jp_git_fill_in(struct jp_git_fill_result *out, const char *path,
		   const struct jp_port *port, struct jp_error *err)
{
	struct jp_git_clone_options opts = JP_GIT_CLONE_OPTIONS_INIT;
	struct jp_git_clone_result res = JP_GIT_CLONE_RESULT_INIT;
	struct jp_git_url url = JP_GIT_URL_INIT;
	git_repository *repo = NULL;
	struct jp_git_op op;
	struct build b;
	char *dir = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	jp_git_op_init(&op, port);
	if ((rc = jp_git_global_init(err)) != 0)
		return rc;
	if (git_repository_open_ext(&repo, path, 0, NULL) != 0 || git_repository_is_bare(repo)) {
		git_repository_free(repo);
		git_error_clear();
		return jp_error_set(err, JP_ENOENT, _("%s is not inside a git work tree"), path);
	}
	if (!(dir = strdup(git_repository_workdir(repo)))) {
		rc = jp_error_oom(err);
		goto out;
	}
	for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/';)
		dir[--n] = '\0';
	if ((rc = origin_url(&url, repo, dir, err)) != 0 ||
	    (rc = op_setup(&op, &url, &opts, port, err)) != 0)
		goto out;
	memset(&b, 0, sizeof(b));
	b.opts = &opts;
	b.url = &url;
	b.op = &op;
	b.res = &res;
	b.err = err;
	b.skip_cloned = true;
	jp_git_op_enter(&op);
	rc = update_submodules(&b, repo, dir, 0);
	out->submodules = b.sm_cloned;
	if (rc == 0 && scrub_all(repo, 0) != 0)
		rc = jp_error_set(err, JP_EIO,
				  _("%s: could not remove a password from .git/config"), dir);
	if (rc == 0) {
		struct jp_git_lfs_pull_opts lo = { url.clean, NULL, 0 };
		struct jp_git_lfs_pulled got;

		rc = jp_git_lfs_pull(&op, dir, &lo, &got, err);
		out->lfs_fetched = got.fetched;
		out->lfs_left = got.left;
	}
	jp_git_op_leave(&op);
out:
	jp_git_creds_free(op.creds);
	jp_git_url_dispose(&url);
	jp_git_clone_result_dispose(&res);
	git_repository_free(repo);
	free(dir);
	return rc;
}
