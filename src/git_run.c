/* Running a helper program (git credential, ssh-keygen) with no way to reach
 * a person: a new session without a controlling terminal, prompts switched
 * off, a deadline. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "git_internal.h"

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
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	bool fa_ok = false, attr_ok = false, killed = false;
	char **env = NULL;
	size_t got = 0;
	pid_t pid = -1;
	int status = 0, rc = -1;
	sigset_t none, dfl;

	if (cap > 0)
		out[0] = '\0';
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(outp, O_CLOEXEC) != 0)
		goto done;
	if (!(env = quiet_env()))
		goto done;
	if (posix_spawn_file_actions_init(&fa) != 0)
		goto done;
	fa_ok = true;
	if (posix_spawnattr_init(&attr) != 0)
		goto done;
	attr_ok = true;
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* A new session has no controlling terminal: nothing can prompt. */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	if (posix_spawnp(&pid, argv[0], &fa, &attr, argv, env) != 0) {
		pid = -1;
		goto done;
	}
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
	if (killed)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	if (!killed && WIFEXITED(status))
		rc = WEXITSTATUS(status);
done:
	if (pid > 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (outp[i] >= 0)
			close(outp[i]);
	}
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (attr_ok)
		posix_spawnattr_destroy(&attr);
	free(env);
	return rc;
}
