/* A scratch directory per test, removed with everything in it afterwards. */
#ifndef JOBPREP_TEST_SCRATCH_H
#define JOBPREP_TEST_SCRATCH_H

#include <dirent.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct scratch {
	char dir[PATH_MAX - 256]; /* room for names inside it */
	int nobody_reaches;       /* scratch_setup_for_nobody: user 65534 can reach dir */
};

static inline int scratch_setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");

	if (!s)
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s/jobprep-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		free(s);
		return -1;
	}
	*state = s;
	return 0;
}

/* 1 when the unprivileged user 65534 (nobody) can reach dir (search it and
 * every folder above it), as seen by a child that drops root to that user;
 * 0 when it cannot, or when we are not root (then nothing can be dropped). */
static inline int scratch_nobody_can_reach(const char *dir)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		_exit(access(dir, X_OK) == 0 ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A fresh folder (mode 0755) named NAME-XXXXXX for a test whose child runs
 * as nobody: under the first of $TMPDIR, /tmp, /var/tmp, /dev/shm that
 * nobody can reach (a $TMPDIR under a 0700 home is not), so the build tree's
 * place never matters. When none is (or when not root), it is made under
 * $TMPDIR (else /tmp) and *reachable is 0. Returns 0, or -1. */
static inline int scratch_mkdtemp_for_nobody(char *out, size_t len, const char *name,
					     int *reachable)
{
	const char *tmp = getenv("TMPDIR");
	const char *bases[] = { tmp && *tmp ? tmp : "/tmp", "/tmp", "/var/tmp", "/dev/shm" };

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if ((size_t)snprintf(out, len, "%s/%s-XXXXXX", bases[i], name) >= len ||
		    !mkdtemp(out))
			continue;
		if (chmod(out, 0755) == 0 && scratch_nobody_can_reach(out)) {
			*reachable = 1;
			return 0;
		}
		rmdir(out);
	}
	*reachable = 0;
	if ((size_t)snprintf(out, len, "%s/%s-XXXXXX", bases[0], name) >= len || !mkdtemp(out))
		return -1;
	return chmod(out, 0755) == 0 ? 0 : -1;
}

/* scratch_setup for a test whose child runs as nobody: the folder is made
 * where that user can reach it (scratch_mkdtemp_for_nobody); a test skips
 * when s->nobody_reaches is 0 and it is root. */
static inline int scratch_setup_for_nobody(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	if (scratch_mkdtemp_for_nobody(s->dir, sizeof(s->dir), "jobprep-test", &s->nobody_reaches) <
	    0) {
		free(s);
		return -1;
	}
	*state = s;
	return 0;
}

static inline int scratch_remove_one(const char *path, const struct stat *st, int flag,
				     struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

/* Give back permissions a test took away, so everything can be removed. */
static inline int scratch_unlock_one(const char *path, const struct stat *st, int flag,
				     struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D || flag == FTW_DNR)
		chmod(path, (st->st_mode & 07777) | 0700);
	return 0;
}

static inline int scratch_teardown(void **state)
{
	struct scratch *s = *state;

	if (!s)
		return 0;
	nftw(s->dir, scratch_unlock_one, 16, FTW_PHYS);
	nftw(s->dir, scratch_remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(s);
	*state = NULL;
	return 0;
}

/* Entries in dir besides "." and ".."; -1 when it cannot be read. */
static inline int scratch_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* Write text to dir/rel. */
static inline int scratch_write(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

#endif
