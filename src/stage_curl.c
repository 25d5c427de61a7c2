/* The libcurl pieces every request of a download shares (stage_http.c's
 * one connection, stage_http_ranges.c's several): the options of a handle,
 * a header's value, and the writeback of what they receive. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <curl/curl.h>

#include "jobprep/i18n.h"
#include "stage_internal.h"

#define WRITEBACK_EVERY (8u << 20)

/* --timeout's seconds for every request of this process's stage (each
 * stage runs in a helper process of its own: set once, before any thread) */
static unsigned timeout_s = JP_STAGE_TIMEOUT_DEFAULT;

void jp_stage_curl_timeout(unsigned seconds)
{
	timeout_s = seconds ? seconds : JP_STAGE_TIMEOUT_DEFAULT;
}

unsigned jp_stage_curl_timeout_s(void)
{
	return timeout_s;
}

void jp_stage_writeback(int fd, uint64_t *unflushed, size_t len)
{
	*unflushed += len;
	if (*unflushed < WRITEBACK_EVERY)
		return;
	*unflushed = 0;
	/* the whole file: pages already on their way are not waited for */
	(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

void jp_stage_curl_explain(int cc, char *errbuf)
{
	/* libcurl's "Operation too slow. Less than 1024 bytes/sec ..." or
	 * "Connection timed out after ...": said once, in jobprep's words */
	if (cc == CURLE_OPERATION_TIMEDOUT)
		snprintf(errbuf, CURL_ERROR_SIZE,
			 _("no answer, or less than 1 KiB/s, for %u s (--timeout)"), timeout_s);
}

bool jp_stage_cut_short(int cc)
{
	return cc == CURLE_OK || cc == CURLE_PARTIAL_FILE || cc == CURLE_RECV_ERROR ||
	       cc == CURLE_GOT_NOTHING || cc == CURLE_SEND_ERROR || cc == CURLE_HTTP2_STREAM;
}

/* A header's value, its spaces and line end trimmed, into out (cut to n). */
void jp_stage_header_value(char *out, size_t n, const char *v, size_t len)
{
	while (len && (*v == ' ' || *v == '\t'))
		v++, len--;
	while (len && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' '))
		len--;
	snprintf(out, n, "%.*s", (int)len, v);
}

void jp_stage_http_setup(void *curl, const char *url, char *errbuf, const char *token)
{
	CURL *h = curl;

	if (!token)
		token = getenv("JOBPREP_HTTP_TOKEN");

	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
	/* credentials go to the host named, never to one a redirect names */
	curl_easy_setopt(h, CURLOPT_UNRESTRICTED_AUTH, 0L);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FILETIME, 1L);
	/* libcurl's own bounds: a server that does not connect within
	 * --timeout, or sends less than JP_STAGE_LOW_SPEED bytes a second
	 * for --timeout on end (nothing at all included: a silent server, a
	 * proxy holding the connection, a trickle), fails the request */
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)timeout_s);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, (long)JP_STAGE_LOW_SPEED);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)timeout_s);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "jobprep/" PACKAGE_VERSION);
	/* libcurl's 16 KiB means a read and a write per 16 KiB: 512 KiB
	 * (CURL_MAX_READ_SIZE) makes each a thirty-second of that */
	curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);
	if (token && token[0]) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
		curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, token);
	}
}
