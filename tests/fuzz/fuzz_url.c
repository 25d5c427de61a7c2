/* libFuzzer target: repository URLs (up to the first NUL) through every
 * parser jobprep has: the git URL parser (git_url.c: what libgit2 is given
 * and what .git/config records), its redaction, and the manifest's
 * credential test and redaction (valid.c). Properties:
 *  - no credential survives redaction: in what any of the three redactions
 *    returns, the authority holds no "user:secret@", and for http(s) no
 *    user info at all; the password or token the git parser found (decoded
 *    or as written) appears in none of them;
 *  - the parsers agree on where the user info ends: for a URL the git parser
 *    takes, the manifest's test says "credentials" exactly when the git
 *    parser found a secret (or any user over http(s)), and then the
 *    manifest's redaction removes exactly the user info the git parser took.
 * JP_FUZZ_URL_GIT_ONLY=1 checks the git parser alone (to measure the rest
 * while a disagreement with valid.c is known). Build with --enable-fuzzing;
 * replayed over its seeds by `make check` otherwise. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobprep/manifest.h"
#include "git_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_http(const char *url)
{
	return strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0;
}

/* The redacted form's authority holds no secret: no ':' before an '@', and
 * no '@' at all over http(s). Only for scheme://... (a scheme as RFC 3986
 * has it): anything else is a path to every parser. */
static void check_authority(const char *redacted)
{
	const char *sep = redacted;

	if (!isalpha((unsigned char)*sep))
		return;
	while (isalnum((unsigned char)*sep) || *sep == '+' || *sep == '.' || *sep == '-')
		sep++;
	if (strncmp(sep, "://", 3) != 0)
		return;
	const char *auth = sep + 3;
	size_t n = strcspn(auth, "/");
	const char *at = NULL;

	for (const char *p = auth; p < auth + n; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return;
	if (memchr(auth, ':', (size_t)(at - auth)) || is_http(redacted))
		abort();
}

/* `cred` (a password or token) does not appear in the user info of
 * `redacted` (from after the scheme to the last '@' before the path),
 * unless the ssh account name that is kept (`kept`, may be NULL) holds it.
 * What follows the user info is the host and path of the URL as given,
 * normalised (a host's escapes in lower case, a '/' added): a secret's
 * bytes met there again are the host's or the path's, never a leak (a URL
 * whose password is "2F=/" and whose host is "$%2F=" gave "...@$%2f=/"). */
static void check_absent(const char *redacted, const char *cred, const char *rest,
			 const char *kept)
{
	const char *sep = strstr(redacted, "://");
	const char *auth = sep ? sep + 3 : redacted, *end, *at = NULL;
	char *info;

	(void)rest;
	if (!cred || strlen(cred) < 4)
		return;
	end = auth + strcspn(auth, "/");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return; /* no user info left at all */
	if (kept && strcasestr(kept, cred))
		return;
	if (!(info = strndup(auth, (size_t)(at - auth))))
		abort();
	bool leaked = strcasestr(info, cred) != NULL;
	free(info);
	if (leaked)
		abort();
}

static void check_all(const char *redacted, const struct jp_git_url *u, const char *url,
		      const char *rest, const char *raw_secret)
{
	if (!redacted)
		return;
	check_authority(redacted);
	if (u) {
		/* ssh keeps the account, decoded in u->user, re-encoded in clean */
		char *kept = NULL;
		if (u->kind == JP_URL_SSH && u->user) {
			const char *a = strstr(u->clean, "://") + 3;
			const char *e = strchr(a, '/'), *at = NULL;
			for (const char *p = a; e ? p < e : *p != '\0'; p++)
				if (*p == '@')
					at = p;
			if (asprintf(&kept, "%s@%.*s", u->user, at ? (int)(at - a) : 0, a) < 0)
				abort();
		}

		check_absent(redacted, u->secret, rest, kept);
		check_absent(redacted, raw_secret, rest, kept);
		if (is_http(url))
			check_absent(redacted, u->user, rest, NULL);
		free(kept);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int git_only = -1;
	struct jp_git_url u = JP_GIT_URL_INIT;
	struct jp_error err = JP_ERROR_INIT;
	char *url = malloc(size + 1), *git_red, *man_red, *raw_secret = NULL;
	const char *rest = "";
	bool parsed;

	if (!url)
		return 0;
	if (git_only < 0) {
		const char *e = getenv("JP_FUZZ_URL_GIT_ONLY");
		git_only = e && *e && strcmp(e, "0") != 0;
	}
	memcpy(url, data, size);
	url[size] = '\0';

	parsed = jp_git_url_parse(&u, url, &err) == 0;
	git_red = jp_git_url_redact(url);
	man_red = jp_url_redact(url);
	if (!git_red || !man_red)
		abort();

	const char *sep = strstr(url, "://");
	bool scheme = parsed && !u.scp && u.kind != JP_URL_LOCAL && sep;
	if (scheme) {
		/* the user info as the git parser split it: up to the last '@'
		 * before the path */
		const char *auth = sep + 3;
		const char *end = auth + strcspn(auth, "/");
		const char *at = NULL;
		for (const char *p = auth; p < end; p++)
			if (*p == '@')
				at = p;
		if (at) {
			const char *colon = memchr(auth, ':', (size_t)(at - auth));
			rest = at + 1;
			if (colon && !(raw_secret = strndup(colon + 1, (size_t)(at - colon - 1))))
				abort();
		}
		if (strcmp(git_red, u.clean) != 0)
			abort(); /* redaction is the parser's clean form */
	}
	check_all(parsed ? u.clean : NULL, scheme ? &u : NULL, url, rest, raw_secret);
	check_all(git_red, scheme ? &u : NULL, url, rest, raw_secret);
	if (!git_only) {
		check_all(man_red, scheme ? &u : NULL, url, rest, raw_secret);
		if (scheme) {
			bool git_cred = u.secret || (is_http(url) && u.user);
			if (jp_url_has_credentials(url) != git_cred)
				abort();
			/* both end the user info at the same '@': valid.c's
			 * redaction removed exactly what the git parser took */
			if (git_cred && strlen(url) - strlen(man_red) != (size_t)(rest - (sep + 3)))
				abort();
		}
	}
	free(raw_secret);
	free(git_red);
	free(man_red);
	jp_git_url_dispose(&u);
	jp_error_dispose(&err);
	free(url);
	return 0;
}
