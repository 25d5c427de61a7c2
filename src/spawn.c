/* A child process (spawn_internal.h): started with posix_spawn, known in a
 * registry until it is reaped, ended by jp_child_finish. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "deadline_internal.h"
#include "spawn_internal.h"

extern char **environ;

/* a killed child is waited for this long at most... */
#define REAP_MS 1000
/* ...and no longer than this when a thread of it has been waiting in the
 * kernel all along (a dying process may be there a moment) */
#define STUCK_MS 200

/* ---- the registry ---------------------------------------------------------- */

static pthread_mutex_t kids_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t kids_exit_once = PTHREAD_ONCE_INIT;
static struct kid {
	pid_t pid, owner; /* owner: the process that started it */
	bool group;	  /* a session of its own: killed as a group */
	bool left;	  /* killed, not yet reaped */
} *kids;
static size_t n_kids;

/* Under kids_lock. */
static struct kid *kid_find(pid_t pid)
{
	for (size_t i = 0; i < n_kids; i++)
		if (kids[i].pid == pid && kids[i].owner == getpid())
			return &kids[i];
	return NULL;
}

/* Under kids_lock. */
static void kid_drop(struct kid *k)
{
	*k = kids[--n_kids];
}

static void kid_forget(pid_t pid)
{
	pthread_mutex_lock(&kids_lock);
	struct kid *k = kid_find(pid);
	if (k)
		kid_drop(k);
	pthread_mutex_unlock(&kids_lock);
}

static void kid_leave(pid_t pid)
{
	pthread_mutex_lock(&kids_lock);
	struct kid *k = kid_find(pid);
	if (k)
		k->left = true;
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
 * by then or is stuck in the kernel (seen there at every look for
 * STUCK_MS: a thread caught in a moment's wait is not taken for one). */
static bool reaped_soon(pid_t pid, int *status)
{
	uint64_t start = jp_now_ns(), stuck_since = 0;
	struct timespec ts = {0, 200000};
	pid_t got;

	while ((got = waitpid(pid, status, WNOHANG)) == 0 || (got < 0 && errno == EINTR)) {
		uint64_t now = jp_now_ns();
		if (!stuck_in_kernel(pid))
			stuck_since = 0;
		else if (!stuck_since)
			stuck_since = now;
		if (now - start >= (uint64_t)REAP_MS * 1000000u ||
		    (stuck_since && now - stuck_since >= (uint64_t)STUCK_MS * 1000000u))
			return false;
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 20000000)
			ts.tv_nsec *= 2;
	}
	return true;
}

/* At exit: the children this process started that still run are killed
 * and reaped (within the bound); those left behind, reaped if dead. */
static void kids_clean_on_exit(void)
{
	pid_t self = getpid();

	pthread_mutex_lock(&kids_lock);
	for (size_t i = 0; i < n_kids; i++)
		if (kids[i].owner == self && !kids[i].left)
			kill(kids[i].group ? -kids[i].pid : kids[i].pid, SIGKILL);
	for (size_t i = 0; i < n_kids;) {
		if (kids[i].owner == self && reaped_soon(kids[i].pid, NULL))
			kid_drop(&kids[i]);
		else
			i++;
	}
	pthread_mutex_unlock(&kids_lock);
}

static void kids_exit_register(void)
{
	atexit(kids_clean_on_exit);
}

void jp_child_reap_left(void)
{
	pthread_mutex_lock(&kids_lock);
	for (size_t i = 0; i < n_kids;) {
		pid_t r = 0;
		if (kids[i].left && kids[i].owner == getpid()) {
			while ((r = waitpid(kids[i].pid, NULL, WNOHANG)) < 0 && errno == EINTR)
				;
		}
		if (r != 0)
			kid_drop(&kids[i]);
		else
			i++;
	}
	pthread_mutex_unlock(&kids_lock);
}

bool jp_child_left(pid_t pid)
{
	pthread_mutex_lock(&kids_lock);
	struct kid *k = kid_find(pid);
	bool left = k && k->left;
	pthread_mutex_unlock(&kids_lock);
	return left;
}

/* ---- start and finish ------------------------------------------------------ */

/* A descriptor the program is to get at one of 0..3 but that is itself one
 * of 0..3 would be overwritten by another dup2, or keep its close-on-exec
 * when dup2'd onto itself: such a one is first copied above them. */
static int out_of_the_way(int fd, int *copy)
{
	*copy = -1;
	if (fd < 0 || fd > 3)
		return fd;
	*copy = fcntl(fd, F_DUPFD_CLOEXEC, 4);
	return *copy;
}

static int set_files(posix_spawn_file_actions_t *fa, const struct jp_child *c, int copies[4])
{
	for (int i = 0; i < 4; i++) {
		int fd = out_of_the_way(c->fd[i], &copies[i]);

		if (c->fd[i] >= 0 && fd < 0)
			return errno;
		if (fd >= 0)
			posix_spawn_file_actions_adddup2(fa, fd, i);
		else if (c->fd[i] == JP_SPAWN_NULL)
			posix_spawn_file_actions_addopen(fa, i, "/dev/null",
							 i ? O_WRONLY : O_RDONLY, 0);
	}
	if (c->cwd)
		posix_spawn_file_actions_addchdir_np(fa, c->cwd);
	return 0;
}

static int spawn(struct jp_child *c)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int copies[4] = {-1, -1, -1, -1};
	const char *file = c->file ? c->file : c->argv[0];
	char *const *env = c->env ? c->env : environ;
	int e;

	if ((e = posix_spawn_file_actions_init(&fa)) != 0)
		return e;
	if ((e = posix_spawnattr_init(&attr)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return e;
	}
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, c->blocked ? c->blocked : &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					    (c->new_session ? POSIX_SPAWN_SETSID : 0));
	if ((e = set_files(&fa, c, copies)) == 0)
		e = c->search_path ? posix_spawnp(&c->pid, file, &fa, &attr, c->argv, env)
				   : posix_spawn(&c->pid, file, &fa, &attr, c->argv, env);
	for (int i = 0; i < 4; i++)
		if (copies[i] >= 0)
			close(copies[i]);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return e;
}

int jp_child_start(struct jp_child *c)
{
	int e;

	pthread_once(&kids_exit_once, kids_exit_register);
	if ((e = spawn(c)) != 0) {
		c->pid = -1;
		return e;
	}
	/* out of memory, it is not cleaned at exit; finish reaps it all the
	 * same */
	pthread_mutex_lock(&kids_lock);
	struct kid *g = realloc(kids, (n_kids + 1) * sizeof(*g));
	if (g) {
		kids = g;
		kids[n_kids++] = (struct kid){c->pid, getpid(), c->new_session, false};
	}
	pthread_mutex_unlock(&kids_lock);
	return 0;
}

int jp_child_finish(struct jp_child *c, bool kill_it, int *status)
{
	pid_t pid = c->pid;
	int st = 0;

	if (pid <= 0)
		return -1;
	c->pid = -1;
	if (kill_it) {
		kill(c->new_session ? -pid : pid, SIGKILL);
		if (!reaped_soon(pid, &st)) {
			kid_leave(pid);
			return -1;
		}
	} else {
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	kid_forget(pid);
	if (status)
		*status = st;
	return 0;
}
