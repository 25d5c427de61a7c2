/* libFuzzer target: any bytes as a Python file, through the light Python
 * reader of launch.hub_download (pyscan.c): comments, strings with their
 * prefixes and triple quotes, brackets, imports, calls. Every hit names one
 * of the four calls, a Hub repository id and a line of the text. Build with
 * --enable-fuzzing; replayed over its seeds by `make check` otherwise. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pyscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const calls[] = { "from_pretrained", "load_dataset", "snapshot_download",
					     "hf_hub_download" };
	/* a file whose folder is not there: imports are looked up, never read */
	static const char file[] = "/nonexistent-jobprep-fuzz/pkg/train.py";
	struct jp_pyscan_result *r = malloc(sizeof(*r));
	size_t lines = 1;

	if (!r)
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	jp_pyscan_text(r, file, (const char *)data, size);
	if (r->n_hits > JP_PYSCAN_MAX_HITS || r->n_files != 0)
		abort();
	for (size_t i = 0; i < r->n_hits; i++) {
		const struct jp_pyscan_hit *h = &r->hits[i];
		bool known = false;

		for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
			known = known || strcmp(h->call, calls[k]) == 0;
		if (!known || strcmp(h->file, file) != 0 || h->line < 1 || h->line > lines ||
		    !jp_pyscan_is_hub_id(h->repo) || h->staged)
			abort();
	}
	free(r);
	return 0;
}
