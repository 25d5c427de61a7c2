/* jobprep stage ARCHIVE DEST: unpack through libarchive into a folder
 * beside DEST, refusing members that would land outside it, then put the
 * whole tree in place. Folders get the archive's modes where it lists
 * them, else a person's mkdir's (the umask's); an existing DEST keeps its
 * own mode, times and owner. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "jobprep/i18n.h"
#include "jobprep/meter.h"
#include "jobprep/path.h"
#include "path_internal.h"
#include "jobprep/stage.h"
#include "treecopy.h"
#include "stage_internal.h"
#include "stage_member.h"
#include "treecopy_internal.h"
#include "deadline_internal.h"
#include "meter_internal.h"

#define UNPACK_PREFIX JP_TREECOPY_TMP_PREFIX "unpack-"
#define PROGRESS_NS 100000000ULL

const char *jp_stage_archive_suffix(const char *name)
{
	static const char *const ends[] = { ".tar", ".tar.gz", ".tgz", ".tar.zst", ".tzst",
					    ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz",
					    ".zip" };
	size_t n = strlen(name), best = 0;

	/* the longest: "x.tar.gz" is ".tar.gz", not ".gz" or ".tar" */
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		size_t k = strlen(ends[i]);

		if (n > k && k > best && strcasecmp(name + n - k, ends[i]) == 0)
			best = k;
	}
	return best ? name + n - best : NULL;
}

bool jp_stage_is_archive(const char *name)
{
	return jp_stage_archive_suffix(name) != NULL;
}

int jp_stage_note(struct jp_stage_result *out, const char *fmt, ...)
{
	char **v = realloc(out->notes, (out->n_notes + 1) * sizeof(*v));
	va_list ap;
	int n;

	if (!v)
		return JP_ENOMEM;
	out->notes = v;
	va_start(ap, fmt);
	n = vasprintf(&v[out->n_notes], fmt, ap);
	va_end(ap);
	if (n < 0)
		return JP_ENOMEM;
	out->n_notes++;
	return 0;
}

/* ---- unpacking ---- */

struct ax {
	const char *src;      /* the archive, as named */
	const char *dest;     /* as named */
	char tmp[PATH_MAX];   /* the unpack folder, absolute, no symlink in it */
	int dest_fd, tmp_fd;  /* dest_fd -1: dest does not exist yet */
	bool tmp_fresh;       /* made by this run: nothing in it to resume */
	unsigned jobs;
	struct archive *r;
	struct jp_unpack *u;
	struct jp_member_set *links; /* the symlink members so far */
	struct jp_member_set *listed; /* the folder members */
	bool top_listed;      /* "./": its mode and times for a new dest */
	mode_t top_perm;
	struct timespec top_times[2];
	struct jp_stage_result *out;
	const struct jp_port *port;
	uint64_t t_last, members;
	uint64_t size;        /* of the archive */
	struct jp_meter meter;
	bool canceled;
};

/* Progress by the archive's bytes read (of its size: a fraction, a rate
 * and a time to go however much it unpacks to). */
static void report(struct ax *x, bool force)
{
	uint64_t now = jp_now_ns();
	struct jp_progress p = { JP_PHASE_UNPACK, x->members, 0, 0, x->size, 0, x->src };
	la_int64_t read = x->r ? archive_filter_bytes(x->r, -1) : 0;

	if (!x->port || x->canceled || (!force && now - x->t_last < PROGRESS_NS))
		return;
	x->t_last = now;
	p.bytes = read > 0 ? (uint64_t)read : 0;
	if (p.bytes > p.bytes_total)
		p.bytes_total = p.bytes;
	p.rate = jp_meter_rate(&x->meter, now, p.bytes);
	if ((x->port->cancelled && x->port->cancelled(x->port->payload)) ||
	    (x->port->progress && x->port->progress(&p, x->port->payload) < 0))
		x->canceled = true;
}

static int sys_code(int e)
{
	return e == ENOSPC || e == EDQUOT ? JP_ENOSPC : JP_EIO;
}

static int refuse(struct ax *x, struct jp_error *err, const char *member, const char *why)
{
	return jp_error_set(err, JP_EREFUSED,
			    _("%s: member \"%s\" %s: the archive is refused, nothing of it was put in place"),
			    x->src, member, why);
}

/* The writers' tick: report, and say whether it was canceled. */
static bool tick(void *arg)
{
	struct ax *x = arg;

	report(x, false);
	return x->canceled;
}

static void entry_times(struct archive_entry *e, struct timespec t[2])
{
	t[1].tv_sec = archive_entry_mtime(e);
	t[1].tv_nsec = archive_entry_mtime_nsec(e);
	if (archive_entry_atime_is_set(e)) {
		t[0].tv_sec = archive_entry_atime(e);
		t[0].tv_nsec = archive_entry_atime_nsec(e);
	} else {
		t[0] = t[1];
	}
}

/* Refuse the entry, or leave it out, or clean it (set-uid bits), by the
 * member checks of stage_member.c; its clean name and a hard link's clean
 * target into v. 0 write it, 1 left out (or the top itself), < 0 error. */
static int vet(struct ax *x, struct archive_entry *e, struct jp_member_out *v,
	       struct jp_error *err)
{
	struct jp_member m = { archive_entry_pathname(e), archive_entry_filetype(e),
			       archive_entry_perm(e), archive_entry_hardlink(e),
			       archive_entry_symlink(e) };
	const char *shown = m.name ? m.name : "?";
	char why[PATH_MAX + 64];
	int rc = jp_member_vet(x->links, &m, v);

	if (rc < 0)
		return jp_error_oom(err);
	if (rc == JP_MEMBER_TOP) {
		if (m.type == AE_IFDIR) {
			x->top_listed = true;
			x->top_perm = v->perm & ~(mode_t)06000;
			entry_times(e, x->top_times);
		}
		return 1;
	}
	if (rc == JP_MEMBER_REFUSE) {
		switch (v->why) {
		case JP_MEMBER_THROUGH:
			snprintf(why, sizeof(why), _("is written through the symlink member \"%s\""),
				 v->through);
			return refuse(x, err, v->clean, why);
		case JP_MEMBER_HARD_OUTSIDE:
			return refuse(x, err, v->clean, _("is a hard link to a name outside the destination"));
		case JP_MEMBER_HARD_THROUGH:
			return refuse(x, err, v->clean, _("is a hard link through a symlink member"));
		default:
			return refuse(x, err, shown,
				      _("is named absolute or with \"..\": it would land outside the destination"));
		}
	}
	if (rc == JP_MEMBER_LEAVE_OUT) {
		rc = jp_stage_note(x->out, _("%s: left out: a device node, FIFO or socket"), v->clean);
		return rc ? jp_error_set(err, rc, "%s", _("out of memory")) : 1;
	}
	if (v->perm_dropped) {
		if ((rc = jp_stage_note(x->out, _("%s: set-uid/set-gid bit dropped"), v->clean)) != 0)
			return jp_error_set(err, rc, "%s", _("out of memory"));
		archive_entry_set_perm(e, v->perm);
	}
	if (v->link_leaves) {
		char **o = realloc(x->out->outside, (x->out->n_outside + 1) * sizeof(*o));

		if (!o || !(o[x->out->n_outside] = strdup(v->clean))) {
			if (o)
				x->out->outside = o;
			return jp_error_oom(err);
		}
		x->out->outside = o;
		x->out->n_outside++;
	}
	return 0;
}

/* Write one vetted member into the unpack folder. */
static int member(struct ax *x, struct archive_entry *e, const char *name, const char *hard,
		  struct jp_error *err)
{
	mode_t type = archive_entry_filetype(e), perm = archive_entry_perm(e) & 07777;
	struct timespec t[2];
	const char *msg = NULL;
	int r;

	entry_times(e, t);
	if (type == AE_IFDIR) {
		x->out->dirs++;
		if (jp_member_set_add(x->listed, name) != 0)
			return jp_error_oom(err);
		r = jp_unpack_dir(x->u, name, perm, t);
	} else if (type == AE_IFLNK) {
		x->out->symlinks++;
		r = jp_unpack_link(x->u, name, archive_entry_symlink(e), NULL, t);
	} else if (hard[0]) {
		x->out->files++;
		r = jp_unpack_link(x->u, name, NULL, hard, t);
	} else {
		x->out->files++;
		r = jp_unpack_file(x->u, x->r, name,
				   archive_entry_size_is_set(e) ? (int64_t)archive_entry_size(e) : -1,
				   perm, t, &msg);
	}
	if (r == -2)
		return jp_error_set(err, JP_EARCHIVE, _("%s: not a readable archive: %s: %s"), x->src,
				    name, msg ? msg : "?");
	if (r == -3) {
		char why[PATH_MAX + 96];

		snprintf(why, sizeof(why),
			 _("is a hard link to \"%s\", which is reached through a symlink already in "
			   "the destination"),
			 hard);
		return refuse(x, err, name, why);
	}
	if (r != 0 && errno == ECANCELED)
		return JP_ECANCELED;
	if (r != 0 && jp_unpack_failed(x->u))
		return JP_EIO; /* a writer's: finish says which */
	if (r != 0)
		return jp_error_set(err, sys_code(errno), _("unpacking %s: %s: %s"), x->src, name,
				    strerror(errno));
	return 0;
}

static int unpack_all(struct ax *x, struct jp_error *err)
{
	struct archive_entry *e;
	int r, rc = 0;

	while ((r = archive_read_next_header(x->r, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		struct jp_member_out v;

		x->members++;
		if ((rc = vet(x, e, &v, err)) < 0)
			return rc;
		if (rc == 1)
			continue;
		if ((rc = member(x, e, v.clean, v.hard, err)) != 0)
			return rc;
		report(x, false);
		if (x->canceled)
			return JP_ECANCELED;
	}
	if (r != ARCHIVE_EOF)
		return jp_error_set(err, JP_EARCHIVE, _("%s: not a readable archive: %s"), x->src,
				    archive_error_string(x->r));
	return 0;
}

/* Read the archive on this thread, its members written by jobs writers. */
static int unpack(struct ax *x, struct jp_error *err)
{
	char msg[1024] = "";
	int rc, frc;

	if ((rc = jp_unpack_start(&x->u, x->tmp_fd, x->tmp_fresh, x->dest_fd, x->jobs, tick, x)) != 0)
		return jp_error_set(err, rc, "%s", _("out of memory"));
	rc = unpack_all(x, err);
	frc = jp_unpack_finish(x->u, rc == 0, x->out, msg, sizeof(msg));
	x->u = NULL;
	if (rc == JP_EIO && msg[0]) /* a writer failed first */
		frc = rc;
	if (rc == 0 || (rc == JP_EIO && msg[0]))
		rc = frc;
	if (rc == JP_ECANCELED || x->canceled)
		return JP_ECANCELED;
	if (rc != 0 && msg[0])
		return jp_error_set(err, rc == JP_ENOSPC ? JP_ENOSPC : JP_EIO, _("unpacking %s: %s"),
				    x->src, msg);
	return rc;
}

/* ---- putting the tree in place ---- */

static int merge(struct ax *x, int from, int to, const char *rel, struct jp_error *err);

/* A folder of the unpack folder (rel: its name there), moved into to:
 * made there when missing, as mkdir would (a set-gid folder's group);
 * given the archive's mode and times when the archive lists it (as GNU
 * tar does), else an existing one is left as it is. */
static int merge_dir(struct ax *x, int from, int to, const char *rel, const char *name,
		     const struct stat *st, struct jp_error *err)
{
	struct timespec t[2] = { st->st_atim, st->st_mtim };
	int f2, t2, rc;

	if (mkdirat(to, name, 0777) != 0 && errno != EEXIST)
		return jp_error_set(err, sys_code(errno), "%s/%s: %s", x->dest, rel, strerror(errno));
	if ((t2 = openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return jp_error_set(err, JP_EIO, _("%s/%s: cannot open: %s"), x->dest, rel,
				    strerror(errno));
	if ((f2 = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = jp_error_set(err, JP_EIO, "%s/%s: %s", x->tmp, rel, strerror(errno));
	else {
		rc = merge(x, f2, t2, rel, err);
		close(f2);
	}
	if (rc == 0 && jp_member_set_has(x->listed, rel) &&
	    (fchmod(t2, st->st_mode & 07777) != 0 || futimens(t2, t) != 0))
		rc = jp_error_set(err, JP_EIO, "%s/%s: %s", x->dest, rel, strerror(errno));
	close(t2);
	return rc;
}

/* Move everything in from (the unpack folder, or its folder rel) into to
 * (dest's), one rename per file or symlink. */
static int merge(struct ax *x, int from, int to, const char *rel, struct jp_error *err)
{
	int fd = dup(from), rc = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return jp_error_set(err, JP_EIO, "%s: %s", x->tmp, strerror(errno));
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char sub[PATH_MAX];
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		if (fstatat(from, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			rc = jp_error_set(err, JP_EIO, "%s/%s: %s", x->tmp, sub, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = merge_dir(x, from, to, sub, de->d_name, &st, err);
		else if (renameat(from, de->d_name, to, de->d_name) != 0)
			rc = jp_error_set(err, sys_code(errno), "%s/%s: %s", x->dest, sub,
					  strerror(errno));
	}
	closedir(d);
	return rc;
}

/* A new dest's mode and times: the archive's "./" where it lists one,
 * else a person's mkdir's; the set-gid bit mkdir gives there kept either
 * way (the unpack folder was made 0700 beside dest). */
static int top_attrs(struct ax *x, struct jp_error *err)
{
	struct stat st;
	mode_t mode;

	if (fstat(x->tmp_fd, &st) != 0)
		return jp_error_set(err, JP_EIO, "%s: %s", x->tmp, strerror(errno));
	mode = (x->top_listed ? x->top_perm : 0777 & ~jp_tc_umask()) | (st.st_mode & S_ISGID);
	if (fchmod(x->tmp_fd, mode) != 0 || (x->top_listed && futimens(x->tmp_fd, x->top_times) != 0))
		return jp_error_set(err, JP_EIO, "%s: %s", x->tmp, strerror(errno));
	return 0;
}

static int put_in_place(struct ax *x, struct jp_error *err)
{
	int rc;

	/* one flush for the whole tree, before any of it gets its final name */
	if (syncfs(x->tmp_fd) != 0)
		return jp_error_set(err, sys_code(errno), "%s: %s", x->tmp, strerror(errno));
	if (x->dest_fd < 0) {
		if ((rc = top_attrs(x, err)) != 0)
			return rc;
		if (rename(x->tmp, x->dest) != 0)
			return jp_error_set(err, sys_code(errno), _("%s: cannot create: %s"), x->dest,
					    strerror(errno));
		return 0;
	}
	/* an existing dest keeps its mode, times and owner */
	if ((rc = merge(x, x->tmp_fd, x->dest_fd, "", err)) != 0)
		return rc;
	return jp_treecopy_remove(x->tmp, 4, err);
}

/* The unpack folder's path: beside dest, its parent resolved (libarchive's
 * symlink check looks at every component). */
static int tmp_path(struct ax *x, struct jp_error *err)
{
	char *abs = jp_path_absolute(x->dest), *norm = abs ? jp_path_normalize(abs) : NULL;
	char parent[PATH_MAX];
	const char *slash, *base;
	int rc = 0;

	if (!norm) {
		free(abs);
		return jp_error_oom(err);
	}
	slash = strrchr(norm, '/');
	base = slash + 1;
	if (!*base) {
		rc = jp_error_set(err, JP_EUSAGE, _("%s: not a destination folder"), x->dest);
	} else {
		char *dir = strndup(norm, slash == norm ? 1 : (size_t)(slash - norm));

		if (!dir || !realpath(dir, parent))
			rc = jp_error_set(err, JP_EIO, _("%s: cannot open: %s"), dir ? dir : norm,
					  strerror(errno));
		else if (snprintf(x->tmp, sizeof(x->tmp), "%s/%s%s", strcmp(parent, "/") ? parent : "",
				  UNPACK_PREFIX, base) >= (int)sizeof(x->tmp))
			rc = jp_error_set(err, JP_EUSAGE, _("%s: path too long"), x->dest);
		free(dir);
	}
	free(abs);
	free(norm);
	return rc;
}

/* Into an existing dest, the unpack folder (made beside it) takes its
 * set-gid bit and, with it, its group (a team's folder), so that what is
 * made in it is made as in dest itself (GNU tar's, a person's); a group
 * this user is not in is left as it was. tmp: the unpack folder's stat. */
static void dest_group(struct ax *x, const struct stat *tmp)
{
	struct stat d;

	if (x->dest_fd < 0 || fstat(x->dest_fd, &d) != 0)
		return;
	if (!(d.st_mode & S_ISGID)) {
		if (tmp->st_mode & S_ISGID)
			(void)fchmod(x->tmp_fd, tmp->st_mode & 07777 & ~(mode_t)S_ISGID);
		return;
	}
	if (tmp->st_gid == d.st_gid || fchown(x->tmp_fd, (uid_t)-1, d.st_gid) == 0)
		(void)fchmod(x->tmp_fd, (tmp->st_mode & 07777) | S_ISGID);
}

static int open_all(struct ax *x, struct jp_error *err)
{
	struct stat st;

	if ((x->dest_fd = open(x->dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 && errno != ENOENT)
		return jp_error_set(err, JP_EIO, _("%s: cannot open: %s"), x->dest, strerror(errno));
	x->tmp_fresh = mkdir(x->tmp, 0700) == 0;
	if (!x->tmp_fresh && errno != EEXIST)
		return jp_error_set(err, sys_code(errno), _("%s: cannot create: %s"), x->tmp,
				    strerror(errno));
	if ((x->tmp_fd = open(x->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(x->tmp_fd, &st) != 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot open: %s"), x->tmp, strerror(errno));
	dest_group(x, &st);
	if (!(x->r = archive_read_new()))
		return jp_error_oom(err);
	archive_read_support_filter_all(x->r);
	archive_read_support_format_all(x->r);
	if (archive_read_open_filename(x->r, x->src, 1 << 20) != ARCHIVE_OK)
		return jp_error_set(err, JP_EARCHIVE, _("%s: not a readable archive: %s"), x->src,
				    archive_error_string(x->r));
	x->size = stat(x->src, &st) == 0 ? (uint64_t)st.st_size : 0;
	return 0;
}

int jp_stage_archive(struct jp_stage_result *out, const char *path, const char *dest,
		     const struct jp_stage_options *opts, const struct jp_port *port,
		     struct jp_error *err)
{
	struct ax x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.jobs = opts ? opts->jobs : 0;
	x.src = path;
	x.dest = dest;
	x.dest_fd = x.tmp_fd = -1;
	x.out = out;
	x.port = port;
	out->kind = JP_STAGE_ARCHIVE;
	/* what a download put there is the archive's bytes, not the data's */
	out->bytes_downloaded += out->bytes_written;
	out->bytes_written = 0;
	if (!(x.links = jp_member_set_new()) || !(x.listed = jp_member_set_new())) {
		jp_member_set_free(x.links);
		return jp_error_oom(err);
	}
	if ((rc = tmp_path(&x, err)) == 0 && (rc = open_all(&x, err)) == 0 &&
	    (rc = unpack(&x, err)) == 0) {
		report(&x, true);
		rc = x.canceled ? JP_ECANCELED : put_in_place(&x, err);
	}
	if (rc == JP_ECANCELED)
		jp_error_set(err, rc, _("%s: unpacking canceled"), dest);
	if (x.r)
		archive_read_free(x.r);
	if (x.tmp_fd >= 0)
		close(x.tmp_fd);
	if (x.dest_fd >= 0)
		close(x.dest_fd);
	/* Canceled, refused or unreadable: nothing kept. Another failure (a
	 * full disk; or a kill): the unpack folder stays for the next run to
	 * go on from. */
	if ((rc == JP_ECANCELED || rc == JP_EREFUSED || rc == JP_EARCHIVE) && x.tmp[0])
		jp_treecopy_remove(x.tmp, 4, NULL);
	jp_member_set_free(x.links);
	jp_member_set_free(x.listed);
	if (rc == 0 && !(out->dest = strdup(dest)))
		rc = jp_error_oom(err);
	return rc;
}
