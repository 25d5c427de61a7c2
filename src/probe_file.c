/* A file a person named (manifest, answers, profile, draft), read in
 * bounded time: the read runs in a forked child (probe_child.c), so a hung
 * network mount costs a timeout, never a process stuck in the kernel. The
 * child reads with jp_input_read_now (input.c); jp_input_read, every
 * reader's way in, is this read with the default timeout. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/input.h"
#include "input_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"

struct read_call {
	const char *path;
	size_t max;
	/* the answer */
	int rc, errnum;
	char *msg;
	char *text;
	size_t len;
};

static void read_run(void *arg)
{
	struct read_call *c = arg;
	struct jp_error e = JP_ERROR_INIT;

	c->rc = jp_input_read_now(&c->text, &c->len, c->path, c->max, &e);
	c->errnum = errno;
	if (c->rc != 0) {
		const char *m = jp_error_message(&e);

		c->msg = m ? strdup(m) : NULL;
	}
	jp_error_dispose(&e);
}

static void read_pack(struct probe_bytes *out, void *arg)
{
	struct read_call *c = arg;
	uint64_t len = c->text ? (uint64_t)c->len : 0;

	probe_bytes_put(out, &c->rc, sizeof(c->rc));
	probe_bytes_put(out, &c->errnum, sizeof(c->errnum));
	probe_bytes_put_str(out, c->msg);
	probe_bytes_put(out, &len, sizeof(len));
	if (c->text)
		probe_bytes_put(out, c->text, c->len);
}

static bool read_unpack(struct probe_bytes *in, void *arg)
{
	struct read_call *c = arg;
	uint64_t len = 0;

	probe_bytes_get(in, &c->rc, sizeof(c->rc));
	probe_bytes_get(in, &c->errnum, sizeof(c->errnum));
	c->msg = probe_bytes_get_str(in);
	probe_bytes_get(in, &len, sizeof(len));
	if (in->bad || len > in->n - in->off || len > c->max)
		return false;
	if (c->rc == 0) {
		if (!(c->text = malloc((size_t)len + 1)))
			return false;
		probe_bytes_get(in, c->text, (size_t)len);
		c->text[len] = '\0';
		c->len = (size_t)len;
	}
	return !in->bad;
}

int jp_probe_read_file(char **text, size_t *len, const char *path, size_t max,
		       unsigned timeout_ms, struct jp_error *err)
{
	struct read_call c;
	char mount[4096];
	int rc;

	memset(&c, 0, sizeof(c));
	c.path = path;
	c.max = max;
	*text = NULL;
	*len = 0;
	if (jp_probe_mount_hung(path, mount, sizeof(mount)))
		return jp_error_set(err, JP_EFORMAT,
				    _("%s: no answer: %s, the mount it is on, has not answered an "
				      "earlier look yet (is a network mount hung?)"),
				    path, mount);
	rc = probe_child_call(read_run, &c, read_pack, read_unpack, path,
			      timeout_ms ? timeout_ms : jp_probe_default_timeout_ms(), err);
	if (rc < 0) {
		free(c.msg);
		free(c.text);
		if (rc == JP_ETIMEOUT && err) /* unreadable: exit 3, as for any such file */
			err->code = JP_EFORMAT;
		return rc == JP_ETIMEOUT ? JP_EFORMAT : rc;
	}
	if (c.rc != 0) {
		rc = jp_error_set(err, c.rc, "%s", c.msg ? c.msg : jp_strerror(c.rc));
		free(c.msg);
		free(c.text);
		errno = c.errnum; /* the draft tells "none yet" (ENOENT) from a failure */
		return rc;
	}
	free(c.msg);
	*text = c.text;
	*len = c.len;
	return 0;
}

int jp_input_read(char **text, size_t *len, const char *path, size_t max,
		  struct jp_error *err)
{
	return jp_probe_read_file(text, len, path, max, 0, err);
}
