/* libgit2's process-wide state: set up once, on first use by any jp_git_*
 * call or by the front end, and torn down once at exit. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <git2/sys/transport.h>

#include "jobprep/i18n.h"
#include "git_internal.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_rc;
static bool initialised;
static bool in_helper;
static char init_msg[256];

/* In this process, ssh:// (and an scp-like URL) gets a transport that
 * refuses: libssh2 would need libgit2's own socket stream, which
 * jp_git_stream_register replaces here; ssh runs in a helper (git_ssh.c),
 * and a path that forgot to go there fails cleanly. */

static int refuse_ssh(git_transport **out, git_remote *owner, void *param)
{
	(void)out;
	(void)owner;
	(void)param;
	git_error_set_str(GIT_ERROR_SSH,
			  "ssh runs only in a helper process (git_ssh.c); this path does not");
	return GIT_ERROR;
}

static int refuse_ssh_here(void)
{
	static const char *const prefixes[] = {"ssh://", "ssh+git://", "git+ssh://"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (git_transport_register(prefixes[i], refuse_ssh, NULL) != 0)
			return -1;
	return 0;
}

static void init_once(void)
{
	int rc = git_libgit2_init();

	if (rc < 0) {
		const git_error *e = git_error_last();

		snprintf(init_msg, sizeof(init_msg), "%s", e && e->message ? e->message : "?");
		init_rc = JP_EGIT;
		return;
	}
	initialised = true;
	/* A CA bundle named the usual OpenSSL way (a company's own CA)
	 * is trusted for https as well. */
	if (getenv("SSL_CERT_FILE") || getenv("SSL_CERT_DIR"))
		git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, getenv("SSL_CERT_FILE"),
				 getenv("SSL_CERT_DIR"));
	/* An ssh step's helper keeps libgit2's own socket stream, the one
	 * libssh2 can use (git_ssh.c). */
	if (in_helper)
		return;
	if (jp_git_stream_register() != 0 || refuse_ssh_here() != 0) {
		snprintf(init_msg, sizeof(init_msg), "%s", "cannot register the socket stream");
		init_rc = JP_EGIT;
	}
}

void jp_git_global_in_helper(void)
{
	in_helper = true;
}

int jp_git_global_init(struct jp_error *err)
{
	pthread_once(&once, init_once);
	if (init_rc != 0)
		return jp_error_set(err, init_rc, _("cannot initialise libgit2: %s"), init_msg);
	return 0;
}

void jp_git_global_shutdown(void)
{
	/* Only if it was set up: libgit2 counts inits and shutdowns. Called
	 * once, at exit, when no git work runs. */
	if (initialised) {
		git_libgit2_shutdown();
		initialised = false;
	}
}
