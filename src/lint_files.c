/* The launch lint's look at the files a command names: a config
 * (--config X), an operand that looks like a path (has a '/' or a config's
 * extension), a `python -m` module must be in the code, relative to where
 * the command runs. Every look is a bounded stat (a hung mount costs one
 * timeout, then no more looks), and there are at most MAX_LOOKS of them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/probe.h"
#include "lint_internal.h"

const char *jp_lint_dir(const struct lint *L)
{
	const struct jp_lint_context *ctx = L->ctx;

	if (L->cwd || L->cwd_moved)
		return L->cwd;
	return ctx->project_dir && ctx->project_is_local ? ctx->project_dir : NULL;
}

int jp_lint_stat(struct lint *L, struct stat *st, int *errnum, const char *path)
{
	int rc;

	if (L->hung || L->looks >= MAX_LOOKS)
		return 1;
	L->looks++;
	rc = jp_probe_stat(st, errnum, path, 0, 0, NULL);
	if (rc == JP_ETIMEOUT)
		L->hung = true;
	return rc;
}

bool jp_lint_project_here(struct lint *L)
{
	struct stat st;
	int errnum = 0;

	if (L->project_here == 0 && L->ctx->project_dir)
		L->project_here = jp_lint_stat(L, &st, &errnum, L->ctx->project_dir) == 0 && !errnum &&
					  S_ISDIR(st.st_mode)
				  ? 1
				  : -1;
	return L->project_here == 1;
}

void jp_lint_written(struct lint *L, const char *path)
{
	if (path && jp_strv_push(&L->written, path) < 0)
		L->oom = 1;
}

bool jp_lint_was_written(const struct lint *L, const char *path)
{
	for (size_t i = 0; i < L->written.n; i++)
		if (jp_path_is_under(path, L->written.v[i]))
			return true;
	return false;
}

/* The extensions of files a job reads as code or configuration. */
static bool config_extension(const char *s)
{
	static const char *const ext[] = { ".py", ".sh", ".yaml", ".yml", ".json", ".toml", ".cfg",
					   NULL };
	const char *slash = strrchr(s, '/');
	const char *dot = strrchr(slash ? slash : s, '.');

	for (size_t i = 0; dot && dot != s && ext[i]; i++)
		if (strcmp(dot, ext[i]) == 0)
			return true;
	return false;
}

/* --config, --config-file, --deepspeed_config, --cfg, -c: a file to read. */
static bool config_option(const char *opt, size_t len)
{
	char name[64];

	if (len >= sizeof(name))
		return false;
	memcpy(name, opt, len);
	name[len] = '\0';
	if (strcmp(name, "-c") == 0)
		return true;
	for (char *p = name; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	return strstr(name, "config") || strstr(name, "cfg");
}

/* A word that is something else than a file here: a URL, a glob, a
 * key=value override, host:path, ~, an expansion left. */
static bool not_a_file(const char *e)
{
	return !e[0] || e[0] == '-' || e[0] == '~' || strpbrk(e, "*?[=:$`<>|") != NULL;
}

/* An operand (after option `opt`, of length optlen; NULL: none) of the
 * program: a file the job reads must be in the code. */
static void judge_operand(struct lint *L, const struct jp_sh_word *w, const char *opt,
			  size_t optlen)
{
	const struct jp_lint_context *ctx = L->ctx;
	char *e = jp_lint_expand(L, w), *path = NULL, *parent = NULL;
	struct stat st;
	int errnum = 0;

	if (!e || not_a_file(e) || (opt && jp_lint_output_option(opt, optlen)))
		goto out;
	bool ext = config_extension(e);
	if (!ext && !strchr(e, '/'))
		goto out;
	/* sure: a config option's value, or an operand named like a config */
	bool sure = opt ? config_option(opt, optlen) : ext;
	if (e[0] == '/') {
		path = jp_path_normalize(e);
		L->oom |= !path;
	} else if (jp_lint_dir(L)) {
		char *j = jp_path_join(jp_lint_dir(L), e);
		path = j ? jp_path_normalize(j) : NULL;
		free(j);
		L->oom |= !path;
	}
	if (!path || !ctx->project_dir || !ctx->project_is_local ||
	    !jp_path_is_under(path, ctx->project_dir) || strcmp(path, ctx->project_dir) == 0 ||
	    jp_lint_was_written(L, path))
		goto out;
	if (jp_lint_stat(L, &st, &errnum, path) != 0)
		goto out;
	/* a config it names is read: what it sets is judged (lint_config.c) */
	if (!errnum && ext && S_ISREG(st.st_mode) && (sure || opt))
		jp_lint_read_config(L, path, w->text);
	if (errnum != ENOENT || !jp_lint_project_here(L))
		goto out;
	if (!sure) {
		/* meta-llama/Llama-2-7b is a model's name, not a folder of the code:
		 * only a missing file in a folder the code has is one */
		if (!(parent = strdup(path))) {
			L->oom = 1;
			goto out;
		}
		*strrchr(parent, '/') = '\0';
		if (strcmp(parent, ctx->project_dir) != 0 &&
		    (jp_lint_stat(L, &st, &errnum, parent) != 0 || errnum))
			goto out;
		jp_lint_add(L, JP_LINT_FILE, w->text, path,
		    _("'%s': %s is not in the code (%s): if the job reads it, it stops there; add it "
		      "to the code (and commit it) or fix the name (if the job makes it, ignore this)"),
		    w->text, path, ctx->project_dir);
		goto out;
	}
	jp_lint_fail(L, JP_LINT_FILE, w->text, path,
	    _("'%s': %s is not in the code (%s): the job stops when it reads it; add it to the "
	      "code (and commit it) or fix the name"),
	    w->text, path, ctx->project_dir);
out:
	free(e);
	free(path);
	free(parent);
}

void jp_lint_operands(struct lint *L, const struct cmd *c, size_t j)
{
	jp_lint_resume(L, c, j);
	for (size_t k = j + 1; k < c->n && !L->oom && !L->hung; k++) {
		const struct jp_sh_word *w = c->args[k];
		const char *t = w->text;

		if (t[0] != '-' || !t[1]) {
			/* key=value: Hydra's, and the like */
			char *e = strchr(t, '=') ? jp_lint_expand(L, w) : NULL;
			if (e && jp_lint_config_override(&L->overrides, e) < 0)
				L->oom = 1;
			free(e);
			judge_operand(L, w, NULL, 0);
			continue;
		}
		const char *eq = strchr(t, '=');
		if (eq) {
			char *e = jp_lint_expand(L, w);
			/* --key=value: nanoGPT's configurator, argparse */
			if (e && jp_lint_config_override(&L->overrides, e) < 0)
				L->oom = 1;
			free(e);
			struct jp_sh_word v = *w;
			v.text = (char *)eq + 1;
			judge_operand(L, &v, t, (size_t)(eq - t));
		} else if (k + 1 < c->n && c->args[k + 1]->text[0] != '-') {
			/* "--config x.yaml" (a flag followed by an operand reads the same) */
			judge_operand(L, c->args[k + 1], t, strlen(t));
			k++;
		}
	}
}

void jp_lint_config_options(struct lint *L, const struct cmd *c, size_t from, size_t to)
{
	for (size_t k = from; k < to && k < c->n && !L->oom && !L->hung; k++) {
		const struct jp_sh_word *w = c->args[k];
		const char *t = w->text, *eq = strchr(t, '=');

		if (t[0] != '-')
			continue;
		if (eq && config_option(t, (size_t)(eq - t))) {
			struct jp_sh_word v = *w;
			v.text = (char *)eq + 1;
			judge_operand(L, &v, t, (size_t)(eq - t));
		} else if (!eq && k + 1 < to && config_option(t, strlen(t))) {
			judge_operand(L, c->args[k + 1], t, strlen(t));
			k++;
		}
	}
}

/* rel (a module's path, "pkg/train") under dir: as rel.py or a package
 * that runs (rel/__main__.py). 1 found, 0 not, -1 no answer. */
static int module_found(struct lint *L, const char *dir, const char *rel, bool as_file_only)
{
	static const char *const forms[] = { "%s/%s.py", "%s/%s/__main__.py", "%s/%s" };
	struct stat st;
	int errnum;

	for (size_t f = 0; f < (as_file_only ? 2u : 3u); f++) {
		char *p = NULL;
		if (asprintf(&p, forms[f], dir, rel) < 0) {
			L->oom = 1;
			return -1;
		}
		errnum = 0;
		int rc = jp_lint_stat(L, &st, &errnum, p);
		free(p);
		if (rc != 0)
			return -1;
		if (!errnum)
			return 1;
	}
	return 0;
}

void jp_lint_module(struct lint *L, const struct cmd *c, size_t k)
{
	const struct jp_lint_context *ctx = L->ctx;
	const struct jp_sh_word *w = k < c->n ? c->args[k] : NULL;
	char *rel = NULL, *top = NULL;
	const char *dir = jp_lint_dir(L);

	if (!w || w->has_var || !dir || !ctx->project_dir || !ctx->project_is_local ||
	    !jp_path_is_under(dir, ctx->project_dir))
		return;
	const char *mod = w->text;
	if (!mod[0] || strspn(mod, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
			       strlen(mod))
		return;
	if (!(rel = strdup(mod)) || !(top = strndup(mod, strcspn(mod, ".")))) {
		L->oom = 1;
		goto out;
	}
	for (char *p = rel; *p; p++)
		if (*p == '.')
			*p = '/';
	/* a top package that is not in the code is installed (python -m pip) */
	if (module_found(L, dir, top, false) != 1)
		goto out;
	if (module_found(L, dir, rel, true) == 0 && jp_lint_project_here(L))
		jp_lint_fail(L, JP_LINT_SCRIPT, mod, NULL,
		    _("'python -m %s': %s is in the code (%s) but %s.py (or %s/__main__.py) is not: "
		      "the job stops there; add it to the code (and commit it), or fix the module's "
		      "name"),
		    mod, top, dir, rel, rel);
out:
	free(rel);
	free(top);
}
