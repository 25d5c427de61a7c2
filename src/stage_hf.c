/* jobprep stage hf://[datasets/]ORG/NAME[@REVISION] DEST: a Hugging Face Hub
 * repository downloaded before the job, once, into the Hub's cache layout
 * under DEST/hub (stage_hf_cache.c), so that the job's own code, with
 * HF_HOME=DEST HF_HUB_OFFLINE=1, loads it without a network, on every
 * rank, instead of every rank downloading it at start into one cache.
 *
 * As huggingface_hub does it: the revision API ($HF_ENDPOINT/api/models/ID/
 * revision/REV) names the commit and the files; a HEAD of each file's
 * resolve URL (redirects not followed: the Hub's own answer carries them)
 * says its blob (X-Linked-Etag for an LFS file: its SHA-256; else the ETag:
 * its git blob id) and size. Each blob is then fetched by the stage's own
 * download (stage_http.c: resumable, several ranges at once for a large
 * one, the CDN a redirect leads to never given the token), several files
 * at once, and checked against its name (SHA-256, or the git blob id)
 * before it is renamed into place. $HF_TOKEN goes as a Bearer header, from
 * the environment only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <openssl/evp.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/stage.h"
#include "buf.h"
#include "deadline_internal.h"
#include "stage_hf.h"
#include "stage_internal.h"
#include "path_internal.h"

#define HF_WORKERS 8          /* files at once (huggingface_hub's snapshot_download: 8) */
#define HF_WORKERS_MAX 16     /* --jobs asks for fewer, or up to this */
#define API_MAX (256u << 20)  /* a revision answer larger than this is refused */
#define HF_DEFAULT_ENDPOINT "https://huggingface.co"

bool jp_stage_is_hub(const char *s)
{
	return s && strncmp(s, "hf://", 5) == 0;
}

struct hf_file {
	char *name;         /* rfilename, checked */
	char etag[65];
	uint64_t size;      /* 0 unknown */
	bool have;          /* linked in the snapshot already */
	bool lead;          /* the first file with its blob: fetches it */
	bool listed;        /* etag and size from the revision answer: no HEAD */
	bool sized;         /* size known (0 included) */
};

struct hf {
	bool dataset;
	char id[256], revision[256], commit[41];
	const char *source, *token;
	char endpoint[1024], repo_dir[PATH_MAX];
	struct hf_file *f;
	size_t n;
	const struct jp_stage_options *opts;
	/* the pool */
	atomic_size_t next;
	atomic_bool stop;
	atomic_uint_fast64_t done_bytes, files_done, finished;
	atomic_uint_fast64_t cur[HF_WORKERS_MAX];
	unsigned workers;
	pthread_mutex_t lock;
	int rc, failed; /* the first failure, and the worker whose err says it */
	uint64_t written, bytes_written, skipped, bytes_skipped;
};

struct hf_worker {
	struct hf *h;
	unsigned i;
	struct jp_port port;
	struct jp_error err;
	int (*fn)(struct hf *h, size_t i, struct hf_worker *w);
	size_t n;
	pthread_t tid;
};

/* ---- the repository named: hf://[datasets/|models/]ORG/NAME[@REV] ---- */

static int parse(struct hf *h, const char *source, struct jp_error *err)
{
	const char *p = source + 5, *at;
	size_t n;

	if (strncmp(p, "datasets/", 9) == 0) {
		h->dataset = true;
		p += 9;
	} else if (strncmp(p, "models/", 7) == 0) {
		p += 7;
	}
	at = strchr(p, '@');
	n = at ? (size_t)(at - p) : strlen(p);
	snprintf(h->id, sizeof(h->id), "%.*s", (int)n, p);
	snprintf(h->revision, sizeof(h->revision), "%s", at ? at + 1 : "main");
	if (n == 0 || n >= sizeof(h->id) || !jp_hf_name_ok(h->id, true) ||
	    strchr(strchr(h->id, '/') ? strchr(h->id, '/') + 1 : h->id, '/') ||
	    strstr(h->id, "--") || strcspn(h->id, " \"'#?%") != strlen(h->id))
		return jp_error_set(err, JP_EUSAGE,
				    _("%s: expected hf://ORG/NAME, hf://datasets/ORG/NAME, "
				      "optionally @REVISION"),
				    source);
	if (!h->revision[0] || !jp_hf_name_ok(h->revision, true) ||
	    strlen(at ? at + 1 : "main") >= sizeof(h->revision))
		return jp_error_set(err, JP_EUSAGE, _("%s: not a revision: \"%s\""), source,
				    at ? at + 1 : "");
	return 0;
}

static int endpoint(struct hf *h, struct jp_error *err)
{
	const char *e = getenv("HF_ENDPOINT");
	size_t n;

	if (!e || !e[0])
		e = HF_DEFAULT_ENDPOINT;
	n = strlen(e);
	while (n > 0 && e[n - 1] == '/')
		n--;
	if (!jp_stage_is_url(e) || n >= sizeof(h->endpoint) || strcspn(e, " \r\n\t") < n)
		return jp_error_set(err, JP_EUSAGE,
				    _("HF_ENDPOINT: expected an http(s) URL (a Hub or a mirror of it)"));
	snprintf(h->endpoint, sizeof(h->endpoint), "%.*s", (int)n, e);
	h->token = getenv("HF_TOKEN");
	if (!h->token || !h->token[0])
		h->token = getenv("HUGGING_FACE_HUB_TOKEN");
	if (!h->token)
		h->token = ""; /* never JOBPREP_HTTP_TOKEN: that is for other hosts */
	return 0;
}

/* s percent-encoded as Python's quote(s, safe="/") (keep_slash) or
 * quote(s, safe=""). */
static void escape(struct jp_buf *b, const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~", *p) || (*p == '/' && keep_slash)) {
			jp_buf_addc(b, (char)*p);
		} else {
			jp_buf_addc(b, '%');
			jp_buf_addc(b, hex[*p >> 4]);
			jp_buf_addc(b, hex[*p & 15]);
		}
	}
}

/* The resolve URL of a file at the commit. NULL on ENOMEM. */
static char *resolve_url(const struct hf *h, const char *name)
{
	struct jp_buf b = JP_BUF_INIT;
	char *out = NULL;

	jp_buf_addf(&b, "%s/%s", h->endpoint, h->dataset ? "datasets/" : "");
	escape(&b, h->id, true);
	jp_buf_addf(&b, "/resolve/%s/", h->commit);
	escape(&b, name, true);
	jp_buf_take(&out, &b);
	return out;
}

/* ---- the revision API ---- */

static size_t on_api_body(char *p, size_t size, size_t n, void *arg)
{
	struct jp_buf *b = arg;

	if (b->len + size * n > API_MAX || jp_buf_addn(b, p, size * n) != 0)
		return 0;
	return size * n;
}

static int http_status_error(const struct hf *h, long status, const char *what,
			     struct jp_error *err)
{
	if (status == 401 || status == 403)
		return jp_error_set(err, JP_EREFUSED,
				    _("%s: %s: the Hub refused access (HTTP %ld): a gated or "
				      "private repository needs HF_TOKEN set to a token that may "
				      "read it"),
				    h->source, what, status);
	if (status == 404)
		return jp_error_set(err, JP_ENOENT,
				    _("%s: %s: not found on %s (HTTP 404): is the name or the "
				      "revision right?"),
				    h->source, what, h->endpoint);
	return jp_error_set(err, JP_ENET, _("%s: %s: the Hub answered HTTP %ld"), h->source,
			    what, status);
}

static int get_api(struct hf *h, struct jp_buf *body, struct jp_error *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct jp_buf url = JP_BUF_INIT;
	char *u = NULL;
	CURL *c = curl_easy_init();
	long status = 0;
	CURLcode cc;
	int rc = 0;

	jp_buf_addf(&url, "%s/api/%s/", h->endpoint, h->dataset ? "datasets" : "models");
	escape(&url, h->id, true);
	jp_buf_add(&url, "/revision/");
	escape(&url, h->revision, false);
	/* each file's blob id and size in the answer: no HEAD per file (a
	 * server that does not know the parameter leaves them out) */
	jp_buf_add(&url, "?blobs=true");
	if (!c || jp_buf_take(&u, &url) != 0) {
		rc = jp_error_oom(err);
		goto out;
	}
	jp_stage_http_setup(c, u, errbuf, h->token);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 0L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_api_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, NULL);
	cc = curl_easy_perform(c);
	jp_stage_curl_explain(cc, errbuf);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (cc != CURLE_OK)
		rc = jp_error_set(err, cc == CURLE_OPERATION_TIMEDOUT ? JP_ETIMEOUT : JP_ENET,
				  _("%s: cannot reach %s: %s"), h->source, h->endpoint,
				  errbuf[0] ? errbuf : curl_easy_strerror(cc));
	else if (status != 200)
		rc = http_status_error(h, status, _("the revision"), err);
out:
	free(u);
	if (c)
		curl_easy_cleanup(c);
	return rc;
}

static bool is_commit(const char *s)
{
	if (!s || strlen(s) != 40)
		return false;
	for (size_t i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* ?blobs=true: an LFS file's "lfs": {"sha256", "size"}, else "blobId" and
 * "size" -- what a HEAD of its resolve URL would say */
static void blob_of(struct hf_file *f, const cJSON *it)
{
	const cJSON *lfs = cJSON_GetObjectItemCaseSensitive(it, "lfs");
	const cJSON *id = cJSON_IsObject(lfs) ? cJSON_GetObjectItemCaseSensitive(lfs, "sha256")
					      : cJSON_GetObjectItemCaseSensitive(it, "blobId");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(cJSON_IsObject(lfs) ? lfs : it, "size");

	if (!cJSON_IsString(id) || !cJSON_IsNumber(size) || size->valuedouble < 0 ||
	    size->valuedouble > 9007199254740992.0 || strlen(id->valuestring) >= sizeof(f->etag))
		return;
	snprintf(f->etag, sizeof(f->etag), "%s", id->valuestring);
	if (!jp_hf_etag_ok(f->etag)) {
		f->etag[0] = '\0';
		return;
	}
	f->size = (uint64_t)size->valuedouble;
	f->listed = f->sized = true;
}

static int read_files(struct hf *h, const cJSON *siblings, struct jp_error *err)
{
	const cJSON *it;
	size_t n = (size_t)cJSON_GetArraySize(siblings);

	if (!(h->f = calloc(n ? n : 1, sizeof(*h->f))))
		return jp_error_oom(err);
	cJSON_ArrayForEach(it, siblings) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "rfilename");

		if (!cJSON_IsString(name) || !jp_hf_name_ok(name->valuestring, true))
			return jp_error_set(err, JP_EREFUSED,
					    _("%s: the Hub names a file jobprep will not write (%s): "
					      "nothing written"),
					    h->source,
					    cJSON_IsString(name) ? name->valuestring : "?");
		if (!(h->f[h->n].name = strdup(name->valuestring)))
			return jp_error_oom(err);
		blob_of(&h->f[h->n++], it);
	}
	return 0;
}

static int revision(struct hf *h, struct jp_error *err)
{
	struct jp_buf body = JP_BUF_INIT;
	cJSON *j = NULL;
	const cJSON *sha, *sib;
	int rc = get_api(h, &body, err);

	if (rc != 0)
		goto out;
	if (body.rc != 0) {
		rc = jp_error_oom(err);
		goto out;
	}
	j = body.s ? cJSON_ParseWithLength(body.s, body.len) : NULL;
	sha = cJSON_GetObjectItemCaseSensitive(j, "sha");
	sib = cJSON_GetObjectItemCaseSensitive(j, "siblings");
	if (!cJSON_IsString(sha) || !is_commit(sha->valuestring) || !cJSON_IsArray(sib)) {
		rc = jp_error_set(err, JP_EFORMAT,
				  _("%s: %s did not answer as a Hub does (no commit \"sha\" and "
				    "\"siblings\" in /api/.../revision/%s)"),
				  h->source, h->endpoint, h->revision);
		goto out;
	}
	snprintf(h->commit, sizeof(h->commit), "%s", sha->valuestring);
	rc = read_files(h, sib, err);
out:
	cJSON_Delete(j);
	jp_buf_dispose(&body);
	return rc;
}

/* ---- a file's blob: HEAD of its resolve URL ---- */

struct head {
	char commit[64], linked_etag[128], etag[128], linked_size[32], location[2048];
};

static size_t on_head(char *b, size_t size, size_t n, void *arg)
{
	struct head *r = arg;
	size_t len = size * n;
	static const struct {
		const char *name;
		size_t off, cap;
	} fields[] = {
		{ "X-Repo-Commit:", offsetof(struct head, commit), sizeof(((struct head *)0)->commit) },
		{ "X-Linked-Etag:", offsetof(struct head, linked_etag), sizeof(((struct head *)0)->linked_etag) },
		{ "ETag:", offsetof(struct head, etag), sizeof(((struct head *)0)->etag) },
		{ "X-Linked-Size:", offsetof(struct head, linked_size), sizeof(((struct head *)0)->linked_size) },
		{ "Location:", offsetof(struct head, location), sizeof(((struct head *)0)->location) },
	};

	if (len > 5 && strncmp(b, "HTTP/", 5) == 0)
		memset(r, 0, sizeof(*r));
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		size_t fl = strlen(fields[k].name);

		if (len > fl && strncasecmp(b, fields[k].name, fl) == 0)
			jp_stage_header_value((char *)r + fields[k].off, fields[k].cap, b + fl,
					      len - fl);
	}
	return len;
}

/* An ETag's value without W/ and quotes (huggingface_hub's _normalize_etag). */
static void normalize_etag(char *out, size_t n, const char *v)
{
	size_t len;

	if (strncmp(v, "W/", 2) == 0)
		v += 2;
	if (*v == '"')
		v++;
	len = strlen(v);
	if (len && v[len - 1] == '"')
		len--;
	snprintf(out, n, "%.*s", (int)len, v);
}

static int head_once(struct hf *h, const char *url, struct head *r, long *status,
		     curl_off_t *len, struct jp_error *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *c = curl_easy_init();
	CURLcode cc;

	if (!c)
		return jp_error_oom(err);
	jp_stage_http_setup(c, url, errbuf, h->token);
	curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 0L);
	/* the Hub's own answer says the blob; the CDN's would not */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_head);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	cc = curl_easy_perform(c);
	jp_stage_curl_explain(cc, errbuf);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, len);
	curl_easy_cleanup(c);
	if (cc != CURLE_OK)
		return jp_error_set(err, cc == CURLE_OPERATION_TIMEDOUT ? JP_ETIMEOUT : JP_ENET,
				    _("%s: cannot reach %s: %s"), h->source, h->endpoint,
				    errbuf[0] ? errbuf : curl_easy_strerror(cc));
	return 0;
}

static int head_file(struct hf *h, size_t i, struct hf_worker *w)
{
	struct hf_file *f = &h->f[i];
	struct head r;
	char *url = resolve_url(h, f->name), *next = NULL;
	curl_off_t len = -1;
	long status = 0;
	int rc = 0;

	if (f->have || f->listed)
		goto out;
	if (!url) {
		rc = jp_error_oom(&w->err);
		goto out;
	}
	/* a relative redirect is the Hub's own (a renamed repository) */
	for (int hops = 0; (rc = head_once(h, url, &r, &status, &len, &w->err)) == 0; hops++) {
		if (status < 300 || status >= 400 || r.location[0] != '/' || hops >= 5)
			break;
		if (asprintf(&next, "%s%s", h->endpoint, r.location) < 0) {
			next = NULL;
			rc = jp_error_oom(&w->err);
			goto out;
		}
		free(url);
		url = next;
		next = NULL;
	}
	if (rc != 0)
		goto out;
	if (status >= 400 || status < 200) {
		rc = http_status_error(h, status, f->name, &w->err);
		goto out;
	}
	normalize_etag(f->etag, sizeof(f->etag), r.linked_etag[0] ? r.linked_etag : r.etag);
	if (!jp_hf_etag_ok(f->etag)) {
		rc = jp_error_set(&w->err, JP_EFORMAT,
				  _("%s: %s: the Hub gave no blob id jobprep can check (ETag \"%s\")"),
				  h->source, f->name, r.linked_etag[0] ? r.linked_etag : r.etag);
		goto out;
	}
	f->sized = r.linked_size[0] || (status == 200 && len >= 0);
	if (r.linked_size[0])
		f->size = strtoull(r.linked_size, NULL, 10);
	else if (status == 200 && len >= 0)
		f->size = (uint64_t)len;
out:
	free(url);
	free(next);
	atomic_fetch_add(&h->files_done, 1);
	return rc;
}

/* ---- a blob: downloaded and checked ---- */

/* git's blob id of the file: SHA-1 of "blob SIZE\0" and its bytes. */
static int git_blob_id(const char *path, char hex[41])
{
	struct stat st;
	char head[32];
	int hl;

	if (stat(path, &st) != 0)
		return -1;
	hl = snprintf(head, sizeof(head), "blob %lld", (long long)st.st_size);
	return jp_stage_digest_file(hex, path, EVP_sha1(), head, (size_t)hl + 1);
}

static void count(struct hf *h, bool skipped, uint64_t bytes)
{
	pthread_mutex_lock(&h->lock);
	if (skipped) {
		h->skipped++;
		h->bytes_skipped += bytes;
	} else {
		h->written++;
		h->bytes_written += bytes;
	}
	pthread_mutex_unlock(&h->lock);
}

static int fetch_blob(struct hf *h, size_t i, struct hf_worker *w)
{
	struct hf_file *f = &h->f[i];
	struct jp_stage_options o = JP_STAGE_OPTIONS_INIT;
	struct jp_stage_result res = JP_STAGE_RESULT_INIT;
	char blob[PATH_MAX], id[41] = "";
	char *url = NULL;
	struct stat st = { .st_size = 0 };
	int rc = 0;

	atomic_store(&h->cur[w->i], 0);
	if (f->have || !f->lead)
		goto done;
	if (jp_hf_blob_path(blob, sizeof(blob), h->repo_dir, f->etag) != 0) {
		rc = jp_error_set(&w->err, JP_EUSAGE, _("%s: path too long"), h->repo_dir);
		goto done;
	}
	/* blobs appear whole and checked: one there is complete */
	if (lstat(blob, &st) == 0 && S_ISREG(st.st_mode) && (!f->sized || (uint64_t)st.st_size == f->size)) {
		count(h, true, (uint64_t)st.st_size);
		goto done;
	}
	if (!(url = resolve_url(h, f->name))) {
		rc = jp_error_oom(&w->err);
		goto done;
	}
	o.no_unpack = true;
	o.bearer = h->token;
	o.sha256 = strlen(f->etag) == 64 ? f->etag : NULL;
	o.expect_known = f->sized;
	o.expect_size = f->size;
	rc = jp_stage_http(&res, url, blob, &o, &w->port, &w->err);
	if (rc == 0 && strlen(f->etag) == 40 && (git_blob_id(blob, id) != 0 || strcmp(id, f->etag))) {
		unlink(blob);
		rc = jp_error_set(&w->err, JP_ECHECK,
				  _("%s: %s: its git blob id is %s, expected %s: the download was "
				    "removed"),
				  h->source, f->name, id[0] ? id : "?", f->etag);
	}
	if (rc == 0 && f->sized && (stat(blob, &st) != 0 || (uint64_t)st.st_size != f->size)) {
		unlink(blob);
		rc = jp_error_set(&w->err, JP_ECHECK,
				  _("%s: %s: %llu bytes received, the Hub said %llu: the download "
				    "was removed"),
				  h->source, f->name, (unsigned long long)st.st_size,
				  (unsigned long long)f->size);
	}
	if (rc == 0)
		count(h, false, res.bytes_written);
	jp_stage_result_dispose(&res);
done:
	if (rc == 0 && !f->have && f->lead)
		atomic_fetch_add(&h->done_bytes, f->size);
	atomic_store(&h->cur[w->i], 0);
	atomic_fetch_add(&h->files_done, 1);
	free(url);
	return rc;
}

/* ---- several files at once, progress and cancel from this thread ---- */

static int w_progress(const struct jp_progress *p, void *payload)
{
	struct hf_worker *w = payload;

	atomic_store(&w->h->cur[w->i], p->bytes);
	return atomic_load(&w->h->stop) ? -1 : 0;
}

static int w_cancelled(void *payload)
{
	const struct hf_worker *w = payload;

	return atomic_load(&w->h->stop);
}

static void *w_run(void *arg)
{
	struct hf_worker *w = arg;
	struct hf *h = w->h;
	size_t i;

	while (!atomic_load(&h->stop) && (i = atomic_fetch_add(&h->next, 1)) < w->n) {
		int rc = w->fn(h, i, w);

		if (rc == 0)
			continue;
		pthread_mutex_lock(&h->lock);
		if (!h->rc) {
			h->rc = rc;
			h->failed = (int)w->i;
		}
		pthread_mutex_unlock(&h->lock);
		atomic_store(&h->stop, true);
	}
	atomic_fetch_add(&h->finished, 1);
	return NULL;
}

static bool tell(struct hf *h, const struct jp_port *port, uint64_t t0, bool bytes)
{
	struct jp_progress p = { bytes ? JP_PHASE_DOWNLOAD : JP_PHASE_CONNECT,
				 atomic_load(&h->files_done), h->n, 0, 0, 0, h->source };
	double secs = (double)(jp_now_ns() - t0) / 1e9;

	if (port && port->cancelled && port->cancelled(port->payload))
		return false;
	if (!port || !port->progress)
		return true;
	p.bytes = atomic_load(&h->done_bytes);
	for (unsigned k = 0; bytes && k < HF_WORKERS_MAX; k++)
		p.bytes += atomic_load(&h->cur[k]);
	p.rate = bytes && secs > 0.2 ? (double)p.bytes / secs : 0;
	return port->progress(&p, port->payload) >= 0;
}

static int pool(struct hf *h, int (*fn)(struct hf *, size_t, struct hf_worker *), bool bytes,
		const struct jp_port *port, struct jp_error *err)
{
	struct hf_worker w[HF_WORKERS_MAX];
	unsigned started = 0, want = h->n < h->workers ? (unsigned)h->n : h->workers;
	uint64_t t0 = jp_now_ns();
	bool canceled = false;
	int rc;

	atomic_store(&h->next, 0);
	atomic_store(&h->finished, 0);
	atomic_store(&h->files_done, 0);
	h->rc = 0;
	h->failed = -1;
	for (; started < want; started++) {
		w[started] = (struct hf_worker){ .h = h, .i = started, .fn = fn, .n = h->n };
		w[started].port.progress = w_progress;
		w[started].port.cancelled = w_cancelled;
		w[started].port.payload = &w[started];
		if (pthread_create(&w[started].tid, NULL, w_run, &w[started]) != 0)
			break;
	}
	while (atomic_load(&h->finished) < started) {
		struct timespec nap = { 0, 50000000L };

		nanosleep(&nap, NULL);
		if (!canceled && !tell(h, port, t0, bytes)) {
			canceled = true;
			atomic_store(&h->stop, true);
		}
	}
	for (unsigned k = 0; k < started; k++)
		pthread_join(w[k].tid, NULL);
	if (canceled)
		rc = jp_error_set(err, JP_ECANCELED, _("%s: download canceled"), h->source);
	else if (h->rc && h->failed >= 0) {
		rc = h->rc;
		for (size_t k = 0; k < w[h->failed].err.n; k++)
			jp_error_set(err, rc, "%s", w[h->failed].err.msgs[k]);
	} else if (started < want)
		rc = jp_error_set(err, JP_EINTERNAL, "%s", _("cannot start a thread"));
	else
		rc = 0;
	for (unsigned k = 0; k < started; k++)
		jp_error_dispose(&w[k].err);
	return rc;
}

/* ---- the whole ---- */

/* The files to fetch, by blob, in listing order within one blob. */
static int by_blob(const void *a, const void *b, void *arg)
{
	const struct hf_file *f = arg;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;
	int c = strcmp(f[i].etag, f[k].etag);

	return c ? c : (i > k) - (i < k);
}

/* Which file fetches each blob (two names may hold the same bytes): the
 * first listed of those still to fetch. Sorted, not each against every
 * other: a repository of 150,000 files takes a moment, not minutes. */
static int leads(struct hf *h, struct jp_error *err)
{
	size_t *ix = malloc((h->n ? h->n : 1) * sizeof(*ix)), m = 0;

	if (!ix)
		return jp_error_oom(err);
	for (size_t i = 0; i < h->n; i++) {
		h->f[i].lead = false;
		if (!h->f[i].have)
			ix[m++] = i;
	}
	qsort_r(ix, m, sizeof(*ix), by_blob, h->f);
	for (size_t j = 0; j < m; j++)
		h->f[ix[j]].lead = j == 0 || strcmp(h->f[ix[j - 1]].etag, h->f[ix[j]].etag) != 0;
	free(ix);
	return 0;
}

static int layout(struct hf *h, const char *dest, char **hf_home, struct jp_error *err)
{
	char *abs = jp_path_absolute(dest), *norm = abs ? jp_path_normalize(abs) : NULL;
	char blobs[PATH_MAX + 8];
	const char *slash = strchr(h->id, '/');
	int rc;

	free(abs);
	if (!norm)
		return jp_error_oom(err);
	/* repo_folder_name: "models--ORG--NAME" */
	if (snprintf(h->repo_dir, sizeof(h->repo_dir), "%s/hub/%s--%.*s%s%s",
		     strcmp(norm, "/") ? norm : "", h->dataset ? "datasets" : "models",
		     slash ? (int)(slash - h->id) : (int)strlen(h->id), h->id, slash ? "--" : "",
		     slash ? slash + 1 : "") >= (int)sizeof(h->repo_dir) - 128) {
		free(norm);
		return jp_error_set(err, JP_EUSAGE, _("%s: path too long"), dest);
	}
	*hf_home = norm;
	snprintf(blobs, sizeof(blobs), "%s/blobs", h->repo_dir);
	if ((rc = jp_hf_mkdirs(blobs, err)) != 0)
		return rc;
	snprintf(blobs, sizeof(blobs), "%s/refs", h->repo_dir);
	return jp_hf_mkdirs(blobs, err);
}

static int link_all(struct hf *h, struct jp_error *err)
{
	char snap[PATH_MAX + 64];
	int rc;

	/* there even for a repository with no file: an offline load lists it */
	snprintf(snap, sizeof(snap), "%s/snapshots/%s", h->repo_dir, h->commit);
	if ((rc = jp_hf_mkdirs(snap, err)) != 0)
		return rc;

	for (size_t i = 0; i < h->n && rc == 0; i++) {
		if (h->f[i].have) {
			count(h, true, 0);
			continue;
		}
		rc = jp_hf_link(h->repo_dir, h->commit, h->f[i].name, h->f[i].etag, err);
		if (rc == 0 && !h->f[i].lead)
			count(h, false, 0);
	}
	return rc;
}

int jp_stage_hf(struct jp_stage_result *out, const char *source, const char *dest,
		const struct jp_stage_options *opts, const struct jp_port *port,
		struct jp_error *err)
{
	struct hf *h = calloc(1, sizeof(*h));
	char *hf_home = NULL;
	int rc;

	if (!h)
		return jp_error_oom(err);
	h->source = source;
	h->opts = opts;
	/* --jobs N: N files at once, at most HF_WORKERS_MAX */
	h->workers = !opts || !opts->jobs ? HF_WORKERS
		     : opts->jobs > HF_WORKERS_MAX ? HF_WORKERS_MAX : opts->jobs;
	pthread_mutex_init(&h->lock, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if ((rc = parse(h, source, err)) != 0 || (rc = endpoint(h, err)) != 0 ||
	    (rc = layout(h, dest, &hf_home, err)) != 0 || (rc = revision(h, err)) != 0)
		goto out;
	for (size_t i = 0; i < h->n; i++)
		h->f[i].have = jp_hf_linked(h->repo_dir, h->commit, h->f[i].name);
	if ((rc = pool(h, head_file, false, port, err)) != 0)
		goto out;
	if ((rc = leads(h, err)) != 0 || (rc = pool(h, fetch_blob, true, port, err)) != 0 || (rc = link_all(h, err)) != 0 ||
	    (rc = jp_hf_write_ref(h->repo_dir, h->revision, h->commit, err)) != 0)
		goto out;
	out->kind = JP_STAGE_HUB;
	out->files = h->n;
	out->written = h->written;
	out->bytes_written = h->bytes_written;
	out->skipped = h->skipped;
	out->bytes_skipped = h->bytes_skipped;
	out->dest = hf_home;
	hf_home = NULL;
	if (!(out->revision = strdup(h->commit)))
		rc = jp_error_oom(err);
out:
	for (size_t i = 0; i < h->n; i++)
		free(h->f[i].name);
	free(h->f);
	pthread_mutex_destroy(&h->lock);
	free(hf_home);
	free(h);
	return rc;
}
