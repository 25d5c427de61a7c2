/* The record of a stage that has not finished, and the look for one
 * (stage_mark.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "jobprep/path.h"
#include "jobprep/shellwords.h"
#include "jobprep/url.h"
#include "buf.h"
#include "jobprep/i18n.h"
#include "stage_internal.h"
#include "stage_mark.h"
#include "path_internal.h"
#include "url_internal.h"

#define RECORD_MAX (64 * 1024)
#define RECORDS_READ 64
#define TRIES 5

struct jp_stage_mark {
	char *dest, *dir, *file;
	int lock_fd;      /* the folder held (flock) by a download, else -1 */
	bool whole;       /* not a shard: its success checked every file */
	char started[40]; /* as its record says it */
};

/* path (absolute, normalised) into its folder and last name; false for "/". */
static bool split(const char *path, char *dir, size_t dn, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash || !slash[1])
		return false;
	snprintf(dir, dn, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	*base = slash + 1;
	return true;
}

/* dir/.jobprep-tmp-KIND+base into out; false when the name is too long. */
static bool beside(char *out, size_t n, const char *dir, const char *kind, const char *base)
{
	int w;

	if (strlen(JP_TREECOPY_TMP_PREFIX) + strlen(kind) + strlen(base) > NAME_MAX)
		return false;
	w = snprintf(out, n, "%s%s%s%s%s", strcmp(dir, "/") ? dir : "", "/", JP_TREECOPY_TMP_PREFIX,
		     kind, base);
	return w > 0 && (size_t)w < n;
}

/* The first line of a small file (a /proc or /sys value) into out. */
static void first_line(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "re");

	out[0] = '\0';
	if (!f)
		return;
	if (!fgets(out, (int)n, f))
		out[0] = '\0';
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

/* A process's start time (field 22 of /proc/PID/stat, in clock ticks since
 * boot): with the boot's id, it tells the process from a later one that got
 * the same pid. "" when there is no such process. */
static void proc_start(long pid, char *out, size_t n)
{
	char path[64], line[1024];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	first_line(path, line, sizeof(line));
	out[0] = '\0';
	if (!(p = strrchr(line, ')')))
		return;
	/* after ") ": field 3 (state) on; the start time is field 22 */
	for (int field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	snprintf(out, n, "%.*s", (int)strcspn(p, " "), p);
}

static void host_name(char *out, size_t n)
{
	if (gethostname(out, n) != 0)
		snprintf(out, n, "%s", "?");
	out[n - 1] = '\0';
}

/* `jobprep stage [OPTIONS] SOURCE DEST` as the stage that finishes this one
 * (a shard's is the whole: it checks every file): paths absolute, a URL
 * without its credentials. */
static char *finishing_command(const char *source, const char *dest,
			       const struct jp_stage_options *o)
{
	struct jp_buf b = JP_BUF_INIT;
	/* a URL (or hf://) as given, its password left out; a path made whole */
	bool url = jp_url_fetch_kind(source, NULL) != JP_FETCH_PATH;
	char *src = url ? jp_url_redact(source) : jp_path_absolute(source);
	char *norm = src && !url ? jp_path_normalize(src) : NULL;
	char *qs = NULL, *qd = NULL, *out = NULL;

	if (norm) {
		free(src);
		src = norm;
	}
	if (!src || jp_sh_quote(&qs, src) < 0 || jp_sh_quote(&qd, dest) < 0)
		goto done;
	jp_buf_add(&b, "jobprep stage");
	if (o && o->verify)
		jp_buf_add(&b, " --verify");
	if (o && o->no_unpack)
		jp_buf_add(&b, " --no-unpack");
	if (o && o->sha256)
		jp_buf_addf(&b, " --sha256 %s", o->sha256);
	if (o && o->timeout_s)
		jp_buf_addf(&b, " --timeout %u", o->timeout_s);
	jp_buf_addf(&b, " %s %s", qs, qd);
	if (jp_buf_take(&out, &b) < 0)
		out = NULL;
done:
	jp_buf_dispose(&b);
	free(src);
	free(qs);
	free(qd);
	return out;
}

static char *record_text(const char *source, const char *dest, const struct jp_stage_options *o,
			 char when[40])
{
	char host[256], boot[64], start[32];
	char *cmd = finishing_command(source, dest, o), *text = NULL;
	time_t now = time(NULL);
	struct tm tm;
	cJSON *j = cJSON_CreateObject();

	host_name(host, sizeof(host));
	first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	proc_start((long)getpid(), start, sizeof(start));
	gmtime_r(&now, &tm);
	strftime(when, 40, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (j && cmd && cJSON_AddStringToObject(j, "command", cmd) &&
	    cJSON_AddStringToObject(j, "dest", dest) && cJSON_AddStringToObject(j, "host", host) &&
	    cJSON_AddNumberToObject(j, "pid", (double)getpid()) &&
	    cJSON_AddStringToObject(j, "started", when) &&
	    cJSON_AddStringToObject(j, "boot_id", boot) &&
	    cJSON_AddStringToObject(j, "proc_start", start))
		text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	free(cmd);
	return text;
}

static void mark_free(struct jp_stage_mark *m)
{
	if (!m)
		return;
	if (m->lock_fd >= 0)
		close(m->lock_fd);
	free(m->dest);
	free(m->dir);
	free(m->file);
	free(m);
}

/* Make m->dir and write text into a file of this run's there. 0 or -1. */
static int put(struct jp_stage_mark *m, const char *text)
{
	char host[256];
	unsigned r = 0;

	host_name(host, sizeof(host));
	for (char *p = host; *p; p++)
		if (*p == '/' || *p == '.')
			*p = '_';
	for (int t = 0; t < TRIES; t++) {
		struct stat sb;
		int fd;

		/* a look first, a mkdir only when it is missing: on a mount that
		 * stopped answering, a stuck look holds the folder's lock shared,
		 * a stuck mkdir would hold it for itself, and every later look in
		 * that folder (another jobprep's) would queue behind it */
		if (lstat(m->dir, &sb) != 0 &&
		    (errno != ENOENT || (mkdir(m->dir, 0755) != 0 && errno != EEXIST)))
			return -1;
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) < 0)
			r = (unsigned)time(NULL);
		free(m->file);
		if (asprintf(&m->file, "%s/%s-%ld-%08x.json", m->dir, host, (long)getpid(), r) < 0) {
			m->file = NULL;
			return -1;
		}
		fd = open(m->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno == ENOENT)
			continue; /* the last run to finish took the folder away */
		if (fd < 0)
			return -1;
		size_t n = strlen(text);
		bool ok = write(fd, text, n) == (ssize_t)n && write(fd, "\n", 1) == 1;

		if (close(fd) != 0 || !ok) {
			unlink(m->file);
			return -1;
		}
		return 0;
	}
	return -1;
}

static bool read_record(struct jp_stage_unfinished *out, const char *file);

/* The folder held for this run alone (flock, released when the process
 * ends however it ends): 0, 1 another run holds it (*other: who), -1 it
 * could not be made or held (no lock: best effort, as the record). */
static int hold(struct jp_stage_mark *m, struct jp_stage_unfinished *other)
{
	for (int t = 0; t < TRIES; t++) {
		struct stat held, now;
		DIR *d;
		struct dirent *e;

		if (lstat(m->dir, &now) != 0 &&
		    (errno != ENOENT || (mkdir(m->dir, 0755) != 0 && errno != EEXIST)))
			return -1;
		m->lock_fd = open(m->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (m->lock_fd < 0)
			continue; /* the last run to finish took it away */
		if (flock(m->lock_fd, LOCK_EX | LOCK_NB) == 0) {
			/* still the folder of that name (not one removed meanwhile) */
			if (fstat(m->lock_fd, &held) == 0 && lstat(m->dir, &now) == 0 &&
			    held.st_ino == now.st_ino && held.st_dev == now.st_dev)
				return 0;
		} else if (errno == EWOULDBLOCK) {
			if ((d = fdopendir(dup(m->lock_fd))) != NULL) {
				while ((e = readdir(d)) && !other->pid) {
					char file[PATH_MAX * 2];

					snprintf(file, sizeof(file), "%s/%s", m->dir, e->d_name);
					if (e->d_name[0] != '.')
						(void)read_record(other, file);
				}
				closedir(d);
			}
			close(m->lock_fd);
			m->lock_fd = -1;
			return 1;
		}
		close(m->lock_fd);
		m->lock_fd = -1;
	}
	return -1;
}

int jp_stage_mark_hold(struct jp_stage_mark **out, const char *source, const char *dest,
		       const struct jp_stage_options *opts, bool alone, struct jp_error *err)
{
	char *abs = jp_path_absolute(dest), *text = NULL, dir[PATH_MAX], name[PATH_MAX];
	struct jp_stage_mark *m = calloc(1, sizeof(*m));
	struct jp_stage_unfinished other;
	const char *base;
	int rc = 0;

	*out = NULL;
	memset(&other, 0, sizeof(other));
	if (m) {
		m->whole = !(opts && opts->shards > 1);
		m->lock_fd = -1;
	}
	if (!m || !abs || !(m->dest = jp_path_normalize(abs)) ||
	    !split(m->dest, dir, sizeof(dir), &base) ||
	    !beside(name, sizeof(name), dir, "staging-", base) || !(m->dir = strdup(name)))
		goto fail;
	if (alone && hold(m, &other) == 1) {
		if (other.pid)
			rc = jp_error_set(err, JP_EREFUSED,
					  _("%s: another jobprep stage is staging it (pid %ld on %s, "
					    "since %s): wait for it to end, or stop it"),
					  m->dest, other.pid, other.host, other.started);
		else
			rc = jp_error_set(err, JP_EREFUSED,
					  _("%s: another jobprep stage is staging it: wait for it to "
					    "end, or stop it"),
					  m->dest);
		goto fail;
	}
	if (!(text = record_text(source, m->dest, opts, m->started)) || put(m, text) != 0)
		goto fail;
	free(abs);
	cJSON_free(text);
	*out = m;
	return 0;
fail:
	mark_free(m);
	free(abs);
	cJSON_free(text);
	return rc;
}

void jp_stage_mark_begin(struct jp_stage_mark **out, const char *source, const char *dest,
			 const struct jp_stage_options *opts)
{
	(void)jp_stage_mark_hold(out, source, dest, opts, false, NULL);
}

static int alive(const cJSON *j, long pid);
static cJSON *record_read(const char *file);

/* After a success: the records of runs this one has finished, gone. A run
 * of this machine that is no more (killed half-way) is. With the whole
 * tree checked (not a shard), so is every run that started before this
 * one, here or elsewhere (one killed a moment ago may still be dying in
 * the kernel); a run started since is its own. */
static void sweep(const struct jp_stage_mark *m)
{
	DIR *d = opendir(m->dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char file[PATH_MAX * 2];
		cJSON *j;

		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", m->dir, e->d_name);
		if (!(j = record_read(file))) {
			unlinkat(dirfd(d), e->d_name, 0); /* half-written by a killed run */
			continue;
		}
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(j, "pid");
		const cJSON *started = cJSON_GetObjectItemCaseSensitive(j, "started");
		int live = alive(j, cJSON_IsNumber(pid) ? (long)pid->valuedouble : 0);
		bool older = !cJSON_IsString(started) || strcmp(started->valuestring, m->started) <= 0;

		if (live == 0 || (m->whole && older))
			unlinkat(dirfd(d), e->d_name, 0);
		cJSON_Delete(j);
	}
	closedir(d);
}

void jp_stage_mark_end(struct jp_stage_mark *m, enum jp_stage_end how)
{
	struct stat sb;

	if (!m)
		return;
	/* failed with part of it at dest: the record stays to say so */
	if (how != JP_STAGE_FAILED || lstat(m->dest, &sb) != 0) {
		unlink(m->file);
		if (how == JP_STAGE_DONE)
			sweep(m);
		rmdir(m->dir); /* fails while another run's record is in it */
	}
	mark_free(m);
}

/* ---- the look ---- */

static void copy_str(char *out, size_t n, const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	snprintf(out, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* Is the run of record j running? 1, 0, or -1 when it ran elsewhere. */
static int alive(const cJSON *j, long pid)
{
	char host[256], boot[64], rhost[256], rboot[64], rstart[32], start[32];

	host_name(host, sizeof(host));
	first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	copy_str(rhost, sizeof(rhost), j, "host");
	copy_str(rboot, sizeof(rboot), j, "boot_id");
	copy_str(rstart, sizeof(rstart), j, "proc_start");
	if (strcmp(host, rhost) != 0 || !boot[0] || strcmp(boot, rboot) != 0 || pid <= 0)
		return -1;
	proc_start(pid, start, sizeof(start));
	return start[0] && strcmp(start, rstart) == 0;
}

/* A record's JSON, or NULL (none, or not whole). */
static cJSON *record_read(const char *file)
{
	char *text = malloc(RECORD_MAX + 1);
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 && text ? read(fd, text, RECORD_MAX) : -1;
	cJSON *j = NULL;

	if (fd >= 0)
		close(fd);
	if (n > 0) {
		text[n] = '\0';
		j = cJSON_Parse(text);
	}
	free(text);
	return j;
}

/* One record into out; true when it was read. */
static bool read_record(struct jp_stage_unfinished *out, const char *file)
{
	cJSON *j = record_read(file);

	if (!j)
		return false;
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(j, "pid");

	copy_str(out->command, sizeof(out->command), j, "command");
	copy_str(out->host, sizeof(out->host), j, "host");
	copy_str(out->started, sizeof(out->started), j, "started");
	out->pid = cJSON_IsNumber(pid) ? (long)pid->valuedouble : 0;
	out->running = alive(j, out->pid);
	cJSON_Delete(j);
	return true;
}

/* The records in out->where: how many, and the one to tell of (a running
 * one if any). */
static void read_records(struct jp_stage_unfinished *out)
{
	struct jp_stage_unfinished one;
	DIR *d = opendir(out->where);
	struct dirent *e;
	bool told = false;

	out->running = -1;
	if (!d)
		return;
	while ((e = readdir(d)) && out->runs < RECORDS_READ) {
		char file[PATH_MAX * 2];

		if (e->d_name[0] == '.')
			continue;
		out->runs++;
		snprintf(file, sizeof(file), "%s/%s", out->where, e->d_name);
		memset(&one, 0, sizeof(one));
		if (told && out->running == 1)
			continue;
		if (read_record(&one, file) && (!told || one.running == 1)) {
			memcpy(out->command, one.command, sizeof(out->command));
			memcpy(out->host, one.host, sizeof(out->host));
			memcpy(out->started, one.started, sizeof(out->started));
			out->pid = one.pid;
			out->running = one.running;
			told = true;
		}
	}
	closedir(d);
}

static const struct {
	const char *kind;
	enum jp_unfinished_kind what;
} temporaries[] = {
	{ "staging-", JP_UNFINISHED_RUN },
	{ "stage-", JP_UNFINISHED_TREE },
	{ "unpack-", JP_UNFINISHED_UNPACK },
	{ "", JP_UNFINISHED_FILE },
};

void jp_stage_unfinished_look(struct jp_stage_unfinished *out, const char *path)
{
	char cur[PATH_MAX], dir[PATH_MAX], name[PATH_MAX];
	char *norm = jp_path_normalize(path);
	const char *base;
	struct stat sb;

	memset(out, 0, sizeof(*out));
	snprintf(cur, sizeof(cur), "%s", norm ? norm : path);
	free(norm);
	/* the path, then each folder above it: a stage of a folder holding it */
	while (split(cur, dir, sizeof(dir), &base)) {
		for (size_t k = 0; k < sizeof(temporaries) / sizeof(temporaries[0]); k++) {
			if (!beside(name, sizeof(name), dir, temporaries[k].kind, base) ||
			    lstat(name, &sb) != 0)
				continue;
			out->kind = temporaries[k].what;
			snprintf(out->dest, sizeof(out->dest), "%s", cur);
			snprintf(out->where, sizeof(out->where), "%s", name);
			if (out->kind == JP_UNFINISHED_RUN)
				read_records(out);
			if (out->kind != JP_UNFINISHED_RUN || out->runs > 0)
				return;
			/* a folder with no record left: a run ending, or starting */
			memset(out, 0, sizeof(*out));
		}
		snprintf(cur, sizeof(cur), "%s", dir);
	}
}
