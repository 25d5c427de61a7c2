/* Paths as text: normalising, joining, making absolute, and the two
 * predicates the manifest and the mount table use. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprep/path.h"
#include "path_internal.h"
#include "scratch.h"

static void assert_normal(const char *path, const char *want)
{
	char *got = jp_path_normalize(path);

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_true(jp_path_is_normal(got));
	free(got);
}

static void normalize_removes_dots_doubled_and_trailing_slashes(void **state)
{
	(void)state;
	assert_normal("/a/b", "/a/b");
	assert_normal("//a///b/", "/a/b");
	assert_normal("/a/./b/.", "/a/b");
	assert_normal("/a/b/../c", "/a/c");
	assert_normal("/a/b/c/../../d", "/a/d");
	/* Names that only start with dots are names. */
	assert_normal("/a/.b/..c/...", "/a/.b/..c/...");
}

static void normalize_never_climbs_above_the_root(void **state)
{
	(void)state;
	assert_normal("/", "/");
	assert_normal("", "/");
	assert_normal("/..", "/");
	assert_normal("/../../a/..", "/");
	assert_normal("/a/../../b", "/b");
	assert_normal("/.", "/");
}

static void normalize_reads_a_relative_path_from_the_root(void **state)
{
	(void)state;
	assert_normal("a/b", "/a/b");
	assert_normal("./a", "/a");
	assert_normal("../a", "/a");
}

static void join_puts_one_slash_between(void **state)
{
	char *s;

	(void)state;
	s = jp_path_join("/a", "b");
	assert_string_equal(s, "/a/b");
	free(s);
	s = jp_path_join("/a/", "b/c");
	assert_string_equal(s, "/a/b/c");
	free(s);
	s = jp_path_join("/", "b");
	assert_string_equal(s, "/b");
	free(s);
	s = jp_path_join("", "b");
	assert_string_equal(s, "/b");
	free(s);
	/* Not normalised: that is jp_path_normalize's job. */
	s = jp_path_join("/a", "../b");
	assert_string_equal(s, "/a/../b");
	free(s);
}

static void absolute_reads_a_relative_path_from_the_working_directory(void **state)
{
	struct scratch *sc = *state;
	char *cwd, *want = NULL, *got;

	assert_int_equal(chdir(sc->dir), 0);
	cwd = getcwd(NULL, 0);
	assert_non_null(cwd);
	assert_true(asprintf(&want, "%s/run/m.json", cwd) > 0);
	got = jp_path_absolute("run/m.json");
	assert_string_equal(got, want);
	free(got);
	/* An absolute path is copied as it is. */
	got = jp_path_absolute("/x//y/");
	assert_string_equal(got, "/x//y/");
	free(got);
	assert_int_equal(chdir("/"), 0);
	got = jp_path_absolute("m.json");
	assert_string_equal(got, "/m.json");
	free(got);
	free(want);
	free(cwd);
}

static void absolute_fails_in_a_removed_directory(void **state)
{
	struct scratch *sc = *state;
	char *gone = NULL, *got;

	assert_true(asprintf(&gone, "%s/gone", sc->dir) > 0);
	assert_int_equal(mkdir(gone, 0700), 0);
	assert_int_equal(chdir(gone), 0);
	assert_int_equal(rmdir(gone), 0);
	errno = 0;
	got = jp_path_absolute("m.json");
	assert_null(got);
	assert_int_equal(errno, ENOENT);
	/* An absolute path needs no working directory. */
	got = jp_path_absolute("/m.json");
	assert_string_equal(got, "/m.json");
	free(got);
	assert_int_equal(chdir("/"), 0);
	free(gone);
}

static void is_normal_accepts_only_what_normalize_returns(void **state)
{
	(void)state;
	assert_true(jp_path_is_normal("/"));
	assert_true(jp_path_is_normal("/a/b c/.d/..."));
	assert_false(jp_path_is_normal(NULL));
	assert_false(jp_path_is_normal(""));
	assert_false(jp_path_is_normal("a/b"));
	assert_false(jp_path_is_normal("//a"));
	assert_false(jp_path_is_normal("/a//b"));
	assert_false(jp_path_is_normal("/a/"));
	assert_false(jp_path_is_normal("/a/./b"));
	assert_false(jp_path_is_normal("/a/.."));
}

static void is_under_compares_whole_components(void **state)
{
	(void)state;
	assert_true(jp_path_is_under("/data/x", "/data"));
	assert_true(jp_path_is_under("/data", "/data"));
	assert_true(jp_path_is_under("/data", "/data//"));
	assert_true(jp_path_is_under("/anything", "/"));
	assert_false(jp_path_is_under("/data2", "/data"));
	assert_false(jp_path_is_under("/dat", "/data"));
	assert_false(jp_path_is_under("/mnt/publicity", "/mnt/public"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normalize_removes_dots_doubled_and_trailing_slashes),
		cmocka_unit_test(normalize_never_climbs_above_the_root),
		cmocka_unit_test(normalize_reads_a_relative_path_from_the_root),
		cmocka_unit_test(join_puts_one_slash_between),
		cmocka_unit_test_setup_teardown(absolute_reads_a_relative_path_from_the_working_directory,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(absolute_fails_in_a_removed_directory,
						scratch_setup, scratch_teardown),
		cmocka_unit_test(is_normal_accepts_only_what_normalize_returns),
		cmocka_unit_test(is_under_compares_whole_components),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
