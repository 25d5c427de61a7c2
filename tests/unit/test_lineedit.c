/* The wizard's line editor, without a terminal. */
#include "config.h"

#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "jobprep/error.h"
#include "tui/lineedit.h"
#include "tui/utf8.h"

static struct jp_lineedit le;

static int setup(void **state)
{
	(void)state;
	memset(&le, 0, sizeof(le));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	jp_le_dispose(&le);
	return 0;
}

static void type(const char *s)
{
	assert_int_equal(jp_le_insert(&le, s, strlen(s)), 0);
}

static void init_starts_with_cursor_at_end(void **state)
{
	(void)state;
	assert_int_equal(jp_le_init(&le, "/mnt/public"), 0);
	assert_string_equal(jp_le_text(&le), "/mnt/public");
	assert_int_equal(le.cursor, 11);
}

static void home_end_and_ctrl_a_e_move_to_the_ends(void **state)
{
	(void)state;
	jp_le_init(&le, "abc");
	assert_true(jp_le_apply(&le, JP_LE_HOME));
	assert_int_equal(le.cursor, 0);
	assert_false(jp_le_apply(&le, JP_LE_LEFT));
	type("x");
	assert_string_equal(jp_le_text(&le), "xabc");
	assert_true(jp_le_apply(&le, JP_LE_END));
	assert_int_equal(le.cursor, 4);
	assert_false(jp_le_apply(&le, JP_LE_RIGHT));
}

static void typing_in_the_middle_inserts_at_the_cursor(void **state)
{
	(void)state;
	jp_le_init(&le, "/mnt/pblic");
	jp_le_apply(&le, JP_LE_HOME);
	for (int i = 0; i < 6; i++)
		jp_le_apply(&le, JP_LE_RIGHT);
	type("u");
	assert_string_equal(jp_le_text(&le), "/mnt/public");
	assert_int_equal(le.cursor, 7);
}

static void backspace_and_delete_remove_one_character(void **state)
{
	(void)state;
	jp_le_init(&le, "abcd");
	assert_true(jp_le_apply(&le, JP_LE_BACKSPACE));
	assert_string_equal(jp_le_text(&le), "abc");
	jp_le_apply(&le, JP_LE_HOME);
	assert_false(jp_le_apply(&le, JP_LE_BACKSPACE));
	assert_true(jp_le_apply(&le, JP_LE_DELETE));
	assert_string_equal(jp_le_text(&le), "bc");
	jp_le_apply(&le, JP_LE_END);
	assert_false(jp_le_apply(&le, JP_LE_DELETE));
}

static void ctrl_u_kills_to_the_start_and_ctrl_y_yanks_it_back(void **state)
{
	(void)state;
	jp_le_init(&le, "hello world");
	jp_le_apply(&le, JP_LE_WORD_LEFT);
	assert_int_equal(le.cursor, 6);
	assert_true(jp_le_apply(&le, JP_LE_KILL_START));
	assert_string_equal(jp_le_text(&le), "world");
	assert_int_equal(le.cursor, 0);
	jp_le_apply(&le, JP_LE_END);
	assert_true(jp_le_apply(&le, JP_LE_YANK));
	assert_string_equal(jp_le_text(&le), "worldhello ");
}

static void ctrl_k_kills_to_the_end(void **state)
{
	(void)state;
	jp_le_init(&le, "/mnt/public/x");
	jp_le_apply(&le, JP_LE_HOME);
	for (int i = 0; i < 4; i++)
		jp_le_apply(&le, JP_LE_RIGHT);
	assert_true(jp_le_apply(&le, JP_LE_KILL_END));
	assert_string_equal(jp_le_text(&le), "/mnt");
	assert_false(jp_le_apply(&le, JP_LE_KILL_END));
}

static void ctrl_w_removes_one_path_component_at_a_time(void **state)
{
	(void)state;
	jp_le_init(&le, "/mnt/public/projects/");
	assert_true(jp_le_apply(&le, JP_LE_KILL_WORD));
	assert_string_equal(jp_le_text(&le), "/mnt/public/");
	assert_true(jp_le_apply(&le, JP_LE_KILL_WORD));
	assert_string_equal(jp_le_text(&le), "/mnt/");
	jp_le_set(&le, "run train.sh");
	assert_true(jp_le_apply(&le, JP_LE_KILL_WORD));
	assert_string_equal(jp_le_text(&le), "run ");
}

static void word_motions_stop_at_path_separators(void **state)
{
	(void)state;
	jp_le_init(&le, "/mnt/public/llama-sft");
	jp_le_apply(&le, JP_LE_WORD_LEFT);
	assert_int_equal(le.cursor, strlen("/mnt/public/llama-"));
	jp_le_apply(&le, JP_LE_WORD_LEFT);
	assert_int_equal(le.cursor, strlen("/mnt/public/"));
	jp_le_apply(&le, JP_LE_WORD_RIGHT);
	assert_int_equal(le.cursor, strlen("/mnt/public/llama"));
}

static void cjk_characters_move_whole_and_take_two_columns(void **state)
{
	(void)state;
	/* "数据" = two 3-byte characters, two columns each */
	jp_le_init(&le, "/d/\xe6\x95\xb0\xe6\x8d\xae");
	assert_int_equal(jp_le_cursor_col(&le), 3 + 4);
	jp_le_apply(&le, JP_LE_LEFT);
	assert_int_equal(le.cursor, 6);
	assert_int_equal(jp_le_cursor_col(&le), 5);
	jp_le_apply(&le, JP_LE_BACKSPACE);
	assert_string_equal(jp_le_text(&le), "/d/\xe6\x8d\xae");
	assert_int_equal(le.cursor, 3);
	jp_le_apply(&le, JP_LE_DELETE);
	assert_string_equal(jp_le_text(&le), "/d/");
}

static void combining_marks_move_with_their_base(void **state)
{
	(void)state;
	/* "e" + U+0301 COMBINING ACUTE, then "x" */
	jp_le_init(&le, "e\xcc\x81x");
	jp_le_apply(&le, JP_LE_HOME);
	jp_le_apply(&le, JP_LE_RIGHT);
	assert_int_equal(le.cursor, 3);
	jp_le_apply(&le, JP_LE_BACKSPACE);
	assert_string_equal(jp_le_text(&le), "x");
}

static void insert_code_point_encodes_utf8(void **state)
{
	(void)state;
	jp_le_init(&le, NULL);
	assert_int_equal(jp_le_insert_cp(&le, 0x4E2D), 0); /* 中 */
	assert_int_equal(jp_le_insert_cp(&le, 'a'), 0);
	assert_string_equal(jp_le_text(&le), "\xe4\xb8\xad" "a");
	assert_int_equal(jp_le_insert_cp(&le, 0xD800), JP_EUSAGE);
}

static void invalid_bytes_are_single_characters(void **state)
{
	(void)state;
	jp_le_init(&le, "a\xff" "b");
	jp_le_apply(&le, JP_LE_LEFT);
	jp_le_apply(&le, JP_LE_LEFT);
	assert_int_equal(le.cursor, 1);
	assert_int_equal(jp_le_cursor_col(&le), 1);
	jp_le_apply(&le, JP_LE_DELETE);
	assert_string_equal(jp_le_text(&le), "ab");
}

static void max_length_refuses_more(void **state)
{
	(void)state;
	le.max = 4;
	jp_le_init(&le, "abc");
	assert_int_equal(le.max, 4);
	assert_int_equal(jp_le_insert(&le, "d", 1), 0);
	assert_int_equal(jp_le_insert(&le, "e", 1), JP_EUSAGE);
	assert_string_equal(jp_le_text(&le), "abcd");
}

static void short_text_is_shown_whole(void **state)
{
	size_t s, e;
	int col;

	(void)state;
	jp_le_init(&le, "abc");
	jp_le_view(&le, 10, &s, &e, &col);
	assert_int_equal(s, 0);
	assert_int_equal(e, 3);
	assert_int_equal(col, 3);
}

static void long_text_scrolls_to_keep_the_cursor_visible(void **state)
{
	size_t s, e;
	int col;

	(void)state;
	jp_le_init(&le, "0123456789abcdefghij"); /* 20 columns */
	jp_le_view(&le, 10, &s, &e, &col);
	/* cursor at the end needs a column: 9 characters shown */
	assert_int_equal(s, 11);
	assert_int_equal(e, 20);
	assert_int_equal(col, 9);
	jp_le_apply(&le, JP_LE_HOME);
	jp_le_view(&le, 10, &s, &e, &col);
	assert_int_equal(s, 0);
	assert_int_equal(e, 10);
	assert_int_equal(col, 0);
	/* moving right inside the window does not scroll */
	for (int i = 0; i < 5; i++)
		jp_le_apply(&le, JP_LE_RIGHT);
	jp_le_view(&le, 10, &s, &e, &col);
	assert_int_equal(s, 0);
	assert_int_equal(col, 5);
}

static void wide_characters_never_split_at_the_window_edge(void **state)
{
	size_t s, e;
	int col, w;

	(void)state;
	/* ten CJK characters, 20 columns, in a 7-column window */
	jp_le_init(&le, "\xe4\xb8\x80\xe4\xba\x8c\xe4\xb8\x89\xe5\x9b\x9b\xe4\xba\x94"
			"\xe5\x85\xad\xe4\xb8\x83\xe5\x85\xab\xe4\xb9\x9d\xe5\x8d\x81");
	jp_le_view(&le, 7, &s, &e, &col);
	w = jp_utf8_width(le.buf + s, e - s);
	assert_true(w <= 7);
	assert_int_equal(e, le.len);
	assert_true(col + 1 <= 7);
	assert_int_equal(col, w);
	jp_le_apply(&le, JP_LE_HOME);
	jp_le_view(&le, 7, &s, &e, &col);
	assert_int_equal(s, 0);
	assert_int_equal(e, 9); /* three characters, six columns */
}

static void set_replaces_text_and_wipes_the_rest(void **state)
{
	(void)state;
	jp_le_init(&le, "secret-token");
	jp_le_set(&le, "ab");
	assert_string_equal(jp_le_text(&le), "ab");
	assert_int_equal(le.buf[3], '\0');
	assert_int_equal(le.buf[11], '\0');
}

static void utf8_fit_counts_whole_characters(void **state)
{
	int used;

	(void)state;
	assert_int_equal(jp_utf8_fit("\xe4\xb8\xad\xe6\x96\x87", 6, 3, &used), 3);
	assert_int_equal(used, 2);
	assert_int_equal(jp_utf8_swidth("\xe4\xb8\xad\xe6\x96\x87" "ab"), 6);
	assert_true(jp_utf8_valid("\xef\xbf\xbd", 3));
	assert_false(jp_utf8_valid("\xc0\xaf", 2)); /* overlong '/' */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(init_starts_with_cursor_at_end),
		T(home_end_and_ctrl_a_e_move_to_the_ends),
		T(typing_in_the_middle_inserts_at_the_cursor),
		T(backspace_and_delete_remove_one_character),
		T(ctrl_u_kills_to_the_start_and_ctrl_y_yanks_it_back),
		T(ctrl_k_kills_to_the_end),
		T(ctrl_w_removes_one_path_component_at_a_time),
		T(word_motions_stop_at_path_separators),
		T(cjk_characters_move_whole_and_take_two_columns),
		T(combining_marks_move_with_their_base),
		T(insert_code_point_encodes_utf8),
		T(invalid_bytes_are_single_characters),
		T(max_length_refuses_more),
		T(short_text_is_shown_whole),
		T(long_text_scrolls_to_keep_the_cursor_visible),
		T(wide_characters_never_split_at_the_window_edge),
		T(set_replaces_text_and_wipes_the_rest),
		T(utf8_fit_counts_whole_characters),
#undef T
	};

	/* wcwidth needs a UTF-8 locale for CJK to be two columns wide. */
	if (!setlocale(LC_ALL, "C.UTF-8"))
		setlocale(LC_ALL, "en_US.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
