/* The launch lint's look for downloads from the Hugging Face Hub when the job
 * starts (launch.hub_download): the Python files the command runs, and the
 * project's modules they import, read by pyscan.c in a helper process bounded
 * in time (the project may sit on a mount that hung). A call that names a
 * Hub repository makes every rank download it at start into one cache
 * (sglang #3291, TensorRT-LLM #6824, srt-slurm #251) unless job.env points
 * HF_HOME at shared storage holding a copy and sets HF_HUB_OFFLINE=1; the
 * finding names the files and lines and the `jobprep stage hf://` line that
 * makes the copy. */
#include "config.h"

#include <stdint.h>
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
#include "helper_internal.h"
#include "manifest_internal.h"

#define MAX_SCRIPTS 16
#define SHOWN_PLACES 3

/* inputs: the number of scripts, each script, the project and the cache
 * folders (each may be NULL); answer: the struct jp_pyscan_result, flat
 * (its hits hold arrays, no pointers) */
static void hub_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_pyscan_result *res = calloc(1, sizeof(*res));
	char *scripts[MAX_SCRIPTS] = { NULL }, *project, *cache;
	char **vars = calloc(JP_PYSCAN_MAX_VARS, sizeof(*vars));
	uint64_t n = 0, n_vars = 0;

	probe_bytes_get(in, &n, sizeof(n));
	if (n > MAX_SCRIPTS)
		in->bad = true;
	for (size_t i = 0; i < MAX_SCRIPTS && i < (size_t)n; i++)
		scripts[i] = probe_bytes_get_str(in);
	project = probe_bytes_get_str(in);
	cache = probe_bytes_get_str(in);
	probe_bytes_get(in, &n_vars, sizeof(n_vars));
	if (n_vars > JP_PYSCAN_MAX_VARS || !vars)
		in->bad = true;
	for (size_t i = 0; vars && i < JP_PYSCAN_MAX_VARS && i < (size_t)n_vars; i++)
		vars[i] = probe_bytes_get_str(in);
	if (!res) {
		out->bad = true;
	} else if (!in->bad) {
		jp_pyscan_run_vars(res, (const char *const *)scripts, (size_t)n, project, cache,
				   (const char *const *)vars, (size_t)n_vars);
		probe_bytes_put(out, res, sizeof(*res));
	}
	for (size_t i = 0; vars && i < JP_PYSCAN_MAX_VARS; i++)
		free(vars[i]);
	free(vars);
	for (size_t i = 0; i < MAX_SCRIPTS; i++)
		free(scripts[i]);
	free(project);
	free(cache);
	free(res);
}
JP_HELPER_REQUEST(lint_hub, hub_serve, JP_HELPER_LONG_LOOK);

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

/* The scan in a helper process (a hung mount costs a timeout and a finding
 * that says so); its result into *res. Returns 0, JP_ETIMEOUT, or
 * JP_EINTERNAL. */
/* The values the configs the command names give (its key=value overrides
 * last), "NAME=VALUE" each, into in: what pyscan follows a variable to. */
static void put_vars(struct probe_bytes *in, const struct lint *L)
{
	uint64_t n = 0;
	size_t at;

	for (size_t i = 0; i < L->n_configs; i++)
		n += L->configs[i].c.n;
	n += L->overrides.n;
	if (n > JP_PYSCAN_MAX_VARS)
		n = JP_PYSCAN_MAX_VARS;
	probe_bytes_put(in, &n, sizeof(n));
	at = 0;
	for (size_t i = 0; i <= L->n_configs; i++) {
		const struct jp_lint_config *c = i < L->n_configs ? &L->configs[i].c : &L->overrides;

		for (size_t k = 0; k < c->n; k++, at++) {
			char *kv = NULL;

			if (at >= n)
				return;
			if (asprintf(&kv, "%s=%s", c->items[k].key, c->items[k].value) < 0) {
				in->bad = true;
				return;
			}
			probe_bytes_put_str(in, kv);
			free(kv);
		}
	}
}

static int hub_scan(struct jp_pyscan_result *res, const struct lint *L,
		    const char *const *scripts, size_t n, const char *project, const char *cache,
		    unsigned ms)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	const char *where = project ? project : scripts[0];
	uint64_t n64 = n;
	int rc;

	probe_bytes_put(&in, &n64, sizeof(n64));
	for (size_t i = 0; i < n; i++)
		probe_bytes_put_str(&in, scripts[i]);
	probe_bytes_put_str(&in, project);
	probe_bytes_put_str(&in, cache);
	put_vars(&in, L);
	/* a mount known hung: JP_ETIMEOUT at once */
	rc = in.bad ? JP_ENOMEM : jp_helper_call(&ans, &jp_req_lint_hub, &in, where, ms, NULL);
	if (rc == 0) {
		probe_bytes_get(&ans, res, sizeof(*res));
		if (ans.bad || res->n_hits > JP_PYSCAN_MAX_HITS ||
		    res->n_modules > JP_PYSCAN_MAX_MODULES || res->n_uses > JP_PYSCAN_MAX_USES)
			rc = JP_EINTERNAL;
		for (size_t i = 0; rc == 0 && i < res->n_modules; i++)
			res->modules[i][JP_PYSCAN_MODULE_LEN - 1] = '\0';
	}
	free(in.p);
	free(ans.p);
	return rc;
}

void jp_lint_hub(struct lint *L, const char *command)
{
	struct jp_pyscan_result *res = calloc(1, sizeof(*res));
	struct hub_env e = { NULL, NULL, false, false };
	const char *scripts[MAX_SCRIPTS];
	unsigned ms = jp_helper_deadline_ms(&jp_req_lint_hub);
	size_t n = 0;
	bool scanned = false;
	int rc = 0;

	if (!res) {
		L->oom = 1;
		return;
	}
	for (size_t i = 0; i < L->scripts.n && n < MAX_SCRIPTS; i++)
		if (ends_py(L->scripts.v[i]))
			scripts[n++] = L->scripts.v[i];
	if (n == 0)
		goto out;
	hub_env(L, &e);
	rc = hub_scan(res, L, scripts, n, L->ctx->project_is_local ? L->ctx->project_dir : NULL,
		      e.cache, ms);
	if (rc == JP_ETIMEOUT) {
		jp_lint_add(L, JP_LINT_HUB_DOWNLOAD, "", scripts[0],
		    _("%s: the Python code did not answer within %u s, so it was not looked at for "
		      "downloads from the Hugging Face Hub at job start (is a network mount hung?)"),
		    scripts[0], ms / 1000);
		goto out;
	}
	if (rc != 0)
		goto out;
	if (L->python)
		*L->python = *res;
	for (size_t i = 0; i < res->n_hits && !L->oom; i++) {
		const struct jp_pyscan_hit *h = &res->hits[i];

		if (e.offline && e.shared && h->staged)
			continue;
		finding(L, &e, res, i);
	}
	/* prompts, downloads and the data it reads (lint_uses.c) */
	jp_lint_uses(L, res);
	scanned = true;
out:
	/* its look reads the scripts again: not on storage that did not answer */
	if (!L->oom && !L->hung && rc != JP_ETIMEOUT)
		jp_lint_data_unused(L, command, scanned ? res : NULL);
	free(e.home);
	free(e.cache);
	free(res);
}
