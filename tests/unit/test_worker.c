/* The worker: work on a thread, progress polled, cancel, requests. */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/worker.h"
#include "worker_internal.h"

struct work {
	int steps;       /* progress reports before finishing */
	int reported;
	int result;
	char secret[64];
	int confirmed;
	sigset_t mask;   /* the worker's signal mask, as seen inside */
};

static int count_work(struct jp_error *err, const struct jp_port *port, void *arg)
{
	struct work *w = arg;
	struct jp_progress p = { JP_PHASE_FETCH, 0, 0, 0, 0, 0, "objects" };

	pthread_sigmask(SIG_SETMASK, NULL, &w->mask);
	p.total = (uint64_t)w->steps;
	for (int i = 0; i < w->steps; i++) {
		p.done = (uint64_t)i + 1;
		if (port->progress(&p, port->payload) < 0)
			return jp_error_set(err, JP_ECANCELED, "stopped at %d", i);
		w->reported++;
	}
	return w->result;
}

static int endless_work(struct jp_error *err, const struct jp_port *port, void *arg)
{
	struct jp_progress p = { JP_PHASE_SCAN, 0, 0, 0, 0, 0, NULL };

	(void)arg;
	for (;;) {
		p.done++;
		if (port->progress(&p, port->payload) < 0)
			return jp_error_set(err, JP_ECANCELED, "cancelled after %llu",
					    (unsigned long long)p.done);
		usleep(1000);
	}
}

static int asking_work(struct jp_error *err, const struct jp_port *port, void *arg)
{
	struct work *w = arg;

	(void)err;
	if (port->ask_secret(w->secret, sizeof(w->secret), "Password for git:",
			     port->payload) < 0)
		return JP_EAUTH;
	w->confirmed = port->confirm("Reuse the directory?", port->payload);
	return 0;
}

static void finished_task_reports_its_result_and_last_progress(void **state)
{
	struct work w = { .steps = 100, .result = 0 };
	struct jp_worker *t = NULL;
	struct jp_worker_status st;
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	assert_int_equal(jp_worker_start(&t, "clone", count_work, &w, &err), 0);
	assert_int_equal(jp_worker_wait(t, -1), 0);
	assert_true(jp_worker_is_done(t));
	jp_worker_poll(&st, t);
	assert_int_equal(st.state, JP_WORKER_DONE);
	assert_true(st.has_progress);
	assert_int_equal(st.progress.done, 100);
	assert_int_equal(st.progress.total, 100);
	assert_string_equal(st.progress.what, "objects");
	assert_int_equal(jp_worker_result(t, NULL), 0);
	assert_int_equal(w.reported, 100);
	assert_string_equal(jp_worker_label(t), "clone");
	jp_worker_free(t);
}

static void failed_work_keeps_its_error(void **state)
{
	struct work w = { .steps = 1, .result = JP_ENET };
	struct jp_worker *t = NULL;
	const struct jp_error *terr;

	(void)state;
	assert_int_equal(jp_worker_start(&t, "clone", count_work, &w, NULL), 0);
	jp_worker_wait(t, -1);
	assert_int_equal(jp_worker_result(t, &terr), JP_ENET);
	assert_int_equal(terr->code, JP_ENET);
	assert_non_null(strstr(jp_error_message(terr), "clone"));
	jp_worker_free(t);
}

static void cancel_makes_progress_return_negative(void **state)
{
	struct jp_worker *t = NULL;
	const struct jp_error *terr;

	(void)state;
	assert_int_equal(jp_worker_start(&t, "scan", endless_work, NULL, NULL), 0);
	assert_int_equal(jp_worker_wait(t, 20), JP_ETIMEOUT);
	jp_worker_cancel(t);
	assert_int_equal(jp_worker_wait(t, -1), 0);
	assert_int_equal(jp_worker_result(t, &terr), JP_ECANCELED);
	assert_non_null(strstr(jp_error_message(terr), "cancelled after"));
	jp_worker_free(t);
}

static void free_cancels_a_running_task(void **state)
{
	struct jp_worker *t = NULL;

	(void)state;
	assert_int_equal(jp_worker_start(&t, "scan", endless_work, NULL, NULL), 0);
	jp_worker_free(t); /* must return: cancels and joins */
}

static void worker_blocks_terminal_signals(void **state)
{
	struct work w = { .steps = 0 };
	struct jp_worker *t = NULL;

	(void)state;
	assert_int_equal(jp_worker_start(&t, "x", count_work, &w, NULL), 0);
	jp_worker_wait(t, -1);
	assert_true(sigismember(&w.mask, SIGINT));
	assert_true(sigismember(&w.mask, SIGTERM));
	assert_true(sigismember(&w.mask, SIGWINCH));
	assert_false(sigismember(&w.mask, SIGSEGV));
	jp_worker_free(t);
}

static void wait_for_request(struct jp_worker *t, enum jp_worker_request_kind kind,
			     struct jp_worker_status *st)
{
	for (int i = 0; i < 5000; i++) {
		jp_worker_poll(st, t);
		if (st->request == kind)
			return;
		usleep(1000);
	}
	fail_msg("no request of kind %d", kind);
}

static void requests_park_until_the_front_end_replies(void **state)
{
	struct work w = { 0 };
	struct jp_worker *t = NULL;
	struct jp_worker_status st;

	(void)state;
	assert_int_equal(jp_worker_start(&t, "clone", asking_work, &w, NULL), 0);
	wait_for_request(t, JP_WORKER_REQ_SECRET, &st);
	assert_string_equal(st.prompt, "Password for git:");
	assert_false(jp_worker_is_done(t));
	jp_worker_reply(t, 0, "hunter2");
	wait_for_request(t, JP_WORKER_REQ_CONFIRM, &st);
	assert_string_equal(st.prompt, "Reuse the directory?");
	jp_worker_reply(t, 1, NULL);
	jp_worker_wait(t, -1);
	assert_int_equal(jp_worker_result(t, NULL), 0);
	assert_string_equal(w.secret, "hunter2");
	assert_int_equal(w.confirmed, 1);
	jp_worker_free(t);
}

static void cancel_declines_a_parked_request(void **state)
{
	struct work w = { 0 };
	struct jp_worker *t = NULL;
	struct jp_worker_status st;

	(void)state;
	assert_int_equal(jp_worker_start(&t, "clone", asking_work, &w, NULL), 0);
	wait_for_request(t, JP_WORKER_REQ_SECRET, &st);
	jp_worker_cancel(t);
	jp_worker_wait(t, -1);
	assert_int_equal(jp_worker_result(t, NULL), JP_EAUTH);
	assert_string_equal(w.secret, "");
	jp_worker_free(t);
}

/* One list of the phases' names for both front ends: every phase has a
 * line's text and a bar's word, and nothing outside the enum has one. */
static void every_phase_has_its_names(void **state)
{
	(void)state;
	for (int ph = JP_PHASE_CONNECT; ph <= JP_PHASE_DONE; ph++) {
		assert_true(jp_phase_name((enum jp_phase)ph, false)[0] != '\0');
		assert_true(jp_phase_name((enum jp_phase)ph, true)[0] != '\0');
	}
	assert_string_equal(jp_phase_name(JP_PHASE_FETCH, false), "receiving objects");
	assert_string_equal(jp_phase_name(JP_PHASE_FETCH, true), "receiving");
	assert_string_equal(jp_phase_name(JP_PHASE_DONE, false), "done");
	assert_string_equal(jp_phase_name((enum jp_phase)(JP_PHASE_DONE + 1), true), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finished_task_reports_its_result_and_last_progress),
		cmocka_unit_test(failed_work_keeps_its_error),
		cmocka_unit_test(cancel_makes_progress_return_negative),
		cmocka_unit_test(free_cancels_a_running_task),
		cmocka_unit_test(worker_blocks_terminal_signals),
		cmocka_unit_test(requests_park_until_the_front_end_replies),
		cmocka_unit_test(cancel_declines_a_parked_request),
		cmocka_unit_test(every_phase_has_its_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
