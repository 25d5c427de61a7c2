/* The process boundary: work that can hang on a user's path runs in a
 * helper process, jobprep's own program started again (posix_spawn, never
 * a fork that goes on running this process's code), which reads requests
 * on one pipe and answers on another. The caller only waits with a
 * deadline, kills and reports; a helper that does not answer in time is
 * killed and left to the kernel (it dies when the mount answers), so the
 * command itself still exits at once.
 *
 * A request names its work (struct jp_helper_request, defined and
 * registered by JP_HELPER_REQUEST in the file that serves it); its inputs
 * and its answer travel as bytes (struct probe_bytes, wire_internal.h). Nothing of the caller's memory
 * reaches the helper but those bytes. */
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

struct jp_helper_request {
	const char *name;
	jp_helper_serve_fn serve;
};

/* Define request ID, served by FN, at file scope in the file whose work it
 * is (which calls it too: jp_req_ID is that file's own). The definition
 * registers it: a pointer to it goes into the section jp_helper_requests,
 * which the linker gathers from every object linked in, and a helper finds
 * a request's work there by its name. No list names them all, so the
 * boundary uses no request's file. */
#define JP_HELPER_REQUEST(id, fn)                                                                  \
	static const struct jp_helper_request jp_req_##id = {#id, fn};                             \
	static const struct jp_helper_request *const jp_req_entry_##id                             \
	    __attribute__((used, section("jp_helper_requests"), aligned(sizeof(void *)))) =        \
		&jp_req_##id

/* Requests of a program's own, for its helpers to serve too (a unit test
 * of this boundary defines it, NULL-terminated); the core does not. */
extern const struct jp_helper_request *const jp_helper_extra_requests[] __attribute__((weak));

/* req in a helper, with in as its inputs; its answer in *out (the caller
 * frees out->p) within timeout_ms (0: the default, jp_probe_default_timeout_ms,
 * JOBPREP_PROBE_TIMEOUT_MS). Returns 0; JP_ETIMEOUT at once while
 * path's mount (path may be NULL) is known hung (err says so: no helper is
 * started there), or when it did not answer (err says "PATH: no answer
 * within N s"; the helper is killed and path's mount counts as hung until
 * it dies);
 * JP_EINTERNAL when no helper could be started or it died without an
 * answer. */
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
	/* A helper left behind keeps path's mount (may be NULL) known hung
	 * until it dies. */
	const char *path;
	/* In the caller, for each question (jp_watch_ask): the reply into
	 * *reply (left empty: none). May wait on a person; may be NULL. */
	void (*question)(struct probe_bytes *reply, const void *msg, size_t n, void *payload);
	/* The work leaves nothing running behind its answer (no thread, no
	 * secret): its helper may be kept for the next call. */
	bool keep;
};

/* req in a helper of its own, watched as above. Returns 0 when it answered
 * (*out holds the answer), JP_ETIMEOUT when it stalled (err NOT set: the
 * caller knows what to name), JP_ECANCELED when it did not answer within
 * grace_ms of a cancel (err not set either), or JP_EINTERNAL (err set).
 * *cancel_sent: a cancel was passed on. */
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
