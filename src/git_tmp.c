/* Temporaries a clone is built in: PARENT/PREFIX<pid>-<random>/ holding an
 * "owner" file (host, pid, process start time) and the tree. A run killed
 * before it could clean up leaves one behind; the next run on this host
 * recognises it by its dead owner and removes it. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/fs.h"
#include "fs_internal.h"
#include "jobprep/i18n.h"
#include "git_internal.h"

#define OWNER_FILE "owner"

/* Field 22 of /proc/PID/stat: when the process started, in clock ticks.
 * With the pid it names a process uniquely (pids are reused). */
static unsigned long long proc_start(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The command name may hold spaces and ')': skip past the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p + 1, ' ');
	}
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

static void host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "?");
	buf[len - 1] = '\0';
}

int jp_git_tmp_create(struct jp_git_tmp *t, const char *parent,
		      const char *prefix, struct jp_error *err)
{
	char host[256], owner[4096 + 16], text[512];
	unsigned int rnd;
	int fd, n;

	t->dir = t->tree = NULL;
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (unsigned)jp_now_ns() ^ (unsigned)getpid();
	if (asprintf(&t->dir, "%s/%s%d-%08x", strcmp(parent, "/") ? parent : "", prefix,
		     (int)getpid(), rnd) < 0) {
		t->dir = NULL;
		return jp_error_oom(err);
	}
	if (mkdir(t->dir, 0700) != 0) {
		int e = errno;
		jp_error_set(err, e == ENOSPC ? JP_ENOSPC : JP_EIO,
			     _("%s: cannot create a temporary directory: %s"), parent, strerror(e));
		free(t->dir);
		t->dir = NULL;
		return err ? err->code : JP_EIO;
	}
	host_name(host, sizeof(host));
	snprintf(owner, sizeof(owner), "%s/" OWNER_FILE, t->dir);
	n = snprintf(text, sizeof(text), "jobprep clone temporary\nhost %s\npid %d\nstart %llu\n",
		     host, (int)getpid(), proc_start(getpid()));
	fd = open(owner, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || write(fd, text, (size_t)n) != n) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		jp_fs_rm_rf(t->dir);
		free(t->dir);
		t->dir = NULL;
		return jp_error_set(err, e == ENOSPC ? JP_ENOSPC : JP_EIO,
				    _("%s: cannot write in a temporary directory: %s"), parent,
				    strerror(e));
	}
	close(fd);
	if (asprintf(&t->tree, "%s/tree", t->dir) < 0) {
		t->tree = NULL;
		jp_git_tmp_remove(t);
		return jp_error_oom(err);
	}
	return 0;
}

int jp_git_tmp_remove(struct jp_git_tmp *t)
{
	int rc = 0;

	/* If the tree cannot all go, its owner file stays with it, and the
	 * next run removes the rest. */
	if (t->dir) {
		char canceled[4096 + 16];

		/* The tree (and a tree moved away by a cancel) first, the owner
		 * file last: a half-removed temporary still names its owner. */
		snprintf(canceled, sizeof(canceled), "%s.canceled", t->tree ? t->tree : t->dir);
		if (t->tree)
			jp_fs_rm_rf(t->tree);
		jp_fs_rm_rf(canceled);
		rc = jp_fs_rm_rf(t->dir);
	}
	free(t->dir);
	free(t->tree);
	t->dir = t->tree = NULL;
	return rc;
}

enum owner_state { OWNER_ALIVE, OWNER_DEAD, OWNER_UNKNOWN };

/* Whether the temporary's owner lives; desc gets "pid N on HOST". */
static enum owner_state owner_of(int dirfd, const char *name, char *desc, size_t len)
{
	char buf[512], host[256], their_host[256] = "";
	int pid = 0;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return OWNER_UNKNOWN;
	int ofd = openat(fd, OWNER_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(fd);
	if (ofd < 0) {
		/* Created but killed before the owner file was written: the
		 * name still carries the pid, but not the host. Only a
		 * directory that stayed empty for a minute is taken. */
		struct stat sb;
		const char *dash = strrchr(name, '-');
		if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !dash)
			return OWNER_UNKNOWN;
		if (sb.st_nlink <= 2 && sb.st_mtime + 60 < time(NULL))
			return OWNER_DEAD;
		return OWNER_UNKNOWN;
	}
	n = read(ofd, buf, sizeof(buf) - 1);
	close(ofd);
	if (n <= 0)
		return OWNER_UNKNOWN;
	buf[n] = '\0';
	for (char *line = buf, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (strncmp(line, "host ", 5) == 0)
			snprintf(their_host, sizeof(their_host), "%s", line + 5);
		else if (strncmp(line, "pid ", 4) == 0)
			pid = atoi(line + 4);
		else if (strncmp(line, "start ", 6) == 0)
			start = strtoull(line + 6, NULL, 10);
	}
	host_name(host, sizeof(host));
	snprintf(desc, len, "pid %d on %s", pid, their_host[0] ? their_host : "?");
	if (pid <= 0 || strcmp(host, their_host) != 0)
		return OWNER_UNKNOWN; /* another machine's: cannot tell */
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return OWNER_DEAD;
	if (start && proc_start(pid) != start)
		return OWNER_DEAD; /* the pid now names another process */
	return OWNER_ALIVE;
}

int jp_git_tmp_clean_stale(const char *parent, const char *prefix,
			   unsigned *live, char *who, size_t who_len)
{
	size_t plen = strlen(prefix);
	struct dirent *de;
	DIR *d;

	if (live)
		*live = 0;
	if (who && who_len)
		who[0] = '\0';
	d = opendir(parent);
	if (!d)
		return 0; /* nothing there, or nothing we may look at */
	while ((de = readdir(d)) != NULL) {
		char path[8192], desc[320] = "";

		if (strncmp(de->d_name, prefix, plen) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", strcmp(parent, "/") ? parent : "", de->d_name);
		switch (owner_of(dirfd(d), de->d_name, desc, sizeof(desc))) {
		case OWNER_DEAD:
			jp_fs_rm_rf(path);
			break;
		default:
			if (who && who_len && !who[0])
				snprintf(who, who_len, "%s (%s)", path, desc[0] ? desc : "owner unknown");
			if (live)
				(*live)++;
		}
	}
	closedir(d);
	return 0;
}
