/* jobprep stage URL DEST: download over http(s) with libcurl, resumably:
 * the body goes to a temporary beside its final place, and the remote's
 * validator (ETag, else Last-Modified) to a second one; the next run asks
 * for the rest (Range) only if the remote is still the same (If-Range),
 * and starts from zero when the server sends the whole of a changed file.
 * Then it is checked (--sha256) and renamed, or unpacked if an archive. A
 * file there already that the server says is unchanged (a HEAD's size,
 * Last-Modified and ETag; without HEAD, a 304 to If-Modified-Since and
 * If-None-Match) is not downloaded again, as with wget -N.
 *
 * A file is complete only when every byte the server announced arrived
 * (Content-Length of a 200, the length in a 206's Content-Range, the
 * HEAD's or the caller's size): an answer that ends early is asked again
 * for the rest (Range, If-Range) as long as each brings something, and is
 * never renamed into place. The record beside the part (its validator and
 * the size announced) is flushed before the body is written, so a run
 * killed in any way goes on from there; a complete download keeps it until
 * its file is in place or its archive unpacked, and the next run, the
 * validator and size unchanged, fetches nothing again. An archive unpacked
 * whole keeps what it was unpacked from on DEST (an extended attribute):
 * a re-run the server says is unchanged costs one HEAD. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "jobprep/i18n.h"
#include "jobprep/meter.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/stage.h"
#include "jobprep/units.h"
#include "treecopy.h"
#include "jobprep/url.h"
#include "stage_internal.h"
#include "stage_resume.h"
#include "deadline_internal.h"
#include "meter_internal.h"
#include "url_internal.h"

#define PROGRESS_NS 100000000ULL
/* A part without a validator (a server that sends neither ETag nor
 * Last-Modified) goes on only when the server's answer repeats its last
 * bytes: this many (and the size it announces is the one recorded). */
#define OVERLAP 65536
/* kept free of a download: 1% of the filesystem, at most this */
#define JP_STAGE_ROOM_RESERVE (1ull << 30)

bool jp_stage_is_url(const char *s)
{
	return jp_url_fetch_kind(s, NULL) == JP_FETCH_HTTP;
}

struct dl {
	const char *url;   /* for messages: redacted */
	const char *dest;  /* for messages: the file it becomes, not the part */
	const char *token; /* jp_stage_http_setup's */
	char part[PATH_MAX], validator_path[PATH_MAX];
	int fd;
	off_t have;        /* bytes on disk when this attempt began */
	long status;       /* of the response being received */
	bool decided;      /* the first body byte of the last response seen */
	char etag[512], lastmod[128], crange[128];
	char asked[520];   /* the validator sent in If-Range, "" none */
	uint64_t total;    /* the size the server announced (record, answer), 0 unknown */
	uint64_t expect;   /* the HEAD's or the caller's size (expect_known) */
	bool expect_known;
	const struct jp_stage_head *head; /* NULL: none was made */
	/* a part from a server that sent no validator: asked again from
	 * OVERLAP bytes before its end, and those compared, not written */
	size_t overlap, cmp_left;
	char tail[OVERLAP];
	time_t ims;        /* the whole file, If-Modified-Since this; 0 none */
	char inm[JP_STAGE_VALIDATOR_MAX]; /* and If-None-Match this, "" none */
	bool again;        /* not the range asked for: drop the part, ask again */
	uint64_t written, t_last, unflushed;
	uint64_t got_before; /* written when this request began */
	uint64_t most;       /* the most the part has held in this run */
	struct jp_meter meter;
	const struct jp_port *port;
	bool canceled;
	int io_errno;
	CURL *curl;
};

static size_t on_header(char *b, size_t size, size_t n, void *arg)
{
	struct dl *d = arg;
	size_t len = size * n;

	if (len > 5 && strncmp(b, "HTTP/", 5) == 0) {
		/* a new response (after a redirect, or a 100): forget the last */
		d->etag[0] = d->lastmod[0] = d->crange[0] = '\0';
		d->decided = false;
	} else if (len > 14 && strncasecmp(b, "Content-Range:", 14) == 0) {
		jp_stage_header_value(d->crange, sizeof(d->crange), b + 14, len - 14);
	} else if (len > 5 && strncasecmp(b, "ETag:", 5) == 0) {
		jp_stage_header_value(d->etag, sizeof(d->etag), b + 5, len - 5);
	} else if (len > 14 && strncasecmp(b, "Last-Modified:", 14) == 0) {
		jp_stage_header_value(d->lastmod, sizeof(d->lastmod), b + 14, len - 14);
	}
	return len;
}

/* The record beside the part: the validator the part's bytes are of, and
 * the size the server announced (0 unknown), flushed before a byte of the
 * body is written, so that a kill at any moment leaves what the next run
 * needs. 0 or -1 (errno). */
static int write_record(const char *path, const char *validator, uint64_t total)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fprintf(f, "%s\n", validator);
	if (total)
		fprintf(f, "size %llu\n", (unsigned long long)total);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* The validator a killed run kept ("" none) and the size it was told
 * (*total, 0 unknown). */
static void read_record(const char *path, char *out, size_t n, uint64_t *total)
{
	FILE *f = fopen(path, "re");
	unsigned long long t = 0;
	char line[64];

	out[0] = '\0';
	*total = 0;
	if (!f)
		return;
	if (!fgets(out, (int)n, f))
		out[0] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	if (fgets(line, sizeof(line), f) && sscanf(line, "size %llu", &t) == 1)
		*total = t;
	fclose(f);
}

/* A 206 of the rest asked for: appended at offset, the total it says
 * checked against the one recorded (another size: another file). */
static int appended(struct dl *d, uint64_t offset)
{
	uint64_t first, last, length;

	if (jp_stage_content_range(d->crange, &first, &last, &length) && length != UINT64_MAX) {
		if (d->total && length != d->total) {
			d->again = true;
			d->status = 0;
			return 0;
		}
		d->total = length;
	}
	return lseek(d->fd, (off_t)offset, SEEK_SET) < 0 ? -1 : 0;
}

/* The first body byte of the final response: append (206 for the range
 * asked, of the file kept), start from zero (200: the whole file, changed
 * or never ranged) keeping its validator for a later resume, or ask again
 * (stage_resume.c decides). */
/* A 206 to a request without a validator: the range asked for (from
 * OVERLAP before the part's end), of the size recorded; its first OVERLAP
 * bytes are then compared with the part's last ones. Else asked again. */
static int overlapped(struct dl *d)
{
	uint64_t first, last, length;

	if (!jp_stage_content_range(d->crange, &first, &last, &length) ||
	    first != (uint64_t)d->have - d->overlap || length != d->total) {
		d->again = true;
		d->status = 0;
		return 0;
	}
	d->cmp_left = d->overlap;
	return lseek(d->fd, d->have, SEEK_SET) < 0 ? -1 : 0;
}

static int decide(struct dl *d)
{
	struct jp_resume_ask ask = { (uint64_t)d->have, d->asked };
	struct jp_resume_answer ans = { 0, d->etag, d->lastmod, d->crange };
	struct jp_resume_plan plan;

	curl_easy_getinfo(d->curl, CURLINFO_RESPONSE_CODE, &d->status);
	ans.status = d->status;
	d->decided = true;
	if (d->overlap && d->status == 206)
		return overlapped(d);
	jp_stage_resume_decide(&ask, &ans, &plan);
	switch (plan.action) {
	case JP_RESUME_APPEND:
		return appended(d, plan.offset);
	case JP_RESUME_SKIP:
		return 0; /* an error page: not written */
	case JP_RESUME_AGAIN:
		d->again = true;
		d->status = 0; /* its body is not written */
		return 0;
	case JP_RESUME_RESTART:
		break;
	}
	if (ftruncate(d->fd, 0) != 0 || lseek(d->fd, 0, SEEK_SET) < 0)
		return -1;
	d->have = 0;
	unlink(d->validator_path);
	{
		curl_off_t len = -1;

		curl_easy_getinfo(d->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &len);
		d->total = len > 0 ? (uint64_t)len : 0;
	}
	/* no validator: the size alone, for a resume that checks an overlap */
	return plan.keep[0] || d->total ? write_record(d->validator_path, plan.keep, d->total) : 0;
}

static size_t on_body(char *b, size_t size, size_t n, void *arg)
{
	struct dl *d = arg;
	size_t len = size * n, w = 0;

	if (!d->decided && decide(d) != 0) {
		d->io_errno = errno;
		return 0;
	}
	if (d->again)
		return 0; /* stop: fetch asks again from zero */
	if (d->status != 200 && d->status != 206)
		return len;
	if (d->cmp_left) {
		/* the bytes the part ends with, again: the same file, or not */
		size_t k = len < d->cmp_left ? len : d->cmp_left;

		if (memcmp(b, d->tail + (d->overlap - d->cmp_left), k) != 0) {
			d->again = true;
			return 0;
		}
		d->cmp_left -= k;
		w = k;
	}
	while (w < len) {
		ssize_t k = write(d->fd, b + w, len - w);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			d->io_errno = k < 0 ? errno : EIO;
			return 0;
		}
		w += (size_t)k;
	}
	d->written += len;
	jp_stage_writeback(d->fd, &d->unflushed, len);
	return len;
}

/* A part with no validator but the size recorded, longer than OVERLAP
 * and short of that size (of the size the HEAD gives, when one did): its
 * last OVERLAP bytes read, to be compared with the answer's first. */
static bool can_overlap(struct dl *d, const struct stat *st)
{
	if (d->total == 0 || st->st_size <= OVERLAP || (uint64_t)st->st_size >= d->total ||
	    (d->head && d->head->known && d->head->size != d->total) ||
	    pread(d->fd, d->tail, OVERLAP, st->st_size - OVERLAP) != OVERLAP)
		return false;
	d->overlap = OVERLAP;
	return true;
}

static int on_xfer(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ut, curl_off_t un)
{
	struct dl *d = arg;
	uint64_t now = jp_now_ns();
	struct jp_progress p = { JP_PHASE_DOWNLOAD, 0, 0, (uint64_t)d->have + d->written, 0, 0, d->url };

	(void)ut;
	(void)un;
	(void)dlnow;
	if (d->port && d->port->cancelled && d->port->cancelled(d->port->payload))
		d->canceled = true;
	if (d->canceled)
		return 1;
	if (!d->port || !d->port->progress || now - d->t_last < PROGRESS_NS)
		return 0;
	d->t_last = now;
	/* dltotal: the body's length (of a range: the rest) */
	p.bytes_total = dltotal > 0 ? (uint64_t)d->have + (uint64_t)dltotal : 0;
	p.rate = jp_meter_rate(&d->meter, now, p.bytes);
	if (d->port->progress(&p, d->port->payload) < 0)
		d->canceled = true;
	return d->canceled ? 1 : 0;
}

int jp_stage_digest_file(char *hex, const char *path, const EVP_MD *md_type, const char *head,
			 size_t head_len)
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[1 << 16];
	unsigned int len = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	ssize_t r;

	if (!ctx || fd < 0 || EVP_DigestInit_ex(ctx, md_type, NULL) != 1 ||
	    (head_len && EVP_DigestUpdate(ctx, head, head_len) != 1))
		goto out;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		if (EVP_DigestUpdate(ctx, buf, (size_t)r) != 1)
			goto out;
	if (r < 0 || EVP_DigestFinal_ex(ctx, md, &len) != 1)
		goto out;
	for (unsigned i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	EVP_MD_CTX_free(ctx);
	return rc;
}

static int sha256_file(const char *path, char hex[65])
{
	return jp_stage_digest_file(hex, path, EVP_sha256(), NULL, 0);
}

/* The request's conditions: the rest of the part kept (Range, If-Range:
 * v, its validator), or, when no HEAD could tell, the whole file unless
 * the one there is still it (If-Modified-Since, If-None-Match). *hdrs is
 * the caller's to free. */
static void conditions(struct dl *d, const char *v, struct curl_slist **hdrs)
{
	char line[JP_STAGE_VALIDATOR_MAX + 32];

	if (d->have > 0 && d->overlap) {
		/* no validator to send: the overlap says whether it is the file */
		snprintf(line, sizeof(line), "%lld-", (long long)(d->have - (off_t)d->overlap));
		curl_easy_setopt(d->curl, CURLOPT_RANGE, line);
	} else if (d->have > 0) {
		/* CURLOPT_RANGE, not RESUME_FROM: libcurl fails a resume the
		 * server answers with 200, which is how If-Range says "changed" */
		snprintf(line, sizeof(line), "%lld-", (long long)d->have);
		curl_easy_setopt(d->curl, CURLOPT_RANGE, line);
		snprintf(line, sizeof(line), "If-Range: %s", v);
		*hdrs = curl_slist_append(*hdrs, line);
	} else if (d->ims > 0) {
		curl_easy_setopt(d->curl, CURLOPT_TIMECONDITION, (long)CURL_TIMECOND_IFMODSINCE);
		curl_easy_setopt(d->curl, CURLOPT_TIMEVALUE_LARGE, (curl_off_t)d->ims);
		if (d->inm[0]) {
			snprintf(line, sizeof(line), "If-None-Match: %s", d->inm);
			*hdrs = curl_slist_append(*hdrs, line);
		}
	}
	if (*hdrs)
		curl_easy_setopt(d->curl, CURLOPT_HTTPHEADER, *hdrs);
}

/* Is the part every byte the server announced (the answer's size, else
 * the HEAD's or the caller's)? 0 yes, or no size was announced (cc then
 * says); 3 it ended early and can go on (a validator kept, and this
 * answer brought something): ask for the rest; < 0 it cannot, err set. */
static int whole(struct dl *d, CURLcode cc, struct jp_error *err)
{
	uint64_t want = d->total ? d->total : d->expect_known ? d->expect : 0;
	struct stat st;
	char v[JP_STAGE_VALIDATOR_MAX];
	uint64_t t;

	if (fstat(d->fd, &st) != 0)
		return jp_error_set(err, JP_EIO, "%s: %s", d->dest, strerror(errno));
	if (!want && !(d->expect_known && d->expect == 0))
		return 0;
	if ((uint64_t)st.st_size > want) {
		unlink(d->validator_path);
		(void)ftruncate(d->fd, 0);
		return jp_error_set(err, JP_ENET,
				    _("%s: download failed: the server sent %llu bytes, more than the "
				      "%llu it announced"),
				    d->url, (unsigned long long)st.st_size, (unsigned long long)want);
	}
	if ((uint64_t)st.st_size == want)
		return 0;
	read_record(d->validator_path, v, sizeof(v), &t);
	(void)cc;
	/* on, as long as the next request can resume (a validator, or an
	 * overlap to check) and the part grows past all it held before (an
	 * answer cut the same way from zero each time ends here) */
	if ((v[0] || (t && st.st_size > OVERLAP)) && d->written > d->got_before &&
	    (uint64_t)st.st_size > d->most) {
		d->most = (uint64_t)st.st_size;
		return 3;
	}
	return jp_error_set(err, JP_ENET,
			    _("%s: download failed: the server sent %llu of the %llu bytes it "
			      "announced%s"),
			    d->url, (unsigned long long)st.st_size, (unsigned long long)want,
			    v[0] || (t && st.st_size > OVERLAP)
				    ? ""
				    : _(" (and no validator to resume with: the next run starts again)"));
}

/* What came of the request (cc): 0 the part complete and flushed; 1 ask
 * again for the whole file; 2 the file there is unchanged (304); < 0 a
 * JP_E* error, err set. */
static int outcome(struct dl *d, CURLcode cc, const char *errbuf, struct jp_error *err)
{
	long code = 0, unmet = 0;
	int rc;

	curl_easy_getinfo(d->curl, CURLINFO_RESPONSE_CODE, &code);
	if (cc == CURLE_OK && d->have == 0 && d->ims > 0) {
		curl_easy_getinfo(d->curl, CURLINFO_CONDITION_UNMET, &unmet);
		if (unmet || code == 304)
			return 2; /* not modified since, or still that ETag */
	}
	if (d->canceled)
		return jp_error_set(err, JP_ECANCELED, _("%s: download canceled"), d->url);
	if (d->again) {
		/* not the range asked for (another start, another file): the
		 * part is dropped, and the next try asks for the whole file */
		unlink(d->validator_path);
		if (ftruncate(d->fd, 0) != 0)
			return jp_error_set(err, JP_EIO, "%s: %s", d->dest, strerror(errno));
		return 1;
	}
	if (d->io_errno == ENOSPC || d->io_errno == EDQUOT) {
		/* a full disk is everyone's: what was written goes */
		unlink(d->validator_path);
		unlink(d->part);
	}
	if (d->io_errno)
		return jp_error_set(err, d->io_errno == ENOSPC || d->io_errno == EDQUOT ? JP_ENOSPC : JP_EIO,
				    _("%s: writing %s: %s"), d->url, d->dest, strerror(d->io_errno));
	if (cc == CURLE_HTTP_RETURNED_ERROR && d->have > 0 && code == 416) {
		/* the range is past the remote's end: start again */
		unlink(d->validator_path);
		return 1;
	}
	/* complete, or cut short (and then asked for the rest) */
	if ((d->status == 200 || d->status == 206) && jp_stage_cut_short(cc) &&
	    (rc = whole(d, cc, err)) != 0)
		return rc;
	if (cc != CURLE_OK)
		return jp_error_set(err, cc == CURLE_OPERATION_TIMEDOUT ? JP_ETIMEOUT : JP_ENET,
				    _("%s: download failed: %s"), d->url,
				    errbuf[0] ? errbuf : curl_easy_strerror(cc));
	if (fsync(d->fd) != 0)
		return jp_error_set(err, JP_EIO, "%s: %s", d->dest, strerror(errno));
	return 0;
}

static int fetch(struct dl *d, const char *url, struct jp_error *err)
{
	char errbuf[CURL_ERROR_SIZE] = "", v[520];
	struct curl_slist *hdrs = NULL;
	struct stat st;
	CURLcode cc;
	int rc;

	d->fd = open(d->part, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (d->fd < 0 || fstat(d->fd, &st) != 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot create: %s"), d->dest, strerror(errno));
	read_record(d->validator_path, v, sizeof(v), &d->total);
	if (d->total && (uint64_t)st.st_size > d->total)
		v[0] = '\0'; /* more than the file: not of it */
	d->overlap = d->cmp_left = 0;
	d->have = v[0] || can_overlap(d, &st) ? st.st_size : 0;
	if (d->have > 0 && (uint64_t)d->have == d->total && d->head && d->head->known &&
	    d->head->size == d->total && strcmp(d->head->validator, v) == 0) {
		/* complete already (a run killed after it), and still the file */
		close(d->fd);
		return 0;
	}
	snprintf(d->asked, sizeof(d->asked), "%s", d->have > 0 ? v : "");
	d->again = false;
	d->status = 0;
	d->got_before = d->written;
	if (!(d->curl = curl_easy_init())) {
		close(d->fd);
		return jp_error_oom(err);
	}
	jp_stage_http_setup(d->curl, url, errbuf, d->token);
	curl_easy_setopt(d->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(d->curl, CURLOPT_HEADERDATA, d);
	curl_easy_setopt(d->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(d->curl, CURLOPT_WRITEDATA, d);
	curl_easy_setopt(d->curl, CURLOPT_XFERINFOFUNCTION, on_xfer);
	curl_easy_setopt(d->curl, CURLOPT_XFERINFODATA, d);
	curl_easy_setopt(d->curl, CURLOPT_NOPROGRESS, 0L);
	conditions(d, v, &hdrs);
	cc = curl_easy_perform(d->curl);
	jp_stage_curl_explain(cc, errbuf);
	if (cc == CURLE_OK && !d->decided)
		decide(d); /* an empty body */
	rc = outcome(d, cc, errbuf, err);
	if (rc == 0) {
		long t = -1;

		curl_easy_getinfo(d->curl, CURLINFO_FILETIME, &t);
		if (t > 0) {
			struct timespec ts[2] = { { t, 0 }, { t, 0 } };

			(void)futimens(d->fd, ts);
		}
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(d->curl);
	d->curl = NULL;
	/* nothing received: nothing to resume, nothing left */
	if (rc != 0 && fstat(d->fd, &st) == 0 && st.st_size == 0) {
		unlink(d->part);
		unlink(d->validator_path);
	}
	close(d->fd);
	return rc;
}

/* The time of final, there already, when it may be the remote file as it
 * was downloaded (a download gives its file the remote's Last-Modified, to
 * the second); 0 when it cannot be. */
static time_t kept_time(const char *final, struct stat *st)
{
	if (lstat(final, st) != 0 || !S_ISREG(st->st_mode) || st->st_mtim.tv_nsec != 0 ||
	    st->st_mtim.tv_sec <= 0)
		return 0;
	return st->st_mtim.tv_sec;
}

/* The strong ETag a download came with, kept on its file: an extended
 * attribute, so nothing lies beside the data (where a filesystem has
 * none, the size and time alone say; cp -a and rsync -X keep it). */
#define ETAG_XATTR "user.jobprep.etag"

/* And that every byte the server announced arrived (this version checks
 * it; one before issue 30 did not, and could rename a file of the right
 * size whose ranges ended early, zeros where bytes were missing). */
#define WHOLE_XATTR "user.jobprep.whole"

static void keep_etag(const char *path, const char *etag)
{
	if (etag && etag[0] == '"')
		(void)lsetxattr(path, ETAG_XATTR, etag, strlen(etag), 0);
	(void)lsetxattr(path, WHOLE_XATTR, "1", 1, 0);
}

static void kept_etag(const char *path, char *out, size_t n)
{
	ssize_t k = lgetxattr(path, ETAG_XATTR, out, n - 1);

	out[k > 0 && out[0] == '"' ? k : 0] = '\0';
}

/* A MiB of zeros at a MiB boundary: where an older version's cut range
 * left its hole. */
static bool zero_mib(const char *path)
{
	char *buf = malloc(1 << 20);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool found = false;
	ssize_t r = 0;

	/* read(2) of a regular file gives the whole MiB but at its end */
	while (buf && fd >= 0 && !found && (r = read(fd, buf, 1 << 20)) > 0)
		found = r == (1 << 20) && buf[0] == 0 && memcmp(buf, buf + 1, (1 << 20) - 1) == 0;
	if (fd >= 0)
		close(fd);
	free(buf);
	return found;
}

/* final, of the size ranges are used for, was downloaded by a version
 * before issue 30 (its ETag kept, not that it came whole) and has such a
 * hole: short under its full size. Read once; found whole, it says so. */
static bool short_of_old(const char *final, const struct stat *st)
{
	char etag[JP_STAGE_VALIDATOR_MAX];

	if ((uint64_t)st->st_size < JP_STAGE_RANGES_MIN ||
	    lgetxattr(final, WHOLE_XATTR, NULL, 0) >= 0 || errno != ENODATA)
		return false;
	kept_etag(final, etag, sizeof(etag));
	if (!etag[0])
		return false; /* no xattrs there: nothing tells */
	if (zero_mib(final))
		return true;
	(void)lsetxattr(final, WHOLE_XATTR, "1", 1, 0);
	return false;
}

/* Is final the remote file as it is now, as wget -N and rclone copy judge
 * it: its size and modification time those the HEAD gives, and its ETag
 * when it kept one and the server sends one? And with --sha256, its
 * digest that one (its bytes read). */
static bool unchanged(const char *final, const struct jp_stage_head *head,
		      const struct jp_stage_options *opts)
{
	struct stat st;
	char hex[65], etag[JP_STAGE_VALIDATOR_MAX];

	if (!head->known || head->filetime <= 0 || kept_time(final, &st) != head->filetime ||
	    (uint64_t)st.st_size != head->size)
		return false;
	kept_etag(final, etag, sizeof(etag));
	if (etag[0] && head->validator[0] == '"' && strcmp(etag, head->validator) != 0)
		return false; /* changed within the second, the size the same */
	if (short_of_old(final, &st))
		return false;
	return !(opts && opts->sha256) ||
	       (sha256_file(final, hex) == 0 && strcasecmp(hex, opts->sha256) == 0);
}

/* final, complete and unchanged, left as it is. */
static int skipped(struct jp_stage_result *out, const char *final, struct jp_error *err)
{
	struct stat st;

	out->kind = JP_STAGE_FILE;
	out->files = out->skipped = 1;
	out->bytes_skipped = lstat(final, &st) == 0 ? (uint64_t)st.st_size : 0;
	return (out->dest = strdup(final)) ? 0 : jp_error_oom(err);
}

/* The last component of the URL's path, without query or fragment. */
static void url_name(const char *url, char *out, size_t n)
{
	const char *p = strstr(url, "://"), *end, *slash;

	p = p ? p + 3 : url;
	end = p + strcspn(p, "?#");
	slash = memrchr(p, '/', (size_t)(end - p));
	if (!slash || slash + 1 >= end) {
		snprintf(out, n, "%s", "download");
		return;
	}
	/* percent-decoded ("big%20file" is "big file"); never a path */
	{
		int len = 0;
		char *dec = curl_easy_unescape(NULL, slash + 1, (int)(end - slash - 1), &len);

		snprintf(out, n, "%.*s", dec ? len : (int)(end - slash - 1), dec ? dec : slash + 1);
		curl_free(dec);
	}
	if (strchr(out, '/') || strlen(out) != strcspn(out, "\n") || !out[0] || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		snprintf(out, n, "%s", "download");
}

/* Where the body goes (part, beside final) and where it ends (final). */
static int places(const char *dest, const char *name, bool archive, char *final, size_t n,
		  struct dl *d, struct jp_error *err)
{
	struct stat sb;
	char *abs = jp_path_absolute(dest), *norm = abs ? jp_path_normalize(abs) : NULL;
	char *slash;
	int rc;

	free(abs);
	if (!norm)
		return jp_error_oom(err);
	/* DEST/ is a folder (rsync, wget -P): made when missing */
	if (!archive && jp_stage_names_folder(dest) && (rc = jp_stage_make_folder(norm, err)) != 0) {
		free(norm);
		return rc;
	}
	if (!archive && stat(norm, &sb) == 0 && S_ISDIR(sb.st_mode))
		snprintf(final, n, "%s/%s", strcmp(norm, "/") ? norm : "", name);
	else
		snprintf(final, n, "%s", norm);
	free(norm);
	slash = strrchr(final, '/');
	/* named after DEST, not the URL: two DESTs of one folder each have
	 * their own (libarchive tells the format from the bytes) */
	(void)name;
	if (strlen(JP_TREECOPY_TMP_PREFIX "download-") + strlen(slash + 1) > NAME_MAX ||
	    snprintf(d->part, sizeof(d->part), "%.*s/%s%s%s", (int)(slash - final), final,
		     JP_TREECOPY_TMP_PREFIX, archive ? "download-" : "", slash + 1) >=
		    (int)sizeof(d->part) ||
	    snprintf(d->validator_path, sizeof(d->validator_path), "%s.validator", d->part) >=
		    (int)sizeof(d->validator_path))
		return jp_error_set(err, JP_EUSAGE, _("%s: path too long"), dest);
	return 0;
}

/* The download's records gone (and its part, when part). */
static void forget(const struct dl *d, bool part)
{
	char state[PATH_MAX + 16];

	snprintf(state, sizeof(state), "%s.ranges", d->part);
	unlink(state);
	unlink(d->validator_path);
	if (part)
		unlink(d->part);
}

/* What an archive unpacked whole into DEST was unpacked from, kept on
 * DEST (an extended attribute): the URL's digest (it may hold a token),
 * the size and validator the server gave, and what it made (files,
 * bytes). A re-run the server says is unchanged costs one HEAD. */
#define UNPACKED_XATTR "user.jobprep.unpacked"

static void url_digest(const char *url, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	hex[0] = '\0';
	if (EVP_Digest(url, strlen(url), md, &len, EVP_sha256(), NULL) != 1)
		return;
	for (unsigned i = 0; i < len && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static bool unpacked_already(struct jp_stage_result *out, const char *final, const char *url,
			     const struct jp_stage_head *head)
{
	char v[JP_STAGE_VALIDATOR_MAX + 200], digest[65], kept[65], validator[JP_STAGE_VALIDATOR_MAX];
	unsigned long long size, files, bytes;
	ssize_t k;

	if (!head->known || !head->validator[0])
		return false;
	k = lgetxattr(final, UNPACKED_XATTR, v, sizeof(v) - 1);
	if (k <= 0)
		return false;
	v[k] = '\0';
	url_digest(url, digest);
	if (sscanf(v, "1 %64s %llu %llu %llu %519[^\n]", kept, &size, &files, &bytes, validator) != 5 ||
	    strcmp(kept, digest) != 0 || size != head->size || strcmp(validator, head->validator) != 0)
		return false;
	out->kind = JP_STAGE_ARCHIVE;
	out->files = out->skipped = files;
	out->bytes_skipped = bytes;
	out->dest = strdup(final);
	return true;
}

/* The complete download unpacked into dest (final: dest made absolute);
 * the download and its records are kept until the unpack has finished,
 * so a run killed while unpacking fetches nothing again; then what it was
 * unpacked from is kept on final. */
static int unpack(struct jp_stage_result *out, const struct dl *d, const char *final,
		  const char *url, const struct jp_stage_head *head, const char *dest,
		  const struct jp_stage_options *opts, const struct jp_port *port,
		  struct jp_error *err)
{
	char v[JP_STAGE_VALIDATOR_MAX + 200], digest[65];
	uint64_t downloaded = out->bytes_written;
	int rc;

	/* what DEST says it was unpacked from is not true while it changes */
	(void)lremovexattr(final, UNPACKED_XATTR);
	rc = jp_stage_archive(out, d->part, dest, opts, port, err);
	if (rc != 0)
		return rc;
	forget(d, true);
	url_digest(url, digest);
	if (head->known && head->validator[0] && digest[0]) {
		snprintf(v, sizeof(v), "1 %s %llu %llu %llu %s", digest,
			 (unsigned long long)head->size, (unsigned long long)out->files,
			 (unsigned long long)(out->bytes_written - downloaded + out->bytes_skipped),
			 head->validator);
		(void)lsetxattr(final, UNPACKED_XATTR, v, strlen(v), 0);
	}
	return 0;
}

/* Fail before a byte is written when the part's folder plainly lacks the
 * room for what is still to come (size, less what the part holds), with
 * the reserve (the profile's, else 1% of the filesystem, at most
 * JP_STAGE_ROOM_RESERVE) kept free for everyone else. */
static int room(const struct dl *d, uint64_t size, const struct jp_stage_options *opts,
		struct jp_error *err)
{
	char dir[PATH_MAX], need_s[32], avail_s[32], keep_s[32];
	char *slash;
	struct statvfs vfs;
	struct stat st;
	uint64_t have = 0, need, avail, reserve;

	snprintf(dir, sizeof(dir), "%s", d->part);
	if ((slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (statvfs(dir, &vfs) != 0 || vfs.f_frsize == 0)
		return 0; /* cannot tell: let the writes say */
	if (stat(d->part, &st) == 0)
		have = (uint64_t)st.st_blocks * 512;
	need = size > have ? size - have : 0;
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (opts && opts->has_reserve) {
		reserve = opts->reserve_bytes;
	} else {
		reserve = (uint64_t)vfs.f_blocks * vfs.f_frsize / 100;
		if (reserve > JP_STAGE_ROOM_RESERVE)
			reserve = JP_STAGE_ROOM_RESERVE;
	}
	if (need == 0 || (avail > reserve && need <= avail - reserve))
		return 0;
	jp_units_format_bytes(need_s, sizeof(need_s), need);
	jp_units_format_bytes(avail_s, sizeof(avail_s), avail);
	if (opts && opts->has_reserve)
		return jp_error_set(err, JP_ENOSPC,
				    _("%s: not enough room for the download: it needs %s more, %s "
				      "free there (the profile keeps %s free: stage_reserve_bytes)"),
				    d->dest, need_s, avail_s,
				    jp_units_format_bytes(keep_s, sizeof(keep_s), reserve));
	return jp_error_set(err, JP_ENOSPC,
			    _("%s: not enough room for the download: it needs %s more, %s free "
			      "there (1%% of the filesystem, at most 1 GiB, is kept free)"),
			    d->dest, need_s, avail_s);
}

/* The download on one connection (small, no ranges, no HEAD): 0 part
 * complete, 1 the server refused the range twice, 2 the file at final is
 * unchanged (ask: no HEAD said so, the GET asks; with --sha256 its digest
 * matches), < 0 a JP_E* error. */
static int one_connection(struct dl *d, const char *url, const char *final, bool ask,
			  const struct jp_stage_options *opts, struct jp_error *err)
{
	struct stat st;
	char hex[65];
	int rc, tries = 0;

	d->ims = ask ? kept_time(final, &st) : 0;
	if (d->ims)
		kept_etag(final, d->inm, sizeof(d->inm));
	for (;;) {
		rc = fetch(d, url, err);
		if (rc == 3)
			continue; /* ended early: the rest, as long as each brings some */
		if (rc == 2 && !(opts && opts->sha256 &&
				 (sha256_file(final, hex) != 0 || strcasecmp(hex, opts->sha256) != 0)))
			return 2;
		if (rc == 2) {
			/* not the digest asked for: the whole file */
			d->ims = 0;
			d->inm[0] = '\0';
		} else if (rc != 1 || ++tries >= 2) {
			return rc;
		}
	}
}

int jp_stage_http(struct jp_stage_result *out, const char *url, const char *dest,
		  const struct jp_stage_options *opts, const struct jp_port *port,
		  struct jp_error *err)
{
	char name[NAME_MAX + 1], final[PATH_MAX], hex[65] = "";
	char *shown = jp_url_redact(url);
	struct jp_stage_head head;
	struct dl d;
	bool archive, check;
	int rc;

	memset(&d, 0, sizeof(d));
	d.url = shown ? shown : "URL";
	d.port = port;
	d.token = opts ? opts->bearer : NULL;
	url_name(url, name, sizeof(name));
	archive = !(opts && opts->no_unpack) && jp_stage_is_archive(name);
	if ((rc = places(dest, name, archive, final, sizeof(final), &d, err)) != 0)
		goto out;
	d.dest = final;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (opts && opts->expect_known && opts->expect_size < JP_STAGE_RANGES_MIN) {
		char state[PATH_MAX + 16];

		/* known small (its caller knows the size and checks what is
		 * there: a Hub file): no HEAD; the ranges of a larger earlier
		 * version go */
		memset(&head, 0, sizeof(head));
		head.filetime = -1;
		check = false;
		d.expect_known = true;
		d.expect = opts->expect_size;
		if ((rc = room(&d, opts->expect_size, opts, err)) != 0)
			goto out;
		snprintf(state, sizeof(state), "%s.ranges", d.part);
		unlink(state);
		rc = 1;
	} else {
		if (jp_stage_http_head(&head, url, d.token) == -2) {
			rc = jp_error_set(err, JP_ETIMEOUT,
					  _("%s: the server did not answer within %u s (--timeout)"),
					  d.url, jp_stage_curl_timeout_s());
			goto out;
		}
		/* there already and unchanged on the server: not again
		 * (--verify: the bytes are read, so downloaded again) */
		check = !archive && !(opts && opts->verify);
		if (check && unchanged(final, &head, opts)) {
			rc = skipped(out, final, err);
			goto out;
		}
		if (archive && !(opts && opts->verify) && unpacked_already(out, final, url, &head)) {
			rc = out->dest ? 0 : jp_error_oom(err);
			goto out;
		}
		d.head = &head;
		d.expect_known = head.known;
		d.expect = head.size;
		if (head.known && (rc = room(&d, head.size, opts, err)) != 0)
			goto out;
		/* a large file from a server that takes ranges: several
		 * connections */
		rc = jp_stage_http_ranges(url, &head, d.part, d.url, final, d.token, port, &d.written,
					  err);
	}
	if (rc < 0)
		goto out;
	if (rc == 1)
		rc = one_connection(&d, url, final, check && !head.known, opts, err);
	if (rc == 2) {
		rc = skipped(out, final, err);
		goto out;
	}
	if (rc != 0) {
		if (rc == 1)
			rc = jp_error_set(err, JP_ENET, _("%s: download failed: %s"), d.url,
					  _("the server refused the range twice"));
		goto out;
	}
	if (opts && opts->sha256 && (sha256_file(d.part, hex) != 0 ||
				     strcasecmp(hex, opts->sha256) != 0)) {
		rc = jp_error_set(err, JP_ECHECK, _("%s: SHA-256 is %s, expected %s: the download was removed"),
				  d.url, hex[0] ? hex : "?", opts->sha256);
		forget(&d, true);
		goto out;
	}
	out->bytes_written = d.written;
	if (archive) {
		rc = unpack(out, &d, final, url, &head, dest, opts, port, err);
		goto out;
	}
	keep_etag(d.part, head.known && head.validator[0] == '"' ? head.validator : d.etag);
	if (rename(d.part, final) != 0) {
		rc = jp_error_set(err, JP_EIO, _("%s: cannot create: %s"), final, strerror(errno));
		goto out;
	}
	forget(&d, false);
	out->kind = JP_STAGE_FILE;
	out->files = out->written = 1;
	if (!(out->dest = strdup(final)))
		rc = jp_error_oom(err);
out:
	free(shown);
	return rc;
}
