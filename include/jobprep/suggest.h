/* "Did you mean": the known name closest to one that is not known (a
 * command, an answers or profile field), for every reader alike. */
#ifndef JOBPREP_SUGGEST_H
#define JOBPREP_SUGGEST_H

#include <stddef.h>

/* Start with jp_suggest_init, offer each known name with jp_suggest_add,
 * then ask jp_suggest_best. Holds no memory; the names are borrowed. */
struct jp_suggest {
	const char *word;
	const char *best;   /* the closest name so far */
	size_t best_d;      /* its distance */
	const char *prefix; /* the one name word begins ("gpus" -> "gpus_per_worker") */
	unsigned n_prefix;  /* how many names word begins */
};

void jp_suggest_init(struct jp_suggest *s, const char *word);
void jp_suggest_add(struct jp_suggest *s, const char *name);
/* The name to suggest, or NULL when none is close: the nearest by
 * Damerau-Levenshtein distance (a swap of two neighbours counts one) when
 * it is at most a third of the word (at least 1, at most 3), else the only
 * name the word begins. */
const char *jp_suggest_best(const struct jp_suggest *s);

#endif
