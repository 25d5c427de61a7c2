/* Credentials for git: ssh-agent and default keys for ssh; for http(s) the
 * URL's token, JOBPREP_GIT_TOKEN, git's credential helpers, then a person
 * through the port. At most three credentials per URL (libgit2 would ask
 * forever); tokens go only to the server the person named; every secret is
 * wiped after use. */
#include "config.h"

#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "git_internal.h"

#define MAX_ATTEMPTS 3
#define HELPER_TIMEOUT_MS 15000
#define SECRET_MAX 1024

static const char *const default_keys[] = { "id_ed25519", "id_rsa", "id_ecdsa" };
#define N_KEYS (sizeof(default_keys) / sizeof(default_keys[0]))

/* What has been tried for one URL. */
struct cred_state {
	char *url;
	unsigned attempts; /* credentials handed to libgit2 */
	bool url_secret_used, env_used, helper_used, agent_used;
	unsigned key_next;
	char *user;        /* learned from a helper or a person */
};

struct jp_git_creds {
	const struct jp_port *port;
	struct jp_git_url named; /* copy of the URL the person typed */
	struct cred_state *st;
	size_t n;
};

int jp_git_creds_new(struct jp_git_creds **out, const struct jp_git_url *named,
		     const struct jp_port *port)
{
	struct jp_git_creds *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return JP_ENOMEM;
	c->port = port;
	c->named.kind = named->kind;
	c->named.scp = named->scp;
	if ((named->user && !(c->named.user = strdup(named->user))) ||
	    (named->secret && !(c->named.secret = strdup(named->secret))) ||
	    (named->host && !(c->named.host = strdup(named->host))) ||
	    (named->port && !(c->named.port = strdup(named->port)))) {
		jp_git_creds_free(c);
		return JP_ENOMEM;
	}
	*out = c;
	return 0;
}

void jp_git_creds_free(struct jp_git_creds *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->st[i].url);
		free(c->st[i].user);
	}
	free(c->st);
	jp_git_url_dispose(&c->named);
	free(c);
}

const struct jp_git_url *jp_git_creds_named(const struct jp_git_creds *c)
{
	return &c->named;
}

static struct cred_state *state_for(struct jp_git_creds *c, const char *url)
{
	struct cred_state *grown;

	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->st[i].url, url) == 0)
			return &c->st[i];
	grown = realloc(c->st, (c->n + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	c->st = grown;
	memset(&c->st[c->n], 0, sizeof(c->st[c->n]));
	if (!(c->st[c->n].url = strdup(url)))
		return NULL;
	return &c->st[c->n++];
}

static const char *login_name(void)
{
	struct passwd *pw = getpwuid(geteuid());
	const char *u = getenv("USER");

	if (pw && pw->pw_name)
		return pw->pw_name;
	return u ? u : "git";
}

static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && *h)
		return h;
	pw = getpwuid(geteuid());
	return pw ? pw->pw_dir : "/";
}

/* Ask the port for a secret; 0 and a malloc'd copy in *out, or < 0. */
static int ask(char **out, const struct jp_port *port, const char *prompt)
{
	char buf[SECRET_MAX];
	int rc;

	*out = NULL;
	if (!port || !port->ask_secret)
		return JP_ENEEDUSER;
	memset(buf, 0, sizeof(buf));
	rc = port->ask_secret(buf, sizeof(buf), prompt, port->payload);
	buf[sizeof(buf) - 1] = '\0';
	if (rc == 0 && !(*out = strdup(buf)))
		rc = JP_ENOMEM;
	explicit_bzero(buf, sizeof(buf));
	return rc < 0 ? JP_ENEEDUSER : rc;
}

/* ---- git credential fill ---- */

/* Run `git credential fill` for protocol/host/path; on success *user and
 * *pass are malloc'd (pass wiped by the caller). */
static int helper_fill(char **user, char **pass, const char *protocol,
		       const char *host, const char *path, const char *known_user)
{
	char *const argv[] = { (char *)"git", (char *)"-c", (char *)"credential.interactive=false",
			       (char *)"credential", (char *)"fill", NULL };
	char *req = NULL;
	char buf[8192];
	int rc = -1;

	*user = *pass = NULL;
	if (asprintf(&req, "protocol=%s\nhost=%s\n%s%s%s%s%s%s\n", protocol, host,
		     path ? "path=" : "", path ? path : "", path ? "\n" : "",
		     known_user ? "username=" : "", known_user ? known_user : "",
		     known_user ? "\n" : "") < 0)
		return -1;
	if (jp_run_capture(argv, req, buf, sizeof(buf), HELPER_TIMEOUT_MS) != 0)
		goto done;
	for (char *line = buf, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (strncmp(line, "username=", 9) == 0 && !*user)
			*user = strdup(line + 9);
		else if (strncmp(line, "password=", 9) == 0 && !*pass)
			*pass = strdup(line + 9);
	}
	if (*pass && *user)
		rc = 0;
done:
	explicit_bzero(buf, sizeof(buf));
	if (rc != 0) {
		free(*user);
		jp_secret_free(*pass);
		*user = *pass = NULL;
	}
	free(req);
	return rc;
}

/* ---- the libgit2 callback ---- */

static bool key_is_encrypted(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (strstr(buf, "ENCRYPTED"))
		return true;
	if (strstr(buf, "BEGIN OPENSSH PRIVATE KEY")) {
		/* openssh-key-v1: base64 of "openssh-key-v1\0" + cipher name;
		 * "none" encodes as ...AAAABG5vbmU... */
		return strstr(buf, "AAAABG5vbmU") == NULL;
	}
	return false;
}

static int ssh_key_cred(git_credential **out, struct jp_git_op *op,
			struct cred_state *st, const char *user, const char *host)
{
	struct jp_git_creds *c = op->creds;
	const char *home = home_dir();

	if (!st->agent_used) {
		st->agent_used = true;
		if (getenv("SSH_AUTH_SOCK"))
			return git_credential_ssh_key_from_agent(out, user);
	}
	while (st->key_next < N_KEYS) {
		char priv[4096], pub[4200], prompt[4400];
		char *pass = NULL;
		struct stat sb;
		int rc;

		snprintf(priv, sizeof(priv), "%s/.ssh/%s", home, default_keys[st->key_next++]);
		if (stat(priv, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		snprintf(pub, sizeof(pub), "%s.pub", priv);
		if (key_is_encrypted(priv)) {
			if (st->attempts >= MAX_ATTEMPTS)
				break;
			snprintf(prompt, sizeof(prompt), _("Passphrase for %s (for %s@%s)"), priv,
				 user, host);
			if (ask(&pass, c->port, prompt) != 0)
				continue;
		}
		st->attempts++;
		rc = git_credential_ssh_key_new(out, user, stat(pub, &sb) == 0 ? pub : NULL, priv,
						pass ? pass : "");
		jp_secret_free(pass);
		return rc;
	}
	return jp_git_op_fail(op, JP_EAUTH,
			      _("no ssh key was accepted by %s for user %s (tried %s, then ~/.ssh/%s, "
				"%s, %s)"),
			      host, user, getenv("SSH_AUTH_SOCK") ? "ssh-agent" : "no ssh-agent",
			      default_keys[0], default_keys[1], default_keys[2]);
}

/* A lone user name in an http(s) URL may be a token (jobprep's own checks
 * treat it as one, jp_url_has_credentials): true when that is the user the
 * password is asked for. */
static bool url_user_may_be_token(const struct jp_git_creds *c, const struct cred_state *st,
				  const struct jp_git_url *u, bool same_server,
				  const char *username_from_url)
{
	return !username_from_url && !st->user && same_server && c->named.user &&
	       !c->named.secret && (u->kind == JP_URL_HTTP || u->kind == JP_URL_HTTPS);
}

/* The question for the password; user NULL when it must not be shown. */
static void password_prompt(char *buf, size_t len, const char *user, const char *hostport)
{
	if (!user)
		snprintf(buf, len, _("Password or token for %s (for the user name given in the URL)"),
			 hostport);
	else
		snprintf(buf, len, _("Password or token for %s@%s"), user, hostport);
}

static int userpass_cred(git_credential **out, struct jp_git_op *op,
			 struct cred_state *st, const struct jp_git_url *u,
			 bool same_server, const char *username_from_url)
{
	struct jp_git_creds *c = op->creds;
	const char *user = username_from_url ? username_from_url
			   : st->user             ? st->user
			   : same_server && c->named.user ? c->named.user
							  : NULL;
	bool user_from_url_only = url_user_may_be_token(c, st, u, same_server, username_from_url);
	char hostport[600];
	char prompt[800];
	char *typed_user = NULL, *pass = NULL;
	int rc;

	snprintf(hostport, sizeof(hostport), "%s%s%s", u->host ? u->host : "",
		 u->port ? ":" : "", u->port ? u->port : "");
	if (st->attempts >= MAX_ATTEMPTS)
		return jp_git_op_fail(op, JP_EAUTH,
				      _("%s refused %u credentials; giving up (check the user name "
					"and token)"),
				      hostport, st->attempts);

	/* 1. The token written in the URL, for the server it was written for. */
	if (same_server && c->named.secret && !st->url_secret_used) {
		st->url_secret_used = true;
		st->attempts++;
		return git_credential_userpass_plaintext_new(out, user ? user : "git",
							     c->named.secret);
	}
	/* 2. JOBPREP_GIT_TOKEN, likewise only for the named server. */
	if (same_server && !st->env_used) {
		const char *tok = getenv("JOBPREP_GIT_TOKEN");

		st->env_used = true;
		if (tok && *tok) {
			const char *env_user = getenv("JOBPREP_GIT_USER");

			st->attempts++;
			return git_credential_userpass_plaintext_new(
				out, user ? user : (env_user && *env_user ? env_user : "git"), tok);
		}
	}
	/* 3. git's credential helpers, which are keyed by host themselves. */
	if (!st->helper_used && (u->kind == JP_URL_HTTP || u->kind == JP_URL_HTTPS)) {
		char *hu = NULL, *hp = NULL;
		const char *path = u->path && u->path[0] == '/' ? u->path + 1 : u->path;

		st->helper_used = true;
		if (helper_fill(&hu, &hp, u->kind == JP_URL_HTTPS ? "https" : "http", hostport,
				path, user) == 0) {
			st->attempts++;
			rc = git_credential_userpass_plaintext_new(out, user ? user : hu, hp);
			if (!st->user && !user)
				st->user = hu, hu = NULL;
			free(hu);
			jp_secret_free(hp);
			return rc;
		}
	}
	/* 4. The person. */
	if (!user) {
		snprintf(prompt, sizeof(prompt), _("Username for %s"), hostport);
		if (ask(&typed_user, c->port, prompt) != 0 || !*typed_user) {
			free(typed_user);
			goto declined;
		}
		free(st->user);
		st->user = typed_user;
		user = st->user;
	}
	password_prompt(prompt, sizeof(prompt), user_from_url_only ? NULL : user, hostport);
	if (ask(&pass, c->port, prompt) != 0) {
		jp_secret_free(pass);
		goto declined;
	}
	st->attempts++;
	rc = git_credential_userpass_plaintext_new(out, user, pass);
	jp_secret_free(pass);
	return rc;
declined:
	if (st->attempts > 0)
		return jp_git_op_fail(op, JP_EAUTH,
				      _("%s refused the credentials given (%u tried)"), hostport,
				      st->attempts);
	return jp_git_op_fail(op, JP_EAUTH,
			      _("%s asks for a user name and password or token, and none is "
				"available (set JOBPREP_GIT_TOKEN, configure a git credential helper, "
				"or run interactively)"),
			      hostport);
}

static int cred_cb(git_credential **out, const char *url, const char *username_from_url,
		   unsigned int allowed_types, void *payload)
{
	struct jp_git_op *op = payload;
	struct jp_git_creds *c = op->creds;
	struct jp_git_url u = JP_GIT_URL_INIT;
	struct cred_state *st;
	bool same;
	int rc;

	*out = NULL;
	if (op->canceled)
		return GIT_EUSER;
	if (!c)
		return GIT_PASSTHROUGH;
	if (jp_git_url_parse(&u, url, NULL) != 0)
		return jp_git_op_fail(op, JP_EAUTH, _("cannot tell which server asks for a password"));
	if (!(st = state_for(c, u.clean))) {
		jp_git_url_dispose(&u);
		return jp_git_op_fail(op, JP_ENOMEM, "%s", _("out of memory"));
	}
	same = jp_git_url_same_server(&u, &c->named);
	if (username_from_url && !*username_from_url)
		username_from_url = NULL;

	if (allowed_types & GIT_CREDENTIAL_USERNAME) {
		rc = git_credential_username_new(out, username_from_url ? username_from_url
						 : same && c->named.user ? c->named.user
									 : login_name());
	} else if (allowed_types & GIT_CREDENTIAL_SSH_KEY) {
		rc = ssh_key_cred(out, op, st,
				  username_from_url ? username_from_url
				  : same && c->named.user ? c->named.user
							  : login_name(),
				  u.host ? u.host : "?");
	} else if (allowed_types & GIT_CREDENTIAL_USERPASS_PLAINTEXT) {
		rc = userpass_cred(out, op, st, &u, same, username_from_url);
	} else {
		rc = jp_git_op_fail(op, JP_EAUTH,
				    _("%s asks for a kind of authentication jobprep does not support"),
				    u.host ? u.host : url);
	}
	jp_git_url_dispose(&u);
	return rc;
}

int jp_git_cred_cb(git_credential **out, const char *url,
		   const char *username_from_url, unsigned int allowed_types,
		   void *payload)
{
	return cred_cb(out, url, username_from_url, allowed_types, payload);
}
