/* What the process boundary (helper.c) shares with the looks: requests'
 * inputs and answers as bytes (struct probe_bytes), and the helpers left
 * behind. A helper that did not answer in time is killed and left to the
 * kernel: a thread stuck on a hung mount (a FUSE request already sent, an
 * NFS hard mount) cannot be killed and would keep its whole process from
 * being reaped, so the work runs in a helper, and the command itself
 * still exits at once. Such a helper dies when the mount answers (init
 * reaps it if we are gone by then); until then its mount counts as hung. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jobprep/i18n.h"
#include "deadline_internal.h"
#include "probe_internal.h"
#include "profile_internal.h"

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

/* a killed child is waited for this long at most... */
#define REAP_MS 1000
/* ...and no longer than this when a thread of it is stuck in the kernel */
#define STUCK_MS 20

static pthread_mutex_t kids_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kid {
	pid_t pid;
	char *mount_point; /* counted as hung while the child lives; may be NULL */
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
		if (mount_point)
			probe_hung_add(mount_point);
	} else {
		free(mount_point);
	}
	pthread_mutex_unlock(&kids_lock);
}

void probe_child_reap(void)
{
	pthread_mutex_lock(&kids_lock);
	for (size_t i = 0; i < n_kids;) {
		pid_t r = waitpid(kids[i].pid, NULL, WNOHANG);
		if (r == 0 || (r < 0 && errno == EINTR)) {
			i++;
			continue;
		}
		if (kids[i].mount_point) {
			probe_hung_remove(kids[i].mount_point);
			free(kids[i].mount_point);
		}
		kids[i] = kids[--n_kids];
	}
	pthread_mutex_unlock(&kids_lock);
}

/* Is a thread of pid waiting in the kernel (state D: a FUSE request already
 * sent, an NFS hard mount)? A kill does not end it before the mount
 * answers. */
static bool stuck_in_kernel(pid_t pid)
{
	char path[64], buf[512];
	struct dirent *e;
	bool stuck = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if (!(d = opendir(path)))
		return false;
	while (!stuck && (e = readdir(d))) {
		char *p;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/stat", (long)pid, e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		/* after the name in parentheses: the state */
		if ((p = strrchr(buf, ')')) && p[1] == ' ' && p[2] == 'D')
			stuck = true;
	}
	closedir(d);
	return stuck;
}

/* Reap pid, killed, within REAP_MS: true, or false when it has not ended
 * by then or is stuck in the kernel (after STUCK_MS, so that a thread
 * caught in a moment's disk wait is not taken for one). */
static bool reaped_soon(pid_t pid)
{
	uint64_t start = jp_now_ns();
	struct timespec ts = {0, 200000};
	pid_t got;

	while ((got = waitpid(pid, NULL, WNOHANG)) == 0 || (got < 0 && errno == EINTR)) {
		uint64_t spent = jp_now_ns() - start;
		if (spent >= (uint64_t)REAP_MS * 1000000u ||
		    (spent >= (uint64_t)STUCK_MS * 1000000u && stuck_in_kernel(pid)))
			return false;
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 20000000)
			ts.tv_nsec *= 2;
	}
	return true;
}

void probe_child_finish(pid_t pid, const char *path)
{
	kill(pid, SIGKILL);
	if (reaped_soon(pid))
		return;
	kid_add(pid, path ? probe_mount_of(path) : NULL);
}
