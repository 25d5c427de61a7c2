/* A growable, owning list of strings. */
#ifndef JOBPREP_STRV_H
#define JOBPREP_STRV_H

#include <stddef.h>

struct jp_strv {
	char **v; /* owned; each element owned */
	size_t n;
};

#define JP_STRV_INIT { NULL, 0 }

/* Append a copy of s. Returns 0 or JP_ENOMEM. */
int jp_strv_push(struct jp_strv *sv, const char *s);
void jp_strv_dispose(struct jp_strv *sv);

#endif
