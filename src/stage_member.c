/* The archive member-name checks of an unpack (stage_member.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/error.h"
#include "stage_member.h"
#include "treecopy_internal.h"

/* name without "./", "//" or "." parts into out; 0, 1 when nothing is left
 * (the top itself), -1 when it is absolute or climbs (".."), or too long. */
static int clean_name(const char *name, char *out, size_t n)
{
	size_t w = 0;

	if (name[0] == '/')
		return -1;
	for (const char *p = name; *p;) {
		size_t k = strcspn(p, "/");

		if (k == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (k > 0 && !(k == 1 && p[0] == '.')) {
			if (w + k + 2 > n)
				return -1;
			if (w)
				out[w++] = '/';
			memcpy(out + w, p, k);
			w += k;
		}
		p += k;
		while (*p == '/')
			p++;
	}
	out[w] = '\0';
	return w ? 0 : 1;
}

/* The symlink members so far: a set of paths (open addressing). */
struct jp_member_set {
	char **slot;
	size_t n, cap;
};

static size_t hash(const char *p, size_t n)
{
	size_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

static char **ls_find(const struct jp_member_set *s, const char *p, size_t n)
{
	size_t i = hash(p, n) & (s->cap - 1);

	while (s->slot[i] && !(strlen(s->slot[i]) == n && memcmp(s->slot[i], p, n) == 0))
		i = (i + 1) & (s->cap - 1);
	return &s->slot[i];
}

static int ls_add(struct jp_member_set *s, const char *p)
{
	char **slot;

	if ((s->n + 1) * 2 > s->cap) {
		struct jp_member_set g = { calloc(s->cap ? s->cap * 2 : 64, sizeof(char *)), s->n,
					   s->cap ? s->cap * 2 : 64 };

		if (!g.slot)
			return JP_ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				*ls_find(&g, s->slot[i], strlen(s->slot[i])) = s->slot[i];
		free(s->slot);
		*s = g;
	}
	slot = ls_find(s, p, strlen(p));
	if (*slot)
		return 0;
	if (!(*slot = strdup(p)))
		return JP_ENOMEM;
	s->n++;
	return 0;
}

/* The symlink member that path (a clean name) would be written through,
 * or NULL: its every proper prefix is looked up. */
static const char *ls_through(const struct jp_member_set *s, const char *path)
{
	const char *hit = NULL;

	if (!s->n)
		return NULL;
	for (const char *p = strchr(path, '/'); p && !hit; p = strchr(p + 1, '/'))
		hit = *ls_find(s, path, (size_t)(p - path));
	return hit;
}

struct jp_member_set *jp_member_set_new(void)
{
	return calloc(1, sizeof(struct jp_member_set));
}

void jp_member_set_free(struct jp_member_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->slot[i]);
	free(s->slot);
	free(s);
}

int jp_member_set_add(struct jp_member_set *s, const char *path)
{
	return ls_add(s, path);
}

bool jp_member_set_has(const struct jp_member_set *s, const char *path)
{
	return s->n && *ls_find(s, path, strlen(path)) != NULL;
}

static int refuse(struct jp_member_out *out, enum jp_member_why why)
{
	out->why = why;
	return JP_MEMBER_REFUSE;
}

int jp_member_vet(struct jp_member_set *s, const struct jp_member *m, struct jp_member_out *out)
{
	mode_t type = m->type & S_IFMT;
	int rc;

	out->clean[0] = out->hard[0] = '\0';
	out->perm = m->perm & 07777;
	out->perm_dropped = out->link_leaves = false;
	out->why = JP_MEMBER_OK;
	out->through = NULL;
	if (!m->name || (rc = clean_name(m->name, out->clean, sizeof(out->clean))) < 0)
		return refuse(out, JP_MEMBER_OUTSIDE);
	if (rc == 1)
		return JP_MEMBER_TOP;
	if ((out->through = ls_through(s, out->clean)) != NULL)
		return refuse(out, JP_MEMBER_THROUGH);
	if (type == S_IFCHR || type == S_IFBLK || type == S_IFIFO || type == S_IFSOCK)
		return JP_MEMBER_LEAVE_OUT;
	if (out->perm & 06000) {
		out->perm &= ~(mode_t)06000;
		out->perm_dropped = true;
	}
	if (m->hardlink) {
		if (clean_name(m->hardlink, out->hard, sizeof(out->hard)) != 0)
			return refuse(out, JP_MEMBER_HARD_OUTSIDE);
		if (ls_through(s, out->hard))
			return refuse(out, JP_MEMBER_HARD_THROUGH);
	}
	if (type == S_IFLNK) {
		if ((rc = ls_add(s, out->clean)) != 0)
			return rc;
		out->link_leaves = m->symlink && jp_tc_link_leaves(out->clean, m->symlink);
	}
	return JP_MEMBER_WRITE;
}
