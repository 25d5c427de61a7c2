/* Bounded calls in a child process.
 *
 * A thread stuck in the kernel on a hung mount (a FUSE request already
 * sent, an NFS hard mount) cannot be killed, and it keeps its whole process
 * from being reaped: the command has printed its answer, and whoever waits
 * for it (a shell, a scheduler) still waits, SIGTERM or not. A call whose
 * answer can travel as bytes therefore runs in a forked child: when it does
 * not answer in time the child is killed and left behind (it dies when the
 * mount answers, and init reaps it if we are gone by then), and the command
 * itself still exits at once. */
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

void probe_child_abandon(pid_t pid, const char *path)
{
	kill(pid, SIGKILL);
	kid_add(pid, path ? probe_mount_of(path) : NULL);
}

/* --- the call -------------------------------------------------------------------- */

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		p += w;
		n -= (size_t)w;
	}
}

void probe_child_enter(pid_t parent)
{
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static void child_main(int fd, pid_t parent, jp_probe_fn fn, void *arg,
		       void (*pack)(struct probe_bytes *out, void *arg))
{
	struct probe_bytes b = { NULL, 0, 0, 0, false };

	/* (A child forked while another thread held a lock it then needs
	 * waits for ever: seen in a sanitizer build, a probe child of an
	 * ended wizard busy at 80% of a core for an hour. With its parent
	 * gone it ends.) */
	probe_child_enter(parent);
	fn(arg);
	pack(&b, arg);
	if (b.bad)
		_exit(1);
	write_all(fd, b.p, b.n);
	write_all(fd, "\1", 1); /* the answer is whole: the parent needs no exit status */
	free(b.p);
	_exit(0);
}

static long ms_left(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	long ms = (long)(end->tv_sec - now.tv_sec) * 1000L + (end->tv_nsec - now.tv_nsec) / 1000000L;
	return ms < 0 ? 0 : ms;
}

/* Read fd to its end within the deadline; false when the time ran out. */
static bool read_answer(struct probe_bytes *b, int fd, unsigned timeout_ms)
{
	struct timespec end;
	char chunk[4096];

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		long left = ms_left(&end);
		int r = poll(&pfd, 1, (int)left);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return true; /* the end (or an error: the answer is short) */
		probe_bytes_put(b, chunk, (size_t)n);
	}
}

int probe_child_call(jp_probe_fn fn, void *arg, void (*pack)(struct probe_bytes *out, void *arg),
		     bool (*unpack)(struct probe_bytes *in, void *arg), const char *path,
		     unsigned timeout_ms, struct jp_error *err)
{
	struct probe_bytes b = { NULL, 0, 0, 0, false };
	int fds[2], status = 0, rc = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return jp_error_set(err, JP_EINTERNAL, _("cannot start a process: %s"),
				    strerror(errno));
	pid_t parent = getpid();

	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return jp_error_set(err, JP_EINTERNAL, _("cannot start a process: %s"), strerror(e));
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], parent, fn, arg, pack);
	}
	close(fds[1]);
	bool answered = read_answer(&b, fds[0], timeout_ms);
	close(fds[0]);
	if (!answered) {
		probe_child_abandon(pid, path);
		free(b.p);
		return jp_error_set(err, JP_ETIMEOUT,
				    _("%s: no answer within %u.%u s (is a network mount hung?)"),
				    path ? path : "?", timeout_ms / 1000, (timeout_ms % 1000) / 100);
	}
	/* It has closed its end: it is exiting, or has. */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Judged by the answer's last byte, not the exit status: under valgrind
	 * (tests/analyse.sh), which follows forks, what the child inherited reads
	 * as lost at its _exit and turns its status into valgrind's. */
	(void)status;
	bool whole = !b.bad && b.n > 0 && b.p[b.n - 1] == '\1';
	if (whole)
		b.n--;
	if (!whole || !unpack(&b, arg))
		rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", path ? path : "?",
				  _("the look at it failed"));
	free(b.p);
	return rc;
}
