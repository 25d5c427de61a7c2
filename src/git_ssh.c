/* ssh's network steps (a fetch, a clone, an ls-remote, a submodule's
 * update) in a watched helper process (helper.c).
 *
 * libgit2's ssh transport hands libssh2 the descriptor it reads out of its
 * own private socket stream, so jobprep's stream (git_stream.c: the stall
 * timeout and cancel libgit2 1.5 lacks) cannot carry ssh without copying
 * that private layout. Instead each ssh step runs in a helper of its own,
 * where jobprep's stream is not registered (libgit2's own socket stream,
 * which libssh2 can use), watched from here: libgit2's transfer progress
 * comes back as reports (a sign of life, passed on to the operation's
 * port), a cancel goes to it as a stop (its callbacks then fail), and a
 * helper that sends nothing for the stall timeout, or does not heed a stop
 * (blocked inside libssh2), is killed; the operation then fails as the
 * watchdog this replaces made it fail. Keys and host keys are judged in
 * the helper (ssh-agent, key files, known_hosts); what needs the person (a
 * passphrase, an unknown host key) is asked here, through the port, and
 * the reply goes back only over the helper's socket.
 *
 * In this process no ssh transport runs at all (git_global.c): a path
 * that forgot to come here fails cleanly. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2/sys/transport.h>

#include "jobprep/i18n.h"
#include "buf.h"
#include "git_internal.h"
#include "helper_internal.h"

/* How long a cancelled step may go on without a sign of life. */
#define CANCEL_GRACE_MS 2000
#define SECRET_MAX 1024

enum ssh_kind { SSH_FETCH = 1, SSH_CLONE, SSH_LS, SSH_SUBMODULE };
enum { ASK_SECRET = 's', ASK_CONFIRM = 'c' };

/* What one step needs, in either process. */
struct ssh_req {
	uint32_t kind;
	char *repo, *remote, *url, *reflog, *ssh_host, *ssh_port;
	struct jp_git_url named;
	uint32_t stall_s;
	uint64_t room;
	int32_t tags, prune, fetchhead;
	bool follow_head;
	struct jp_strv specs;
};

static void put_u32(struct probe_bytes *b, uint32_t v)
{
	probe_bytes_put(b, &v, sizeof(v));
}

static void put_i32(struct probe_bytes *b, int32_t v)
{
	probe_bytes_put(b, &v, sizeof(v));
}

static int32_t get_i32(struct probe_bytes *b)
{
	int32_t v = 0;

	probe_bytes_get(b, &v, sizeof(v));
	return v;
}

/* The request's fields, listed once for both sides (probe_bytes_field). */
static void req_wire(struct probe_bytes *b, struct ssh_req *q)
{
	uint32_t kind = (uint32_t)q->named.kind, n = (uint32_t)q->specs.n;
	/* the secret: the socket is the helper's alone, never its argv or
	 * environment */
	char **strs[] = {&q->repo,	 &q->remote,	   &q->url,	     &q->reflog,
			 &q->ssh_host,	 &q->ssh_port,	   &q->named.user,   &q->named.secret,
			 &q->named.host, &q->named.port};

	PROBE_FIELD(b, q->kind);
	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		probe_bytes_field_str(b, strs[i]);
	PROBE_FIELD(b, kind);
	q->named.kind = (enum jp_url_kind)kind;
	PROBE_FIELD(b, q->named.scp);
	PROBE_FIELD(b, q->stall_s);
	PROBE_FIELD(b, q->room);
	PROBE_FIELD(b, q->tags);
	PROBE_FIELD(b, q->prune);
	PROBE_FIELD(b, q->fetchhead);
	PROBE_FIELD(b, q->follow_head);
	PROBE_FIELD(b, n);
	for (uint32_t i = 0; i < n && !b->bad; i++) {
		char *s = b->reading ? NULL : q->specs.v[i];

		probe_bytes_field_str(b, &s);
		if (!b->reading)
			continue;
		if (s && jp_strv_push(&q->specs, s) < 0)
			b->bad = true;
		free(s);
	}
}

static void req_dispose(struct ssh_req *q)
{
	free(q->repo);
	free(q->remote);
	free(q->url);
	free(q->reflog);
	free(q->ssh_host);
	free(q->ssh_port);
	jp_git_url_dispose(&q->named); /* wipes the secret */
	jp_strv_dispose(&q->specs);
}

/* ==== in the helper ======================================================= */

/* A question to the caller; its reply in *reply (false: none). */
static bool helper_ask(struct probe_bytes *reply, int kind, const char *text)
{
	struct probe_bytes q = {NULL, 0, 0, 0, false, false};
	unsigned char k = (unsigned char)kind;
	bool ok;

	probe_bytes_put(&q, &k, 1);
	probe_bytes_put_str(&q, text);
	ok = !q.bad && jp_watch_ask(reply, q.p, q.n);
	free(q.p);
	return ok;
}

static int helper_ask_secret(char *buf, size_t len, const char *prompt, void *payload)
{
	struct probe_bytes reply;
	char *secret = NULL;
	int rc = -1;

	(void)payload;
	if (!helper_ask(&reply, ASK_SECRET, prompt))
		return -1;
	rc = get_i32(&reply);
	secret = probe_bytes_get_str(&reply);
	if (reply.bad || !secret || strlen(secret) >= len)
		rc = rc < 0 ? rc : -1;
	else if (rc == 0)
		memcpy(buf, secret, strlen(secret) + 1);
	if (secret)
		explicit_bzero(secret, strlen(secret));
	free(secret);
	explicit_bzero(reply.p, reply.n);
	free(reply.p);
	return rc;
}

static int helper_confirm(const char *question, void *payload)
{
	struct probe_bytes reply;
	int rc;

	(void)payload;
	if (!helper_ask(&reply, ASK_CONFIRM, question))
		return 0;
	rc = get_i32(&reply);
	free(reply.p);
	return reply.bad ? 0 : rc;
}

static void fetch_opts(git_fetch_options *fo, const struct ssh_req *q, struct jp_git_op *op)
{
	git_fetch_options_init(fo, GIT_FETCH_OPTIONS_VERSION);
	jp_git_op_remote_callbacks(&fo->callbacks, op);
	fo->follow_redirects = GIT_REMOTE_REDIRECT_NONE;
	fo->download_tags = (git_remote_autotag_option_t)q->tags;
	fo->prune = (git_fetch_prune_t)q->prune;
	fo->update_fetchhead = q->fetchhead;
}

/* The mirror's fetch: connected first, so that HEAD can follow the
 * server's default branch. */
static int serve_fetch_head(git_repository *repo, git_remote *remote, const git_strarray *arr,
			    const git_fetch_options *fo, const struct ssh_req *q)
{
	git_remote_connect_options co;
	git_buf head = GIT_BUF_INIT_CONST(NULL, 0);
	int gerr;

	git_remote_connect_options_init(&co, GIT_REMOTE_CONNECT_OPTIONS_VERSION);
	co.callbacks = fo->callbacks;
	co.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
	if ((gerr = git_remote_connect_ext(remote, GIT_DIRECTION_FETCH, &co)) != 0)
		return gerr;
	if (git_remote_default_branch(&head, remote) != 0) {
		git_error_clear();
		head.ptr = NULL;
	}
	gerr = git_remote_fetch(remote, arr, fo, q->reflog);
	if (gerr == 0 && head.ptr && git_repository_set_head(repo, head.ptr) != 0)
		git_error_clear();
	git_buf_dispose(&head);
	return gerr;
}

static int serve_fetch(const struct ssh_req *q, struct jp_git_op *op)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_fetch_options fo;
	git_strarray arr = {q->specs.v, q->specs.n};
	int gerr;

	fetch_opts(&fo, q, op);
	if ((gerr = git_repository_open(&repo, q->repo)) != 0 ||
	    (gerr = git_remote_lookup(&remote, repo, q->remote)) != 0)
		goto out;
	if (q->follow_head)
		gerr = serve_fetch_head(repo, remote, q->specs.n ? &arr : NULL, &fo, q);
	else
		gerr = git_remote_fetch(remote, q->specs.n ? &arr : NULL, &fo, q->reflog);
out:
	git_remote_free(remote);
	git_repository_free(repo);
	return gerr;
}

static int serve_clone(const struct ssh_req *q, struct jp_git_op *op)
{
	git_clone_options co;
	git_repository *repo = NULL;
	int gerr;

	git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
	/* the objects and refs only: the caller checks out */
	co.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;
	fetch_opts(&co.fetch_opts, q, op);
	gerr = git_clone(&repo, q->url, q->repo, &co);
	git_repository_free(repo);
	return gerr;
}

/* A submodule of the work tree q->repo, named q->remote, cloned (or
 * fetched) and checked out at the commit the superproject records. */
static int serve_submodule(const struct ssh_req *q, struct jp_git_op *op)
{
	git_submodule_update_options uo;
	git_repository *repo = NULL;
	git_submodule *sm = NULL;
	int gerr;

	git_submodule_update_options_init(&uo, GIT_SUBMODULE_UPDATE_OPTIONS_VERSION);
	fetch_opts(&uo.fetch_opts, q, op);
	uo.checkout_opts.checkout_strategy = GIT_CHECKOUT_SAFE;
	if ((gerr = git_repository_open(&repo, q->repo)) == 0 &&
	    (gerr = git_submodule_lookup(&sm, repo, q->remote)) == 0)
		gerr = git_submodule_update(sm, 1, &uo);
	git_submodule_free(sm);
	git_repository_free(repo);
	return gerr;
}

static void put_heads(struct probe_bytes *out, const git_remote_head **heads, size_t n)
{
	put_u32(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &heads[i]->oid);
		probe_bytes_put_str(out, heads[i]->name);
		probe_bytes_put_str(out, heads[i]->symref_target);
		probe_bytes_put_str(out, hex);
	}
}

static int serve_ls(const struct ssh_req *q, struct jp_git_op *op, struct probe_bytes *heads_out)
{
	git_remote_connect_options co;
	const git_remote_head **heads = NULL;
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	size_t n = 0;
	int gerr;

	git_remote_connect_options_init(&co, GIT_REMOTE_CONNECT_OPTIONS_VERSION);
	jp_git_op_remote_callbacks(&co.callbacks, op);
	co.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
	if (q->repo)
		gerr = git_repository_open(&repo, q->repo);
	else
		gerr = git_remote_create_detached(&remote, q->url);
	if (gerr == 0 && q->repo)
		gerr = git_remote_lookup(&remote, repo, q->remote);
	if (gerr == 0 && (gerr = git_remote_connect_ext(remote, GIT_DIRECTION_FETCH, &co)) == 0 &&
	    (gerr = git_remote_ls(&heads, &n, remote)) == 0)
		put_heads(heads_out, heads, n);
	if (remote)
		git_remote_disconnect(remote);
	git_remote_free(remote);
	git_repository_free(repo);
	return gerr;
}

/* libgit2's own timeouts (1.7 on) say what the caller's watch would. */
static void server_timeouts(const struct ssh_req *q)
{
#if JP_LIBGIT2_MAJOR > 1 || JP_LIBGIT2_MINOR >= 7
	int ms = (int)(q->stall_s * 1000u);

	git_libgit2_opts(GIT_OPT_SET_SERVER_CONNECT_TIMEOUT, ms);
	git_libgit2_opts(GIT_OPT_SET_SERVER_TIMEOUT, ms);
#else
	(void)q;
#endif
}

static void timed_out(struct jp_git_op *op, const struct ssh_req *q, int gerr)
{
#if JP_LIBGIT2_MAJOR > 1 || JP_LIBGIT2_MINOR >= 7
	if (gerr == GIT_TIMEOUT)
		jp_git_op_fail(
		    op, JP_ETIMEOUT,
		    _("%s:%s sent nothing for %u s; the server or the network has stopped"),
		    q->ssh_host ? q->ssh_host : "?", q->ssh_port ? q->ssh_port : "22", q->stall_s);
#else
	(void)op;
	(void)q;
	(void)gerr;
#endif
}

static int serve_step(struct ssh_req *q, struct jp_git_op *op, struct probe_bytes *heads)
{
	struct jp_error err = JP_ERROR_INIT;
	int gerr;

	jp_git_global_in_helper();
	if (jp_git_global_init(&err) != 0) {
		git_error_set_str(GIT_ERROR_INTERNAL, err.n ? err.msgs[0] : "libgit2");
		jp_error_dispose(&err);
		return -1;
	}
	server_timeouts(q);
	if (jp_git_creds_new(&op->creds, &q->named, op->port) != 0) {
		git_error_set_str(GIT_ERROR_NOMEMORY, "out of memory");
		return -1;
	}
	op->ssh_host = q->ssh_host;
	op->ssh_port = q->ssh_port;
	op->room = q->room;
	switch (q->kind) {
	case SSH_FETCH:
		gerr = serve_fetch(q, op);
		break;
	case SSH_CLONE:
		gerr = serve_clone(q, op);
		break;
	case SSH_LS:
		gerr = serve_ls(q, op, heads);
		break;
	case SSH_SUBMODULE:
		gerr = serve_submodule(q, op);
		break;
	default:
		git_error_set_str(GIT_ERROR_INVALID, "unknown ssh step");
		gerr = -1;
	}
	timed_out(op, q, gerr);
	return gerr;
}

void jp_git_ssh_outcome_put(struct probe_bytes *out, int gerr, const struct jp_git_op *op)
{
	const git_error *ge = gerr ? git_error_last() : NULL;
	struct jp_error e = JP_ERROR_INIT;

	/* the verdict's lines, each its own */
	for (const char *line = op->fail_msg, *nl; op->fail_code && line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		jp_error_set(&e, op->fail_code, "%.*s",
			     (int)(nl ? (size_t)(nl - line) : strlen(line)), line);
	}
	put_i32(out, gerr);
	put_i32(out, ge ? ge->klass : 0);
	probe_bytes_put_str(out, ge && ge->message ? ge->message : NULL);
	probe_bytes_put_error(out, &e);
	probe_bytes_put(out, &op->canceled, sizeof(op->canceled));
	probe_bytes_put(out, &op->out_of_room, sizeof(op->out_of_room));
	jp_error_dispose(&e);
}

int jp_git_ssh_outcome_get(struct jp_git_op *op, struct probe_bytes *in)
{
	int gerr = get_i32(in), klass = get_i32(in);
	char *msg = probe_bytes_get_str(in);
	struct jp_error e = JP_ERROR_INIT;
	bool canceled = false, out_of_room = false;

	probe_bytes_get_error(in, &e, 0);
	probe_bytes_get(in, &canceled, sizeof(canceled));
	probe_bytes_get(in, &out_of_room, sizeof(out_of_room));
	if (in->bad) {
		git_error_set_str(GIT_ERROR_INTERNAL,
				  _("the work's process ended without an answer"));
		gerr = GIT_ERROR;
	} else {
		if (gerr != 0)
			git_error_set_str(klass ? klass : GIT_ERROR_NET,
					  msg ? msg : _("unknown error"));
		jp_git_op_fail_whole(op, &e);
		op->canceled = op->canceled || canceled;
		op->out_of_room = op->out_of_room || out_of_room;
	}
	free(msg);
	jp_error_dispose(&e);
	return gerr;
}

/* inputs: req_wire's; answer: the step's outcome (jp_git_ssh_outcome_put),
 * then the heads an ls found */
static void ssh_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_port port = jp_helper_port(NULL);
	struct probe_bytes heads = {NULL, 0, 0, 0, false, false};
	struct ssh_req q;
	struct jp_git_op op;
	int gerr = -1;

	memset(&q, 0, sizeof(q));
	req_wire(in, &q);
	port.ask_secret = helper_ask_secret;
	port.confirm = helper_confirm;
	jp_git_op_init(&op, &port);
	if (!in->bad)
		gerr = serve_step(&q, &op, &heads);
	jp_git_ssh_outcome_put(out, gerr, &op);
	if (heads.n)
		probe_bytes_put(out, heads.p, heads.n);
	else
		put_u32(out, 0);
	if (heads.bad)
		out->bad = true;
	free(heads.p);
	jp_git_creds_free(op.creds);
	req_dispose(&q);
}
JP_HELPER_REQUEST(git_ssh, ssh_serve, JP_HELPER_WATCHED);

/* ==== in the caller ======================================================= */

static bool caller_cancelled(void *payload)
{
	struct jp_git_op *op = payload;
	const struct jp_port *port = op->port;

	return op->canceled || (port && port->cancelled && port->cancelled(port->payload));
}

static int show_progress(const struct jp_progress *p, void *payload)
{
	return jp_git_op_progress(payload, p->phase, p->done, p->total, p->bytes, false);
}

/* Progress from the helper: the server sent something (a sign of life
 * even when the counts stand still). */
static int caller_report(const void *msg, size_t n, void *payload)
{
	struct jp_progress_relay relay = {.show = show_progress, .payload = payload};
	struct probe_bytes in = {(char *)msg, n, n, 0, false, true};

	return jp_progress_relay(&relay, &in) < 0 ? -1 : 1;
}

static void caller_question(struct probe_bytes *reply, const void *msg, size_t n, void *payload)
{
	struct jp_git_op *op = payload;
	const struct jp_port *port = op->port;
	struct probe_bytes in = {(char *)msg, n, n, 0, false, true};
	unsigned char kind = 0;
	char *text;

	probe_bytes_get(&in, &kind, 1);
	text = probe_bytes_get_str(&in);
	if (in.bad || !text) {
		put_i32(reply, -1);
	} else if (kind == ASK_SECRET) {
		char buf[SECRET_MAX];
		int rc = -1;

		memset(buf, 0, sizeof(buf));
		if (port && port->ask_secret)
			rc = port->ask_secret(buf, sizeof(buf), text, port->payload);
		buf[sizeof(buf) - 1] = '\0';
		put_i32(reply, rc);
		probe_bytes_put_str(reply, rc == 0 ? buf : NULL);
		explicit_bzero(buf, sizeof(buf));
	} else {
		put_i32(reply, port && port->confirm ? port->confirm(text, port->payload) : 0);
	}
	free(text);
}

/* The helper given up: the operation fails as jp_git_op_error reads it. */
static int given_up(struct jp_git_op *op, int why)
{
	const char *port = op->ssh_port ? op->ssh_port : "22";
	unsigned stall_s = op->stall_timeout_s ? op->stall_timeout_s : JP_GIT_STALL_TIMEOUT_S;

	if (why == JP_ETIMEOUT)
		snprintf(op->abandoned_msg, sizeof(op->abandoned_msg),
			 _("%s:%s sent nothing for %u s; the server or the network has stopped"),
			 op->ssh_host ? op->ssh_host : "?", port, stall_s);
	else
		snprintf(op->abandoned_msg, sizeof(op->abandoned_msg), "%s", _("canceled"));
	if (why == JP_ECANCELED)
		op->canceled = true;
	atomic_store(&op->abandoned, why);
	git_error_set_str(GIT_ERROR_NET, op->abandoned_msg);
	return why == JP_ECANCELED ? GIT_EUSER : GIT_ERROR;
}

static bool get_heads(struct jp_git_ssh_heads *h, struct probe_bytes *in)
{
	uint32_t n = 0;

	probe_bytes_get(in, &n, sizeof(n));
	if (in->bad || !h)
		return !in->bad;
	if (n > (in->n - in->off) / sizeof(uint32_t))
		return false;
	if (n && (!(h->v = calloc(n, sizeof(*h->v))) || !(h->p = calloc(n, sizeof(*h->p)))))
		return false;
	for (; h->n < n; h->n++) {
		git_remote_head *r = &h->v[h->n];
		char *hex;

		r->name = probe_bytes_get_str(in);
		r->symref_target = probe_bytes_get_str(in);
		hex = probe_bytes_get_str(in);
		h->p[h->n] = r;
		if (!r->name || !hex || git_oid_fromstr(&r->oid, hex) != 0) {
			free(hex);
			h->n++;
			return false;
		}
		free(hex);
	}
	return true;
}

/* The helper's answer: its libgit2 result, with its error set here. */
static int take_answer(struct jp_git_op *op, struct probe_bytes *ans, struct jp_git_ssh_heads *h)
{
	int gerr = jp_git_ssh_outcome_get(op, ans);

	if (!ans->bad && !get_heads(h, ans)) {
		git_error_set_str(GIT_ERROR_INTERNAL,
				  _("the work's process ended without an answer"));
		gerr = GIT_ERROR;
	}
	return gerr;
}

static int ssh_run(struct jp_git_op *op, struct ssh_req *q, struct jp_git_ssh_heads *heads)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	struct jp_error err = JP_ERROR_INIT;
	const struct jp_git_url *named = op->creds ? jp_git_creds_named(op->creds) : NULL;
	struct jp_watch w;
	bool cancel_sent = false;
	int rc, gerr;

	if (named)
		q->named = *named; /* borrowed: not disposed here */
	q->ssh_host = (char *)op->ssh_host;
	q->ssh_port = (char *)op->ssh_port;
	q->stall_s = op->stall_timeout_s ? op->stall_timeout_s : JP_GIT_STALL_TIMEOUT_S;
	q->room = op->room;
	req_wire(&in, q);
	memset(&w, 0, sizeof(w));
	w.cancelled = caller_cancelled;
	w.report = caller_report;
	w.question = caller_question;
	w.payload = op;
	w.stall_ms = q->stall_s * 1000u;
	w.grace_ms = CANCEL_GRACE_MS;
	rc = in.bad ? JP_ENOMEM
		    : jp_helper_watch(&ans, &jp_req_git_ssh, &in, &w, &cancel_sent, &err);
	if (in.p)
		explicit_bzero(in.p, in.n);
	free(in.p);
	if (rc == JP_ETIMEOUT || rc == JP_ECANCELED) {
		gerr = given_up(op, rc);
	} else if (rc != 0) {
		/* every line of it, not the first */
		struct jp_buf all = JP_BUF_INIT;
		for (size_t i = 0; i < err.n; i++)
			jp_buf_addf(&all, "%s%s", i ? "\n" : "", err.msgs[i]);
		git_error_set_str(GIT_ERROR_OS, all.s && !all.rc ? all.s : _("out of memory"));
		jp_buf_dispose(&all);
		gerr = GIT_ERROR;
	} else {
		gerr = take_answer(op, &ans, heads);
	}
	free(ans.p);
	jp_error_dispose(&err);
	return gerr;
}

bool jp_git_op_ssh(const struct jp_git_op *op)
{
	return op && op->ssh_host;
}

int jp_git_ssh_fetch(struct jp_git_op *op, const struct jp_git_ssh_fetch *f)
{
	struct ssh_req q;
	int gerr = 0;

	memset(&q, 0, sizeof(q));
	q.kind = SSH_FETCH;
	q.repo = (char *)f->repo;
	q.remote = (char *)f->remote;
	q.reflog = (char *)f->reflog;
	q.tags = f->fo->download_tags;
	q.prune = f->fo->prune;
	q.fetchhead = f->fo->update_fetchhead;
	q.follow_head = f->follow_head;
	for (size_t i = 0; f->specs && i < f->specs->count && gerr == 0; i++)
		if (jp_strv_push(&q.specs, f->specs->strings[i]) < 0)
			gerr = jp_git_op_fail(op, JP_ENOMEM, "%s", _("out of memory"));
	if (gerr == 0)
		gerr = ssh_run(op, &q, NULL);
	jp_strv_dispose(&q.specs);
	return gerr;
}

int jp_git_ssh_clone(struct jp_git_op *op, const char *url, const char *dir)
{
	struct ssh_req q;

	memset(&q, 0, sizeof(q));
	q.kind = SSH_CLONE;
	q.repo = (char *)dir;
	q.url = (char *)url;
	q.tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	q.prune = GIT_FETCH_PRUNE_UNSPECIFIED;
	q.fetchhead = 1;
	return ssh_run(op, &q, NULL);
}

int jp_git_ssh_ls(struct jp_git_ssh_heads *out, struct jp_git_op *op, const char *repo,
		  const char *remote, const char *url)
{
	struct ssh_req q;
	int gerr;

	memset(out, 0, sizeof(*out));
	memset(&q, 0, sizeof(q));
	q.kind = SSH_LS;
	q.repo = (char *)repo;
	q.remote = (char *)remote;
	q.url = (char *)url;
	gerr = ssh_run(op, &q, out);
	if (gerr != 0)
		jp_git_ssh_heads_dispose(out);
	return gerr;
}

int jp_git_ssh_submodule(struct jp_git_op *op, const char *workdir, const char *name)
{
	struct ssh_req q;

	memset(&q, 0, sizeof(q));
	q.kind = SSH_SUBMODULE;
	q.repo = (char *)workdir;
	q.remote = (char *)name;
	q.tags = GIT_REMOTE_DOWNLOAD_TAGS_UNSPECIFIED;
	q.prune = GIT_FETCH_PRUNE_UNSPECIFIED;
	q.fetchhead = 1;
	return ssh_run(op, &q, NULL);
}

void jp_git_ssh_heads_dispose(struct jp_git_ssh_heads *h)
{
	for (size_t i = 0; h->v && i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].symref_target);
	}
	free(h->v);
	free(h->p);
	memset(h, 0, sizeof(*h));
}
