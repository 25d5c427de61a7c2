/* Where the wizard may end a line: spaces in English, beside any wide
 * character in Chinese, with punctuation kept on the side it belongs to. */
#include "config.h"

#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tui/utf8.h"

/* The line jp_utf8_line_break ends when `cols` columns are available. */
static size_t line_in(const char *s, int cols)
{
	size_t len = strlen(s), fit = jp_utf8_fit(s, len, cols, NULL);

	return fit >= len ? len : jp_utf8_line_break(s, len, fit);
}

static void english_breaks_at_the_last_space_that_fits(void **state)
{
	(void)state;
	assert_int_equal(line_in("hello world foo", 13), strlen("hello world"));
	/* The space right after what fits is a break too. */
	assert_int_equal(line_in("hello world foo", 11), strlen("hello world"));
}

static void a_word_longer_than_the_line_is_cut(void **state)
{
	(void)state;
	assert_int_equal(line_in("/mnt/public/projects", 8), 8);
}

static void chinese_breaks_beside_any_wide_character(void **state)
{
	(void)state;
	/* Five characters take ten columns; 9 columns hold four. */
	assert_int_equal(line_in("任务只执行启动命令", 9), strlen("任务只执"));
	assert_int_equal(line_in("任务只执行启动命令", 10), strlen("任务只执行"));
}

static void closing_punctuation_stays_with_the_text_before_it(void **state)
{
	(void)state;
	/* "，" does not start a line: "五" goes down with it. */
	assert_int_equal(line_in("一二三四五，六七八", 10), strlen("一二三四"));
	assert_int_equal(line_in("路径确认完成。再继续", 12), strlen("路径确认完"));
}

static void opening_punctuation_stays_with_the_text_after_it(void **state)
{
	(void)state;
	/* "（" does not end a line. */
	assert_int_equal(line_in("一二三四（五六七", 10), strlen("一二三四"));
}

static void a_path_among_chinese_is_not_split(void **state)
{
	(void)state;
	/* The break before the path is at the space, not inside it. */
	assert_int_equal(line_in("请放到 /mnt/public/outputs 下", 20), strlen("请放到"));
	/* Chinese right after a path without a space may start the next line. */
	assert_int_equal(line_in("/mnt/public下的内容", 12), strlen("/mnt/public"));
}

static void a_newline_ends_the_line_first(void **state)
{
	(void)state;
	assert_int_equal(jp_utf8_line_break("ab\ncd ef", 8, 5), 2);
	assert_int_equal(jp_utf8_line_break("中\n文字", strlen("中\n文字"), 7), strlen("中"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(english_breaks_at_the_last_space_that_fits),
		cmocka_unit_test(a_word_longer_than_the_line_is_cut),
		cmocka_unit_test(chinese_breaks_beside_any_wide_character),
		cmocka_unit_test(closing_punctuation_stays_with_the_text_before_it),
		cmocka_unit_test(opening_punctuation_stays_with_the_text_after_it),
		cmocka_unit_test(a_path_among_chinese_is_not_split),
		cmocka_unit_test(a_newline_ends_the_line_first),
	};

	/* wcwidth() gives CJK two columns only in a UTF-8 locale. */
	if (!setlocale(LC_ALL, "C.UTF-8"))
		setlocale(LC_ALL, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
