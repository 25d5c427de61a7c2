/* A large download over several connections: a HEAD says the size, that
 * the server takes ranges and the file's validator (a strong ETag, else
 * Last-Modified); the file is cut in SEGS ranges fetched at once (curl's
 * multi interface, one thread), each written in place with pwrite. Every
 * second the part is flushed and then the progress of each range saved
 * beside it (part.ranges, with the validator), so a killed run goes on
 * from there; each request carries If-Range, so a file changed on the
 * server comes back whole (200) and the download starts again from zero.
 *
 * A range is done only when every byte of it arrived: each answer must be
 * a 206 whose Content-Range starts where it was asked and says the size
 * the HEAD gave; an answer that ends early (a server that caps its ranges,
 * a proxy dying without a Content-Length) is asked again for the rest, as
 * long as each answer brings something. A complete download keeps its
 * record (every range at its end) until its file is in place or unpacked,
 * so a run killed after it fetches nothing again. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "jobprep/i18n.h"
#include "jobprep/meter.h"
#include "stage_internal.h"
#include "stage_resume.h"
#include "deadline_internal.h"
#include "meter_internal.h"

#define SEGS 4
#define MIN_SIZE JP_STAGE_RANGES_MIN
#define SAVE_NS 1000000000ULL
#define PROGRESS_NS 100000000ULL

struct seg {
	uint64_t start, end, pos; /* [start, end); pos: received up to */
	CURL *h;
	struct curl_slist *hdrs;
	struct rg *g;
	bool checked;
	uint64_t asked;     /* pos when the request was made */
	char range[64], crange[128];
};

struct rg {
	const char *url, *part, *shown, *dest, *token; /* dest: what messages name */
	char state[PATH_MAX + 16];
	char validator[JP_STAGE_VALIDATOR_MAX], errbuf[CURL_ERROR_SIZE];
	uint64_t size, written, unflushed;
	long filetime;
	int fd, io_errno;
	bool changed;
	struct seg seg[SEGS];
	const struct jp_port *port;
};

static size_t on_head(char *b, size_t size, size_t n, void *arg)
{
	struct jp_stage_head *h = arg;
	size_t len = size * n;
	char etag[JP_STAGE_VALIDATOR_MAX], lastmod[128];

	if (len > 5 && strncmp(b, "HTTP/", 5) == 0) {
		h->ranges = false;
		h->validator[0] = '\0';
	} else if (len > 14 && strncasecmp(b, "Accept-Ranges:", 14) == 0) {
		char v[64];

		jp_stage_header_value(v, sizeof(v), b + 14, len - 14);
		h->ranges = strcasecmp(v, "bytes") == 0;
	} else if (len > 5 && strncasecmp(b, "ETag:", 5) == 0) {
		jp_stage_header_value(etag, sizeof(etag), b + 5, len - 5);
		/* a weak ETag cannot validate a range (RFC 9110 13.1.5) */
		if (strncmp(etag, "W/", 2) != 0)
			snprintf(h->validator, sizeof(h->validator), "%s", etag);
	} else if (len > 14 && strncasecmp(b, "Last-Modified:", 14) == 0 && !h->validator[0]) {
		jp_stage_header_value(lastmod, sizeof(lastmod), b + 14, len - 14);
		snprintf(h->validator, sizeof(h->validator), "%s", lastmod);
	}
	return len;
}

int jp_stage_http_head(struct jp_stage_head *out, const char *url, const char *token)
{
	CURL *h = curl_easy_init();
	char errbuf[CURL_ERROR_SIZE] = "";
	curl_off_t len = -1;
	long code = 0;
	CURLcode cc;

	memset(out, 0, sizeof(*out));
	out->filetime = -1;
	if (!h)
		return -1;
	jp_stage_http_setup(h, url, errbuf, token);
	curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_head);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, out);
	cc = curl_easy_perform(h);
	if (cc == CURLE_OK) {
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
		curl_easy_getinfo(h, CURLINFO_FILETIME, &out->filetime);
	}
	curl_easy_cleanup(h);
	if (cc == CURLE_OPERATION_TIMEDOUT)
		return -2;
	if (cc != CURLE_OK || code != 200 || len < 0) {
		out->ranges = false;
		out->validator[0] = '\0';
		out->filetime = -1;
		return -1;
	}
	out->size = (uint64_t)len;
	out->known = true;
	return 0;
}

/* The ranges a killed run saved, if they are of this very file. */
static bool load(struct rg *g)
{
	FILE *f = fopen(g->state, "re");
	char line[700], v[600];
	uint64_t size = 0;
	unsigned n = 0;
	bool ok = false;
	struct stat st;

	/* the part it speaks of: there, and of the file's size */
	if (!f)
		return false;
	if (stat(g->part, &st) != 0 || (uint64_t)st.st_size != g->size) {
		fclose(f);
		return false;
	}
	if (fgets(line, sizeof(line), f) && strcmp(line, "jobprep-ranges 1\n") == 0 &&
	    fgets(v, sizeof(v), f) && strncmp(v, "validator ", 10) == 0 &&
	    fscanf(f, "size %" SCNu64 "\n", &size) == 1) {
		v[strcspn(v, "\n")] = '\0';
		ok = strcmp(v + 10, g->validator) == 0 && size == g->size;
		for (; ok && n < SEGS; n++) {
			struct seg *s = &g->seg[n];

			if (fscanf(f, "seg %" SCNu64 " %" SCNu64 " %" SCNu64 "\n", &s->start, &s->end,
				   &s->pos) != 3 ||
			    s->start > s->pos || s->pos > s->end || s->end > size)
				ok = false;
		}
	}
	fclose(f);
	return ok;
}

/* Flush what was received, then say so (never the other way round). */
static int save(struct rg *g)
{
	char tmp[PATH_MAX + 24];
	FILE *f;

	if (fdatasync(g->fd) != 0)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.new", g->state);
	if (!(f = fopen(tmp, "we")))
		return -1;
	fprintf(f, "jobprep-ranges 1\nvalidator %s\nsize %" PRIu64 "\n", g->validator, g->size);
	for (unsigned i = 0; i < SEGS; i++)
		fprintf(f, "seg %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", g->seg[i].start,
			g->seg[i].end, g->seg[i].pos);
	if (fflush(f) != 0 || ferror(f)) {
		fclose(f);
		unlink(tmp);
		return -1;
	}
	fclose(f);
	return rename(tmp, g->state);
}

static size_t on_seg_header(char *b, size_t size, size_t n, void *arg)
{
	struct seg *s = arg;
	size_t len = size * n;

	if (len > 5 && strncmp(b, "HTTP/", 5) == 0)
		s->crange[0] = '\0';
	else if (len > 14 && strncasecmp(b, "Content-Range:", 14) == 0)
		jp_stage_header_value(s->crange, sizeof(s->crange), b + 14, len - 14);
	return len;
}

/* The first body byte of a range's answer: a 206 of the bytes asked for,
 * of the file the HEAD described? Else the file changed, or a range was
 * ignored: from zero, on one connection. */
static bool answer_ok(struct seg *s)
{
	uint64_t first = 0, last = 0, length = 0;
	long code = 0;

	curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &code);
	return code == 206 && jp_stage_content_range(s->crange, &first, &last, &length) &&
	       first == s->pos && last < s->end && length == s->g->size;
}

static size_t on_body(char *b, size_t size, size_t n, void *arg)
{
	struct seg *s = arg;
	struct rg *g = s->g;
	size_t len = size * n, w = 0;

	if (!s->checked) {
		s->checked = true;
		if (!answer_ok(s)) {
			g->changed = true;
			return 0;
		}
	}
	if (s->pos + len > s->end) {
		g->io_errno = EPROTO; /* more than asked for */
		return 0;
	}
	while (w < len) {
		ssize_t k = pwrite(g->fd, b + w, len - w, (off_t)(s->pos + w));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			g->io_errno = k < 0 ? errno : EIO;
			return 0;
		}
		w += (size_t)k;
	}
	s->pos += len;
	g->written += len;
	jp_stage_writeback(g->fd, &g->unflushed, len);
	return len;
}

static int add(struct rg *g, CURLM *m, struct seg *s)
{
	char ifr[600];

	s->g = g;
	s->checked = false;
	s->asked = s->pos;
	s->crange[0] = '\0';
	if (s->pos >= s->end)
		return 0;
	if (!(s->h = curl_easy_init()))
		return -1;
	jp_stage_http_setup(s->h, g->url, g->errbuf, g->token);
	snprintf(s->range, sizeof(s->range), "%" PRIu64 "-%" PRIu64, s->pos, s->end - 1);
	snprintf(ifr, sizeof(ifr), "If-Range: %s", g->validator);
	s->hdrs = curl_slist_append(NULL, ifr);
	curl_easy_setopt(s->h, CURLOPT_RANGE, s->range);
	curl_easy_setopt(s->h, CURLOPT_HTTPHEADER, s->hdrs);
	curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(s->h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->h, CURLOPT_HEADERFUNCTION, on_seg_header);
	curl_easy_setopt(s->h, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(s->h, CURLOPT_PRIVATE, s);
	return curl_multi_add_handle(m, s->h) == CURLM_OK ? 0 : -1;
}

static bool tick(struct rg *g, struct jp_meter *meter, uint64_t *t_last)
{
	uint64_t now = jp_now_ns(), have = 0;
	struct jp_progress p = { JP_PHASE_DOWNLOAD, 0, 0, 0, 0, 0, g->shown };

	if (g->port && g->port->cancelled && g->port->cancelled(g->port->payload))
		return true;
	if (!g->port || !g->port->progress || now - *t_last < PROGRESS_NS)
		return false;
	*t_last = now;
	for (unsigned i = 0; i < SEGS; i++)
		have += g->seg[i].pos - g->seg[i].start;
	p.bytes = have;
	p.bytes_total = g->size;
	p.rate = jp_meter_rate(meter, now, have);
	return g->port->progress(&p, g->port->payload) < 0;
}

/* A range's request has ended (cc): done, asked again for the rest when
 * its answer ended early having brought something (0), or failed (-1,
 * errbuf). */
static int range_done(struct rg *g, CURLM *m, struct seg *s, CURLcode cc)
{
	curl_multi_remove_handle(m, s->h);
	curl_easy_cleanup(s->h);
	s->h = NULL;
	curl_slist_free_all(s->hdrs);
	s->hdrs = NULL;
	if (s->pos >= s->end && cc == CURLE_OK)
		return 0;
	if (g->changed || g->io_errno)
		return -1;
	if (s->pos < s->end && s->pos > s->asked && jp_stage_cut_short(cc))
		return add(g, m, s); /* the rest of it */
	if (cc == CURLE_OPERATION_TIMEDOUT)
		jp_stage_curl_explain(cc, g->errbuf);
	else if (!g->errbuf[0] && cc != CURLE_OK)
		snprintf(g->errbuf, sizeof(g->errbuf), "%s", curl_easy_strerror(cc));
	else if (!g->errbuf[0])
		snprintf(g->errbuf, sizeof(g->errbuf),
			 _("the server sent %" PRIu64 " of the %" PRIu64 " bytes of a range"),
			 s->pos - s->start, s->end - s->start);
	return -1;
}

/* Run every range to its end: 0, 1 canceled, -1 failed (errbuf). */
static int run(struct rg *g, CURLM *m)
{
	uint64_t t_last = 0, t_save = jp_now_ns();
	struct jp_meter meter = JP_METER_INIT;
	int running = 1, rc = 0;
	CURLMsg *msg;
	int left;

	while (running && rc == 0) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			rc = -1;
		while ((msg = curl_multi_info_read(m, &left)) != NULL) {
			struct seg *s = NULL;

			if (msg->msg != CURLMSG_DONE || rc != 0)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
			rc = range_done(g, m, s, msg->data.result);
			if (rc == 0 && s->h)
				running = 1; /* asked again: go on */
		}
		if (g->changed || g->io_errno)
			rc = -1;
		if (rc == 0 && tick(g, &meter, &t_last))
			rc = 1;
		if (rc == 0 && jp_now_ns() - t_save > SAVE_NS) {
			t_save = jp_now_ns();
			if (save(g) != 0) {
				g->io_errno = errno;
				rc = -1;
			}
		}
		if (rc == 0 && running)
			curl_multi_poll(m, NULL, 0, 100, NULL);
	}
	return rc;
}

static void cleanup(CURLM *m, struct rg *g)
{
	for (unsigned i = 0; i < SEGS; i++) {
		if (g->seg[i].h) {
			curl_multi_remove_handle(m, g->seg[i].h);
			curl_easy_cleanup(g->seg[i].h);
		}
		curl_slist_free_all(g->seg[i].hdrs);
	}
	curl_multi_cleanup(m);
}

static void plan(struct rg *g)
{
	uint64_t per = g->size / SEGS;

	for (unsigned i = 0; i < SEGS; i++) {
		g->seg[i].start = g->seg[i].pos = per * i;
		g->seg[i].end = i + 1 == SEGS ? g->size : per * (i + 1);
	}
}

static int finish(struct rg *g, int rc, struct jp_error *err)
{
	if (rc == 1) {
		(void)save(g); /* what was received, for the next run */
		return jp_error_set(err, JP_ECANCELED, _("%s: download canceled"), g->shown);
	}
	if (g->changed) {
		/* changed on the server: from zero, on one connection */
		unlink(g->part);
		unlink(g->state);
		return 1;
	}
	for (unsigned i = 0; rc == 0 && i < SEGS; i++)
		if (g->seg[i].pos < g->seg[i].end) {
			snprintf(g->errbuf, sizeof(g->errbuf), "%s", _("a range was not received whole"));
			rc = -1;
		}
	if (rc != 0) {
		if (g->io_errno == ENOSPC || g->io_errno == EDQUOT) {
			/* a full disk is everyone's: what was written goes */
			unlink(g->state);
			unlink(g->part);
		} else {
			(void)save(g); /* what was received, for the next run */
		}
		if (g->io_errno)
			return jp_error_set(err, g->io_errno == ENOSPC || g->io_errno == EDQUOT ? JP_ENOSPC
												: JP_EIO,
					    _("%s: writing %s: %s"), g->shown, g->dest,
					    strerror(g->io_errno));
		return jp_error_set(err, JP_ENET, _("%s: download failed: %s"), g->shown, g->errbuf);
	}
	if (g->filetime > 0) {
		struct timespec ts[2] = { { g->filetime, 0 }, { g->filetime, 0 } };

		(void)futimens(g->fd, ts);
	}
	/* the record says complete (every range at its end) until the caller
	 * has put the file in place or unpacked it, and removes it */
	if (fsync(g->fd) != 0 || save(g) != 0)
		return jp_error_set(err, JP_EIO, "%s: %s", g->dest, strerror(errno));
	return 0;
}

int jp_stage_http_ranges(const char *url, const struct jp_stage_head *head, const char *part,
			 const char *shown, const char *dest, const char *token,
			 const struct jp_port *port, uint64_t *written, struct jp_error *err)
{
	struct rg *g = calloc(1, sizeof(*g));
	CURLM *m = NULL;
	int rc = 1;

	if (!g)
		return jp_error_oom(err);
	g->url = url;
	g->part = part;
	g->shown = shown;
	g->dest = dest;
	g->token = token;
	g->port = port;
	g->fd = -1;
	snprintf(g->state, sizeof(g->state), "%s.ranges", part);
	if (!head->known || !head->ranges || !head->validator[0] || head->size < MIN_SIZE) {
		/* ranges a run left for a file this is not any more */
		unlink(g->state);
		goto out;
	}
	g->size = head->size;
	g->filetime = head->filetime;
	snprintf(g->validator, sizeof(g->validator), "%s", head->validator);
	if (!load(g)) {
		unlink(part);
		plan(g);
	}
	g->fd = open(part, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (g->fd < 0 || ftruncate(g->fd, (off_t)g->size) != 0) {
		rc = jp_error_set(err, JP_EIO, _("%s: cannot create: %s"), dest, strerror(errno));
		goto out;
	}
	if (save(g) != 0 || !(m = curl_multi_init())) {
		rc = jp_error_set(err, JP_EIO, _("%s: cannot create: %s"), dest, strerror(errno));
		goto out;
	}
	rc = 0;
	for (unsigned i = 0; i < SEGS && rc == 0; i++)
		rc = add(g, m, &g->seg[i]);
	if (rc != 0)
		rc = jp_error_oom(err);
	else
		rc = finish(g, run(g, m), err);
	*written = g->written;
out:
	if (m)
		cleanup(m, g);
	if (g->fd >= 0)
		close(g->fd);
	free(g);
	return rc;
}
