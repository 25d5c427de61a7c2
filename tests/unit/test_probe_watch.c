/* The watched child process of src/probe_watch.c: its answer comes back,
 * its reports reach the parent in order, a child that shows no sign of life
 * is given up (JP_ETIMEOUT) and left behind, a cancel reaches the child,
 * and a child deaf to it is given up too (JP_ECANCELED). No timed
 * assertion: the bounds are far from what each case does. */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe_watch.h"

struct call {
	int mode;    /* what the child does */
	int answer;  /* the child's answer */
	int seen[8]; /* the parent's: reports seen */
	size_t n_seen;
	int cancel_after; /* the parent's: ask to stop after this many looks (0: never) */
	int looks;
};

enum { ANSWER, REPORT, SILENT, STOPPABLE, DEAF };

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void run(void *arg)
{
	struct call *c = arg;

	switch (c->mode) {
	case ANSWER:
		c->answer = 42;
		break;
	case REPORT:
		for (int i = 1; i <= 3; i++)
			jp_watch_send(&i, sizeof(i));
		c->answer = 3;
		break;
	case SILENT:
		for (;;)
			pause();
	case STOPPABLE:
		while (!jp_watch_stop_asked())
			nap(10);
		c->answer = -1;
		break;
	case DEAF:
		for (;;)
			nap(100);
	}
}

static void pack(struct probe_bytes *out, void *arg)
{
	probe_bytes_put(out, &((struct call *)arg)->answer, sizeof(int));
}

static bool unpack(struct probe_bytes *in, void *arg)
{
	probe_bytes_get(in, &((struct call *)arg)->answer, sizeof(int));
	return !in->bad;
}

static int report(const void *msg, size_t n, void *payload)
{
	struct call *c = payload;

	assert_int_equal(n, sizeof(int));
	if (c->n_seen < 8)
		memcpy(&c->seen[c->n_seen++], msg, sizeof(int));
	return 1;
}

static bool cancelled(void *payload)
{
	struct call *c = payload;

	return c->cancel_after && ++c->looks >= c->cancel_after;
}

static int call(struct call *c, unsigned stall_ms, unsigned grace_ms, bool *cancel_sent)
{
	struct jp_watch w = { cancelled, report, c, stall_ms, grace_ms, NULL };
	struct jp_error err = JP_ERROR_INIT;
	int rc = jp_watch_call(run, c, pack, unpack, &w, cancel_sent, &err);

	jp_error_dispose(&err);
	return rc;
}

static void the_answer_comes_back(void **state)
{
	struct call c = { .mode = ANSWER };
	bool sent;

	(void)state;
	assert_int_equal(call(&c, 60000, 60000, &sent), 0);
	assert_int_equal(c.answer, 42);
	assert_false(sent);
	/* in this process, sending is a no-op and nothing asks to stop */
	jp_watch_send("x", 1);
	assert_false(jp_watch_stop_asked());
}

static void reports_reach_the_parent_in_order(void **state)
{
	struct call c = { .mode = REPORT };
	bool sent;

	(void)state;
	assert_int_equal(call(&c, 60000, 60000, &sent), 0);
	assert_int_equal(c.answer, 3);
	assert_int_equal(c.n_seen, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(c.seen[i], i + 1);
}

static void a_silent_child_is_given_up(void **state)
{
	struct call c = { .mode = SILENT, .answer = 7 };
	bool sent;

	(void)state;
	assert_int_equal(call(&c, 300, 300, &sent), JP_ETIMEOUT);
	assert_false(sent);
	assert_int_equal(c.answer, 7); /* untouched */
}

static void a_cancel_reaches_the_child(void **state)
{
	struct call c = { .mode = STOPPABLE, .cancel_after = 3 };
	bool sent;

	(void)state;
	assert_int_equal(call(&c, 60000, 60000, &sent), 0);
	assert_true(sent);
	assert_int_equal(c.answer, -1);
}

static void a_child_deaf_to_the_cancel_is_given_up(void **state)
{
	struct call c = { .mode = DEAF, .cancel_after = 2 };
	bool sent;

	(void)state;
	assert_int_equal(call(&c, 60000, 300, &sent), JP_ECANCELED);
	assert_true(sent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_answer_comes_back),
		cmocka_unit_test(reports_reach_the_parent_in_order),
		cmocka_unit_test(a_silent_child_is_given_up),
		cmocka_unit_test(a_cancel_reaches_the_child),
		cmocka_unit_test(a_child_deaf_to_the_cancel_is_given_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
