/* Deep copies: of a manifest (what a task snapshots and what the flow hands
 * out) and of a whole flow (what an inline check off the flow's thread reads). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flow_internal.h"
#include "manifest_internal.h"
#include "strv_internal.h"

int flow_storage_copy(struct jp_manifest *m, const struct jp_manifest *src)
{
	for (size_t i = 0; i < src->n_storage; i++) {
		const struct jp_storage_record *r = &src->storage[i];

		if (r->field && r->path && r->fstype && r->mount_point &&
		    jp_manifest_set_storage(m, r->field, r->path, r->fstype, r->mount_point) < 0)
			return JP_ENOMEM;
	}
	return 0;
}

int flow_manifest_copy(struct jp_manifest **out, const struct jp_manifest *src)
{
	struct jp_manifest *m = NULL;
	int rc;

	*out = NULL;
	rc = jp_manifest_new(&m);
	if (rc < 0)
		return rc;
	m->schema_version = src->schema_version;
	m->job.workers = src->job.workers;
	m->job.gpus_per_worker = src->job.gpus_per_worker;
	m->code.source = src->code.source;
	if (jp_set_str(&m->generator_name, src->generator_name) < 0 ||
	    jp_set_str(&m->generator_version, src->generator_version) < 0 ||
	    jp_set_str(&m->created_at, src->created_at) < 0 ||
	    jp_set_str(&m->job.name, src->job.name) < 0 ||
	    jp_set_str(&m->job.launch_command, src->job.launch_command) < 0 ||
	    jp_set_str(&m->job.resume_from, src->job.resume_from) < 0 ||
	    jp_set_str(&m->code.path, src->code.path) < 0 ||
	    jp_set_str(&m->code.repo_url, src->code.repo_url) < 0 ||
	    jp_set_str(&m->code.repo_ref, src->code.repo_ref) < 0 ||
	    jp_set_str(&m->code.repo_commit, src->code.repo_commit) < 0 ||
	    jp_set_str(&m->code.image, src->code.image) < 0 ||
	    jp_set_str(&m->code.checkout, src->code.checkout) < 0 ||
	    jp_set_str(&m->code.changes_digest, src->code.changes_digest) < 0 ||
	    jp_set_str(&m->code.changes_files, src->code.changes_files) < 0 ||
	    jp_set_str(&m->outputs.output_dir, src->outputs.output_dir) < 0 ||
	    jp_set_str(&m->outputs.checkpoint_dir, src->outputs.checkpoint_dir) < 0 ||
	    jp_set_str(&m->outputs.log_dir, src->outputs.log_dir) < 0 ||
	    jp_code_python_copy(&m->code.python, &src->code.python) < 0)
		goto oom;
	for (size_t i = 0; i < src->job.n_env; i++)
		if (jp_manifest_add_env(m, src->job.env[i].name, src->job.env[i].value) < 0)
			goto oom;
	for (size_t i = 0; i < src->n_data; i++) {
		const struct jp_data_source *d = &src->data[i];
		if (jp_manifest_add_data(m, d->name, d->path, d->kind, d->read_only) < 0)
			goto oom;
		m->data[i].has_stats = d->has_stats;
		m->data[i].stats = d->stats;
		m->data[i].unpack_archives = d->unpack_archives;
		m->data[i].output = d->output;
		if (jp_data_origin_copy(&m->data[i].origin, &d->origin) < 0)
			goto oom;
	}
	for (size_t i = 0; i < src->n_checks; i++) {
		const struct jp_check *c = &src->checks[i];
		if (jp_manifest_add_check(m, c->id, c->status, c->path, "%s", c->message) < 0)
			goto oom;
	}
	if (src->profile && jp_profile_copy(&m->profile, src->profile) < 0)
		goto oom;
	if (flow_storage_copy(m, src) < 0)
		goto oom;
	*out = m;
	return 0;
oom:
	jp_manifest_free(m);
	return JP_ENOMEM;
}

int flow_snapshot(struct jp_flow **out, const struct jp_flow *src)
{
	struct jp_flow *f = malloc(sizeof(*f));
	int rc = 0;

	*out = NULL;
	if (!f)
		return JP_ENOMEM;
	/* The scalars as they are; every pointer NULL until it is a copy, so
	 * jp_flow_free can undo a partial one. */
	*f = *src;
	f->profile = NULL;
	f->m = NULL;
	f->manifest_path = f->env_path = NULL;
	f->dx = NULL;
	f->run_base = f->run_dir = NULL;
	f->run_lock = -1; /* the flow's own: a snapshot holds no lock */
	f->cloned_url = f->cloned_req_ref = f->cloned_path = f->cloned_ref = NULL;
	memset(&f->insp, 0, sizeof(f->insp));
	f->resolved_url = f->resolved_req_ref = f->resolved_ref = NULL;
	f->made_out = f->made_ckpt = f->made_log = NULL;
	memset(&f->created, 0, sizeof(f->created));
	f->cache = NULL;

	if (jp_profile_copy(&f->profile, src->profile) < 0 ||
	    flow_manifest_copy(&f->m, src->m) < 0 || !(f->cache = calloc(1, sizeof(*f->cache))))
		rc = JP_ENOMEM;
	size_t n = src->m->n_data;
	if (rc == 0 && n && !(f->dx = calloc(n, sizeof(*f->dx))))
		rc = JP_ENOMEM;
	for (size_t i = 0; rc == 0 && f->dx && i < n; i++)
		rc = flow_data_extra_copy(&f->dx[i], &src->dx[i]);
	if (rc == 0 && f->cache) {
		f->cache->syncs = src->cache->syncs;
		rc = jp_set_str(&f->cache->sync_path, src->cache->sync_path);
	}
	if (rc == 0 &&
	    (jp_set_str(&f->manifest_path, src->manifest_path) < 0 ||
	     jp_set_str(&f->env_path, src->env_path) < 0 || jp_set_str(&f->run_base, src->run_base) < 0 ||
	     jp_set_str(&f->run_dir, src->run_dir) < 0 ||
	     jp_set_str(&f->cloned_url, src->cloned_url) < 0 ||
	     jp_set_str(&f->cloned_req_ref, src->cloned_req_ref) < 0 ||
	     jp_set_str(&f->cloned_path, src->cloned_path) < 0 ||
	     jp_set_str(&f->cloned_ref, src->cloned_ref) < 0 ||
	     flow_inspected_copy(&f->insp, &src->insp) < 0 ||
	     jp_set_str(&f->resolved_url, src->resolved_url) < 0 ||
	     jp_set_str(&f->resolved_req_ref, src->resolved_req_ref) < 0 ||
	     jp_set_str(&f->resolved_ref, src->resolved_ref) < 0 ||
	     jp_set_str(&f->made_out, src->made_out) < 0 ||
	     jp_set_str(&f->made_ckpt, src->made_ckpt) < 0 ||
	     jp_set_str(&f->made_log, src->made_log) < 0 ||
	     jp_strv_copy(&f->created, &src->created) < 0))
		rc = JP_ENOMEM;
	if (rc < 0) {
		if (!f->dx && f->m) {
			/* jp_flow_free walks dx for each data source */
			jp_manifest_free(f->m);
			f->m = NULL;
		}
		jp_flow_free(f);
		return rc;
	}
	*out = f;
	return 0;
}
