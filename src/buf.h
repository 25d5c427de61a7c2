/* A growing text. The first failure sticks in rc and later additions do
 * nothing, so a writer adds freely and checks once, at the end. */
#ifndef JOBPREP_BUF_H
#define JOBPREP_BUF_H

#include <stddef.h>

struct jp_buf {
	char *s;         /* owned; NUL-terminated once anything was added, else NULL */
	size_t len, cap; /* len excludes the NUL */
	int rc;          /* 0, or JP_ENOMEM since an addition failed */
};

#define JP_BUF_INIT { NULL, 0, 0, 0 }

/* Append n bytes (they may hold NULs), a string, a character, or printf
 * text. Each returns b->rc: 0, or JP_ENOMEM from this or an earlier call. */
int jp_buf_addn(struct jp_buf *b, const void *s, size_t n);
int jp_buf_add(struct jp_buf *b, const char *s);
int jp_buf_addc(struct jp_buf *b, char c);
int jp_buf_addf(struct jp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the text to *out (the caller's, free(); "" when nothing was added)
 * and leave b empty. After a failure: *out is NULL, the text is freed and
 * the failure returned. */
int jp_buf_take(char **out, struct jp_buf *b);
/* Free the text; b is empty again (JP_BUF_INIT). */
void jp_buf_dispose(struct jp_buf *b);

#endif
