/* The libcurl pieces every request of a download shares (stage_http.c's
 * one connection, stage_http_ranges.c's several): the options of a handle,
 * a header's value, and the writeback of what they receive. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <curl/curl.h>

#include "stage_internal.h"

#define WRITEBACK_EVERY (8u << 20)

void jp_stage_writeback(int fd, uint64_t *unflushed, size_t len)
{
	*unflushed += len;
	if (*unflushed < WRITEBACK_EVERY)
		return;
	*unflushed = 0;
	/* the whole file: pages already on their way are not waited for */
	(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
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
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 120L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "jobprep/" PACKAGE_VERSION);
	/* libcurl's 16 KiB means a read and a write per 16 KiB: 512 KiB
	 * (CURL_MAX_READ_SIZE) makes each a thirty-second of that */
	curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);
	if (token && token[0]) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
		curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, token);
	}
}
