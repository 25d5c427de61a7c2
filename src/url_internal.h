/* The core's side of jobprep/url.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/url.h. */
#ifndef JOBPREP_URL_INTERNAL_H
#define JOBPREP_URL_INTERNAL_H

#include "jobprep/url.h"

/* Find the user info of url: true and *out filled, or false when it has
 * none. For scheme://authority/path the authority ends at the first '/'
 * (whatever '?' or '#' come before it: a raw one in a password must not
 * end the user info early) and the user info at the last '@' in it; the
 * first ':' in the user info starts the secret. For git's scp-like
 * [user@]host:path the user is what comes before an '@' ahead of the first
 * ':'. Local paths have none. */
bool jp_url_userinfo(struct jp_url_userinfo *out, const char *url);

/* The kind of s; with JP_URL_OTHER, *scheme_len (when not NULL) is the
 * length of its scheme, for "unsupported scheme 'ftp'". */
enum jp_url_fetch jp_url_fetch_kind(const char *s, size_t *scheme_len);

#endif
