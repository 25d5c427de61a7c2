/* Where a URL's credentials are, decided in one place for every caller: the
 * manifest's and the flow's checks, the clone's parser, redaction, and the
 * blanking of argv. */
#ifndef JOBPREP_URL_H
#define JOBPREP_URL_H

#include <stdbool.h>
#include <stddef.h>

/* What a source string names, by its scheme (RFC 3986: a letter, then
 * letters, digits, '+', '-', '.', then "://"): the one place that decides
 * whether a string is a URL at all and whether jobprep downloads it. */
enum jp_url_fetch {
	JP_FETCH_PATH = 0, /* no scheme://: a path */
	JP_FETCH_HTTP,   /* http:// or https:// (any case) */
	JP_FETCH_OTHER,  /* another scheme (ftp://, s3://, ...): not a path, not supported */
};

/* The user info of a URL, as byte offsets into it: the user is
 * [start, colon), the secret (colon, at); colon == at when there is no ':'.
 * url[at] is the '@' that ends the user info. */
struct jp_url_userinfo {
	size_t start, colon, at;
	bool scheme_http; /* http or https: a lone user name is a token */
	bool scp;         /* [user@]host:path (an ssh account, never a secret) */
};

/* True when the URL carries a password or token: user:secret@ in any
 * scheme, or a lone user@ over http(s) (a token). */
bool jp_url_has_credentials(const char *url);
/* A copy of url without its credentials (the whole user info goes); NULL
 * when out of memory. */
char *jp_url_redact(const char *url);
/* Overwrite url's credential bytes with '*' in place (the length stays, for
 * argv): the secret, or a lone http(s) user name. */
void jp_url_blank_credentials(char *url);

#endif
