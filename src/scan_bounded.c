/* jp_scan in bounded time: the walk (scan.c, jp_scan_now) runs in a
 * watched helper process (helper.c), so a tree on a network mount that
 * stopped answering costs "PATH: no answer within N s", never a thread of
 * the caller's stuck in the kernel; a cancel ends it at once. Progress and
 * the notable entries come back as reports while it runs (an entry's
 * "unpacked beside it" looked up there too, so no callback looks at the
 * tree from the caller), the counts as the answer. Inside a helper (a
 * stage's), the walk runs on that process's own threads. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobprep/i18n.h"
#include "jobprep/probe.h"
#include "jobprep/scan.h"
#include "jobprep/stage.h"
#include "stage_internal.h"
#include "probe_internal.h"
#include "scan_internal.h"
#include "helper_internal.h"
#include "error_internal.h"

/* How long a cancelled scan may go without a sign of life. */
#define CANCEL_GRACE_MS 2000
/* The helper tells a hung walk itself, with what it counted, after the
 * probe timeout without an entry; the caller gives it this much longer
 * (a first look that never returns is the caller's to tell). */
#define STALL_MARGIN_MS 1000

#define REPORT_PROGRESS 'P'
#define REPORT_ITEM 'I'

/* ---- the unpacked look, wherever the walk runs ---- */

struct unpacked_look {
	const struct jp_scan_output *inner;
	uint64_t lookups;
};

static int with_unpacked(const struct jp_scan_item *it, void *payload)
{
	struct unpacked_look *u = payload;
	struct jp_scan_item copy = *it;

	copy.unpacked = -1;
	if (it->kind == JP_SCAN_ITEM_ARCHIVE && u->lookups < JP_SCAN_UNPACKED_LOOKUPS) {
		u->lookups++;
		copy.unpacked = jp_stage_unpacked(it->path) ? 1 : 0;
	}
	return u->inner->item(&copy, u->inner->payload);
}

/* jp_scan_now, with the items' unpacked look. */
static int scan_here(struct jp_scan_result *out, const char *path, const struct jp_scan_opts *o,
		     const struct jp_scan_output *output, const struct jp_port *port,
		     struct jp_error *err)
{
	struct unpacked_look u = {output, 0};
	struct jp_scan_output wrapped = {with_unpacked, &u};

	return jp_scan_now(out, path, o, output && output->item ? &wrapped : NULL, port, err);
}

/* ---- in the helper ---- */

static void item_put(struct probe_bytes *b, const struct jp_scan_item *it)
{
	uint32_t kind = (uint32_t)it->kind;
	int32_t errnum = it->errnum, unpacked = it->unpacked;

	probe_bytes_put(b, &kind, sizeof(kind));
	probe_bytes_put(b, &it->size, sizeof(it->size));
	probe_bytes_put(b, &errnum, sizeof(errnum));
	probe_bytes_put(b, &unpacked, sizeof(unpacked));
	probe_bytes_put_str(b, it->path);
	probe_bytes_put_str(b, it->target);
}

static int send_item(const struct jp_scan_item *it, void *payload)
{
	struct probe_bytes b = {NULL, 0, 0, 0, false};

	(void)payload;
	probe_bytes_put(&b, (char[]){REPORT_ITEM}, 1);
	item_put(&b, it);
	if (!b.bad)
		jp_watch_send(b.p, b.n);
	free(b.p);
	return jp_watch_stop_asked() ? -1 : 0;
}

static void opts_put(struct probe_bytes *b, const struct jp_scan_opts *o, bool items)
{
	uint32_t mode = (uint32_t)o->mode;

	probe_bytes_put(b, &mode, sizeof(mode));
	probe_bytes_put(b, &o->threads, sizeof(o->threads));
	probe_bytes_put(b, &o->progress_ms, sizeof(o->progress_ms));
	probe_bytes_put(b, &o->quick_ms, sizeof(o->quick_ms));
	probe_bytes_put(b, &o->quick_entries, sizeof(o->quick_entries));
	probe_bytes_put(b, &items, sizeof(items));
}

static bool opts_get(struct jp_scan_opts *o, bool *items, struct probe_bytes *in)
{
	uint32_t mode = 0;

	*o = (struct jp_scan_opts)JP_SCAN_OPTS_INIT;
	probe_bytes_get(in, &mode, sizeof(mode));
	o->mode = mode == JP_SCAN_QUICK ? JP_SCAN_QUICK : JP_SCAN_FULL;
	probe_bytes_get(in, &o->threads, sizeof(o->threads));
	probe_bytes_get(in, &o->progress_ms, sizeof(o->progress_ms));
	probe_bytes_get(in, &o->quick_ms, sizeof(o->quick_ms));
	probe_bytes_get(in, &o->quick_entries, sizeof(o->quick_entries));
	probe_bytes_get(in, items, sizeof(*items));
	return !in->bad;
}

/* The answer: rc, the error's code and messages, the counts. */
static void answer_put(struct probe_bytes *out, int rc, const struct jp_error *err,
		       const struct jp_scan_result *r)
{
	probe_bytes_put(out, &rc, sizeof(rc));
	probe_bytes_put_error(out, err);
	probe_bytes_put(out, r, sizeof(*r)); /* numbers only */
}

/* inputs: the path, the options; reports: progress and items; answer:
 * answer_put's */
static void scan_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_port port = jp_helper_port((char[]){REPORT_PROGRESS});
	struct jp_scan_output items = {send_item, NULL};
	struct jp_error err = JP_ERROR_INIT;
	struct jp_scan_result r;
	struct jp_scan_opts o;
	char *path = probe_bytes_get_str(in);
	bool want_items = false;
	int rc;

	memset(&r, 0, sizeof(r));
	if (!opts_get(&o, &want_items, in) || !path) {
		out->bad = true;
		free(path);
		return;
	}
	rc = scan_here(&r, path, &o, want_items ? &items : NULL, &port, &err);
	answer_put(out, rc, &err, &r);
	jp_error_dispose(&err);
	free(path);
}
JP_HELPER_REQUEST(scan, scan_serve, JP_HELPER_WATCHED);

/* ---- in the caller ---- */

struct scan_call {
	const struct jp_scan_opts *opts;
	const struct jp_scan_output *output;
	const struct jp_port *port;
	const char *path;
	struct jp_progress_relay relay;
	/* a callback asked to stop: nothing more reaches them, and the scan
	 * is cancelled even when the helper finished before it heard */
	bool stopped;
};

static bool caller_cancelled(void *payload)
{
	const struct scan_call *c = payload;

	return (c->opts && c->opts->cancel && atomic_load(c->opts->cancel)) ||
	       (c->port && c->port->cancelled && c->port->cancelled(c->port->payload));
}

static int item_report(struct scan_call *c, struct probe_bytes *in)
{
	struct jp_scan_item it;
	uint32_t kind = 0;
	int32_t errnum = 0, unpacked = -1;
	char *path, *target;
	int rc = 1;

	memset(&it, 0, sizeof(it));
	probe_bytes_get(in, &kind, sizeof(kind));
	probe_bytes_get(in, &it.size, sizeof(it.size));
	probe_bytes_get(in, &errnum, sizeof(errnum));
	probe_bytes_get(in, &unpacked, sizeof(unpacked));
	path = probe_bytes_get_str(in);
	target = probe_bytes_get_str(in);
	if (!in->bad && path && c->output && c->output->item) {
		it.kind = (enum jp_scan_item_kind)kind;
		it.errnum = errnum;
		it.unpacked = unpacked;
		it.path = path;
		it.target = target;
		if (c->output->item(&it, c->output->payload) < 0)
			rc = -1;
	}
	free(path);
	free(target);
	return rc;
}

/* A report from the helper: progress passed on (new counts are a sign of
 * life), or a notable entry (one too). */
static int caller_report(const void *msg, size_t n, void *payload)
{
	struct scan_call *c = payload;
	struct probe_bytes in = {(char *)msg, n, n, 0, false};
	char kind = 0;

	int rc = 0;

	if (c->stopped)
		return 0;
	probe_bytes_get(&in, &kind, 1);
	if (kind == REPORT_PROGRESS)
		rc = jp_progress_relay(&c->relay, &in);
	else if (kind == REPORT_ITEM)
		rc = item_report(c, &in);
	c->stopped = rc < 0;
	return rc;
}

/* The helper's answer into *out and err: its rc. */
static int answer_get(struct probe_bytes *in, struct jp_scan_result *out, struct jp_error *err)
{
	int rc = JP_EINTERNAL;

	probe_bytes_get(in, &rc, sizeof(rc));
	probe_bytes_get_error(in, err, rc);
	probe_bytes_get(in, out, sizeof(*out));
	if (in->bad) {
		memset(out, 0, sizeof(*out));
		return jp_error_set(err, JP_EINTERNAL, "%s",
				    _("the work's process ended without an answer"));
	}
	return rc;
}

/* No sign of life: a look's deadline passed (the margin is the walk's, to
 * report). */
static int stalled(void *payload, unsigned stall_ms, struct jp_error *err)
{
	const struct scan_call *c = payload;

	return jp_helper_no_answer(err, c->path, stall_ms - STALL_MARGIN_MS);
}

static int scan_watched(struct jp_scan_result *out, const char *path,
			const struct jp_scan_opts *o, const struct jp_scan_output *output,
			const struct jp_port *port, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false}, ans = {NULL, 0, 0, 0, false};
	struct scan_call c = {o, output, port, path, {0}, false};
	struct jp_watch w;
	bool cancel_sent;
	int rc;

	if (caller_cancelled(&c))
		return jp_error_set(err, JP_ECANCELED, _("%s: scan cancelled"), path);
	if (port && port->progress) {
		c.relay.show = port->progress;
		c.relay.payload = port->payload;
	}
	memset(&w, 0, sizeof(w));
	w.cancelled = caller_cancelled;
	w.report = caller_report;
	w.stalled = stalled;
	w.payload = &c;
	w.stall_ms = jp_probe_default_timeout_ms() + STALL_MARGIN_MS;
	w.grace_ms = CANCEL_GRACE_MS;
	w.path = path;
	probe_bytes_put_str(&in, path);
	opts_put(&in, o, output && output->item);
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_watch(&ans, &jp_req_scan, &in, &w, &cancel_sent, err);
	free(in.p);
	if (rc == JP_ECANCELED)
		rc = jp_error_set(err, JP_ECANCELED, _("%s: scan cancelled"), path);
	else if (rc == 0)
		rc = answer_get(&ans, out, err);
	free(ans.p);
	/* a cancel asked before the helper's answer came wins, however fast
	 * the walk was */
	if (rc == 0 && (c.stopped || caller_cancelled(&c))) {
		out->complete = false;
		rc = jp_error_set(err, JP_ECANCELED, _("%s: scan cancelled"), path);
	}
	return rc;
}

int jp_scan(struct jp_scan_result *out, const char *path, const struct jp_scan_opts *opts,
	    const struct jp_scan_output *output, const struct jp_port *port,
	    struct jp_error *err)
{
	struct jp_scan_opts o = JP_SCAN_OPTS_INIT;

	memset(out, 0, sizeof(*out));
	if (opts)
		o = *opts;
	if (!path || !*path)
		return jp_error_set(err, JP_EUSAGE, "%s", _("empty path"));
	if (jp_helper_serving())
		return scan_here(out, path, &o, output, port, err);
	return scan_watched(out, path, &o, output, port, err);
}
