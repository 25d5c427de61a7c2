/* Git URLs as people type them: the forms git accepts, split into parts, and
 * the clean form that may be stored (no password or token, ever). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/url.h"
#include "url_internal.h"
#include "git_internal.h"

void jp_secret_free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

void jp_git_url_dispose(struct jp_git_url *u)
{
	free(u->user);
	jp_secret_free(u->secret);
	free(u->host);
	free(u->port);
	free(u->path);
	free(u->clean);
	*u = (struct jp_git_url)JP_GIT_URL_INIT;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Percent-decode n bytes of s into a new string. */
static char *pct_decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < n &&
		    (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0) {
			*o++ = (char)(hi * 16 + lo);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

static char *lower_dup(const char *s, size_t n)
{
	char *out = strndup(s, n);

	for (char *p = out; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

static const struct {
	const char *name;
	enum jp_url_kind kind;
} schemes[] = {
	{ "https", JP_URL_HTTPS }, { "http", JP_URL_HTTP },
	{ "ssh", JP_URL_SSH },     { "git+ssh", JP_URL_SSH },
	{ "ssh+git", JP_URL_SSH }, { "git", JP_URL_GIT },
	{ "file", JP_URL_FILE },
};

/* host[:port] or [v6]:port; sets u->host and u->port. */
static int split_hostport(struct jp_git_url *u, const char *s, size_t n)
{
	const char *colon = NULL;

	if (n > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (!close)
			return -1;
		u->host = lower_dup(s + 1, (size_t)(close - s - 1));
		if (close + 1 < s + n) {
			if (close[1] != ':')
				return -1;
			colon = close + 1;
		}
	} else {
		colon = memchr(s, ':', n);
		u->host = lower_dup(s, colon ? (size_t)(colon - s) : n);
	}
	if (!u->host)
		return JP_ENOMEM;
	/* What is left of a query, a fragment or a user info is no host. */
	if (strpbrk(u->host, "?#@[]\\ "))
		return -1;
	if (colon && colon + 1 < s + n) {
		u->port = strndup(colon + 1, (size_t)(s + n - colon - 1));
		if (!u->port)
			return JP_ENOMEM;
		for (const char *p = u->port; *p; p++)
			if (!isdigit((unsigned char)*p))
				return -1;
	}
	return 0;
}

static int parse_scheme_url(struct jp_git_url *u, const char *url,
			    size_t scheme_len)
{
	const char *auth = url + scheme_len + 3;
	const char *slash = strchr(auth, '/');
	const char *end = slash ? slash : auth + strlen(auth);
	struct jp_url_userinfo ui;
	int rc;

	/* Where the user info ends is jp_url_userinfo's decision, for every
	 * caller alike (the manifest's credential check included). */
	if (jp_url_userinfo(&ui, url)) {
		u->user = pct_decode(url + ui.start, ui.colon - ui.start);
		if (!u->user)
			return JP_ENOMEM;
		if (ui.colon < ui.at) {
			u->secret = pct_decode(url + ui.colon + 1, ui.at - ui.colon - 1);
			if (!u->secret)
				return JP_ENOMEM;
		}
		auth = url + ui.at + 1;
	}
	if (u->kind != JP_URL_FILE || end > auth) {
		if ((rc = split_hostport(u, auth, (size_t)(end - auth))) != 0)
			return rc;
		if (u->kind != JP_URL_FILE && !*u->host)
			return -1;
	}
	u->path = strdup(slash ? slash : "/");
	if (!u->path)
		return JP_ENOMEM;

	/* The clean form: scheme://[user@]host[:port]/path, user kept only
	 * where it is an account name (ssh), never for http(s). */
	{
		const char *scheme = url;
		bool keep_user = u->user && (u->kind == JP_URL_SSH);
		bool v6 = u->host && strchr(u->host, ':');
		size_t len = scheme_len + 3 + strlen(u->path) + 8 +
			     (u->host ? strlen(u->host) : 0) +
			     (u->port ? strlen(u->port) : 0) +
			     (keep_user ? 3 * strlen(u->user) : 0);

		u->clean = malloc(len + 1);
		if (!u->clean)
			return JP_ENOMEM;
		char *o = u->clean;
		memcpy(o, scheme, scheme_len);
		o += scheme_len;
		for (char *p = u->clean; p < o; p++)
			*p = (char)tolower((unsigned char)*p);
		o = stpcpy(o, "://");
		if (keep_user) {
			/* Re-encode only what would break the URL. */
			for (const char *p = u->user; *p; p++) {
				if (*p == '@' || *p == ':' || *p == '/' || *p == '%') {
					static const char hex[] = "0123456789ABCDEF";
					*o++ = '%';
					*o++ = hex[(unsigned char)*p >> 4];
					*o++ = hex[(unsigned char)*p & 15];
				} else {
					*o++ = *p;
				}
			}
			*o++ = '@';
		}
		if (u->host) {
			if (v6)
				*o++ = '[';
			o = stpcpy(o, u->host);
			if (v6)
				*o++ = ']';
		}
		if (u->port) {
			*o++ = ':';
			o = stpcpy(o, u->port);
		}
		o = stpcpy(o, u->path);
		*o = '\0';
	}
	return 0;
}

/* git's rule: [user@]host:path is ssh when a ':' comes before any '/'. */
static bool is_scp_like(const char *url, const char **colon_out)
{
	const char *colon = strchr(url, ':');
	const char *slash = strchr(url, '/');

	if (!colon || colon == url || (slash && slash < colon))
		return false;
	*colon_out = colon;
	return true;
}

static int make_absolute(char **out, const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/') {
		*out = strdup(path);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return JP_EIO;
		if (asprintf(out, "%s/%s", strcmp(cwd, "/") ? cwd : "", path) < 0)
			*out = NULL;
	}
	if (!*out)
		return JP_ENOMEM;
	/* Tidy a trailing "/" (but keep "/"). */
	size_t n = strlen(*out);
	while (n > 1 && (*out)[n - 1] == '/')
		(*out)[--n] = '\0';
	return 0;
}

/* A URL that did not parse, for its error message: what a person meant as
 * user info may end past the first '/' (a raw '/' in a password), so all
 * up to the last '@' anywhere goes. */
static char *redact_broken(const char *url, size_t scheme_len)
{
	const char *auth = url + scheme_len + 3, *at = strrchr(auth, '@');
	char *out;

	if (!at)
		return strdup(url);
	if (asprintf(&out, "%.*s***%s", (int)(auth - url), url, at) < 0)
		return NULL;
	return out;
}

int jp_git_url_parse(struct jp_git_url *out, const char *url,
		     struct jp_error *err)
{
	struct jp_git_url u = JP_GIT_URL_INIT;
	const char *sep, *colon;
	int rc = 0;

	*out = u;
	if (!url || !*url)
		return jp_error_set(err, JP_EUSAGE, "%s", _("the repository URL is empty"));
	if (url[0] == '-')
		return jp_error_set(err, JP_EUSAGE,
				    _("refusing repository URL beginning with '-' (it would be read as an option)"));
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return jp_error_set(err, JP_EUSAGE, "%s",
					    _("the repository URL contains a control character"));

	sep = strstr(url, "://");
	if (sep && sep > url && strspn(url, "abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") ==
					    (size_t)(sep - url)) {
		size_t n = (size_t)(sep - url);
		size_t i;

		for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
			if (strlen(schemes[i].name) == n && strncasecmp(url, schemes[i].name, n) == 0)
				break;
		if (i == sizeof(schemes) / sizeof(schemes[0])) {
			rc = jp_error_set(err, JP_EUSAGE,
					  _("unsupported URL scheme '%.*s' (use https, http, ssh, git or file)"),
					  (int)n, url);
			goto fail;
		}
		u.kind = schemes[i].kind;
		rc = parse_scheme_url(&u, url, n);
		if (rc == JP_ENOMEM)
			goto nomem;
		if (rc != 0) {
			char *shown = redact_broken(url, n);

			rc = jp_error_set(err, JP_EUSAGE, _("%s: not a valid URL"),
					  shown ? shown : "URL");
			free(shown);
			goto fail;
		}
	} else if (is_scp_like(url, &colon)) {
		struct jp_url_userinfo ui;
		const char *at = jp_url_userinfo(&ui, url) && ui.scp ? url + ui.at : NULL;
		const char *h = at ? at + 1 : url;

		u.kind = JP_URL_SSH;
		u.scp = true;
		if (at && !(u.user = strndup(url, (size_t)(at - url))))
			goto nomem;
		if (h[0] == '[') {
			const char *close = strchr(h, ']');
			if (!close || close[1] != ':') {
				rc = jp_error_set(err, JP_EUSAGE, _("%s: not a valid URL"), url);
				goto fail;
			}
			u.host = lower_dup(h + 1, (size_t)(close - h - 1));
			colon = close + 1;
		} else {
			u.host = lower_dup(h, (size_t)(colon - h));
		}
		if (!u.host || !(u.path = strdup(colon + 1)) || !(u.clean = strdup(url)))
			goto nomem;
		if (!*u.host || u.host[0] == '-') {
			rc = jp_error_set(err, JP_EUSAGE, _("%s: not a valid URL"), url);
			goto fail;
		}
	} else {
		u.kind = JP_URL_LOCAL;
		if ((rc = make_absolute(&u.path, url)) != 0) {
			rc = jp_error_set(err, rc, _("%s: cannot make the path absolute: %s"), url,
					  strerror(errno));
			goto fail;
		}
		if (!(u.clean = strdup(u.path)))
			goto nomem;
	}
	if (u.host && u.host[0] == '-') {
		rc = jp_error_set(err, JP_EUSAGE,
				  _("refusing a host name beginning with '-' (it would be read as an option)"));
		goto fail;
	}
	*out = u;
	return 0;
nomem:
	rc = jp_error_oom(err);
fail:
	jp_git_url_dispose(&u);
	return rc;
}

static const char *default_port(enum jp_url_kind k)
{
	switch (k) {
	case JP_URL_HTTP:
		return "80";
	case JP_URL_HTTPS:
		return "443";
	case JP_URL_SSH:
		return "22";
	case JP_URL_GIT:
		return "9418";
	default:
		return "";
	}
}

bool jp_git_url_same_server(const struct jp_git_url *a, const struct jp_git_url *b)
{
	if (a->kind != b->kind || !a->host || !b->host)
		return false;
	if (strcmp(a->host, b->host) != 0)
		return false;
	return strcmp(a->port ? a->port : default_port(a->kind),
		      b->port ? b->port : default_port(b->kind)) == 0;
}

char *jp_git_url_redact(const char *url)
{
	struct jp_git_url u = JP_GIT_URL_INIT;
	char *out;

	if (!url)
		return NULL;
	if (strstr(url, "://")) {
		const char *sep = strstr(url, "://");
		size_t n = (size_t)(sep - url);
		size_t i;

		for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
			if (strlen(schemes[i].name) == n && strncasecmp(url, schemes[i].name, n) == 0)
				break;
		if (i < sizeof(schemes) / sizeof(schemes[0])) {
			u.kind = schemes[i].kind;
			if (parse_scheme_url(&u, url, n) == 0 && u.clean) {
				out = u.clean;
				u.clean = NULL;
				jp_git_url_dispose(&u);
				return out;
			}
			jp_git_url_dispose(&u);
		}
	}
	/* Unknown or broken: the whole user info goes. */
	return jp_url_redact(url);
}
