/* Paths as text: normalise, join, make absolute, compare. Nothing here looks
 * at the filesystem except jp_path_absolute's getcwd(). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobprep/path.h"
#include "path_internal.h"

char *jp_path_normalize(const char *path)
{
	/* At most one byte longer than path: the '/' a relative path gains. */
	char *out = malloc(strlen(path) + 2);
	size_t n = 0;

	if (!out)
		return NULL;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		const char *end = strchr(p, '/');
		size_t seg = end ? (size_t)(end - p) : strlen(p);
		if (seg == 0)
			break;
		if (seg == 1 && p[0] == '.') {
			/* the same directory */
		} else if (seg == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			out[n++] = '/';
			memcpy(out + n, p, seg);
			n += seg;
		}
		p += seg;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

char *jp_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	char *s = NULL;

	if (asprintf(&s, "%s%s%s", dir, dl == 0 || dir[dl - 1] != '/' ? "/" : "", name) < 0)
		return NULL;
	return s;
}

char *jp_path_absolute(const char *path)
{
	char *cwd, *abs;

	if (path[0] == '/')
		return strdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	abs = jp_path_join(cwd, path);
	free(cwd);
	return abs;
}

bool jp_path_is_normal(const char *path)
{
	const char *p;

	if (!path || path[0] != '/')
		return false;
	if (path[1] == '\0')
		return true;
	/* Every component non-empty and neither "." nor "..". */
	for (p = path; *p == '/';) {
		const char *c = p + 1;
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		p = c + n;
	}
	return true;
}

bool jp_path_is_under(const char *path, const char *root)
{
	size_t rl = strlen(root);

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl == 1 && root[0] == '/')
		return path[0] == '/';
	if (strncmp(path, root, rl) != 0)
		return false;
	return path[rl] == '\0' || path[rl] == '/';
}
