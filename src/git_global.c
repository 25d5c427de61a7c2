/* libgit2's process-wide state: set up once, on first use by any jp_git_*
 * call or by the front end, and torn down once at exit. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "jobprep/i18n.h"
#include "git_internal.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_rc;
static bool initialised;
static bool in_helper;
static char init_msg[256];

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
	if (jp_git_stream_register() != 0 || jp_git_ssh_refuse() != 0) {
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
