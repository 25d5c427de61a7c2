/* The platform profile: the embedded default and its JSON form. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "jobprep/suggest.h"
#include "jobprep/input.h"
#include "jsonstrict.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"
#include "wire_internal.h"
#include "str.h"
#include "strv_internal.h"

#define GIB (1024ULL * 1024 * 1024)
#define PROFILE_MAX_BYTES (1024 * 1024)

/* The source document's platform. */
static const char *const default_shared[] = { "/mnt/public" };
static const char *const default_public[] = { "/infini-data" };
static const char *const default_ephemeral[] = { "/tmp", "/var/tmp", "/dev/shm",
						 "/root", "/workspace" };

static int push_all(struct jp_strv *sv, const char *const *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (jp_strv_push(sv, items[i]) < 0)
			return JP_ENOMEM;
	return 0;
}

static struct jp_profile *profile_alloc(void)
{
	return calloc(1, sizeof(struct jp_profile));
}

int jp_profile_new_default(struct jp_profile **out, struct jp_error *err)
{
	struct jp_profile *p = profile_alloc();

	*out = NULL;
	if (!p)
		goto fail;
	if (push_all(&p->shared_roots, default_shared, 1) < 0 ||
	    push_all(&p->public_roots, default_public, 1) < 0 ||
	    push_all(&p->ephemeral_roots, default_ephemeral,
		     sizeof(default_ephemeral) / sizeof(default_ephemeral[0])) < 0)
		goto fail;
	p->system_disk_bytes = 50 * GIB;
	p->gpus_per_worker = JP_PROFILE_DEFAULT_GPUS;
	if (jp_set_str(&p->project_dir, "{shared}/projects/{job}") < 0 ||
	    jp_set_str(&p->output_dir, "{shared}/outputs/{job}/run-NNN") < 0 ||
	    jp_set_str(&p->checkpoint_dir, "{output}/checkpoints") < 0 ||
	    jp_set_str(&p->log_dir, "{output}/logs") < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	jp_profile_free(p);
	return jp_error_oom(err);
}

void jp_profile_free(struct jp_profile *p)
{
	if (!p)
		return;
	jp_strv_dispose(&p->shared_roots);
	jp_strv_dispose(&p->public_roots);
	jp_strv_dispose(&p->ephemeral_roots);
	free(p->project_dir);
	free(p->output_dir);
	free(p->checkpoint_dir);
	free(p->log_dir);
	free(p->slurm_partition);
	free(p->slurm_time);
	free(p->slurm_account);
	free(p->slurm_qos);
	free(p);
}

int jp_profile_copy(struct jp_profile **out, const struct jp_profile *src)
{
	struct jp_profile *p = profile_alloc();

	*out = NULL;
	if (!p)
		return JP_ENOMEM;
	if (jp_strv_copy(&p->shared_roots, &src->shared_roots) < 0 ||
	    jp_strv_copy(&p->public_roots, &src->public_roots) < 0 ||
	    jp_strv_copy(&p->ephemeral_roots, &src->ephemeral_roots) < 0 ||
	    jp_set_str(&p->project_dir, src->project_dir) < 0 ||
	    jp_set_str(&p->output_dir, src->output_dir) < 0 ||
	    jp_set_str(&p->checkpoint_dir, src->checkpoint_dir) < 0 ||
	    jp_set_str(&p->log_dir, src->log_dir) < 0 ||
	    jp_set_str(&p->slurm_partition, src->slurm_partition) < 0 ||
	    jp_set_str(&p->slurm_time, src->slurm_time) < 0 ||
	    jp_set_str(&p->slurm_account, src->slurm_account) < 0 ||
	    jp_set_str(&p->slurm_qos, src->slurm_qos) < 0) {
		jp_profile_free(p);
		return JP_ENOMEM;
	}
	p->system_disk_bytes = src->system_disk_bytes;
	p->stage_reserve_bytes = src->stage_reserve_bytes;
	p->has_stage_reserve = src->has_stage_reserve;
	p->gpus_per_worker = src->gpus_per_worker;
	p->sandbox = src->sandbox;
	*out = p;
	return 0;
}

/* --- JSON ---------------------------------------------------------------- */

static const char *json_type_name(const cJSON *item)
{
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsNull(item))
		return "null";
	if (cJSON_IsArray(item))
		return "an array";
	if (cJSON_IsObject(item))
		return "an object";
	return "something else";
}

static int read_roots(struct jp_strv *dst, const cJSON *obj, const char *key,
		      const char *origin, struct jp_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
	int rc = 0;

	if (!arr)
		return 0; /* keep the default */
	if (!cJSON_IsArray(arr))
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: profile.%s: expected an array of absolute paths, got %s"),
				    origin, key, json_type_name(arr));
	jp_strv_dispose(dst);
	int i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, arr)
	{
		if (!cJSON_IsString(it) || !jp_path_is_normal(it->valuestring)) {
			rc = jp_error_set(err, JP_EFORMAT,
					  _("%s: profile.%s[%d]: expected an absolute, normalised path, got %s"),
					  origin, key, i,
					  cJSON_IsString(it) ? it->valuestring : json_type_name(it));
		} else if (jp_strv_push(dst, it->valuestring) < 0) {
			return jp_error_oom(err);
		}
		i++;
	}
	return rc;
}

static int read_template(char **dst, const cJSON *obj, const char *key,
			 const char *origin, struct jp_error *err)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!s)
		return 0;
	if (!cJSON_IsString(s) || (s->valuestring[0] != '/' && s->valuestring[0] != '{'))
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: profile.defaults.%s: expected an absolute path template, got %s"),
				    origin, key,
				    cJSON_IsString(s) ? s->valuestring : json_type_name(s));
	if (jp_set_str(dst, s->valuestring) < 0)
		return jp_error_oom(err);
	return 0;
}

/* profile.defaults.gpus_per_worker: an integer 0..JP_PROFILE_MAX_GPUS. */
static int read_gpus(int *dst, const cJSON *obj, const char *origin, struct jp_error *err)
{
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(obj, "gpus_per_worker");
	double d;

	if (!g)
		return 0; /* keep the default */
	d = cJSON_IsNumber(g) ? g->valuedouble : -1;
	if (!cJSON_IsNumber(g) || d < 0 || d > JP_PROFILE_MAX_GPUS || d != floor(d))
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: profile.defaults.gpus_per_worker: expected an integer "
				      "from 0 to %d, got %s"),
				    origin, JP_PROFILE_MAX_GPUS,
				    cJSON_IsNumber(g) ? _("a non-integer or out-of-range number")
						      : json_type_name(g));
	*dst = (int)d;
	return 0;
}

static const char *const profile_keys[] = { "shared_roots", "public_roots",
					    "ephemeral_roots", "system_disk_bytes",
					    "stage_reserve_bytes", "defaults", "slurm",
					    "sandbox", NULL };

/* profile.KEY, when there: an integer byte count into *dst (*set true). */
static int read_bytes(uint64_t *dst, bool *set, const cJSON *json, const char *key,
		      const char *origin, struct jp_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, key);
	double d = cJSON_IsNumber(v) ? v->valuedouble : -1;

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || d < 0 || d > JP_JSON_MAX_EXACT || d != floor(d))
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: profile.%s: expected an integer byte count >= 0, got %s"),
				    origin, key,
				    cJSON_IsNumber(v) ? _("a non-integer or out-of-range number")
						      : json_type_name(v));
	*dst = (uint64_t)d;
	if (set)
		*set = true;
	return 0;
}
static const char *const default_keys[] = { "project_dir", "output_dir",
					    "checkpoint_dir", "log_dir",
					    "gpus_per_worker", NULL };

/* profile.slurm: the batch script's scheduling options, as sbatch takes them. */
static const struct slurm_key {
	const char *key;
	size_t offset;
} slurm_keys[] = {
	{ "partition", offsetof(struct jp_profile, slurm_partition) },
	{ "time", offsetof(struct jp_profile, slurm_time) },
	{ "account", offsetof(struct jp_profile, slurm_account) },
	{ "qos", offsetof(struct jp_profile, slurm_qos) },
};

#define N_SLURM_KEYS (sizeof(slurm_keys) / sizeof(slurm_keys[0]))

/* A value an #SBATCH line holds as one word: printable ASCII, no space,
 * quote, backslash or '#'. */
bool jp_profile_sbatch_word(const char *s)
{
	if (!*s)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"' || *p == '\'' || *p == '\\' || *p == '#')
			return false;
	return true;
}

static int read_slurm(struct jp_profile *p, const cJSON *obj, const char *origin,
		      struct jp_error *err)
{
	int rc = 0;
	const cJSON *it;

	if (!cJSON_IsObject(obj))
		return jp_error_set(err, JP_EFORMAT, _("%s: profile.slurm: expected an object, got %s"),
				    origin, json_type_name(obj));
	cJSON_ArrayForEach(it, obj)
	{
		size_t k;

		struct jp_suggest near;

		jp_suggest_init(&near, it->string);
		for (k = 0; k < N_SLURM_KEYS; k++) {
			if (strcmp(slurm_keys[k].key, it->string) == 0)
				break;
			jp_suggest_add(&near, slurm_keys[k].key);
		}
		if (k == N_SLURM_KEYS && jp_suggest_best(&near)) {
			rc = jp_error_set(err, JP_EFORMAT,
					  _("%s: profile.slurm.%s: expected one of partition, time, "
					    "account, qos, got an unknown field (did you mean '%s'?)"),
					  origin, it->string, jp_suggest_best(&near));
		} else if (k == N_SLURM_KEYS) {
			rc = jp_error_set(err, JP_EFORMAT,
					  _("%s: profile.slurm.%s: expected one of partition, time, "
					    "account, qos, got an unknown field"),
					  origin, it->string);
		} else if (!cJSON_IsString(it) || !jp_profile_sbatch_word(it->valuestring)) {
			rc = jp_error_set(err, JP_EFORMAT,
					  _("%s: profile.slurm.%s: expected one word for sbatch (no "
					    "spaces, quotes, backslashes or '#'), got %s"),
					  origin, it->string,
					  cJSON_IsString(it) ? it->valuestring : json_type_name(it));
		} else if (jp_set_str((char **)((char *)p + slurm_keys[k].offset), it->valuestring) <
			   0) {
			return jp_error_oom(err);
		}
	}
	return rc;
}

/* "expected one of the profile's fields", and the one meant when it is near */
static int unknown_key(struct jp_error *err, const char *key, const char *const *allowed,
		       const char *prefix, const char *origin)
{
	struct jp_suggest near;
	const char *best;

	jp_suggest_init(&near, key);
	for (size_t i = 0; allowed[i]; i++)
		jp_suggest_add(&near, allowed[i]);
	best = jp_suggest_best(&near);
	if (best)
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: %s%s: expected one of the profile's fields, got an unknown "
				      "field (did you mean '%s'?)"),
				    origin, prefix, key, best);
	return jp_error_set(err, JP_EFORMAT,
			    _("%s: %s%s: expected one of the profile's fields, got an unknown field"),
			    origin, prefix, key);
}

static int check_keys(const cJSON *obj, const char *const *allowed,
		      const char *prefix, const char *origin,
		      struct jp_error *err)
{
	int rc = 0;
	const cJSON *it;

	cJSON_ArrayForEach(it, obj)
	{
		size_t i;
		for (i = 0; allowed[i]; i++)
			if (strcmp(allowed[i], it->string) == 0)
				break;
		if (!allowed[i])
			rc = unknown_key(err, it->string, allowed, prefix, origin);
	}
	return rc;
}

int jp_profile_from_json(struct jp_profile **out, const cJSON *json,
			 const char *origin, struct jp_error *err)
{
	struct jp_profile *p = NULL;
	int rc, bad = 0;

	*out = NULL;
	if (!cJSON_IsObject(json))
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: profile: expected an object, got %s"),
				    origin, json_type_name(json));
	rc = jp_profile_new_default(&p, err);
	if (rc < 0)
		return rc;

	bad |= check_keys(json, profile_keys, "profile.", origin, err) < 0;
	bad |= read_roots(&p->shared_roots, json, "shared_roots", origin, err) < 0;
	bad |= read_roots(&p->public_roots, json, "public_roots", origin, err) < 0;
	bad |= read_roots(&p->ephemeral_roots, json, "ephemeral_roots", origin, err) < 0;

	bad |= read_bytes(&p->system_disk_bytes, NULL, json, "system_disk_bytes", origin, err) < 0;
	bad |= read_bytes(&p->stage_reserve_bytes, &p->has_stage_reserve, json,
			  "stage_reserve_bytes", origin, err) < 0;

	const cJSON *defs = cJSON_GetObjectItemCaseSensitive(json, "defaults");
	if (defs && !cJSON_IsObject(defs)) {
		bad = 1;
		jp_error_set(err, JP_EFORMAT,
			     _("%s: profile.defaults: expected an object, got %s"),
			     origin, json_type_name(defs));
	} else if (defs) {
		bad |= check_keys(defs, default_keys, "profile.defaults.", origin, err) < 0;
		bad |= read_template(&p->project_dir, defs, "project_dir", origin, err) < 0;
		bad |= read_template(&p->output_dir, defs, "output_dir", origin, err) < 0;
		bad |= read_template(&p->checkpoint_dir, defs, "checkpoint_dir", origin, err) < 0;
		bad |= read_template(&p->log_dir, defs, "log_dir", origin, err) < 0;
		bad |= read_gpus(&p->gpus_per_worker, defs, origin, err) < 0;
	}
	const cJSON *slurm = cJSON_GetObjectItemCaseSensitive(json, "slurm");
	if (slurm)
		bad |= read_slurm(p, slurm, origin, err) < 0;
	const cJSON *sandbox = cJSON_GetObjectItemCaseSensitive(json, "sandbox");
	if (sandbox && !cJSON_IsBool(sandbox)) {
		bad = 1;
		jp_error_set(err, JP_EFORMAT, _("%s: profile.sandbox: expected true or false, got %s"),
			     origin, json_type_name(sandbox));
	} else if (sandbox) {
		p->sandbox = cJSON_IsTrue(sandbox);
	}
	if (!bad && p->shared_roots.n == 0) {
		bad = 1;
		jp_error_set(err, JP_EFORMAT,
			     _("%s: profile.shared_roots: expected at least one shared storage root, got none"),
			     origin);
	}
	if (bad) {
		jp_profile_free(p);
		return JP_EFORMAT;
	}
	*out = p;
	return 0;
}

static cJSON *roots_to_json(const struct jp_strv *sv)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; arr && i < sv->n; i++) {
		cJSON *s = cJSON_CreateString(sv->v[i]);
		if (!s || !cJSON_AddItemToArray(arr, s)) {
			cJSON_Delete(s);
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

cJSON *jp_profile_to_json(const struct jp_profile *p)
{
	cJSON *obj = cJSON_CreateObject();
	cJSON *defs = NULL;
	char num[32];

	if (!obj)
		return NULL;
	if (!cJSON_AddItemToObject(obj, "shared_roots", roots_to_json(&p->shared_roots)) ||
	    !cJSON_AddItemToObject(obj, "public_roots", roots_to_json(&p->public_roots)) ||
	    !cJSON_AddItemToObject(obj, "ephemeral_roots", roots_to_json(&p->ephemeral_roots)))
		goto fail;
	/* Exact for every 64-bit count up to 2^53: print it ourselves. */
	snprintf(num, sizeof(num), "%llu", (unsigned long long)p->system_disk_bytes);
	if (!cJSON_AddRawToObject(obj, "system_disk_bytes", num))
		goto fail;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)p->stage_reserve_bytes);
	if (p->has_stage_reserve && !cJSON_AddRawToObject(obj, "stage_reserve_bytes", num))
		goto fail;
	defs = cJSON_AddObjectToObject(obj, "defaults");
	if (!defs ||
	    !cJSON_AddStringToObject(defs, "project_dir", p->project_dir) ||
	    !cJSON_AddStringToObject(defs, "output_dir", p->output_dir) ||
	    !cJSON_AddStringToObject(defs, "checkpoint_dir", p->checkpoint_dir) ||
	    !cJSON_AddStringToObject(defs, "log_dir", p->log_dir) ||
	    !cJSON_AddNumberToObject(defs, "gpus_per_worker", p->gpus_per_worker))
		goto fail;
	/* only when set: a real platform's profile reads back the same */
	if (p->sandbox && !cJSON_AddTrueToObject(obj, "sandbox"))
		goto fail;
	/* only what is set: a profile without Slurm options reads back the same */
	cJSON *slurm = NULL;
	for (size_t k = 0; k < N_SLURM_KEYS; k++) {
		const char *v = *(char *const *)((const char *)p + slurm_keys[k].offset);

		if (!v)
			continue;
		if ((!slurm && !(slurm = cJSON_AddObjectToObject(obj, "slurm"))) ||
		    !cJSON_AddStringToObject(slurm, slurm_keys[k].key, v))
			goto fail;
	}
	return obj;
fail:
	cJSON_Delete(obj);
	return NULL;
}

int jp_profile_load(struct jp_profile **out, const char *path,
		    struct jp_error *err)
{
	char *text = NULL;
	size_t len = 0;
	cJSON *json = NULL;
	int rc;

	*out = NULL;
	if ((rc = jp_input_read(&text, &len, path, PROFILE_MAX_BYTES, err)) != 0)
		goto out;
	/* cJSON alone would take duplicate keys, trailing text and bad UTF-8. */
	struct jp_json_scan scan = JP_JSON_SCAN_INIT;
	rc = jp_json_scan(&scan, text, len, path, 4, err);
	jp_json_scan_dispose(&scan);
	if (rc < 0)
		goto out;
	json = cJSON_ParseWithLength(text, len);
	if (!json) {
		rc = jp_error_set(err, JP_EFORMAT,
				  _("%s: expected a JSON object, got text that is not JSON"), path);
		goto out;
	}
	rc = jp_profile_from_json(out, json, path, err);
out:
	free(text);
	cJSON_Delete(json);
	return rc;
}

int jp_profile_resolve(struct jp_profile **out, const char *path,
		       struct jp_error *err)
{
	if (!path || !*path)
		path = getenv("JOBPREP_PROFILE");
	if (path && *path)
		return jp_profile_load(out, path, err);
	return jp_profile_new_default(out, err);
}

/* --- a profile across the process boundary (wire_internal.h) --- */

void probe_bytes_put_profile(struct probe_bytes *b, const struct jp_profile *profile)
{
	cJSON *json = profile ? jp_profile_to_json(profile) : NULL;
	char *text = json ? cJSON_PrintUnformatted(json) : NULL;

	if (profile && !text)
		b->bad = true;
	probe_bytes_put_str(b, text);
	cJSON_free(text);
	cJSON_Delete(json);
}

int probe_bytes_get_profile(struct jp_profile **out, struct probe_bytes *b, struct jp_error *err)
{
	char *text = probe_bytes_get_str(b);
	cJSON *json = text ? cJSON_Parse(text) : NULL;
	int rc = 0;

	*out = NULL;
	if (text && !json)
		rc = jp_error_set(err, JP_EINTERNAL, "%s", _("the look at it failed"));
	else if (json)
		rc = jp_profile_from_json(out, json, "profile", err);
	cJSON_Delete(json);
	free(text);
	return rc;
}
