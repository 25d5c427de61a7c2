/* The one place that decides where a URL's user info (and so its password
 * or token) lies; see jobprep/url.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobprep/url.h"
#include "url_internal.h"

static bool is_scheme_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '.' || c == '-';
}

/* The length of url's "scheme" before "://", or 0 when it has none. */
static size_t scheme_len(const char *url)
{
	size_t n = 0;

	if (!((url[0] >= 'a' && url[0] <= 'z') || (url[0] >= 'A' && url[0] <= 'Z')))
		return 0;
	while (is_scheme_char(url[n]))
		n++;
	return strncmp(url + n, "://", 3) == 0 ? n : 0;
}

enum jp_url_fetch jp_url_fetch_kind(const char *s, size_t *scheme_n)
{
	size_t n = s ? scheme_len(s) : 0;

	if (scheme_n)
		*scheme_n = n;
	if (n == 0)
		return JP_FETCH_PATH;
	if ((n == 4 && strncasecmp(s, "http", 4) == 0) || (n == 5 && strncasecmp(s, "https", 5) == 0))
		return JP_FETCH_HTTP;
	return JP_FETCH_OTHER;
}

bool jp_url_userinfo(struct jp_url_userinfo *out, const char *url)
{
	size_t n, i, at = 0;
	bool found = false;

	memset(out, 0, sizeof(*out));
	if (!url || !*url)
		return false;
	if ((n = scheme_len(url)) > 0) {
		for (i = n + 3; url[i] && url[i] != '/'; i++)
			if (url[i] == '@')
				at = i, found = true;
		if (!found)
			return false;
		out->start = n + 3;
		out->scheme_http = (n == 4 && strncasecmp(url, "http", 4) == 0) ||
				   (n == 5 && strncasecmp(url, "https", 5) == 0);
	} else {
		/* git's rule: scp-like when a ':' comes before any '/'. */
		const char *colon = strchr(url, ':');
		const char *slash = strchr(url, '/');
		const char *a;

		if (!colon || colon == url || (slash && slash < colon))
			return false;
		if (!(a = memchr(url, '@', (size_t)(colon - url))))
			return false;
		at = (size_t)(a - url);
		out->scp = true;
	}
	out->at = at;
	out->colon = at;
	if (!out->scp) {
		const char *c = memchr(url + out->start, ':', at - out->start);

		if (c)
			out->colon = (size_t)(c - url);
	}
	return true;
}

bool jp_url_has_credentials(const char *url)
{
	struct jp_url_userinfo ui;

	if (!jp_url_userinfo(&ui, url) || ui.scp)
		return false;
	return ui.colon < ui.at || ui.scheme_http;
}

char *jp_url_redact(const char *url)
{
	struct jp_url_userinfo ui;
	char *out;

	if (!url)
		return NULL;
	if (!jp_url_has_credentials(url) || !jp_url_userinfo(&ui, url))
		return strdup(url);
	out = malloc(strlen(url) + 1);
	if (!out)
		return NULL;
	memcpy(out, url, ui.start);
	strcpy(out + ui.start, url + ui.at + 1);
	return out;
}

void jp_url_blank_credentials(char *url)
{
	struct jp_url_userinfo ui;
	size_t from;

	if (!jp_url_has_credentials(url) || !jp_url_userinfo(&ui, url))
		return;
	from = ui.colon < ui.at ? ui.colon + 1 : ui.start;
	memset(url + from, '*', ui.at - from);
}
