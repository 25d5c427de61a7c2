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

static void put_strv(struct probe_bytes *out, char **v, size_t n)
{
	uint64_t n64 = n;

	probe_bytes_put(out, &n64, sizeof(n64));
	for (size_t i = 0; i < n; i++)
		probe_bytes_put_str(out, v[i]);
}

static void stage_pack(struct probe_bytes *out, const struct stage_call *c)
{
	probe_bytes_put(out, &c->rc, sizeof(c->rc));
	probe_bytes_put_error(out, &c->err);
	probe_bytes_put(out, &c->res, sizeof(c->res)); /* its pointers are not used */
	probe_bytes_put_str(out, c->res.dest);
	probe_bytes_put_str(out, c->res.revision);
	put_strv(out, c->res.outside, c->res.n_outside);
	put_strv(out, c->res.notes, c->res.n_notes);
}

/* The options as bytes: the flag that there are any, the numbers, then the
 * strings (the bearer token too: the socket is the helper's alone, never
 * its argv or environment). */
static void options_put(struct probe_bytes *out, const struct jp_stage_options *o)
{
	bool have = o != NULL;

	probe_bytes_put(out, &have, sizeof(have));
	if (!o)
		return;
	probe_bytes_put(out, &o->jobs, sizeof(o->jobs));
	probe_bytes_put(out, &o->verify, sizeof(o->verify));
	probe_bytes_put(out, &o->no_unpack, sizeof(o->no_unpack));
	probe_bytes_put(out, &o->shard, sizeof(o->shard));
	probe_bytes_put(out, &o->shards, sizeof(o->shards));
	probe_bytes_put(out, &o->expect_known, sizeof(o->expect_known));
	probe_bytes_put(out, &o->expect_size, sizeof(o->expect_size));
	probe_bytes_put(out, &o->timeout_s, sizeof(o->timeout_s));
	probe_bytes_put_str(out, o->sha256);
	probe_bytes_put_str(out, o->bearer);
}

/* Read back into *o (its strings malloc'd: options_dispose); false when
 * there were none. */
static bool options_get(struct jp_stage_options *o, struct probe_bytes *in)
{
	bool have = false;

	*o = (struct jp_stage_options)JP_STAGE_OPTIONS_INIT;
	probe_bytes_get(in, &have, sizeof(have));
	if (!have)
		return false;
	probe_bytes_get(in, &o->jobs, sizeof(o->jobs));
	probe_bytes_get(in, &o->verify, sizeof(o->verify));
	probe_bytes_get(in, &o->no_unpack, sizeof(o->no_unpack));
	probe_bytes_get(in, &o->shard, sizeof(o->shard));
	probe_bytes_get(in, &o->shards, sizeof(o->shards));
	probe_bytes_get(in, &o->expect_known, sizeof(o->expect_known));
	probe_bytes_get(in, &o->expect_size, sizeof(o->expect_size));
	probe_bytes_get(in, &o->timeout_s, sizeof(o->timeout_s));
	o->sha256 = probe_bytes_get_str(in);
	o->bearer = probe_bytes_get_str(in);
	return true;
}

static void options_dispose(struct jp_stage_options *o)
{
	free((char *)o->sha256);
	if (o->bearer)
		explicit_bzero((char *)o->bearer, strlen(o->bearer));
	free((char *)o->bearer);
}

/* inputs: source, dest, the options; answer: stage_pack's */
static void stage_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_port port = jp_helper_port(NULL);
	struct jp_stage_options opts;
	struct stage_call c;
	char *source = probe_bytes_get_str(in), *dest = probe_bytes_get_str(in);
	bool have = options_get(&opts, in);

	memset(&c, 0, sizeof(c));
	jp_error_init(&c.err);
	c.res = (struct jp_stage_result)JP_STAGE_RESULT_INIT;
	if (!in->bad)
		c.rc = jp_stage_now(&c.res, source, dest, have ? &opts : NULL, &port, &c.err);
	stage_pack(out, &c);
	jp_stage_result_dispose(&c.res);
	jp_error_dispose(&c.err);
	options_dispose(&opts);
	free(source);
	free(dest);
}
JP_HELPER_REQUEST(stage, stage_serve, JP_HELPER_WATCHED);

/* ---- in the parent ---- */

static bool get_strv(struct probe_bytes *in, char ***v, size_t *n)
{
	uint64_t n64 = 0;

	*v = NULL;
	*n = 0;
	probe_bytes_get(in, &n64, sizeof(n64));
	if (in->bad || n64 > (in->n - in->off) / sizeof(uint32_t))
		return false;
	if (n64 && !(*v = calloc((size_t)n64, sizeof(**v))))
		return false;
	for (; *n < n64; (*n)++)
		if (!((*v)[*n] = probe_bytes_get_str(in)))
			return false;
	return true;
}

static bool stage_unpack(struct probe_bytes *in, struct stage_call *c)
{
	probe_bytes_get(in, &c->rc, sizeof(c->rc));
	probe_bytes_get_error(in, &c->err, c->rc);
	probe_bytes_get(in, &c->res, sizeof(c->res));
	c->res.dest = c->res.revision = NULL;
	c->res.outside = c->res.notes = NULL;
	c->res.n_outside = c->res.n_notes = 0;
	if (in->bad)
		return false;
	c->res.dest = probe_bytes_get_str(in);
	c->res.revision = probe_bytes_get_str(in);
	return get_strv(in, &c->res.outside, &c->res.n_outside) &&
	       get_strv(in, &c->res.notes, &c->res.n_notes) && !in->bad;
}

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
	struct probe_bytes in = {(char *)msg, n, n, 0, false};

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
	struct probe_bytes in = { NULL, 0, 0, 0, false }, ans = { NULL, 0, 0, 0, false };
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
	options_put(&in, opts);
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_watch(&ans, &jp_req_stage, &in, &w, &cancel_sent, err);
	if (in.p)
		explicit_bzero(in.p, in.n);
	free(in.p);
	if (rc == 0 && !stage_unpack(&ans, &c))
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
