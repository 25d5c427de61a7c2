/* Directories on disk: mkdir -p with undo, rm -rf, empty or not. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/fs.h"
#include "fs_internal.h"
#include "jobprep/i18n.h"

/* One component of mkdir -p: p exists as a directory afterwards, or err. */
static int make_one(struct jp_strv *made, const char *p, mode_t mode, struct jp_error *err)
{
	struct stat st;

	int rc, e;

	if (stat(p, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		rc = jp_error_set(err, JP_EEXIST, _("%s: exists and is not a directory"), p);
		errno = ENOTDIR;
		return rc;
	}
	if (mkdir(p, mode) != 0) {
		e = errno;
		/* made meanwhile by someone else: theirs, not recorded */
		if (e == EEXIST && stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		rc = jp_error_set(err, e == ENOSPC ? JP_ENOSPC : JP_EIO,
				  _("%s: cannot create the directory: %s"), p, strerror(e));
		errno = e;
		return rc;
	}
	if (made && jp_strv_push(made, p) < 0) {
		rc = jp_error_oom(err);
		errno = ENOMEM;
		return rc;
	}
	return 0;
}

int jp_fs_mkdir_p(struct jp_strv *made, const char *path, mode_t mode, struct jp_error *err)
{
	char *p;
	int rc = 0;

	if (!path || !*path)
		return jp_error_set(err, JP_EUSAGE, "%s", _("no directory given"));
	if (!(p = strdup(path)))
		return jp_error_oom(err);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if ((rc = make_one(made, p, mode, err)) != 0)
			break;
		*s = c;
		if (c == '\0' || s[1] == '\0')
			break;
	}
	free(p);
	return rc;
}

void jp_fs_unmake(struct jp_strv *made)
{
	for (size_t i = made->n; i-- > 0;)
		rmdir(made->v[i]); /* only if still empty */
	jp_strv_dispose(made);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D || flag == FTW_DNR)
		rmdir(path);
	else
		unlink(path);
	return 0; /* go on: remove as much as possible */
}

int jp_fs_rm_rf(const char *path)
{
	struct stat sb;

	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path);
	/* FTW_PHYS: links are removed, not followed; FTW_MOUNT: stay on this
	 * filesystem (a mount below stays, and so does its mount point). */
	nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	if (lstat(path, &sb) == 0) {
		errno = ENOTEMPTY;
		return -1;
	}
	return 0;
}

int jp_fs_dir_is_empty(const char *dir, const char *skip_prefix, char *first, size_t len)
{
	size_t skip = skip_prefix ? strlen(skip_prefix) : 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (skip && strncmp(de->d_name, skip_prefix, skip) == 0)
			continue;
		if (first && len)
			snprintf(first, len, "%s", de->d_name);
		empty = 0;
		break;
	}
	closedir(d);
	return empty;
}

int jp_fs_dir_count(size_t *out, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	*out = 0;
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	*out = n;
	return 0;
}

static size_t count_files(const char *path, int depth, size_t *budget)
{
	DIR *d;
	struct dirent *de;
	size_t n = 0;

	if (depth > 8 || *budget == 0)
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && *budget > 0) {
		char *p = NULL;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		(*budget)--;
		if (asprintf(&p, "%s/%s", path, de->d_name) < 0)
			break;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			n += count_files(p, depth + 1, budget);
		else
			n++;
		free(p);
	}
	closedir(d);
	return n;
}

int jp_fs_lock_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;

	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	e = errno == EAGAIN ? EWOULDBLOCK : errno;
	close(fd);
	errno = e;
	return -1;
}

size_t jp_fs_count_files(const char *path, size_t budget)
{
	size_t n = count_files(path, 0, &budget);

	/* looked at everything it may: what was not looked at may hold files */
	return n == 0 && budget == 0 ? 1 : n;
}
