/* A growing text with a sticky failure. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jobprep/error.h"

static int reserve(struct jp_buf *b, size_t n)
{
	size_t cap;
	char *grown;

	if (b->rc < 0)
		return b->rc;
	if (b->s && b->len + n + 1 <= b->cap) /* (no text, no room: cap is 0) */
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < b->len + n + 1)
		cap *= 2;
	grown = realloc(b->s, cap);
	if (!grown) {
		b->rc = JP_ENOMEM;
		return b->rc;
	}
	b->s = grown;
	b->cap = cap;
	return 0;
}

int jp_buf_addn(struct jp_buf *b, const void *s, size_t n)
{
	if (reserve(b, n) < 0)
		return b->rc;
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int jp_buf_add(struct jp_buf *b, const char *s)
{
	return jp_buf_addn(b, s, strlen(s));
}

int jp_buf_addc(struct jp_buf *b, char c)
{
	return jp_buf_addn(b, &c, 1);
}

int jp_buf_addf(struct jp_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		if (b->rc == 0)
			b->rc = JP_ENOMEM;
		return b->rc;
	}
	jp_buf_addn(b, s, (size_t)n);
	free(s);
	return b->rc;
}

int jp_buf_take(char **out, struct jp_buf *b)
{
	int rc;

	*out = NULL;
	if (!b->s)
		jp_buf_addn(b, "", 0);
	rc = b->rc;
	if (rc == 0) {
		*out = b->s;
		b->s = NULL;
	}
	jp_buf_dispose(b);
	return rc;
}

void jp_buf_dispose(struct jp_buf *b)
{
	struct jp_buf empty = JP_BUF_INIT;

	free(b->s);
	*b = empty;
}
