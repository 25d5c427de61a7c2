/* The launch lint's look for downloads from the Hugging Face Hub when the job
 * starts (launch.hub_download): the Python files the command runs, and the
 * project's modules they import, read by pyscan.c in a child process bounded
 * in time (the project may sit on a mount that hung). A call that names a
 * Hub repository makes every rank download it at start into one cache
 * (sglang #3291, TensorRT-LLM #6824, srt-slurm #251) unless job.env points
 * HF_HOME at shared storage holding a copy and sets HF_HUB_OFFLINE=1; the
 * finding names the files and lines and the `jobprep stage hf://` line that
 * makes the copy. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/probe.h"
#include "jobprep/shellwords.h"
#include "lint_internal.h"
#include "pyscan.h"
#include "probe_internal.h"
#include "manifest_internal.h"

#define MAX_SCRIPTS 16
#define SHOWN_PLACES 3

struct hub_call {
	struct jp_pyscan_result res; /* the answer: first, flat */
	const char *scripts[MAX_SCRIPTS];
	size_t n;
	const char *project, *cache;
};

static void hub_scan(void *arg)
{
	struct hub_call *c = arg;

	jp_pyscan_run(&c->res, c->scripts, c->n, c->project, c->cache);
}

/* A variable's value as the job sees it: the command's own assignments,
 * else job.env. */
static const char *job_var(const struct lint *L, const char *name)
{
	for (size_t i = L->n_vars; i-- > 0;)
		if (strcmp(L->vars[i].name, name) == 0)
			return L->vars[i].value;
	for (size_t i = 0; i < L->ctx->n_env; i++)
		if (L->ctx->env[i].name && strcmp(L->ctx->env[i].name, name) == 0)
			return L->ctx->env[i].value;
	return NULL;
}

/* huggingface_hub's true values for HF_HUB_OFFLINE */
static bool truthy(const char *v)
{
	return v && (strcasecmp(v, "1") == 0 || strcasecmp(v, "on") == 0 ||
		     strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0);
}

/* On storage every Worker sees the same: a shared or public root of the
 * profile, else a network mount. */
static bool on_shared(struct lint *L, const char *path)
{
	const struct jp_profile *pr = L->ctx->profile;
	const struct jp_mount *mnt;

	for (size_t i = 0; pr && i < pr->shared_roots.n; i++)
		if (jp_path_is_under(path, pr->shared_roots.v[i]))
			return true;
	for (size_t i = 0; pr && i < pr->public_roots.n; i++)
		if (jp_path_is_under(path, pr->public_roots.v[i]))
			return true;
	for (size_t i = 0; pr && i < pr->ephemeral_roots.n; i++)
		if (jp_path_is_under(path, pr->ephemeral_roots.v[i]))
			return false;
	if (L->mounts_state == 0)
		L->mounts_state = jp_mount_table_load(&L->mounts, NULL, NULL) == 0 ? 1 : -1;
	mnt = L->mounts_state == 1 ? jp_mount_table_find(&L->mounts, path) : NULL;
	return mnt && jp_fs_kind_of(mnt->fstype) == JP_FS_NETWORK;
}

struct hub_env {
	char *home;   /* HF_HOME (absolute, normalised) or NULL */
	char *cache;  /* the hub cache: HF_HUB_CACHE, else HF_HOME/hub; NULL */
	bool shared, offline;
};

static void hub_env(struct lint *L, struct hub_env *e)
{
	const char *home = job_var(L, "HF_HOME"), *cache = job_var(L, "HF_HUB_CACHE");

	e->offline = truthy(job_var(L, "HF_HUB_OFFLINE"));
	e->home = home && home[0] == '/' ? jp_path_normalize(home) : NULL;
	if (cache && cache[0] == '/')
		e->cache = jp_path_normalize(cache);
	else if (e->home)
		e->cache = jp_path_join(e->home, "hub");
	e->shared = e->cache && on_shared(L, e->cache);
}

/* "train.py:12, model.py:40 and 2 more" for the hits of repo. */
static void places(const struct lint *L, const struct jp_pyscan_result *r, size_t first,
		   char *out, size_t n)
{
	const struct jp_pyscan_hit *h0 = &r->hits[first];
	size_t shown = 0, more = 0, len = 0;

	out[0] = '\0';
	for (size_t i = first; i < r->n_hits; i++) {
		const struct jp_pyscan_hit *h = &r->hits[i];
		const char *f = h->file, *proj = L->ctx->project_dir;

		if (strcmp(h->repo, h0->repo) != 0 || h->dataset != h0->dataset)
			continue;
		if (shown == SHOWN_PLACES) {
			more++;
			continue;
		}
		if (proj && jp_path_is_under(f, proj) && strlen(f) > strlen(proj))
			f += strlen(proj) + (strcmp(proj, "/") != 0);
		len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s%s:%u", shown ? ", " : "",
					f, h->line);
		shown++;
	}
	if (more && len < n)
		snprintf(out + len, n - len, _(" and %zu more"), more);
}

/* Why the download happens at every start, for the message. */
static const char *why(const struct hub_env *e, const char *home_value, char *buf, size_t n)
{
	if (!home_value)
		snprintf(buf, n, "%s", _("job.env sets no HF_HOME, so each Worker downloads into its own cache"));
	else if (!e->shared)
		snprintf(buf, n, _("HF_HOME=%s is not on shared storage"), home_value);
	else if (!e->offline)
		snprintf(buf, n, "%s", _("HF_HUB_OFFLINE=1 is not set, so every rank asks the Hub"));
	else
		snprintf(buf, n, _("HF_HUB_OFFLINE=1 is set, but %s holds no copy of it: the job fails "
				   "to load it"),
			 e->cache);
	return buf;
}

static void finding(struct lint *L, const struct hub_env *e, const struct jp_pyscan_result *r,
		    size_t i)
{
	const struct jp_pyscan_hit *h = &r->hits[i];
	const char *pr_shared = L->ctx->profile && L->ctx->profile->shared_roots.n
					? L->ctx->profile->shared_roots.v[0] : "/mnt/public";
	char where[512], reason[600], source[160], *dest = NULL, *qdest = NULL, *qsrc = NULL;

	places(L, r, i, where, sizeof(where));
	why(e, job_var(L, "HF_HOME"), reason, sizeof(reason));
	snprintf(source, sizeof(source), "hf://%s%s", h->dataset ? "datasets/" : "", h->repo);
	dest = e->home && e->shared ? strdup(e->home) : jp_path_join(pr_shared, "hf");
	if (!dest || jp_sh_quote(&qdest, dest) < 0 || jp_sh_quote(&qsrc, source) < 0) {
		L->oom = 1;
		goto out;
	}
	jp_lint_add(L, JP_LINT_HUB_DOWNLOAD, source + 5, h->file,
	    _("%s: %s(\"%s\") downloads %s from the Hugging Face Hub when the job starts, on every "
	      "rank at once into one cache (%s): stage it before the job, jobprep stage %s %s, and "
	      "set HF_HOME=%s and HF_HUB_OFFLINE=1 in job.env"),
	    where, h->call, h->repo, h->repo, reason, qsrc, qdest, qdest);
out:
	free(dest);
	free(qdest);
	free(qsrc);
}

static bool ends_py(const char *s)
{
	size_t n = strlen(s);

	return n > 3 && strcmp(s + n - 3, ".py") == 0;
}

void jp_lint_hub(struct lint *L)
{
	struct hub_call *c = calloc(1, sizeof(*c));
	struct hub_env e = { NULL, NULL, false, false };
	unsigned ms = 2 * jp_probe_default_timeout_ms();
	int rc;

	if (!c) {
		L->oom = 1;
		return;
	}
	for (size_t i = 0; i < L->scripts.n && c->n < MAX_SCRIPTS; i++)
		if (ends_py(L->scripts.v[i]))
			c->scripts[c->n++] = L->scripts.v[i];
	if (c->n == 0)
		goto out;
	hub_env(L, &e);
	c->project = L->ctx->project_is_local ? L->ctx->project_dir : NULL;
	c->cache = e.cache;
	rc = jp_probe_call_flat(hub_scan, c, sizeof(c->res), c->project ? c->project : c->scripts[0],
				ms, NULL);
	if (rc == JP_ETIMEOUT) {
		jp_lint_add(L, JP_LINT_HUB_DOWNLOAD, "", c->scripts[0],
		    _("%s: the Python code did not answer within %u s, so it was not looked at for "
		      "downloads from the Hugging Face Hub at job start (is a network mount hung?)"),
		    c->scripts[0], ms / 1000);
		goto out;
	}
	if (rc != 0)
		goto out;
	for (size_t i = 0; i < c->res.n_hits && !L->oom; i++) {
		const struct jp_pyscan_hit *h = &c->res.hits[i];

		if (e.offline && e.shared && h->staged)
			continue;
		finding(L, &e, &c->res, i);
	}
out:
	free(e.home);
	free(e.cache);
	free(c);
}
