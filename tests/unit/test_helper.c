/* The process boundary of src/helper.c: a request's answer comes back from
 * a helper (this test program started again, never a fork of it); the
 * helper sees only the bytes it was sent; helpers are kept and used again;
 * one that does not answer in time is given up (JP_ETIMEOUT), killed and
 * reaped before the call returns; one killed from outside while idle is
 * replaced; an error crosses whole; a request's class gives its deadline,
 * and a look watched or watched work called as a look is refused; a mount
 * known hung fails either call at once, and a stalled watch says so in
 * the standard words; the child-process type reaps what it
 * finishes and what is still running at exit; watched work's reports reach
 * the caller in order, a cancel reaches the helper, and a helper deaf to
 * it is given up too (JP_ECANCELED). No timed assertion: the bounds are far
 * from what each case does. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "helper_internal.h"
#include "spawn_internal.h"

enum { ANSWER, REPORT, SILENT, STOPPABLE, DEAF, WHO, TELL_PID };

static void nap(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* This test's own requests: "test_mode" does what its input says; its
 * answer is a number. */
static void mode_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	int mode = -1, answer = 0;

	probe_bytes_get(in, &mode, sizeof(mode));
	switch (mode) {
	case ANSWER:
		answer = 42;
		break;
	case REPORT:
		for (int i = 1; i <= 3; i++)
			jp_watch_send(&i, sizeof(i));
		answer = 3;
		break;
	case SILENT:
		for (;;)
			pause();
	case STOPPABLE:
		while (!jp_watch_stop_asked())
			nap(10);
		answer = -1;
		break;
	case DEAF:
		for (;;)
			nap(100);
	case WHO:
		answer = (int)getpid();
		break;
	case TELL_PID: /* its pid as a report, then no answer */
		answer = (int)getpid();
		jp_watch_send(&answer, sizeof(answer));
		for (;;)
			pause();
	default:
		out->bad = true;
	}
	probe_bytes_put(out, &answer, sizeof(answer));
}

/* "test_echo": its input string back, and whether the test's own globals
 * reached it (they must not: nothing of the caller's memory does). */
static int marker;

static void echo_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	char *s = probe_bytes_get_str(in);

	probe_bytes_put_str(out, s);
	probe_bytes_put(out, &marker, sizeof(marker));
	free(s);
}

/* "test_error": an error of as many lines as its input says, with its
 * code, as the answer. */
static void error_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_error e = JP_ERROR_INIT;
	int lines = 0, rc = JP_EIO;

	probe_bytes_get(in, &lines, sizeof(lines));
	for (int i = 1; i <= lines; i++)
		jp_error_set(&e, JP_ENOSPC, "line %d of the error", i);
	probe_bytes_put(out, &rc, sizeof(rc));
	probe_bytes_put_error(out, &e);
	jp_error_dispose(&e);
}

/* "test_mode" as a look, a long look and watched work: the same work,
 * three deadline classes. */
static const struct jp_helper_request test_mode = {"test_mode", mode_serve, JP_HELPER_LOOK};
static const struct jp_helper_request test_long = {"test_long", mode_serve, JP_HELPER_LONG_LOOK};
static const struct jp_helper_request test_watched = {"test_watched", mode_serve,
						      JP_HELPER_WATCHED};
static const struct jp_helper_request test_echo = {"test_echo", echo_serve, JP_HELPER_LOOK};
static const struct jp_helper_request test_error = {"test_error", error_serve, JP_HELPER_LOOK};
const struct jp_helper_request *const jp_helper_extra_requests[] = {
    &test_mode, &test_long, &test_watched, &test_echo, &test_error, NULL};

static int call_mode(int mode, int *answer, unsigned timeout_ms)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	struct jp_error err = JP_ERROR_INIT;
	int rc;

	probe_bytes_put(&in, &mode, sizeof(mode));
	rc = jp_helper_call(&ans, &test_mode, &in, "/nowhere", timeout_ms, &err);
	if (rc == 0) {
		probe_bytes_get(&ans, answer, sizeof(*answer));
		assert_false(ans.bad);
		free(ans.p);
	}
	free(in.p);
	jp_error_dispose(&err);
	return rc;
}

static void the_answer_comes_back(void **state)
{
	int answer = 0;

	(void)state;
	assert_int_equal(call_mode(ANSWER, &answer, 60000), 0);
	assert_int_equal(answer, 42);
	/* in this process, sending is a no-op and nothing asks to stop */
	jp_watch_send("x", 1);
	assert_false(jp_watch_stop_asked());
}

static void the_helper_sees_only_the_bytes_sent(void **state)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	struct jp_error err = JP_ERROR_INIT;
	int seen = -1;
	char *s;

	(void)state;
	marker = 7; /* a fork would see it; a new program starts with 0 */
	probe_bytes_put_str(&in, "数据 ü");
	assert_int_equal(jp_helper_call(&ans, &test_echo, &in, NULL, 60000, &err), 0);
	s = probe_bytes_get_str(&ans);
	probe_bytes_get(&ans, &seen, sizeof(seen));
	assert_false(ans.bad);
	assert_string_equal(s, "数据 ü");
	assert_int_equal(seen, 0);
	free(s);
	free(ans.p);
	free(in.p);
	marker = 0;
}

static void helpers_are_used_again(void **state)
{
	int first = 0, again = 0;

	(void)state;
	assert_int_equal(call_mode(WHO, &first, 60000), 0);
	assert_int_equal(call_mode(WHO, &again, 60000), 0);
	assert_int_equal(first, again);
	assert_true(first != (int)getpid());
	for (int i = 0; i < 20; i++)
		assert_int_equal(call_mode(WHO, &again, 60000), 0);
	assert_true(jp_helper_count() <= 4);
}

static void an_idle_helper_killed_from_outside_is_replaced(void **state)
{
	int pid = 0, next = 0;

	(void)state;
	assert_int_equal(call_mode(WHO, &pid, 60000), 0);
	assert_int_equal(kill((pid_t)pid, SIGKILL), 0);
	nap(50);
	assert_int_equal(call_mode(WHO, &next, 60000), 0);
	assert_true(next != pid);
}

/* This process's children, from /proc: how many, and how many of them
 * are zombies (ended, not reaped). */
static void count_children(size_t *all, size_t *zombies)
{
	char path[300], buf[512];
	struct dirent *e;
	DIR *d = opendir("/proc");

	*all = *zombies = 0;
	assert_non_null(d);
	while ((e = readdir(d))) {
		long ppid = 0;
		char st = '?', *p;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "re")))
			continue; /* ended meanwhile */
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %c %ld", &st, &ppid) != 2 ||
		    ppid != (long)getpid())
			continue;
		(*all)++;
		if (st == 'Z')
			(*zombies)++;
	}
	closedir(d);
}

/* Given up, the helper is killed and reaped before the call returns (no
 * later look needed): every child left is a live helper kept idle. */
static void a_silent_helper_is_given_up_and_killed(void **state)
{
	int answer = 7, who = 0;
	size_t before = jp_helper_count(), children, zombies;

	(void)state;
	assert_int_equal(call_mode(SILENT, &answer, 300), JP_ETIMEOUT);
	assert_int_equal(answer, 7); /* untouched */
	assert_true(jp_helper_count() <= before);
	count_children(&children, &zombies);
	assert_int_equal(zombies, 0);
	assert_int_equal(children, jp_helper_count());
	/* the next call gets an answer all the same */
	assert_int_equal(call_mode(WHO, &who, 60000), 0);
}

static void an_unknown_request_is_a_failed_look(void **state)
{
	static const struct jp_helper_request nowhere = {"no_such_request", NULL, JP_HELPER_LOOK};
	struct probe_bytes ans;
	struct jp_error err = JP_ERROR_INIT;

	(void)state;
	assert_int_equal(jp_helper_call(&ans, &nowhere, NULL, "/x", 60000, &err), JP_EINTERNAL);
	assert_non_null(strstr(jp_error_message(&err), "/x"));
	jp_error_dispose(&err);
}

/* An error crosses the boundary whole: its code and every line; one with
 * no line reads as the caller's rc. */
static void an_error_crosses_whole(void **state)
{
	for (int lines = 0; lines <= 3; lines++) {
		struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
		struct jp_error err = JP_ERROR_INIT;
		int rc = 0;

		(void)state;
		probe_bytes_put(&in, &lines, sizeof(lines));
		assert_int_equal(jp_helper_call(&ans, &test_error, &in, NULL, 60000, &err), 0);
		probe_bytes_get(&ans, &rc, sizeof(rc));
		assert_int_equal(probe_bytes_get_error(&ans, &err, rc),
				 lines ? JP_ENOSPC : JP_EIO);
		assert_false(ans.bad);
		assert_int_equal(err.code, lines ? JP_ENOSPC : JP_EIO);
		assert_int_equal(err.n, lines ? (size_t)lines : 1);
		for (int i = 0; i < lines; i++) {
			char want[64];
			snprintf(want, sizeof(want), "line %d of the error", i + 1);
			assert_string_equal(err.msgs[i], want);
		}
		free(ans.p);
		free(in.p);
		jp_error_dispose(&err);
	}
}

/* ---- a request's deadline is its own ---- */

/* A silent request of class req given up with deadline 0: the message
 * names the deadline it was given up at. */
static void silent_at_own_deadline(const struct jp_helper_request *req, const char *want)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	struct jp_error err = JP_ERROR_INIT;
	int mode = SILENT;

	probe_bytes_put(&in, &mode, sizeof(mode));
	assert_int_equal(jp_helper_call(&ans, req, &in, "/nowhere", 0, &err), JP_ETIMEOUT);
	assert_string_equal(jp_error_message(&err), want);
	free(in.p);
	jp_error_dispose(&err);
}

/* A look's deadline is JOBPREP_PROBE_TIMEOUT_MS, a long look's twice it,
 * watched work has none; a call given 0 takes its request's. */
static void a_request_gives_its_deadline(void **state)
{
	(void)state;
	assert_int_equal(setenv("JOBPREP_PROBE_TIMEOUT_MS", "300", 1), 0);
	assert_int_equal(jp_helper_deadline_ms(&test_mode), 300);
	assert_int_equal(jp_helper_deadline_ms(&test_long), 600);
	assert_int_equal(jp_helper_deadline_ms(&test_watched), 0);
	silent_at_own_deadline(&test_mode,
			       "/nowhere: no answer within 0.3 s (is a network mount hung?)");
	silent_at_own_deadline(&test_long,
			       "/nowhere: no answer within 0.6 s (is a network mount hung?)");
	assert_int_equal(unsetenv("JOBPREP_PROBE_TIMEOUT_MS"), 0);
}

/* Watched work called as a look, or a look watched, is refused before a
 * helper is asked; the right call of each answers. */
static void a_mismatched_call_is_refused(void **state)
{
	struct jp_watch w = {.stall_ms = 60000, .grace_ms = 60000};
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	struct jp_error err = JP_ERROR_INIT;
	int mode = WHO, who = 0;
	bool sent;

	(void)state;
	probe_bytes_put(&in, &mode, sizeof(mode));
	assert_int_equal(jp_helper_call(&ans, &test_watched, &in, NULL, 60000, &err),
			 JP_EINTERNAL);
	assert_non_null(strstr(jp_error_message(&err), "test_watched"));
	assert_null(ans.p);
	jp_error_dispose(&err);
	assert_int_equal(jp_helper_watch(&ans, &test_mode, &in, &w, &sent, &err), JP_EINTERNAL);
	assert_non_null(strstr(jp_error_message(&err), "test_mode"));
	assert_null(ans.p);
	jp_error_dispose(&err);
	assert_int_equal(jp_helper_watch(&ans, &test_watched, &in, &w, &sent, NULL), 0);
	free(ans.p);
	assert_int_equal(call_mode(WHO, &who, 60000), 0);
	free(in.p);
}

/* Watched work that stalls is given up in the standard words, naming its
 * path and the stall it was given up at. */
static void a_stalled_watch_says_so(void **state)
{
	struct jp_watch w = {.stall_ms = 300, .grace_ms = 300, .path = "/nowhere"};
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	struct jp_error err = JP_ERROR_INIT;
	int mode = SILENT;
	bool sent;

	(void)state;
	probe_bytes_put(&in, &mode, sizeof(mode));
	assert_int_equal(jp_helper_watch(&ans, &test_watched, &in, &w, &sent, &err), JP_ETIMEOUT);
	assert_string_equal(jp_error_message(&err),
			    "/nowhere: no answer within 0.3 s (is a network mount hung?)");
	free(in.p);
	jp_error_dispose(&err);
}

/* A path on a mount known hung fails either call at once, in the standard
 * words, before any helper is asked: no caller asks first. A watch looks
 * at each of its paths. */
static void a_known_hung_mount_fails_the_call_at_once(void **state)
{
	static const char want[] = "/hung-here/x: no answer: /hung-here, the mount it is on, has "
				   "not answered an earlier look yet (is a network mount hung?)";
	struct jp_watch w = {.stall_ms = 60000, .grace_ms = 60000, .also = {"/elsewhere", NULL}};
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	struct jp_error err = JP_ERROR_INIT;
	int mode = WHO, who = 0;
	bool sent;

	(void)state;
	probe_bytes_put(&in, &mode, sizeof(mode));
	assert_int_equal(call_mode(WHO, &who, 60000), 0); /* one helper idle */
	size_t live = jp_helper_count();
	probe_hung_add("/hung-here");
	assert_int_equal(jp_helper_call(&ans, &test_mode, &in, "/hung-here/x", 0, &err),
			 JP_ETIMEOUT);
	assert_string_equal(jp_error_message(&err), want);
	jp_error_dispose(&err);
	w.also[1] = "/hung-here/x";
	assert_int_equal(jp_helper_watch(&ans, &test_watched, &in, &w, &sent, &err), JP_ETIMEOUT);
	assert_string_equal(jp_error_message(&err), want);
	jp_error_dispose(&err);
	assert_int_equal(jp_helper_count(), live);
	probe_hung_remove("/hung-here");
	/* the mount answers again: so does the call */
	assert_int_equal(jp_helper_watch(&ans, &test_watched, &in, &w, &sent, NULL), 0);
	free(ans.p);
	free(in.p);
}

/* ---- the child-process type (spawn_internal.h) ---- */

/* finish reaps: a program killed is gone, and its status says how. */
static void a_finished_child_is_reaped(void **state)
{
	char *argv[] = {(char *)"sleep", (char *)"600", NULL};
	struct jp_child c = JP_CHILD_INIT;
	int status = 0;
	pid_t pid;

	(void)state;
	c.argv = argv;
	c.search_path = true;
	assert_int_equal(jp_child_start(&c), 0);
	pid = c.pid;
	assert_true(pid > 0);
	assert_int_equal(jp_child_finish(&c, true, &status), 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_int_equal(c.pid, -1);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1); /* no such child left */
	assert_int_equal(errno, ECHILD);
}

/* A child still running when the process that started it exits is killed
 * and reaped by that exit (git's clean_on_exit): once the exiting process
 * (a fork of the test) has been waited for, its program is gone. The test
 * is the program's reaper (PR_SET_CHILD_SUBREAPER) should it outlive its
 * parent, so that a failure leaves nothing behind. */
static void a_child_still_running_at_exit_is_killed(void **state)
{
	int fds[2], status = 0, alive;
	pid_t caller, prog = 0;

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(fds), 0);
	caller = fork();
	assert_true(caller >= 0);
	if (caller == 0) {
		char *argv[] = {(char *)"sleep", (char *)"600", NULL};
		struct jp_child c = JP_CHILD_INIT;

		close(fds[0]);
		c.argv = argv;
		c.search_path = true;
		if (jp_child_start(&c) != 0 ||
		    write(fds[1], &c.pid, sizeof(c.pid)) != (ssize_t)sizeof(c.pid))
			_exit(3);
		exit(0); /* not finished: exit's to clean */
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &prog, sizeof(prog)), sizeof(prog));
	close(fds[0]);
	assert_int_equal(waitpid(caller, &status, 0), caller);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* gone (reaped by the exit), or, on a machine too loaded for the
	 * exit's bounded wait, killed and left to us: within 10 s */
	alive = 1;
	for (int i = 0; i < 1000 && alive; i++) {
		pid_t got = waitpid(prog, &status, WNOHANG);
		if (got == prog)
			alive = !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		else if (got < 0 && kill(prog, 0) != 0)
			alive = 0;
		else
			nap(10);
	}
	if (alive) { /* not cleaned: end it here, then fail */
		kill(prog, SIGKILL);
		waitpid(prog, NULL, 0);
	}
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	assert_false(alive);
}

/* ---- watched work ---- */

struct seen {
	int reports[8];
	size_t n;
	int cancel_after; /* ask to stop after this many looks (0: never) */
	int looks;
};

static int report(const void *msg, size_t n, void *payload)
{
	struct seen *c = payload;

	assert_int_equal(n, sizeof(int));
	if (c->n < 8)
		memcpy(&c->reports[c->n++], msg, sizeof(int));
	return 1;
}

static bool cancelled(void *payload)
{
	struct seen *c = payload;

	return c->cancel_after && ++c->looks >= c->cancel_after;
}

static int watch_mode(int mode, struct seen *c, int *answer, unsigned stall_ms, unsigned grace_ms,
		      bool *cancel_sent)
{
	struct jp_watch w = {.cancelled = cancelled,
			     .report = report,
			     .payload = c,
			     .stall_ms = stall_ms,
			     .grace_ms = grace_ms};
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	struct jp_error err = JP_ERROR_INIT;
	int rc;

	probe_bytes_put(&in, &mode, sizeof(mode));
	rc = jp_helper_watch(&ans, &test_watched, &in, &w, cancel_sent, &err);
	if (rc == 0) {
		probe_bytes_get(&ans, answer, sizeof(*answer));
		free(ans.p);
	}
	free(in.p);
	jp_error_dispose(&err);
	return rc;
}

static void reports_reach_the_caller_in_order(void **state)
{
	struct seen c = {.n = 0};
	int answer = 0;
	bool sent;

	(void)state;
	assert_int_equal(watch_mode(REPORT, &c, &answer, 60000, 60000, &sent), 0);
	assert_int_equal(answer, 3);
	assert_false(sent);
	assert_int_equal(c.n, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(c.reports[i], i + 1);
}

static void a_silent_watched_helper_is_given_up(void **state)
{
	struct seen c = {.n = 0};
	int answer = 7;
	bool sent;

	(void)state;
	assert_int_equal(watch_mode(SILENT, &c, &answer, 300, 300, &sent), JP_ETIMEOUT);
	assert_false(sent);
	assert_int_equal(answer, 7);
}

static void a_cancel_reaches_the_helper(void **state)
{
	struct seen c = {.cancel_after = 3};
	int answer = 0;
	bool sent;

	(void)state;
	assert_int_equal(watch_mode(STOPPABLE, &c, &answer, 60000, 60000, &sent), 0);
	assert_true(sent);
	assert_int_equal(answer, -1);
}

static void a_helper_deaf_to_the_cancel_is_given_up(void **state)
{
	struct seen c = {.cancel_after = 2};
	int answer = 0;
	bool sent;

	(void)state;
	assert_int_equal(watch_mode(DEAF, &c, &answer, 60000, 300, &sent), JP_ECANCELED);
	assert_true(sent);
}

/* The caller killed (kill -9) takes watched work with it, as the forked
 * children did: no second writer behind the next run's back. The caller
 * here is a child of the test; it passes the helper's pid on. The test is
 * the orphaned helper's reaper (PR_SET_CHILD_SUBREAPER), so it waits for
 * the helper's end itself: a zombie still answers kill(pid, 0), and a PID 1
 * that does not reap (CI's chroot runs make check under runuser) would
 * leave one there for ever. */
static int pass_pid_on(const void *msg, size_t n, void *payload)
{
	int fd = *(int *)payload;

	if (n == sizeof(int) && write(fd, msg, n) != (ssize_t)n)
		_exit(3);
	return 1;
}

static void a_watched_helper_dies_with_its_caller(void **state)
{
	int fds[2], helper = 0, status;
	pid_t caller, ended = 0;

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(fds), 0);
	caller = fork();
	assert_true(caller >= 0);
	if (caller == 0) {
		struct jp_watch w = {.report = pass_pid_on,
				     .payload = &fds[1],
				     .stall_ms = 600000,
				     .grace_ms = 600000};
		struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
		int mode = TELL_PID;
		bool sent;

		close(fds[0]);
		probe_bytes_put(&in, &mode, sizeof(mode));
		jp_helper_watch(&ans, &test_watched, &in, &w, &sent, NULL);
		_exit(2);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &helper, sizeof(helper)), sizeof(helper));
	close(fds[0]);
	assert_int_equal(kill((pid_t)helper, 0), 0); /* at work */
	assert_int_equal(kill(caller, SIGKILL), 0);
	assert_int_equal(waitpid(caller, &status, 0), caller);
	/* killed within 10 s (at once, but for a loaded machine) */
	for (int i = 0; i < 1000 && ended == 0; i++) {
		ended = waitpid((pid_t)helper, &status, WNOHANG);
		if (ended == 0)
			nap(10);
	}
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
	assert_int_equal(ended, helper);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
}


/* who: the pid of the helper a watched call ran on (keep: may it stay). */
static int watched_who(bool keep)
{
	struct jp_watch w = {.stall_ms = 60000, .grace_ms = 60000, .keep = keep};
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	int mode = WHO, who = -1;
	bool sent;

	probe_bytes_put(&in, &mode, sizeof(mode));
	assert_int_equal(jp_helper_watch(&ans, &test_watched, &in, &w, &sent, NULL), 0);
	probe_bytes_get(&ans, &who, sizeof(who));
	free(ans.p);
	free(in.p);
	return who;
}

/* On the main thread every helper dies with the process, so watched work
 * runs on an idle one, and one whose work leaves nothing behind (keep) is
 * kept for the next call: a command that looks, stages and writes starts
 * one helper, not three. Work that may leave something (keep false) ends
 * its helper. */
static void watched_work_uses_idle_helpers_and_may_keep_them(void **state)
{
	int first = 0, again = 0, after = 0;

	(void)state;
	assert_int_equal(call_mode(WHO, &first, 60000), 0);
	size_t live = jp_helper_count();
	assert_int_equal(watched_who(true), first);
	assert_int_equal(jp_helper_count(), live);
	assert_int_equal(call_mode(WHO, &again, 60000), 0);
	assert_int_equal(again, first);
	assert_int_equal(watched_who(false), first);
	assert_int_equal(jp_helper_count(), live - 1);
	assert_int_equal(call_mode(WHO, &after, 60000), 0);
	assert_true(after != first);
	assert_int_equal(kill((pid_t)first, 0), -1); /* ended, and reaped */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_answer_comes_back),
	    cmocka_unit_test(the_helper_sees_only_the_bytes_sent),
	    cmocka_unit_test(helpers_are_used_again),
	    cmocka_unit_test(an_idle_helper_killed_from_outside_is_replaced),
	    cmocka_unit_test(a_silent_helper_is_given_up_and_killed),
	    cmocka_unit_test(an_unknown_request_is_a_failed_look),
	    cmocka_unit_test(an_error_crosses_whole),
	    cmocka_unit_test(a_request_gives_its_deadline),
	    cmocka_unit_test(a_mismatched_call_is_refused),
	    cmocka_unit_test(a_stalled_watch_says_so),
	    cmocka_unit_test(a_known_hung_mount_fails_the_call_at_once),
	    cmocka_unit_test(a_finished_child_is_reaped),
	    cmocka_unit_test(a_child_still_running_at_exit_is_killed),
	    cmocka_unit_test(reports_reach_the_caller_in_order),
	    cmocka_unit_test(a_silent_watched_helper_is_given_up),
	    cmocka_unit_test(a_cancel_reaches_the_helper),
	    cmocka_unit_test(a_helper_deaf_to_the_cancel_is_given_up),
	    cmocka_unit_test(a_watched_helper_dies_with_its_caller),
	    cmocka_unit_test(watched_work_uses_idle_helpers_and_may_keep_them),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
