/* Workers: one thread per long piece of work, polled by the front end. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/worker.h"
#include "worker_internal.h"
#include "deadline_internal.h"
#include "error_internal.h"

struct jp_worker {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* signalled on done, reply and cancel */
	pthread_t thread;
	bool started;

	char *label;
	jp_worker_fn fn;
	void *arg;

	/* Under lock. */
	enum jp_worker_state state;
	bool cancel;
	bool has_progress;
	unsigned long seq;
	struct jp_progress progress;
	char what[256];

	enum jp_worker_request_kind request;
	char prompt[256];
	bool default_yes; /* of the parked confirmation */
	bool replied;
	int reply_rc;
	char *reply_secret;

	/* Written by the worker before it sets DONE; read after. */
	int result;
	struct jp_error err;
};

static void copy_trunc(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!src) {
		dst[0] = '\0';
		return;
	}
	n = strlen(src);
	if (n >= len) {
		n = len - 1;
		/* Do not cut a UTF-8 sequence in half. */
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void wipe_free(char *s)
{
	if (!s)
		return;
	/* volatile so the wipe is not optimised away before free */
	for (volatile char *p = s; *p; p++)
		*p = '\0';
	free(s);
}

static int port_progress(const struct jp_progress *p, void *payload)
{
	struct jp_worker *t = payload;
	int rc;

	pthread_mutex_lock(&t->lock);
	t->progress = *p;
	copy_trunc(t->what, sizeof(t->what), p->what);
	t->progress.what = NULL;
	t->has_progress = true;
	t->seq++;
	rc = t->cancel ? -1 : 0;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

static int port_cancelled(void *payload)
{
	struct jp_worker *t = payload;
	bool c;

	pthread_mutex_lock(&t->lock);
	c = t->cancel;
	pthread_mutex_unlock(&t->lock);
	return c;
}

/* Park a request until the front end replies or the worker is cancelled.
 * Called with t->lock held; returns the reply code. */
static int park_request(struct jp_worker *t, enum jp_worker_request_kind kind,
			const char *prompt)
{
	int rc;

	if (t->cancel)
		return -1;
	t->request = kind;
	copy_trunc(t->prompt, sizeof(t->prompt), prompt);
	t->replied = false;
	t->seq++;
	while (!t->replied && !t->cancel)
		pthread_cond_wait(&t->cond, &t->lock);
	rc = t->replied ? t->reply_rc : -1;
	t->request = JP_WORKER_REQ_NONE;
	t->prompt[0] = '\0';
	t->seq++;
	return rc;
}

static int port_ask_secret(char *buf, size_t len, const char *prompt,
			   void *payload)
{
	struct jp_worker *t = payload;
	int rc;

	if (len == 0)
		return -1;
	buf[0] = '\0';
	pthread_mutex_lock(&t->lock);
	rc = park_request(t, JP_WORKER_REQ_SECRET, prompt);
	if (rc == 0 && t->reply_secret)
		copy_trunc(buf, len, t->reply_secret);
	else if (rc >= 0)
		rc = -1;
	wipe_free(t->reply_secret);
	t->reply_secret = NULL;
	pthread_mutex_unlock(&t->lock);
	return rc < 0 ? -1 : 0;
}

static int port_confirm_default(const char *question, bool default_yes, void *payload)
{
	struct jp_worker *t = payload;
	int rc;

	pthread_mutex_lock(&t->lock);
	t->default_yes = default_yes;
	rc = park_request(t, JP_WORKER_REQ_CONFIRM, question);
	t->default_yes = false;
	pthread_mutex_unlock(&t->lock);
	return rc == 1 ? 1 : 0;
}

static int port_confirm(const char *question, void *payload)
{
	return port_confirm_default(question, false, payload);
}

static void *worker(void *data)
{
	struct jp_worker *t = data;
	struct jp_port port = JP_PORT_INIT;
	int rc;

	/* Background work yields to the thread a person is waiting on: on
	 * Linux a thread has its own nice value. Failing is harmless. */
	errno = 0;
	{
		int nice_now = getpriority(PRIO_PROCESS, 0);

		if (errno == 0 && nice_now < 10)
			setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice_now + 5);
	}
	port.progress = port_progress;
	port.ask_secret = port_ask_secret;
	port.confirm = port_confirm;
	port.confirm_default = port_confirm_default;
	port.cancelled = port_cancelled;
	port.payload = t;

	rc = t->fn(&t->err, &port, t->arg);
	if (rc < 0 && t->err.n == 0)
		jp_error_set(&t->err, rc, "%s: %s", t->label, _(jp_strerror(rc)));

	pthread_mutex_lock(&t->lock);
	t->result = rc;
	t->state = JP_WORKER_DONE;
	t->seq++;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int jp_worker_start(struct jp_worker **out, const char *label, jp_worker_fn fn,
		  void *arg, struct jp_error *err)
{
	struct jp_worker *t = NULL;
	sigset_t block, old;
	int rc;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return jp_error_oom(err);
	t->label = strdup(label ? label : "task");
	if (!t->label) {
		free(t);
		return jp_error_oom(err);
	}
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	jp_error_init(&t->err);
	t->fn = fn;
	t->arg = arg;
	t->state = JP_WORKER_RUNNING;

	/* The new thread inherits this mask: asynchronous signals stay with
	 * the front end's thread, which knows how to restore the terminal. */
	sigfillset(&block);
	sigdelset(&block, SIGSEGV);
	sigdelset(&block, SIGBUS);
	sigdelset(&block, SIGFPE);
	sigdelset(&block, SIGILL);
	sigdelset(&block, SIGABRT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rc = pthread_create(&t->thread, NULL, worker, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		jp_error_set(err, JP_EINTERNAL, _("cannot start a thread for %s: %s"),
			     t->label, strerror(rc));
		jp_worker_free(t);
		return JP_EINTERNAL;
	}
	t->started = true;
	*out = t;
	return 0;
}

void jp_worker_poll(struct jp_worker_status *out, struct jp_worker *t)
{
	pthread_mutex_lock(&t->lock);
	out->state = t->state;
	out->has_progress = t->has_progress;
	out->cancel_requested = t->cancel;
	out->seq = t->seq;
	out->progress = t->progress;
	memcpy(out->what, t->what, sizeof(out->what));
	out->progress.what = out->what[0] ? out->what : NULL;
	out->request = t->request;
	memcpy(out->prompt, t->prompt, sizeof(out->prompt));
	out->default_yes = t->default_yes;
	pthread_mutex_unlock(&t->lock);
}

bool jp_worker_is_done(struct jp_worker *t)
{
	bool done;

	pthread_mutex_lock(&t->lock);
	done = t->state == JP_WORKER_DONE;
	pthread_mutex_unlock(&t->lock);
	return done;
}

const char *jp_worker_label(const struct jp_worker *t)
{
	return t->label;
}

void jp_worker_cancel(struct jp_worker *t)
{
	pthread_mutex_lock(&t->lock);
	t->cancel = true;
	t->seq++;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

int jp_worker_wait(struct jp_worker *t, int timeout_ms)
{
	struct timespec until;
	int rc = 0;

	pthread_mutex_lock(&t->lock);
	if (timeout_ms < 0) {
		while (t->state != JP_WORKER_DONE)
			pthread_cond_wait(&t->cond, &t->lock);
	} else {
		deadline_after_ms(&until, CLOCK_REALTIME, (unsigned long)timeout_ms);
		while (t->state != JP_WORKER_DONE && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&t->cond, &t->lock, &until);
	}
	rc = t->state == JP_WORKER_DONE ? 0 : JP_ETIMEOUT;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

int jp_worker_result(const struct jp_worker *t, const struct jp_error **err)
{
	if (err)
		*err = &t->err;
	return t->result;
}

void jp_worker_reply(struct jp_worker *t, int rc, const char *secret)
{
	pthread_mutex_lock(&t->lock);
	if (t->request != JP_WORKER_REQ_NONE && !t->replied) {
		t->reply_rc = rc;
		wipe_free(t->reply_secret);
		t->reply_secret = secret ? strdup(secret) : NULL;
		if (secret && !t->reply_secret)
			t->reply_rc = -1;
		t->replied = true;
		pthread_cond_broadcast(&t->cond);
	}
	pthread_mutex_unlock(&t->lock);
}

void jp_worker_free(struct jp_worker *t)
{
	if (!t)
		return;
	if (t->started) {
		jp_worker_cancel(t);
		pthread_join(t->thread, NULL);
	}
	wipe_free(t->reply_secret);
	jp_error_dispose(&t->err);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t->label);
	free(t);
}
