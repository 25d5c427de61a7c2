/* libFuzzer target: any bytes through the profile reader exactly as
 * jp_profile_load reads a file (the strict JSON pass, cJSON, the profile's
 * fields); whatever reads must write back to JSON and read again to the
 * same JSON. Build with --enable-fuzzing; replayed over its seeds by
 * `make check` otherwise. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonstrict.h"
#include "jobprep/profile.h"
#include "profile_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *profile_text(const struct jp_profile *p)
{
	cJSON *json = jp_profile_to_json(p);
	char *text = json ? cJSON_PrintUnformatted(json) : NULL;

	cJSON_Delete(json);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_json_scan scan = JP_JSON_SCAN_INIT;
	struct jp_profile *p = NULL, *back = NULL, *copy = NULL;
	cJSON *json = NULL, *again = NULL;
	char *text = NULL, *text2 = NULL, *text3 = NULL;
	int rc;

	rc = jp_json_scan(&scan, (const char *)data, size, "fuzz", 4, &err);
	jp_json_scan_dispose(&scan);
	if (rc < 0)
		goto out;
	json = cJSON_ParseWithLength((const char *)data, size);
	if (!json)
		goto out;
	if (jp_profile_from_json(&p, json, "fuzz", &err) < 0)
		goto out;
	/* what was read writes back, reads again and writes the same */
	text = profile_text(p);
	if (!text)
		abort();
	again = cJSON_Parse(text);
	if (!again || jp_profile_from_json(&back, again, "again", &err) < 0)
		abort();
	text2 = profile_text(back);
	if (!text2 || strcmp(text, text2) != 0)
		abort();
	if (jp_profile_copy(&copy, p) < 0)
		abort();
	text3 = profile_text(copy);
	if (!text3 || strcmp(text, text3) != 0)
		abort();
out:
	cJSON_free(text);
	cJSON_free(text2);
	cJSON_free(text3);
	cJSON_Delete(json);
	cJSON_Delete(again);
	jp_profile_free(p);
	jp_profile_free(back);
	jp_profile_free(copy);
	jp_error_dispose(&err);
	return 0;
}
