/* Starting a program (spawn_internal.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include "spawn_internal.h"

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

static int set_files(posix_spawn_file_actions_t *fa, const struct jp_spawn *s, int copies[4])
{
	for (int i = 0; i < 4; i++) {
		int fd = out_of_the_way(s->fd[i], &copies[i]);

		if (s->fd[i] >= 0 && fd < 0)
			return errno;
		if (fd >= 0)
			posix_spawn_file_actions_adddup2(fa, fd, i);
		else if (s->fd[i] == JP_SPAWN_NULL)
			posix_spawn_file_actions_addopen(fa, i, "/dev/null",
							 i ? O_WRONLY : O_RDONLY, 0);
	}
	if (s->cwd)
		posix_spawn_file_actions_addchdir_np(fa, s->cwd);
	return 0;
}

int jp_spawn(pid_t *pid, const char *file, char *const argv[], char *const envp[],
	     const struct jp_spawn *s)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int copies[4] = {-1, -1, -1, -1};
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
	posix_spawnattr_setsigmask(&attr, s->blocked ? s->blocked : &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					    (s->new_session ? POSIX_SPAWN_SETSID : 0));
	if ((e = set_files(&fa, s, copies)) == 0)
		e = s->search_path ? posix_spawnp(pid, file, &fa, &attr, argv, envp)
				   : posix_spawn(pid, file, &fa, &attr, argv, envp);
	for (int i = 0; i < 4; i++)
		if (copies[i] >= 0)
			close(copies[i]);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return e;
}
