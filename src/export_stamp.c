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
#include "helper_internal.h"
#include "export_internal.h"

#define STAMP_PREFIX "# jobprep-export-digest: xxh3-64="
#define STAMP_HEX 16
#define STAMP_REST " (jobprep export -o replaces this file only while the rest is unedited)\n"
/* Larger than any job file jobprep writes: beyond it, not an export. */
#define STAMP_MAX_BYTES (16 * 1024 * 1024)

/* The lines that are the person's (jp_export_fill), by their key: in a
 * PyTorchJob after the indentation, in a Slurm script at the start of a
 * line of its #SBATCH header (a launch command's line further down may say
 * anything). One table for the digest and for reading them back. */
static const struct yours {
	const char *key;
	size_t at;   /* offsetof the field in struct jp_export_fill */
	bool script; /* a Slurm script's, else a PyTorchJob's */
} yours[] = {
	{ EXPORT_KEY_IMAGE, offsetof(struct jp_export_fill, image), false },
	{ EXPORT_KEY_NAMESPACE, offsetof(struct jp_export_fill, k8s_namespace), false },
	{ EXPORT_KEY_PRIORITY, offsetof(struct jp_export_fill, priority_class), false },
	{ EXPORT_KEY_QUEUE, offsetof(struct jp_export_fill, queue), false },
	{ EXPORT_KEY_PARTITION, offsetof(struct jp_export_fill, partition), true },
	{ EXPORT_KEY_ACCOUNT, offsetof(struct jp_export_fill, account), true },
	{ EXPORT_KEY_QOS, offsetof(struct jp_export_fill, qos), true },
	{ EXPORT_KEY_TIME, offsetof(struct jp_export_fill, time), true },
};
#define N_YOURS (sizeof(yours) / sizeof(yours[0]))

/* How a walk over the lines knows where it is. */
struct walk {
	bool yaml;   /* a PyTorchJob (no "#!" line) */
	bool header; /* a script's lines so far were all comments */
};

/* The entry of yours[] the line [p, end) is, or NULL; *key: where its key
 * starts. A line that is no comment ends a script's header. */
static const struct yours *yours_line(struct walk *w, const char *p, const char *end,
				      const char **key)
{
	const char *k = p;

	if (w->yaml) {
		while (k < end && *k == ' ')
			k++;
	} else if (p < end && *p != '#') {
		w->header = false;
	}
	if (!w->yaml && !w->header)
		return NULL;
	for (size_t i = 0; i < N_YOURS; i++) {
		size_t n = strlen(yours[i].key);

		if (yours[i].script == !w->yaml && (size_t)(end - k) >= n &&
		    memcmp(k, yours[i].key, n) == 0) {
			*key = k;
			return &yours[i];
		}
	}
	return NULL;
}

static bool fill_in_comment(const struct walk *w, const char *p, const char *end)
{
	size_t n = strlen(EXPORT_FILL_IN_COMMENT);

	return w->yaml && (size_t)(end - p) >= n && memcmp(p, EXPORT_FILL_IN_COMMENT, n) == 0;
}

/* Feed [p, end) line by line: a line of the person's up to its key only,
 * a "# FILL IN" comment not at all, every other byte as it is. */
static void feed(XXH3_state_t *st, struct walk *w, const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl + 1 : end, *k = NULL;
		const struct yours *y = yours_line(w, p, eol, &k);

		if (y) {
			XXH3_64bits_update(st, p, (size_t)(k - p) + strlen(y->key));
			XXH3_64bits_update(st, "\n", 1);
		} else if (!fill_in_comment(w, p, eol)) {
			XXH3_64bits_update(st, p, (size_t)(eol - p));
		}
		p = eol;
	}
}

/* XXH3 (64 bits) over a and then b, the person's lines left out unless
 * `all` (how exports were stamped before): a digest against edits, not
 * attacks. A text with its digest line at 0 is a PyTorchJob. */
static uint64_t digest(const char *a, size_t na, const char *b, size_t nb, bool all)
{
	XXH3_state_t st;
	struct walk w = { .yaml = na == 0, .header = true };

	XXH3_64bits_reset(&st);
	if (all) {
		XXH3_64bits_update(&st, a, na);
		XXH3_64bits_update(&st, b, nb);
	} else {
		feed(&st, &w, a, a + na);
		feed(&st, &w, b, b + nb);
	}
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
	uint64_t h = digest(text, at, text + at, len - at, false);

	if (asprintf(out, "%.*s" STAMP_PREFIX "%016" PRIx64 STAMP_REST "%s", (int)at, text, h,
		     text + at) < 0) {
		*out = NULL;
		return jp_error_oom(err);
	}
	return 0;
}

/* Where the text after the digest line starts, and the digest it says;
 * NULL when the line is not there as jobprep writes it. */
static const char *stamp_line(const char *text, size_t len, uint64_t *want)
{
	size_t at = stamp_offset(text, len), pl = strlen(STAMP_PREFIX), rl = strlen(STAMP_REST);
	const char *line = text + at;

	*want = 0;
	if (len - at < pl + STAMP_HEX + rl || memcmp(line, STAMP_PREFIX, pl) != 0)
		return NULL;
	for (size_t i = 0; i < STAMP_HEX; i++) {
		char c = line[pl + i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (v < 0)
			return NULL;
		*want = *want << 4 | (uint64_t)v;
	}
	/* the line exactly as written, its words too */
	if (memcmp(line + pl + STAMP_HEX, STAMP_REST, rl) != 0)
		return NULL;
	return line + pl + STAMP_HEX + rl;
}

bool jp_export_is_unedited(const char *text, size_t len)
{
	size_t at = stamp_offset(text, len);
	uint64_t want;
	const char *rest = stamp_line(text, len, &want);
	size_t nr = rest ? len - (size_t)(rest - text) : 0;

	/* an export of before the person's lines were left out counts too */
	return rest && (digest(text, at, rest, nr, false) == want ||
			digest(text, at, rest, nr, true) == want);
}

/* The value of a line of the person's: a double-quoted scalar as jobprep
 * writes it, a single-quoted or a plain one as a person might; a comment
 * after it dropped. */
static void read_value(char *out, size_t size, const char *p, const char *end)
{
	size_t n = 0;

	if (p < end && (*p == '"' || *p == '\'')) {
		char q = *p++;

		for (; p < end && *p != q; p++) {
			if (q == '"' && *p == '\\' && p + 1 < end)
				p++;
			if (n + 1 < size)
				out[n++] = *p;
		}
	} else {
		const char *hash = p;

		while (hash < end && !(*hash == '#' && hash > p && hash[-1] == ' '))
			hash++;
		while (hash > p && (hash[-1] == ' ' || hash[-1] == '\r' || hash[-1] == '\n'))
			hash--;
		n = (size_t)(hash - p) < size ? (size_t)(hash - p) : size - 1;
		memcpy(out, p, n);
	}
	out[n] = '\0';
}

void jp_export_read_fill(struct jp_export_fill *out, const char *text, size_t len)
{
	uint64_t want;
	size_t at = stamp_offset(text, len);
	const char *p = stamp_line(text, len, &want), *end = text + len;
	struct walk w = { .yaml = at == 0, .header = true };

	memset(out, 0, sizeof(*out));
	if (!p) /* no export */
		return;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *k = NULL;
		const struct yours *y = yours_line(&w, p, eol, &k);

		if (y)
			read_value((char *)out + y->at, JP_EXPORT_FILL_MAX, k + strlen(y->key), eol);
		p = nl ? nl + 1 : end;
	}
	if (strcmp(out->image, JP_EXPORT_IMAGE_PLACEHOLDER) == 0)
		out->image[0] = '\0';
}

static int may_replace_now(const char *path, bool force, struct jp_export_fill *kept,
			   struct jp_error *err);

/* The look in a helper process (helper.c), in bounded time. inputs: the
 * path, force; answer: the status, its message and the person's values
 * (flat: they travel as their bytes). */
static void replace_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_error e = JP_ERROR_INIT;
	struct jp_export_fill kept;
	char *path = probe_bytes_get_str(in);
	bool force = false;
	int rc;

	probe_bytes_get(in, &force, sizeof(force));
	memset(&kept, 0, sizeof(kept));
	if (in->bad || !path) {
		out->bad = true; /* the caller reads it as a failed look */
	} else {
		rc = may_replace_now(path, force, &kept, &e);
		probe_bytes_put(out, &rc, sizeof(rc));
		probe_bytes_put_error(out, rc ? &e : NULL);
		probe_bytes_put(out, &kept, sizeof(kept));
	}
	jp_error_dispose(&e);
	free(path);
}
JP_HELPER_REQUEST(export_may_replace, replace_serve, JP_HELPER_LOOK);

int jp_export_may_replace(const char *path, bool force, struct jp_export_fill *kept,
			  struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	struct jp_export_fill fill;
	int rc, child_rc = 0;

	if (kept)
		memset(kept, 0, sizeof(*kept));
	probe_bytes_put_str(&in, path);
	probe_bytes_put(&in, &force, sizeof(force));
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_call(&ans, &jp_req_export_may_replace, &in, path,
				     0, err);
	if (rc == 0) {
		probe_bytes_get(&ans, &child_rc, sizeof(child_rc));
		probe_bytes_get_error(&ans, child_rc < 0 ? err : NULL, child_rc);
		probe_bytes_get(&ans, &fill, sizeof(fill));
		if (ans.bad)
			rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", path,
					  _("the look at it failed"));
		else if (kept)
			*kept = fill;
	}
	if (rc == 0 && child_rc < 0)
		rc = child_rc;
	free(in.p);
	free(ans.p);
	return rc;
}

/* Why an edited export is not replaced, and which of its lines are whose. */
static int refuse_edited(const char *path, bool slurm, struct jp_error *err)
{
	if (slurm)
		return jp_error_set(err, JP_EREFUSED,
				    _("%s: edited in lines that are jobprep's (its digest line no "
				      "longer matches): refusing to replace it. Yours, and kept, are "
				      "the values of the #SBATCH lines --partition, --time, --account "
				      "and --qos (or give them with those options); every other line "
				      "is jobprep's, made from the manifest"),
				    path);
	return jp_error_set(err, JP_EREFUSED,
			    _("%s: edited in lines that are jobprep's (its digest line no longer "
			      "matches): refusing to replace it. Yours, and kept, are the values of "
			      "image, namespace, priorityClassName and kueue.x-k8s.io/queue-name "
			      "(--image, --namespace, --priority-class, --queue); every other line "
			      "is jobprep's, made from the manifest"),
			    path);
}

static int may_replace_now(const char *path, bool force, struct jp_export_fill *kept,
			   struct jp_error *err)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	uint64_t want;
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
	buf[n] = '\0';
	jp_export_read_fill(kept, buf, n);
	if (force || jp_export_is_unedited(buf, n))
		goto out;
	if (stamp_line(buf, n, &want)) {
		rc = refuse_edited(path, stamp_offset(buf, n) != 0, err);
		goto out;
	}
not_ours:
	if (force)
		goto out;
	rc = jp_error_set(err, JP_EREFUSED,
			  _("%s: exists and is not an unedited jobprep export (its digest line is "
			    "missing or no longer matches): refusing to replace it"),
			  path);
out:
	free(buf);
	close(fd);
	return rc;
}
