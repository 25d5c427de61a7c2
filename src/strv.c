/* A growable, owning list of strings. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jobprep/error.h"
#include "jobprep/strv.h"
#include "strv_internal.h"

int jp_strv_push(struct jp_strv *sv, const char *s)
{
	char *copy = strdup(s);
	if (!copy)
		return JP_ENOMEM;
	char **grown = realloc(sv->v, (sv->n + 1) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return JP_ENOMEM;
	}
	sv->v = grown;
	sv->v[sv->n++] = copy;
	return 0;
}

int jp_strv_copy(struct jp_strv *dst, const struct jp_strv *src)
{
	struct jp_strv tmp = JP_STRV_INIT;
	for (size_t i = 0; i < src->n; i++) {
		if (jp_strv_push(&tmp, src->v[i]) < 0) {
			jp_strv_dispose(&tmp);
			return JP_ENOMEM;
		}
	}
	jp_strv_dispose(dst);
	*dst = tmp;
	return 0;
}

void jp_strv_dispose(struct jp_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}
