/* libFuzzer target: bytes as a resumed download's request and the first
 * answer to it, through the decision stage_http.c makes on them
 * (jp_stage_resume_decide, src/stage_resume.c). The input is lines: the
 * bytes kept (decimal; 0: the whole file asked for), the validator sent in
 * If-Range, the status, then the answer's ETag, Last-Modified and
 * Content-Range (a missing line: absent). Checked:
 *   - a body is appended only to a 206 for exactly the range asked: bytes
 *     were kept, a validator was sent, Content-Range is "bytes FIRST-LAST/
 *     LENGTH" (LENGTH or "*") with FIRST the bytes kept and FIRST <= LAST <
 *     LENGTH (checked by a parser of the fuzzer's own), and the answer does
 *     not name another version of the validator's kind; it goes at FIRST;
 *   - a 200 restarts from 0, and what it keeps for the next resume is the
 *     answer's own strong ETag or, failing that, its Last-Modified, never
 *     a weak ETag, never a byte outside visible ASCII and space (it goes
 *     into the next request's If-Range header), never empty-but-kept;
 *   - any other 206 (another start, another file, no range asked) asks
 *     again from zero; a 416 to a range asked, too; other statuses write
 *     nothing; nothing but a restart keeps a validator.
 * Build with --enable-fuzzing; replayed over its seeds by `make check`. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage_resume.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A run of digits at *p as a number (false: none, or above UINT64_MAX). */
static bool number(const char **p, uintmax_t *v)
{
	const char *start = *p;
	char buf[32];

	while (**p >= '0' && **p <= '9')
		(*p)++;
	if (*p == start)
		return false;
	/* leading zeros are digits like any (RFC 9110: 1*DIGIT) */
	while (start + 1 < *p && *start == '0')
		start++;
	size_t k = (size_t)(*p - start);
	if (k >= sizeof(buf))
		return false;
	memcpy(buf, start, k);
	buf[k] = '\0';
	errno = 0;
	*v = strtoumax(buf, NULL, 10);
	return errno == 0 && *v <= UINT64_MAX;
}

/* The fuzzer's own reading of "bytes A-B/L" (L digits or "*"). */
static bool my_range(const char *v, uint64_t *a)
{
	uintmax_t first, last, len = UINTMAX_MAX;
	const char *p = v;
	bool star = false;

	if (!p || strncmp(p, "bytes ", 6) != 0)
		return false;
	p += 6;
	while (*p == ' ')
		p++;
	if (!number(&p, &first) || *p++ != '-' || !number(&p, &last) || *p++ != '/')
		return false;
	if (strcmp(p, "*") == 0)
		star = true;
	else if (!number(&p, &len) || *p)
		return false;
	*a = (uint64_t)first;
	return first <= last && (star || last < len);
}

static bool visible(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

static bool empty(const char *s)
{
	return !s || !*s;
}

/* The answer names another version of the validator's kind. */
static bool other_version(const struct jp_resume_ask *ask, const struct jp_resume_answer *ans)
{
	if (ask->validator[0] == '"')
		return !empty(ans->etag) && strcmp(ans->etag, ask->validator) != 0;
	return !empty(ans->last_modified) && strcmp(ans->last_modified, ask->validator) != 0;
}

/* Exactly the range asked, of the file kept. */
static bool asked_this(const struct jp_resume_ask *ask, const struct jp_resume_answer *ans)
{
	uint64_t first = 0;

	return ans->status == 206 && ask->have > 0 && !empty(ask->validator) &&
	       my_range(ans->content_range, &first) && first == ask->have &&
	       !other_version(ask, ans);
}

static void check_restart(const struct jp_resume_answer *ans, const struct jp_resume_plan *plan)
{
	const char *k = plan->keep;

	if (ans->status != 200 || plan->offset != 0)
		abort();
	if (!k[0])
		return;
	if (!visible(k) || strncmp(k, "W/", 2) == 0 || k[0] == ' ' || k[strlen(k) - 1] == ' ')
		abort();
	if (!(ans->etag && strcmp(k, ans->etag) == 0) &&
	    !(ans->last_modified && strcmp(k, ans->last_modified) == 0))
		abort();
	/* Last-Modified only when there is no strong ETag */
	if (!empty(ans->etag) && strcmp(k, ans->etag) != 0 && strncmp(ans->etag, "W/", 2) != 0)
		abort();
}

static void check(const struct jp_resume_ask *ask, const struct jp_resume_answer *ans,
		  const struct jp_resume_plan *plan)
{
	if (!memchr(plan->keep, '\0', sizeof(plan->keep)))
		abort();
	if (plan->keep[0] && plan->action != JP_RESUME_RESTART)
		abort();
	switch (plan->action) {
	case JP_RESUME_APPEND:
		if (!asked_this(ask, ans) || plan->offset != ask->have)
			abort();
		break;
	case JP_RESUME_RESTART:
		check_restart(ans, plan);
		break;
	case JP_RESUME_AGAIN:
		if (ans->status == 206 ? asked_this(ask, ans) : !(ans->status == 416 && ask->have > 0))
			abort();
		break;
	case JP_RESUME_SKIP:
		if (ans->status == 200 || ans->status == 206 || (ans->status == 416 && ask->have > 0))
			abort();
		break;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line[6] = { NULL }, *p;
	struct jp_resume_ask ask;
	struct jp_resume_answer ans;
	struct jp_resume_plan plan;
	size_t n = 0;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	/* lines, empty ones kept (strsep) */
	for (p = text; n < 6 && (line[n] = strsep(&p, "\n")) != NULL; n++)
		;
	ask.have = line[0] ? strtoull(line[0], NULL, 10) : 0;
	ask.validator = line[1];
	ans.status = line[2] ? strtol(line[2], NULL, 10) : 200;
	ans.etag = line[3];
	ans.last_modified = line[4];
	ans.content_range = line[5];
	memset(&plan, 0x5a, sizeof(plan));
	jp_stage_resume_decide(&ask, &ans, &plan);
	check(&ask, &ans, &plan);
	free(text);
	return 0;
}
