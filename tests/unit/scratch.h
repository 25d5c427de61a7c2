/* A scratch directory per test, removed with everything in it afterwards. */
#ifndef JOBPREP_TEST_SCRATCH_H
#define JOBPREP_TEST_SCRATCH_H

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct scratch {
	char dir[PATH_MAX - 256]; /* room for names inside it */
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
