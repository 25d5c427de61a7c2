/* The children a look left behind (probe_internal.h): a helper killed
 * because it did not answer in time, with a thread stuck on a hung mount (a
 * FUSE request already sent, an NFS hard mount), cannot be reaped until the
 * mount answers; spawn.c keeps it until then, and its mount counts as hung
 * here: a call on a path there fails at once (jp_probe_fail_hung, which
 * jp_helper_call and jp_helper_watch ask first: no caller asks) instead of
 * leaving one more helper behind. The
 * command itself still exits at once (init reaps such a child if we are
 * gone by then). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "probe_internal.h"
#include "spawn_internal.h"

/* --- children left behind ------------------------------------------------------- */

/* The mounts of the children left behind (spawn.c keeps and reaps the
 * children themselves). */
static pthread_mutex_t kids_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kid {
	pid_t pid;
	char *mount_point; /* counted as hung while the child lives */
} *kids;
static size_t n_kids;

static void kid_add(pid_t pid, char *mount_point)
{
	pthread_mutex_lock(&kids_lock);
	struct kid *g = realloc(kids, (n_kids + 1) * sizeof(*g));
	if (g) {
		kids = g;
		kids[n_kids].pid = pid;
		kids[n_kids].mount_point = mount_point;
		n_kids++;
		probe_hung_add(mount_point);
	} else {
		free(mount_point);
	}
	pthread_mutex_unlock(&kids_lock);
}

void probe_child_reap(void)
{
	jp_child_reap_left();
	pthread_mutex_lock(&kids_lock);
	for (size_t i = 0; i < n_kids;) {
		if (jp_child_left(kids[i].pid)) {
			i++;
			continue;
		}
		probe_hung_remove(kids[i].mount_point);
		free(kids[i].mount_point);
		kids[i] = kids[--n_kids];
	}
	pthread_mutex_unlock(&kids_lock);
}

void probe_child_finish(struct jp_child *c, const char *path)
{
	pid_t pid = c->pid;
	char *mount_point;

	if (jp_child_finish(c, true, NULL) == 0 || !path)
		return;
	if ((mount_point = probe_mount_of(path)))
		kid_add(pid, mount_point);
}

/* --- mounts known hung ------------------------------------------------------------- */

/* The hung mount path is under, copied into buf; false when none. The
 * children that have died first let their mounts go. */
static bool under_hung(const char *path, char *buf, size_t len)
{
	if (!path || path[0] != '/')
		return false;
	probe_child_reap();
	return probe_hung_find(path, buf, len);
}

int jp_probe_fail_hung(const char *path, struct jp_error *err)
{
	char mp[4096];

	if (!under_hung(path, mp, sizeof(mp)))
		return 0;
	return jp_error_set(err, JP_ETIMEOUT,
			    _("%s: no answer: %s, the mount it is on, has not answered an "
			      "earlier look yet (is a network mount hung?)"),
			    path, mp);
}

/* --- the bounds of a look ------------------------------------------------------- */

/* JOBPREP_PROBE_TIMEOUT_MS when set to a bound from 1 ms to 10 minutes,
 * else 0. */
static unsigned timeout_from_env(void)
{
	const char *s = getenv("JOBPREP_PROBE_TIMEOUT_MS");
	if (s && *s) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(s, &end, 10);
		if (!errno && !*end && v > 0 && v <= 600000)
			return (unsigned)v;
	}
	return 0;
}

unsigned jp_probe_default_timeout_ms(void)
{
	unsigned v = timeout_from_env();

	return v ? v : JP_PROBE_DEFAULT_TIMEOUT_MS;
}

unsigned jp_probe_interactive_timeout_ms(void)
{
	unsigned v = timeout_from_env();

	return v ? v : JP_PROBE_INTERACTIVE_MS;
}
