/* jobprep stage: what the source is, and staging a directory or a file
 * (treecopy.c's parallel writers in their staging mode). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/fs.h"
#include "jobprep/i18n.h"
#include "jobprep/meter.h"
#include "jobprep/path.h"
#include "jobprep/stage.h"
#include "jobprep/url.h"
#include "treecopy.h"
#include "stage_internal.h"
#include "stage_mark.h"
#include "treecopy_internal.h"
#include "deadline_internal.h"
#include "meter_internal.h"
#include "url_internal.h"

#define BUF_SIZE (1 << 20)

static int sys_code(int e)
{
	return e == ENOSPC || e == EDQUOT ? JP_ENOSPC : e == ENOENT ? JP_ENOENT : JP_EIO;
}

void jp_stage_result_dispose(struct jp_stage_result *res)
{
	if (!res)
		return;
	free(res->dest);
	for (size_t i = 0; i < res->n_outside; i++)
		free(res->outside[i]);
	free(res->outside);
	for (size_t i = 0; i < res->n_notes; i++)
		free(res->notes[i]);
	free(res->notes);
	free(res->revision);
	*res = (struct jp_stage_result)JP_STAGE_RESULT_INIT;
}

static int stage_dir(struct jp_stage_result *out, const char *source, const char *dest,
		     const struct jp_stage_options *opts, const struct jp_port *port,
		     struct jp_error *err)
{
	struct jp_treecopy_options to = JP_TREECOPY_OPTIONS_INIT;
	struct jp_treecopy_result tr = JP_TREECOPY_RESULT_INIT;
	int rc;

	to.threads = opts ? opts->jobs : 0;
	to.stage = true;
	to.verify = opts && opts->verify;
	to.shard = opts ? opts->shard : 0;
	to.shards = opts ? opts->shards : 0;
	rc = jp_treecopy(&tr, source, dest, &to, port, err);
	if (rc != 0)
		return rc;
	out->kind = JP_STAGE_DIR;
	out->files = tr.files;
	out->dirs = tr.dirs;
	out->symlinks = tr.symlinks;
	out->skipped = tr.skipped;
	out->written = tr.files + tr.symlinks - tr.skipped;
	out->bytes_written = tr.bytes;
	out->bytes_skipped = tr.skipped_bytes;
	out->outside = tr.outside;
	out->n_outside = tr.n_outside;
	tr.outside = NULL;
	tr.n_outside = 0;
	jp_treecopy_result_dispose(&tr);
	if (!(out->dest = strdup(dest)))
		return jp_error_oom(err);
	return 0;
}

/* ---- one file: copied on a thread of its own, so the calling thread can
 * report progress and see a cancel ---- */

struct one {
	int src_at, dst_at;
	const char *src_name, *dst_name;
	struct stat sst;
	bool verify;
	char *buf;
	atomic_uint_fast64_t bytes;
	atomic_bool stop, finished;
	enum jp_tc_staged what;
	int rc, e;
};

static void *one_run(void *arg)
{
	struct one *o = arg;

	o->rc = jp_tc_stage_entry(o->src_at, o->src_name, &o->sst, o->dst_at, o->dst_name,
				  o->verify, jp_tc_on_network(o->dst_at) ? JP_TC_NOSYNC : 0,
				  jp_tc_umask(), o->buf, BUF_SIZE, &o->bytes, &o->stop, &o->what);
	o->e = errno;
	atomic_store(&o->finished, true);
	return NULL;
}

/* Report until o finishes; a cancel stops it. */
static bool one_watch(struct one *o, const struct jp_port *port, const char *what)
{
	struct jp_meter meter = JP_METER_INIT;
	bool canceled = false;

	while (!atomic_load(&o->finished)) {
		struct timespec nap = { 0, 50000000L };
		struct jp_progress p = { JP_PHASE_COPY, 0, 1, atomic_load(&o->bytes),
					 (uint64_t)o->sst.st_size, 0, what };

		nanosleep(&nap, NULL);
		if (canceled || !port)
			continue;
		p.rate = jp_meter_rate(&meter, jp_now_ns(), p.bytes);
		if ((port->cancelled && port->cancelled(port->payload)) ||
		    (port->progress && port->progress(&p, port->payload) < 0)) {
			canceled = true;
			atomic_store(&o->stop, true);
		}
	}
	return canceled;
}

bool jp_stage_names_folder(const char *dest)
{
	size_t n = strlen(dest);

	return n > 0 && dest[n - 1] == '/';
}

int jp_stage_make_folder(const char *dir, struct jp_error *err)
{
	struct stat sb;

	if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		return 0;
	return jp_fs_mkdir_p(NULL, dir, 0777, err);
}

/* dest for a file source: dest/NAME when dest is a folder (DEST/: made
 * when missing). */
static int file_dest(char **out, const char *source, const char *dest, struct jp_error *err)
{
	struct stat sb;
	const char *base = strrchr(source, '/');
	int rc;

	base = base ? base + 1 : source;
	if (jp_stage_names_folder(dest) && (rc = jp_stage_make_folder(dest, err)) != 0)
		return rc;
	if (stat(dest, &sb) == 0 && S_ISDIR(sb.st_mode))
		*out = jp_path_join(dest, base);
	else
		*out = strdup(dest);
	return *out ? 0 : jp_error_oom(err);
}

static int stage_file(struct jp_stage_result *out, const char *source, const struct stat *sst,
		      const char *dest, const struct jp_stage_options *opts,
		      const struct jp_port *port, struct jp_error *err)
{
	struct one o;
	pthread_t tid;
	char *dst = NULL, *dir = NULL;
	const char *slash;
	bool canceled;
	int rc;

	memset(&o, 0, sizeof(o));
	o.src_at = o.dst_at = -1;
	if ((rc = file_dest(&dst, source, dest, err)) != 0)
		goto out;
	if (!(o.buf = malloc(BUF_SIZE))) {
		rc = jp_error_oom(err);
		goto out;
	}
	slash = strrchr(dst, '/');
	dir = slash ? strndup(dst, slash == dst ? 1 : (size_t)(slash - dst)) : strdup(".");
	if (!dir) {
		rc = jp_error_oom(err);
		goto out;
	}
	o.dst_name = slash ? slash + 1 : dst;
	o.src_name = source;
	o.src_at = AT_FDCWD;
	o.sst = *sst;
	o.verify = opts && opts->verify;
	o.dst_at = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o.dst_at < 0) {
		rc = jp_error_set(err, sys_code(errno), _("%s: cannot open: %s"), dir,
				  strerror(errno));
		goto out;
	}
	if (pthread_create(&tid, NULL, one_run, &o) != 0) {
		rc = jp_error_set(err, JP_EINTERNAL, "%s", _("cannot start a thread"));
		goto out;
	}
	canceled = one_watch(&o, port, source);
	pthread_join(tid, NULL);
	if (o.rc != 0 && (canceled || o.e == ECANCELED)) {
		rc = jp_error_set(err, JP_ECANCELED, _("%s: copy canceled"), dst);
		goto out;
	}
	if (o.rc != 0) {
		rc = jp_error_set(err, sys_code(o.e), _("copying onto %s: %s"), dst,
				  strerror(o.e));
		goto out;
	}
	out->kind = JP_STAGE_FILE;
	out->files = 1;
	if (o.what == JP_TC_SKIPPED) {
		out->skipped = 1;
		out->bytes_skipped = (uint64_t)sst->st_size;
	} else {
		out->written = 1;
		out->bytes_written = atomic_load(&o.bytes);
	}
	out->dest = dst;
	dst = NULL;
out:
	if (o.dst_at >= 0)
		close(o.dst_at);
	free(o.buf);
	free(dir);
	free(dst);
	return rc;
}

/* ftp://, s3:// ...: a URL, so no path, and not one jobprep downloads. */
static int refuse_scheme(const char *source, struct jp_error *err)
{
	char *shown = jp_url_redact(source);
	size_t scheme;
	int rc;

	jp_url_fetch_kind(source, &scheme);
	rc = jp_error_set(err, JP_EUSAGE,
			  _("%s: unsupported scheme '%.*s': jobprep downloads http:// and https:// "
			    "URLs only (fetch it first, then stage the local copy)"),
			  shown ? shown : "?", (int)scheme, source);
	free(shown);
	return rc;
}

/* How the run ended, for its record: an archive's refusal, a bad archive
 * or a cancel before its unpack folder was put in place (jp_stage_archive
 * removes that folder then) left dest as it was. */
static enum jp_stage_end end_of(int rc, const struct jp_stage_result *res)
{
	if (rc == 0)
		return JP_STAGE_DONE;
	if (res->kind == JP_STAGE_ARCHIVE &&
	    (rc == JP_EREFUSED || rc == JP_EARCHIVE || rc == JP_ECANCELED))
		return JP_STAGE_LEFT_AS_WAS;
	return JP_STAGE_FAILED;
}

int jp_stage_now(struct jp_stage_result *out, const char *source, const char *dest,
		 const struct jp_stage_options *opts, const struct jp_port *port,
		 struct jp_error *err)
{
	struct jp_stage_result res = JP_STAGE_RESULT_INIT;
	struct jp_stage_mark *mark = NULL; /* says, until it is done, that dest is unfinished */
	struct stat sb;
	int rc;

	if (out)
		*out = res;
	if (!source || !source[0] || !dest || !dest[0])
		return jp_error_set(err, JP_EUSAGE, "%s", _("stage: a source and a destination are needed"));
	jp_stage_curl_timeout(opts ? opts->timeout_s : 0);
	if (jp_url_fetch_kind(source, NULL) == JP_FETCH_OTHER && !jp_stage_is_hub(source))
		return refuse_scheme(source, err);
	if ((jp_stage_is_url(source) || jp_stage_is_hub(source)) && opts && opts->shards > 1)
		return jp_error_set(err, JP_EUSAGE, _("%s: --shard is for a directory source"), source);
	if (jp_stage_is_hub(source) && opts && opts->sha256)
		return jp_error_set(err, JP_EUSAGE,
				    _("%s: --sha256 is for an http(s) URL: every file of a Hub "
				      "repository is checked against the Hub's own digests"),
				    source);
	if (jp_stage_is_hub(source)) {
		rc = jp_stage_hf(&res, source, dest, opts, port, err);
		goto done;
	}
	if (jp_stage_is_url(source)) {
		if ((rc = jp_stage_mark_hold(&mark, source, dest, opts, true, err)) != 0)
			return rc;
		rc = jp_stage_http(&res, source, dest, opts, port, err);
		goto done;
	}
	if (stat(source, &sb) != 0)
		return jp_error_set(err, sys_code(errno), _("%s: cannot read: %s"), source,
				    strerror(errno));
	if (opts && opts->shards > 1 && !S_ISDIR(sb.st_mode))
		return jp_error_set(err, JP_EUSAGE, _("%s: --shard is for a directory source"), source);
	/* one run at a time into dest (their temporaries would meet), but
	 * the shards of one copy, which run side by side by design */
	if ((rc = jp_stage_mark_hold(&mark, source, dest, opts, !(opts && opts->shards > 1),
				     err)) != 0)
		return rc;
	if (S_ISDIR(sb.st_mode))
		rc = stage_dir(&res, source, dest, opts, port, err);
	else if (S_ISREG(sb.st_mode) && !(opts && opts->no_unpack) && jp_stage_is_archive(source))
		rc = jp_stage_archive(&res, source, dest, opts, port, err);
	else if (S_ISREG(sb.st_mode))
		rc = stage_file(&res, source, &sb, dest, opts, port, err);
	else
		rc = jp_error_set(err, JP_EUSAGE, _("%s: not a directory or a regular file"), source);
done:
	/* a downloaded file's bytes are its download's (an archive's are
	 * apart, set by jp_stage_archive) */
	if (rc == 0 && (res.kind == JP_STAGE_HUB || (res.kind == JP_STAGE_FILE &&
						       jp_url_fetch_kind(source, NULL) == JP_FETCH_HTTP)))
		res.bytes_downloaded = res.bytes_written;
	jp_stage_mark_end(mark, end_of(rc, &res));
	if (rc == 0 && out)
		*out = res;
	else
		jp_stage_result_dispose(&res);
	return rc;
}
