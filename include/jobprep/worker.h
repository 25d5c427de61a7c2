/* Workers: long work (clone, scan) on a worker thread, watched by a front end.
 *
 * A worker runs one function on its own thread with a struct jp_port whose
 * callbacks never touch the terminal: progress is stored (the latest only)
 * for the front end to poll, a cancel request makes the next progress call
 * return < 0, and a request for a secret or a confirmation is parked until
 * the front end answers it with jp_worker_reply (or the worker is cancelled).
 *
 * The front end polls: jp_worker_poll copies the state out under the worker's
 * lock, so a UI that redraws every ~100 ms never waits on the worker. */
#ifndef JOBPREP_WORKER_H
#define JOBPREP_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include "jobprep/error.h"
#include "jobprep/port.h"

/* The work: return 0 or a negative JP_E* code with details in err. Called on
 * the worker thread; `port` is valid for the call only. The worker thread
 * blocks asynchronous signals (SIGINT, SIGTERM, SIGHUP, SIGWINCH, ...) so the
 * front end's thread is the one that receives them. */
typedef int (*jp_worker_fn)(struct jp_error *err, const struct jp_port *port,
			  void *arg);

enum jp_worker_state {
	JP_WORKER_RUNNING = 0,
	JP_WORKER_DONE, /* finished; jp_worker_result says how */
};

enum jp_worker_request_kind {
	JP_WORKER_REQ_NONE = 0,
	JP_WORKER_REQ_SECRET,  /* answer with a secret (never echoed) */
	JP_WORKER_REQ_CONFIRM, /* answer yes (1) or no (0) */
};

/* What jp_worker_poll copies out. `what` and `prompt` are copies held here. */
struct jp_worker_status {
	enum jp_worker_state state;
	bool has_progress;    /* progress was reported at least once */
	bool cancel_requested;
	unsigned long seq;    /* bumped on every progress report / state change */
	struct jp_progress progress; /* progress.what points into `what` */
	char what[256];
	enum jp_worker_request_kind request;
	char prompt[256];
	bool default_yes; /* JP_WORKER_REQ_CONFIRM: what Enter should answer */
};

struct jp_worker;

/* Start fn(err, port, arg) on a new thread. `label` names the work in the
 * UI ("clone", "scan"); copied. `arg` is borrowed: it must outlive the worker
 * (until jp_worker_free). *out is the caller's, free with jp_worker_free. */
int jp_worker_start(struct jp_worker **out, const char *label, jp_worker_fn fn,
		  void *arg, struct jp_error *err);

/* Copy the current state into *out. Never blocks on the work itself. */
void jp_worker_poll(struct jp_worker_status *out, struct jp_worker *t);
/* Borrowed; valid until jp_worker_free. */
const char *jp_worker_label(const struct jp_worker *t);

/* Ask the work to stop: its next progress call returns < 0 and a parked
 * request is answered "declined". Does not wait. */
void jp_worker_cancel(struct jp_worker *t);

/* The work's return code; only meaningful once done. If err is not NULL it
 * is pointed at the worker's error (borrowed, valid until jp_worker_free). */
int jp_worker_result(const struct jp_worker *t, const struct jp_error **err);

/* Answer the parked request. For JP_WORKER_REQ_SECRET: rc 0 and the secret,
 * or rc < 0 to decline (secret may be NULL). For JP_WORKER_REQ_CONFIRM: rc 1
 * yes, 0 no. The worker keeps no copy of the secret after handing it over. */
void jp_worker_reply(struct jp_worker *t, int rc, const char *secret);

/* Cancel if still running, wait for the thread, release everything.
 * NULL is fine. */
void jp_worker_free(struct jp_worker *t);

#endif
