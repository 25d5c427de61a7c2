/* The launch lint's verdicts on what the Python code the command runs does
 * when the job starts, as pyscan.c read it (lint_hub.c runs the scan): a
 * prompt nobody answers (input(), getpass, wandb.init() with neither
 * WANDB_API_KEY nor WANDB_MODE: launch.prompt), a download (requests.get
 * and the like: launch.download, with the `jobprep stage` line), the data it
 * reads (a path that does not exist, a data source the job never names:
 * launch.data). A call inside an `if` whose test the configs make false is
 * left out; one that may not run only warns. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/url.h"
#include "lint_internal.h"
#include "pyscan.h"
#include "url_internal.h"

bool jp_lint_job_has(const struct lint *L, const char *name)
{
	for (size_t i = 0; i < L->n_vars; i++)
		if (strcmp(L->vars[i].name, name) == 0)
			return true;
	for (size_t i = 0; i < L->ctx->n_env; i++)
		if (L->ctx->env[i].name && strcmp(L->ctx->env[i].name, name) == 0)
			return true;
	return false;
}

/* path as the project names it ("data/x/train.bin"), else whole. */
static const char *in_project(const struct lint *L, const char *path)
{
	const char *proj = L->ctx->project_dir;
	size_t n = proj ? strlen(proj) : 0;

	if (proj && jp_path_is_under(path, proj) && strlen(path) > n)
		return path + n + (strcmp(proj, "/") != 0);
	return path;
}

/* A finding that fails when `sure` (and the command's line surely ran). */
static void verdict(struct lint *L, bool sure, enum jp_lint_kind kind, const char *word,
		    const char *path, const char *msg)
{
	bool certain = L->certain;

	L->certain = sure;
	jp_lint_fail(L, kind, word, path, "%s", msg);
	L->certain = certain;
}

static void prompt(struct lint *L, const struct jp_pyscan_use *u, const char *where)
{
	char word[1200], *msg = NULL;
	bool sure = u->script && (!u->guarded || u->guard_value == 1);

	if (u->guard_value == 0)
		return;
	if (u->kind == JP_PYSCAN_WANDB &&
	    (jp_lint_job_has(L, "WANDB_API_KEY") || jp_lint_job_has(L, "WANDB_MODE") ||
	     jp_lint_job_has(L, "WANDB_DISABLED")))
		return;
	snprintf(word, sizeof(word), "%s: %s", where, u->call);
	if (u->kind == JP_PYSCAN_WANDB
		    ? asprintf(&msg,
			       _("%s: wandb.init() needs a W&B login, and job.env sets neither "
				 "WANDB_API_KEY nor WANDB_MODE: with no terminal the job waits for "
				 "one (or stops) when it starts; set WANDB_MODE=offline in job.env, or "
				 "WANDB_API_KEY (as a secret)"),
			       where) < 0
		    : asprintf(&msg,
			       _("%s: %s() waits for someone to type when the job starts, and nobody "
				 "will: the job sits there until its time limit; give the value as an "
				 "argument or in job.env instead"),
			       where, u->call) < 0) {
		L->oom = 1;
		return;
	}
	verdict(L, sure, JP_LINT_PROMPT, word, u->file, msg);
	free(msg);
}

static void fetch(struct lint *L, const struct jp_pyscan_use *u, const char *where)
{
	char word[1200], *line = NULL;

	snprintf(word, sizeof(word), "%s: %s", where, u->call);
	if (u->arg[0] && jp_url_fetch_kind(u->arg, NULL) == JP_FETCH_HTTP)
		line = jp_lint_stage_url(L, u->arg);
	if (line)
		jp_lint_add(L, JP_LINT_DOWNLOAD, word, u->file,
		    _("%s: %s('%s') downloads when the job starts, while the GPUs wait (and on "
		      "every Worker): stage it onto shared storage before submitting with: %s, and "
		      "run this step there once, not in the launch command"),
		    where, u->call, u->arg, line);
	else
		jp_lint_add(L, JP_LINT_DOWNLOAD, word, u->file,
		    _("%s: %s() downloads when the job starts, while the GPUs wait (and on every "
		      "Worker): run this step once before submitting, onto shared storage, not in "
		      "the launch command"),
		    where, u->call);
	free(line);
}

/* The folder of a script the command runs holds path: that script makes it
 * (nanoGPT's data/shakespeare_char/prepare.py writes train.bin beside it). */
static bool made_by_a_script(const struct lint *L, const char *path)
{
	for (size_t i = 0; i < L->scripts.n; i++) {
		const char *s = L->scripts.v[i], *slash = strrchr(s, '/');
		char dir[1024];

		if (!slash || (size_t)(slash - s) >= sizeof(dir))
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - s), s);
		if (L->ctx->project_dir && strcmp(dir, L->ctx->project_dir) == 0)
			continue; /* train.py beside everything makes nothing of it */
		if (jp_path_is_under(path, dir))
			return true;
	}
	return false;
}

static void read_missing(struct lint *L, const struct jp_pyscan_use *u, const char *where)
{
	const char *proj = L->ctx->project_dir;
	char *path = NULL, *msg = NULL, word[1200];

	if (!u->arg[0] || u->exists || u->guard_value == 0 || (u->arg[0] != '/' && !proj))
		return;
	path = u->arg[0] == '/' ? jp_path_normalize(u->arg) : NULL;
	if (!path && u->arg[0] != '/') {
		char *j = jp_path_join(proj, u->arg);
		path = j ? jp_path_normalize(j) : NULL;
		free(j);
	}
	if (!path) {
		L->oom = 1;
		return;
	}
	if (made_by_a_script(L, path) || jp_lint_was_written(L, path))
		goto out;
	snprintf(word, sizeof(word), "%s: %s", where, in_project(L, path));
	if (asprintf(&msg,
		     _("%s: %s reads %s, which does not exist: the job stops there; make it before "
		       "submitting (run the project's data preparation once, onto shared storage) "
		       "and point the code at it, or add the data source that holds it"),
		     where, u->call, path) < 0) {
		L->oom = 1;
		goto out;
	}
	verdict(L, u->script && (!u->guarded || u->guard_value != 0), JP_LINT_DATA, word, path, msg);
out:
	free(msg);
	free(path);
}

/* The text names the data source: $DATA_DIR, or its path. */
static bool names_data(const struct lint *L, const char *text, size_t n)
{
	const char *d = L->ctx->data_dir;

	return memmem(text, n, "DATA_DIR", 8) || (d && *d && memmem(text, n, d, strlen(d)));
}

static bool data_named(const struct lint *L, const char *command)
{
	if (names_data(L, command, strlen(command)))
		return true;
	for (size_t i = 0; i < L->scripts.n; i++) {
		size_t n = 0;
		char *text = jp_lint_read_head(L->scripts.v[i], &n);
		bool yes = !text || names_data(L, text, n);

		free(text);
		if (yes)
			return true; /* unreadable: said nothing */
	}
	for (size_t i = 0; i <= L->n_configs; i++) {
		const struct jp_lint_config *c = i < L->n_configs ? &L->configs[i].c : &L->overrides;

		for (size_t k = 0; k < c->n; k++)
			if (names_data(L, c->items[k].value, strlen(c->items[k].value)))
				return true;
	}
	return false;
}

void jp_lint_data_unused(struct lint *L, const char *command, const struct jp_pyscan_result *res)
{
	const struct jp_pyscan_use *read = NULL;
	char where[1100] = "";

	/* code in an image, or none of its scripts seen: nothing to say */
	if (!L->ctx->data_dir || !L->ctx->data_dir[0] || !L->ctx->project_is_local ||
	    L->scripts.n == 0 || data_named(L, command))
		return;
	for (size_t i = 0; res && i < res->n_uses && !read; i++)
		if (res->uses[i].kind == JP_PYSCAN_READ && res->uses[i].arg[0])
			read = &res->uses[i];
	if (read) {
		char *p = read->arg[0] == '/' || !L->ctx->project_dir
				  ? strdup(read->arg)
				  : jp_path_join(L->ctx->project_dir, read->arg);
		snprintf(where, sizeof(where), "%s:%u", in_project(L, read->file), read->line);
		if (!p) {
			L->oom = 1;
			return;
		}
		jp_lint_add(L, JP_LINT_DATA, "$DATA_DIR", L->ctx->data_dir,
		    _("the data source %s ($DATA_DIR) is never used: neither the launch command nor "
		      "the scripts it runs or the configs they name mention it, and the code reads "
		      "%s%s instead (%s: %s): pass the data on (e.g. --data_dir \"$DATA_DIR\"), or "
		      "point the code at it"),
		    L->ctx->data_dir, read->arg,
		    L->ctx->project_dir && jp_path_is_under(p, L->ctx->project_dir)
			    ? _(" inside the project")
			    : "",
		    where, p);
		free(p);
		return;
	}
	jp_lint_add(L, JP_LINT_DATA, "$DATA_DIR", L->ctx->data_dir,
	    _("the data source %s ($DATA_DIR) is never used: neither the launch command nor the "
	      "scripts it runs or the configs they name mention it, so the job reads its data from "
	      "somewhere else: pass it on (e.g. --data_dir \"$DATA_DIR\"), or point the code at it"),
	    L->ctx->data_dir);
}

void jp_lint_uses(struct lint *L, const struct jp_pyscan_result *res)
{
	for (size_t i = 0; i < res->n_uses && !L->oom; i++) {
		const struct jp_pyscan_use *u = &res->uses[i];
		char where[1100];

		snprintf(where, sizeof(where), "%s:%u", in_project(L, u->file), u->line);
		if (u->kind == JP_PYSCAN_PROMPT || u->kind == JP_PYSCAN_WANDB)
			prompt(L, u, where);
		else if (u->kind == JP_PYSCAN_FETCH)
			fetch(L, u, where);
		else if (u->kind == JP_PYSCAN_READ)
			read_missing(L, u, where);
	}
}
