/* The flow object: the draft manifest, what the user set, getting and
 * setting fields by key, lists, and answers files. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "flow_internal.h"
#include "manifest_internal.h"

void flow_inspected_dispose(struct inspected *i)
{
	free(i->path);
	free(i->url);
	free(i->branch);
	free(i->dirty_paths);
	free(i->problem);
	free(i->req_url);
	free(i->req_ref);
	free(i->note);
	free(i->refusal);
	memset(i, 0, sizeof(*i));
}

int flow_inspected_copy(struct inspected *dst, const struct inspected *src)
{
	*dst = *src;
	dst->path = dst->url = dst->branch = dst->dirty_paths = dst->problem = NULL;
	dst->req_url = dst->req_ref = dst->note = dst->refusal = NULL;
	if (jp_set_str(&dst->path, src->path) < 0 || jp_set_str(&dst->url, src->url) < 0 ||
	    jp_set_str(&dst->branch, src->branch) < 0 ||
	    jp_set_str(&dst->dirty_paths, src->dirty_paths) < 0 ||
	    jp_set_str(&dst->problem, src->problem) < 0 ||
	    jp_set_str(&dst->req_url, src->req_url) < 0 ||
	    jp_set_str(&dst->req_ref, src->req_ref) < 0 || jp_set_str(&dst->note, src->note) < 0 ||
	    jp_set_str(&dst->refusal, src->refusal) < 0)
		return JP_ENOMEM;
	return 0;
}

void jp_flow_set_options(struct jp_flow *flow, unsigned options)
{
	flow->options = options;
}

void jp_flow_code_retry(struct jp_flow *flow)
{
	flow->code_gen++;
}

const char *jp_flow_code_note(const struct jp_flow *flow, enum jp_check_status *status)
{
	const struct inspected *in = &flow->insp;

	if (status)
		*status = in->refusal ? JP_CHECK_FAIL : in->dirty ? JP_CHECK_WARN : JP_CHECK_PASS;
	if (!flow_insp_current(flow))
		return NULL;
	return in->refusal ? in->refusal : in->note;
}

const char *jp_flow_code_refusal_key(const struct jp_flow *flow)
{
	const struct inspected *in = &flow->insp;

	return flow_insp_current(flow) && in->refusal ? flow_key_name(in->refusal_key) : NULL;
}

int jp_flow_new(struct jp_flow **out, const struct jp_profile *profile, struct jp_error *err)
{
	struct jp_flow *flow = calloc(1, sizeof(*flow));
	int rc = 0;

	*out = NULL;
	if (flow)
		flow->run_lock = -1;
	if (!flow || !(flow->cache = calloc(1, sizeof(*flow->cache))) ||
	    jp_profile_copy(&flow->profile, profile) < 0 || jp_manifest_new(&flow->m) < 0 ||
	    jp_profile_copy(&flow->m->profile, profile) < 0)
		rc = jp_error_oom(err);
	if (rc == 0) /* untouched, the GPUs field shows the platform's default */
		flow->m->job.gpus_per_worker = flow->profile->gpus_per_worker;
	if (rc == 0)
		rc = flow_recompute(flow, err);
	if (rc < 0) {
		jp_flow_free(flow);
		return rc;
	}
	*out = flow;
	return 0;
}

void jp_flow_free(struct jp_flow *flow)
{
	if (!flow)
		return;
	for (size_t i = 0; flow->m && i < flow->m->n_data; i++)
		flow_data_extra_dispose(&flow->dx[i]);
	free(flow->dx);
	jp_manifest_free(flow->m);
	jp_profile_free(flow->profile);
	free(flow->manifest_path);
	free(flow->env_path);
	free(flow->run_base);
	free(flow->run_dir);
	if (flow->run_lock >= 0)
		close(flow->run_lock);
	free(flow->cloned_url);
	free(flow->cloned_req_ref);
	free(flow->cloned_path);
	free(flow->cloned_ref);
	flow_inspected_dispose(&flow->insp);
	free(flow->resolved_url);
	free(flow->resolved_req_ref);
	free(flow->resolved_ref);
	free(flow->made_out);
	free(flow->made_ckpt);
	free(flow->made_log);
	jp_strv_dispose(&flow->created);
	if (flow->cache)
		free(flow->cache->sync_path);
	free(flow->cache);
	free(flow->code_story);
	free(flow);
}

const struct jp_manifest *jp_flow_manifest(const struct jp_flow *flow)
{
	return flow->m;
}

const struct jp_profile *jp_flow_profile(const struct jp_flow *flow)
{
	return flow->profile;
}

/* --- reading fields ---------------------------------------------------------- */

static int bad_key(struct jp_error *err, const char *key)
{
	return jp_error_set(err, JP_EUSAGE, _("%s: no such field"), key ? key : "(null)");
}

/* A string field's storage, NULL for non-string fields. */
static char **str_slot(struct jp_flow *flow, const struct fref *r)
{
	struct jp_manifest *m = flow->m;

	switch (r->key) {
	case K_JOB_NAME: return &m->job.name;
	case K_CODE_PATH: return &m->code.path;
	case K_REPO_URL: return &m->code.repo_url;
	case K_REPO_REF: return &m->code.repo_ref;
	case K_REPO_COMMIT: return &m->code.repo_commit;
	case K_IMAGE: return &m->code.image;
	case K_OUTPUT_DIR: return &m->outputs.output_dir;
	case K_CHECKPOINT_DIR: return &m->outputs.checkpoint_dir;
	case K_LOG_DIR: return &m->outputs.log_dir;
	case K_LAUNCH: return &m->job.launch_command;
	case K_RESUME_FROM: return &m->job.resume_from;
	case K_MANIFEST_PATH: return &flow->manifest_path;
	case K_ENV_PATH: return &flow->env_path;
	case K_DATA_NAME: return r->index < m->n_data ? &m->data[r->index].name : NULL;
	case K_DATA_PATH: return r->index < m->n_data ? &m->data[r->index].path : NULL;
	case K_DATA_FROM: return r->index < m->n_data ? &m->data[r->index].origin.from : NULL;
	case K_ENV_NAME: return r->index < m->job.n_env ? &m->job.env[r->index].name : NULL;
	case K_ENV_VALUE: return r->index < m->job.n_env ? &m->job.env[r->index].value : NULL;
	default: return NULL;
	}
}

static bool index_ok(const struct jp_flow *flow, const struct fref *r)
{
	switch (r->key) {
	case K_DATA_NAME:
	case K_DATA_PATH:
	case K_DATA_KIND:
	case K_DATA_RO:
	case K_DATA_FROM:
	case K_DATA_UNPACK:
		return r->index < flow->m->n_data;
	case K_ENV_NAME:
	case K_ENV_VALUE:
		return r->index < flow->m->job.n_env;
	default:
		return true;
	}
}

static char *value_text(const struct jp_flow *flow, const struct fref *r)
{
	const struct jp_manifest *m = flow->m;
	char *s = NULL;

	switch (r->key) {
	case K_WORKERS:
		return asprintf(&s, "%" PRId64, m->job.workers) < 0 ? NULL : s;
	case K_GPUS:
		return asprintf(&s, "%" PRId64, m->job.gpus_per_worker) < 0 ? NULL : s;
	case K_CODE_SOURCE: {
		const char *n = jp_code_source_name(m->code.source);
		return strdup(n ? n : "");
	}
	case K_CODE_CHECKOUT:
		return strdup(flow->checkout == CHECKOUT_EXISTING ? "existing" : "clone");
	case K_DATA:
		return asprintf(&s, "%zu", m->n_data) < 0 ? NULL : s;
	case K_ENV:
		return asprintf(&s, "%zu", m->job.n_env) < 0 ? NULL : s;
	case K_DATA_KIND:
		return strdup(jp_data_kind_name(m->data[r->index].kind));
	case K_DATA_RO:
		return strdup(m->data[r->index].read_only ? "true" : "false");
	case K_DATA_UNPACK:
		return strdup(m->data[r->index].unpack_archives ? "true" : "false");
	case K_DATA_OUTPUT:
		return strdup(m->data[r->index].output ? "true" : "false");
	default: {
		char **slot = str_slot((struct jp_flow *)flow, r);
		return strdup(slot && *slot ? *slot : "");
	}
	}
}

int jp_flow_get(char **out, const struct jp_flow *flow, const char *key, struct jp_error *err)
{
	struct fref r;

	*out = NULL;
	if (flow_parse_key(&r, key) < 0 || !index_ok(flow, &r))
		return bad_key(err, key);
	*out = value_text(flow, &r);
	return *out ? 0 : jp_error_oom(err);
}

bool jp_flow_is_set(const struct jp_flow *flow, const char *key)
{
	struct fref r;

	if (flow_parse_key(&r, key) < 0 || !index_ok(flow, &r))
		return false;
	if (r.key < K_N_SCALAR)
		return flow->set[r.key];
	switch (r.key) {
	case K_DATA_NAME: return flow->dx[r.index].name_set;
	case K_DATA_KIND: return flow->dx[r.index].kind_set;
	case K_DATA_RO: return flow->dx[r.index].ro_set;
	case K_DATA_PATH:
	case K_DATA_FROM:
	case K_DATA_UNPACK:
	case K_ENV_NAME:
	case K_ENV_VALUE:
		return true; /* no defaults: whatever is there was given */
	default:
		return false;
	}
}

bool jp_flow_field_active(const struct jp_flow *flow, const char *key)
{
	struct fref r;

	return flow_parse_key(&r, key) == 0 && index_ok(flow, &r) && flow_active(flow, &r);
}

/* flow_validate_value on value, or on the field's current value. */
static int validate_current(struct jp_verdict *v, const struct jp_flow *flow,
			    const struct fref *r, const char *value)
{
	char *own = NULL;
	int rc;

	if (!value && !(value = own = value_text(flow, r)))
		return JP_ENOMEM;
	rc = flow_validate_value(v, flow, r, value);
	free(own);
	return rc;
}

/* --- setting fields ------------------------------------------------------------ */

static int parse_int(long long *out, const char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || (!isdigit((unsigned char)*s) && *s != '-' && *s != '+'))
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_bool(bool *out, const char *s)
{
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcmp(s, "1") || !strcasecmp(s, "y")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcmp(s, "0") || !strcasecmp(s, "n")) {
		*out = false;
		return 0;
	}
	return -1;
}

static const char *choice_list(const struct jp_field *f, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct jp_choice *c = f->choices; c && c->value; c++) {
		int w = snprintf(buf + n, len - n, "%s\"%s\"", n ? ", " : "", c->value);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

/* Parse and check a non-empty `*value` for field `f`: the integer into *n,
 * the boolean into *b; a path is normalized into *normal and *value points
 * at it. Returns JP_EUSAGE (with *why) for a value of the wrong shape. */
static int store_parse(const struct jp_field *f, const char **value, long long *n, bool *b,
		       char **normal, struct jp_verdict *why)
{
	char buf[256];
	const char *v = *value;

	switch (f->kind) {
	case JP_FIELD_INTEGER:
		if (parse_int(n, v) < 0 || *n < f->min || *n > f->max) {
			flow_verdict_set(why, JP_CHECK_FAIL,
					 _("expected an integer from %lld to %lld, got \"%s\""),
					 f->min, f->max, v);
			return JP_EUSAGE;
		}
		break;
	case JP_FIELD_CHOICE: {
		const struct jp_choice *c;
		for (c = f->choices; c->value; c++)
			if (strcmp(c->value, v) == 0)
				break;
		if (!c->value) {
			flow_verdict_set(why, JP_CHECK_FAIL, _("expected one of %s, got \"%s\""),
					 choice_list(f, buf, sizeof(buf)), v);
			return JP_EUSAGE;
		}
		break;
	}
	case JP_FIELD_BOOL:
		if (parse_bool(b, v) < 0) {
			flow_verdict_set(why, JP_CHECK_FAIL, _("expected true or false, got \"%s\""),
					 v);
			return JP_EUSAGE;
		}
		break;
	case JP_FIELD_PATH:
		if (!flow_check_absolute(why, v))
			return JP_EUSAGE;
		*normal = jp_path_normalize(v);
		if (!*normal)
			return JP_ENOMEM;
		*value = *normal;
		break;
	default:
		break;
	}
	return 0;
}

/* Put the parsed value (NULL: the default) into the manifest / flow slot
 * of `r`. */
static int store_apply(struct jp_flow *flow, const struct fref *r, const char *value,
		       long long n, bool b, struct jp_verdict *why)
{
	struct jp_manifest *m = flow->m;
	int rc = 0;
	bool given = value != NULL;
	const char *text = value && *value ? value : NULL;
	switch (r->key) {
	case K_WORKERS:
		m->job.workers = given ? n : 1;
		break;
	case K_GPUS:
		m->job.gpus_per_worker = given ? n : flow->profile->gpus_per_worker;
		break;
	case K_CODE_SOURCE:
		if (given)
			rc = jp_code_source_from_name(&m->code.source, value) < 0 ? JP_EUSAGE : 0;
		break;
	case K_CODE_CHECKOUT:
		if (given)
			flow->checkout = strcmp(value, "existing") == 0 ? CHECKOUT_EXISTING
								       : CHECKOUT_CLONE;
		break;
	case K_DATA_KIND:
		flow->dx[r->index].kind_set = given;
		if (given)
			jp_data_kind_from_name(&m->data[r->index].kind, value);
		break;
	case K_DATA_RO:
		flow->dx[r->index].ro_set = given;
		if (given)
			m->data[r->index].read_only = b;
		break;
	case K_DATA_UNPACK:
		m->data[r->index].unpack_archives = given && b;
		break;
	case K_DATA_OUTPUT:
		m->data[r->index].output = given && b;
		break;
	case K_DATA_NAME:
		flow->dx[r->index].name_set = given;
		rc = jp_set_str(str_slot(flow, r), text);
		break;
	case K_ENV_NAME:
	case K_ENV_VALUE:
		/* no defaults: NULL and "" both mean empty */
		rc = jp_set_str(str_slot(flow, r), r->key == K_ENV_VALUE && value ? value : text);
		break;
	case K_DATA_PATH:
		rc = jp_set_str(str_slot(flow, r), text);
		break;
	case K_DATA_FROM:
		rc = flow_stage_store(flow, r->index, text, why);
		break;
	case K_RESUME_FROM:
		rc = flow_resume_store(flow, text, why);
		break;
	default: {
		char **slot = str_slot(flow, r);
		if (!slot) {
			rc = JP_EUSAGE;
			break;
		}
		rc = jp_set_str(slot, text);
		break;
	}
	}
	if (r->key < K_N_SCALAR)
		flow->set[r->key] = given;
	return rc;
}

/* Store `value` (NULL: back to the default). Fills *why for a value that
 * cannot be represented and returns JP_EUSAGE. */
static int store(struct jp_flow *flow, const struct fref *r, const char *value,
		 struct jp_verdict *why)
{
	const struct jp_field *f = r->field;
	long long n = 0;
	bool b = false;
	char *normal = NULL;
	int rc;

	if (f->flags & JP_FIELD_DERIVED) {
		flow_verdict_set(why, JP_CHECK_FAIL, _("%s is recorded by jobprep, not typed"),
				 flow_key_name(r->key));
		return JP_EUSAGE;
	}
	if (r->key == K_DATA || r->key == K_ENV) {
		flow_verdict_set(why, JP_CHECK_FAIL,
				 _("%s is a list: add and remove its items instead"), f->key);
		return JP_EUSAGE;
	}

	if (value && *value) {
		rc = store_parse(f, &value, &n, &b, &normal, why);
		if (rc < 0)
			return rc;
	} else if (value && (f->kind == JP_FIELD_INTEGER || f->kind == JP_FIELD_CHOICE ||
			     f->kind == JP_FIELD_BOOL)) {
		value = NULL; /* empty: back to the default */
	}

	rc = store_apply(flow, r, value, n, b, why);
	free(normal);
	return rc;
}

static int set_one(struct jp_verdict *verdict, struct jp_flow *flow, const struct fref *r,
		   const char *value, const char *key, struct jp_error *err)
{
	struct jp_verdict why = JP_VERDICT_INIT;
	int rc;

	rc = store(flow, r, value, &why);
	if (rc == JP_EUSAGE) {
		jp_error_set(err, JP_EUSAGE, "%s: %s", key, why.message ? why.message : "");
		if (verdict) {
			jp_verdict_dispose(verdict);
			*verdict = why;
		} else {
			jp_verdict_dispose(&why);
		}
		return JP_EUSAGE;
	}
	jp_verdict_dispose(&why);
	if (rc < 0)
		return jp_error_oom(err);
	flow->gen++;
	if (r->key >= K_CODE_SOURCE && r->key <= K_IMAGE)
		flow->code_gen++;
	rc = flow_recompute(flow, err);
	if (rc < 0)
		return rc;
	if (verdict) {
		jp_verdict_dispose(verdict);
		rc = validate_current(verdict, flow, r, NULL);
		if (rc < 0)
			return jp_error_oom(err);
	}
	return 0;
}

int jp_flow_set(struct jp_verdict *verdict, struct jp_flow *flow, const char *key,
		const char *value, struct jp_error *err)
{
	struct fref r;

	if (flow_parse_key(&r, key) < 0 || !index_ok(flow, &r))
		return bad_key(err, key);
	return set_one(verdict, flow, &r, value, key, err);
}

/* A stage offer taken: two fields set (data[].path first). */
int jp_flow_stage_take(struct jp_flow *flow, size_t index, const char *from, const char *dest,
		       struct jp_error *err)
{
	char key[64];
	int rc;

	if (index >= flow->m->n_data)
		return jp_error_set(err, JP_EUSAGE, _("%s[%zu]: no such item"), "data", index);
	flow_item_key(key, sizeof(key), K_DATA_PATH, index);
	rc = jp_flow_set(NULL, flow, key, dest, err);
	flow_item_key(key, sizeof(key), from ? K_DATA_FROM : K_DATA_UNPACK, index);
	if (rc == 0)
		rc = jp_flow_set(NULL, flow, key, from ? from : "true", err);
	return rc;
}

int jp_flow_validate(struct jp_verdict *verdict, const struct jp_flow *flow, const char *key,
		     const char *value, struct jp_error *err)
{
	struct fref r;
	int rc;

	jp_verdict_dispose(verdict);
	if (flow_parse_key(&r, key) < 0 || !index_ok(flow, &r))
		return bad_key(err, key);
	rc = validate_current(verdict, flow, &r, value);
	if (rc < 0)
		return jp_error_oom(err);
	return 0;
}

/* Every active field of a step, list items expanded; calls fn for each key. */
static int each_key(const struct jp_flow *flow, enum jp_step step,
		    int (*fn)(const char *key, void *payload), void *payload)
{
	char key[96];
	int rc;

	for (const struct jp_field *f = jp_flow_fields(step); f->key; f++) {
		if (f->kind != JP_FIELD_LIST) {
			if (!jp_flow_field_active(flow, f->key))
				continue;
			rc = fn(f->key, payload);
			if (rc)
				return rc;
			continue;
		}
		size_t n = jp_flow_list_count(flow, f->key);
		for (size_t i = 0; i < n; i++) {
			for (const struct jp_field *it = f->items; it->key; it++) {
				const char *open = strstr(it->key, "[]");
				snprintf(key, sizeof(key), "%.*s[%zu]%s", (int)(open - it->key), it->key,
					 i, open + 2);
				if (!jp_flow_field_active(flow, key))
					continue;
				rc = fn(key, payload);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

struct step_walk {
	const struct jp_flow *flow;
	struct jp_verdict *worst;
	char **first_key;
	int oom;
};

static int step_walk_one(const char *key, void *payload)
{
	struct step_walk *w = payload;
	struct jp_verdict v = JP_VERDICT_INIT;

	if (jp_flow_validate(&v, w->flow, key, NULL, NULL) < 0) {
		w->oom = 1;
		return 1;
	}
	if (v.status > w->worst->status) {
		jp_verdict_dispose(w->worst);
		*w->worst = v;
		if (w->first_key) {
			free(*w->first_key);
			*w->first_key = strdup(key);
		}
		return 0;
	}
	jp_verdict_dispose(&v);
	return 0;
}

int jp_flow_step_verdict(struct jp_verdict *verdict, char **first_key, const struct jp_flow *flow,
			 enum jp_step step, struct jp_error *err)
{
	struct step_walk w = { flow, verdict, first_key, 0 };

	jp_verdict_dispose(verdict);
	if (first_key)
		*first_key = NULL;
	each_key(flow, step, step_walk_one, &w);
	if (w.oom)
		return jp_error_oom(err);
	return 0;
}

/* Every failing active field of every step into err as "KEY: message",
 * and as a check of the manifest (its id the field's key, or each launch
 * finding's own id), so a refusal shows its [FAIL] lines and --json lists
 * them; returns JP_ECHECK if any. Used by apply_answers and finish. */
struct fail_walk {
	struct jp_flow *flow;
	struct jp_error *err;
	const char *origin;
	int failed;
	int oom;
};

static void fail_line(struct fail_walk *w, const char *key, const char *message)
{
	const struct jp_field *f = jp_flow_field(key);

	/* A key of the flow's own (review.manifest_path is -o) is no name
	 * the person gave: its message names the path they did. */
	if (f && (f->flags & JP_FIELD_FLOW_ONLY))
		jp_error_set(w->err, JP_ECHECK, "%s", message ? message : key);
	else if (w->origin)
		jp_error_set(w->err, JP_ECHECK, "%s: %s: %s", w->origin, key, message ? message : "");
	else
		jp_error_set(w->err, JP_ECHECK, "%s: %s", key, message ? message : "");
}

/* The launch command's refusal: one line and one check per finding. */
static int fail_launch(struct fail_walk *w, const char *key)
{
	struct jp_lint_report r = JP_LINT_REPORT_INIT;
	char *cmd = NULL;
	int rc = jp_flow_get(&cmd, w->flow, key, NULL);

	if (rc == 0)
		rc = flow_launch_findings(&r, w->flow, cmd ? cmd : "");
	/* the failures first, as the verdict lists them */
	for (int pass = 0; rc == 0 && pass < 2; pass++)
		for (size_t i = 0; rc == 0 && i < r.n; i++) {
			const struct jp_lint_finding *f = &r.items[i];
			enum jp_check_status st = flow_launch_finding_status(w->flow, f);

			if ((st == JP_CHECK_FAIL) != (pass == 0))
				continue;
			if (st == JP_CHECK_FAIL)
				fail_line(w, key, f->message);
			rc = jp_manifest_add_check(w->flow->m, f->id, st, f->path, "%s", f->message);
		}
	jp_lint_report_dispose(&r);
	free(cmd);
	return rc;
}

static int fail_walk_one(const char *key, void *payload)
{
	struct fail_walk *w = payload;
	struct jp_verdict v = JP_VERDICT_INIT;
	int rc = 0;

	if (jp_flow_validate(&v, w->flow, key, NULL, NULL) < 0) {
		w->oom = 1;
		return 1;
	}
	if (v.status == JP_CHECK_FAIL) {
		w->failed = 1;
		if (strcmp(key, "job.launch_command") == 0) {
			rc = fail_launch(w, key);
		} else {
			fail_line(w, key, v.message);
			rc = jp_manifest_add_check(w->flow->m, key, JP_CHECK_FAIL, NULL, "%s",
						   v.message ? v.message : "");
		}
	}
	jp_verdict_dispose(&v);
	if (rc < 0) {
		w->oom = 1;
		return 1;
	}
	return 0;
}

int flow_report_failures(struct jp_flow *flow, const char *origin, struct jp_error *err)
{
	struct fail_walk w = { flow, err, origin, 0, 0 };

	jp_manifest_clear_checks(flow->m);
	for (int s = 0; s < JP_STEP_COUNT && !w.oom; s++)
		each_key(flow, (enum jp_step)s, fail_walk_one, &w);
	if (w.oom)
		return jp_error_oom(err);
	return w.failed ? JP_ECHECK : 0;
}

/* --- lists ---------------------------------------------------------------------- */

size_t jp_flow_list_count(const struct jp_flow *flow, const char *list_key)
{
	if (list_key && strcmp(list_key, "data") == 0)
		return flow->m->n_data;
	if (list_key && strcmp(list_key, "job.env") == 0)
		return flow->m->job.n_env;
	return 0;
}

int jp_flow_list_add(size_t *index, struct jp_flow *flow, const char *list_key,
		     struct jp_error *err)
{
	struct jp_manifest *m = flow->m;

	if (list_key && strcmp(list_key, "data") == 0) {
		struct data_extra *g = realloc(flow->dx, (m->n_data + 1) * sizeof(*g));
		if (!g)
			return jp_error_oom(err);
		flow->dx = g;
		memset(&g[m->n_data], 0, sizeof(*g));
		if (jp_manifest_add_data(m, NULL, NULL, JP_DATA_TEAM, false) < 0)
			return jp_error_oom(err);
		if (index)
			*index = m->n_data - 1;
	} else if (list_key && strcmp(list_key, "job.env") == 0) {
		if (jp_manifest_add_env(m, NULL, NULL) < 0)
			return jp_error_oom(err);
		if (index)
			*index = m->job.n_env - 1;
	} else {
		return bad_key(err, list_key);
	}
	flow->gen++;
	return flow_recompute(flow, err);
}

int jp_flow_list_remove(struct jp_flow *flow, const char *list_key, size_t index,
			struct jp_error *err)
{
	struct jp_manifest *m = flow->m;

	if (list_key && strcmp(list_key, "data") == 0 && index < m->n_data) {
		free(m->data[index].name);
		free(m->data[index].path);
		jp_data_origin_dispose(&m->data[index].origin);
		flow_data_extra_dispose(&flow->dx[index]);
		memmove(&m->data[index], &m->data[index + 1],
			(m->n_data - index - 1) * sizeof(*m->data));
		memmove(&flow->dx[index], &flow->dx[index + 1],
			(m->n_data - index - 1) * sizeof(*flow->dx));
		m->n_data--;
	} else if (list_key && strcmp(list_key, "job.env") == 0 && index < m->job.n_env) {
		free(m->job.env[index].name);
		free(m->job.env[index].value);
		memmove(&m->job.env[index], &m->job.env[index + 1],
			(m->job.n_env - index - 1) * sizeof(*m->job.env));
		m->job.n_env--;
	} else {
		return jp_error_set(err, JP_EUSAGE, _("%s[%zu]: no such item"),
				    list_key ? list_key : "(null)", index);
	}
	flow->gen++;
	return flow_recompute(flow, err);
}

/* --- answers -------------------------------------------------------------------- */

struct answer_ctx {
	struct jp_flow *flow;
	const char *origin;
	struct jp_error *err;
	int bad;
	int oom;
};

static void answer(struct answer_ctx *a, const char *key, const char *value)
{
	struct fref r;
	struct jp_verdict why = JP_VERDICT_INIT;
	int rc;

	if (!value || a->oom)
		return;
	if (flow_parse_key(&r, key) < 0) {
		a->bad = 1;
		jp_error_set(a->err, JP_EFORMAT, _("%s: %s: not a field jobprep knows"), a->origin, key);
		return;
	}
	rc = store(a->flow, &r, value, &why);
	if (rc == JP_EUSAGE) {
		a->bad = 1;
		jp_error_set(a->err, JP_EFORMAT, "%s: %s: %s", a->origin, key,
			     why.message ? why.message : "");
	} else if (rc < 0) {
		a->oom = 1;
	}
	jp_verdict_dispose(&why);
}

/* An answers file's origin.digest is what the download must have. */
static void answer_digest(struct answer_ctx *a, size_t idx, const struct jp_data_origin *o)
{
	if (!o->digest || a->oom)
		return;
	if (!o->from || strncasecmp(o->from, "http", 4) != 0 ||
	    !o->digest_algorithm || strcmp(o->digest_algorithm, "sha256") != 0) {
		a->bad = 1;
		jp_error_set(a->err, JP_EFORMAT,
			     _("%s: data[%zu].origin.digest: only a download's SHA-256 is checked "
			       "while staging: give {\"algorithm\": \"sha256\", ...} with an "
			       "http(s) from"),
			     a->origin, idx);
		return;
	}
	if (jp_set_str(&a->flow->dx[idx].want_sha256, o->digest) < 0)
		a->oom = 1;
}

/* *out = path moved from the run folder `from` into the flow's own, NULL
 * where it is the profile's default (tmpl) for `from`: it follows. */
static int rebase_output(char **out, const struct jp_flow *flow, const char *path,
			 const char *from, const char *tmpl)
{
	const char *to = flow->m->outputs.output_dir;
	char *was = flow_expand_template(flow, tmpl, from);
	size_t n = strlen(from);
	int rc = 0;

	*out = NULL;
	if (!path || (was && strcmp(was, path) == 0))
		;
	else if (to && strncmp(path, from, n) == 0 && (path[n] == '/' || !path[n]))
		rc = asprintf(out, "%s%s", to, path + n) < 0 ? (*out = NULL, JP_ENOMEM) : 0;
	else if (!(*out = strdup(path)))
		rc = JP_ENOMEM;
	free(was);
	return rc;
}

/* The outputs. A manifest's (it has created_at) are a run's: its run folder
 * is the template, not the place, so the next free run folder is taken (its
 * checkpoints and logs where that run had them inside its folder), never
 * the earlier run's own. */
static void answer_outputs(struct answer_ctx *a, const struct jp_manifest *ans)
{
	const char *out = ans->outputs.output_dir;
	char *ck = NULL, *lg = NULL;

	if (!ans->created_at || !flow_is_run_folder(a->flow, out)) {
		answer(a, "outputs.output_dir", out);
		answer(a, "outputs.checkpoint_dir", ans->outputs.checkpoint_dir);
		answer(a, "outputs.log_dir", ans->outputs.log_dir);
		return;
	}
	if (flow_recompute(a->flow, a->err) < 0 ||
	    rebase_output(&ck, a->flow, ans->outputs.checkpoint_dir, out,
			  a->flow->profile->checkpoint_dir) < 0 ||
	    rebase_output(&lg, a->flow, ans->outputs.log_dir, out, a->flow->profile->log_dir) < 0) {
		a->oom = 1;
	} else {
		answer(a, "outputs.checkpoint_dir", ck);
		answer(a, "outputs.log_dir", lg);
	}
	free(ck);
	free(lg);
}

int jp_flow_apply_answers(struct jp_flow *flow, const struct jp_manifest *ans, const char *origin,
			  struct jp_error *err)
{
	struct answer_ctx a = { flow, origin ? origin : "answers", err, 0, 0 };
	char num[32], key[64];
	int rc;

	/* Every value first, in step order; the checks run on the whole. */
	answer(&a, "job.name", ans->job.name);
	snprintf(num, sizeof(num), "%" PRId64, ans->job.workers);
	answer(&a, "job.workers", num);
	if (ans->job.gpus_per_worker >= 0) { /* -1: not given, the profile's default */
		snprintf(num, sizeof(num), "%" PRId64, ans->job.gpus_per_worker);
		answer(&a, "job.gpus_per_worker", num);
	}

	answer(&a, "code.source", jp_code_source_name(ans->code.source));
	answer(&a, "code.repo.url", ans->code.repo_url);
	answer(&a, "code.repo.ref", ans->code.repo_ref);
	answer(&a, "code.image", ans->code.image);
	/* a run's manifest: its code.path is that run's own copy, the checkout
	 * the project */
	answer(&a, "code.path", ans->code.checkout ? ans->code.checkout : ans->code.path);
	/* what the code needs of python3, told where it cannot be read (in an
	 * image); code that can be read is read again at the checks */
	if (ans->code.python.recorded &&
	    jp_code_python_copy(&flow->m->code.python, &ans->code.python) < 0)
		a.oom = 1;
	/* store() does not recompute: defaults that depend on these follow now */
	if (flow_recompute(flow, err) < 0)
		a.oom = 1;

	for (size_t i = 0; i < ans->n_data && !a.oom; i++) {
		const struct jp_data_source *d = &ans->data[i];
		size_t idx;
		if (jp_flow_list_add(&idx, flow, "data", err) < 0) {
			a.oom = 1;
			break;
		}
		flow_item_key(key, sizeof(key), K_DATA_PATH, idx);
		answer(&a, key, d->path);
		flow_item_key(key, sizeof(key), K_DATA_NAME, idx);
		answer(&a, key, d->name);
		/* The model cannot tell an absent kind from "team", nor an absent
		 * read_only from false: those follow the path. */
		flow_item_key(key, sizeof(key), K_DATA_KIND, idx);
		answer(&a, key, d->kind == JP_DATA_PUBLIC ? "public" : NULL);
		flow_item_key(key, sizeof(key), K_DATA_RO, idx);
		answer(&a, key, d->read_only ? "true" : NULL);
		flow_item_key(key, sizeof(key), K_DATA_FROM, idx);
		answer(&a, key, d->origin.from);
		answer_digest(&a, idx, &d->origin);
		flow_item_key(key, sizeof(key), K_DATA_UNPACK, idx);
		answer(&a, key, d->unpack_archives ? "true" : NULL);
		flow_item_key(key, sizeof(key), K_DATA_OUTPUT, idx);
		answer(&a, key, d->output ? "true" : NULL);
	}

	answer_outputs(&a, ans);

	answer(&a, "job.launch_command", ans->job.launch_command);
	for (size_t i = 0; i < ans->job.n_env && !a.oom; i++) {
		size_t idx;
		if (jp_flow_list_add(&idx, flow, "job.env", err) < 0) {
			a.oom = 1;
			break;
		}
		flow_item_key(key, sizeof(key), K_ENV_NAME, idx);
		answer(&a, key, ans->job.env[i].name);
		flow_item_key(key, sizeof(key), K_ENV_VALUE, idx);
		answer(&a, key, ans->job.env[i].value ? ans->job.env[i].value : "");
	}
	/* last: a run's name is looked up among the job's runs */
	answer(&a, "job.resume_from", ans->job.resume_from);

	flow->gen++;
	if (a.oom || flow_recompute(flow, err) < 0)
		return jp_error_oom(err);
	if (a.bad)
		return JP_EFORMAT;
	rc = flow_report_failures(flow, a.origin, err);
	return rc;
}
