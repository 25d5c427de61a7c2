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

/* An entry's fields, listed once for both sides (probe_bytes_field); read
 * back, its strings are malloc'd. */
static void item_wire(struct probe_bytes *b, struct jp_scan_item *it)
{
	uint32_t kind = (uint32_t)it->kind;

	PROBE_FIELD(b, kind);
	it->kind = (enum jp_scan_item_kind)kind;
	PROBE_FIELD(b, it->size);
	PROBE_FIELD(b, it->errnum);
	PROBE_FIELD(b, it->unpacked);
	probe_bytes_field_str(b, (char **)&it->path);
	probe_bytes_field_str(b, (char **)&it->target);
}

static int send_item(const struct jp_scan_item *it, void *payload)
{
	struct probe_bytes b = {NULL, 0, 0, 0, false, false};
	struct jp_scan_item sent = *it;

	(void)payload;
	probe_bytes_put(&b, (char[]){REPORT_ITEM}, 1);
	item_wire(&b, &sent);
	if (!b.bad)
		jp_watch_send(b.p, b.n);
	free(b.p);
	return jp_watch_stop_asked() ? -1 : 0;
}

/* The options' fields and whether entries are wanted, listed once for
 * both sides (probe_bytes_field). */
static bool opts_wire(struct probe_bytes *b, struct jp_scan_opts *o, bool *items)
{
	uint32_t mode = (uint32_t)o->mode;

	PROBE_FIELD(b, mode);
	o->mode = mode == JP_SCAN_QUICK ? JP_SCAN_QUICK : JP_SCAN_FULL;
	PROBE_FIELD(b, o->threads);
	PROBE_FIELD(b, o->progress_ms);
	PROBE_FIELD(b, o->quick_ms);
	PROBE_FIELD(b, o->quick_entries);
	probe_bytes_field(b, items, sizeof(*items));
	return !b->bad;
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
	o = (struct jp_scan_opts)JP_SCAN_OPTS_INIT;
	if (!opts_wire(in, &o, &want_items) || !path) {
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
	int rc = 1;

	memset(&it, 0, sizeof(it));
	item_wire(in, &it);
	if (!in->bad && it.path && c->output && c->output->item &&
	    c->output->item(&it, c->output->payload) < 0)
		rc = -1;
	free((char *)it.path);
	free((char *)it.target);
	return rc;
}

/* A report from the helper: progress passed on (new counts are a sign of
 * life), or a notable entry (one too). */
static int caller_report(const void *msg, size_t n, void *payload)
{
	struct scan_call *c = payload;
	struct probe_bytes in = {(char *)msg, n, n, 0, false, true};
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
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
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
	struct jp_scan_opts sent = *o;
	bool items = output && output->item;
	opts_wire(&in, &sent, &items);
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
