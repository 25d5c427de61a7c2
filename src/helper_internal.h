/* The process boundary: work that can hang on a user's path runs in a
 * helper process, jobprep's own program started again (posix_spawn, never
 * a fork that goes on running this process's code), which reads requests
 * on one pipe and answers on another. The caller only waits with a
 * deadline, kills and reports; a helper that does not answer in time is
 * killed and left to the kernel (it dies when the mount answers), so the
 * command itself still exits at once.
 *
 * A request names its work and its deadline (struct jp_helper_request,
 * defined and registered by JP_HELPER_REQUEST in the file that serves
 * it); its inputs and its answer travel as bytes (struct probe_bytes,
 * wire_internal.h). Nothing of the caller's memory reaches the helper but
 * those bytes. The call itself fails at once on a mount known hung, takes
 * the request's deadline and says what went wrong in the standard words:
 * a caller does none of that. */
#ifndef JOBPREP_HELPER_INTERNAL_H
#define JOBPREP_HELPER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/port.h"
#include "probe_internal.h"

/* In the helper: read the inputs from in, do the work, write the answer
 * to out (out->bad set, or a short answer, reads as a failed look). */
typedef void (*jp_helper_serve_fn)(struct probe_bytes *in, struct probe_bytes *out);

/* How long a request may take, said by the request itself: a look answers
 * within jp_probe_default_timeout_ms() (JOBPREP_PROBE_TIMEOUT_MS), a long
 * look (one that reads a whole checkout's index, say) within twice that;
 * watched work has no fixed deadline: it runs for as long as it shows
 * signs of life (jp_helper_watch), and only it may be watched. */
enum jp_helper_deadline {
	JP_HELPER_LOOK,
	JP_HELPER_LONG_LOOK,
	JP_HELPER_WATCHED
};

struct jp_helper_request {
	const char *name;
	jp_helper_serve_fn serve;
	enum jp_helper_deadline deadline;
};

/* Adding a request: in the file whose work it is, a function FN that
 * serves it (reads its inputs from in, writes its answer to out: a struct
 * that crosses by one NAME_wire function both sides call, an error whole
 * with probe_bytes_field_error; wire_internal.h; in and the caller's
 * answer come marked reading), then JP_HELPER_REQUEST(ID, FN, DEADLINE) at file
 * scope, then calls of jp_helper_call(&ans, &jp_req_ID, &in, path, 0, err)
 * (a look) or jp_helper_watch (watched work) in the same file. Nothing
 * else is edited: the definition registers it (a pointer to it goes into
 * the section jp_helper_requests, which the linker gathers from every
 * object linked in, and a helper finds a request's work there by its
 * name), so the boundary uses no request's file. */
#define JP_HELPER_REQUEST(id, fn, deadline_class)                                                  \
	static const struct jp_helper_request jp_req_##id = {#id, fn, deadline_class};             \
	static const struct jp_helper_request *const jp_req_entry_##id                             \
	    __attribute__((used, section("jp_helper_requests"), aligned(sizeof(void *)))) =        \
		&jp_req_##id

/* A request's own deadline in ms (0 for watched work, which has none). */
unsigned jp_helper_deadline_ms(const struct jp_helper_request *req);

/* The standard words of a look that did not answer: "PATH: no answer
 * within N s (is a network mount hung?)" in err; returns JP_ETIMEOUT. */
int jp_helper_no_answer(struct jp_error *err, const char *path, unsigned ms);

/* Requests of a program's own, for its helpers to serve too (a unit test
 * of this boundary defines it, NULL-terminated); the core does not. */
extern const struct jp_helper_request *const jp_helper_extra_requests[] __attribute__((weak));

/* req (a look, not watched work) in a helper, with in as its inputs; its
 * answer in *out (the caller frees out->p) within timeout_ms (0: the
 * request's own deadline, jp_helper_deadline_ms). Returns 0; JP_ETIMEOUT
 * at once while path's mount (path may be NULL) is known hung (err says
 * so, in the standard words of jp_probe_fail_hung: no helper is started
 * there), or when it did not answer (err says "PATH: no answer within N s",
 * jp_helper_no_answer; the helper is killed and path's mount counts as
 * hung until it dies); JP_EINTERNAL when req is watched work, no helper
 * could be started or it died without an answer. A caller that wants to
 * know whether path's mount is hung reads JP_ETIMEOUT: it never asks
 * first. */
int jp_helper_call(struct probe_bytes *out, const struct jp_helper_request *req,
		   const struct probe_bytes *in, const char *path, unsigned timeout_ms,
		   struct jp_error *err);

/* Long work in a helper, watched for as long as it shows signs of life:
 * its reports (jp_watch_send) reach report as they are sent; a report that
 * says the work moved on, or the helper spending CPU, is a sign of life;
 * none for stall_ms is a hung mount: the helper is killed and left behind.
 * A cancel is passed on to the helper (jp_watch_stop_asked), which stops
 * and cleans up; one that shows no sign of life for grace_ms after it is
 * left behind the same way. */
struct jp_watch {
	/* In the caller, every 100 ms or so: true asks the helper to stop. */
	bool (*cancelled)(void *payload);
	/* In the caller, for each report: < 0 asks the helper to stop, 1 the
	 * work moved on (a sign of life), 0 no news. */
	int (*report)(const void *msg, size_t n, void *payload);
	void *payload;
	unsigned stall_ms; /* no sign of life this long: JP_ETIMEOUT */
	unsigned grace_ms; /* after a cancel: JP_ECANCELED, the helper left behind */
	/* The paths the work is on (each may be NULL), path first: while the
	 * mount of one is known hung the call fails at once (JP_ETIMEOUT,
	 * err in the standard words of jp_probe_fail_hung). A helper left
	 * behind keeps path's mount known hung until it dies; also's never
	 * (a caller with two paths finds which one went silent: stalled). */
	const char *path;
	const char *also[2];
	/* In the caller, when the work stalled: err says so, returns
	 * JP_ETIMEOUT. NULL: the standard words, jp_helper_no_answer(err,
	 * path, stall_ms). */
	int (*stalled)(void *payload, unsigned stall_ms, struct jp_error *err);
	/* In the caller, for each question (jp_watch_ask): the reply into
	 * *reply (left empty: none). May wait on a person; may be NULL. */
	void (*question)(struct probe_bytes *reply, const void *msg, size_t n, void *payload);
	/* The work leaves nothing running behind its answer (no thread, no
	 * secret): its helper may be kept for the next call. */
	bool keep;
};

/* req (watched work) in a helper of its own, watched as above. Returns 0
 * when it answered (*out holds the answer), JP_ETIMEOUT when a path's
 * mount is known hung or it stalled (err says so, see path and stalled),
 * JP_ECANCELED when it did not answer within grace_ms of a cancel (err
 * NOT set: the caller knows what to name), or JP_EINTERNAL (err set; req
 * not watched work is refused so). *cancel_sent: a cancel was passed on. */
int jp_helper_watch(struct probe_bytes *out, const struct jp_helper_request *req,
		    const struct probe_bytes *in, const struct jp_watch *w, bool *cancel_sent,
		    struct jp_error *err);

/* In the helper (any thread): send a report; has the caller asked to
 * stop? */
void jp_watch_send(const void *msg, size_t n);
bool jp_watch_stop_asked(void);
/* In the helper (one thread at a time): ask the caller, and wait for its
 * reply (w->question's), which goes only over the socket (a secret may be
 * in it; the caller frees reply->p, wiped). false when the caller asked to
 * stop instead, or is gone. */
bool jp_watch_ask(struct probe_bytes *reply, const void *msg, size_t n);

/* ---- a port across the boundary (helper_port.c) ---- */

/* In the helper: a port whose progress goes to the caller as reports
 * (after the one byte *kind, when kind is not NULL) and whose cancel is
 * the caller's stop. */
struct jp_port jp_helper_port(const char *kind);

/* A progress as bytes, as jp_helper_port sends it. */
void jp_progress_put(struct probe_bytes *b, const struct jp_progress *p);

/* In the caller: progress from the helper, shown through show (may be
 * NULL) and compared with the last. */
struct jp_progress_relay {
	int (*show)(const struct jp_progress *p, void *payload);
	void *payload;
	struct jp_progress last; /* its what is NULL */
	bool seen;
};

/* One report read from in: as jp_watch's report, < 0 when show asked to
 * stop, 1 when the work moved on (new counts), 0 no news (or bytes that
 * are not a progress). */
int jp_progress_relay(struct jp_progress_relay *r, struct probe_bytes *in);

/* Is this process a helper serving a request (its work already bounded by
 * its caller: do it here, do not start another)? */
bool jp_helper_serving(void);

/* The helpers started and not yet ended (idle ones kept for the next
 * call); for tests and benchmarks. */
size_t jp_helper_count(void);

#endif
