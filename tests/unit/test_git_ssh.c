/* An ssh step's outcome crossing from its helper (git_ssh.c,
 * jp_git_ssh_outcome_put and _get, the pair both sides use): the
 * operation's failure arrives whole, its code and every line, and
 * jp_git_op_error gives each line as its own; libgit2's own error arrives
 * with its class and whole text; a cancel and a full disk are carried. The
 * helper is this program started again, serving a request of the test's
 * own (jp_helper_extra_requests) that fails the way a step would. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "git_internal.h"
#include "helper_internal.h"

/* inputs: how many lines the operation's failure has (0: none, libgit2's
 * error only); answer: the outcome of a step that failed so */
static void outcome_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_error e = JP_ERROR_INIT;
	struct jp_git_op op;
	int lines = 0;

	probe_bytes_get(in, &lines, sizeof(lines));
	if (jp_git_global_init(NULL) != 0) {
		out->bad = true;
		return;
	}
	jp_git_op_init(&op, NULL);
	for (int i = 1; i <= lines; i++)
		jp_error_set(&e, JP_EAUTH, "line %d of why it stopped", i);
	jp_git_op_fail_whole(&op, &e);
	op.canceled = lines == 2;
	op.out_of_room = lines == 3;
	git_error_set_str(GIT_ERROR_SSH, "libgit2 says\nand says more");
	jp_git_ssh_outcome_put(out, lines ? GIT_EUSER : GIT_ERROR, &op);
	jp_error_dispose(&e);
}

static const struct jp_helper_request test_outcome = {"test_ssh_outcome", outcome_serve,
						      JP_HELPER_LOOK};
const struct jp_helper_request *const jp_helper_extra_requests[] = {&test_outcome, NULL};

/* The step failed in a helper with lines lines of why; its error here. */
static int step_error(struct jp_error *err, struct jp_git_op *op, int lines)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	int gerr;

	jp_git_op_init(op, NULL);
	probe_bytes_put(&in, &lines, sizeof(lines));
	assert_int_equal(jp_helper_call(&ans, &test_outcome, &in, NULL, 60000, err), 0);
	gerr = jp_git_ssh_outcome_get(op, &ans);
	assert_false(ans.bad);
	assert_int_equal(ans.off, ans.n); /* all of it read */
	free(in.p);
	free(ans.p);
	return jp_git_op_error(op, gerr, NULL, err, "fetch origin");
}

static void every_line_of_the_failure_arrives(void **state)
{
	for (int lines = 1; lines <= 3; lines++) {
		struct jp_error err = JP_ERROR_INIT;
		struct jp_git_op op;
		char want[64];

		(void)state;
		assert_int_equal(step_error(&err, &op, lines), JP_EAUTH);
		assert_int_equal(err.code, JP_EAUTH);
		assert_int_equal(err.n, (size_t)lines);
		assert_string_equal(err.msgs[0], "fetch origin: line 1 of why it stopped");
		for (int i = 1; i < lines; i++) {
			snprintf(want, sizeof(want), "line %d of why it stopped", i + 1);
			assert_string_equal(err.msgs[i], want);
		}
		assert_int_equal(op.canceled, lines == 2);
		assert_int_equal(op.out_of_room, lines == 3);
		jp_error_dispose(&err);
	}
}

/* No failure of the operation's own: libgit2's error, class and text. */
static void libgit2s_error_arrives_whole(void **state)
{
	struct jp_error err = JP_ERROR_INIT;
	struct jp_git_op op;

	(void)state;
	assert_int_equal(step_error(&err, &op, 0), JP_ENET);
	assert_int_equal(err.n, 1);
	assert_string_equal(err.msgs[0], "fetch origin: libgit2 says\nand says more");
	assert_int_equal(op.fail_code, 0);
	jp_error_dispose(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_line_of_the_failure_arrives),
	    cmocka_unit_test(libgit2s_error_arrives_whole),
	};

	if (jp_git_global_init(NULL) != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
