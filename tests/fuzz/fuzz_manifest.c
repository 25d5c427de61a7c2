/* libFuzzer target: any bytes through the manifest reader (strict pass,
 * cJSON, field tables), in both modes; whatever parses must write back and
 * read again to the same text. Build with --enable-fuzzing. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/manifest.h"
#include "manifest_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int mode = JP_READ_MANIFEST; mode <= JP_READ_ANSWERS; mode++) {
		struct jp_error err = JP_ERROR_INIT;
		struct jp_manifest *m = NULL, *back = NULL;
		char *text = NULL, *again = NULL;

		if (jp_manifest_parse(&m, (const char *)data, size, "fuzz", mode, &err) == 0 &&
		    mode == JP_READ_MANIFEST) {
			if (jp_manifest_to_text(&text, m, &err) != 0 ||
			    jp_manifest_parse(&back, text, strlen(text), "again", JP_READ_MANIFEST,
					      &err) != 0 ||
			    jp_manifest_to_text(&again, back, &err) != 0 || strcmp(text, again) != 0)
				abort();
		}
		free(text);
		free(again);
		jp_manifest_free(m);
		jp_manifest_free(back);
		jp_error_dispose(&err);
	}
	return 0;
}
