/* Data staged in the flow: a data source's `from` (a path or an http(s)
 * URL) is put onto its path by jobprep stage before the scan and the
 * checks (JP_ACTION_STAGE in flow_tasks.c); this file keeps what the flow
 * knows about it: the value as given (a URL's credentials never in the
 * draft), and which staging finished for which answers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/url.h"
#include "flow_internal.h"

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
	x->scanned_path = x->want_sha256 = x->staged_from = x->staged_path = NULL;
}

int flow_data_extra_copy(struct data_extra *dst, const struct data_extra *src)
{
	*dst = *src;
	dst->scanned_path = dst->from_secret = dst->want_sha256 = NULL;
	dst->staged_from = dst->staged_path = NULL;
	if (jp_set_str(&dst->scanned_path, src->scanned_path) < 0 ||
	    jp_set_str(&dst->from_secret, src->from_secret) < 0 ||
	    jp_set_str(&dst->want_sha256, src->want_sha256) < 0 ||
	    jp_set_str(&dst->staged_from, src->staged_from) < 0 ||
	    jp_set_str(&dst->staged_path, src->staged_path) < 0)
		return JP_ENOMEM;
	return 0;
}

static bool is_url(const char *s)
{
	return strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0;
}

int flow_stage_store(struct jp_flow *flow, size_t i, const char *value, struct jp_verdict *why)
{
	struct jp_data_origin *o = &flow->m->data[i].origin;
	struct data_extra *x = &flow->dx[i];
	char *shown = NULL, *secret = NULL;

	if (value && *value && !is_url(value) && value[0] != '/') {
		flow_verdict_set(why, JP_CHECK_FAIL,
				 _("expected an absolute path or an http(s) URL to stage the data "
				   "from, got \"%s\""),
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

bool flow_stage_done(const struct jp_flow *flow, size_t i)
{
	const struct jp_data_source *d = &flow->m->data[i];
	const struct data_extra *x = &flow->dx[i];

	return !d->origin.from ||
	       (x->staged_from && str_eq(x->staged_from, d->origin.from) &&
		str_eq(x->staged_path, d->path));
}
