/* The resume decision of a download (stage_resume.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "stage_resume.h"

/* Digits into *v; the end, or NULL when none or too large. */
static const char *digits(const char *p, uint64_t *v)
{
	const char *start = p;

	*v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return NULL;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	return p == start ? NULL : p;
}

bool jp_stage_content_range(const char *v, uint64_t *first, uint64_t *last, uint64_t *length)
{
	const char *p = v;
	bool star = false;

	if (!p || strncmp(p, "bytes ", 6) != 0)
		return false;
	p += 6;
	while (*p == ' ')
		p++;
	if (!(p = digits(p, first)) || *p++ != '-' || !(p = digits(p, last)) || *p++ != '/')
		return false;
	if (p[0] == '*' && p[1] == '\0') {
		star = true;
		*length = UINT64_MAX;
	} else if (!(p = digits(p, length)) || *p != '\0') {
		return false;
	}
	return *first <= *last && (star || *last < *length);
}

/* A value fit to keep and send back in If-Range: visible ASCII and inner
 * spaces only, not too long, not weak. */
static bool keepable(const char *v)
{
	size_t n = v ? strlen(v) : 0;

	if (n == 0 || n >= JP_RESUME_VALIDATOR_MAX || strncmp(v, "W/", 2) == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			return false;
	return v[0] != ' ' && v[n - 1] != ' ';
}

static bool empty(const char *s)
{
	return !s || !*s;
}

/* Does the answer's validator of the kind kept (an ETag is quoted, a date
 * is not) differ from the one kept? Absent: it does not say. */
static bool changed(const char *kept, const struct jp_resume_answer *ans)
{
	if (empty(kept))
		return false;
	if (kept[0] == '"')
		return !empty(ans->etag) && strcmp(ans->etag, kept) != 0;
	return !empty(ans->last_modified) && strcmp(ans->last_modified, kept) != 0;
}

void jp_stage_resume_decide(const struct jp_resume_ask *ask, const struct jp_resume_answer *ans,
			    struct jp_resume_plan *plan)
{
	uint64_t first, last, length;

	plan->offset = 0;
	plan->keep[0] = '\0';
	if (ans->status == 206) {
		/* a range: the one asked for, of the file kept, or ask again */
		bool ok = ask->have > 0 && !empty(ask->validator) &&
			  jp_stage_content_range(ans->content_range, &first, &last, &length) &&
			  first == ask->have && !changed(ask->validator, ans);
		plan->action = ok ? JP_RESUME_APPEND : JP_RESUME_AGAIN;
		plan->offset = ok ? ask->have : 0;
		return;
	}
	if (ans->status == 416 && ask->have > 0) {
		plan->action = JP_RESUME_AGAIN; /* past the remote's end */
		return;
	}
	if (ans->status != 200) {
		plan->action = JP_RESUME_SKIP;
		return;
	}
	plan->action = JP_RESUME_RESTART;
	if (keepable(ans->etag))
		snprintf(plan->keep, sizeof(plan->keep), "%s", ans->etag);
	else if (empty(ans->etag) || strncmp(ans->etag, "W/", 2) == 0) {
		if (keepable(ans->last_modified))
			snprintf(plan->keep, sizeof(plan->keep), "%s", ans->last_modified);
	}
}
