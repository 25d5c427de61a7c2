/* "Did you mean": Damerau-Levenshtein distance and the nearest name. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "jobprep/suggest.h"
#include "suggest_internal.h"

static const char *best(const char *word, const char *const *names)
{
	struct jp_suggest s;

	jp_suggest_init(&s, word);
	for (size_t i = 0; names[i]; i++)
		jp_suggest_add(&s, names[i]);
	return jp_suggest_best(&s);
}

static void distance_counts_edits_and_swaps(void **state)
{
	(void)state;
	assert_int_equal(jp_suggest_distance("check", "check"), 0);
	assert_int_equal(jp_suggest_distance("chek", "check"), 1);      /* a letter left out */
	assert_int_equal(jp_suggest_distance("chekc", "check"), 1);     /* two swapped */
	assert_int_equal(jp_suggest_distance("ephemral_roots", "ephemeral_roots"), 1);
	assert_int_equal(jp_suggest_distance("", "init"), 4);
	assert_int_equal(jp_suggest_distance("kitten", "sitting"), 3);
}

static void nearest_name_or_the_one_begun(void **state)
{
	static const char *const commands[] = { "init", "check", "clone", "stage", "env",
						"preflight", "export", "scan", "repo", "show",
						"runs", "cache", "schema", NULL };
	static const char *const job[] = { "name", "workers", "gpus_per_worker",
					   "launch_command", "env", NULL };

	(void)state;
	assert_string_equal(best("chek", commands), "check");
	assert_string_equal(best("stgae", commands), "stage");
	assert_string_equal(best("exprot", commands), "export");
	assert_string_equal(best("gpus", job), "gpus_per_worker"); /* begun, not near */
	assert_string_equal(best("launch", job), "launch_command");
	assert_null(best("xyzzy", commands));
	assert_null(best("s", commands)); /* one letter begins many */
	assert_null(best("check", (const char *const[]){ "check", NULL })); /* known: none */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(distance_counts_edits_and_swaps),
		cmocka_unit_test(nearest_name_or_the_one_begun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
