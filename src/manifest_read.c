/* Reading a manifest (or an answers file) from JSON, reporting every problem.
 *
 * Three passes: jp_json_scan refuses what is not strict JSON; cJSON builds
 * the tree; the field tables below read it into the model, one message per
 * problem, "ORIGIN: field.path: expected X, got Y". What this accepts is
 * what schema.c describes; tests/integration/schema.sh holds them together. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "jobprep/suggest.h"
#include "jobprep/input.h"
#include "jsonstrict.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "str.h"
#include "path_internal.h"
#include "profile_internal.h"
#include "url_internal.h"

struct reader {
	const char *origin;
	enum jp_read_mode mode;
	struct jp_error *err;
	struct jp_json_path path;
	const struct jp_json_scan *scan;
	const struct jp_json_big **big_by_path; /* scan->big sorted by path */
	bool bad;
	bool oom;
};

/* What a field must be: the words after "expected", and a test. */
struct string_rule {
	const char *expected;
	bool (*ok)(const char *s);
	bool secret; /* a URL: never echo credentials back */
};

static bool any_string(const char *s)
{
	(void)s;
	return true;
}

static bool non_empty(const char *s)
{
	return s[0] != '\0';
}

static bool repo_url_ok(const char *s)
{
	return s[0] != '\0' && !jp_url_has_credentials(s);
}

static const struct string_rule rule_text = { N_("a string"), any_string, false };
static const struct string_rule rule_nonempty = { N_("a non-empty string"), non_empty, false };
static const struct string_rule rule_path = {
	N_("an absolute, normalised path (starting with '/', without '.', '..', '//' or a "
	   "trailing '/')"),
	jp_path_is_normal, false
};
static const struct string_rule rule_job_name = {
	N_("a DNS-1123 label (1 to 63 lower-case letters, digits or '-', starting and ending "
	   "with a letter or digit)"),
	jp_valid_job_name, false
};
static const struct string_rule rule_commit = {
	N_("a commit id of 40 lower-case hexadecimal digits"), jp_valid_commit, false
};
static const struct string_rule rule_repo_url = {
	N_("a repository URL without credentials (remove the user:password@ part; git asks "
	   "for them when it needs them)"),
	repo_url_ok, true
};
/* Where staged data came from: a path, or an http(s) URL (in a manifest
 * without credentials; an answers file may carry them to the flow). */
static bool is_http_url(const char *s)
{
	return (strncasecmp(s, "http://", 7) == 0 && s[7]) ||
	       (strncasecmp(s, "https://", 8) == 0 && s[8]);
}

/* hf://ORG/NAME and the like: no space, control character or backslash
 * (jobprep stage says what else is wrong with one) */
static bool is_hub_source(const char *s)
{
	if (strncmp(s, "hf://", 5) != 0 || !s[5])
		return false;
	for (s += 5; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f || *s == '\\')
			return false;
	return true;
}

static bool origin_from_ok(const char *s)
{
	return jp_path_is_normal(s) || is_hub_source(s) ||
	       (is_http_url(s) && !jp_url_has_credentials(s));
}

static bool origin_from_answer_ok(const char *s)
{
	return jp_path_is_normal(s) || is_http_url(s) || is_hub_source(s);
}

static const struct string_rule rule_origin_from = {
	N_("an absolute, normalised path, an hf://ORG/NAME repository, or an http(s) URL without "
	   "credentials (a token goes in JOBPREP_HTTP_TOKEN)"),
	origin_from_ok, true
};
static const struct string_rule rule_origin_from_answer = {
	N_("an absolute, normalised path, an hf://ORG/NAME repository, or an http(s) URL"),
	origin_from_answer_ok, true
};

static bool lower_hex(const char *s)
{
	return s[0] && strspn(s, "0123456789abcdef") == strlen(s);
}

static const struct string_rule rule_hex = { N_("lower-case hexadecimal digits"), lower_hex,
					     false };

static const struct string_rule rule_timestamp = {
	N_("an RFC 3339 UTC time such as 2024-05-01T12:00:00Z"), jp_valid_timestamp, false
};

/* --- messages ------------------------------------------------------------ */

static void fail(struct reader *r, const char *expected, const char *got)
{
	r->bad = true;
	jp_error_set(r->err, JP_EFORMAT, _("%s: %s: expected %s, got %s"), r->origin,
		     jp_json_path_str(&r->path), expected, got);
}

/* s quoted as a JSON string, cut after `max` bytes (on a character boundary). */
static void quote(char *buf, size_t size, const char *s, size_t max)
{
	size_t o = 0, i;

	if (size < 8)
		return;
	buf[o++] = '"';
	for (i = 0; s[i] && i < max && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7F) {
			o += (size_t)snprintf(buf + o, size - o, "\\u%04x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	if (s[i]) {
		while (o > 1 && ((unsigned char)buf[o - 1] & 0xC0) == 0x80)
			o--; /* do not cut a character in half */
		if (o > 1 && ((unsigned char)buf[o - 1] & 0xC0) == 0xC0)
			o--;
		o += (size_t)snprintf(buf + o, size - o, "...");
	}
	snprintf(buf + o, size - o, "\"");
}

static int big_cmp(const void *a, const void *b)
{
	const struct jp_json_big *const *x = a, *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

static int big_key_cmp(const void *key, const void *elem)
{
	const struct jp_json_big *const *e = elem;

	return strcmp(key, (*e)->path);
}

/* The literal of a number the strict pass found too large, if this is one. */
static const char *big_lexeme(const struct reader *r)
{
	const struct jp_json_big *const *hit;

	if (!r->big_by_path)
		return NULL;
	hit = bsearch(jp_json_path_str(&r->path), r->big_by_path, r->scan->n_big,
		      sizeof(*r->big_by_path), big_key_cmp);
	return hit ? (*hit)->lexeme : NULL;
}

static void format_number(char *buf, size_t size, double v)
{
	snprintf(buf, size, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, size, "%.17g", v);
}

/* What the item is, for "got ...". */
static void got(const struct reader *r, const cJSON *item, char *buf, size_t size)
{
	const char *lex;

	if (!item) {
		snprintf(buf, size, "%s", _("nothing (the field is missing)"));
	} else if (cJSON_IsString(item)) {
		quote(buf, size, item->valuestring, 80);
	} else if (cJSON_IsNumber(item)) {
		lex = big_lexeme(r);
		if (lex)
			snprintf(buf, size, "%.60s%s", lex, strlen(lex) > 60 ? "..." : "");
		else
			format_number(buf, size, item->valuedouble);
	} else if (cJSON_IsTrue(item)) {
		snprintf(buf, size, "true");
	} else if (cJSON_IsFalse(item)) {
		snprintf(buf, size, "false");
	} else if (cJSON_IsNull(item)) {
		snprintf(buf, size, "null");
	} else if (cJSON_IsArray(item)) {
		snprintf(buf, size, "%s", _("an array"));
	} else if (cJSON_IsObject(item)) {
		snprintf(buf, size, "%s", _("an object"));
	} else {
		snprintf(buf, size, "%s", _("something else"));
	}
}

static void fail_item(struct reader *r, const char *expected, const cJSON *item)
{
	char buf[256];

	got(r, item, buf, sizeof(buf));
	fail(r, expected, buf);
}

/* The URL with its user info shown as "***", so a secret is never echoed. */
static void fail_secret_url(struct reader *r, const char *expected, const char *url)
{
	char masked[256], buf[300];
	struct jp_url_userinfo ui;

	if (jp_url_userinfo(&ui, url) && ui.start < 50)
		snprintf(masked, sizeof(masked), "%.*s***%.200s", (int)ui.start, url, url + ui.at);
	else
		snprintf(masked, sizeof(masked), "%.255s", url);
	quote(buf, sizeof(buf), masked, 250);
	fail(r, expected, buf);
}

/* --- scalars --------------------------------------------------------------- */

static void read_string(struct reader *r, const cJSON *item, char **dst,
			const struct string_rule *rule)
{
	if (!cJSON_IsString(item) || !rule->ok(item->valuestring)) {
		if (cJSON_IsString(item) && rule->secret)
			fail_secret_url(r, _(rule->expected), item->valuestring);
		else
			fail_item(r, _(rule->expected), item);
		return;
	}
	if (jp_set_str(dst, item->valuestring) < 0)
		r->oom = true;
}

/* An integral number in [min, max]; 1.0 counts, as in JSON Schema. */
static bool read_integer(struct reader *r, const cJSON *item, double min, double max,
			 double *out)
{
	char expected[96];
	double v = cJSON_IsNumber(item) ? item->valuedouble : NAN;

	if (isfinite(v) && v == floor(v) && v >= min && v <= max) {
		*out = v;
		return true;
	}
	if (v > max)
		snprintf(expected, sizeof(expected), _("an integer <= %.0f"), max);
	else
		snprintf(expected, sizeof(expected), _("an integer >= %.0f"), min);
	fail_item(r, expected, item);
	return false;
}

static void read_int64(struct reader *r, const cJSON *item, int64_t *dst, double min, double max)
{
	double v;

	if (read_integer(r, item, min, max, &v))
		*dst = (int64_t)v;
}

static void read_count(struct reader *r, const cJSON *item, uint64_t *dst)
{
	double v;

	if (read_integer(r, item, 0, JP_JSON_MAX_EXACT, &v))
		*dst = (uint64_t)v;
}

static void read_bool(struct reader *r, const cJSON *item, bool *dst)
{
	if (!cJSON_IsBool(item)) {
		fail_item(r, _("true or false"), item);
		return;
	}
	*dst = cJSON_IsTrue(item);
}

/* --- objects: a table of fields per object --------------------------------- */

/* Reads one field's value; `i` is the index of the data source or check
 * being read, unused elsewhere. */
typedef void (*read_fn)(struct reader *r, const cJSON *item, struct jp_manifest *m, size_t i);

struct field {
	const char *key;
	bool required;
	read_fn read;
};

static void list_keys(char *buf, size_t size, const struct field *fields, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < n && o < size; k++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", k ? ", " : "", fields[k].key);
}

/* Read the members of obj through fields[]; unknown members are errors,
 * and so are missing required ones when reading a full manifest. */
static void read_fields(struct reader *r, const cJSON *obj, const struct field *fields, size_t n,
			struct jp_manifest *m, size_t i)
{
	const cJSON *it;

	if (!cJSON_IsObject(obj)) {
		fail_item(r, _("an object"), obj);
		return;
	}
	cJSON_ArrayForEach(it, obj)
	{
		size_t mark = jp_json_path_push_key(&r->path, it->string, strlen(it->string));
		size_t k;

		for (k = 0; k < n; k++)
			if (strcmp(fields[k].key, it->string) == 0)
				break;
		if (k < n) {
			fields[k].read(r, it, m, i);
		} else {
			char known[256], expected[320], got[128];
			struct jp_suggest near;
			const char *best;

			list_keys(known, sizeof(known), fields, n);
			snprintf(expected, sizeof(expected), _("one of the fields %s"), known);
			jp_suggest_init(&near, it->string);
			for (size_t f = 0; f < n; f++)
				jp_suggest_add(&near, fields[f].key);
			best = jp_suggest_best(&near);
			if (best)
				snprintf(got, sizeof(got), _("an unknown field (did you mean '%s'?)"), best);
			fail(r, expected, best ? got : _("an unknown field"));
		}
		jp_json_path_pop(&r->path, mark);
	}
	if (r->mode != JP_READ_MANIFEST)
		return;
	for (size_t k = 0; k < n; k++) {
		if (!fields[k].required || cJSON_GetObjectItemCaseSensitive(obj, fields[k].key))
			continue;
		size_t mark = jp_json_path_push_key(&r->path, fields[k].key, strlen(fields[k].key));
		/* Let the field's reader say what it expects of a missing value. */
		fields[k].read(r, NULL, m, i);
		jp_json_path_pop(&r->path, mark);
	}
}

#define N_FIELDS(a) (sizeof(a) / sizeof((a)[0]))

/* generator */
static void rd_generator_name(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->generator_name, &rule_nonempty);
}

static void rd_generator_version(struct reader *r, const cJSON *it, struct jp_manifest *m,
				 size_t i)
{
	(void)i;
	read_string(r, it, &m->generator_version, &rule_nonempty);
}

static const struct field generator_fields[] = {
	{ "name", true, rd_generator_name },
	{ "version", true, rd_generator_version },
};

/* job */
static void rd_job_name(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->job.name, &rule_job_name);
}

#define JP_MAX_WORKERS 1000000
#define JP_MAX_GPUS_PER_WORKER 1024

static void rd_job_workers(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_int64(r, it, &m->job.workers, 1, JP_MAX_WORKERS);
}

static void rd_job_gpus(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_int64(r, it, &m->job.gpus_per_worker, 0, JP_MAX_GPUS_PER_WORKER);
}

static void rd_job_launch(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->job.launch_command, &rule_nonempty);
}

static void rd_job_env(struct reader *r, const cJSON *obj, struct jp_manifest *m, size_t i)
{
	const cJSON *it;

	(void)i;
	if (!cJSON_IsObject(obj)) {
		fail_item(r, _("an object of environment variables (NAME: value)"), obj);
		return;
	}
	cJSON_ArrayForEach(it, obj)
	{
		size_t mark = jp_json_path_push_key(&r->path, it->string, strlen(it->string));
		char buf[128];

		if (!jp_valid_env_name(it->string)) {
			quote(buf, sizeof(buf), it->string, 64);
			fail(r, _("a variable name of letters, digits and '_', not starting with a digit"),
			     buf);
		} else if (jp_env_name_special(it->string)) {
			char got[512];

			quote(buf, sizeof(buf), it->string, 64);
			snprintf(got, sizeof(got), "%s (%s)", buf, _(jp_env_name_special(it->string)));
			fail(r, _("a variable name the shells do not treat specially"), got);
		} else if (!cJSON_IsString(it)) {
			fail_item(r, _(rule_text.expected), it);
		} else if (jp_manifest_add_env(m, it->string, it->valuestring) < 0) {
			r->oom = true;
		}
		jp_json_path_pop(&r->path, mark);
	}
}

/* An absolute path; in answers also a run's folder name or "last". */
static bool resume_answer_ok(const char *s)
{
	return jp_path_is_normal(s) || (s[0] && s[0] != '.' && !strchr(s, '/'));
}

static const struct string_rule rule_resume_answer = {
	N_("an absolute, normalised path, \"last\" or the name of a run's folder (\"run-001\")"),
	resume_answer_ok, false
};

static void rd_job_resume_from(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->job.resume_from,
		    r->mode == JP_READ_ANSWERS ? &rule_resume_answer : &rule_path);
}

static const struct field job_fields[] = {
	{ "name", true, rd_job_name },
	{ "workers", true, rd_job_workers },
	{ "gpus_per_worker", true, rd_job_gpus },
	{ "launch_command", true, rd_job_launch },
	{ "env", false, rd_job_env },
	{ "resume_from", false, rd_job_resume_from },
};

/* code */
static void rd_code_source(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	if (!cJSON_IsString(it) || jp_code_source_from_name(&m->code.source, it->valuestring) < 0)
		fail_item(r, _("one of \"shared_storage\", \"image\", \"launch_clone\""), it);
}

static void rd_code_path(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.path, &rule_path);
}

static void rd_code_image(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.image, &rule_nonempty);
}

static void rd_repo_url(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.repo_url, &rule_repo_url);
}

static void rd_repo_ref(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.repo_ref, &rule_nonempty);
}

static void rd_repo_commit(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.repo_commit, &rule_commit);
}

static const struct field repo_fields[] = {
	{ "url", true, rd_repo_url },
	{ "ref", false, rd_repo_ref },
	{ "commit", false, rd_repo_commit },
};

static void rd_code_repo(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!it)
		fail_item(r, _("an object {url, ref, commit}"), it);
	else
		read_fields(r, it, repo_fields, N_FIELDS(repo_fields), m, i);
}

/* code.python: what the code needs of a Worker's python3 */
static const struct string_rule rule_python_version = { N_("a Python version such as \"3.10\""),
							jp_valid_python_version, false };

static void rd_python_modules(struct reader *r, const cJSON *arr, struct jp_manifest *m, size_t i)
{
	const cJSON *it;
	size_t k = 0;

	(void)i;
	if (!cJSON_IsArray(arr)) {
		fail_item(r, _("an array of module names"), arr);
		return;
	}
	cJSON_ArrayForEach(it, arr)
	{
		size_t mark = jp_json_path_push_index(&r->path, k++);

		if (!cJSON_IsString(it) || !jp_valid_module_name(it->valuestring))
			fail_item(r, _("a module name (letters, digits and '_', not starting with a "
				       "digit)"),
				  it);
		else if (jp_code_python_add(&m->code.python, it->valuestring) < 0)
			r->oom = true;
		jp_json_path_pop(&r->path, mark);
	}
}

static void rd_python_min(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.python.min_version, &rule_python_version);
}

static void rd_python_workers(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_bool(r, it, &m->code.python.dataloader_workers);
}

static const struct field python_fields[] = {
	{ "modules", true, rd_python_modules },
	{ "min_version", false, rd_python_min },
	{ "dataloader_workers", false, rd_python_workers },
};

static void rd_code_python(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!it) {
		fail_item(r, _("an object {modules, min_version, dataloader_workers}"), it);
		return;
	}
	m->code.python.recorded = true;
	read_fields(r, it, python_fields, N_FIELDS(python_fields), m, i);
}

static void rd_code_checkout(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.checkout, &rule_path);
}

static void rd_changes_digest(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.changes_digest, &rule_hex);
}

static void rd_changes_files(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->code.changes_files, &rule_text);
}

static const struct field changes_fields[] = {
	{ "digest", true, rd_changes_digest },
	{ "files", false, rd_changes_files },
};

static void rd_code_changes(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_fields(r, it, changes_fields, N_FIELDS(changes_fields), m, i);
}

static const struct field code_fields[] = {
	{ "source", true, rd_code_source },
	{ "path", false, rd_code_path },
	{ "repo", false, rd_code_repo },
	{ "image", false, rd_code_image },
	{ "python", false, rd_code_python },
	{ "checkout", false, rd_code_checkout },
	{ "changes", false, rd_code_changes },
};

/* What each code source needs besides "source" (the schema's if/then). */
static void require_for_source(struct reader *r, const cJSON *code, struct jp_manifest *m)
{
	static const struct {
		enum jp_code_source source;
		const char *key;
	} needs[] = {
		{ JP_CODE_SHARED_STORAGE, "path" },
		{ JP_CODE_IMAGE, "image" },
		{ JP_CODE_LAUNCH_CLONE, "repo" },
	};

	if (r->mode != JP_READ_MANIFEST || !cJSON_IsObject(code))
		return;
	for (size_t k = 0; k < N_FIELDS(needs); k++) {
		if (m->code.source != needs[k].source ||
		    cJSON_GetObjectItemCaseSensitive(code, needs[k].key))
			continue;
		for (size_t f = 0; f < N_FIELDS(code_fields); f++) {
			if (strcmp(code_fields[f].key, needs[k].key) != 0)
				continue;
			size_t mark = jp_json_path_push_key(&r->path, needs[k].key,
							    strlen(needs[k].key));
			code_fields[f].read(r, NULL, m, 0);
			jp_json_path_pop(&r->path, mark);
		}
	}
}

/* data[i] */
static void rd_data_name(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->data[i].name, &rule_nonempty);
}

static void rd_data_path(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->data[i].path, &rule_path);
}

static void rd_data_kind(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!cJSON_IsString(it) || jp_data_kind_from_name(&m->data[i].kind, it->valuestring) < 0)
		fail_item(r, _("\"team\" or \"public\""), it);
}

static void rd_data_read_only(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_bool(r, it, &m->data[i].read_only);
}

static void rd_stats_files(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_count(r, it, &m->data[i].stats.files);
}

static void rd_stats_bytes(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_count(r, it, &m->data[i].stats.bytes);
}

static void rd_stats_archives(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_count(r, it, &m->data[i].stats.archives);
}

static const struct field stats_fields[] = {
	{ "files", true, rd_stats_files },
	{ "bytes", true, rd_stats_bytes },
	{ "archives", true, rd_stats_archives },
};

static void rd_data_stats(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_fields(r, it, stats_fields, N_FIELDS(stats_fields), m, i);
	m->data[i].has_stats = cJSON_IsObject(it);
}

/* data[i].origin */
static void rd_origin_from(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->data[i].origin.from,
		    r->mode == JP_READ_ANSWERS ? &rule_origin_from_answer : &rule_origin_from);
}

static void rd_origin_kind(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!cJSON_IsString(it) ||
	    jp_origin_kind_from_name(&m->data[i].origin.kind, it->valuestring) < 0)
		fail_item(r, _("one of \"dir\", \"file\", \"archive\", \"url\", \"hub\""), it);
}

static void rd_digest_algorithm(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!cJSON_IsString(it) || jp_digest_hex_len(it->valuestring) == 0)
		fail_item(r, _("\"sha256\", \"xxh3-64\" or \"git-commit\""), it);
	else if (jp_set_str(&m->data[i].origin.digest_algorithm, it->valuestring) < 0)
		r->oom = true;
}

static void rd_digest_value(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->data[i].origin.digest, &rule_hex);
}

static const struct field digest_fields[] = {
	{ "algorithm", true, rd_digest_algorithm },
	{ "value", true, rd_digest_value },
};

/* The value has as many digits as its algorithm gives; both are there. */
static void rd_origin_digest(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	struct jp_data_origin *o = &m->data[i].origin;
	size_t want;
	char expected[96];

	read_fields(r, it, digest_fields, N_FIELDS(digest_fields), m, i);
	if (!cJSON_IsObject(it) || r->bad)
		return;
	want = jp_digest_hex_len(o->digest_algorithm);
	if (want && o->digest && strlen(o->digest) == want)
		return;
	snprintf(expected, sizeof(expected), _("{algorithm, value} with %zu hex digits"),
		 want ? want : (size_t)64);
	fail_item(r, expected, it);
}

static void rd_origin_staged_at(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->data[i].origin.staged_at, &rule_timestamp);
}

static const struct field origin_fields[] = {
	{ "from", true, rd_origin_from },
	{ "kind", true, rd_origin_kind },
	{ "digest", false, rd_origin_digest },
	{ "staged_at", true, rd_origin_staged_at },
};

static void rd_data_origin(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_fields(r, it, origin_fields, N_FIELDS(origin_fields), m, i);
	if (cJSON_IsObject(it) && !m->data[i].origin.from && r->mode == JP_READ_ANSWERS) {
		size_t mark = jp_json_path_push_key(&r->path, "from", 4);
		fail_item(r, _(rule_origin_from_answer.expected), NULL);
		jp_json_path_pop(&r->path, mark);
	}
}

static void rd_data_unpack(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_bool(r, it, &m->data[i].unpack_archives);
}

static void rd_data_output(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_bool(r, it, &m->data[i].output);
}

static const struct field data_fields[] = {
	{ "name", true, rd_data_name },
	{ "path", true, rd_data_path },
	{ "kind", true, rd_data_kind },
	{ "read_only", true, rd_data_read_only },
	{ "stats", false, rd_data_stats },
	{ "origin", false, rd_data_origin },
	{ "unpack_archives", false, rd_data_unpack },
	{ "output", false, rd_data_output },
};

/* outputs */
static void rd_out_output(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->outputs.output_dir, &rule_path);
}

static void rd_out_checkpoint(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->outputs.checkpoint_dir, &rule_path);
}

static void rd_out_log(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->outputs.log_dir, &rule_path);
}

static const struct field outputs_fields[] = {
	{ "output_dir", true, rd_out_output },
	{ "checkpoint_dir", true, rd_out_checkpoint },
	{ "log_dir", true, rd_out_log },
};

/* checks[i] */
static void rd_check_id(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->checks[i].id, &rule_nonempty);
}

static void rd_check_status(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!cJSON_IsString(it) ||
	    jp_check_status_from_name(&m->checks[i].status, it->valuestring) < 0)
		fail_item(r, _("one of \"pass\", \"warn\", \"fail\""), it);
}

static void rd_check_message(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->checks[i].message, &rule_nonempty);
}

static void rd_check_path(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->checks[i].path, &rule_path);
}

static const struct field check_fields[] = {
	{ "id", true, rd_check_id },
	{ "status", true, rd_check_status },
	{ "message", true, rd_check_message },
	{ "path", false, rd_check_path },
};

/* storage[i] */
static void rd_storage_field(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->storage[i].field, &rule_nonempty);
}

static void rd_storage_path(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->storage[i].path, &rule_path);
}

static void rd_storage_fstype(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->storage[i].fstype, &rule_nonempty);
}

static void rd_storage_mount(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	read_string(r, it, &m->storage[i].mount_point, &rule_path);
}

static const struct field storage_fields[] = {
	{ "field", true, rd_storage_field },
	{ "path", true, rd_storage_path },
	{ "fstype", true, rd_storage_fstype },
	{ "mount_point", true, rd_storage_mount },
};

/* Grow an array by one zeroed item; NULL when out of memory. */
static void *append_zeroed(void **items, size_t *n, size_t size)
{
	char *grown = realloc(*items, (*n + 1) * size);

	if (!grown)
		return NULL;
	memset(grown + *n * size, 0, size);
	*items = grown;
	return grown + (*n)++ * size;
}

static void read_array(struct reader *r, const cJSON *arr, const char *expected,
		       const struct field *fields, size_t n, struct jp_manifest *m,
		       void **items, size_t *n_items, size_t item_size)
{
	const cJSON *it;
	size_t idx = 0;

	if (!cJSON_IsArray(arr)) {
		fail_item(r, expected, arr);
		return;
	}
	cJSON_ArrayForEach(it, arr)
	{
		size_t mark = jp_json_path_push_index(&r->path, idx++);

		if (!append_zeroed(items, n_items, item_size)) {
			r->oom = true;
			return;
		}
		read_fields(r, it, fields, n, m, *n_items - 1);
		jp_json_path_pop(&r->path, mark);
	}
}

/* top level */
static void rd_schema_version(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	if (!cJSON_IsNumber(it) || it->valuedouble != JP_SCHEMA_VERSION) {
		fail_item(r, _("1 (the only schema_version this jobprep reads)"), it);
		return;
	}
	m->schema_version = JP_SCHEMA_VERSION;
}

static void rd_generator(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!it)
		fail_item(r, _("an object {name, version}"), it);
	else
		read_fields(r, it, generator_fields, N_FIELDS(generator_fields), m, i);
}

static void rd_created_at(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_string(r, it, &m->created_at, &rule_timestamp);
}

static void rd_job(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!it)
		fail_item(r, _("an object {name, workers, gpus_per_worker, launch_command, env}"), it);
	else
		read_fields(r, it, job_fields, N_FIELDS(job_fields), m, i);
}

static void rd_code(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!it) {
		fail_item(r, _("an object {source, path, repo, image, python}"), it);
		return;
	}
	read_fields(r, it, code_fields, N_FIELDS(code_fields), m, i);
	require_for_source(r, it, m);
}

static void rd_data(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_array(r, it, _("an array of data sources {name, path, kind, read_only, stats}"),
		   data_fields, N_FIELDS(data_fields), m, (void **)&m->data, &m->n_data,
		   sizeof(*m->data));
}

static void rd_outputs(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	if (!it)
		fail_item(r, _("an object {output_dir, checkpoint_dir, log_dir}"), it);
	else
		read_fields(r, it, outputs_fields, N_FIELDS(outputs_fields), m, i);
}

static void rd_checks(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_array(r, it, _("an array of checks {id, status, message, path}"), check_fields,
		   N_FIELDS(check_fields), m, (void **)&m->checks, &m->n_checks,
		   sizeof(*m->checks));
}

static void rd_storage(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	(void)i;
	read_array(r, it, _("an array of storage records {field, path, fstype, mount_point}"),
		   storage_fields, N_FIELDS(storage_fields), m, (void **)&m->storage,
		   &m->n_storage, sizeof(*m->storage));
}

static void rd_profile(struct reader *r, const cJSON *it, struct jp_manifest *m, size_t i)
{
	struct jp_profile *p = NULL;
	int rc;

	(void)i;
	rc = jp_profile_from_json(&p, it, r->origin, r->err);
	if (rc == JP_ENOMEM)
		r->oom = true;
	else if (rc < 0)
		r->bad = true;
	if (p) {
		jp_profile_free(m->profile);
		m->profile = p;
	}
}

static const struct field top_fields[] = {
	{ "schema_version", true, rd_schema_version },
	{ "generator", true, rd_generator },
	{ "created_at", true, rd_created_at },
	{ "job", true, rd_job },
	{ "code", true, rd_code },
	{ "data", true, rd_data },
	{ "outputs", true, rd_outputs },
	{ "checks", true, rd_checks },
	{ "profile", false, rd_profile },
	{ "storage", false, rd_storage },
};

/* Numbers beyond 2^53 become infinities, so every reader (profile.c's too)
 * refuses them instead of taking the nearest double. */
static void mark_big(cJSON *item, const struct jp_json_scan *scan, size_t *ordinal, size_t *next)
{
	for (; item; item = item->next) {
		if (cJSON_IsNumber(item)) {
			if (*next < scan->n_big && scan->big[*next].ordinal == *ordinal) {
				bool neg = scan->big[*next].lexeme[0] == '-';

				cJSON_SetNumberValue(item, neg ? -INFINITY : INFINITY);
				(*next)++;
			}
			(*ordinal)++;
		}
		mark_big(item->child, scan, ordinal, next);
	}
}

int jp_manifest_parse(struct jp_manifest **out, const char *text, size_t len, const char *origin,
		      enum jp_read_mode mode, struct jp_error *err)
{
	struct jp_json_scan scan = JP_JSON_SCAN_INIT;
	struct reader r;
	struct jp_manifest *m = NULL;
	cJSON *json = NULL;
	const cJSON *version;
	size_t ordinal = 0, next = 0;
	int rc;

	*out = NULL;
	memset(&r, 0, sizeof(r));
	r.origin = origin;
	r.mode = mode;
	r.err = err;
	r.scan = &scan;

	rc = jp_json_scan(&scan, text, len, origin, JP_MANIFEST_MAX_DEPTH, err);
	if (rc == JP_ENOMEM || scan.fatal)
		goto out;
	r.bad = rc < 0;

	json = cJSON_ParseWithLength(text, len);
	if (!json) {
		rc = jp_error_set(err, JP_EFORMAT, _("%s: expected a JSON document, got one cJSON cannot read"),
				  origin);
		goto out;
	}
	mark_big(json, &scan, &ordinal, &next);
	if (scan.n_big > 0) {
		r.big_by_path = calloc(scan.n_big, sizeof(*r.big_by_path));
		if (!r.big_by_path) {
			r.oom = true;
			goto out;
		}
		for (size_t i = 0; i < scan.n_big; i++)
			r.big_by_path[i] = &scan.big[i];
		qsort(r.big_by_path, scan.n_big, sizeof(*r.big_by_path), big_cmp);
	}

	rc = jp_manifest_new(&m);
	if (rc < 0)
		goto out;
	if (mode == JP_READ_ANSWERS) {
		/* An answers file says only what it says. */
		free(m->created_at);
		m->created_at = NULL;
		m->job.gpus_per_worker = -1; /* not given: the profile's default */
	}
	if (!cJSON_IsObject(json)) {
		fail_item(&r, _("a JSON object"), json);
		goto out;
	}
	/* Another schema_version means other fields: say only that. */
	version = cJSON_GetObjectItemCaseSensitive(json, "schema_version");
	if (version) {
		size_t mark = jp_json_path_push_key(&r.path, "schema_version", 14);
		rd_schema_version(&r, version, m, 0);
		jp_json_path_pop(&r.path, mark);
		if (r.bad)
			goto out;
	}
	read_fields(&r, json, top_fields, N_FIELDS(top_fields), m, 0);
out:
	if (r.oom)
		rc = jp_error_oom(err);
	else if (rc >= 0 && r.bad)
		rc = JP_EFORMAT;
	if (rc == 0) {
		*out = m;
		m = NULL;
	}
	jp_manifest_free(m);
	cJSON_Delete(json);
	free(r.big_by_path);
	jp_json_scan_dispose(&scan);
	jp_json_path_dispose(&r.path);
	return rc;
}

int jp_manifest_load(struct jp_manifest **out, const char *path, enum jp_read_mode mode,
		     struct jp_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	rc = jp_input_read(&text, &len, path, JP_MANIFEST_MAX_BYTES, err);
	if (rc == 0)
		rc = jp_manifest_parse(out, text, len, path, mode, err);
	free(text);
	return rc;
}
