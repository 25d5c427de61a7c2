/* A verdict on a value: pass, warn or fail, and why. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "jobprep/i18n.h"
#include "flow_internal.h"

void flow_verdict_set(struct jp_verdict *v, enum jp_check_status st, const char *fmt, ...)
{
	va_list ap;

	if (!v)
		return;
	free(v->message);
	v->message = NULL;
	v->status = st;
	if (!fmt)
		return;
	va_start(ap, fmt);
	if (vasprintf(&v->message, fmt, ap) < 0)
		v->message = NULL;
	va_end(ap);
}

bool flow_check_absolute(struct jp_verdict *v, const char *s)
{
	if (s[0] == '/')
		return true;
	flow_verdict_set(v, JP_CHECK_FAIL,
			 _("expected an absolute path (starting with /), got \"%s\""), s);
	return false;
}

void jp_verdict_dispose(struct jp_verdict *v)
{
	if (!v)
		return;
	free(v->message);
	v->message = NULL;
	v->status = JP_CHECK_PASS;
}
