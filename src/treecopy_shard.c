/* Cutting a tree's files into balanced shards (jobprep stage --shard i/N):
 * by bytes and by files at once, each file weighing its size plus a fixed
 * cost (on network storage a small file costs its round trips, not its
 * bytes). The biggest first, each to the lightest shard so far (a heap):
 * the same list gives the same cut in every task of an array, whatever
 * order each task's walk found the files in. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "treecopy_internal.h"

/* what one file costs besides its bytes */
#define FILE_COST (256u << 10)

struct ent {
	uint64_t w;
	const char *name;
	size_t i;
};

static int heavier_first(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return strcmp(x->name, y->name);
}

struct bin {
	uint64_t load;
	unsigned id;
};

static bool lighter(const struct bin *a, const struct bin *b)
{
	return a->load < b->load || (a->load == b->load && a->id < b->id);
}

static void sift_down(struct bin *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		struct bin t;

		if (l < n && lighter(&h[l], &h[m]))
			m = l;
		if (r < n && lighter(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

int jp_tc_shard_plan(size_t n, const uint64_t *sizes, const char *const *names, unsigned shards,
		     unsigned *out)
{
	struct ent *v;
	struct bin *h;

	if (shards == 0)
		return -1; /* no shard to put anything in */
	v = malloc((n ? n : 1) * sizeof(*v));
	h = malloc(shards * sizeof(*h));
	if (!v || !h) {
		free(v);
		free(h);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct ent){ sizes[i] + FILE_COST, names[i], i };
	if (n > 1)
		qsort(v, n, sizeof(*v), heavier_first);
	for (unsigned s = 0; s < shards; s++)
		h[s] = (struct bin){ 0, s }; /* all 0, ordered by id: a heap */
	for (size_t k = 0; k < n; k++) {
		out[v[k].i] = h[0].id;
		h[0].load += v[k].w;
		sift_down(h, shards, 0);
	}
	free(v);
	free(h);
	return 0;
}
