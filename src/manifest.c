/* The manifest model: creating, filling and freeing a jp_manifest, and the
 * names its enums have in JSON. Reading is in manifest_read.c, writing in
 * manifest_write.c, the small validators in valid.c. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "str.h"

int jp_manifest_stamp(struct jp_manifest *m)
{
	char buf[32];
	struct tm tm;
	time_t now = time(NULL);

	if (!gmtime_r(&now, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return JP_EINTERNAL;
	return jp_set_str(&m->created_at, buf);
}

int jp_manifest_new(struct jp_manifest **out)
{
	struct jp_manifest *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m)
		return JP_ENOMEM;
	m->schema_version = JP_SCHEMA_VERSION;
	m->job.workers = 1;
	m->job.gpus_per_worker = 0;
	if (jp_set_str(&m->generator_name, "jobprep") < 0 ||
	    jp_set_str(&m->generator_version, PACKAGE_VERSION) < 0 || jp_manifest_stamp(m) < 0) {
		jp_manifest_free(m);
		return JP_ENOMEM;
	}
	*out = m;
	return 0;
}

static void env_dispose(struct jp_env_var *v)
{
	free(v->name);
	free(v->value);
}

void jp_data_origin_dispose(struct jp_data_origin *o)
{
	free(o->from);
	free(o->digest_algorithm);
	free(o->digest);
	free(o->staged_at);
	memset(o, 0, sizeof(*o));
}

int jp_data_origin_copy(struct jp_data_origin *dst, const struct jp_data_origin *src)
{
	dst->kind = src->kind;
	if (jp_set_str(&dst->from, src->from) < 0 ||
	    jp_set_str(&dst->digest_algorithm, src->digest_algorithm) < 0 ||
	    jp_set_str(&dst->digest, src->digest) < 0 ||
	    jp_set_str(&dst->staged_at, src->staged_at) < 0)
		return JP_ENOMEM;
	return 0;
}

size_t jp_digest_hex_len(const char *algorithm)
{
	if (algorithm && strcmp(algorithm, "sha256") == 0)
		return 64;
	if (algorithm && strcmp(algorithm, "xxh3-64") == 0)
		return 16;
	if (algorithm && strcmp(algorithm, "git-commit") == 0)
		return 40;
	return 0;
}

static void data_dispose(struct jp_data_source *d)
{
	free(d->name);
	free(d->path);
	jp_data_origin_dispose(&d->origin);
}

static void check_dispose(struct jp_check *c)
{
	free(c->id);
	free(c->message);
	free(c->path);
}

void jp_manifest_clear_checks(struct jp_manifest *m)
{
	for (size_t i = 0; i < m->n_checks; i++)
		check_dispose(&m->checks[i]);
	free(m->checks);
	m->checks = NULL;
	m->n_checks = 0;
}

void jp_code_python_dispose(struct jp_code_python *py)
{
	for (size_t i = 0; i < py->n_modules; i++)
		free(py->modules[i]);
	free(py->modules);
	free(py->min_version);
	memset(py, 0, sizeof(*py));
}

int jp_code_python_add(struct jp_code_python *py, const char *module)
{
	char **grown = realloc(py->modules, (py->n_modules + 1) * sizeof(*grown));

	if (!grown)
		return JP_ENOMEM;
	py->modules = grown;
	if (!(grown[py->n_modules] = strdup(module)))
		return JP_ENOMEM;
	py->n_modules++;
	return 0;
}

int jp_code_python_copy(struct jp_code_python *dst, const struct jp_code_python *src)
{
	jp_code_python_dispose(dst);
	dst->recorded = src->recorded;
	dst->dataloader_workers = src->dataloader_workers;
	for (size_t i = 0; i < src->n_modules; i++)
		if (jp_code_python_add(dst, src->modules[i]) < 0)
			return JP_ENOMEM;
	if (src->min_version && !(dst->min_version = strdup(src->min_version)))
		return JP_ENOMEM;
	return 0;
}

bool jp_valid_module_name(const char *s)
{
	if (!s[0] || strlen(s) > 63 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
	       strlen(s);
}

bool jp_valid_python_version(const char *s)
{
	size_t n = strlen(s);

	return n >= 3 && n <= 4 && s[0] == '3' && s[1] == '.' &&
	       strspn(s + 2, "0123456789") == n - 2 && !(n == 4 && s[2] == '0');
}

void jp_manifest_free(struct jp_manifest *m)
{
	if (!m)
		return;
	free(m->generator_name);
	free(m->generator_version);
	free(m->created_at);
	free(m->job.name);
	free(m->job.launch_command);
	free(m->job.resume_from);
	for (size_t i = 0; i < m->job.n_env; i++)
		env_dispose(&m->job.env[i]);
	free(m->job.env);
	free(m->code.path);
	free(m->code.repo_url);
	free(m->code.repo_ref);
	free(m->code.repo_commit);
	free(m->code.image);
	jp_code_python_dispose(&m->code.python);
	free(m->code.checkout);
	free(m->code.changes_digest);
	free(m->code.changes_files);
	for (size_t i = 0; i < m->n_data; i++)
		data_dispose(&m->data[i]);
	free(m->data);
	free(m->outputs.output_dir);
	free(m->outputs.checkpoint_dir);
	free(m->outputs.log_dir);
	jp_manifest_clear_checks(m);
	jp_profile_free(m->profile);
	for (size_t i = 0; i < m->n_storage; i++) {
		free(m->storage[i].field);
		free(m->storage[i].path);
		free(m->storage[i].fstype);
		free(m->storage[i].mount_point);
	}
	free(m->storage);
	free(m);
}

/* Grow an array of `size`-byte items by one zeroed slot; returns the slot. */
static void *grow(void **items, size_t *n, size_t size)
{
	char *grown = realloc(*items, (*n + 1) * size);

	if (!grown)
		return NULL;
	memset(grown + *n * size, 0, size);
	*items = grown;
	return grown + (*n)++ * size;
}

int jp_manifest_add_env(struct jp_manifest *m, const char *name, const char *value)
{
	struct jp_env_var v = { NULL, NULL };
	struct jp_env_var *slot;

	if (jp_set_str(&v.name, name) < 0 || jp_set_str(&v.value, value) < 0)
		goto fail;
	slot = grow((void **)&m->job.env, &m->job.n_env, sizeof(*slot));
	if (!slot)
		goto fail;
	*slot = v;
	return 0;
fail:
	env_dispose(&v);
	return JP_ENOMEM;
}

int jp_manifest_add_data(struct jp_manifest *m, const char *name, const char *path,
			 enum jp_data_kind kind, bool read_only)
{
	struct jp_data_source d = { 0 };
	struct jp_data_source *slot;

	if (jp_set_str(&d.name, name) < 0 || jp_set_str(&d.path, path) < 0)
		goto fail;
	d.kind = kind;
	d.read_only = read_only;
	slot = grow((void **)&m->data, &m->n_data, sizeof(*slot));
	if (!slot)
		goto fail;
	*slot = d;
	return 0;
fail:
	data_dispose(&d);
	return JP_ENOMEM;
}

int jp_manifest_add_check(struct jp_manifest *m, const char *id, enum jp_check_status status,
			  const char *path, const char *fmt, ...)
{
	struct jp_check c = { NULL, status, NULL, NULL };
	struct jp_check *slot;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&c.message, fmt, ap);
	va_end(ap);
	if (len < 0) {
		c.message = NULL;
		goto fail;
	}
	if (jp_set_str(&c.id, id) < 0 || jp_set_str(&c.path, path) < 0)
		goto fail;
	slot = grow((void **)&m->checks, &m->n_checks, sizeof(*slot));
	if (!slot)
		goto fail;
	*slot = c;
	return 0;
fail:
	check_dispose(&c);
	return JP_ENOMEM;
}

enum jp_check_status jp_manifest_worst(const struct jp_manifest *m)
{
	enum jp_check_status worst = JP_CHECK_PASS;

	for (size_t i = 0; i < m->n_checks; i++)
		if (m->checks[i].status > worst)
			worst = m->checks[i].status;
	return worst;
}

/* --- enum names ---------------------------------------------------------- */

static const char *const code_source_names[] = {
	[JP_CODE_UNSET] = NULL,
	[JP_CODE_SHARED_STORAGE] = "shared_storage",
	[JP_CODE_IMAGE] = "image",
	[JP_CODE_LAUNCH_CLONE] = "launch_clone",
};

static const char *const data_kind_names[] = {
	[JP_DATA_TEAM] = "team",
	[JP_DATA_PUBLIC] = "public",
};

static const char *const check_status_names[] = {
	[JP_CHECK_PASS] = "pass",
	[JP_CHECK_WARN] = "warn",
	[JP_CHECK_FAIL] = "fail",
};

static const char *const origin_kind_names[] = {
	[JP_ORIGIN_DIR] = "dir",
	[JP_ORIGIN_FILE] = "file",
	[JP_ORIGIN_ARCHIVE] = "archive",
	[JP_ORIGIN_URL] = "url",
	[JP_ORIGIN_HUB] = "hub",
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_of(const char *const *names, size_t n, unsigned v)
{
	return v < n ? names[v] : NULL;
}

static int value_of(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

const char *jp_code_source_name(enum jp_code_source s)
{
	return name_of(code_source_names, N_OF(code_source_names), s);
}

const char *jp_data_kind_name(enum jp_data_kind k)
{
	return name_of(data_kind_names, N_OF(data_kind_names), k);
}

const char *jp_check_status_name(enum jp_check_status s)
{
	return name_of(check_status_names, N_OF(check_status_names), s);
}

const char *jp_origin_kind_name(enum jp_origin_kind k)
{
	return name_of(origin_kind_names, N_OF(origin_kind_names), k);
}

int jp_origin_kind_from_name(enum jp_origin_kind *out, const char *name)
{
	int v = value_of(origin_kind_names, N_OF(origin_kind_names), name);

	if (v < 0)
		return JP_EFORMAT;
	*out = (enum jp_origin_kind)v;
	return 0;
}

int jp_code_source_from_name(enum jp_code_source *out, const char *name)
{
	int v = value_of(code_source_names, N_OF(code_source_names), name);

	if (v < 0)
		return JP_EFORMAT;
	*out = (enum jp_code_source)v;
	return 0;
}

int jp_data_kind_from_name(enum jp_data_kind *out, const char *name)
{
	int v = value_of(data_kind_names, N_OF(data_kind_names), name);

	if (v < 0)
		return JP_EFORMAT;
	*out = (enum jp_data_kind)v;
	return 0;
}

int jp_check_status_from_name(enum jp_check_status *out, const char *name)
{
	int v = value_of(check_status_names, N_OF(check_status_names), name);

	if (v < 0)
		return JP_EFORMAT;
	*out = (enum jp_check_status)v;
	return 0;
}

const struct jp_storage_record *jp_manifest_storage_record(const struct jp_manifest *m,
							   const char *field, const char *path)
{
	for (size_t i = 0; field && path && i < m->n_storage; i++) {
		const struct jp_storage_record *r = &m->storage[i];

		if (r->field && strcmp(r->field, field) == 0)
			return r->path && strcmp(r->path, path) == 0 && r->fstype && r->mount_point
				       ? r
				       : NULL;
	}
	return NULL;
}

int jp_manifest_set_storage(struct jp_manifest *m, const char *field, const char *path,
			    const char *fstype, const char *mount_point)
{
	struct jp_storage_record *r = NULL;

	for (size_t i = 0; i < m->n_storage && !r; i++)
		if (m->storage[i].field && strcmp(m->storage[i].field, field) == 0)
			r = &m->storage[i];
	if (!r) {
		r = grow((void **)&m->storage, &m->n_storage, sizeof(*m->storage));
		if (!r)
			return JP_ENOMEM;
	}
	if (jp_set_str(&r->field, field) < 0 || jp_set_str(&r->path, path) < 0 ||
	    jp_set_str(&r->fstype, fstype) < 0 || jp_set_str(&r->mount_point, mount_point) < 0)
		return JP_ENOMEM;
	return 0;
}
