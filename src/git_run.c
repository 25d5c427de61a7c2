/* Running a helper program (git credential, ssh-keygen) with no way to reach
 * a person: a new session without a controlling terminal, prompts switched
 * off, a deadline. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "git_internal.h"
#include "spawn_internal.h"

extern char **environ;

/* Our environment without the variables that let a program ask a person. */
static char **quiet_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(environ[i], "GIT_TERMINAL_PROMPT=", 20) == 0 ||
		    strncmp(environ[i], "GIT_ASKPASS=", 12) == 0 ||
		    strncmp(environ[i], "SSH_ASKPASS=", 12) == 0 ||
		    strncmp(environ[i], "GCM_INTERACTIVE=", 16) == 0 ||
		    strncmp(environ[i], "DISPLAY=", 8) == 0)
			continue;
		env[k++] = environ[i];
	}
	env[k++] = (char *)"GIT_TERMINAL_PROMPT=0";
	env[k++] = (char *)"GCM_INTERACTIVE=never";
	env[k] = NULL;
	return env;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int jp_run_capture(char *const argv[], const char *input, char *out, size_t cap,
		   int timeout_ms)
{
	int in[2] = { -1, -1 }, outp[2] = { -1, -1 };
	struct jp_child c = JP_CHILD_INIT;
	bool killed = false;
	char **env = NULL;
	size_t got = 0;
	int status = 0, rc = -1;

	if (cap > 0)
		out[0] = '\0';
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(outp, O_CLOEXEC) != 0)
		goto done;
	if (!(env = quiet_env()))
		goto done;
	c.argv = argv;
	c.env = env;
	c.fd[0] = in[0];
	c.fd[1] = outp[1];
	/* A new session has no controlling terminal: nothing can prompt. */
	c.new_session = true;
	c.search_path = true;
	if (jp_child_start(&c) != 0)
		goto done;
	close(in[0]);
	in[0] = -1;
	close(outp[1]);
	outp[1] = -1;
	if (input) {
		/* A program that does not read its input fails the write with
		 * EPIPE, which must not kill us: block SIGPIPE in this thread
		 * and swallow one raised here. */
		sigset_t pipe_set, old;
		struct timespec zero = { 0, 0 };

		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
		if (write_all(in[1], input, strlen(input)) < 0 && errno == EPIPE)
			while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
				;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	close(in[1]);
	in[1] = -1;

	uint64_t deadline = jp_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	for (;;) {
		struct pollfd pfd = { outp[0], POLLIN, 0 };
		uint64_t now = jp_now_ns();
		char sink[512];
		ssize_t r;
		int pr;

		if (now >= deadline) {
			killed = true;
			break;
		}
		/* Waiting on a helper is a moment the person may cancel. */
		if (jp_git_op_current() && jp_git_op_tick(jp_git_op_current()) < 0) {
			killed = true;
			break;
		}
		pr = poll(&pfd, 1, 200);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		if (got + 1 < cap)
			r = read(outp[0], out + got, cap - 1 - got);
		else
			r = read(outp[0], sink, sizeof(sink));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (got + 1 < cap)
			got += (size_t)r;
	}
	if (cap > 0)
		out[got] = '\0';
	if (jp_child_finish(&c, killed, &status) == 0 && !killed && WIFEXITED(status))
		rc = WEXITSTATUS(status);
done:
	jp_child_finish(&c, true, NULL);
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (outp[i] >= 0)
			close(outp[i]);
	}
	free(env);
	return rc;
}

/* ---- a longer helper, watched: progress lines, cancel, a stall ---- */

/* Keep the end of what the program says on stderr (the error is last). */
static void keep_tail(char *buf, size_t cap, size_t *got, const char *s, size_t n)
{
	if (cap < 2)
		return;
	if (n >= cap - 1) {
		s += n - (cap - 1);
		n = cap - 1;
	}
	if (*got + n > cap - 1) {
		size_t drop = *got + n - (cap - 1);

		memmove(buf, buf + drop, *got - drop);
		*got -= drop;
	}
	memcpy(buf + *got, s, n);
	*got += n;
	buf[*got] = '\0';
}

/* Hand each complete line of lines[0..*n) to on_line; keep the rest. */
static int split_lines(const struct jp_run_watch *w, char *lines, size_t *n)
{
	char *start = lines, *nl;
	int rc = 0;

	while (rc == 0 && (nl = memchr(start, '\n', *n - (size_t)(start - lines)))) {
		*nl = '\0';
		if (w->on_line)
			rc = w->on_line(start, w->payload);
		start = nl + 1;
	}
	*n -= (size_t)(start - lines);
	memmove(lines, start, *n);
	return rc;
}

static int spawn_watched(struct jp_child *c, char *const argv[], const struct jp_run_watch *w,
			 int err_fd, int line_fd, char **env)
{
	c->argv = argv;
	c->env = env;
	c->fd[1] = err_fd;
	c->fd[2] = err_fd;
	c->fd[3] = line_fd;
	c->cwd = w->cwd;
	/* Its own session: no terminal to prompt on, and one group to kill. */
	c->new_session = true;
	c->search_path = true;
	return jp_child_start(c) == 0 ? 0 : -1;
}

/* Our quiet environment and w->env_add. */
static char **watched_env(const struct jp_run_watch *w)
{
	char **base = quiet_env(), **env;
	size_t n = 0, k = 0;

	if (!base || !w->env_add)
		return base;
	while (base[n])
		n++;
	while (w->env_add[k])
		k++;
	env = realloc(base, (n + k + 1) * sizeof(*env));
	if (!env) {
		free(base);
		return NULL;
	}
	memcpy(env + n, w->env_add, (k + 1) * sizeof(*env));
	return env;
}

/* Read what is there on the two pipes; false once both have ended. */
static bool drain(const struct jp_run_watch *w, struct pollfd *pfd, char *lines, size_t *n_lines,
		  size_t cap_lines, size_t *got_err, int *stop)
{
	char chunk[4096];

	for (int i = 0; i < 2; i++) {
		ssize_t r;

		if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = read(pfd[i].fd, i == 0 ? chunk : lines + *n_lines,
			 i == 0 ? sizeof(chunk) : cap_lines - *n_lines);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(pfd[i].fd);
			pfd[i].fd = -1;
			continue;
		}
		if (i == 0) {
			keep_tail(w->errbuf, w->errcap, got_err, chunk, (size_t)r);
		} else {
			*n_lines += (size_t)r;
			if (split_lines(w, lines, n_lines) < 0)
				*stop = JP_ECANCELED;
			if (*n_lines == cap_lines)
				*n_lines = 0; /* a line longer than that: dropped */
		}
	}
	return pfd[0].fd >= 0 || pfd[1].fd >= 0;
}

int jp_run_watched(char *const argv[], const struct jp_run_watch *w)
{
	int errp[2] = { -1, -1 }, linep[2] = { -1, -1 };
	struct pollfd pfd[2];
	char lines[4096];
	size_t n_lines = 0, got_err = 0;
	struct jp_child c = JP_CHILD_INIT;
	char **env = NULL;
	int status = 0, stop = 0, rc = -1;

	if (w->errcap > 0)
		w->errbuf[0] = '\0';
	if (pipe2(errp, O_CLOEXEC) != 0 || pipe2(linep, O_CLOEXEC) != 0 ||
	    !(env = watched_env(w)) || spawn_watched(&c, argv, w, errp[1], linep[1], env) != 0)
		goto done;
	close(errp[1]);
	close(linep[1]);
	errp[1] = linep[1] = -1;
	pfd[0] = (struct pollfd){ errp[0], POLLIN, 0 };
	pfd[1] = (struct pollfd){ linep[0], POLLIN, 0 };
	errp[0] = linep[0] = -1; /* pfd owns them now */
	uint64_t last = jp_now_ns();
	for (;;) {
		int pr = poll(pfd, 2, 200);

		if (pr < 0 && errno != EINTR)
			break;
		if (pr > 0) {
			last = jp_now_ns();
			if (!drain(w, pfd, lines, &n_lines, sizeof(lines), &got_err, &stop))
				break;
		}
		if (!stop && jp_git_op_current() && jp_git_op_tick(jp_git_op_current()) < 0)
			stop = JP_ECANCELED;
		if (!stop && w->stall_ms && jp_now_ns() - last > (uint64_t)w->stall_ms * 1000000ULL)
			stop = JP_ETIMEOUT;
		if (stop)
			break;
	}
	for (int i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	/* stopped: killed with its group (git-lfs and the git it runs) */
	if (jp_child_finish(&c, stop != 0, &status) == 0 || stop)
		rc = stop ? stop : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
done:
	jp_child_finish(&c, true, NULL);
	for (int i = 0; i < 2; i++) {
		if (errp[i] >= 0)
			close(errp[i]);
		if (linep[i] >= 0)
			close(linep[i]);
	}
	free(env);
	return rc;
}
