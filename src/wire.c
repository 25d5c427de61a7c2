/* The wire codec of the process boundary (wire_internal.h): a request's
 * inputs and its answer as bytes, read back in the same order. Both ends
 * are the same program, so numbers travel in its own byte order. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "wire_internal.h"

void probe_bytes_put(struct probe_bytes *b, const void *data, size_t n)
{
	if (b->bad)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 512;
		while (cap < b->n + n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->bad = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

void probe_bytes_put_str(struct probe_bytes *b, const char *s)
{
	uint32_t len = s ? (uint32_t)strlen(s) : UINT32_MAX;

	probe_bytes_put(b, &len, sizeof(len));
	if (s)
		probe_bytes_put(b, s, len);
}

void probe_bytes_get(struct probe_bytes *b, void *out, size_t n)
{
	if (b->bad || b->off + n > b->n) {
		b->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, b->p + b->off, n);
	b->off += n;
}

char *probe_bytes_get_str(struct probe_bytes *b)
{
	uint32_t len;
	char *s;

	probe_bytes_get(b, &len, sizeof(len));
	if (b->bad || len == UINT32_MAX)
		return NULL;
	if (b->off + len > b->n || !(s = malloc((size_t)len + 1))) {
		b->bad = true;
		return NULL;
	}
	memcpy(s, b->p + b->off, len);
	s[len] = '\0';
	b->off += len;
	return s;
}

void probe_bytes_field(struct probe_bytes *b, void *v, size_t n)
{
	if (b->reading)
		probe_bytes_get(b, v, n);
	else
		probe_bytes_put(b, v, n);
}

void probe_bytes_field_str(struct probe_bytes *b, char **s)
{
	if (b->reading)
		*s = probe_bytes_get_str(b);
	else
		probe_bytes_put_str(b, *s);
}

void probe_bytes_field_strv(struct probe_bytes *b, char ***v, size_t *n)
{
	uint64_t n64 = b->reading ? 0 : *n;

	probe_bytes_field(b, &n64, sizeof(n64));
	if (!b->reading) {
		for (size_t i = 0; i < *n; i++)
			probe_bytes_put_str(b, (*v)[i]);
		return;
	}
	*v = NULL;
	*n = 0;
	/* each string takes 4 bytes at least: a count beyond that is a lie */
	if (b->bad || n64 > (b->n - b->off) / sizeof(uint32_t) ||
	    (n64 && !(*v = calloc((size_t)n64, sizeof(**v))))) {
		b->bad = true;
		return;
	}
	for (; *n < n64; (*n)++)
		if (!((*v)[*n] = probe_bytes_get_str(b))) {
			b->bad = true;
			return;
		}
}

void probe_bytes_field_error(struct probe_bytes *b, struct jp_error *e, int rc)
{
	if (b->reading)
		probe_bytes_get_error(b, e, rc);
	else
		probe_bytes_put_error(b, e);
}

void probe_bytes_put_error(struct probe_bytes *b, const struct jp_error *e)
{
	int32_t code = e ? e->code : 0;
	uint32_t n = e ? (uint32_t)e->n : 0;

	probe_bytes_put(b, &code, sizeof(code));
	probe_bytes_put(b, &n, sizeof(n));
	for (uint32_t i = 0; i < n; i++)
		probe_bytes_put_str(b, e->msgs[i]);
}

int probe_bytes_get_error(struct probe_bytes *b, struct jp_error *err, int rc)
{
	int32_t code = 0;
	uint32_t n = 0;
	char **lines;

	probe_bytes_get(b, &code, sizeof(code));
	probe_bytes_get(b, &n, sizeof(n));
	if (b->bad || n > b->n - b->off || !(lines = calloc(n ? n : 1, sizeof(*lines)))) {
		b->bad = true;
		return 0;
	}
	for (uint32_t i = 0; i < n && !b->bad; i++)
		lines[i] = probe_bytes_get_str(b);
	if (!code)
		code = rc;
	for (uint32_t i = 0; i < n; i++) {
		if (!b->bad && lines[i])
			jp_error_set(err, code, "%s", lines[i]);
		free(lines[i]);
	}
	free(lines);
	if (b->bad)
		return 0;
	if (n == 0 && rc != 0)
		jp_error_set(err, rc, "%s", jp_strerror(rc));
	return code;
}
