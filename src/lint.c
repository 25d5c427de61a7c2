/* The launch-command lint: downloads, installs, unpacking, ephemeral outputs,
 * missing scripts, cd away from the project, multi-Worker paths and sync.
 * What each program does is in lint_rules.c; the look at the project's code
 * in lint_walk.c; the findings and the variables the command sets in
 * lint_findings.c and lint_vars.c. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/input.h"
#include "jobprep/lint.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "mountinfo.h"
#include "resume_internal.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/probe.h"
#include "jobprep/shellwords.h"
#include "shellwords_internal.h"
#include "lint_internal.h"
#include "pyscan.h"

/* --- small helpers -------------------------------------------------------- */

/* rel read from dir, normalised; NULL on ENOMEM. */
static char *join(const char *dir, const char *rel)
{
	char *tmp = jp_path_join(dir, rel), *res;

	if (!tmp)
		return NULL;
	res = jp_path_normalize(tmp);
	free(tmp);
	return res;
}

/* The most specific profile root holding `path`, and its list (0 shared,
 * 1 public, 2 ephemeral; -1 none), as the path classifier decides. */
static int profile_class(const struct lint *L, const char *path, const char **root)
{
	const struct jp_profile *pr = L->ctx->profile;
	const struct jp_strv *lists[3];
	size_t best = 0;
	int cls = -1;

	*root = NULL;
	if (!pr)
		return -1;
	lists[0] = &pr->shared_roots;
	lists[1] = &pr->public_roots;
	lists[2] = &pr->ephemeral_roots;
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < lists[k]->n; i++) {
			size_t n = strlen(lists[k]->v[i]);
			if (jp_path_is_under(path, lists[k]->v[i]) && n >= best) {
				best = n;
				cls = k;
				*root = lists[k]->v[i];
			}
		}
	}
	return cls;
}

static const char *ephemeral_root(const struct lint *L, const char *path)
{
	const char *root;
	return profile_class(L, path, &root) == 2 ? root : NULL;
}

const char *jp_lint_ephemeral_root(const struct lint *L, const char *path)
{
	return ephemeral_root(L, path);
}

static bool is_shared_or_public(const struct lint *L, const char *path)
{
	const char *root;
	int cls = profile_class(L, path, &root);
	return cls == 0 || cls == 1;
}

/* Paths every Worker has the same way: the system and the image. */
static bool is_system_path(const char *path)
{
	static const char *const sys[] = { "/usr", "/bin", "/sbin", "/lib", "/lib32",
					   "/lib64", "/etc", "/dev", "/proc", "/sys",
					   "/opt", "/run", NULL };
	for (size_t i = 0; sys[i]; i++)
		if (jp_path_is_under(path, sys[i]))
			return true;
	return false;
}

/* An absolute, normalised path from a word (relative ones are resolved
 * against the known cwd); NULL when unknown or not a path. */
static char *word_path(const struct lint *L, const struct jp_sh_word *w, const char *text)
{
	char *e = NULL, *res = NULL;

	if (!text) {
		e = jp_lint_expand(L, w);
		text = e;
	}
	if (text && text[0] == '/')
		res = jp_path_normalize(text);
	free(e);
	return res;
}

/* Skip wrappers that run the rest of the line as a command (env, exec,
 * nohup, sudo, timeout, ...); `env NAME=value` words are assignments. */
static size_t skip_wrappers(struct lint *L, const struct cmd *c, const struct jp_sh_word ***assigns,
			    size_t *n_assigns)
{
	size_t i = 0;

	while (i < c->n) {
		const char *name = base_name(c->args[i]->text);
		if (strcmp(name, "env") == 0) {
			i++;
			while (i < c->n) {
				const char *a = c->args[i]->text;
				if (strcmp(a, "-u") == 0 || strcmp(a, "--unset") == 0) {
					i += 2;
				} else if (is_option(a)) {
					i++;
				} else if (strchr(a, '=') && (isalpha((unsigned char)a[0]) || a[0] == '_')) {
					const struct jp_sh_word **g =
						realloc(*assigns, (*n_assigns + 1) * sizeof(*g));
					if (!g) {
						L->oom = 1;
						return c->n;
					}
					*assigns = g;
					g[(*n_assigns)++] = c->args[i];
					i++;
				} else {
					break;
				}
			}
		} else if (strcmp(name, "exec") == 0 || strcmp(name, "nohup") == 0 ||
			   strcmp(name, "command") == 0 || strcmp(name, "builtin") == 0 ||
			   strcmp(name, "setsid") == 0 || strcmp(name, "time") == 0 ||
			   strcmp(name, "stdbuf") == 0) {
			i = first_operand(c, i + 1);
		} else if (strcmp(name, "sudo") == 0) {
			i++;
			while (i < c->n && is_option(c->args[i]->text)) {
				const char *a = c->args[i]->text;
				i += (strcmp(a, "-u") == 0 || strcmp(a, "-g") == 0) ? 2 : 1;
			}
		} else if (strcmp(name, "nice") == 0) {
			i++;
			if (i < c->n && strcmp(c->args[i]->text, "-n") == 0)
				i += 2;
			else if (i < c->n && is_option(c->args[i]->text))
				i++;
		} else if (strcmp(name, "timeout") == 0) {
			i++;
			while (i < c->n && is_option(c->args[i]->text)) {
				const char *a = c->args[i]->text;
				i += (strcmp(a, "-s") == 0 || strcmp(a, "-k") == 0) ? 2 : 1;
			}
			i++; /* the duration */
		} else {
			break;
		}
	}
	return i;
}

static void lint_launcher_workers(struct lint *L, const struct cmd *c, size_t i);

/* A script named relative to the job's starting directory (no cd before
 * it): the platform's launch line starts the job in its own directory (the
 * image's), not the project, so the script is not found there: a failure
 * when the line surely runs (the exports start in the project, but the line
 * to paste does not), once. */
static void relative_warning(struct lint *L, const struct jp_sh_word *w)
{
	/* code in an image: its working directory may well be the code's */
	if (!L->warned_relative && L->ctx->project_dir && !L->reading.n && !L->ctx->project_is_local)
		jp_lint_add(L, JP_LINT_SCRIPT, w->text, NULL,
		    _("'%s' is relative to the job's starting directory, which is not the project: "
		      "cd \"$PROJECT_DIR\" first, or give the script's absolute path"),
		    w->text);
	else if (!L->warned_relative && L->ctx->project_dir && !L->reading.n)
		jp_lint_fail(L, JP_LINT_SCRIPT, w->text, NULL,
		    _("'%s' is relative to the job's starting directory, which is not the project: "
		      "the platform's launch line starts the job in its own directory, where '%s' "
		      "does not exist, and the job stops there; cd \"$PROJECT_DIR\" first, or give "
		      "the script's absolute path"),
		    w->text, w->text);
	/* the exports start the job in the project (Slurm's --chdir, the Pod's
	 * workingDir): there it is found */
	for (size_t i = 0; i < L->out->n; i++)
		if (L->out->items[i].kind == JP_LINT_SCRIPT && strcmp(L->out->items[i].word, w->text) == 0)
			L->out->items[i].platform_only = 1;
	L->warned_relative = L->warned_relative || !L->reading.n;
	L->script_unseen = true;
}

/* A script that is not where the command runs it, outside the project:
 * on storage every Worker sees as this machine does (a shared or public
 * root), or named relative to a folder a cd went to while the project has
 * it (the person meant the project's), the job surely stops: a failure.
 * Elsewhere (an image's folder) it may be there: a warning. */
static void missing_outside(struct lint *L, const struct jp_sh_word *w, const char *e,
			    const char *path)
{
	const struct jp_lint_context *ctx = L->ctx;
	char *mine = NULL;
	struct stat st;
	int errnum = 0;

	if (e[0] != '/' && ctx->project_dir && ctx->project_is_local && L->cwd_moved &&
	    (mine = join(ctx->project_dir, e)) && jp_lint_stat(L, &st, &errnum, mine) == 0 &&
	    !errnum) {
		jp_lint_fail(L, JP_LINT_SCRIPT, w->text, path,
		    _("'%s': %s does not exist: a cd before it left the project, which has %s; "
		      "cd \"$PROJECT_DIR\" before it, or give its absolute path"),
		    w->text, path, mine);
	} else if (is_shared_or_public(L, path)) {
		jp_lint_fail(L, JP_LINT_SCRIPT, w->text, path,
		    _("'%s': %s does not exist, on storage every Worker sees as this machine does: "
		      "the job stops there; fix the name, or put the script there"),
		    w->text, path);
	} else {
		jp_lint_add(L, JP_LINT_SCRIPT, w->text, path, _("'%s': %s does not exist"), w->text,
		    path);
	}
	L->oom |= e[0] != '/' && ctx->project_dir && ctx->project_is_local && L->cwd_moved && !mine;
	free(mine);
}

/* A script the command runs: it must exist (and be executable when run
 * directly); a sh script in the project is read and its lines judged. */
void jp_lint_check_script(struct lint *L, const struct jp_sh_word *w, char how, int nesting)
{
	const struct jp_lint_context *ctx = L->ctx;
	char *e = jp_lint_expand(L, w), *path = NULL;
	struct stat st;

	if (!e || !e[0])
		goto out;
	/* relative to the starting directory: looked up in the project, where
	 * the exports start the job (what the platform's form does is not known) */
	bool from_start = e[0] != '/' && !L->cwd;
	if (e[0] == '/') {
		path = jp_path_normalize(e);
	} else if (jp_lint_dir(L)) {
		path = join(jp_lint_dir(L), e);
	} else {
		/* in a script, a directory not known (cd "$1"): nothing to say */
		relative_warning(L, w);
		goto out;
	}
	if (!path) {
		L->oom = 1;
		goto out;
	}
	/* Inside an image, or cloned when the job starts: not to be seen here. */
	bool in_project = ctx->project_dir && jp_path_is_under(path, ctx->project_dir);
	if (in_project && !ctx->project_is_local) {
		L->script_unseen = true;
		goto out;
	}
	/* Bounded: the project may sit on a network mount that hung. */
	int errnum = 0;
	int rc = jp_lint_stat(L, &st, &errnum, path);
	if (rc == JP_ENOMEM) {
		L->oom = 1;
	} else if (rc == JP_ETIMEOUT) {
		L->script_unseen = true;
		if (jp_mount_path_is_own(path))
			jp_lint_add(L, JP_LINT_SCRIPT, w->text, path,
			    _("'%s': %s did not answer in time, though it is on this machine's "
			      "own storage: the machine may be too busy; check again"),
			    w->text, path);
		else
			jp_lint_add(L, JP_LINT_SCRIPT, w->text, path,
			    _("'%s': %s did not answer in time: the storage it is on seems hung (a "
			      "network mount that lost its server?)"),
			    w->text, path);
	} else if (rc != 0) {
		L->script_unseen = true; /* too many looks already, or a mount hung */
	} else if (errnum) {
		L->script_unseen = true;
		/* the job stops here: a failure when the line surely runs; of a
		 * project not on this machine at all, code.path's check speaks */
		if (in_project && jp_lint_project_here(L))
			jp_lint_fail(L, JP_LINT_SCRIPT, w->text, path,
			    _("'%s': %s does not exist in the project (%s): the job stops there; add "
			      "it to the code (and commit it), or fix the name"),
			    w->text, path, ctx->project_dir);
		else if (!in_project)
			missing_outside(L, w, e, path);
	} else if (!S_ISREG(st.st_mode)) {
		jp_lint_add(L, JP_LINT_SCRIPT, w->text, path, _("'%s': %s is not a regular file"),
		    w->text, path);
	} else if (how == 'x' && !(st.st_mode & 0111)) {
		jp_lint_add(L, JP_LINT_SCRIPT, w->text, path,
		    _("'%s': %s is not executable: chmod +x it before submitting, or run it with bash"),
		    w->text, path);
	}
	if (rc != 0 || errnum || !S_ISREG(st.st_mode))
		goto out;
	if (from_start)
		relative_warning(L, w);
	/* read later for where it writes (launch.outputs) */
	if (jp_strv_push(&L->scripts, path) < 0) {
		L->oom = 1;
		goto out;
	}
	if (how && in_project)
		jp_lint_script(L, path, w, how == '.', nesting);
out:
	free(e);
	free(path);
}

/* --- launch_clone: the pinned clone before anything else ------------------- */

/* The word names the recorded commit: the full id or a prefix of at least
 * seven hex digits (variables expanded as far as known). */
static bool is_commit_word(const struct lint *L, const struct jp_sh_word *w)
{
	const char *commit = L->ctx->code_commit;
	char *e = jp_lint_expand(L, w);
	size_t n = e ? strlen(e) : 0;
	bool yes = commit && n >= 7 && n <= strlen(commit) && strspn(e, "0123456789abcdefABCDEF") == n &&
		   strncasecmp(e, commit, n) == 0;

	free(e);
	return yes;
}

static bool clone_revision_is_commit(const struct lint *L, const struct cmd *c, size_t sub)
{
	for (size_t k = sub + 1; k < c->n; k++) {
		const struct jp_sh_word *w = c->args[k];
		if (strcmp(w->text, "--revision") == 0 && k + 1 < c->n)
			return is_commit_word(L, c->args[k + 1]);
		if (strncmp(w->text, "--revision=", 11) == 0) {
			struct jp_sh_word v = *w;
			v.text = w->text + 11;
			return is_commit_word(L, &v);
		}
	}
	return false;
}

/* git clone / remote add of the code, fetch of the commit, checkout of it. */
static void clone_git(struct lint *L, const struct cmd *c, size_t i)
{
	const char *url = L->ctx->code_repo_url;
	size_t s = jp_lint_git_subcommand(c, i);
	const char *sub = arg(c, s);
	size_t u = c->n;

	if (!sub)
		return;
	if (strcmp(sub, "clone") == 0)
		u = jp_lint_clone_url_index(c, s);
	else if (strcmp(sub, "remote") == 0 && arg(c, s + 1) && strcmp(arg(c, s + 1), "add") == 0)
		u = first_operand(c, s + 2) + 1;
	if (u < c->n) {
		char *e = jp_lint_expand(L, c->args[u]);
		if (jp_url_same_repo(e, url) && L->clone_state == CLONE_NONE)
			L->clone_state = CLONE_SOURCE;
		free(e);
		if (L->clone_state == CLONE_SOURCE && strcmp(sub, "clone") == 0 &&
		    clone_revision_is_commit(L, c, s))
			L->clone_state = CLONE_PINNED;
	}
	bool fetch = strcmp(sub, "fetch") == 0;
	bool checkout = strcmp(sub, "checkout") == 0 || strcmp(sub, "switch") == 0 ||
			strcmp(sub, "reset") == 0;
	for (size_t k = s + 1; (fetch || checkout) && k < c->n; k++) {
		const struct jp_sh_word *w = c->args[k];
		if (fetch && L->clone_state == CLONE_NONE && !is_option(w->text)) {
			char *e = jp_lint_expand(L, w);
			if (jp_url_same_repo(e, url))
				L->clone_state = CLONE_SOURCE; /* git fetch URL COMMIT */
			free(e);
		}
		if (is_option(w->text) || !is_commit_word(L, w)) {
			if (checkout && L->fetched_commit && strcmp(w->text, "FETCH_HEAD") == 0 &&
			    L->clone_state == CLONE_SOURCE)
				L->clone_state = CLONE_PINNED;
			continue;
		}
		if (fetch)
			L->fetched_commit = true;
		else if (L->clone_state == CLONE_SOURCE)
			L->clone_state = CLONE_PINNED;
	}
	/* nothing recorded to pin to: the clone is all that can be asked */
	if (L->clone_state == CLONE_SOURCE && !L->ctx->code_commit)
		L->clone_state = CLONE_PINNED;
}

/* One simple command, in order: until the pin, only git and commands that
 * run nothing of the project (cd, mkdir, export, ...) may come. */
static void clone_step(struct lint *L, const struct cmd *c, size_t i)
{
	static const char *const harmless[] = { "cd", "mkdir", "rm", "export", "set", "unset",
						"umask", "true", ":", "echo", "printf", "test",
						"[", "exit", NULL };
	const char *name;

	if (!L->ctx->code_repo_url || L->clone_state == CLONE_PINNED || L->ran_first ||
	    c->sh->depth > 0 || i >= c->n || L->reading.n > 0)
		return;
	name = base_name(c->args[i]->text);
	if (strcmp(name, "git") == 0) {
		clone_git(L, c, i);
		return;
	}
	for (size_t k = 0; harmless[k]; k++)
		if (strcmp(name, harmless[k]) == 0)
			return;
	/* sh -c '...': its commands are judged one by one */
	if (is_shell(name))
		for (size_t k = i + 1; k < c->n && is_option(c->args[k]->text); k++)
			if (strcmp(c->args[k]->text, "-c") == 0)
				return;
	if (!(L->ran_first = strdup(c->args[i]->text)))
		L->oom = 1;
}

/* After the whole command: a failing finding with the line to put first. */
static void clone_verdict(struct lint *L)
{
	const struct jp_lint_context *ctx = L->ctx;
	const char *url = ctx->code_repo_url;
	const char *dir = ctx->project_dir ? ctx->project_dir : "code";
	char *line = NULL;

	if (!url || L->clone_state == CLONE_PINNED)
		return;
	if (ctx->code_commit)
		jp_git_clone_command(&line, url, ctx->code_commit, dir, 0, NULL);
	if (!line && asprintf(&line, "git clone %s %s", url, dir) < 0) {
		L->oom = 1;
		return;
	}
	if (L->clone_state == CLONE_SOURCE)
		jp_lint_add(L, JP_LINT_CLONE_FIRST, "git clone", NULL,
		    _("the launch command clones %s but does not check out the recorded commit %s "
		      "before it runs anything else, so the job runs whatever the branch holds when "
		      "it starts. Put this line first instead: %s &&"),
		    url, ctx->code_commit, line);
	else if (L->ran_first)
		jp_lint_add(L, JP_LINT_CLONE_FIRST, L->ran_first, NULL,
		    _("'%s' runs before the code is cloned: with code.source launch_clone the launch "
		      "command must first clone %s (and check out the recorded commit), or the job "
		      "runs without its code. Put this line first: %s &&"),
		    L->ran_first, url, line);
	else
		jp_lint_add(L, JP_LINT_CLONE_FIRST, "", NULL,
		    _("the launch command never clones %s: with code.source launch_clone the job "
		      "would run without its code. Put this line first: %s &&"),
		    url, line);
	free(line);
}

/* --- paths ---------------------------------------------------------------- */

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return false;
}

/* Option names that say "write here". */
bool jp_lint_output_option(const char *opt, size_t len)
{
	static const char *const parts[] = { "out", "save", "ckpt", "checkpoint", "log", "dir",
					     "cache", "home", "result", "tensorboard", "wandb",
					     "dest", "export", "dump", NULL };
	char name[64];

	while (len > 0 && *opt == '-') {
		opt++;
		len--;
	}
	if (len == 0 || len >= sizeof(name))
		return false;
	memcpy(name, opt, len);
	name[len] = '\0';
	if (strcmp(name, "o") == 0)
		return true;
	for (size_t i = 0; parts[i]; i++)
		if (contains_ci(name, parts[i]))
			return true;
	return false;
}

/* Names whose folder is scratch by design (TMPDIR): nothing kept there. */
static bool scratch_variable(const char *name)
{
	static const char *const names[] = { "TMPDIR", "TMP", "TEMP", "TEMPDIR", "XDG_RUNTIME_DIR",
					      NULL };

	for (size_t i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Environment variables that say "write here" (HF_HOME, WANDB_DIR, ...). */
static bool output_variable(const char *name, size_t len)
{
	static const char *const parts[] = { "HOME", "DIR", "CACHE", "OUTPUT", "LOG", "CKPT",
					     "CHECKPOINT", "SAVE", "RESULT", NULL };
	char v[128];

	if (len >= sizeof(v))
		return false;
	memcpy(v, name, len);
	v[len] = '\0';
	if (strcmp(v, "HOME") == 0 || scratch_variable(v))
		return false;
	for (size_t i = 0; parts[i]; i++)
		if (strstr(v, parts[i]))
			return true;
	return false;
}

static const char *first_shared_root(const struct lint *L)
{
	const struct jp_profile *pr = L->ctx->profile;
	return pr && pr->shared_roots.n ? pr->shared_roots.v[0] : "/mnt/public";
}

const char *jp_lint_shared_root(const struct lint *L)
{
	return first_shared_root(L);
}

/* A path the job writes to: not under an ephemeral root (what it writes
 * there is lost, as from a checkpoint folder there: a failure when the
 * line surely runs). Returns true when it was flagged. */
static bool check_output_path(struct lint *L, const char *word, const char *path)
{
	const char *root = ephemeral_root(L, path);

	jp_lint_written(L, path);
	if (!root)
		return false;
	jp_lint_fail(L, JP_LINT_EPHEMERAL, word, path,
	    _("'%s' writes to %s, under %s, which is wiped when the job ends: write it under "
	      "%s instead (e.g. \"$OUTPUT_DIR\")"),
	    word, path, root, first_shared_root(L));
	return true;
}

static void check_shared_path(struct lint *L, const char *word, const char *path)
{
	const struct jp_lint_context *ctx = L->ctx;

	if (ctx->workers <= 1 || is_shared_or_public(L, path) || is_system_path(path))
		return;
	/* Not in the profile: a network filesystem mounted here is shared too.
	 * Only the mount table is read; the path itself is never touched. */
	const char *root;
	if (profile_class(L, path, &root) < 0) {
		if (L->mounts_state == 0)
			L->mounts_state = jp_mount_table_load(&L->mounts, NULL, NULL) == 0 ? 1 : -1;
		const struct jp_mount *mnt =
			L->mounts_state == 1 ? jp_mount_table_find(&L->mounts, path) : NULL;
		if (mnt && jp_fs_kind_of(mnt->fstype) == JP_FS_NETWORK)
			return;
	}
	if (ctx->project_dir && jp_path_is_under(path, ctx->project_dir) && !ctx->project_is_local)
		return; /* the image's own code directory */
	jp_lint_add(L, JP_LINT_NOT_SHARED, word, path,
	    _("'%s': %s is not on shared storage, so each of the %lld Workers sees its own copy "
	      "(or none): use a path under %s"),
	    word, path, ctx->workers, first_shared_root(L));
}

/* A relative path the command writes (> x.json, --out=x): a later
 * operand naming it is no missing file. */
static void written_relative(struct lint *L, const char *rel)
{
	char *p;

	if (!jp_lint_dir(L) || !rel[0] || rel[0] == '/')
		return;
	if (!(p = join(jp_lint_dir(L), rel))) {
		L->oom = 1;
		return;
	}
	jp_lint_written(L, p);
	free(p);
}

/* A config key before '=' (out_dir, trainer.default_root_dir): a lower-case
 * letter in it, so no environment variable (HF_HOME=...). */
static bool config_key(const char *e)
{
	bool lower = false;

	for (const char *p = e; *p != '='; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '+')
			return false;
		lower |= islower((unsigned char)*p) != 0;
	}
	return lower && e[0] != '=';
}

/* --opt=value, or key=value (an override of the code's config: Hydra,
 * nanoGPT): *path its absolute value (else NULL); true when it says where
 * the job writes. */
static bool option_with_value(struct lint *L, const char *e, char **path)
{
	const char *eq = strchr(e, '=');
	bool out = jp_lint_output_option(e, (size_t)(eq - e));

	if (eq[1] == '/')
		*path = jp_path_normalize(eq + 1);
	if (out)
		written_relative(L, eq + 1);
	return out;
}

/* Every path in a command: outputs under ephemeral roots, and for
 * multi-Worker jobs anything that is not shared. */
static void lint_paths(struct lint *L, const struct jp_sh_command *sh,
		       const struct jp_sh_word **env_assigns, size_t n_env)
{
	/* NAME=value prefixes (and env NAME=value) */
	for (size_t k = 0; k < sh->n_assigns + n_env; k++) {
		const struct jp_sh_word *w = k < sh->n_assigns ? &sh->assigns[k]
							       : env_assigns[k - sh->n_assigns];
		const char *eq = strchr(w->text, '=');
		char *e = jp_lint_expand(L, w), *path = NULL;
		if (eq && e)
			path = word_path(L, w, strchr(e, '=') + 1);
		if (path) {
			bool flagged = output_variable(w->text, (size_t)(eq - w->text)) &&
				       check_output_path(L, w->text, path);
			if (!flagged)
				check_shared_path(L, w->text, path);
		}
		free(e);
		free(path);
	}
	for (size_t k = 0; k < sh->n_words; k++) {
		const struct jp_sh_word *w = &sh->words[k];
		char *e = jp_lint_expand(L, w), *path = NULL;
		const char *word = w->text;
		bool out = false;
		char *label = NULL;

		if (!e)
			continue;
		if (w->redir == '>') {
			path = e[0] == '/' ? jp_path_normalize(e) : NULL;
			out = true;
			written_relative(L, e);
		} else if (w->redir) {
			path = e[0] == '/' ? jp_path_normalize(e) : NULL;
		} else if (strchr(e, '=') && (e[0] == '-' || (k > 0 && config_key(e)))) {
			out = option_with_value(L, e, &path);
		} else if (k > 0 && e[0] != '/' && sh->words[k - 1].text[0] == '-' &&
			   !sh->words[k - 1].redir &&
			   jp_lint_output_option(sh->words[k - 1].text, strlen(sh->words[k - 1].text))) {
			written_relative(L, e); /* --out_dir out/x */
		} else if (e[0] == '/') {
			path = jp_path_normalize(e);
			/* "--output_dir /tmp/x": the option before it says what it is */
			if (k > 0 && !sh->words[k - 1].redir && sh->words[k - 1].text[0] == '-') {
				const char *opt = sh->words[k - 1].text;
				out = jp_lint_output_option(opt, strlen(opt));
				if (out && asprintf(&label, "%s %s", opt, w->text) < 0)
					label = NULL;
			} else if (k > 0 && strcmp(base_name(sh->words[0].text), "tee") == 0) {
				out = true;
			}
		}
		if (path) {
			if (label)
				word = label;
			bool flagged = out && check_output_path(L, word, path);
			if (!flagged && k > 0)
				check_shared_path(L, word, path);
		}
		free(label);
		free(e);
		free(path);
	}
}

/* --- commands in order ---------------------------------------------------- */

static void lint_cd(struct lint *L, const struct cmd *c, size_t i)
{
	const struct jp_lint_context *ctx = L->ctx;
	size_t j = first_operand(c, i + 1);
	char *target = NULL;
	char word[512];

	if (j >= c->n) {
		snprintf(word, sizeof(word), "cd");
		free(L->cwd);
		L->cwd = NULL;
		L->cwd_moved = true;
		if (ctx->project_dir)
			jp_lint_add(L, JP_LINT_CD, word, NULL,
			    _("'cd' without a directory goes to the home directory, not the project (%s)"),
			    ctx->project_dir);
		return;
	}
	snprintf(word, sizeof(word), "cd %s", c->args[j]->text);
	char *e = jp_lint_expand(L, c->args[j]);
	if (e && e[0] == '/')
		target = jp_path_normalize(e);
	else if (e && L->cwd && strcmp(e, "-") != 0)
		target = join(L->cwd, e);
	free(e);
	free(L->cwd);
	L->cwd = target;
	L->cwd_moved = true;
	if (!target || !ctx->project_dir)
		return;
	if (!jp_path_is_under(target, ctx->project_dir))
		jp_lint_add(L, JP_LINT_CD, word, target,
		    _("'%s' leaves the project directory (%s): the scripts and relative paths that "
		      "follow resolve outside it"),
		    word, ctx->project_dir);
}

/* `export NAME=value` and plain NAME=value commands: remember the value. */
static void remember_assignments(struct lint *L, const struct jp_sh_command *sh, const struct cmd *c)
{
	if (sh->n_words == 0) {
		for (size_t k = 0; k < sh->n_assigns; k++) {
			const char *t = sh->assigns[k].text, *eq = strchr(t, '=');
			char *e = jp_lint_expand(L, &sh->assigns[k]);
			jp_lint_var_set(L, t, (size_t)(eq - t), e ? strchr(e, '=') + 1 : NULL);
			free(e);
		}
	}
	if (c->n > 0 && strcmp(c->args[0]->text, "export") == 0) {
		for (size_t k = 1; k < c->n; k++) {
			const char *t = c->args[k]->text, *eq = strchr(t, '=');
			if (!eq)
				continue;
			char *e = jp_lint_expand(L, c->args[k]);
			jp_lint_var_set(L, t, (size_t)(eq - t), e ? strchr(e, '=') + 1 : NULL);
			free(e);
		}
	}
}

static void lint_command(struct lint *L, const struct jp_sh_command *sh, int nesting)
{
	struct cmd c = { NULL, 0, sh };
	const struct jp_sh_word **env_assigns = NULL;
	size_t n_env = 0;

	c.args = calloc(sh->n_words + 1, sizeof(*c.args));
	if (!c.args) {
		L->oom = 1;
		return;
	}
	for (size_t k = 0; k < sh->n_words; k++)
		if (!sh->words[k].redir)
			c.args[c.n++] = &sh->words[k];

	/* export A=/tmp/x: an assignment like any other */
	if (c.n > 0 && strcmp(c.args[0]->text, "export") == 0) {
		for (size_t k = 1; k < c.n; k++) {
			const char *t = c.args[k]->text, *eq = strchr(t, '=');
			if (!eq)
				continue;
			char *e = jp_lint_expand(L, c.args[k]);
			char *path = e ? word_path(L, c.args[k], strchr(e, '=') + 1) : NULL;
			if (path) {
				bool flagged = output_variable(t, (size_t)(eq - t)) &&
					       check_output_path(L, t, path);
				if (!flagged)
					check_shared_path(L, t, path);
			}
			free(e);
			free(path);
		}
	}

	size_t i = skip_wrappers(L, &c, &env_assigns, &n_env);
	clone_step(L, &c, i);
	if (i < c.n) {
		const char *name = base_name(c.args[i]->text);
		if (strcmp(name, "cd") == 0 && sh->depth == 0)
			lint_cd(L, &c, i);
		else if (strcmp(name, "echo") != 0 && strcmp(name, "printf") != 0 &&
			 strcmp(name, "export") != 0 && strcmp(name, "cd") != 0)
			jp_lint_program(L, &c, i, nesting);
		lint_launcher_workers(L, &c, i);
		jp_lint_counts(L, &c, i);
		if (strcmp(name, "cd") != 0 && strcmp(name, "export") != 0 &&
		    strcmp(name, "echo") != 0)
			lint_paths(L, sh, env_assigns, n_env);
	} else if (sh->n_assigns > 0) {
		lint_paths(L, sh, env_assigns, n_env);
	}
	if (sh->depth == 0)
		remember_assignments(L, sh, &c);
	free(env_assigns);
	free(c.args);
}

/* Does command k of the line surely run when the line does? Not inside
 * if/while/case/{ }, not in a substitution, not after || or a test's &&. */
static bool surely_runs(const struct jp_sh_line *sl, size_t k)
{
	const struct jp_sh_command *c = &sl->cmds[k];
	size_t p = k;

	if (c->compound > 0 || c->depth > 0)
		return false;
	while (p > 0 && sl->cmds[p - 1].depth > c->depth)
		p--;
	if (p == 0)
		return true;
	const struct jp_sh_command *prev = &sl->cmds[p - 1];
	const char *name = prev->n_words ? prev->words[0].text : "";
	if (prev->sep == 'O')
		return false;
	return !(prev->sep == 'A' && (strcmp(name, "[") == 0 || strcmp(name, "test") == 0 ||
				      strcmp(name, "[[") == 0));
}

void jp_lint_line(struct lint *L, const char *line, int nesting, const char *script)
{
	struct jp_sh_line sl = JP_SH_LINE_INIT;
	/* a line run by another (sh -c, a script) runs when that one does */
	bool outer = nesting == 0 && L->reading.n == 0 ? true : L->certain;

	if (jp_sh_split(&sl, line, NULL) < 0) {
		L->oom = 1;
		return;
	}
	if (sl.unbalanced && script) {
		free(L->where);
		if (!(L->where = strdup(script)))
			L->oom = 1;
	}
	if (sl.unbalanced && !L->oom)
		jp_lint_add(L, JP_LINT_SYNTAX, "", NULL, "%s",
		    script ? _("the script has an unterminated quote or substitution: the shell "
			       "will refuse it")
			   : _("the launch command has an unterminated quote or substitution: the shell "
			       "will refuse it"));
	for (size_t k = 0; k < sl.n && !L->oom; k++) {
		if (script) {
			free(L->where);
			if (asprintf(&L->where, "%s:%d", script, sl.cmds[k].line) < 0) {
				L->where = NULL;
				L->oom = 1;
				break;
			}
		}
		L->certain = outer && surely_runs(&sl, k);
		lint_command(L, &sl.cmds[k], nesting);
	}
	L->certain = outer;
	jp_sh_line_dispose(&sl);
}

static void lint_sync(struct lint *L)
{
	const struct jp_lint_context *ctx = L->ctx;

	if (ctx->workers <= 1 || !ctx->project_dir || !ctx->project_is_local)
		return;
	int syncs = ctx->syncs == JP_LINT_SYNCS_LOOK ? jp_lint_project_syncs(ctx->project_dir)
						      : ctx->syncs;
	if (syncs != 0)
		return;
	jp_lint_add(L, JP_LINT_SYNC, "", ctx->project_dir,
	    _("hint: found no barrier, torch.distributed, accelerate or deepspeed in the project's "
	      "code (%s): with %lld Workers, if rank 0 prepares shared data or saves checkpoints, "
	      "make the others wait for it (e.g. torch.distributed.barrier()) before they read it"),
	    ctx->project_dir, ctx->workers);
}

/* --- many Workers, the run's directories, job.env paths (issue 13) --------- */

/* Launchers that run the job on one Worker alone unless an option tells them
 * of the others: any of `multi` does (with a value other than 1), any of
 * `single` undoes it. `form` is what to add (each option only when the
 * command does not give it already), the process count last: per Worker
 * (GPUs), or for the whole job when `total`. */
struct form_part {
	const char *opt;  /* the option, as added */
	const char *alt;  /* its other spelling, or NULL */
	const char *rest; /* what follows it */
};
static const struct launcher_rule {
	const char *name; /* the program's base name */
	const char *sub;  /* its sub-command, or NULL */
	const char *const multi[6];
	const char *const single[2];
	const struct form_part form[6]; /* the last one takes the process count */
	bool total;
} launcher_rules[] = {
	{ "torchrun", NULL, { "--nnodes", "--rdzv-endpoint", "--rdzv_endpoint", NULL },
	  { "--standalone", NULL },
	  { { "--nnodes", NULL, "=\"$WORLD_SIZE\"" },
	    { "--node_rank", "--node-rank", "=\"$RANK\"" },
	    { "--master_addr", "--master-addr", "=\"$MASTER_ADDR\"" },
	    { "--master_port", "--master-port", "=\"$MASTER_PORT\"" },
	    { "--nproc_per_node", "--nproc-per-node", "=" } },
	  false },
	{ "accelerate", "launch",
	  { "--num_machines", "--num-machines", "--config_file", "--config-file", NULL },
	  { NULL },
	  { { "--num_machines", "--num-machines", " \"$WORLD_SIZE\"" },
	    { "--machine_rank", "--machine-rank", " \"$RANK\"" },
	    { "--main_process_ip", "--main-process-ip", " \"$MASTER_ADDR\"" },
	    { "--main_process_port", "--main-process-port", " \"$MASTER_PORT\"" },
	    { "--num_processes", "--num-processes", " " } },
	  true },
	{ "deepspeed", NULL, { "--hostfile", "-H", "--num_nodes", "--no_ssh", NULL },
	  { NULL },
	  { { "--num_nodes", "--num-nodes", " \"$WORLD_SIZE\"" },
	    { "--node_rank", "--node-rank", " \"$RANK\"" },
	    { "--master_addr", "--master-addr", " \"$MASTER_ADDR\"" },
	    { "--master_port", "--master-port", " \"$MASTER_PORT\"" },
	    { "--no_ssh", "--no-ssh", "" },
	    { "--num_gpus", "--num-gpus", " " } },
	  false },
};

/* The value of option `opt` at word k ("--opt=V", "--opt V"); "" for a
 * last word without one; NULL when word k is not that option. */
static const char *option_value(const struct cmd *c, size_t k, const char *opt)
{
	const char *t = c->args[k]->text;
	size_t n = strlen(opt);

	if (strncmp(t, opt, n) != 0 || (t[n] != '=' && t[n] != '\0'))
		return NULL;
	if (t[n] == '=')
		return t + n + 1;
	return k + 1 < c->n ? c->args[k + 1]->text : "";
}

static bool is_script_word(const char *t)
{
	size_t n = strlen(t);

	return (n > 3 && (strcmp(t + n - 3, ".py") == 0 || strcmp(t + n - 3, ".sh") == 0)) ||
	       strcmp(t, "-m") == 0 || strcmp(t, "--module") == 0;
}

/* The launcher's own options (up to the script) tell it of other Workers. */
static bool rule_is_multi(const struct launcher_rule *r, const struct cmd *c, size_t from)
{
	bool multi = false;

	for (size_t k = from; k < c->n && !is_script_word(c->args[k]->text); k++) {
		for (size_t s = 0; r->single[s]; s++)
			if (option_value(c, k, r->single[s]))
				return false;
		for (size_t m = 0; r->multi[m]; m++) {
			const char *v = option_value(c, k, r->multi[m]);
			if (v && strcmp(v, "1") != 0 && strcmp(v, "1:1") != 0)
				multi = true;
		}
	}
	return multi;
}

static long long processes(const struct lint *L, bool total)
{
	long long g = L->ctx->gpus_per_worker > 0 ? L->ctx->gpus_per_worker : 1;

	return total ? g * L->ctx->workers : g;
}

/* The command gives option `opt` (or `alt`) among words from..n-1. */
static bool gives_option(const struct cmd *c, size_t from, const char *opt, const char *alt)
{
	for (size_t k = from; k < c->n; k++)
		if (option_value(c, k, opt) || (alt && option_value(c, k, alt)))
			return true;
	return false;
}

/* The options to add to launcher r (its words from `from` in c; c NULL:
 * none given), the process count last when not given. */
static void launcher_form(struct lint *L, const struct launcher_rule *r, const struct cmd *c,
			  size_t from, char *form, size_t size)
{
	size_t len = 0;

	form[0] = '\0';
	for (size_t p = 0; p < sizeof(r->form) / sizeof(r->form[0]) && r->form[p].opt; p++) {
		const struct form_part *f = &r->form[p];
		bool last = p + 1 == sizeof(r->form) / sizeof(r->form[0]) || !r->form[p + 1].opt;
		int k;

		if (c && gives_option(c, from, f->opt, f->alt))
			continue;
		if (last)
			k = snprintf(form + len, len < size ? size - len : 0, "%s%s%s%lld",
				     len ? " " : "", f->opt, f->rest, processes(L, r->total));
		else
			k = snprintf(form + len, len < size ? size - len : 0, "%s%s%s", len ? " " : "",
				     f->opt, f->rest);
		if (k > 0)
			len += (size_t)k;
	}
}

static void launcher_finding(struct lint *L, const struct launcher_rule *r, const char *word,
			     const struct cmd *c, size_t from)
{
	char form[512];

	launcher_form(L, r, c, from, form, sizeof(form));
	jp_lint_fail(L, JP_LINT_LAUNCHER, word, NULL,
	    _("'%s' without its multi-node options starts the job on each of the %lld Workers "
	      "alone, and they never meet: add %s (the platform sets these variables on every "
	      "Worker)"),
	    word, L->ctx->workers, form);
}

/* python train.py on several Workers: one process each, unaware of the rest. */
static void python_workers(struct lint *L, const struct cmd *c, size_t i)
{
	size_t j = first_operand(c, i + 1);
	char form[512];

	for (size_t k = i + 1; k < j; k++) {
		const char *a = c->args[k]->text;
		if (strcmp(a, "-c") == 0)
			return;
		if (strcmp(a, "-m") == 0) {
			const char *mod = arg(c, k + 1);
			if (mod && (strcmp(mod, "torch.distributed.run") == 0 ||
				    strcmp(mod, "torch.distributed.launch") == 0)) {
				if (!rule_is_multi(&launcher_rules[0], c, k + 2))
					launcher_finding(L, &launcher_rules[0],
							 "python -m torch.distributed.run", c, k + 2);
				return;
			}
			j = k + 1;
			break;
		}
	}
	if (j >= c->n)
		return;
	/* a module runs as `-m NAME`, under torchrun too */
	char what[256];
	snprintf(what, sizeof(what), "%s%s", strcmp(c->args[j - 1]->text, "-m") == 0 ? "-m " : "",
		 c->args[j]->text);
	{
		char parts[480];

		launcher_form(L, &launcher_rules[0], NULL, 0, parts, sizeof(parts));
		snprintf(form, sizeof(form), "torchrun %s", parts);
	}
	jp_lint_add(L, JP_LINT_LAUNCHER, base_name(c->args[i]->text), NULL,
	    _("'%s %s' starts one process on each of the %lld Workers, and none of them knows "
	      "the others (unless the script starts its own): run it as %s %s"),
	    base_name(c->args[i]->text), what, L->ctx->workers, form, what);
}

static void lint_launcher_workers(struct lint *L, const struct cmd *c, size_t i)
{
	const char *name;

	if (L->ctx->workers <= 1 || i >= c->n || c->args[i]->has_var)
		return;
	name = base_name(c->args[i]->text);
	if (is_python(name)) {
		/* only a line that surely runs, beside no launcher (a rank-0 step,
		 * a preparation before torchrun is no mistake: in a script, or in
		 * the command itself, issue 31) */
		bool distributed = false;
		for (size_t k = i + 1; k + 1 < c->n && is_option(c->args[k]->text); k++)
			distributed |= strcmp(c->args[k]->text, "-m") == 0 &&
				       starts_with(c->args[k + 1]->text, "torch.distributed.");
		if (distributed || ((!L->reading.n || L->certain) && !L->script_launches))
			python_workers(L, c, i);
		return;
	}
	for (size_t k = 0; k < sizeof(launcher_rules) / sizeof(launcher_rules[0]); k++) {
		const struct launcher_rule *r = &launcher_rules[k];
		size_t from = i + 1;
		char word[64];

		if (strcmp(name, r->name) != 0)
			continue;
		if (r->sub && (!arg(c, i + 1) || strcmp(arg(c, i + 1), r->sub) != 0))
			return;
		from += r->sub != NULL;
		if (rule_is_multi(r, c, from))
			return;
		snprintf(word, sizeof(word), "%s%s%s", r->name, r->sub ? " " : "", r->sub ? r->sub : "");
		launcher_finding(L, r, word, c, from);
		return;
	}
}

/* Where code writes when nobody says otherwise, inside the project. */
static const struct output_default {
	const char *mark; /* seen in the code */
	const char *what; /* where that writes */
	const char *fix;
} output_defaults[] = {
	{ "out_dir = 'out'", "out/ (nanoGPT's out_dir)", "--out_dir=\"$CHECKPOINT_DIR\"" },
	{ "TrainingArguments(", "the output_dir given to TrainingArguments",
	  "--output_dir \"$CHECKPOINT_DIR\"" },
	{ "lightning", "lightning_logs/ (Lightning's default_root_dir)",
	  "Trainer(default_root_dir=os.environ[\"CHECKPOINT_DIR\"])" },
	{ "SummaryWriter(", "runs/ (TensorBoard's SummaryWriter)",
	  "SummaryWriter(log_dir=os.environ[\"LOG_DIR\"])" },
};

static bool mentions_run_dirs(const struct lint *L, const char *text, size_t n)
{
	const char *marks[] = { "OUTPUT_DIR", "CHECKPOINT_DIR", "LOG_DIR", L->ctx->output_dir,
				L->ctx->checkpoint_dir, L->ctx->log_dir };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (marks[i] && *marks[i] && memmem(text, n, marks[i], strlen(marks[i])))
			return true;
	return false;
}

/* Script `path` mentions the run's directories (1), not (0), unreadable
 * (-1); *dflt: the first known in-project default seen in it. */
static int script_mentions(const struct lint *L, const char *path, const struct output_default **dflt)
{
	size_t n = 0;
	char *buf = jp_lint_read_head(path, &n);
	int rc = -1;

	if (buf) {
		rc = mentions_run_dirs(L, buf, n);
		for (size_t i = 0; !*dflt && i < sizeof(output_defaults) / sizeof(output_defaults[0]); i++)
			if (memmem(buf, n, output_defaults[i].mark, strlen(output_defaults[i].mark)))
				*dflt = &output_defaults[i];
	}
	free(buf);
	return rc;
}

static void lint_outputs(struct lint *L, const char *command)
{
	const struct output_default *dflt = NULL;

	if (!L->ctx->output_dir || mentions_run_dirs(L, command, strlen(command)) ||
	    L->script_unseen || L->scripts.n == 0)
		return;
	for (size_t i = 0; i < L->scripts.n; i++)
		if (script_mentions(L, L->scripts.v[i], &dflt) != 0)
			return;
	/* a config the command names sets the output: there it goes, not to
	 * the code's default (an absolute path is the person's choice, a wiped
	 * one is launch.ephemeral_output's) */
	if (L->config_out_label && L->config_out_value[0] == '/')
		return;
	if (L->config_out_label)
		jp_lint_add(L, JP_LINT_OUTPUTS, "", L->scripts.v[0],
		    _("neither the launch command nor %s uses $OUTPUT_DIR, $CHECKPOINT_DIR or "
		      "$LOG_DIR (or their paths), so the output a config sets (%s) lands inside the "
		      "project (%s), not in the run's folder, and the next run overwrites it: pass "
		      "the run's directory on, e.g. --%s=\"$CHECKPOINT_DIR\""),
		    L->scripts.v[0], L->config_out_label,
		    jp_lint_dir(L) ? jp_lint_dir(L) : L->ctx->project_dir, L->config_out_key);
	else if (dflt)
		jp_lint_add(L, JP_LINT_OUTPUTS, "", L->scripts.v[0],
		    _("neither the launch command nor %s uses $OUTPUT_DIR, $CHECKPOINT_DIR or "
		      "$LOG_DIR (or their paths), so %s lands inside the project, not in the run's "
		      "folder, and the next run overwrites it: pass the run's directory on, e.g. %s"),
		    L->scripts.v[0], dflt->what, dflt->fix);
	else
		jp_lint_add(L, JP_LINT_OUTPUTS, "", L->scripts.v[0],
		    _("neither the launch command nor %s uses $OUTPUT_DIR, $CHECKPOINT_DIR or "
		      "$LOG_DIR (or their paths), so checkpoints and logs go wherever the code puts "
		      "them by default, not into the run's folder: pass the run's directories on, "
		      "e.g. --output_dir \"$CHECKPOINT_DIR\""),
		    L->scripts.v[0]);
}

/* job.env names whose value is a folder the job keeps things in. */
static bool path_variable(const char *name)
{
	static const char *const names[] = { "HF_HOME", "HF_DATASETS_CACHE", "HF_HUB_CACHE",
					      "HUGGINGFACE_HUB_CACHE", "TRANSFORMERS_CACHE",
					      "TORCH_HOME", "TORCH_EXTENSIONS_DIR", "TRITON_CACHE_DIR",
					      "WANDB_DIR", "WANDB_CACHE_DIR", "TMPDIR",
					      "XDG_CACHE_HOME", "PIP_CACHE_DIR", "MODELSCOPE_CACHE",
					      NULL };

	for (size_t i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* The mount the path is on is memory or a container layer (profile silent). */
static const struct jp_mount *ephemeral_mount(struct lint *L, const char *path)
{
	const struct jp_mount *mnt;

	if (L->mounts_state == 0)
		L->mounts_state = jp_mount_table_load(&L->mounts, NULL, NULL) == 0 ? 1 : -1;
	mnt = L->mounts_state == 1 ? jp_mount_table_find(&L->mounts, path) : NULL;
	return mnt && jp_fs_kind_of(mnt->fstype) == JP_FS_EPHEMERAL ? mnt : NULL;
}

static void env_path(struct lint *L, const char *name, const char *path)
{
	const char *root = NULL, *shared = first_shared_root(L);
	const struct jp_mount *mnt = NULL;
	int cls = profile_class(L, path, &root);
	struct stat st;

	if (cls == 2 || (cls < 0 && (mnt = ephemeral_mount(L, path)))) {
		/* lost like a checkpoint there; TMPDIR and the like are scratch by
		 * design: a warning (the system disk may fill) */
		void (*report)(struct lint *, enum jp_lint_kind, const char *, const char *,
			       const char *, ...) = scratch_variable(name) ? jp_lint_add : jp_lint_fail;
		report(L, JP_LINT_ENV_PATH, name, path,
		    _("job.env %s=%s is on %s, which is wiped when the job ends: what the job keeps "
		      "there is lost, and fetched again by every run: set %s to a folder under %s "
		      "(e.g. %s/cache)"),
		    name, path, root ? root : mnt->fstype, name, shared, shared);
		return;
	}
	/* an image's own folders are not to be seen from here */
	if (cls < 0 && !L->ctx->project_is_local)
		return;
	int errnum = 0;
	if (jp_lint_stat(L, &st, &errnum, path) == 0 && errnum == ENOENT) {
		char *q = NULL;

		if (jp_sh_quote(&q, path) < 0) {
			L->oom = 1;
			return;
		}
		jp_lint_add(L, JP_LINT_ENV_PATH, name, path,
		    _("job.env %s=%s does not exist: create it before submitting (mkdir -p %s), so "
		      "that every Worker finds the same folder"),
		    name, path, q);
		free(q);
	}
}

/* Path-valued job.env entries are judged like outputs: ephemeral or missing. */
static void lint_env_paths(struct lint *L)
{
	for (size_t i = 0; i < L->ctx->n_env; i++) {
		const char *name = L->ctx->env[i].name, *value = L->ctx->env[i].value;
		char *path;

		if (!name || !value || value[0] != '/' || strchr(value, ':'))
			continue;
		path = jp_path_normalize(value);
		if (!path) {
			L->oom = 1;
			return;
		}
		if (path_variable(name) || !is_system_path(path))
			env_path(L, name, path);
		free(path);
	}
}

/* --- entry points ---------------------------------------------------------- */

/* The lint; the Python scan it made into *py when py is not NULL
 * (py->n_files 0: nothing was read). */
static int lint_run(struct jp_lint_report *out, const char *command,
		    const struct jp_lint_context *ctx, struct jp_pyscan_result *py,
		    struct jp_error *err)
{
	static const struct jp_lint_context none = JP_LINT_CONTEXT_INIT;
	struct lint L;
	int rc = 0;

	out->items = NULL;
	out->n = 0;
	out->resume = NULL;
	memset(&L, 0, sizeof(L));
	L.out = out;
	L.ctx = ctx ? ctx : &none;
	L.python = py;
	/* job.env's variables (a value that names another is not known), then
	 * the ones env.sh exports. */
	for (size_t k = 0; k < L.ctx->n_env; k++)
		if (L.ctx->env[k].name && L.ctx->env[k].value)
			jp_lint_var_set(&L, L.ctx->env[k].name, strlen(L.ctx->env[k].name),
					strpbrk(L.ctx->env[k].value, "$`") ? NULL : L.ctx->env[k].value);
	/* The variables env.sh exports. */
	const char *known[][2] = { { "PROJECT_DIR", L.ctx->project_dir },
				   { "OUTPUT_DIR", L.ctx->output_dir },
				   { "CHECKPOINT_DIR", L.ctx->checkpoint_dir },
				   { "LOG_DIR", L.ctx->log_dir },
				   { "DATA_DIR", L.ctx->data_dir } };
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (known[k][1])
			jp_lint_var_set(&L, known[k][0], strlen(known[k][0]), known[k][1]);

	/* the command starts a launcher: its plain python lines prepare or
	 * follow the job (no launcher advice for them) */
	L.script_launches = command && jp_lint_names_launcher(command);
	if (command)
		jp_lint_line(&L, command, 0, NULL);
	if (!L.oom && command && *command)
		clone_verdict(&L);
	if (!L.oom && command && *command)
		lint_sync(&L);
	if (!L.oom && command && *command)
		lint_outputs(&L, command);
	free(L.where);
	L.where = NULL;
	if (!L.oom && command && *command)
		jp_lint_hub(&L, command);
	L.certain = true; /* job.env holds for the whole job */
	if (!L.oom)
		lint_env_paths(&L);

	out->resume = L.resume;
	if (L.oom) {
		jp_lint_report_dispose(out);
		rc = jp_error_oom(err);
	}
	for (size_t k = 0; k < L.n_vars; k++) {
		free(L.vars[k].name);
		free(L.vars[k].value);
	}
	free(L.vars);
	free(L.cwd);
	free(L.ran_first);
	jp_strv_dispose(&L.scripts);
	jp_strv_dispose(&L.reading);
	jp_strv_dispose(&L.written);
	for (size_t k = 0; k < L.n_configs; k++) {
		free(L.configs[k].path);
		free(L.configs[k].name);
		jp_lint_config_dispose(&L.configs[k].c);
	}
	free(L.configs);
	jp_lint_config_dispose(&L.overrides);
	free(L.config_out_label);
	free(L.config_out_value);
	free(L.config_out_key);
	free(L.where);
	jp_strv_dispose(&L.code_remotes);
	jp_mount_table_dispose(&L.mounts);
	return rc;
}

int jp_lint_command(struct jp_lint_report *out, const char *command,
		    const struct jp_lint_context *ctx, struct jp_error *err)
{
	return lint_run(out, command, ctx, NULL, err);
}

static int manifest_report(struct jp_lint_report *out, const struct jp_manifest *m,
			   const struct jp_profile *profile, struct jp_pyscan_result *py,
			   struct jp_error *err)
{
	struct jp_lint_context ctx = JP_LINT_CONTEXT_INIT;
	bool lclone = m->code.source == JP_CODE_LAUNCH_CLONE;

	out->items = NULL;
	out->n = 0;
	out->resume = NULL;
	if (!m->job.launch_command || !*m->job.launch_command)
		return 0;
	ctx.profile = profile ? profile : m->profile;
	ctx.project_dir = m->code.path;
	ctx.project_is_local = m->code.source == JP_CODE_SHARED_STORAGE;
	ctx.output_dir = m->outputs.output_dir;
	ctx.checkpoint_dir = m->outputs.checkpoint_dir;
	ctx.log_dir = m->outputs.log_dir;
	ctx.data_dir = m->n_data > 0 ? m->data[0].path : NULL;
	ctx.code_repo_url = lclone ? m->code.repo_url : NULL;
	ctx.code_commit = lclone ? m->code.repo_commit : NULL;
	ctx.workers = (long long)m->job.workers;
	ctx.gpus_per_worker = (long long)m->job.gpus_per_worker;
	ctx.env = m->job.env;
	ctx.n_env = m->job.n_env;
	return lint_run(out, m->job.launch_command, &ctx, py, err);
}

int jp_lint_manifest_report(struct jp_lint_report *out, const struct jp_manifest *m,
			    const struct jp_profile *profile, struct jp_error *err)
{
	return manifest_report(out, m, profile, NULL, err);
}

/* What the scan of the code says it needs of python3, into code.python
 * (kept as recorded when the code could not be read here). */
static int record_python(struct jp_manifest *m, const struct jp_pyscan_result *py)
{
	struct jp_code_python *dst = &m->code.python;
	char version[16];

	if (py->n_files == 0)
		return 0;
	jp_code_python_dispose(dst);
	dst->recorded = true;
	dst->dataloader_workers = py->loader_workers;
	for (size_t i = 0; i < py->n_modules && i < JP_PYSCAN_MAX_MODULES; i++)
		if (jp_valid_module_name(py->modules[i]) &&
		    jp_code_python_add(dst, py->modules[i]) < 0)
			return JP_ENOMEM;
	if (py->min_minor && py->min_minor < 100) {
		snprintf(version, sizeof(version), "3.%u", py->min_minor);
		if (!(dst->min_version = strdup(version)))
			return JP_ENOMEM;
	}
	return 0;
}

int jp_lint_manifest(struct jp_manifest *m, const struct jp_profile *profile,
		     struct jp_error *err)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	struct jp_pyscan_result *py = calloc(1, sizeof(*py));
	int rc = py ? manifest_report(&r, m, profile, py, err) : jp_error_oom(err);

	if (rc == 0 && record_python(m, py) < 0)
		rc = jp_error_oom(err);
	free(py);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < r.n; i++) {
		rc = jp_manifest_add_check(m, r.items[i].id,
					   r.items[i].fails ? JP_CHECK_FAIL : JP_CHECK_WARN,
					   r.items[i].path, "%s", r.items[i].message);
		if (rc < 0) {
			rc = jp_error_oom(err);
			break;
		}
	}
	/* a command that resumes, against the earlier runs' checkpoints */
	if (rc >= 0)
		rc = jp_resume_check(m, profile, r.resume, err);
	jp_lint_report_dispose(&r);
	return rc < 0 ? rc : 0;
}
