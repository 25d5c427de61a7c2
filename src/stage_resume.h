/* Resume, restart or ask again? The decision a download makes from the
 * first answer to its request (stage_resume.c), no network or file touched:
 * shared by stage_http.c and the fuzzer tests/fuzz/fuzz_resume.c.
 *
 * The request asked for the bytes from `have` on (have 0: the whole file)
 * with If-Range: validator (the strong ETag or Last-Modified kept from the
 * answer that started the file). Only a 206 whose Content-Range starts at
 * exactly `have`, and whose validator (when it sends one of the kind kept)
 * is the one kept, is appended; a 200 starts the file again from zero and
 * says what to keep for a later resume (a strong ETag, else Last-Modified;
 * never a weak ETag, never a value with a control character, which would
 * reach the next request's headers); anything else is not the file. */
#ifndef JOBPREP_STAGE_RESUME_H
#define JOBPREP_STAGE_RESUME_H

#include <stdbool.h>
#include <stdint.h>

struct jp_resume_ask {
	uint64_t have;         /* bytes kept, asked from; 0: the whole file */
	const char *validator; /* sent as If-Range ("" or NULL: none) */
};

struct jp_resume_answer {
	long status;
	/* header values, trimmed; "" or NULL when absent */
	const char *etag, *last_modified, *content_range;
};

enum jp_resume_action {
	JP_RESUME_APPEND,  /* write the body at `have` */
	JP_RESUME_RESTART, /* the whole file: truncate, write from 0, keep `keep` */
	JP_RESUME_AGAIN,   /* not what was asked: drop the part, ask again from 0 */
	JP_RESUME_SKIP,    /* not the file (an error page): write nothing */
};

#define JP_RESUME_VALIDATOR_MAX 512

struct jp_resume_plan {
	enum jp_resume_action action;
	uint64_t offset;                     /* where the body goes */
	char keep[JP_RESUME_VALIDATOR_MAX];  /* RESTART: the validator to keep, "" none */
};

/* Fill plan for the answer to ask. */
void jp_stage_resume_decide(const struct jp_resume_ask *ask, const struct jp_resume_answer *ans,
			    struct jp_resume_plan *plan);
/* "bytes FIRST-LAST/LENGTH" (LENGTH may be "*": *length then UINT64_MAX);
 * true when it is one, well-formed (FIRST <= LAST < LENGTH). */
bool jp_stage_content_range(const char *v, uint64_t *first, uint64_t *last, uint64_t *length);

#endif
