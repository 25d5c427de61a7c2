/* The per-user index of jobs -> the profile their runs were made with
 * (jobprep/jobindex.h). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "jobprep/fs.h"
#include "jobprep/i18n.h"
#include "jobprep/input.h"
#include "jobprep/jobindex.h"
#include "jobprep/manifest.h"
#include "profile_internal.h"
#include "jobindex_internal.h"

#define INDEX_MAX (1 << 22)

int jp_jobindex_path(char **out, struct jp_error *err)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;

	*out = NULL;
	if (state && state[0] == '/')
		n = asprintf(out, "%s/jobprep/jobs.json", state);
	else if (home && home[0] == '/')
		n = asprintf(out, "%s/.local/state/jobprep/jobs.json", home);
	else
		return jp_error_set(err, JP_ENOENT, "%s",
				    _("no place for the index of jobs: neither XDG_STATE_HOME nor "
				      "HOME is set"));
	if (n < 0) {
		*out = NULL;
		return jp_error_oom(err);
	}
	return 0;
}

/* The index goes under $XDG_STATE_HOME (made if need be), else under an
 * existing $HOME only: HOME=/nonexistent (a service, a test) gets none. */
static bool home_is_there(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	struct stat st;

	if (state && state[0] == '/')
		return true;
	return home && stat(home, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The index as it is; a missing or unreadable one is an empty one. */
static cJSON *load(const char *path)
{
	struct jp_error ignored = JP_ERROR_INIT;
	char *text = NULL;
	size_t len = 0;
	cJSON *doc = NULL;

	if (jp_input_read(&text, &len, path, INDEX_MAX, &ignored) == 0)
		doc = cJSON_ParseWithLength(text, len);
	free(text);
	jp_error_dispose(&ignored);
	if (doc && !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "jobs"))) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	if (!doc && (doc = cJSON_CreateObject()) && !cJSON_AddObjectToObject(doc, "jobs")) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	return doc;
}

static int entry(cJSON **out, const struct jp_profile *profile, const char *run_dir)
{
	cJSON *e = cJSON_CreateObject(), *p = jp_profile_to_json(profile);
	char at[32];
	time_t now = time(NULL);
	struct tm tm;

	*out = NULL;
	strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (!e || !p || !cJSON_AddItemToObject(e, "profile", p)) {
		cJSON_Delete(p);
		cJSON_Delete(e);
		return JP_ENOMEM;
	}
	if (!cJSON_AddStringToObject(e, "run", run_dir ? run_dir : "") ||
	    !cJSON_AddStringToObject(e, "at", at)) {
		cJSON_Delete(e);
		return JP_ENOMEM;
	}
	*out = e;
	return 0;
}

int jp_jobindex_record(const char *job, const struct jp_profile *profile, const char *run_dir,
		       struct jp_error *err)
{
	char *path = NULL, *dir = NULL, *text = NULL, *slash;
	cJSON *doc = NULL, *e = NULL, *jobs;
	int rc;

	if (!job || !job[0] || !profile)
		return 0;
	if ((rc = jp_jobindex_path(&path, err)) < 0)
		return rc;
	if (!home_is_there()) {
		free(path);
		return JP_ENOENT; /* a HOME that is not there is not made for a hint */
	}
	rc = JP_ENOMEM;
	if (!(doc = load(path)) || entry(&e, profile, run_dir) < 0)
		goto out;
	jobs = cJSON_GetObjectItemCaseSensitive(doc, "jobs");
	cJSON_DeleteItemFromObjectCaseSensitive(jobs, job);
	if (!cJSON_AddItemToObject(jobs, job, e))
		goto out;
	e = NULL;
	if (!(text = cJSON_Print(doc)) || !(dir = strdup(path)))
		goto out;
	if ((slash = strrchr(dir, '/')) && slash != dir)
		*slash = '\0';
	if (jp_fs_mkdir_p(NULL, dir, 0700, NULL) < 0) {
		rc = jp_error_set(err, JP_EIO, _("%s: cannot create the folder of the index of jobs: %s"),
				  dir, strerror(errno));
		goto out;
	}
	rc = jp_file_write_atomic(path, text, strlen(text), 0600, err);
out:
	if (rc == JP_ENOMEM)
		jp_error_oom(err);
	if (text)
		cJSON_free(text);
	cJSON_Delete(e);
	cJSON_Delete(doc);
	free(dir);
	free(path);
	return rc;
}

int jp_jobindex_profile(struct jp_profile **out, const char *job, struct jp_error *err)
{
	char *path = NULL;
	cJSON *doc, *e;
	int rc;

	*out = NULL;
	if ((rc = jp_jobindex_path(&path, err)) < 0)
		return rc;
	doc = load(path);
	e = doc ? cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "jobs"), job)
		: NULL;
	e = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "profile") : NULL;
	if (!doc)
		rc = jp_error_oom(err);
	else if (!cJSON_IsObject(e))
		rc = JP_ENOENT;
	else if ((rc = jp_profile_from_json(out, e, path, err)) < 0)
		rc = JP_EFORMAT;
	cJSON_Delete(doc);
	free(path);
	return rc;
}

void jp_jobindex_entries_free(struct jp_jobindex_entry *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].run);
		free(v[i].at);
	}
	free(v);
}

static const char *entry_text(const cJSON *e, const char *key)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, key);

	return cJSON_IsString(s) && s->valuestring ? s->valuestring : "";
}

/* The latest first: RFC 3339 UTC stamps sort as text; within one second,
 * the one recorded later (a record moves its job to the end of the file). */
struct ranked {
	struct jp_jobindex_entry e;
	size_t pos;
};

static int latest_first(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = strcmp(y->e.at, x->e.at);

	return c ? c : (x->pos < y->pos) - (x->pos > y->pos);
}

static void sort_latest_first(struct jp_jobindex_entry *v, size_t n)
{
	struct ranked *r = calloc(n ? n : 1, sizeof(*r));

	if (!r)
		return; /* the file's order, then: still every job */
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ v[i], i };
	qsort(r, n, sizeof(*r), latest_first);
	for (size_t i = 0; i < n; i++)
		v[i] = r[i].e;
	free(r);
}

int jp_jobindex_list(struct jp_jobindex_entry **out, size_t *n, struct jp_error *err)
{
	struct jp_jobindex_entry *v = NULL;
	char *path = NULL;
	const cJSON *e;
	cJSON *doc;
	size_t k = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = jp_jobindex_path(&path, err)) < 0)
		return rc;
	doc = load(path);
	free(path);
	if (!doc)
		return jp_error_oom(err);
	const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(doc, "jobs");
	v = calloc((size_t)cJSON_GetArraySize(jobs) + 1, sizeof(*v));
	if (!v)
		goto oom;
	cJSON_ArrayForEach(e, jobs) {
		if (!cJSON_IsObject(e) || !e->string || !jp_valid_job_name(e->string))
			continue;
		v[k].name = strdup(e->string);
		v[k].run = strdup(entry_text(e, "run"));
		v[k].at = strdup(entry_text(e, "at"));
		k++;
		if (!v[k - 1].name || !v[k - 1].run || !v[k - 1].at)
			goto oom;
	}
	sort_latest_first(v, k);
	cJSON_Delete(doc);
	*out = v;
	*n = k;
	return 0;
oom:
	cJSON_Delete(doc);
	jp_jobindex_entries_free(v, k);
	return jp_error_oom(err);
}
