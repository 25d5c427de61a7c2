/* A deep copy of a manifest: what a task snapshots and what the flow hands out. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flow_internal.h"

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
	    jp_set_str(&m->code.path, src->code.path) < 0 ||
	    jp_set_str(&m->code.repo_url, src->code.repo_url) < 0 ||
	    jp_set_str(&m->code.repo_ref, src->code.repo_ref) < 0 ||
	    jp_set_str(&m->code.repo_commit, src->code.repo_commit) < 0 ||
	    jp_set_str(&m->code.image, src->code.image) < 0 ||
	    jp_set_str(&m->outputs.output_dir, src->outputs.output_dir) < 0 ||
	    jp_set_str(&m->outputs.checkpoint_dir, src->outputs.checkpoint_dir) < 0 ||
	    jp_set_str(&m->outputs.log_dir, src->outputs.log_dir) < 0)
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
	}
	for (size_t i = 0; i < src->n_checks; i++) {
		const struct jp_check *c = &src->checks[i];
		if (jp_manifest_add_check(m, c->id, c->status, c->path, "%s", c->message) < 0)
			goto oom;
	}
	if (src->profile && jp_profile_copy(&m->profile, src->profile) < 0)
		goto oom;
	*out = m;
	return 0;
oom:
	jp_manifest_free(m);
	return JP_ENOMEM;
}
