/* Path completion: read one directory, keep what starts with the typed
 * prefix, extend the input as far as every candidate agrees. */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static bool entry_is_dir(const char *dir, const struct dirent *de)
{
	struct stat st;
	char *full;
	bool isdir;

	if (de->d_type == DT_DIR)
		return true;
	if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
		return false;
	full = malloc(strlen(dir) + strlen(de->d_name) + 2);
	if (!full)
		return false;
	strcpy(full, dir);
	if (full[0] && full[strlen(full) - 1] != '/')
		strcat(full, "/");
	strcat(full, de->d_name);
	/* stat, not lstat: a link to a directory completes like one */
	isdir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
	free(full);
	return isdir;
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

static int complete_path(struct jp_completion *out, const char *input, unsigned flags,
			 size_t limit)
{
	char *path = NULL, *dir = NULL, **v = NULL, **nv, *name;
	const char *base, *slash;
	size_t n = 0, cap = 0, blen, dlen, cp, i;
	DIR *d = NULL;
	struct dirent *de;
	bool isdir;
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

	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		/* Hidden entries only when asked for with a leading '.'. */
		if (de->d_name[0] == '.' && base[0] != '.')
			continue;
		if (strncmp(de->d_name, base, blen) != 0)
			continue;
		isdir = entry_is_dir(dir, de);
		if ((flags & JP_COMPLETE_DIRS) && !isdir)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				goto out;
			v = nv;
		}
		name = malloc(strlen(de->d_name) + 2);
		if (!name)
			goto out;
		strcpy(name, de->d_name);
		if (isdir)
			strcat(name, "/");
		v[n++] = name;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);

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
	if (d)
		closedir(d);
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

/* The listing runs on the probe helper's thread, in bounded time: Tab on a
 * path whose mount hung must not freeze the keys (jobprep/probe.h). */
struct complete_call {
	struct jp_completion out;
	unsigned flags;
	size_t limit;
	int rc;
	char input[];
};

static void complete_call_free(void *arg)
{
	struct complete_call *c = arg;

	jp_completion_dispose(&c->out);
	free(c);
}

static void complete_call_run(void *arg)
{
	struct complete_call *c = arg;

	c->rc = complete_path(&c->out, c->input, c->flags, c->limit);
}

int jp_complete_path(struct jp_completion *out, const char *input, unsigned flags, size_t limit)
{
	size_t n = strlen(input ? input : "") + 1;
	struct complete_call *c = calloc(1, sizeof(*c) + n);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!c)
		return JP_ENOMEM;
	memcpy(c->input, input ? input : "", n);
	c->flags = flags;
	c->limit = limit;
	rc = jp_probe_call(complete_call_run, c, complete_call_free, c->input,
			   jp_probe_interactive_timeout_ms(), NULL);
	if (rc < 0) {
		if (rc != JP_ETIMEOUT)
			complete_call_free(c);
		return rc;
	}
	rc = c->rc;
	*out = c->out;
	memset(&c->out, 0, sizeof(c->out));
	free(c);
	return rc;
}
