/* Git URLs as people type them: every form git accepts, the parts credentials
 * are keyed on, the clean form stored in .git/config and the manifest (no
 * password, and no user info at all for http), refusals of '-'; and the
 * launch-command clone line, quoted for sh. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/git.h"
#include "jobprep/url.h"
#include "git_internal.h"

struct url_case {
	const char *in;
	enum jp_url_kind kind;
	const char *user, *secret, *host, *port, *path, *clean;
};

static void every_url_form_splits_into_its_parts(void **state)
{
	static const struct url_case cases[] = {
		{ "https://github.com/team/repo.git", JP_URL_HTTPS, NULL, NULL, "github.com", NULL,
		  "/team/repo.git", "https://github.com/team/repo.git" },
		{ "https://alice:tok%40en@Git.Example.COM:8443/r.git", JP_URL_HTTPS, "alice", "tok@en",
		  "git.example.com", "8443", "/r.git", "https://git.example.com:8443/r.git" },
		{ "HTTP://x@h/r", JP_URL_HTTP, "x", NULL, "h", NULL, "/r", "http://h/r" },
		{ "ssh://git@host:2222/srv/r.git", JP_URL_SSH, "git", NULL, "host", "2222",
		  "/srv/r.git", "ssh://git@host:2222/srv/r.git" },
		{ "ssh://u:pw@host/r", JP_URL_SSH, "u", "pw", "host", NULL, "/r", "ssh://u@host/r" },
		{ "git+ssh://host/r", JP_URL_SSH, NULL, NULL, "host", NULL, "/r", "git+ssh://host/r" },
		{ "git@github.com:team/repo.git", JP_URL_SSH, "git", NULL, "github.com", NULL,
		  "team/repo.git", "git@github.com:team/repo.git" },
		{ "host:repo", JP_URL_SSH, NULL, NULL, "host", NULL, "repo", "host:repo" },
		{ "git://127.0.0.1:9418/r.git", JP_URL_GIT, NULL, NULL, "127.0.0.1", "9418", "/r.git",
		  "git://127.0.0.1:9418/r.git" },
		{ "https://[::1]:8080/r", JP_URL_HTTPS, NULL, NULL, "::1", "8080", "/r",
		  "https://[::1]:8080/r" },
		{ "file:///srv/r.git", JP_URL_FILE, NULL, NULL, NULL, NULL, "/srv/r.git",
		  "file:///srv/r.git" },
		{ "/srv/r.git/", JP_URL_LOCAL, NULL, NULL, NULL, NULL, "/srv/r.git", "/srv/r.git" },
		{ "./dir:with/colon", JP_URL_LOCAL, NULL, NULL, NULL, NULL, NULL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct url_case *c = &cases[i];
		struct jp_git_url u = JP_GIT_URL_INIT;
		struct jp_error err = JP_ERROR_INIT;

		assert_int_equal(jp_git_url_parse(&u, c->in, &err), 0);
		assert_int_equal(u.kind, c->kind);
		if (c->user)
			assert_string_equal(u.user, c->user);
		else
			assert_null(u.user);
		if (c->secret)
			assert_string_equal(u.secret, c->secret);
		else
			assert_null(u.secret);
		if (c->host)
			assert_string_equal(u.host, c->host);
		if (c->port)
			assert_string_equal(u.port, c->port);
		else
			assert_null(u.port);
		if (c->path)
			assert_string_equal(u.path, c->path);
		if (c->clean)
			assert_string_equal(u.clean, c->clean);
		jp_git_url_dispose(&u);
		jp_error_dispose(&err);
	}
}

static void relative_paths_are_made_absolute(void **state)
{
	struct jp_git_url u = JP_GIT_URL_INIT;
	char cwd[4096], want[4200];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/some/repo", cwd);
	assert_int_equal(jp_git_url_parse(&u, "some/repo", NULL), 0);
	assert_string_equal(u.clean, want);
	jp_git_url_dispose(&u);
}

static void dangerous_urls_are_refused(void **state)
{
	static const char *const bad[] = {
		"-oProxyCommand=sh", "--upload-pack=touch x", "ssh://-oProxyCommand=x/r",
		"-host:path", "ftp://h/r", "https:///nohost", "", "https://h/r\nx",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jp_git_url u = JP_GIT_URL_INIT;
		struct jp_error err = JP_ERROR_INIT;

		assert_int_equal(jp_git_url_parse(&u, bad[i], &err), JP_EUSAGE);
		assert_null(u.clean);
		jp_error_dispose(&err);
	}
}

static void refusal_messages_never_show_the_token(void **state)
{
	struct jp_git_url u = JP_GIT_URL_INIT;
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	assert_int_not_equal(jp_git_url_parse(&u, "https://bob:sekrit@[::1/r", &err), 0);
	assert_null(strstr(jp_error_message(&err), "sekrit"));
	jp_error_dispose(&err);
	/* Not a URL (a raw '/' ends the authority at "bob:se"), but what was
	 * meant as a password is not echoed either. */
	assert_int_not_equal(jp_git_url_parse(&u, "https://bob:se/krit@host/r", &err), 0);
	assert_null(strstr(jp_error_message(&err), "se/krit"));
	assert_null(strstr(jp_error_message(&err), "bob:se"));
	jp_error_dispose(&err);
}

static void redact_drops_secrets_and_http_user_info(void **state)
{
	static const char *const cases[][2] = {
		{ "https://alice:tok@h/r.git", "https://h/r.git" },
		{ "https://ghp_secret@h/r.git", "https://h/r.git" },
		{ "ssh://git:pw@h/r", "ssh://git@h/r" },
		{ "git@h:r.git", "git@h:r.git" },
		{ "/local/path", "/local/path" },
		{ "weird://u:p@h/x", "weird://h/x" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *r = jp_git_url_redact(cases[i][0]);

		assert_non_null(r);
		assert_string_equal(r, cases[i][1]);
		free(r);
	}
}

/* Hostile URLs: the one rule (jobprep/url.h) decides where the user info
 * ends; the manifest's check, the clone's parser and both redactions agree
 * with it; no credential survives redaction or argv blanking. */
struct hostile {
	const char *in;
	bool has_credentials;
	bool parses; /* jp_git_url_parse accepts it */
	const char *user, *secret, *host;
	const char *cred; /* raw bytes that must not survive (NULL: none) */
};

static const struct hostile hostile[] = {
	{ "https://bob:pa#ss@host/x.git", true, true, "bob", "pa#ss", "host", "pa#ss" },
	{ "https://bob:pa?ss@host/x.git", true, true, "bob", "pa?ss", "host", "pa?ss" },
	{ "https://bob:p@ss@host/x.git", true, true, "bob", "p@ss", "host", "p@ss" },
	{ "https://bob:pw@host#frag@evil/x", true, true, "bob", "pw@host#frag", "evil",
	  "pw@host#frag" },
	{ "https://bob:pw@host?x=1", true, false, NULL, NULL, NULL, "pw" },
	/* A raw '/' ends the authority: "bob" with port "pa", not a URL. */
	{ "https://bob:pa/ss@host/x.git", false, false, NULL, NULL, NULL, NULL },
	{ "https://bob:pa%2Fss@host/x.git", true, true, "bob", "pa/ss", "host", "pa%2Fss" },
	{ "https://TOKEN123@host/x", true, true, "TOKEN123", NULL, "host", "TOKEN123" },
	{ "HTTPS://TOKEN123@Host/x", true, true, "TOKEN123", NULL, "host", "TOKEN123" },
	{ "http://TOKEN123@host:8080/x", true, true, "TOKEN123", NULL, "host", "TOKEN123" },
	{ "https://us:er:pw@host/x", true, true, "us", "er:pw", "host", "er:pw" },
	{ "https://a%40b:c%3Ad@host/x", true, true, "a@b", "c:d", "host", "c%3Ad" },
	{ "https://bob:pw@[::1]:8443/x", true, true, "bob", "pw", "::1", "pw" },
	{ "https://[fe80::1%25eth0]/x", false, true, NULL, NULL, "fe80::1%25eth0", NULL },
	{ "https://bob:pw@[::1/x", true, false, NULL, NULL, NULL, "pw" },
	{ "https://host/x@y", false, true, NULL, NULL, "host", NULL },
	{ "https://host/x?u=a:b@c", false, true, NULL, NULL, "host", NULL },
	{ "ssh://git@host/x", false, true, "git", NULL, "host", NULL },
	{ "ssh://u:pw@host/r", true, true, "u", "pw", "host", "pw" },
	{ "git://u:pw@host/r", true, true, "u", "pw", "host", "pw" },
	{ "git@host:team/x.git", false, true, "git", NULL, "host", NULL },
	{ "git@host:team/x@v2.git", false, true, "git", NULL, "host", NULL },
	{ "host:x", false, true, NULL, NULL, "host", NULL },
	{ "ftp://u:pw@host/x", true, false, NULL, NULL, NULL, "pw" },
	{ "/srv/git/a@b:c", false, true, NULL, NULL, NULL, NULL },
};

static void hostile_urls_agree_on_the_user_info(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		const struct hostile *c = &hostile[i];
		struct jp_git_url u = JP_GIT_URL_INIT;
		struct jp_error err = JP_ERROR_INIT;
		int rc = jp_git_url_parse(&u, c->in, &err);

		print_message("%s\n", c->in);
		assert_int_equal(jp_url_has_credentials(c->in), c->has_credentials);
		assert_int_equal(rc == 0, c->parses);
		if (rc == 0) {
			bool http = u.kind == JP_URL_HTTP || u.kind == JP_URL_HTTPS;

			if (c->user)
				assert_string_equal(u.user, c->user);
			else
				assert_null(u.user);
			if (c->secret)
				assert_string_equal(u.secret, c->secret);
			else
				assert_null(u.secret);
			if (c->host)
				assert_string_equal(u.host, c->host);
			/* The parser and the manifest's check: the same answer. */
			assert_int_equal(c->has_credentials,
					 u.secret != NULL || (http && u.user != NULL));
			if (c->cred)
				assert_null(strstr(u.clean, c->cred));
		} else if (c->cred) {
			assert_null(strstr(jp_error_message(&err), c->cred));
		}
		jp_git_url_dispose(&u);
		jp_error_dispose(&err);
	}
}

static void no_credential_survives_redaction_or_blanking(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		const struct hostile *c = &hostile[i];
		char *a = jp_url_redact(c->in), *b = jp_git_url_redact(c->in);
		char *blank = strdup(c->in);
		const char *at;

		print_message("%s\n", c->in);
		assert_non_null(a);
		assert_non_null(b);
		assert_non_null(blank);
		jp_url_blank_credentials(blank);
		assert_int_equal(strlen(blank), strlen(c->in));
		if (c->cred) {
			assert_null(strstr(a, c->cred));
			assert_null(strstr(b, c->cred));
			assert_null(strstr(blank, c->cred));
			/* Blanking touches only the credential, every byte of it. */
			at = strstr(c->in, c->cred);
			assert_non_null(at);
			for (size_t k = 0; k < strlen(c->in); k++) {
				bool in_cred = k >= (size_t)(at - c->in) &&
					       k < (size_t)(at - c->in) + strlen(c->cred);
				if (in_cred)
					assert_int_equal(blank[k], '*');
				else
					assert_int_equal(blank[k], c->in[k]);
			}
		} else {
			assert_string_equal(a, c->in);
			assert_string_equal(blank, c->in);
		}
		free(a);
		free(b);
		free(blank);
	}
}

static void same_server_compares_scheme_host_and_port(void **state)
{
	struct jp_git_url a = JP_GIT_URL_INIT, b = JP_GIT_URL_INIT, c = JP_GIT_URL_INIT,
			  d = JP_GIT_URL_INIT;

	(void)state;
	assert_int_equal(jp_git_url_parse(&a, "https://H.example/x", NULL), 0);
	assert_int_equal(jp_git_url_parse(&b, "https://h.example:443/y", NULL), 0);
	assert_int_equal(jp_git_url_parse(&c, "https://h.example.evil/x", NULL), 0);
	assert_int_equal(jp_git_url_parse(&d, "http://h.example/x", NULL), 0);
	assert_true(jp_git_url_same_server(&a, &b));
	assert_false(jp_git_url_same_server(&a, &c));
	assert_false(jp_git_url_same_server(&a, &d));
	jp_git_url_dispose(&a);
	jp_git_url_dispose(&b);
	jp_git_url_dispose(&c);
	jp_git_url_dispose(&d);
}

static void clone_line_is_pinned_and_quoted(void **state)
{
	const char *sha = "0123456789abcdef0123456789abcdef01234567";
	char *cmd = NULL;

	(void)state;
	assert_int_equal(jp_git_clone_command(&cmd, "https://u:tok@h/r.git", sha, "it's here", 0,
					      NULL),
			 0);
	assert_null(strstr(cmd, "tok"));
	assert_non_null(strstr(cmd, "git init -q 'it'\\''s here' && "));
	assert_non_null(strstr(cmd, "remote add origin https://h/r.git"));
	assert_non_null(strstr(cmd, "fetch -q --depth 1 origin 0123456789abcdef"));
	assert_non_null(strstr(cmd, "checkout -q --detach 0123456789abcdef0123456789abcdef01234567"));
	assert_null(strstr(cmd, "submodule"));
	free(cmd);
	assert_int_equal(jp_git_clone_command(&cmd, "git@h:r.git", sha, "code",
					      JP_GIT_CMD_SUBMODULES, NULL),
			 0);
	assert_non_null(strstr(cmd, "submodule update -q --init --recursive"));
	free(cmd);
	assert_int_equal(jp_git_clone_command(&cmd, "h:r", "abc", "code", 0, NULL), JP_EUSAGE);
	assert_int_equal(jp_git_clone_command(&cmd, "h:r", sha, "-rf", 0, NULL), JP_EUSAGE);
	assert_int_equal(jp_git_clone_command(&cmd, "-u", sha, "code", 0, NULL), JP_EUSAGE);
}

static void ref_kinds_have_their_json_names(void **state)
{
	(void)state;
	assert_string_equal(jp_git_ref_kind_name(JP_GIT_REF_BRANCH), "branch");
	assert_string_equal(jp_git_ref_kind_name(JP_GIT_REF_TAG), "tag");
	assert_string_equal(jp_git_ref_kind_name(JP_GIT_REF_COMMIT), "commit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_url_form_splits_into_its_parts),
		cmocka_unit_test(relative_paths_are_made_absolute),
		cmocka_unit_test(dangerous_urls_are_refused),
		cmocka_unit_test(refusal_messages_never_show_the_token),
		cmocka_unit_test(redact_drops_secrets_and_http_user_info),
		cmocka_unit_test(hostile_urls_agree_on_the_user_info),
		cmocka_unit_test(no_credential_survives_redaction_or_blanking),
		cmocka_unit_test(same_server_compares_scheme_host_and_port),
		cmocka_unit_test(clone_line_is_pinned_and_quoted),
		cmocka_unit_test(ref_kinds_have_their_json_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
