/* Writing a manifest: the model to JSON text, validation of an in-memory
 * manifest (by reading back what would be written, so the rules live in one
 * place: manifest_read.c), and the atomic write of a valid one. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "profile_internal.h"

/* Absent (NULL) strings are left out, not written as null. */
static bool add_str(cJSON *obj, const char *key, const char *value)
{
	return !value || cJSON_AddStringToObject(obj, key, value);
}

/* cJSON prints doubles with %1.15g/%1.17g; print integers ourselves so
 * every 64-bit count is written exactly. */
static bool add_u64(cJSON *obj, const char *key, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return cJSON_AddRawToObject(obj, key, num) != NULL;
}

static bool add_i64(cJSON *obj, const char *key, int64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRId64, v);
	return cJSON_AddRawToObject(obj, key, num) != NULL;
}

static bool add_job(cJSON *root, const struct jp_job *job)
{
	cJSON *o = cJSON_AddObjectToObject(root, "job");
	cJSON *env;

	if (!o || !add_str(o, "name", job->name) || !add_i64(o, "workers", job->workers) ||
	    !add_i64(o, "gpus_per_worker", job->gpus_per_worker) ||
	    !add_str(o, "launch_command", job->launch_command) ||
	    (job->resume_from && !add_str(o, "resume_from", job->resume_from)))
		return false;
	env = cJSON_AddObjectToObject(o, "env");
	if (!env)
		return false;
	for (size_t i = 0; i < job->n_env; i++) {
		const struct jp_env_var *v = &job->env[i];

		if (!add_str(env, v->name ? v->name : "", v->value ? v->value : ""))
			return false;
	}
	return true;
}

static bool add_python(cJSON *code, const struct jp_code_python *py)
{
	cJSON *o = cJSON_AddObjectToObject(code, "python");
	cJSON *mods = o ? cJSON_AddArrayToObject(o, "modules") : NULL;

	if (!mods)
		return false;
	for (size_t i = 0; i < py->n_modules; i++) {
		cJSON *s = cJSON_CreateString(py->modules[i]);

		if (!s || !cJSON_AddItemToArray(mods, s)) {
			cJSON_Delete(s);
			return false;
		}
	}
	return add_str(o, "min_version", py->min_version) &&
	       cJSON_AddBoolToObject(o, "dataloader_workers", py->dataloader_workers);
}

static bool add_code(cJSON *root, const struct jp_code *code)
{
	cJSON *o = cJSON_AddObjectToObject(root, "code");
	cJSON *repo;

	if (!o || !add_str(o, "source", jp_code_source_name(code->source)) ||
	    !add_str(o, "path", code->path))
		return false;
	if (code->repo_url || code->repo_ref || code->repo_commit) {
		repo = cJSON_AddObjectToObject(o, "repo");
		if (!repo || !add_str(repo, "url", code->repo_url) ||
		    !add_str(repo, "ref", code->repo_ref) ||
		    !add_str(repo, "commit", code->repo_commit))
			return false;
	}
	if (!add_str(o, "checkout", code->checkout))
		return false;
	if (code->changes_digest) {
		cJSON *ch = cJSON_AddObjectToObject(o, "changes");

		if (!ch || !add_str(ch, "digest", code->changes_digest) ||
		    !add_str(ch, "files", code->changes_files))
			return false;
	}
	if (!add_str(o, "image", code->image))
		return false;
	return !code->python.recorded || add_python(o, &code->python);
}

/* Where jobprep staged the data from: absent until a staging finished (a
 * draft's from still to be staged is not a record of anything). */
static bool add_origin(cJSON *o, const struct jp_data_origin *org)
{
	cJSON *obj, *dig;

	if (!org->from || !org->staged_at)
		return true;
	obj = cJSON_AddObjectToObject(o, "origin");
	if (!obj || !add_str(obj, "from", org->from) ||
	    !add_str(obj, "kind", jp_origin_kind_name(org->kind)))
		return false;
	if (org->digest_algorithm || org->digest) {
		dig = cJSON_AddObjectToObject(obj, "digest");
		if (!dig || !add_str(dig, "algorithm", org->digest_algorithm) ||
		    !add_str(dig, "value", org->digest))
			return false;
	}
	return add_str(obj, "staged_at", org->staged_at);
}

static bool add_data(cJSON *root, const struct jp_manifest *m)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "data");

	if (!arr)
		return false;
	for (size_t i = 0; i < m->n_data; i++) {
		const struct jp_data_source *d = &m->data[i];
		cJSON *o = cJSON_CreateObject();
		cJSON *stats;

		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			return false;
		}
		if (!add_str(o, "name", d->name) || !add_str(o, "path", d->path) ||
		    !add_str(o, "kind", jp_data_kind_name(d->kind)) ||
		    !cJSON_AddBoolToObject(o, "read_only", d->read_only))
			return false;
		if (d->has_stats) {
			stats = cJSON_AddObjectToObject(o, "stats");
			if (!stats || !add_u64(stats, "files", d->stats.files) ||
			    !add_u64(stats, "bytes", d->stats.bytes) ||
			    !add_u64(stats, "archives", d->stats.archives))
				return false;
		}
		if (!add_origin(o, &d->origin))
			return false;
		if (d->unpack_archives && !cJSON_AddBoolToObject(o, "unpack_archives", true))
			return false;
		if (d->output && !cJSON_AddBoolToObject(o, "output", true))
			return false;
	}
	return true;
}

static bool add_outputs(cJSON *root, const struct jp_outputs *out)
{
	cJSON *o = cJSON_AddObjectToObject(root, "outputs");

	return o && add_str(o, "output_dir", out->output_dir) &&
	       add_str(o, "checkpoint_dir", out->checkpoint_dir) &&
	       add_str(o, "log_dir", out->log_dir);
}

static bool add_checks(cJSON *root, const struct jp_manifest *m)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "checks");

	if (!arr)
		return false;
	for (size_t i = 0; i < m->n_checks; i++) {
		const struct jp_check *c = &m->checks[i];
		cJSON *o = cJSON_CreateObject();

		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			return false;
		}
		if (!add_str(o, "id", c->id) ||
		    !add_str(o, "status", jp_check_status_name(c->status)) ||
		    !add_str(o, "message", c->message) || !add_str(o, "path", c->path))
			return false;
	}
	return true;
}

/* where the paths lived when the job was prepared (none: not written) */
static bool add_storage(cJSON *root, const struct jp_manifest *m)
{
	cJSON *arr;

	if (!m->n_storage)
		return true;
	arr = cJSON_AddArrayToObject(root, "storage");
	if (!arr)
		return false;
	for (size_t i = 0; i < m->n_storage; i++) {
		const struct jp_storage_record *r = &m->storage[i];
		cJSON *o;

		if (!r->field || !r->path || !r->fstype || !r->mount_point)
			continue;
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			return false;
		}
		if (!add_str(o, "field", r->field) || !add_str(o, "path", r->path) ||
		    !add_str(o, "fstype", r->fstype) || !add_str(o, "mount_point", r->mount_point))
			return false;
	}
	return true;
}

struct cJSON *jp_checks_to_json(const struct jp_manifest *m)
{
	cJSON *holder = cJSON_CreateObject();
	cJSON *arr = NULL;

	if (holder && add_checks(holder, m))
		arr = cJSON_DetachItemFromObjectCaseSensitive(holder, "checks");
	cJSON_Delete(holder);
	return arr;
}

int jp_manifest_to_text(char **out, const struct jp_manifest *m, struct jp_error *err)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *gen, *profile;
	char *printed = NULL;
	int rc = JP_ENOMEM;

	*out = NULL;
	if (!root)
		goto out;
	if (!add_i64(root, "schema_version", m->schema_version))
		goto out;
	gen = cJSON_AddObjectToObject(root, "generator");
	if (!gen || !add_str(gen, "name", m->generator_name) ||
	    !add_str(gen, "version", m->generator_version) ||
	    !add_str(root, "created_at", m->created_at) || !add_job(root, &m->job) ||
	    !add_code(root, &m->code) || !add_data(root, m) || !add_outputs(root, &m->outputs) ||
	    !add_checks(root, m) || !add_storage(root, m))
		goto out;
	if (m->profile) {
		profile = jp_profile_to_json(m->profile);
		if (!profile || !cJSON_AddItemToObject(root, "profile", profile)) {
			cJSON_Delete(profile);
			goto out;
		}
	}
	printed = cJSON_Print(root);
	if (!printed)
		goto out;
	size_t len = strlen(printed);
	*out = malloc(len + 2);
	if (!*out)
		goto out;
	memcpy(*out, printed, len);
	(*out)[len] = '\n';
	(*out)[len + 1] = '\0';
	rc = 0;
out:
	if (rc < 0)
		jp_error_oom(err);
	cJSON_free(printed);
	cJSON_Delete(root);
	return rc;
}

/* Validate by reading back the text we would write: one set of rules. */
static int validate_text(const char *text, const char *origin, struct jp_error *err)
{
	struct jp_manifest *back = NULL;
	int rc = jp_manifest_parse(&back, text, strlen(text), origin, JP_READ_MANIFEST, err);

	jp_manifest_free(back);
	return rc;
}

int jp_manifest_validate(const struct jp_manifest *m, const char *origin, struct jp_error *err)
{
	char *text = NULL;
	int rc = jp_manifest_to_text(&text, m, err);

	if (rc == 0)
		rc = validate_text(text, origin, err);
	free(text);
	return rc;
}

int jp_manifest_write(const struct jp_manifest *m, const char *path, unsigned mode,
		      struct jp_error *err)
{
	char *text = NULL;
	int rc = jp_manifest_to_text(&text, m, err);

	if (rc == 0)
		rc = validate_text(text, path, err);
	if (rc == 0)
		rc = jp_file_write_atomic(path, text, strlen(text), mode, err);
	free(text);
	return rc;
}
