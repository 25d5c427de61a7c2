/* Data staged in the flow: a data source's `from` (a path or an http(s)
 * URL) is put onto its path by jobprep stage before the scan and the
 * checks (JP_ACTION_STAGE in flow_work.c); this file keeps what the flow
 * knows about it: the value as given (a URL's credentials never in the
 * draft), and which staging finished for which answers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/pathclass.h"
#include "jobprep/probe.h"
#include "jobprep/stage.h"
#include "stage_internal.h"
#include "jobprep/url.h"
#include "flow_internal.h"
#include "manifest_internal.h"
#include "url_internal.h"

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void free_secret(char **s)
{
	if (*s)
		explicit_bzero(*s, strlen(*s));
	free(*s);
	*s = NULL;
}

void flow_data_extra_dispose(struct data_extra *x)
{
	free(x->scanned_path);
	free_secret(&x->from_secret);
	free(x->want_sha256);
	free(x->staged_from);
	free(x->staged_path);
	free(x->unpacked_path);
	x->scanned_path = x->want_sha256 = x->staged_from = x->staged_path = NULL;
	x->unpacked_path = NULL;
}

int flow_data_extra_copy(struct data_extra *dst, const struct data_extra *src)
{
	*dst = *src;
	dst->scanned_path = dst->from_secret = dst->want_sha256 = NULL;
	dst->staged_from = dst->staged_path = dst->unpacked_path = NULL;
	if (jp_set_str(&dst->scanned_path, src->scanned_path) < 0 ||
	    jp_set_str(&dst->from_secret, src->from_secret) < 0 ||
	    jp_set_str(&dst->want_sha256, src->want_sha256) < 0 ||
	    jp_set_str(&dst->staged_from, src->staged_from) < 0 ||
	    jp_set_str(&dst->staged_path, src->staged_path) < 0 ||
	    jp_set_str(&dst->unpacked_path, src->unpacked_path) < 0)
		return JP_ENOMEM;
	return 0;
}

/* Not a path: an http(s) URL, or an hf:// Hub repository */
static bool is_url(const char *s)
{
	return jp_url_fetch_kind(s, NULL) == JP_FETCH_HTTP || strncmp(s, "hf://", 5) == 0;
}

int flow_stage_store(struct jp_flow *flow, size_t i, const char *value, struct jp_verdict *why)
{
	struct jp_data_origin *o = &flow->m->data[i].origin;
	struct data_extra *x = &flow->dx[i];
	char *shown = NULL, *secret = NULL;

	if (value && *value && !is_url(value) && value[0] != '/') {
		flow_verdict_set(why, JP_CHECK_FAIL,
				 _("expected an absolute path, an http(s) URL or an hf://ORG/NAME "
				   "repository to stage the data from, got \"%s\""),
				 value);
		return JP_EUSAGE;
	}
	if (value && *value) {
		if (!is_url(value)) {
			shown = jp_path_normalize(value);
		} else if (jp_url_has_credentials(value)) {
			shown = jp_url_redact(value);
			secret = strdup(value);
			if (!secret) {
				free(shown);
				return JP_ENOMEM;
			}
		} else {
			shown = strdup(value);
		}
		if (!shown) {
			free_secret(&secret);
			return JP_ENOMEM;
		}
	}
	/* another source: what was recorded of the last one goes */
	if (!str_eq(o->from, shown))
		jp_data_origin_dispose(o);
	free(o->from);
	o->from = shown;
	free_secret(&x->from_secret);
	x->from_secret = secret;
	return 0;
}

bool flow_stage_from_done(const struct jp_flow *flow, size_t i)
{
	const struct jp_data_source *d = &flow->m->data[i];
	const struct data_extra *x = &flow->dx[i];

	return !d->origin.from ||
	       (x->staged_from && str_eq(x->staged_from, d->origin.from) &&
		str_eq(x->staged_path, d->path));
}

bool flow_stage_unpack_done(const struct jp_flow *flow, size_t i)
{
	const struct jp_data_source *d = &flow->m->data[i];

	return !d->unpack_archives || (d->path && str_eq(flow->dx[i].unpacked_path, d->path));
}

bool flow_stage_done(const struct jp_flow *flow, size_t i)
{
	return flow_stage_from_done(flow, i) && flow_stage_unpack_done(flow, i);
}

/* --- what the wizard offers -------------------------------------------------------- */

void jp_stage_offer_dispose(struct jp_stage_offer *offer)
{
	free(offer->dest);
	jp_strv_dispose(&offer->archives);
	*offer = (struct jp_stage_offer)JP_STAGE_OFFER_INIT;
}

static int look(bool *there, bool *is_dir, enum jp_storage_class *cls, const struct jp_flow *flow,
		const char *path)
{
	struct jp_probe_result r = JP_PROBE_RESULT_INIT;
	int rc = flow_probe_classify(&r, flow, path);

	*there = rc == 0 && r.exists;
	*is_dir = r.is_dir;
	*cls = r.info.cls;
	jp_probe_result_dispose(&r);
	return rc == JP_ENOMEM ? rc : 0;
}

/* A folder on shared storage holding archives still to unpack: offer to
 * unpack them where they are (a quick look, bounded in time). */
static int offer_within(struct jp_stage_offer *out, const struct jp_flow *flow, size_t index,
			const char *typed, struct jp_error *err)
{
	struct jp_stage_packed p = JP_STAGE_PACKED_INIT;
	struct jp_error ferr = JP_ERROR_INIT;
	int rc;

	if (flow->m->data[index].unpack_archives)
		return 0;
	/* a folder that cannot be looked at offers nothing */
	rc = jp_stage_find_packed(&p, typed, true, &ferr);
	jp_error_dispose(&ferr);
	if (rc == JP_ENOMEM)
		return jp_error_oom(err);
	if (rc < 0)
		return 0;
	if (p.archives.n == 0) {
		jp_stage_packed_dispose(&p);
		return 0;
	}
	if (!(out->dest = jp_path_normalize(typed))) {
		jp_stage_packed_dispose(&p);
		return jp_error_oom(err);
	}
	out->archives = p.archives;
	p.archives = (struct jp_strv)JP_STRV_INIT;
	out->bytes = p.bytes;
	out->complete = p.complete;
	out->kind = JP_STAGE_OFFER_WITHIN;
	jp_stage_packed_dispose(&p);
	return 0;
}

int jp_flow_stage_offer(struct jp_stage_offer *out, const struct jp_flow *flow, size_t index,
			const char *typed, struct jp_error *err)
{
	const char *root = flow_shared_root(flow);
	enum jp_stage_offer_kind kind = JP_STAGE_OFFER_NONE;
	enum jp_storage_class cls = JP_STORAGE_UNKNOWN;
	bool there = false, is_dir = false;
	char *name = NULL, *base = NULL;

	*out = (struct jp_stage_offer)JP_STAGE_OFFER_INIT;
	if (!typed || !typed[0] || index >= flow->m->n_data || !root || !root[0])
		return 0;
	if (is_url(typed)) {
		/* its path names an archive: jp_stage unpacks it */
		char *path = strndup(typed, strcspn(typed, "?#"));

		if (!path)
			return jp_error_oom(err);
		out->unpack = jp_stage_archive_suffix(path) != NULL;
		free(path);
		kind = JP_STAGE_OFFER_DOWNLOAD;
	} else if (typed[0] == '/') {
		if (look(&there, &is_dir, &cls, flow, typed) < 0)
			return jp_error_oom(err);
		if (there && !is_dir && jp_stage_archive_suffix(typed))
			kind = JP_STAGE_OFFER_UNPACK;
		else if (there && (cls == JP_STORAGE_LOCAL || cls == JP_STORAGE_EPHEMERAL))
			kind = JP_STAGE_OFFER_COPY;
		else if (there && is_dir)
			return offer_within(out, flow, index, typed, err);
	}
	if (kind == JP_STAGE_OFFER_NONE)
		return 0;
	if (!(name = jp_stage_suggest_name(typed)) || !(base = jp_path_join(root, "datasets")) ||
	    !(out->dest = jp_path_join(base, name))) {
		free(name);
		free(base);
		return jp_error_oom(err);
	}
	free(name);
	free(base);
	/* an archive already in the very folder it would be unpacked into */
	if (strcmp(out->dest, typed) == 0) {
		jp_stage_offer_dispose(out);
		return 0;
	}
	out->kind = kind;
	return 0;
}
