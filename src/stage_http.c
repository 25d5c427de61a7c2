/* jobprep stage URL DEST: download over http(s) with libcurl, resumably:
 * the body goes to a temporary beside its final place, and the remote's
 * validator (ETag, else Last-Modified) to a second one; the next run asks
 * for the rest (Range) only if the remote is still the same (If-Range),
 * and starts from zero when the server sends the whole of a changed file.
 * Then it is checked (--sha256) and renamed, or unpacked if an archive. A
 * file there already that the server says is unchanged (a HEAD's size,
 * Last-Modified and ETag; without HEAD, a 304 to If-Modified-Since and
 * If-None-Match) is not downloaded again, as with wget -N. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
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
#include "treecopy.h"
#include "jobprep/url.h"
#include "stage_internal.h"
#include "stage_resume.h"
#include "deadline_internal.h"
#include "meter_internal.h"
#include "url_internal.h"

#define PROGRESS_NS 100000000ULL

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
	time_t ims;        /* the whole file, If-Modified-Since this; 0 none */
	char inm[JP_STAGE_VALIDATOR_MAX]; /* and If-None-Match this, "" none */
	bool again;        /* not the range asked for: drop the part, ask again */
	uint64_t written, t_last, unflushed;
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

/* The first body byte of the final response: append (206 for the range
 * asked, of the file kept), start from zero (200: the whole file, changed
 * or never ranged) keeping its validator for a later resume, or ask again
 * (stage_resume.c decides). */
static int decide(struct dl *d)
{
	struct jp_resume_ask ask = { (uint64_t)d->have, d->asked };
	struct jp_resume_answer ans = { 0, d->etag, d->lastmod, d->crange };
	struct jp_resume_plan plan;

	curl_easy_getinfo(d->curl, CURLINFO_RESPONSE_CODE, &d->status);
	ans.status = d->status;
	d->decided = true;
	jp_stage_resume_decide(&ask, &ans, &plan);
	switch (plan.action) {
	case JP_RESUME_APPEND:
		return lseek(d->fd, (off_t)plan.offset, SEEK_SET) < 0 ? -1 : 0;
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
	if (plan.keep[0]) {
		FILE *f = fopen(d->validator_path, "we");

		if (!f)
			return -1;
		fprintf(f, "%s\n", plan.keep);
		if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
			fclose(f);
			return -1;
		}
		fclose(f);
	}
	return 0;
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

/* The validator a killed run kept, or "" */
static void read_validator(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "re");

	out[0] = '\0';
	if (!f)
		return;
	if (!fgets(out, (int)n, f))
		out[0] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	fclose(f);
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

	if (d->have > 0) {
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

/* What came of the request (cc): 0 the part complete and flushed; 1 ask
 * again for the whole file; 2 the file there is unchanged (304); < 0 a
 * JP_E* error, err set. */
static int outcome(struct dl *d, CURLcode cc, const char *errbuf, struct jp_error *err)
{
	long code = 0, unmet = 0;

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
	if (d->io_errno)
		return jp_error_set(err, d->io_errno == ENOSPC || d->io_errno == EDQUOT ? JP_ENOSPC : JP_EIO,
				    _("%s: writing %s: %s"), d->url, d->dest, strerror(d->io_errno));
	if (cc == CURLE_HTTP_RETURNED_ERROR && d->have > 0 && code == 416) {
		/* the range is past the remote's end: start again */
		unlink(d->validator_path);
		return 1;
	}
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

	d->fd = open(d->part, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (d->fd < 0 || fstat(d->fd, &st) != 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot create: %s"), d->dest, strerror(errno));
	read_validator(d->validator_path, v, sizeof(v));
	d->have = v[0] ? st.st_size : 0;
	snprintf(d->asked, sizeof(d->asked), "%s", d->have > 0 ? v : "");
	d->again = false;
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

static void keep_etag(const char *path, const char *etag)
{
	if (etag && etag[0] == '"')
		(void)lsetxattr(path, ETAG_XATTR, etag, strlen(etag), 0);
}

static void kept_etag(const char *path, char *out, size_t n)
{
	ssize_t k = lgetxattr(path, ETAG_XATTR, out, n - 1);

	out[k > 0 && out[0] == '"' ? k : 0] = '\0';
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
	if (snprintf(d->part, sizeof(d->part), "%.*s/%s%s%s", (int)(slash - final), final,
		     JP_TREECOPY_TMP_PREFIX, archive ? "download-" : "", archive ? name : slash + 1) >=
		    (int)sizeof(d->part) ||
	    snprintf(d->validator_path, sizeof(d->validator_path), "%s.validator", d->part) >=
		    (int)sizeof(d->validator_path))
		return jp_error_set(err, JP_EUSAGE, _("%s: path too long"), dest);
	return 0;
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
		snprintf(state, sizeof(state), "%s.ranges", d.part);
		unlink(state);
		rc = 1;
	} else {
		(void)jp_stage_http_head(&head, url, d.token);
		/* there already and unchanged on the server: not again
		 * (--verify: the bytes are read, so downloaded again) */
		check = !archive && !(opts && opts->verify);
		if (check && unchanged(final, &head, opts)) {
			rc = skipped(out, final, err);
			goto out;
		}
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
		unlink(d.part);
		unlink(d.validator_path);
		goto out;
	}
	out->bytes_written = d.written;
	if (archive) {
		rc = jp_stage_archive(out, d.part, dest, opts, port, err);
		if (rc == 0) {
			unlink(d.part);
			unlink(d.validator_path);
		}
		goto out;
	}
	keep_etag(d.part, head.known && head.validator[0] == '"' ? head.validator : d.etag);
	if (rename(d.part, final) != 0) {
		rc = jp_error_set(err, JP_EIO, _("%s: cannot create: %s"), final, strerror(errno));
		goto out;
	}
	unlink(d.validator_path);
	out->kind = JP_STAGE_FILE;
	out->files = out->written = 1;
	if (!(out->dest = strdup(final)))
		rc = jp_error_oom(err);
out:
	free(shown);
	return rc;
}
