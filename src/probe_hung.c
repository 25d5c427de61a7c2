/* The mounts known hung: where a bounded call (a thread of probe.c, a child
 * of probe_child.c) is still stuck. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "probe_internal.h"

/* Mounts where a call is still stuck: a later look there fails at once
 * instead of waiting a timeout of its own, so a command pays one timeout
 * per hung mount, not one per path. A mount leaves the list when its last
 * stuck call returns (the mount answers again). */
static pthread_mutex_t hung_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hung_mount {
	char *mount_point;
	unsigned stuck;
} *hung;
static size_t n_hung;

/* The mount point holding path, from the mount table (which never touches
 * the mount itself); NULL when unknown or the root. */
char *probe_mount_of(const char *path)
{
	struct jp_mount_table t;
	char *mp = NULL;

	if (!path || path[0] != '/' || jp_mount_table_load(&t, NULL, NULL) != 0)
		return NULL;
	const struct jp_mount *m = jp_mount_table_find(&t, path);
	if (m && m->mount_point && strcmp(m->mount_point, "/") != 0)
		mp = strdup(m->mount_point);
	jp_mount_table_dispose(&t);
	return mp;
}

void probe_hung_add(const char *mp)
{
	pthread_mutex_lock(&hung_lock);
	for (size_t i = 0; i < n_hung; i++) {
		if (strcmp(hung[i].mount_point, mp) == 0) {
			hung[i].stuck++;
			pthread_mutex_unlock(&hung_lock);
			return;
		}
	}
	struct hung_mount *g = realloc(hung, (n_hung + 1) * sizeof(*g));
	char *copy = strdup(mp);
	if (g)
		hung = g;
	if (g && copy) {
		hung[n_hung].mount_point = copy;
		hung[n_hung].stuck = 1;
		n_hung++;
	} else {
		free(copy);
	}
	pthread_mutex_unlock(&hung_lock);
}

void probe_hung_remove(const char *mp)
{
	pthread_mutex_lock(&hung_lock);
	for (size_t i = 0; i < n_hung; i++) {
		if (strcmp(hung[i].mount_point, mp) != 0)
			continue;
		if (--hung[i].stuck == 0) {
			free(hung[i].mount_point);
			hung[i] = hung[--n_hung];
		}
		break;
	}
	pthread_mutex_unlock(&hung_lock);
}

bool probe_hung_find(const char *path, char *buf, size_t len)
{
	bool found = false;

	pthread_mutex_lock(&hung_lock);
	for (size_t i = 0; i < n_hung && !found; i++) {
		if (jp_path_is_under(path, hung[i].mount_point)) {
			snprintf(buf, len, "%s", hung[i].mount_point);
			found = true;
		}
	}
	pthread_mutex_unlock(&hung_lock);
	return found;
}
