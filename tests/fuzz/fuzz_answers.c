/* libFuzzer target: any bytes as an answers file, the way `jobprep init
 * --answers` takes it: read with JP_READ_ANSWERS (any subset), then every
 * value applied to a new flow as if typed (defaults, inline checks, the
 * launch lint's splitting). Nothing is cloned, scanned or written. A flow
 * that took the answers must hold a manifest that prints. Build with
 * --enable-fuzzing; replayed over its seeds by `make check` otherwise. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "jobprep/flow.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/profile.h"
#include "profile_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_manifest *ans = NULL;
	struct jp_profile *profile = NULL;
	struct jp_flow *flow = NULL;
	char *text = NULL;
	int rc;

	if (jp_manifest_parse(&ans, (const char *)data, size, "fuzz", JP_READ_ANSWERS, &err) < 0)
		goto out;
	/* the answers' own profile when they carry one, as init does */
	rc = ans->profile ? jp_profile_copy(&profile, ans->profile)
			  : jp_profile_new_default(&profile, &err);
	if (rc < 0 || jp_flow_new(&flow, profile, &err) < 0)
		abort();
	rc = jp_flow_apply_answers(flow, ans, "fuzz", &err);
	if (rc == JP_ENOMEM)
		abort();
	if (rc == 0 || rc == JP_ECHECK) {
		struct jp_error err2 = JP_ERROR_INIT;

		/* the draft may still miss required fields: printing it may
		 * refuse, but never crash */
		(void)jp_manifest_to_text(&text, jp_flow_manifest(flow), &err2);
		jp_error_dispose(&err2);
	}
out:
	free(text);
	jp_flow_free(flow);
	jp_profile_free(profile);
	jp_manifest_free(ans);
	jp_error_dispose(&err);
	return 0;
}
