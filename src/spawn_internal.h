/* Starting a program: posix_spawn, whose fork and exec are one step, so
 * nothing of this multi-threaded process runs in the child (src/helper.c's
 * helpers, git_run.c's git-lfs and git credential). One way to do it, for
 * every caller: the descriptors the program gets, its signals, its session. */
#ifndef JOBPREP_SPAWN_INTERNAL_H
#define JOBPREP_SPAWN_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#define JP_SPAWN_NULL (-1) /* /dev/null */
#define JP_SPAWN_NONE (-2) /* nothing (fd 3 only: not given) */

struct jp_spawn {
	/* What the program gets as descriptors 0, 1, 2 and 3: one of ours
	 * (left open here: the caller closes it), JP_SPAWN_NULL or, for 3,
	 * JP_SPAWN_NONE. Every other descriptor of ours is close-on-exec. */
	int fd[4];
	const char *cwd;  /* NULL: ours */
	bool new_session; /* its own session: no terminal to prompt on, one
			     group to kill */
	bool search_path; /* a file name without '/' is looked up in PATH */
	/* Blocked in the program from its start (NULL: none); SIGINT,
	 * SIGTERM, SIGHUP and SIGPIPE start at their default action. */
	const sigset_t *blocked;
};

#define JP_SPAWN_INIT                                                                              \
	{                                                                                          \
		{JP_SPAWN_NULL, JP_SPAWN_NULL, JP_SPAWN_NULL, JP_SPAWN_NONE}, NULL, false, false,  \
		    NULL                                                                           \
	}

/* Start file with argv and envp as s says; 0 and *pid, or an errno value. */
int jp_spawn(pid_t *pid, const char *file, char *const argv[], char *const envp[],
	     const struct jp_spawn *s);

#endif
