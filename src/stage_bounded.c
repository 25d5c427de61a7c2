/* jp_stage in bounded time: the work (stage.c) runs in a watched
 * helper process (helper.c), so a source or destination on a network mount
 * that stopped answering costs "PATH: no answer within N s", never a
 * process stuck in the kernel; a cancel (Ctrl-C, SIGTERM) still ends it at
 * once. Progress is passed on as it comes; the result and the messages
 * come back as bytes. What a helper given up leaves behind is what kill -9
 * leaves (temporaries, never a half-made file under its final name): the
 * next run goes on from there. */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "jobprep/stage.h"
#include "jobprep/url.h"
#include "helper_internal.h"
#include "stage_internal.h"
#include "error_internal.h"

/* How long a cancelled stage may go without a sign of life. */
#define CANCEL_GRACE_MS 2000

struct stage_call {
	/* the answer */
	int rc;
	struct jp_error err;
	struct jp_stage_result res;
	/* the parent's: relaying progress */
	const struct jp_port *port;
	struct jp_progress_relay relay;
	const char *source, *dest;
};

/* ---- in the child ---- */

/* The answer's fields, listed once for both sides (probe_bytes_field): rc,
 * the error whole, the result's numbers (as bytes: its pointers are each
 * side's own), then its strings. false when the bytes are short. */
static bool answer_wire(struct probe_bytes *b, struct stage_call *c)
{
	struct jp_stage_result r = c->res;

	PROBE_FIELD(b, c->rc);
	probe_bytes_field_error(b, &c->err, c->rc);
	PROBE_FIELD(b, r);
	if (b->reading) {
		c->res = r;
		c->res.dest = c->res.revision = NULL;
		c->res.outside = c->res.notes = NULL;
		c->res.n_outside = c->res.n_notes = 0;
	}
	probe_bytes_field_str(b, &c->res.dest);
	probe_bytes_field_str(b, &c->res.revision);
	probe_bytes_field_strv(b, &c->res.outside, &c->res.n_outside);
	probe_bytes_field_strv(b, &c->res.notes, &c->res.n_notes);
	return !b->bad;
}

/* The options' fields, listed once for both sides (probe_bytes_field),
 * after whether there are any (have, read back), the bearer token too (the
 * socket is the helper's alone, never its argv or environment); read back,
 * *o's strings are malloc'd (options_dispose). Returns have. */
static bool options_wire(struct probe_bytes *b, struct jp_stage_options *o, bool have)
{
	PROBE_FIELD(b, have);
	if (!have)
		return false;
	PROBE_FIELD(b, o->jobs);
	PROBE_FIELD(b, o->verify);
	PROBE_FIELD(b, o->no_unpack);
	PROBE_FIELD(b, o->shard);
	PROBE_FIELD(b, o->shards);
	PROBE_FIELD(b, o->expect_known);
	PROBE_FIELD(b, o->expect_size);
	PROBE_FIELD(b, o->timeout_s);
	PROBE_FIELD(b, o->reserve_bytes);
	PROBE_FIELD(b, o->has_reserve);
	probe_bytes_field_str(b, (char **)&o->sha256);
	probe_bytes_field_str(b, (char **)&o->bearer);
	return true;
}

static void options_dispose(struct jp_stage_options *o)
{
	free((char *)o->sha256);
	if (o->bearer)
		explicit_bzero((char *)o->bearer, strlen(o->bearer));
	free((char *)o->bearer);
}

/* inputs: source, dest, the options; answer: answer_wire's */
static void stage_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_port port = jp_helper_port(NULL);
	struct jp_stage_options opts;
	struct stage_call c;
	char *source = probe_bytes_get_str(in), *dest = probe_bytes_get_str(in);
	bool have;

	opts = (struct jp_stage_options)JP_STAGE_OPTIONS_INIT;
	have = options_wire(in, &opts, false);
	memset(&c, 0, sizeof(c));
	jp_error_init(&c.err);
	c.res = (struct jp_stage_result)JP_STAGE_RESULT_INIT;
	if (!in->bad)
		c.rc = jp_stage_now(&c.res, source, dest, have ? &opts : NULL, &port, &c.err);
	answer_wire(out, &c);
	jp_stage_result_dispose(&c.res);
	jp_error_dispose(&c.err);
	options_dispose(&opts);
	free(source);
	free(dest);
}
JP_HELPER_REQUEST(stage, stage_serve, JP_HELPER_WATCHED);

/* ---- in the parent ---- */

static bool parent_cancelled(void *payload)
{
	const struct stage_call *c = payload;

	return c->port && c->port->cancelled && c->port->cancelled(c->port->payload);
}

/* A progress report from the child: passed on; new counts are a sign of
 * life. */
static int parent_report(const void *msg, size_t n, void *payload)
{
	struct stage_call *c = payload;
	struct probe_bytes in = {(char *)msg, n, n, 0, false, true};

	return jp_progress_relay(&c->relay, &in);
}

static bool remote(const char *source)
{
	return jp_stage_is_url(source) || jp_stage_is_hub(source);
}

/* The path of the two that does not answer (a short look at each, which
 * marks its mount hung when it does not); dest when both do, or NULL when
 * both do and the source is a server's (which is then what went silent). */
static const char *silent_path(const char *source, const char *dest)
{
	unsigned quick = jp_probe_default_timeout_ms();
	struct stat st;
	int e;

	if (quick > 1000)
		quick = 1000;
	if (jp_probe_stat(&st, &e, dest, 0, quick, NULL) == JP_ETIMEOUT)
		return dest;
	if (remote(source))
		return NULL;
	if (jp_probe_stat(&st, &e, source, 0, quick, NULL) == JP_ETIMEOUT)
		return source;
	return dest;
}

static int stalled(void *payload, unsigned ms, struct jp_error *err)
{
	const struct stage_call *c = payload;
	const char *source = c->source, *path = silent_path(source, c->dest);
	char *shown;
	int rc;

	if (path)
		return jp_helper_no_answer(err, path, ms);
	/* a token written in the URL stays out of the message */
	shown = jp_url_redact(source);
	rc = jp_error_set(err, JP_ETIMEOUT,
			  _("%s: the server sent nothing for %u.%u s (is it up? a proxy holding "
			    "the connection?)"),
			  shown ? shown : "URL", ms / 1000, (ms % 1000) / 100);
	free(shown);
	return rc;
}

int jp_stage(struct jp_stage_result *out, const char *source, const char *dest,
	     const struct jp_stage_options *opts, const struct jp_port *port,
	     struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	struct stage_call c;
	struct jp_watch w;
	bool cancel_sent;
	int rc;

	if (out)
		*out = (struct jp_stage_result)JP_STAGE_RESULT_INIT;
	if (!source || !source[0] || !dest || !dest[0])
		return jp_stage_now(out, source, dest, opts, port, err); /* the usage error */
	memset(&c, 0, sizeof(c));
	c.source = source;
	c.dest = dest;
	c.port = port;
	if (port && port->progress) {
		c.relay.show = port->progress;
		c.relay.payload = port->payload;
	}
	jp_error_init(&c.err);
	c.res = (struct jp_stage_result)JP_STAGE_RESULT_INIT;
	memset(&w, 0, sizeof(w));
	w.cancelled = parent_cancelled;
	w.report = parent_report;
	w.stalled = stalled;
	w.payload = &c;
	/* either mount known hung fails it at once; which one went silent
	 * is found by stalled, so none is marked here */
	w.also[0] = dest;
	w.also[1] = remote(source) ? NULL : source;
	/* as long as a write of a named file may take (a flush on a slow
	 * mount), without a byte or a file moving on */
	w.stall_ms = jp_file_write_timeout_ms();
	/* a download's own bound (libcurl's, --timeout) says first what the
	 * server did; this one is for a mount that stopped answering */
	if (remote(source)) {
		unsigned t = opts && opts->timeout_s ? opts->timeout_s : JP_STAGE_TIMEOUT_DEFAULT;
		unsigned ms = t > (UINT_MAX - 10000u) / 1000u ? UINT_MAX : t * 1000u + 10000u;

		if (ms > w.stall_ms)
			w.stall_ms = ms;
	}
	w.grace_ms = w.stall_ms < CANCEL_GRACE_MS ? w.stall_ms : CANCEL_GRACE_MS;
	w.keep = true; /* nothing of it runs on once it has answered */
	probe_bytes_put_str(&in, source);
	probe_bytes_put_str(&in, dest);
	struct jp_stage_options sent = opts ? *opts : (struct jp_stage_options)JP_STAGE_OPTIONS_INIT;
	options_wire(&in, &sent, opts != NULL);
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_watch(&ans, &jp_req_stage, &in, &w, &cancel_sent, err);
	if (in.p)
		explicit_bzero(in.p, in.n);
	free(in.p);
	if (rc == 0 && !answer_wire(&ans, &c))
		rc = jp_error_set(err, JP_EINTERNAL, "%s",
				  _("the work's process ended without an answer"));
	free(ans.p);
	if (rc == JP_ECANCELED) {
		rc = jp_error_set(err, JP_ECANCELED, _("%s: copy canceled"), dest);
	} else if (rc == 0) {
		rc = c.rc;
		for (size_t i = 0; i < c.err.n; i++)
			jp_error_set(err, c.err.code ? c.err.code : rc, "%s", c.err.msgs[i]);
		if (rc == 0 && out) {
			*out = c.res;
			c.res = (struct jp_stage_result)JP_STAGE_RESULT_INIT;
		}
	}
	jp_stage_result_dispose(&c.res);
	jp_error_dispose(&c.err);
	return rc;
}
