/* Path completion: read one directory, keep what starts with the typed
 * prefix, extend the input as far as every candidate agrees. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobprep/error.h"
#include "jobprep/probe.h"
#include "tui/complete.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A copy of input with a leading "~" or "~/" expanded. */
static char *expand_home(const char *input)
{
	const char *home = getenv("HOME");
	size_t hl;
	char *s;

	if (input[0] != '~' || (input[1] != '\0' && input[1] != '/') || !home ||
	    !home[0])
		return strdup(input);
	hl = strlen(home);
	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	s = malloc(hl + strlen(input + 1) + 2);
	if (!s)
		return NULL;
	memcpy(s, home, hl);
	strcpy(s + hl, input[1] ? input + 1 : "/");
	return s;
}

static size_t common_prefix(char **v, size_t n)
{
	size_t len, i, j;

	if (n == 0)
		return 0;
	len = strlen(v[0]);
	for (i = 1; i < n; i++) {
		for (j = 0; j < len && v[i][j] == v[0][j]; j++)
			;
		len = j;
	}
	/* Do not stop inside a UTF-8 sequence. */
	while (len > 0 && ((unsigned char)v[0][len] & 0xC0) == 0x80)
		len--;
	return len;
}

/* The listing's names (a '/' after a directory's), sorted, into *v. */
static int candidates(char ***v, size_t *n, struct jp_probe_listing *l)
{
	*n = 0;
	if (!(*v = calloc(l->n ? l->n : 1, sizeof(**v))))
		return JP_ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		size_t len = strlen(l->v[i].name);
		char *name = malloc(len + 2);

		if (!name)
			return JP_ENOMEM;
		memcpy(name, l->v[i].name, len + 1);
		if (l->v[i].is_dir)
			memcpy(name + len, "/", 2);
		(*v)[(*n)++] = name;
	}
	if (*n)
		qsort(*v, *n, sizeof(**v), cmp_str);
	return 0;
}

/* The listing runs in a helper in bounded time: Tab on a path whose mount
 * hung must not freeze the keys (jobprep/probe.h). */
int jp_complete_path(struct jp_completion *out, const char *input, unsigned flags, size_t limit)
{
	struct jp_probe_listing l = JP_PROBE_LISTING_INIT;
	char *path = NULL, *dir = NULL, **v = NULL;
	const char *base, *slash;
	size_t n = 0, blen, dlen, cp, i;
	int rc = JP_ENOMEM;

	memset(out, 0, sizeof(*out));
	path = expand_home(input ? input : "");
	if (!path)
		goto out;

	slash = strrchr(path, '/');
	if (slash) {
		dlen = (size_t)(slash - path) + 1;
		base = slash + 1;
	} else {
		dlen = 0;
		base = path;
	}
	dir = strndup(slash ? path : ".", slash ? dlen : 1);
	if (!dir)
		goto out;
	blen = strlen(base);

	/* Hidden entries only when asked for with a leading '.'. */
	rc = jp_probe_list(&l, dir, base,
			   (flags & JP_COMPLETE_DIRS ? JP_PROBE_LIST_DIRS : 0) |
				   (base[0] == '.' ? JP_PROBE_LIST_HIDDEN : 0),
			   jp_probe_interactive_timeout_ms(), NULL);
	if (rc < 0 || (rc = candidates(&v, &n, &l)) < 0)
		goto out;
	rc = JP_ENOMEM;

	cp = common_prefix(v, n);
	if (n == 1 || cp > blen) {
		out->text = malloc(dlen + cp + 1);
		if (!out->text)
			goto out;
		memcpy(out->text, path, dlen);
		memcpy(out->text + dlen, v[0], cp);
		out->text[dlen + cp] = '\0';
	} else {
		out->text = strdup(path);
		if (!out->text)
			goto out;
	}
	out->unique = n == 1;
	out->changed = strcmp(out->text, input ? input : "") != 0;

	out->n = n;
	out->n_shown = n;
	if (limit && n > limit) {
		for (i = limit; i < n; i++)
			free(v[i]);
		out->n_shown = limit;
	}
	out->matches = v;
	v = NULL;
	rc = 0;
out:
	if (v) {
		for (i = 0; i < n; i++)
			free(v[i]);
		free(v);
	}
	if (rc < 0) {
		free(out->text);
		out->text = NULL;
	}
	jp_probe_listing_dispose(&l);
	free(dir);
	free(path);
	return rc;
}

void jp_completion_dispose(struct jp_completion *c)
{
	size_t i;

	if (c->matches) {
		for (i = 0; i < c->n_shown; i++)
			free(c->matches[i]);
		free(c->matches);
	}
	free(c->text);
	memset(c, 0, sizeof(*c));
}
