/* The launch lint's way out of a download or an unpack in the job: the
 * `jobprep stage` line that does it before the job, for the finding's
 * message. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/profile.h"
#include "jobprep/shellwords.h"
#include "jobprep/stage.h"
#include "stage_internal.h"
#include "jobprep/url.h"
#include "lint_internal.h"
#include "url_internal.h"

static bool is_http(const char *s)
{
	return jp_url_fetch_kind(s, NULL) == JP_FETCH_HTTP;
}

/* Under a shared root of the profile, and under no more specific root of
 * another kind (public data is read-only, ephemeral roots are wiped). */
static bool on_shared(const struct lint *L, const char *path)
{
	const struct jp_profile *p = L->ctx->profile;
	const struct jp_strv *others[] = { p ? &p->public_roots : NULL,
					   p ? &p->ephemeral_roots : NULL };
	size_t best = 0;

	for (size_t i = 0; p && i < p->shared_roots.n; i++)
		if (jp_path_is_under(path, p->shared_roots.v[i]) && strlen(p->shared_roots.v[i]) >= best)
			best = strlen(p->shared_roots.v[i]) + 1;
	if (!best)
		return false;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; others[k] && i < others[k]->n; i++)
			if (jp_path_is_under(path, others[k]->v[i]) && strlen(others[k]->v[i]) >= best)
				return false;
	return true;
}

/* The folder the command itself puts its result in (tar -C DIR,
 * --directory=DIR, unzip -d DIR, wget -P DIR), expanded; NULL: none. */
static char *own_dest(const struct lint *L, const struct cmd *c, size_t i)
{
	static const char *const opts[] = { "-C", "--directory", "-d", "-P", "--directory-prefix" };

	for (size_t k = i + 1; k < c->n; k++) {
		const char *a = c->args[k]->text;
		for (size_t o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
			size_t n = strlen(opts[o]);
			if (strcmp(a, opts[o]) == 0 && k + 1 < c->n)
				return jp_lint_expand(L, c->args[k + 1]);
			if (n > 2 && strncmp(a, opts[o], n) == 0 && a[n] == '=') {
				struct jp_sh_word w = *c->args[k];
				w.text = (char *)a + n + 1;
				return jp_lint_expand(L, &w);
			}
		}
	}
	return NULL;
}

/* `jobprep stage 'SRC' 'DEST'`: into dest (the command's own folder, taken;
 * NULL: none) when it is on shared storage, never onto a folder the job's
 * machine wipes (tar -C /workspace); else the first data source, else
 * {shared}/datasets/{name}. NULL: nowhere to stage onto. */
static char *stage_into(struct lint *L, const char *src, char *dest)
{
	const struct jp_profile *p = L->ctx->profile;
	char *name = NULL, *qs = NULL, *qd = NULL, *line = NULL;

	if (dest && (dest[0] != '/' || strchr(dest, '$') || !on_shared(L, dest))) {
		free(dest);
		dest = NULL;
	}
	if (!dest && L->ctx->data_dir && on_shared(L, L->ctx->data_dir))
		dest = strdup(L->ctx->data_dir);
	if (!dest && p && p->shared_roots.n && (name = jp_stage_suggest_name(src))) {
		char *base = jp_path_join(p->shared_roots.v[0], "datasets");
		dest = base ? jp_path_join(base, name) : NULL;
		free(base);
	}
	if (dest && jp_sh_quote(&qs, src) == 0 && jp_sh_quote(&qd, dest) == 0 &&
	    asprintf(&line, "jobprep stage %s %s", qs, qd) < 0)
		line = NULL;
	free(dest);
	free(name);
	free(qs);
	free(qd);
	return line;
}

/* `jobprep stage 'SOURCE' 'DEST'` for what the command at i fetches (url:
 * its first http(s) operand) or unpacks (its first archive operand): into
 * the folder it names itself, else the first data source, else
 * {shared}/datasets/{name}. NULL when it names no such source. */
char *jp_lint_stage_line(struct lint *L, const struct cmd *c, size_t i, bool url)
{
	char *src = NULL, *line = NULL;

	for (size_t k = i + 1; k < c->n && !src; k++) {
		char *e = jp_lint_expand(L, c->args[k]);
		/* an archive named from where the command runs (cd "$DATA_DIR" && ...) */
		if (e && !url && e[0] != '/' && L->cwd && L->cwd[0] == '/' && !is_option(e)) {
			char *j = jp_path_join(L->cwd, e), *n = j ? jp_path_normalize(j) : NULL;
			free(j);
			free(e);
			e = n;
		}
		if (e && !strchr(e, '$') &&
		    (url ? is_http(e) : (e[0] == '/' && jp_stage_archive_suffix(e) != NULL)))
			src = e;
		else
			free(e);
	}
	if (!src)
		return NULL;
	line = stage_into(L, src, own_dest(L, c, i));
	free(src);
	return line;
}

char *jp_lint_stage_url(struct lint *L, const char *url)
{
	return stage_into(L, url, NULL);
}

