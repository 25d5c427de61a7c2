/* What the process boundary (helper.c) shares with the looks: requests'
 * inputs and answers as bytes (struct probe_bytes), and the helpers left
 * behind. A helper that did not answer in time is killed and left to the
 * kernel: a thread stuck on a hung mount (a FUSE request already sent, an
 * NFS hard mount) cannot be killed and would keep its whole process from
 * being reaped, so the work runs in a helper, and the command itself
 * still exits at once. Such a helper dies when the mount answers (init
 * reaps it if we are gone by then); until then its mount counts as hung. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "probe_internal.h"
#include "profile_internal.h"
#include "spawn_internal.h"

/* --- bytes ------------------------------------------------------------------ */

void probe_bytes_put(struct probe_bytes *b, const void *data, size_t n)
{
	if (b->bad)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 512;
		while (cap < b->n + n)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->bad = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

void probe_bytes_put_str(struct probe_bytes *b, const char *s)
{
	uint32_t len = s ? (uint32_t)strlen(s) : UINT32_MAX;

	probe_bytes_put(b, &len, sizeof(len));
	if (s)
		probe_bytes_put(b, s, len);
}

void probe_bytes_get(struct probe_bytes *b, void *out, size_t n)
{
	if (b->bad || b->off + n > b->n) {
		b->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, b->p + b->off, n);
	b->off += n;
}

char *probe_bytes_get_str(struct probe_bytes *b)
{
	uint32_t len;
	char *s;

	probe_bytes_get(b, &len, sizeof(len));
	if (b->bad || len == UINT32_MAX)
		return NULL;
	if (b->off + len > b->n || !(s = malloc((size_t)len + 1))) {
		b->bad = true;
		return NULL;
	}
	memcpy(s, b->p + b->off, len);
	s[len] = '\0';
	b->off += len;
	return s;
}

void probe_bytes_put_profile(struct probe_bytes *b, const struct jp_profile *profile)
{
	cJSON *json = profile ? jp_profile_to_json(profile) : NULL;
	char *text = json ? cJSON_PrintUnformatted(json) : NULL;

	if (profile && !text)
		b->bad = true;
	probe_bytes_put_str(b, text);
	cJSON_free(text);
	cJSON_Delete(json);
}

int probe_bytes_get_profile(struct jp_profile **out, struct probe_bytes *b, struct jp_error *err)
{
	char *text = probe_bytes_get_str(b);
	cJSON *json = text ? cJSON_Parse(text) : NULL;
	int rc = 0;

	*out = NULL;
	if (text && !json)
		rc = jp_error_set(err, JP_EINTERNAL, "%s", _("the look at it failed"));
	else if (json)
		rc = jp_profile_from_json(out, json, "profile", err);
	cJSON_Delete(json);
	free(text);
	return rc;
}

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
