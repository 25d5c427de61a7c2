/* The draft file: answers so far, resumable. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jobprep/fs.h"
#include "jobprep/i18n.h"
#include "jobprep/input.h"
#include "jobprep/manifest.h"
#include "jobprep/url.h"
#include "tui/draft.h"

#define DRAFT_VERSION 1

int jp_draft_path(char **out, bool demo, struct jp_error *err)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	const char *name = demo ? "demo-draft.json" : "draft.json";
	size_t len;

	*out = NULL;
	if (state && state[0] == '/') {
		len = strlen(state) + strlen(name) + 16;
		*out = malloc(len);
		if (*out)
			snprintf(*out, len, "%s/jobprep/%s", state, name);
	} else if (home && home[0] == '/') {
		len = strlen(home) + strlen(name) + 32;
		*out = malloc(len);
		if (*out)
			snprintf(*out, len, "%s/.local/state/jobprep/%s", home, name);
	} else {
		return jp_error_set(err, JP_ENOENT, "%s",
				    _("no place for a draft: neither XDG_STATE_HOME nor HOME is set"));
	}
	if (!*out)
		return jp_error_oom(err);
	return 0;
}

static int add_value(cJSON *arr, const char *key, const char *value)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return JP_ENOMEM;
	if (!cJSON_AddStringToObject(o, "key", key) ||
	    !cJSON_AddStringToObject(o, "value", value)) {
		cJSON_Delete(o);
		return JP_ENOMEM;
	}
	cJSON_AddItemToArray(arr, o);
	return 0;
}

static int add_count(cJSON *arr, const char *key, size_t count)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return JP_ENOMEM;
	if (!cJSON_AddStringToObject(o, "key", key) ||
	    !cJSON_AddNumberToObject(o, "count", (double)count)) {
		cJSON_Delete(o);
		return JP_ENOMEM;
	}
	cJSON_AddItemToArray(arr, o);
	return 0;
}

static int save_field(cJSON *arr, const struct jp_flow *flow, const char *key)
{
	char *v = NULL, *clean = NULL;
	int rc;

	if (!jp_flow_is_set(flow, key))
		return 0;
	if (jp_flow_get(&v, flow, key, NULL) < 0)
		return 0;
	/* A token typed into a URL is never written down: the draft keeps the
	 * URL without it, and the clone asks again after a resume. */
	if (v && jp_url_has_credentials(v)) {
		clean = jp_url_redact(v);
		explicit_bzero(v, strlen(v));
		if (!clean) {
			free(v);
			return JP_ENOMEM;
		}
	}
	rc = add_value(arr, key, clean ? clean : v ? v : "");
	free(clean);
	free(v);
	return rc;
}

static int save_values(cJSON *arr, const struct jp_flow *flow)
{
	const struct jp_field *f, *it;
	char key[160];
	size_t n, i;
	int s, rc = 0;

	for (s = 0; s < JP_STEP_COUNT && rc == 0; s++) {
		for (f = jp_flow_fields((enum jp_step)s); f && f->key && rc == 0; f++) {
			if (f->flags & JP_FIELD_DERIVED)
				continue;
			if (f->kind != JP_FIELD_LIST) {
				rc = save_field(arr, flow, f->key);
				continue;
			}
			n = jp_flow_list_count(flow, f->key);
			rc = add_count(arr, f->key, n);
			for (i = 0; i < n && rc == 0; i++) {
				for (it = f->items; it && it->key && rc == 0; it++) {
					if (!strstr(it->key, "[]"))
						continue;
					jp_flow_item_key(key, sizeof(key), it->key, i);
					rc = save_field(arr, flow, key);
				}
			}
		}
	}
	return rc;
}

int jp_draft_save(const char *path, const struct jp_flow *flow, int step, bool demo,
		  const char *profile, struct jp_error *err)
{
	cJSON *doc = NULL, *arr;
	char *text = NULL, *dir = NULL, *slash, stamp[32], *name = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int rc = JP_ENOMEM;

	doc = cJSON_CreateObject();
	if (!doc)
		goto out;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	jp_flow_get(&name, flow, "job.name", NULL);
	if (!cJSON_AddNumberToObject(doc, "draft_version", DRAFT_VERSION) ||
	    !cJSON_AddStringToObject(doc, "saved_at", stamp) ||
	    !cJSON_AddNumberToObject(doc, "step", step) ||
	    !cJSON_AddBoolToObject(doc, "demo", demo) ||
	    !(profile ? cJSON_AddStringToObject(doc, "profile", profile)
		      : cJSON_AddNullToObject(doc, "profile")) ||
	    !cJSON_AddStringToObject(doc, "job_name", name ? name : ""))
		goto out;
	arr = cJSON_AddArrayToObject(doc, "answers");
	if (!arr || save_values(arr, flow) < 0)
		goto out;
	text = cJSON_Print(doc);
	if (!text)
		goto out;

	dir = strdup(path);
	if (!dir)
		goto out;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (jp_fs_mkdir_p(NULL, dir, 0700, NULL) < 0) {
			rc = jp_error_set(err, JP_EIO, _("draft not saved: %s: %s"), dir,
					  strerror(errno));
			goto out;
		}
	}
	rc = jp_file_write_atomic(path, text, strlen(text), 0600, err);
out:
	if (rc == JP_ENOMEM)
		jp_error_oom(err);
	free(name);
	free(dir);
	if (text)
		cJSON_free(text);
	cJSON_Delete(doc);
	return rc;
}

int jp_draft_load(struct jp_draft *out, const char *path, struct jp_error *err)
{
	struct jp_error rerr = JP_ERROR_INIT;
	char *text = NULL;
	size_t len = 0;
	cJSON *doc, *v;
	int rc;

	memset(out, 0, sizeof(*out));
	errno = 0;
	rc = jp_input_read(&text, &len, path, 1 << 24, &rerr);
	if (rc != 0) {
		rc = errno == ENOENT ? JP_ENOENT : jp_error_set(err, rc, "%s", jp_error_message(&rerr));
		jp_error_dispose(&rerr);
		return rc;
	}
	doc = cJSON_Parse(text);
	free(text);
	v = doc ? cJSON_GetObjectItemCaseSensitive(doc, "draft_version") : NULL;
	if (!doc || !cJSON_IsNumber(v) || v->valuedouble != DRAFT_VERSION ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "answers"))) {
		cJSON_Delete(doc);
		return jp_error_set(err, JP_EFORMAT, _("%s: not a draft"), path);
	}
	out->json = doc;
	v = cJSON_GetObjectItemCaseSensitive(doc, "step");
	out->step = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < JP_STEP_COUNT
			    ? (int)v->valuedouble
			    : 0;
	out->demo = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "demo"));
	v = cJSON_GetObjectItemCaseSensitive(doc, "profile");
	if (cJSON_IsString(v))
		out->profile = strdup(v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(doc, "job_name");
	if (cJSON_IsString(v))
		out->job_name = strdup(v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(doc, "saved_at");
	if (cJSON_IsString(v))
		out->saved_at = strdup(v->valuestring);
	return 0;
}

int jp_draft_apply(const struct jp_draft *d, struct jp_flow *flow, struct jp_error *err)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(d->json, "answers"), *o;
	size_t idx;

	(void)err;
	cJSON_ArrayForEach(o, arr)
	{
		cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "key");
		cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
		cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "count");

		if (!cJSON_IsString(k))
			continue;
		if (cJSON_IsNumber(c) && c->valuedouble >= 0 && c->valuedouble < 10000) {
			size_t want = (size_t)c->valuedouble;

			while (jp_flow_list_count(flow, k->valuestring) > want)
				if (jp_flow_list_remove(flow, k->valuestring,
							jp_flow_list_count(flow, k->valuestring) - 1,
							NULL) < 0)
					break;
			while (jp_flow_list_count(flow, k->valuestring) < want)
				if (jp_flow_list_add(&idx, flow, k->valuestring, NULL) < 0)
					break;
		} else if (cJSON_IsString(v)) {
			jp_flow_set(NULL, flow, k->valuestring, v->valuestring, NULL);
		}
	}
	return 0;
}

void jp_draft_dispose(struct jp_draft *d)
{
	cJSON_Delete(d->json);
	free(d->profile);
	free(d->job_name);
	free(d->saved_at);
	memset(d, 0, sizeof(*d));
}

void jp_draft_remove(const char *path)
{
	if (path)
		unlink(path);
}
