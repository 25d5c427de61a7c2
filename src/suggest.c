/* "Did you mean": Damerau-Levenshtein distance (optimal string alignment)
 * and the nearest of the names offered; see jobprep/suggest.h. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "jobprep/suggest.h"
#include "suggest_internal.h"

#define MAX_LEN 64 /* names are short; longer words get no suggestion */

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t jp_suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d[MAX_LEN + 1][MAX_LEN + 1]; /* 4 KiB: every distance fits */

	if (la > MAX_LEN || lb > MAX_LEN)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned char)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned char)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			size_t v = min3(d[i - 1][j] + 1u, d[i][j - 1] + 1u, d[i - 1][j - 1] + cost);

			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1u < v)
				v = d[i - 2][j - 2] + 1u;
			d[i][j] = (unsigned char)v;
		}
	return d[la][lb];
}

void jp_suggest_init(struct jp_suggest *s, const char *word)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
	s->best_d = SIZE_MAX;
}

void jp_suggest_add(struct jp_suggest *s, const char *name)
{
	size_t d, n;

	if (!s->word || !name || strcmp(s->word, name) == 0)
		return;
	d = jp_suggest_distance(s->word, name);
	if (d < s->best_d) {
		s->best = name;
		s->best_d = d;
	}
	n = strlen(s->word);
	if (n >= 2 && strncmp(name, s->word, n) == 0) {
		s->prefix = name;
		s->n_prefix++;
	}
}

const char *jp_suggest_best(const struct jp_suggest *s)
{
	size_t limit = s->word ? strlen(s->word) / 3 : 0;

	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	if (s->best && s->best_d <= limit)
		return s->best;
	return s->n_prefix == 1 ? s->prefix : NULL;
}
