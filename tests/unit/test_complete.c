/* Path completion like a shell's Tab, on a real scratch directory. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tui/complete.h"

static char root[256];

static void mk(const char *rel, bool dir)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0755), 0);
	} else {
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
}

static int setup(void **state)
{
	char p[600], q[600];

	(void)state;
	snprintf(root, sizeof(root), "%s/jp-complete-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return -1;
	mk("datasets", true);
	mk("datasets/imagenet", true);
	mk("datasets/imagenet-21k", true);
	mk("datasets/coco", true);
	mk("datasets/notes.txt", false);
	mk("datasets/.hidden", true);
	mk("projects", true);
	mk("\xe6\x95\xb0\xe6\x8d\xae", true);      /* 数据 */
	mk("\xe6\x95\xb0\xe6\x8e\xa7", true);      /* 数控 */
	snprintf(p, sizeof(p), "%s/datasets/coco", root);
	snprintf(q, sizeof(q), "%s/link-to-coco", root);
	assert_int_equal(symlink(p, q), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static char *at(const char *rel)
{
	static char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return p;
}

static void unique_directory_completes_with_a_slash(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	assert_int_equal(jp_complete_path(&c, at("proj"), 0, 0), 0);
	assert_string_equal(c.text, at("projects/"));
	assert_true(c.changed);
	assert_true(c.unique);
	assert_int_equal(c.n, 1);
	jp_completion_dispose(&c);
}

static void ambiguous_prefix_extends_to_the_common_part(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	assert_int_equal(jp_complete_path(&c, at("datasets/im"), 0, 0), 0);
	assert_string_equal(c.text, at("datasets/imagenet"));
	assert_true(c.changed);
	assert_false(c.unique);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.matches[0], "imagenet-21k/");
	assert_string_equal(c.matches[1], "imagenet/");
	jp_completion_dispose(&c);
}

static void second_tab_lists_without_changing(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	assert_int_equal(jp_complete_path(&c, at("datasets/imagenet"), 0, 0), 0);
	assert_false(c.changed);
	assert_int_equal(c.n, 2);
	jp_completion_dispose(&c);
}

static void dirs_only_skips_files_and_hidden_entries(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	assert_int_equal(jp_complete_path(&c, at("datasets/"), JP_COMPLETE_DIRS, 0), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.matches[0], "coco/");
	jp_completion_dispose(&c);
	assert_int_equal(jp_complete_path(&c, at("datasets/"), 0, 0), 0);
	assert_int_equal(c.n, 4);
	jp_completion_dispose(&c);
}

static void a_leading_dot_offers_hidden_entries(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	assert_int_equal(jp_complete_path(&c, at("datasets/.h"), 0, 0), 0);
	assert_string_equal(c.text, at("datasets/.hidden/"));
	jp_completion_dispose(&c);
}

static void symlink_to_a_directory_completes_like_one(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	assert_int_equal(jp_complete_path(&c, at("link"), JP_COMPLETE_DIRS, 0), 0);
	assert_string_equal(c.text, at("link-to-coco/"));
	jp_completion_dispose(&c);
}

static void no_match_leaves_the_input_alone(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	assert_int_equal(jp_complete_path(&c, at("nothing-here"), 0, 0), 0);
	assert_string_equal(c.text, at("nothing-here"));
	assert_false(c.changed);
	assert_int_equal(c.n, 0);
	jp_completion_dispose(&c);
	assert_int_equal(jp_complete_path(&c, at("no-such-dir/x"), 0, 0), 0);
	assert_int_equal(c.n, 0);
	jp_completion_dispose(&c);
}

static void common_prefix_stops_on_a_character_boundary(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	/* 数据 and 数控 share 数 and the first byte of the second character */
	assert_int_equal(jp_complete_path(&c, at("\xe6"), 0, 0), 0);
	assert_string_equal(c.text, at("\xe6\x95\xb0"));
	assert_int_equal(c.n, 2);
	jp_completion_dispose(&c);
}

static void tilde_expands_to_home(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;
	char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

	(void)state;
	setenv("HOME", root, 1);
	assert_int_equal(jp_complete_path(&c, "~/proj", 0, 0), 0);
	assert_string_equal(c.text, at("projects/"));
	jp_completion_dispose(&c);
	if (old) {
		setenv("HOME", old, 1);
		free(old);
	}
}

static void limit_keeps_the_first_candidates_and_counts_all(void **state)
{
	struct jp_completion c = JP_COMPLETION_INIT;

	(void)state;
	assert_int_equal(jp_complete_path(&c, at("datasets/"), 0, 2), 0);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.n_shown, 2);
	jp_completion_dispose(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unique_directory_completes_with_a_slash),
		cmocka_unit_test(ambiguous_prefix_extends_to_the_common_part),
		cmocka_unit_test(second_tab_lists_without_changing),
		cmocka_unit_test(dirs_only_skips_files_and_hidden_entries),
		cmocka_unit_test(a_leading_dot_offers_hidden_entries),
		cmocka_unit_test(symlink_to_a_directory_completes_like_one),
		cmocka_unit_test(no_match_leaves_the_input_alone),
		cmocka_unit_test(common_prefix_stops_on_a_character_boundary),
		cmocka_unit_test(tilde_expands_to_home),
		cmocka_unit_test(limit_keeps_the_first_candidates_and_counts_all),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
