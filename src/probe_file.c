/* A file a person named (manifest, answers, profile, draft), read in
 * bounded time: the read runs in a helper process (helper.c), so a hung
 * network mount costs a timeout, never a process stuck in the kernel. The
 * child reads with jp_input_read_now (input.c); jp_input_read, every
 * reader's way in, is this read with the default timeout. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/input.h"
#include "input_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "helper_internal.h"

/* inputs: path, max; answer: rc, errno, the message, the length and the
 * text */
static void read_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_error e = JP_ERROR_INIT;
	char *path = probe_bytes_get_str(in), *text = NULL;
	uint64_t max = 0, len64 = 0;
	size_t len = 0;
	int rc = JP_EINTERNAL, errnum = 0;

	probe_bytes_get(in, &max, sizeof(max));
	if (!in->bad && path) {
		rc = jp_input_read_now(&text, &len, path, (size_t)max, &e);
		errnum = errno;
	}
	len64 = text ? (uint64_t)len : 0;
	probe_bytes_put(out, &rc, sizeof(rc));
	probe_bytes_put(out, &errnum, sizeof(errnum));
	probe_bytes_put_error(out, rc != 0 ? &e : NULL);
	probe_bytes_put(out, &len64, sizeof(len64));
	if (text)
		probe_bytes_put(out, text, len);
	jp_error_dispose(&e);
	free(text);
	free(path);
}
JP_HELPER_REQUEST(read_file, read_serve, JP_HELPER_LOOK);

/* The answer's text (NUL-terminated) into *text; false when the bytes are
 * short or longer than max. */
static bool read_text(char **text, size_t *len, struct probe_bytes *ans, size_t max)
{
	uint64_t n = 0;

	probe_bytes_get(ans, &n, sizeof(n));
	if (ans->bad || n > ans->n - ans->off || n > max || !(*text = malloc((size_t)n + 1)))
		return false;
	probe_bytes_get(ans, *text, (size_t)n);
	(*text)[n] = '\0';
	*len = (size_t)n;
	return true;
}

int jp_probe_read_file(char **text, size_t *len, const char *path, size_t max,
		       unsigned timeout_ms, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	uint64_t max64 = max;
	int rc, child_rc = 0, errnum = 0;

	*text = NULL;
	*len = 0;
	probe_bytes_put_str(&in, path);
	probe_bytes_put(&in, &max64, sizeof(max64));
	rc = jp_helper_call(&ans, &jp_req_read_file, &in, path,
			    timeout_ms, err);
	free(in.p);
	if (rc < 0) {
		if (rc == JP_ETIMEOUT && err) /* unreadable: exit 3, as for any such file */
			err->code = JP_EFORMAT;
		errno = rc == JP_ETIMEOUT ? ETIMEDOUT : 0;
		return rc == JP_ETIMEOUT ? JP_EFORMAT : rc;
	}
	errno = 0; /* a failure below is the file's (errnum) or the look's */
	probe_bytes_get(&ans, &child_rc, sizeof(child_rc));
	probe_bytes_get(&ans, &errnum, sizeof(errnum));
	probe_bytes_get_error(&ans, child_rc != 0 ? err : NULL, child_rc);
	if (ans.bad) {
		rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", path, _("the look at it failed"));
	} else if (child_rc != 0) {
		rc = child_rc;
		errno = errnum; /* the draft tells "none yet" (ENOENT) from a failure */
	} else if (!read_text(text, len, &ans, max)) {
		free(*text);
		*text = NULL;
		rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", path, _("the look at it failed"));
	}
	free(ans.p);
	return rc;
}

int jp_input_read(char **text, size_t *len, const char *path, size_t max,
		  struct jp_error *err)
{
	return jp_probe_read_file(text, len, path, max, 0, err);
}
