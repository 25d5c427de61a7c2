/* A child process, in the shape of git's run-command: a struct filled in
 * (JP_CHILD_INIT, then what differs), jp_child_start, jp_child_finish. Every
 * program jobprep starts goes through it (src/helper.c's helpers, git_run.c's
 * git-lfs, git credential and ssh-keygen).
 *
 * Started with posix_spawn, whose fork and exec are one step, so nothing of
 * this multi-threaded process runs in the child. Every child is known from
 * its start to its reaping (a registry, under a lock): jp_child_finish
 * always reaps it, or, when a thread of it is stuck in the kernel on a hung
 * mount (a kill cannot end it before the mount answers), leaves it in the
 * registry, where jp_child_reap_left reaps it once it has died; at exit the
 * children still running are killed and reaped (those a process started:
 * not its parent's, over a fork). */
#ifndef JOBPREP_SPAWN_INTERNAL_H
#define JOBPREP_SPAWN_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#define JP_SPAWN_NULL (-1) /* /dev/null */
#define JP_SPAWN_NONE (-2) /* nothing (fd 3 only: not given) */

struct jp_child {
	const char *file;   /* NULL: argv[0] */
	char *const *argv;
	char *const *env;   /* NULL: ours */
	/* What the program gets as descriptors 0, 1, 2 and 3: one of ours
	 * (left open here: the caller closes it), JP_SPAWN_NULL or, for 3,
	 * JP_SPAWN_NONE. Every other descriptor of ours is close-on-exec. */
	int fd[4];
	const char *cwd;  /* NULL: ours */
	bool new_session; /* its own session: no terminal to prompt on, one
			     group to kill (jp_child_finish kills the group) */
	bool search_path; /* a file name without '/' is looked up in PATH */
	/* Blocked in the program from its start (NULL: none); SIGINT,
	 * SIGTERM, SIGHUP and SIGPIPE start at their default action. */
	const sigset_t *blocked;
	pid_t pid; /* jp_child_start's; -1 before */
};

#define JP_CHILD_INIT                                                                              \
	{                                                                                          \
		NULL, NULL, NULL, {JP_SPAWN_NULL, JP_SPAWN_NULL, JP_SPAWN_NULL, JP_SPAWN_NONE},    \
		    NULL, false, false, NULL, -1                                                   \
	}

/* Start c's program; 0 (c->pid set, c registered), or an errno value. */
int jp_child_start(struct jp_child *c);

/* End c and reap it: with kill, SIGKILL first (to its group when it has
 * a session of its own) and a bounded wait; without, a wait for it to end
 * by itself (it has closed its output). 0 when it was reaped (*status, may
 * be NULL, its wait status), or -1 when, killed, it has not ended within
 * the bound or is stuck in the kernel: it is left in the registry (reaped
 * by jp_child_reap_left once it dies). c->pid is -1 after. */
int jp_child_finish(struct jp_child *c, bool kill, int *status);

/* Reap the children left behind that have died since. */
void jp_child_reap_left(void);
/* Is pid a child left behind, not yet reaped? */
bool jp_child_left(pid_t pid);

#endif
