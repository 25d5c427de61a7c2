/* The digest line of an exported job file: how `jobprep export -o` tells an
 * earlier export nobody edited (it may be replaced) from a file a person
 * changed or wrote (it is not replaced without --force). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "jobprep/export.h"
#include "export_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "jobprep/probe.h"
#include "probe_internal.h"

#define STAMP_PREFIX "# jobprep-export-digest: xxh3-64="
#define STAMP_HEX 16
#define STAMP_REST " (jobprep export -o replaces this file only while the rest is unedited)\n"
/* Larger than any job file jobprep writes: beyond it, not an export. */
#define STAMP_MAX_BYTES (16 * 1024 * 1024)

/* XXH3 (64 bits) over a and then b: a digest against edits, not attacks. */
static uint64_t digest(const char *a, size_t na, const char *b, size_t nb)
{
	XXH3_state_t st;

	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, a, na);
	XXH3_64bits_update(&st, b, nb);
	return XXH3_64bits_digest(&st);
}

/* Where the digest line goes: after a #! line, else first. */
static size_t stamp_offset(const char *text, size_t len)
{
	const char *nl;

	if (len < 2 || text[0] != '#' || text[1] != '!')
		return 0;
	nl = memchr(text, '\n', len);
	return nl ? (size_t)(nl - text) + 1 : len;
}

int jp_export_stamp(char **out, const char *text, struct jp_error *err)
{
	size_t len = strlen(text), at = stamp_offset(text, len);
	uint64_t h = digest(text, at, text + at, len - at);

	if (asprintf(out, "%.*s" STAMP_PREFIX "%016" PRIx64 STAMP_REST "%s", (int)at, text, h,
		     text + at) < 0) {
		*out = NULL;
		return jp_error_oom(err);
	}
	return 0;
}

bool jp_export_is_unedited(const char *text, size_t len)
{
	size_t at = stamp_offset(text, len), pl = strlen(STAMP_PREFIX);
	const char *line = text + at, *nl;
	uint64_t want = 0;

	if (len - at < pl + STAMP_HEX || memcmp(line, STAMP_PREFIX, pl) != 0)
		return false;
	for (size_t i = 0; i < STAMP_HEX; i++) {
		char c = line[pl + i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (v < 0)
			return false;
		want = want << 4 | (uint64_t)v;
	}
	/* the line exactly as written, its words too */
	size_t rl = strlen(STAMP_REST);
	if (len - at < pl + STAMP_HEX + rl || memcmp(line + pl + STAMP_HEX, STAMP_REST, rl) != 0)
		return false;
	nl = line + pl + STAMP_HEX + rl;
	return digest(text, at, nl, len - (size_t)(nl - text)) == want;
}

static int may_replace_now(const char *path, struct jp_error *err);

/* The look in a child process (jp_probe_call_flat): the status and the
 * message come back flat. */
struct replace_call {
	int rc;
	char msg[2048];
	const char *path; /* not copied back */
};

static void replace_run(void *arg)
{
	struct replace_call *c = arg;
	struct jp_error e = JP_ERROR_INIT;

	c->rc = may_replace_now(c->path, &e);
	snprintf(c->msg, sizeof(c->msg), "%s",
		 c->rc && jp_error_message(&e) ? jp_error_message(&e) : "");
	jp_error_dispose(&e);
}

int jp_export_may_replace(const char *path, struct jp_error *err)
{
	struct replace_call c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.path = path;
	/* a hung mount: "PATH: no answer within N s" (JP_ETIMEOUT) */
	rc = jp_probe_call_flat(replace_run, &c, offsetof(struct replace_call, path), path, 0, err);
	if (rc < 0)
		return rc;
	if (c.rc < 0)
		return jp_error_set(err, c.rc, "%s", c.msg[0] ? c.msg : jp_strerror(c.rc));
	return 0;
}

static int may_replace_now(const char *path, struct jp_error *err)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 && errno == ELOOP)
		return jp_error_set(err, JP_EREFUSED,
				    _("%s: is a symbolic link; refusing to write through it "
				      "(give the path of the file itself)"),
				    path);
	if (fd < 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot look at it: %s"), path,
				    strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = jp_error_set(err, JP_EREFUSED,
				  _("%s: exists and is not a regular file; refusing to replace it"),
				  path);
		goto out;
	}
	if (st.st_size > STAMP_MAX_BYTES)
		goto not_ours;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = jp_error_oom(err);
		goto out;
	}
	while (n < (size_t)st.st_size) {
		ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = jp_error_set(err, JP_EIO, _("%s: cannot read it: %s"), path,
					  strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (jp_export_is_unedited(buf, n))
		goto out;
not_ours:
	rc = jp_error_set(err, JP_EREFUSED,
			  _("%s: exists and is not an unedited jobprep export (its digest line is "
			    "missing or no longer matches): refusing to replace it"),
			  path);
out:
	free(buf);
	close(fd);
	return rc;
}
