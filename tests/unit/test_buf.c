/* A growing text: additions of every kind, growth past the first block,
 * bytes with NULs, and handing the text over. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "jobprep/error.h"

static void additions_of_every_kind_follow_each_other(void **state)
{
	struct jp_buf b = JP_BUF_INIT;
	char *out = NULL;

	(void)state;
	assert_int_equal(jp_buf_add(&b, "export "), 0);
	assert_int_equal(jp_buf_addn(&b, "NAMEXX", 4), 0);
	assert_int_equal(jp_buf_addc(&b, '='), 0);
	assert_int_equal(jp_buf_addf(&b, "'%s'%d", "v", 7), 0);
	assert_int_equal(b.len, strlen("export NAME='v'7"));
	assert_int_equal(jp_buf_take(&out, &b), 0);
	assert_string_equal(out, "export NAME='v'7");
	/* Taken: the buffer is empty again and owns nothing. */
	assert_null(b.s);
	assert_int_equal(b.len, 0);
	free(out);
}

static void a_long_text_grows_the_buffer(void **state)
{
	struct jp_buf b = JP_BUF_INIT;

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(jp_buf_add(&b, "0123456789"), 0);
	assert_int_equal(b.len, 10000);
	assert_int_equal(strlen(b.s), 10000);
	assert_true(b.cap > b.len);
	assert_memory_equal(b.s + 9990, "0123456789", 11);
	jp_buf_dispose(&b);
	assert_null(b.s);
}

static void bytes_with_a_nul_are_kept_and_terminated(void **state)
{
	struct jp_buf b = JP_BUF_INIT;

	(void)state;
	assert_int_equal(jp_buf_addn(&b, "a\0b", 3), 0);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.s, "a\0b\0", 4);
	/* Emptied for reuse, the next text starts at the front. */
	b.len = 0;
	assert_int_equal(jp_buf_addn(&b, "", 0), 0);
	assert_string_equal(b.s, "");
	jp_buf_dispose(&b);
}

static void nothing_added_is_taken_as_empty_text(void **state)
{
	struct jp_buf b = JP_BUF_INIT;
	char *out = NULL;

	(void)state;
	assert_int_equal(jp_buf_take(&out, &b), 0);
	assert_non_null(out);
	assert_string_equal(out, "");
	free(out);
}

static void a_failure_sticks_and_nothing_is_handed_over(void **state)
{
	struct jp_buf b = JP_BUF_INIT;
	char *out = (char *)"untouched";

	(void)state;
	assert_int_equal(jp_buf_add(&b, "partial"), 0);
	b.rc = JP_ENOMEM; /* as a failed realloc leaves it */
	assert_int_equal(jp_buf_add(&b, " more"), JP_ENOMEM);
	assert_string_equal(b.s, "partial");
	assert_int_equal(jp_buf_take(&out, &b), JP_ENOMEM);
	assert_null(out);
	assert_null(b.s);
	assert_int_equal(b.rc, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(additions_of_every_kind_follow_each_other),
		cmocka_unit_test(a_long_text_grows_the_buffer),
		cmocka_unit_test(bytes_with_a_nul_are_kept_and_terminated),
		cmocka_unit_test(nothing_added_is_taken_as_empty_text),
		cmocka_unit_test(a_failure_sticks_and_nothing_is_handed_over),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
