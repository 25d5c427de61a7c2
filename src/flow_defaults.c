/* The flow's defaults: from the profile's templates and from earlier answers
 * and action results, recomputed for every field the user has not set. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/fs.h"
#include "fs_internal.h"
#include "jobprep/git.h"
#include "jobprep/i18n.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "helper_internal.h"
#include "flow_internal.h"
#include "manifest_internal.h"

#define DEFAULT_LAUNCH "cd \"$PROJECT_DIR\" && bash scripts/train.sh"
#define DEFAULT_SCRIPT "scripts/train.sh"

const char *flow_shared_root(const struct jp_flow *flow)
{
	const struct jp_profile *p = flow->profile;
	return p->shared_roots.n > 0 ? p->shared_roots.v[0] : "/mnt/public";
}

static int append(char **buf, size_t *n, const char *s, size_t len)
{
	char *g = realloc(*buf, *n + len + 1);
	if (!g)
		return -1;
	memcpy(g + *n, s, len);
	*n += len;
	g[*n] = '\0';
	*buf = g;
	return 0;
}

char *flow_expand_template(const struct jp_flow *flow, const char *tmpl, const char *output)
{
	const char *job = flow->m->job.name;
	char *out = NULL;
	size_t n = 0;

	if (!tmpl)
		return NULL;
	if (append(&out, &n, "", 0) < 0)
		return NULL;
	for (const char *p = tmpl; *p;) {
		const char *val = NULL;
		size_t skip = 0;
		if (strncmp(p, "{shared}", 8) == 0) {
			val = flow_shared_root(flow);
			skip = 8;
		} else if (strncmp(p, "{job}", 5) == 0) {
			val = job;
			skip = 5;
		} else if (strncmp(p, "{output}", 8) == 0) {
			val = output;
			skip = 8;
		}
		if (skip) {
			if (!val || !*val) {
				free(out);
				return NULL; /* not known yet */
			}
			if (append(&out, &n, val, strlen(val)) < 0)
				goto oom;
			p += skip;
		} else {
			if (append(&out, &n, p, 1) < 0)
				goto oom;
			p++;
		}
	}
	/* "{shared}/" + "/x" style doubles, trailing '/' */
	char *w = out;
	for (char *r = out; *r; r++)
		if (!(r[0] == '/' && r[1] == '/'))
			*w++ = *r;
	*w = '\0';
	while (w - out > 1 && w[-1] == '/')
		*--w = '\0';
	return out;
oom:
	free(out);
	return NULL;
}

/* The wizard's looks at a folder, made in a helper process (helper.c) in
 * bounded time: one request, told which look to make. */
enum dir_look { DIR_ENTRIES, DIR_FILES, DIR_RUNS };

/* A look's answer (flat: it travels as its bytes). */
struct dir_answer {
	size_t n;          /* DIR_ENTRIES: entries; DIR_FILES: files */
	int errnum;        /* DIR_ENTRIES: why it could not be listed */
	unsigned long max; /* DIR_RUNS: the highest run number seen */
	bool reuse;        /* DIR_RUNS: that run's folder holds no manifest, no file */
};

static void runs_look(struct dir_answer *a, const char *dir, const char *prefix,
		      const char *suffix);

/* inputs: the look, the path, then prefix and suffix (DIR_RUNS's, NULL
 * for the others); answer: struct dir_answer */
static void dir_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct dir_answer a;
	int look = -1;
	char *path, *prefix, *suffix;

	probe_bytes_get(in, &look, sizeof(look));
	path = probe_bytes_get_str(in);
	prefix = probe_bytes_get_str(in);
	suffix = probe_bytes_get_str(in);
	memset(&a, 0, sizeof(a));
	if (in->bad || !path || (look == DIR_RUNS && (!prefix || !suffix)))
		out->bad = true; /* the caller reads it as a failed look */
	else if (look == DIR_ENTRIES)
		a.errnum = jp_fs_dir_count(&a.n, path) != 0 ? errno : 0;
	else if (look == DIR_FILES)
		a.n = jp_fs_count_files(path, 10000);
	else
		runs_look(&a, path, prefix, suffix);
	if (!out->bad)
		probe_bytes_put(out, &a, sizeof(a));
	free(path);
	free(prefix);
	free(suffix);
}
JP_HELPER_REQUEST(flow_dir, dir_serve, JP_HELPER_LOOK);

/* look at path in a helper, within the flow's timeout: 0 and *a;
 * JP_ENOMEM when the question could not be made; else < 0 with errno
 * ETIMEDOUT (it did not answer in time) or ENOMEM (it could not run). */
static int dir_look(struct dir_answer *a, enum dir_look look, const char *path,
		    const char *prefix, const char *suffix)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	int l = (int)look;
	int rc;

	memset(a, 0, sizeof(*a));
	probe_bytes_put(&in, &l, sizeof(l));
	probe_bytes_put_str(&in, path);
	probe_bytes_put_str(&in, prefix);
	probe_bytes_put_str(&in, suffix);
	/* the flow's timeout, or the look's own (0) */
	rc = in.bad ? JP_ENOMEM
		    : jp_helper_call(&ans, &jp_req_flow_dir, &in, path, flow_fs_timeout_ms(), NULL);
	if (rc == 0) {
		probe_bytes_get(&ans, a, sizeof(*a));
		if (ans.bad)
			rc = JP_EINTERNAL;
	}
	free(in.p);
	free(ans.p);
	if (rc < 0)
		errno = rc == JP_ETIMEOUT ? ETIMEDOUT : ENOMEM;
	return rc;
}

int flow_probe_classify(struct jp_probe_result *r, const struct jp_flow *flow, const char *path)
{
	struct jp_probe_opts o = JP_PROBE_OPTS_INIT;

	o.flags = JP_PROBE_CLASSIFY;
	o.timeout_ms = flow_fs_timeout_ms();
	return jp_probe_path(r, flow->profile, path, &o, NULL);
}

bool flow_dir_is_empty(const char *path, size_t *entries)
{
	struct dir_answer a;

	if (entries)
		*entries = 0;
	if (dir_look(&a, DIR_ENTRIES, path, NULL, NULL) < 0)
		return false; /* errno: ETIMEDOUT or ENOMEM */
	if (a.errnum) {
		errno = a.errnum;
		return a.errnum == ENOENT;
	}
	if (entries)
		*entries = a.n;
	return a.n == 0;
}

size_t flow_dir_files(const char *path)
{
	struct dir_answer a;

	return dir_look(&a, DIR_FILES, path, NULL, NULL) < 0 ? 0 : a.n;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The number in nm when it is prefix<digits>suffix, else -1. */
static long run_number(const char *nm, const char *prefix, const char *suffix)
{
	size_t ln = strlen(nm), lp = strlen(prefix), ls = strlen(suffix);
	unsigned long v = 0;

	if (ln <= lp + ls || strncmp(nm, prefix, lp) != 0 || strcmp(nm + ln - ls, suffix) != 0)
		return -1;
	for (size_t k = lp; k < ln - ls; k++) {
		if (!isdigit((unsigned char)nm[k]) || v > 100000000UL)
			return -1;
		v = v * 10 + (unsigned long)(nm[k] - '0');
	}
	return (long)v;
}

/* The highest prefix<n>suffix in dir, and whether its folder can be taken
 * again. */
static void runs_look(struct dir_answer *a, const char *dir, const char *prefix,
		      const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char last[256] = "", *p = NULL;

	if (!d)
		return;
	while ((de = readdir(d))) {
		long v = run_number(de->d_name, prefix, suffix);

		if (v > 0 && (unsigned long)v > a->max && strlen(de->d_name) < sizeof(last)) {
			a->max = (unsigned long)v;
			strcpy(last, de->d_name);
		}
	}
	closedir(d);
	/* The last run's folder left without a manifest (a prep stopped after
	 * making it, before writing): it holds no file at all, so the next
	 * prep takes it again instead of skipping a number for good. */
	if (last[0] && asprintf(&p, "%s/%s", dir, last) >= 0) {
		struct stat st;
		int fd = -1;

		a->reuse = stat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
			   jp_fs_count_files(p, 10000) == 0;
		/* ... unless a prep still holds it (made it, not written yet) */
		if (a->reuse && (fd = jp_fs_lock_dir(p)) < 0 && errno == EWOULDBLOCK)
			a->reuse = false;
		if (fd >= 0)
			close(fd);
		free(p);
	}
}

bool flow_is_run_folder(const struct jp_flow *flow, const char *path)
{
	char *expanded = flow_expand_template(flow, flow->profile->output_dir, NULL);
	const char *nnn = expanded ? strstr(expanded, "NNN") : NULL;
	const char *slash = nnn;
	size_t lb;
	bool yes = false;

	while (slash && slash > expanded && *slash != '/')
		slash--;
	if (path && nnn && *slash == '/' && !strchr(nnn, '/')) {
		lb = (size_t)(slash - expanded);
		if (strncmp(path, expanded, lb + 1) == 0 && !strchr(path + lb + 1, '/')) {
			char *prefix = strndup(slash + 1, (size_t)(nnn - slash - 1));

			yes = prefix && run_number(path + lb + 1, prefix, nnn + 3) >= 0;
			free(prefix);
		}
	}
	free(expanded);
	return yes;
}

/* "run-NNN" with NNN the next free number: one past the highest run-<n>
 * already in the base directory, at least three digits; the highest one
 * itself when it was left without anything in it (*reuse). */
static char *next_run(const char *expanded, bool *reuse)
{
	const char *nnn = strstr(expanded, "NNN");
	const char *slash;
	char *base = NULL, *prefix = NULL, *out = NULL;
	const char *suffix;
	struct dir_answer a;
	int rc;

	*reuse = false;
	if (!nnn)
		return strdup(expanded);
	slash = nnn;
	while (slash > expanded && *slash != '/')
		slash--;
	if (*slash != '/' || strchr(nnn, '/'))
		return NULL; /* NNN must sit in the last component */
	base = strndup(expanded, (size_t)(slash - expanded));
	prefix = strndup(slash + 1, (size_t)(nnn - slash - 1));
	suffix = nnn + 3;
	if (!base || !prefix)
		goto out;
	/* A base that does not answer: start at 001 (creating it will tell). */
	rc = dir_look(&a, DIR_RUNS, *base ? base : "/", prefix, suffix);
	if (rc == JP_ENOMEM)
		goto out;
	if (rc < 0)
		a.max = 0;
	*reuse = rc == 0 && a.reuse && a.max > 0;
	if (asprintf(&out, "%s/%s%03lu%s", base, prefix, *reuse ? a.max : a.max + 1, suffix) < 0)
		out = NULL;
out:
	free(base);
	free(prefix);
	return out;
}

/* The output directory default, remembered per base so that creating it
 * does not move the default on to the next number. */
static int default_output(struct jp_flow *flow, char **out)
{
	char *expanded = flow_expand_template(flow, flow->profile->output_dir, NULL);

	*out = NULL;
	if (!expanded)
		return 0;
	if (flow->run_base && strcmp(flow->run_base, expanded) == 0) {
		free(expanded);
		*out = flow->run_dir ? strdup(flow->run_dir) : NULL;
		return flow->run_dir && !*out ? JP_ENOMEM : 0;
	}
	char *dir = next_run(expanded, &flow->run_reuse);
	free(flow->run_base);
	free(flow->run_dir);
	flow->run_base = expanded;
	flow->run_dir = dir;
	*out = dir ? strdup(dir) : NULL;
	return dir && !*out ? JP_ENOMEM : 0;
}

static bool file_exists(const char *dir, const char *rel)
{
	char *p = NULL;
	struct stat st;
	bool ok;

	int errnum = 0;

	if (!dir || asprintf(&p, "%s/%s", dir, rel) < 0)
		return false;
	ok = jp_probe_stat(&st, &errnum, p, 0, flow_fs_timeout_ms(), NULL) == 0 && !errnum &&
	     S_ISREG(st.st_mode);
	free(p);
	return ok;
}

int flow_launch_clone_line(char **out, const struct jp_flow *flow, struct jp_error *err)
{
	const struct jp_manifest *m = flow->m;

	*out = NULL;
	if (!m->code.repo_url || !m->code.repo_commit || !m->code.path)
		return 0;
	return jp_git_clone_command(out, m->code.repo_url, m->code.repo_commit, m->code.path, 0,
				    err);
}

static bool clone_matches(const struct jp_flow *flow)
{
	const struct jp_manifest *m = flow->m;
	return flow->cloned_path && str_eq(flow->cloned_path, m->code.path) &&
	       jp_url_same_repo(flow->cloned_url, m->code.repo_url) &&
	       str_eq(flow->cloned_req_ref, flow->set[K_REPO_REF] ? m->code.repo_ref : NULL);
}

static bool resolve_matches(const struct jp_flow *flow)
{
	const struct jp_manifest *m = flow->m;
	return flow->resolved_url && jp_url_same_repo(flow->resolved_url, m->code.repo_url) &&
	       str_eq(flow->resolved_req_ref, flow->set[K_REPO_REF] ? m->code.repo_ref : NULL);
}

static const char *short_ref(const char *full)
{
	if (!full)
		return NULL;
	if (strncmp(full, "refs/heads/", 11) == 0)
		return full + 11;
	if (strncmp(full, "refs/tags/", 10) == 0)
		return full + 10;
	return full;
}

/* Set *field unless the user set it. */
static int dflt(struct jp_flow *flow, enum fkey k, char **field, const char *value)
{
	if (flow->set[k])
		return 0;
	return jp_set_str(field, value);
}

static int dflt_owned(struct jp_flow *flow, enum fkey k, char **field, char *value)
{
	int rc = dflt(flow, k, field, value);
	free(value);
	return rc;
}

static int recompute_code(struct jp_flow *flow, struct jp_error *err)
{
	struct jp_manifest *m = flow->m;
	char *v = NULL;
	int rc = 0;

	if (!flow->set[K_CODE_SOURCE])
		m->code.source = JP_CODE_SHARED_STORAGE;

	/* project directory */
	if (m->code.source == JP_CODE_SHARED_STORAGE) {
		v = flow_expand_template(flow, flow->profile->project_dir, NULL);
	} else if (m->code.source == JP_CODE_LAUNCH_CLONE && m->job.name) {
		const struct jp_strv *eph = &flow->profile->ephemeral_roots;
		const char *root = "/workspace";
		bool have = false;
		for (size_t i = 0; i < eph->n; i++)
			if (strcmp(eph->v[i], "/workspace") == 0)
				have = true;
		if (!have && eph->n > 0)
			root = eph->v[0];
		if (asprintf(&v, "%s/%s", root, m->job.name) < 0)
			v = NULL;
	}
	if (dflt_owned(flow, K_CODE_PATH, &m->code.path, v) < 0)
		return JP_ENOMEM;

	/* checkout: an existing non-empty directory we did not clone is a checkout */
	if (!flow->set[K_CODE_CHECKOUT]) {
		size_t n = 0;
		bool ours = flow->cloned_path && str_eq(flow->cloned_path, m->code.path);
		flow->checkout = CHECKOUT_CLONE;
		if (m->code.path && !ours && !flow_dir_is_empty(m->code.path, &n) && n > 0)
			flow->checkout = CHECKOUT_EXISTING;
	}

	/* repository: what the actions found, unless the user said */
	const char *url = NULL, *ref = NULL, *commit = NULL;
	if (m->code.source == JP_CODE_SHARED_STORAGE && flow->checkout == CHECKOUT_CLONE) {
		if (clone_matches(flow)) {
			ref = flow->cloned_ref;
			commit = flow->cloned_commit;
		}
	} else if (m->code.source == JP_CODE_SHARED_STORAGE) {
		if (flow->insp.path && str_eq(flow->insp.path, m->code.path) && flow->insp.is_git) {
			url = flow->insp.url;
			ref = flow->insp.branch;
			commit = flow->insp.commit[0] ? flow->insp.commit : NULL;
		}
	} else if (m->code.source == JP_CODE_LAUNCH_CLONE) {
		if (resolve_matches(flow)) {
			ref = short_ref(flow->resolved_ref);
			commit = flow->resolved_commit;
		}
	}
	if (dflt(flow, K_REPO_URL, &m->code.repo_url, url) < 0 ||
	    dflt(flow, K_REPO_REF, &m->code.repo_ref, ref) < 0 ||
	    jp_set_str(&m->code.repo_commit, commit) < 0)
		return JP_ENOMEM;
	if (m->code.source != JP_CODE_IMAGE && !flow->set[K_IMAGE] &&
	    jp_set_str(&m->code.image, NULL) < 0)
		return JP_ENOMEM;
	(void)err;
	return rc;
}

static int recompute_outputs(struct jp_flow *flow)
{
	struct jp_manifest *m = flow->m;
	char *v = NULL;

	if (!flow->set[K_OUTPUT_DIR]) {
		if (default_output(flow, &v) < 0)
			return JP_ENOMEM;
		if (dflt_owned(flow, K_OUTPUT_DIR, &m->outputs.output_dir, v) < 0)
			return JP_ENOMEM;
	}
	const char *out = m->outputs.output_dir;
	if (dflt_owned(flow, K_CHECKPOINT_DIR, &m->outputs.checkpoint_dir,
		       flow_expand_template(flow, flow->profile->checkpoint_dir, out)) < 0 ||
	    dflt_owned(flow, K_LOG_DIR, &m->outputs.log_dir,
		       flow_expand_template(flow, flow->profile->log_dir, out)) < 0)
		return JP_ENOMEM;

	char *manifest = NULL, *env = NULL;
	if (out && asprintf(&manifest, "%s/job.json", out) < 0)
		return JP_ENOMEM;
	if (dflt_owned(flow, K_MANIFEST_PATH, &flow->manifest_path, manifest) < 0)
		return JP_ENOMEM;
	/* in the run's folder, wherever the manifest's copy goes: runs never
	 * share an env.sh */
	if (out && asprintf(&env, "%s/env.sh", out) < 0)
		return JP_ENOMEM;
	return dflt_owned(flow, K_ENV_PATH, &flow->env_path, env);
}

static int recompute_launch(struct jp_flow *flow, struct jp_error *err)
{
	struct jp_manifest *m = flow->m;
	char *v = NULL;

	if (flow->set[K_LAUNCH])
		return 0;
	switch (m->code.source) {
	case JP_CODE_SHARED_STORAGE:
		/* when the script is there, or the clone that brings it is still to come */
		if (file_exists(m->code.path, DEFAULT_SCRIPT) ||
		    (flow->checkout == CHECKOUT_CLONE && !clone_matches(flow)))
			v = strdup(DEFAULT_LAUNCH);
		break;
	case JP_CODE_IMAGE:
		v = strdup(DEFAULT_LAUNCH);
		break;
	case JP_CODE_LAUNCH_CLONE: {
		char *line = NULL;
		int rc = flow_launch_clone_line(&line, flow, err);
		if (rc < 0)
			return rc;
		if (line && asprintf(&v, "%s && %s", line, DEFAULT_LAUNCH) < 0)
			v = NULL;
		free(line);
		break;
	}
	default:
		break;
	}
	return dflt_owned(flow, K_LAUNCH, &m->job.launch_command, v);
}

static bool under_any(const struct jp_strv *roots, const char *path)
{
	for (size_t i = 0; path && i < roots->n; i++) {
		size_t n = strlen(roots->v[i]);
		if (strncmp(path, roots->v[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

static int recompute_data(struct jp_flow *flow)
{
	struct jp_manifest *m = flow->m;

	for (size_t i = 0; i < m->n_data; i++) {
		struct jp_data_source *d = &m->data[i];
		struct data_extra *x = &flow->dx[i];
		if (!x->name_set) {
			char *name = NULL;
			const char *slash = d->path ? strrchr(d->path, '/') : NULL;
			if (slash && slash[1])
				name = strdup(slash + 1);
			else if (asprintf(&name, "data-%zu", i + 1) < 0)
				name = NULL;
			if (!name)
				return JP_ENOMEM;
			free(d->name);
			d->name = name;
		}
		if (!x->kind_set)
			d->kind = under_any(&flow->profile->public_roots, d->path) ? JP_DATA_PUBLIC
										 : JP_DATA_TEAM;
		if (!x->ro_set)
			d->read_only = d->kind == JP_DATA_PUBLIC;
		/* stats from a complete scan of this very path */
		d->has_stats = x->scanned_path && str_eq(x->scanned_path, d->path) && x->complete;
		if (d->has_stats)
			d->stats = x->stats;
		else
			memset(&d->stats, 0, sizeof(d->stats));
	}
	return 0;
}

int flow_recompute(struct jp_flow *flow, struct jp_error *err)
{
	int rc;

	rc = recompute_code(flow, err);
	if (rc == 0)
		rc = recompute_outputs(flow);
	if (rc == 0)
		rc = recompute_data(flow);
	if (rc == 0)
		rc = recompute_launch(flow, err);
	if (rc == JP_ENOMEM)
		return jp_error_oom(err);
	return rc;
}
