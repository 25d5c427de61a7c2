/* One git operation's callbacks: progress (rate-limited, cancellable),
 * the checkout "rug pull" that makes a cancel take effect mid-checkout, and
 * turning libgit2's failures into JP_E* codes with a readable line. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

#include "jobprep/i18n.h"
#include "git_internal.h"

/* Progress reaches the port at most this often; cancel is checked on every
 * callback all the same. */
#define PROGRESS_INTERVAL_NS 100000000ULL

static __thread struct jp_git_op *current_op;

void jp_git_op_init(struct jp_git_op *op, const struct jp_port *port)
{
	memset(op, 0, sizeof(*op));
	op->port = port;
	op->t_start = jp_now_ns();
	op->t_rate = op->t_start;
	op->phase = JP_PHASE_CONNECT;
	atomic_init(&op->abandoned, 0);
}

void jp_git_op_enter(struct jp_git_op *op)
{
	current_op = op;
}

void jp_git_op_leave(struct jp_git_op *op)
{
	if (current_op == op)
		current_op = NULL;
}

struct jp_git_op *jp_git_op_current(void)
{
	return current_op;
}

int jp_git_op_fail(struct jp_git_op *op, int code, const char *fmt, ...)
{
	va_list ap;

	if (op->fail_code == 0) {
		op->fail_code = code;
		va_start(ap, fmt);
		vsnprintf(op->fail_msg, sizeof(op->fail_msg), fmt, ap);
		va_end(ap);
	}
	return GIT_EUSER;
}

int jp_git_op_fail_whole(struct jp_git_op *op, const struct jp_error *e)
{
	size_t used = 0;

	if (op->fail_code != 0 || !e || !e->code || e->n == 0)
		return GIT_EUSER;
	op->fail_code = e->code;
	op->fail_msg[0] = '\0';
	for (size_t i = 0; i < e->n && used < sizeof(op->fail_msg); i++) {
		int w = snprintf(op->fail_msg + used, sizeof(op->fail_msg) - used, "%s%s",
				 i ? "\n" : "", e->msgs[i]);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	return GIT_EUSER;
}

/* op's failure in err: its first line after what, then every other line. */
static int fail_lines(const struct jp_git_op *op, struct jp_error *err, const char *what)
{
	const char *line = op->fail_msg, *nl = strchr(line, '\n');

	jp_error_set(err, op->fail_code, "%s: %.*s", what,
		     (int)(nl ? (size_t)(nl - line) : strlen(line)), line);
	while (nl) {
		line = nl + 1;
		nl = strchr(line, '\n');
		jp_error_set(err, op->fail_code, "%.*s",
			     (int)(nl ? (size_t)(nl - line) : strlen(line)), line);
	}
	return op->fail_code;
}

int jp_git_op_progress(struct jp_git_op *op, enum jp_phase phase,
		       uint64_t done, uint64_t total, uint64_t bytes, bool force)
{
	struct jp_progress p;
	uint64_t now;

	if (op->canceled)
		return -1;
	if (atomic_load(&op->abandoned) == JP_ECANCELED) {
		op->canceled = true;
		return -1;
	}
	if (!op->port || !op->port->progress)
		return 0;
	now = jp_now_ns();
	if (!force && phase == op->phase && now - op->t_last < PROGRESS_INTERVAL_NS)
		return 0;
	if (phase != op->phase) {
		op->phase = phase;
		op->t_rate = now;
		op->rate_bytes = bytes;
		op->rate = 0;
	} else if (now - op->t_rate >= 1000000000ULL) {
		/* A rate over the last second or so. */
		if (bytes >= op->rate_bytes)
			op->rate = (double)(bytes - op->rate_bytes) * 1e9 / (double)(now - op->t_rate);
		op->t_rate = now;
		op->rate_bytes = bytes;
	}
	op->t_last = now;
	op->last_done = done;
	op->last_total = total;
	op->last_bytes = bytes;
	p.phase = phase;
	p.done = done;
	p.total = total;
	p.bytes = bytes;
	p.bytes_total = 0;
	p.rate = op->rate;
	p.what = op->what;
	if (op->port->progress(&p, op->port->payload) < 0) {
		op->canceled = true;
		return -1;
	}
	return 0;
}

int jp_git_op_tick(struct jp_git_op *op)
{
	if (op->canceled)
		return -1;
	return jp_git_op_progress(op, op->phase, op->last_done, op->last_total, op->last_bytes,
				  false);
}

static int transfer_cb(const git_indexer_progress *st, void *payload)
{
	struct jp_git_op *op = payload;
	int rc;

	if (op->room && st->received_bytes > op->room) {
		op->out_of_room = true;
		return -1;
	}
	if (st->received_objects < st->total_objects || st->total_deltas == 0)
		rc = jp_git_op_progress(op, JP_PHASE_FETCH, st->received_objects,
					st->total_objects, st->received_bytes, false);
	else
		rc = jp_git_op_progress(op, JP_PHASE_INDEX, st->indexed_deltas,
					st->total_deltas, st->received_bytes, false);
	return rc < 0 ? -1 : 0;
}

/* The server's own messages ("Counting objects..."): not shown, but a
 * chance to cancel while it prepares the pack. */
static int sideband_cb(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	return jp_git_op_tick(payload) < 0 ? -1 : 0;
}

static void checkout_progress_cb(const char *path, size_t completed,
				 size_t total, void *payload)
{
	struct jp_git_op *op = payload;

	if (path && op->on_file && !op->canceled)
		op->on_file(op->on_file_ctx, path);
	op->what = path;
	if (jp_git_op_progress(op, JP_PHASE_CHECKOUT, completed, total, 0,
			       completed == total) < 0 && op->rug) {
		/* libgit2's checkout progress cannot cancel; move the tree it
		 * writes into away, so its next write fails and the checkout
		 * stops now rather than when every file is written. The
		 * temporary holding both names is removed afterwards. */
		char moved[4096];

		snprintf(moved, sizeof(moved), "%s.canceled", op->rug);
		if (rename(op->rug, moved) == 0)
			op->rug = NULL;
	}
	op->what = NULL;
}

static int checkout_notify_cb(git_checkout_notify_t why, const char *path,
			      const git_diff_file *baseline, const git_diff_file *target,
			      const git_diff_file *workdir, void *payload)
{
	struct jp_git_op *op = payload;

	(void)why;
	(void)path;
	(void)baseline;
	(void)target;
	(void)workdir;
	return op->canceled ? -1 : 0;
}

void jp_git_op_remote_callbacks(git_remote_callbacks *cb, struct jp_git_op *op)
{
	cb->credentials = jp_git_cred_cb;
	cb->certificate_check = jp_git_hostkey_cb;
	/* Without a progress callback nobody can cancel: leave libgit2's
	 * per-object callbacks off then, it is measurably cheaper. */
	if ((op->port && op->port->progress) || op->room) {
		cb->transfer_progress = transfer_cb;
		cb->sideband_progress = sideband_cb;
	}
	cb->payload = op;
}

void jp_git_op_checkout_callbacks(git_checkout_options *co, struct jp_git_op *op)
{
	if ((op->port && op->port->progress) || op->on_file) {
		co->progress_cb = checkout_progress_cb;
		co->progress_payload = op;
		co->notify_cb = checkout_notify_cb;
		co->notify_flags = GIT_CHECKOUT_NOTIFY_NONE;
		co->notify_payload = op;
	}
}

static bool disk_full(const char *dir)
{
	struct statvfs vfs;

	if (!dir || statvfs(dir, &vfs) != 0)
		return false;
	/* Less than 64 KiB left, or no inodes: a write has just failed. */
	return (uint64_t)vfs.f_bavail * vfs.f_frsize < 65536 ||
	       (vfs.f_files > 0 && vfs.f_favail == 0);
}

int jp_git_op_error(struct jp_git_op *op, int gerr, const char *dir,
		    struct jp_error *err, const char *what)
{
	const git_error *ge = git_error_last();
	const char *msg = ge && ge->message ? ge->message : _("unknown error");
	int klass = ge ? ge->klass : 0;
	int code;

	if (op && atomic_load(&op->abandoned) == JP_ETIMEOUT)
		return jp_error_set(err, JP_ETIMEOUT, "%s: %s", what, op->abandoned_msg);
	if (op && atomic_load(&op->abandoned) == JP_ECANCELED)
		return jp_error_set(err, JP_ECANCELED, _("%s: canceled"), what);
	if (op && op->fail_code)
		return fail_lines(op, err, what);
	if (op && op->canceled)
		return jp_error_set(err, JP_ECANCELED, _("%s: canceled"), what);
	if (disk_full(dir) || strstr(msg, "No space left") || strstr(msg, "ENOSPC"))
		return jp_error_set(err, JP_ENOSPC, _("%s: no space left on the disk holding %s"),
				    what, dir ? dir : "the target");
	switch (gerr) {
	case GIT_EAUTH:
		code = JP_EAUTH;
		break;
	case GIT_ENOTFOUND:
		code = JP_ENOENT;
		break;
	case GIT_EOWNER:
		code = JP_EREFUSED;
		break;
	case GIT_ECERTIFICATE:
		code = JP_EREFUSED;
		break;
	case GIT_EUSER:
		code = JP_ECANCELED;
		break;
	default:
		if (klass == GIT_ERROR_NET || klass == GIT_ERROR_HTTP || klass == GIT_ERROR_SSH ||
		    klass == GIT_ERROR_SSL)
			code = JP_ENET;
		else if (klass == GIT_ERROR_OS)
			code = JP_EIO;
		else
			code = JP_EGIT;
	}
	if (strstr(msg, "cannot redirect from") || strstr(msg, "cross host redirect"))
		return jp_error_set(err, JP_EREFUSED,
				    _("%s: the server redirected to another host, and jobprep only "
				      "talks to the host you named (%s); clone from the new URL "
				      "if you trust it"),
				    what, msg);
	if (code == JP_EAUTH)
		return jp_error_set(err, code, _("%s: authentication failed (%s)"), what, msg);
	return jp_error_set(err, code, "%s: %s", what, msg);
}
